/**
 * A report's keys in the order buildReport writes them: the schema's order below the top, and at
 * the top the summary last (it is written from the rest). A report read back from its history
 * record (canonical JSON, keys sorted) is put back in that order, so a replayed import or diff
 * prints the same JSON as a planned one.
 */
import reportSchema from '../../schemas/report.schema.json' with { type: 'json' };
import type { ImportReport } from '../../schemas/types.js';
import { orderKeys, type SchemaNode } from '../render/key-order.js';

const root = reportSchema as unknown as SchemaNode;

const TOP_ORDER = [
  'schemaVersion',
  'changed',
  'source',
  'previous',
  'counts',
  'endpoints',
  'tools',
  'content',
  'warnings',
  'toolsList',
  'summary',
] as const;

export function inReportOrder(report: ImportReport): ImportReport {
  return orderKeys(report, root, root, TOP_ORDER) as ImportReport;
}
