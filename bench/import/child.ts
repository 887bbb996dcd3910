/**
 * One measured import in its own process, so peak RSS belongs to this run alone:
 * read → parse + validate → endpoints → tools. Prints one JSON line.
 *
 *   node dist/bench/import/child.js <document>
 */
import { toEndpoints } from '../../generator/endpoints/index.js';
import { parseDocument } from '../../generator/parse/index.js';
// The document reader alone: the sources index also loads the content-directory reader.
import { readOpenApiSource } from '../../generator/sources/openapi-source.js';
import { buildTools } from '../../generator/tools/index.js';
import { toolsListBytes } from './tools-list-size.js';

const location = process.argv[2];
if (!location) {
  console.error('usage: child.js <document>');
  process.exit(2);
}
const started = performance.now();
const source = await readOpenApiSource(location, { cwd: process.cwd() });
const parsed = await parseDocument(source);
const endpoints = toEndpoints(parsed);
const tools = buildTools(endpoints);
const ms = performance.now() - started;
const result = {
  ms,
  operations: endpoints.length,
  tools: tools.length,
  toolsListBytes: toolsListBytes(tools.map((t) => t.tool)),
  // Linux reports kilobytes.
  maxRssKb: process.resourceUsage().maxRSS,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
