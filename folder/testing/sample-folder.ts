/**
 * A small, valid FolderModel with every kind of file, for tests (here and in other areas).
 * Built by hand, so a test of the renderer or the loader does not depend on the importer.
 */
import type { SvcConfig, SvcTool } from '../../schemas/types.js';
import type { FolderModel } from '../model.js';

/** The generated type of a tool schema names only `type`; real schemas carry more. */
function schema(value: { type: 'object' } & Record<string, unknown>): { type: 'object' } {
  return value;
}

export function sampleConfig(overrides: Partial<SvcConfig> = {}): SvcConfig {
  return {
    schemaVersion: 1,
    server: { id: 'orders', name: 'Orders API', published: false },
    app: { name: 'Orders', description: 'Orders, refunds and webhooks.', provider: 'openapi' },
    source: { kind: 'openapi', location: 'https://api.example.test/openapi.json' },
    auth: { mode: 'api_key', apiKey: { in: 'header', name: 'X-API-Key' }, hasAuthSecret: true },
    apiBaseUrl: 'https://api.example.test/v1',
    requiredEnv: ['SVC_UPSTREAM_SECRET'],
    ...overrides,
  };
}

export function sampleTool(name: string, overrides: Partial<SvcTool> = {}): SvcTool {
  return {
    name,
    description: `Calls ${name}.`,
    enabled: false,
    sortOrder: 0,
    origin: 'imported',
    endpoint: { method: 'GET', path: `/${name}/{id}`, operationId: name },
    classification: 'get',
    inputSchema: schema({
      type: 'object',
      properties: { id: { type: 'string', description: 'The id.' } },
      required: ['id'],
    }),
    locations: { id: { in: 'path', name: 'id' } },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    generated: { name, description: `Calls ${name}.`, fingerprint: '0123456789abcdef' },
    ...overrides,
  };
}

export function sampleFolderModel(): FolderModel {
  return {
    config: sampleConfig(),
    tools: [
      {
        key: 'getOrder',
        file: 'Tools/getOrder.yaml',
        tool: sampleTool('getOrder', { widget: 'order-card' }),
      },
      {
        key: 'createOrder',
        file: 'Tools/createOrder.yaml',
        tool: sampleTool('createOrder', {
          description: 'Creates an order.\n\nThe total is computed by the server.\n',
          enabled: true,
          sortOrder: 1,
          endpoint: { method: 'POST', path: '/orders' },
          classification: 'create',
          inputSchema: schema({
            type: 'object',
            properties: { body: { type: 'object', properties: { sku: { type: 'string' } } } },
            required: ['body'],
          }),
          locations: { body: { in: 'body', name: 'body', whole: true } },
          body: { contentType: 'application/json', required: true },
          annotations: {
            readOnlyHint: false,
            destructiveHint: false,
            idempotentHint: false,
            openWorldHint: true,
          },
          outputSchema: schema({ type: 'object', properties: { id: { type: 'string' } } }),
        }),
      },
    ],
    skills: [
      {
        name: 'search-orders',
        file: 'Skills/search-orders.md',
        frontmatter: {
          description: 'Find orders.',
          references: ['docs://guides/webhooks'],
          sortOrder: 1,
          enabled: false,
        },
        body: '# Searching\n\nUse listOrders.\n',
      },
    ],
    prompts: [
      {
        name: 'summarize',
        file: 'Prompts/summarize.md',
        frontmatter: {
          title: 'Summarize',
          arguments: [{ name: 'orderId', required: true }],
          resources: ['resource://schema'],
          enabled: true,
        },
        body: 'Summarize {{orderId}}.\n',
      },
    ],
    resources: [
      {
        name: 'by-id',
        file: 'Resources/by-id.md',
        frontmatter: { uriTemplate: 'orders://{id}', uriVariables: { id: 'The id.' }, enabled: false },
        body: '{"id": "{id}"}\n',
      },
    ],
    docs: [
      {
        name: 'guides/webhooks',
        file: 'Docs/guides/webhooks.md',
        frontmatter: { description: 'Webhooks.', enabled: false },
        body: '# Webhooks\n\nSigned.\n',
        title: 'Webhooks',
      },
      {
        name: 'intro',
        file: 'Docs/intro.mdx',
        frontmatter: { title: 'Intro', enabled: false },
        body: 'Hello.',
        title: 'Intro',
      },
    ],
    widgets: [
      {
        name: 'order-card',
        file: 'Widgets/order-card.html',
        sidecarFile: 'Widgets/order-card.json',
        html: '<p>order</p>\n',
        sidecar: {
          description: 'A card.',
          csp: { connectDomains: ['https://api.example.test'] },
          enabled: false,
        },
      },
    ],
  };
}
