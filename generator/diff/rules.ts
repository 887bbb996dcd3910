/**
 * Every change the endpoint diff can report, in one registry (the oasdiff model): a stable
 * kebab-case id, a level and a sentence a reviewer understands. Ids are part of the report's
 * contract: never rename one. Levels can be tuned per folder (`diff.rules` in config.yaml).
 *
 * The direction rule decides the levels: a change breaks a caller when a request accepts less
 * (a tightened constraint, a new required input, a removed value, a narrower type, stricter
 * security) or a response promises less (a loosened constraint, a removed or optional property,
 * a new value or shape, a wider type). The mirror image of each is info. Error responses and
 * lifecycle notices sit a level lower (warning).
 */
import { CONSTRAINT_KEYWORDS, type ConstraintKeyword } from './schema-diff.js';

export type ChangeLevel = 'breaking' | 'warning' | 'info';

export interface Rule {
  level: ChangeLevel;
  description: string;
}

const STATIC_RULES = {
  'endpoint-added': { level: 'info', description: 'A new endpoint.' },
  'endpoint-removed': { level: 'breaking', description: 'The endpoint is gone from the document.' },
  'endpoint-removed-after-sunset': {
    level: 'info',
    description: 'The endpoint is gone after its announced sunset date (plus the configured grace).',
  },
  'endpoint-removed-deprecated': {
    level: 'warning',
    description: 'A deprecated endpoint without a sunset date is gone.',
  },
  'endpoint-deprecated': { level: 'info', description: 'The endpoint became deprecated.' },
  'endpoint-undeprecated': { level: 'info', description: 'The endpoint is no longer deprecated.' },
  'endpoint-sunset-changed': { level: 'info', description: 'The announced sunset date (x-sunset) changed.' },
  'endpoint-stability-decreased': {
    level: 'breaking',
    description: 'The endpoint moved to a less stable level (x-stability-level), e.g. stable → beta.',
  },
  'endpoint-stability-changed': {
    level: 'info',
    description: 'The endpoint moved to a more stable level (x-stability-level).',
  },
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
  'request-parameter-removed-after-sunset': {
    level: 'info',
    description: 'A parameter is gone after its announced sunset date (plus the configured grace).',
  },
  'request-parameter-removed-deprecated': {
    level: 'warning',
    description: 'A deprecated parameter without a sunset date is gone.',
  },
  'request-parameter-became-required': {
    level: 'breaking',
    description: 'An optional parameter became required.',
  },
  'request-parameter-became-optional': {
    level: 'info',
    description: 'A required parameter became optional.',
  },
  'request-parameter-type-changed': {
    level: 'breaking',
    description: "A parameter's type changed or narrowed: a value that was accepted may be refused.",
  },
  'request-parameter-type-widened': {
    level: 'info',
    description: 'A parameter accepts more types (integer → number, became nullable, also an array).',
  },
  'request-parameter-enum-value-removed': {
    level: 'breaking',
    description: 'A parameter no longer accepts a value.',
  },
  'request-parameter-enum-value-added': { level: 'info', description: 'A parameter accepts a new value.' },
  'request-parameter-default-changed': {
    level: 'warning',
    description: "A parameter's default changed: a call that leaves it out behaves differently.",
  },
  'request-parameter-deprecated': { level: 'info', description: 'A parameter became deprecated.' },
  'request-parameter-one-of-added': {
    level: 'info',
    description: 'A parameter accepts a new alternative shape (oneOf/anyOf branch).',
  },
  'request-parameter-one-of-removed': {
    level: 'breaking',
    description: 'A parameter no longer accepts one of its alternative shapes (oneOf/anyOf branch).',
  },
  'request-body-added-required': { level: 'breaking', description: 'The endpoint now requires a body.' },
  'request-body-added-optional': { level: 'info', description: 'The endpoint now accepts an optional body.' },
  'request-body-removed': { level: 'breaking', description: 'The endpoint no longer takes a body.' },
  'request-body-became-required': { level: 'breaking', description: 'The body became required.' },
  'request-body-became-optional': { level: 'info', description: 'The body became optional.' },
  'request-body-content-type-changed': {
    level: 'breaking',
    description: "The body's media type changed and the old one is no longer accepted.",
  },
  'request-body-media-type-added': {
    level: 'info',
    description: 'The body may be sent as a new media type.',
  },
  'request-body-media-type-removed': {
    level: 'breaking',
    description: 'One of the media types the body could be sent as is no longer accepted.',
  },
  'request-body-type-changed': {
    level: 'breaking',
    description: "The body's (or a body property's) type changed or narrowed.",
  },
  'request-body-type-widened': {
    level: 'info',
    description: 'The body (or a body property) accepts more types.',
  },
  'request-property-added-required': { level: 'breaking', description: 'A new required body property.' },
  'request-property-added-optional': { level: 'info', description: 'A new optional body property.' },
  'request-property-removed': { level: 'breaking', description: 'A body property was removed.' },
  'request-property-became-required': { level: 'breaking', description: 'A body property became required.' },
  'request-property-became-optional': { level: 'info', description: 'A body property became optional.' },
  'request-property-became-read-only': {
    level: 'warning',
    description: 'A body property became readOnly: the server now ignores or refuses it in requests.',
  },
  'request-property-enum-value-removed': {
    level: 'breaking',
    description: 'A body property no longer accepts a value.',
  },
  'request-property-enum-value-added': { level: 'info', description: 'A body property accepts a new value.' },
  'request-property-default-changed': {
    level: 'warning',
    description: "A body property's default changed: a call that leaves it out behaves differently.",
  },
  'request-property-deprecated': { level: 'info', description: 'A body property became deprecated.' },
  'request-property-one-of-added': {
    level: 'info',
    description: 'The body (or a body property) accepts a new alternative shape (oneOf/anyOf branch).',
  },
  'request-property-one-of-removed': {
    level: 'breaking',
    description: 'The body (or a body property) no longer accepts one of its shapes (oneOf/anyOf branch).',
  },
  'response-success-status-changed': { level: 'breaking', description: 'The success status code changed.' },
  'response-success-status-added': { level: 'info', description: 'A new success status is documented.' },
  'response-success-status-removed': {
    level: 'breaking',
    description: 'A success status other than the main one is no longer returned.',
  },
  'response-error-status-added': { level: 'info', description: 'A new error status is documented.' },
  'response-error-status-removed': { level: 'info', description: 'An error status is no longer documented.' },
  'response-error-schema-loosened': {
    level: 'warning',
    description: "An error response's body promises less (a change that would break a success response).",
  },
  'response-error-schema-changed': {
    level: 'info',
    description: "An error response's body changed without promising less.",
  },
  'response-content-type-changed': {
    level: 'breaking',
    description: "The success response's media type changed and the old one is no longer returned.",
  },
  'response-media-type-added': { level: 'info', description: 'A response may come as a new media type.' },
  'response-media-type-removed': {
    level: 'breaking',
    description: 'A success response no longer comes as one of its media types.',
  },
  'response-body-added': { level: 'info', description: 'The success response now has a body schema.' },
  'response-body-removed': {
    level: 'breaking',
    description: 'The success response no longer has a body schema.',
  },
  'response-type-changed': {
    level: 'breaking',
    description: "The response's (or a response property's) type changed or widened.",
  },
  'response-type-narrowed': {
    level: 'info',
    description:
      'The response (or a response property) holds fewer types (number → integer, no longer null).',
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
  'response-property-became-write-only': {
    level: 'breaking',
    description: 'A response property became writeOnly: responses no longer carry it.',
  },
  'response-property-enum-value-added': {
    level: 'breaking',
    description: 'A response property may hold a new value that callers do not expect.',
  },
  'response-property-enum-value-removed': {
    level: 'info',
    description: 'A response property no longer holds a value.',
  },
  'response-property-default-changed': {
    level: 'info',
    description: "A response property's default changed.",
  },
  'response-property-deprecated': { level: 'info', description: 'A response property became deprecated.' },
  'response-property-one-of-added': {
    level: 'breaking',
    description: 'The response (or a response property) may take a new shape (oneOf/anyOf branch).',
  },
  'response-property-one-of-removed': {
    level: 'info',
    description: 'The response (or a response property) no longer takes one of its shapes.',
  },
  'response-header-added': { level: 'info', description: 'A response carries a new header.' },
  'response-header-removed': {
    level: 'breaking',
    description: 'A required response header is gone.',
  },
  'response-optional-header-removed': {
    level: 'warning',
    description: 'An optional response header is gone.',
  },
  'response-header-became-optional': {
    level: 'breaking',
    description: 'A response header is no longer always sent.',
  },
  'response-header-became-required': { level: 'info', description: 'A response header is now always sent.' },
  'response-header-schema-loosened': {
    level: 'breaking',
    description: "A response header's value promises less (wider type, looser constraint, new value).",
  },
  'response-header-schema-changed': {
    level: 'info',
    description: "A response header's value changed without promising less.",
  },
  'response-link-added': { level: 'info', description: 'A response has a new link.' },
  'response-link-removed': { level: 'warning', description: 'A response link is gone.' },
  'callback-added': { level: 'info', description: 'The endpoint calls a new callback.' },
  'callback-removed': { level: 'warning', description: 'The endpoint no longer calls a callback.' },
  'callback-payload-loosened': {
    level: 'breaking',
    description: 'A callback request sent to the caller promises less (as a response would).',
  },
  'callback-payload-changed': {
    level: 'info',
    description: 'A callback request sent to the caller changed without promising less.',
  },
  'request-discriminator-property-name-changed': {
    level: 'breaking',
    description:
      'The property that names the variant of a request schema (discriminator.propertyName) changed: callers send the old one.',
  },
  'request-discriminator-mapping-removed': {
    level: 'breaking',
    description: 'A discriminator value a request could carry no longer names a variant.',
  },
  'request-discriminator-mapping-added': {
    level: 'info',
    description: 'A request may carry a new discriminator value (a new variant).',
  },
  'request-discriminator-mapping-changed': {
    level: 'breaking',
    description: 'A discriminator value in a request now names another variant.',
  },
  'response-discriminator-property-name-changed': {
    level: 'breaking',
    description:
      'The property that names the variant of a response schema (discriminator.propertyName) changed: callers read the old one.',
  },
  'response-discriminator-mapping-removed': {
    level: 'info',
    description: 'A response no longer carries one of its discriminator values (one variant fewer).',
  },
  'response-discriminator-mapping-added': {
    level: 'breaking',
    description: 'A response may carry a discriminator value (a variant) callers do not know.',
  },
  'response-discriminator-mapping-changed': {
    level: 'breaking',
    description: 'A discriminator value in a response now names another variant.',
  },
  'request-discriminator-added': {
    level: 'breaking',
    description:
      'A request schema gained a discriminator on a property some variant did not require: OpenAPI says the payload MUST carry that property, so a caller that left it out is refused.',
  },
  'request-discriminator-added-property-required': {
    level: 'warning',
    description:
      'A request schema gained a discriminator on a property every variant already required: callers send it, but its value must now name a variant of the mapping.',
  },
  'request-discriminator-removed': {
    level: 'info',
    description:
      'A request schema lost its discriminator: the server no longer picks the variant by the property, and the schema accepts what it accepted.',
  },
  'response-discriminator-added': {
    level: 'info',
    description: 'A response schema gained a discriminator: callers can now pick the variant by a property.',
  },
  'response-discriminator-removed': {
    level: 'breaking',
    description:
      'A response schema lost its discriminator: callers that picked the variant by the property can no longer rely on it.',
  },
  'webhook-added': {
    level: 'info',
    description: 'The API documents a new webhook (a request it may send to consumers who subscribe).',
  },
  'webhook-removed': {
    level: 'breaking',
    description: 'A webhook is gone: consumers who handle it stop receiving its requests.',
  },
  'webhook-payload-loosened': {
    level: 'breaking',
    description:
      "A webhook's payload, sent by the API to the consumer, promises less (judged as a response: a removed or optional property, a new value, a wider type, a looser constraint, a media type or the body gone).",
  },
  'webhook-payload-changed': {
    level: 'info',
    description:
      "A webhook's payload changed without promising less (a new property, a narrower type, a new media type).",
  },
  'security-added': { level: 'breaking', description: 'A public endpoint now requires authorization.' },
  'security-removed': { level: 'info', description: 'The endpoint no longer requires authorization.' },
  'security-alternative-added': { level: 'info', description: 'A new way to authorize the endpoint.' },
  'security-alternative-removed': {
    level: 'breaking',
    description: 'A way to authorize the endpoint was removed (or now needs another scheme too).',
  },
  'security-scopes-added': {
    level: 'breaking',
    description: 'A way to authorize the endpoint now needs more OAuth scopes.',
  },
  'security-scopes-removed': {
    level: 'info',
    description: 'A way to authorize the endpoint needs fewer OAuth scopes.',
  },
  'security-scopes-widened': {
    level: 'info',
    description:
      'The endpoint now needs OAuth scopes it did not: a user_oauth server asks every person for them once an enabled tool calls it.',
  },
} as const satisfies Record<string, Rule>;

/** Where a schema keyword change is read: a parameter, the request body, the success response. */
export const KEYWORD_SCOPES = ['request-parameter', 'request-property', 'response-property'] as const;
export type KeywordScope = (typeof KEYWORD_SCOPES)[number];
export type KeywordRuleId = `${KeywordScope}-${ConstraintKeyword}-${'tightened' | 'loosened'}`;

const SCOPE_TEXT: Record<KeywordScope, string> = {
  'request-parameter': 'A parameter',
  'request-property': 'The request body (or a body property)',
  'response-property': 'The response (or a response property)',
};

function keywordRules(): Record<KeywordRuleId, Rule> {
  const out = {} as Record<KeywordRuleId, Rule>;
  for (const scope of KEYWORD_SCOPES) {
    const request = scope !== 'response-property';
    for (const [keyword, name] of Object.entries(CONSTRAINT_KEYWORDS) as [ConstraintKeyword, string][]) {
      out[`${scope}-${keyword}-tightened`] = {
        level: request ? 'breaking' : 'info',
        description: `${SCOPE_TEXT[scope]}: ${name} tightened or changed, ${
          request ? 'so a value that was accepted may be refused' : 'so fewer values come back'
        }.`,
      };
      out[`${scope}-${keyword}-loosened`] = {
        level: request ? 'info' : 'breaking',
        description: `${SCOPE_TEXT[scope]}: ${name} loosened or ${request ? 'dropped, so more values are accepted' : 'changed, so values callers never saw may come back'}.`,
      };
    }
  }
  return out;
}

export const RULES: Record<StaticRuleId | KeywordRuleId, Rule> = { ...STATIC_RULES, ...keywordRules() };

type StaticRuleId = keyof typeof STATIC_RULES;
export type RuleId = StaticRuleId | KeywordRuleId;

export function isRuleId(id: string): id is RuleId {
  return Object.hasOwn(RULES, id);
}

export function ruleLevel(id: RuleId): ChangeLevel {
  return RULES[id].level;
}

/** The rule ids that existed before the keyword rules (issue 24): the report's goldens use them. */
export const STATIC_RULE_IDS = Object.keys(STATIC_RULES) as StaticRuleId[];
