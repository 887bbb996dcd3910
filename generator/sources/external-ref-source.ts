/**
 * The files an external $ref may reach (--allow-external-refs), and reading them. A $ref resolves only to
 * the same kind of source as the document: http(s) URLs from a document fetched over http(s) (another
 * origin only when it is not a loopback, private or internal address), files under the document's own
 * directory from a document read from disk. Never a local file from a remote document: that would let
 * whoever serves the document copy the importing machine's files into the folder.
 *
 * "Not a private address" is decided on the addresses the host resolves to, for every redirect hop, and
 * the connection goes to the address checked (external-ref-source-fetch.ts), so neither a public name
 * with a private DNS answer nor a redirect nor a rebind between check and connect reaches this machine
 * or its network. The document's own origin is the user's choice and may be private; its refs and hops
 * are pinned to the addresses its host had when the first of them was checked.
 */
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SvcError } from '../../core/svc-error.js';
import { fetchExternalRef } from './external-ref-source-fetch.js';
import { DEFAULT_MAX_SOURCE_BYTES, readOpenApiSource, type SourceText } from './openapi-source.js';
import { isPrivateAddress, isPrivateHost } from '../../core/private-address.js';
import {
  type HostResolver,
  hostOf,
  type ResolvedAddress,
  systemResolver,
} from '../../core/private-address-resolve.js';

const REF_TIMEOUT_MS = 30_000;

/** Where `ref`, written in the file at `base`, points: an absolute URL without its fragment. */
export function refTarget(base: URL, ref: string): URL | undefined {
  try {
    const target = new URL(ref, base);
    target.hash = '';
    return target;
  } catch {
    return undefined;
  }
}

/** Why the document at `document` may not follow a $ref to `target`; undefined when it may. */
export function externalRefRefusal(document: URL, target: URL): string | undefined {
  if (document.protocol === 'http:' || document.protocol === 'https:') {
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return `a document fetched over ${document.protocol.slice(0, -1)} may refer only to http(s) URLs, not to ${target.protocol} ones`;
    }
    if (target.origin !== document.origin && isPrivateHost(target)) {
      return `it points at a local or private address (${target.host}) other than the document's own`;
    }
    return undefined;
  }
  if (target.protocol !== 'file:') {
    return 'a local document may refer only to files under its own directory';
  }
  return outside(dirname(fileURLToPath(document)), fileURLToPath(target));
}

function outside(dir: string, path: string): string | undefined {
  const rel = relative(dir, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    return `it leaves the document's directory ${dir}`;
  }
  return undefined;
}

export interface ExternalRefReader {
  /**
   * Reads an allowed target with the same size limit as the document itself. `refuse` turns a reason
   * into the error naming the $ref; it is thrown for a hop or an address the policy does not allow.
   */
  read(target: URL, refuse: (reason: string) => SvcError): Promise<SourceText>;
}

/** The reader for the $refs of the document at `document`; `resolver` is the system's DNS unless a test says. */
export function externalRefReader(document: URL, resolver: HostResolver = systemResolver): ExternalRefReader {
  let own: Promise<readonly ResolvedAddress[] | string> | undefined;
  /** The addresses of the URL's host, or why there are none. */
  const resolve = (url: URL): Promise<readonly ResolvedAddress[] | string> =>
    resolver(hostOf(url)).then(
      (addresses) => (addresses.length > 0 ? addresses : `its host ${hostOf(url)} has no address`),
      (cause: NodeJS.ErrnoException) =>
        `its host ${hostOf(url)} could not be resolved (${cause?.code ?? cause?.message ?? 'error'})`,
    );
  const addressesFor = async (url: URL, from: URL | undefined, refuse: (reason: string) => SvcError) => {
    const hop = from ? `${from.href} redirected to ${url.href}: ` : '';
    const reason = externalRefRefusal(document, url);
    if (reason) throw refuse(`${hop}${reason}`);
    own ??= resolve(document);
    const addresses = await (url.origin === document.origin ? own : resolve(url));
    if (typeof addresses === 'string') throw refuse(`${hop}${addresses}`);
    if (url.origin === document.origin) return addresses;
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad) {
      throw refuse(
        `${hop}its host ${hostOf(url)} resolves to ${bad.address}, a loopback, private or internal address other than the document's own`,
      );
    }
    return addresses;
  };
  return {
    async read(target, refuse) {
      if (target.protocol === 'file:') return readFile(document, target);
      return fetchExternalRef(target, {
        check: (url, from) => addressesFor(url, from, refuse),
        maxBytes: DEFAULT_MAX_SOURCE_BYTES,
        timeoutMs: REF_TIMEOUT_MS,
      });
    },
  };
}

/** A file under the document's directory; a symlink may not lead outside. */
async function readFile(document: URL, target: URL): Promise<SourceText> {
  const dir = dirname(fileURLToPath(document));
  const [realDir, realTarget] = await Promise.all([
    realpath(dir),
    realpath(fileURLToPath(target)).catch(() => fileURLToPath(target)),
  ]);
  const leaves = outside(realDir, realTarget);
  if (leaves) {
    throw new SvcError('SPEC_EXTERNAL_REF', `$ref target ${target.href} is a link: ${leaves}`, {
      place: { file: fileURLToPath(target) },
    });
  }
  return readOpenApiSource(fileURLToPath(target), { cwd: dir });
}
