/**
 * docs/diff-rules.md, generated from the registry (a test keeps the file current:
 * `npx vitest run -u generator/diff/rules-doc.test.ts` rewrites it).
 */
import { KEYWORD_SCOPES, RULES, STATIC_RULE_IDS } from './rules.js';
import { CONSTRAINT_KEYWORDS, type ConstraintKeyword } from './schema-diff.js';

export function renderRulesDoc(): string {
  const lines: string[] = [
    '# Diff rules',
    '',
    '<!-- Generated from generator/diff/rules.ts by generator/diff/rules-doc.test.ts; do not edit by hand. -->',
    '',
    'Every import compares the new description with the previous one, endpoint by endpoint, and reports each',
    'change as a rule id, a level and a sentence. The ids are stable: the JSON report, `--fail-on` and the',
    'tuning below use them.',
    '',
    '**The direction rule.** A change breaks a caller when a request accepts less (a tightened constraint, a new',
    'required input, a removed value, a narrower type, stricter security) or a response promises less (a loosened',
    'constraint, a removed or no longer required property, a new enum value or shape, a wider type). The mirror',
    'image of each is `info`. `readOnly` properties are not part of requests and `writeOnly` ones not part of',
    'responses. Every media type of a body, every response status (error responses one level lower: `warning`),',
    'response headers, links and callbacks are compared.',
    '',
    '**Lifecycle.** Removing an endpoint or parameter after its announced sunset (`x-sunset`, a date) is `info`;',
    'a deprecated one without a sunset date, `warning`; anything else, `breaking`. Nothing about an endpoint whose',
    '`x-stability-level` was `draft` or `alpha` is breaking (its breaking changes are reported as `info`), and a',
    'move to a lower stability level (stable → beta) is breaking.',
    '',
    "**Tuning.** A `diff:` block in the folder's `config.yaml` raises or lowers any rule (or turns it `off`), and",
    'sets how many days after a sunset a removal is expected. `svc diff --fail-on` and the Action read the tuned',
    'levels. An unknown rule id is an error.',
    '',
    '```yaml',
    'diff:',
    '  rules:',
    '    response-property-enum-value-added: warning   # our clients accept unknown values',
    '    request-parameter-default-changed: off',
    '    response-error-schema-loosened: breaking',
    '  sunsetGraceDays: 30',
    '```',
    '',
    `**Fixtures.** fixtures/diff-rules/ holds a minimal base and revision per case, with the rule ids it must report`,
    'and its verdict; generator/diff/diff-rules.test.ts runs them all and checks that every rule below has a',
    'breaking and a non-breaking case, a case that reports it and a near miss that must not.',
    '',
    `## Rules (${STATIC_RULE_IDS.length})`,
    '',
    '| id | level | meaning |',
    '|---|---|---|',
  ];
  for (const id of STATIC_RULE_IDS)
    lines.push(`| \`${id}\` | ${RULES[id].level} | ${RULES[id].description} |`);
  const keywords = Object.keys(CONSTRAINT_KEYWORDS) as ConstraintKeyword[];
  lines.push(
    '',
    `## Schema keyword rules (${KEYWORD_SCOPES.length * keywords.length * 2})`,
    '',
    'One pair per keyword and place: `<place>-<keyword>-tightened` (fewer values valid, or changed in a way that',
    'may refuse an old value) and `<place>-<keyword>-loosened`. Places: `request-parameter`, `request-property`',
    '(the request body or one of its properties) and `response-property` (the success response or one of its',
    'properties). Tightened is breaking in a request and info in a response; loosened the other way round.',
    '',
    '| keyword | id fragment | request-parameter / request-property | response-property |',
    '|---|---|---|---|',
  );
  for (const k of keywords) {
    const req = `${RULES[`request-parameter-${k}-tightened`].level} / ${RULES[`request-parameter-${k}-loosened`].level}`;
    const res = `${RULES[`response-property-${k}-tightened`].level} / ${RULES[`response-property-${k}-loosened`].level}`;
    lines.push(
      `| ${CONSTRAINT_KEYWORDS[k]} | \`${k}\` | tightened ${req.split(' / ')[0]}, loosened ${req.split(' / ')[1]} | tightened ${res.split(' / ')[0]}, loosened ${res.split(' / ')[1]} |`,
    );
  }
  lines.push(
    '',
    '`contentMediaType` and `contentEncoding` describe what a string carries: adding one is a tightening, dropping',
    'one a loosening, and changing one (image/png → image/jpeg, base64 → base64url) breaks in a request and in a',
    'response alike.',
    '',
    '**Discriminators.** The `discriminator` of each component schema an endpoint uses, and one written inline at',
    'the root of a request or response body, is compared (the implicit',
    "mapping, a variant's component name, counts as written out). Both ends read it, so a renamed `propertyName` or",
    'a value that names another variant breaks a request and a response alike; a value removed breaks a request,',
    'a value added breaks a response. A schema is on the request side when the parameters or the request body use',
    'it, on the response side when a response or a callback does; a schema used on both sides is reported twice.',
    'A discriminator added to or removed from a schema both ends already use (the same component schema on the',
    'same side, or the same body) is reported as well. OpenAPI says the payload MUST carry the',
    "discriminator's property and its value names the variant. So in a request, adding one is `breaking` when some",
    'variant did not require the property (a caller that left it out is refused) and a `warning` when every variant',
    'already required it (the value must now name a variant of the mapping); removing one is `info` (the schema',
    'accepts what it accepted). In a response, removing one is `breaking` (callers can no longer pick the variant by',
    'the property) and adding one is `info`. A schema newly used or no longer used is left to the other rules.',
    '',
    "**Webhooks.** OpenAPI 3.1 `webhooks`, and the `x-webhooks` OpenAPI 3.0 descriptions such as GitHub's carry in",
    "the same shape, are compared by method and name (`diffWebhooks`). A webhook's request is",
    'sent by the API to the consumer, so the direction rule flips: its payload is judged as a response is (a',
    'property removed or made optional, a new enum value, a wider type, a looser constraint, a media type or the',
    "whole body gone breaks the consumer's handler; a new required property is info). A new webhook is `info`",
    '(consumers opt in); a removed one is `breaking` (the consumers that handle it stop receiving its requests).',
    'What the consumer answers is not compared. The report counts webhook changes apart from the endpoints',
    "(`counts.webhooks`, a Webhooks row in the pull request's table).",
    '',
    'Not compared yet: a discriminator written inline deeper than a body root, and `$ref`s to other files.',
    '',
  );
  return lines.join('\n');
}
