export { diffEndpoint, diffEndpoints } from './diff-endpoints.js';
export { endpointGroup, endpointLabel, endpointMatchKey } from './endpoint-key.js';
export { type ChangeLevel, RULES, type Rule, type RuleId, ruleLevel } from './rules.js';
export { diffSchemas, SchemaDiffer, type SchemaFinding, type SchemaFindingKind } from './schema-diff.js';
