/**
 * Every change the endpoint diff can report, in one registry (the oasdiff model): a stable
 * kebab-case id, whether it breaks callers of the tool built from the endpoint, and a
 * one-line explanation. Ids are part of the report's contract: never rename one.
 *
 * "Breaking" is judged from a caller of the tool: a call that worked before may now fail
 * (new required input, removed input, narrower type or enum, stricter security) or its
 * result may lack something it relied on (removed response property, changed status or type).
 */
export type ChangeLevel = 'breaking' | 'info';

export interface Rule {
  level: ChangeLevel;
  description: string;
}

export const RULES = {
  'endpoint-added': { level: 'info', description: 'A new endpoint.' },
  'endpoint-removed': { level: 'breaking', description: 'The endpoint is gone from the document.' },
  'endpoint-deprecated': { level: 'info', description: 'The endpoint became deprecated.' },
  'endpoint-undeprecated': { level: 'info', description: 'The endpoint is no longer deprecated.' },
  'endpoint-operation-id-changed': { level: 'info', description: 'The operationId changed.' },
  'endpoint-path-parameter-renamed': {
    level: 'info',
    description: 'A path parameter was renamed; the path is otherwise the same.',
  },
  'endpoint-path-changed': {
    level: 'info',
    description: 'The path changed; the method and operationId are the same, so it is the same operation.',
  },
  'endpoint-summary-changed': { level: 'info', description: 'The summary or description changed.' },
  'request-parameter-added-required': { level: 'breaking', description: 'A new required parameter.' },
  'request-parameter-added-optional': { level: 'info', description: 'A new optional parameter.' },
  'request-parameter-removed': { level: 'breaking', description: 'A parameter was removed.' },
  'request-parameter-became-required': {
    level: 'breaking',
    description: 'An optional parameter became required.',
  },
  'request-parameter-became-optional': {
    level: 'info',
    description: 'A required parameter became optional.',
  },
  'request-parameter-type-changed': { level: 'breaking', description: "A parameter's type changed." },
  'request-parameter-enum-value-removed': {
    level: 'breaking',
    description: 'A parameter no longer accepts a value.',
  },
  'request-parameter-enum-value-added': { level: 'info', description: 'A parameter accepts a new value.' },
  'request-parameter-deprecated': { level: 'info', description: 'A parameter became deprecated.' },
  'request-body-added-required': { level: 'breaking', description: 'The endpoint now requires a body.' },
  'request-body-added-optional': { level: 'info', description: 'The endpoint now accepts an optional body.' },
  'request-body-removed': { level: 'breaking', description: 'The endpoint no longer takes a body.' },
  'request-body-became-required': { level: 'breaking', description: 'The body became required.' },
  'request-body-became-optional': { level: 'info', description: 'The body became optional.' },
  'request-body-content-type-changed': { level: 'breaking', description: "The body's media type changed." },
  'request-body-type-changed': {
    level: 'breaking',
    description: "The body's (or a body property's) type changed.",
  },
  'request-property-added-required': { level: 'breaking', description: 'A new required body property.' },
  'request-property-added-optional': { level: 'info', description: 'A new optional body property.' },
  'request-property-removed': { level: 'breaking', description: 'A body property was removed.' },
  'request-property-became-required': { level: 'breaking', description: 'A body property became required.' },
  'request-property-became-optional': { level: 'info', description: 'A body property became optional.' },
  'request-property-enum-value-removed': {
    level: 'breaking',
    description: 'A body property no longer accepts a value.',
  },
  'request-property-enum-value-added': { level: 'info', description: 'A body property accepts a new value.' },
  'response-success-status-changed': { level: 'breaking', description: 'The success status code changed.' },
  'response-content-type-changed': {
    level: 'breaking',
    description: "The success response's media type changed.",
  },
  'response-body-added': { level: 'info', description: 'The success response now has a body schema.' },
  'response-body-removed': {
    level: 'breaking',
    description: 'The success response no longer has a body schema.',
  },
  'response-type-changed': {
    level: 'breaking',
    description: "The response's (or a response property's) type changed.",
  },
  'response-property-added': { level: 'info', description: 'A new response property.' },
  'response-property-removed': { level: 'breaking', description: 'A response property was removed.' },
  'response-property-became-optional': {
    level: 'breaking',
    description: 'A response property is no longer always present.',
  },
  'response-property-became-required': {
    level: 'info',
    description: 'A response property is now always present.',
  },
  'response-property-enum-value-added': {
    level: 'info',
    description: 'A response property may hold a new value.',
  },
  'response-property-enum-value-removed': {
    level: 'info',
    description: 'A response property no longer holds a value.',
  },
  'security-added': { level: 'breaking', description: 'A public endpoint now requires authorization.' },
  'security-removed': { level: 'info', description: 'The endpoint no longer requires authorization.' },
  'security-alternative-added': { level: 'info', description: 'A new way to authorize the endpoint.' },
  'security-alternative-removed': {
    level: 'breaking',
    description: 'A way to authorize the endpoint was removed.',
  },
  'security-scopes-widened': {
    level: 'info',
    description:
      'The endpoint now needs OAuth scopes it did not: a user_oauth server asks every person for them once an enabled tool calls it.',
  },
} as const satisfies Record<string, Rule>;

export type RuleId = keyof typeof RULES;

export function ruleLevel(id: RuleId): ChangeLevel {
  return RULES[id].level;
}
