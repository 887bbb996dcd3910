export { diffOptionsOf } from './diff-config.js';
export { type DiffOptions, diffEndpoint, diffEndpoints } from './diff-endpoints.js';
export { endpointGroup, endpointLabel, endpointMatchKey } from './endpoint-key.js';
export {
  type ChangeLevel,
  isRuleId,
  KEYWORD_SCOPES,
  RULES,
  type Rule,
  type RuleId,
  ruleLevel,
  STATIC_RULE_IDS,
} from './rules.js';
export {
  CONSTRAINT_KEYWORDS,
  diffSchemas,
  SchemaDiffer,
  type SchemaFinding,
  type SchemaFindingKind,
} from './schema-diff.js';
export { diffWebhooks } from './webhook-diff.js';
export { webhookChanges } from './webhook-changes.js';
