/** The body caps: the API's (GitHub caps webhook payloads at 25 MB) and the sign-in forms'. */
import { bodyLimit } from 'hono/body-limit';
import { problem } from './problem.js';

/** /v1/*: nothing this service reads is larger than a GitHub delivery. */
export function apiBodyLimit() {
  return bodyLimit({
    maxSize: 25 * 1024 * 1024,
    onError: (c) => problem(c, 413, 'TOO_LARGE', 'the request body is larger than 25 MB'),
  });
}

/** /login and /logout. */
export function formBodyLimit() {
  return bodyLimit({
    maxSize: 16 * 1024,
    onError: (c) => problem(c, 413, 'TOO_LARGE', 'the form is larger than 16 KB'),
  });
}
