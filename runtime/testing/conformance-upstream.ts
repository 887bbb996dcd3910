/**
 * The fixture upstream behind fixtures/conformance/folder: it returns exactly the payloads the
 * MCP conformance scenarios expect from the tools of that folder.
 */
import { type EchoUpstream, PNG_1X1, startEchoUpstream, WAV_EMPTY } from './echo-upstream.js';

export const CONFORMANCE_FOLDER = 'fixtures/conformance/folder';

export function startConformanceUpstream(): Promise<EchoUpstream> {
  return startEchoUpstream({
    record: false,
    route(_req, res, _body, url) {
      switch (url.pathname) {
        case '/simple-text':
          res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
          res.end('This is a simple text response for testing.');
          return true;
        case '/image':
          res.writeHead(200, { 'content-type': 'image/png' });
          res.end(PNG_1X1);
          return true;
        case '/audio':
          res.writeHead(200, { 'content-type': 'audio/wav' });
          res.end(WAV_EMPTY);
          return true;
        case '/error':
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('This tool intentionally returns an error for testing');
          return true;
        case '/json-schema':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ received: [...url.searchParams.entries()] }));
          return true;
        default:
          return false;
      }
    },
  });
}
