/**
 * A hand-authored tool (manual provider, or an extra tool in any folder). It goes through
 * the same endpoint → tool stage as imported tools, so the runtime sees one shape; only the
 * origin differs, and re-import never touches it.
 */
import { SvcError } from '../../core/svc-error.js';
import type { Endpoint, SvcTool } from '../../schemas/types.js';
import { buildTool, toolNameFor } from '../tools/index.js';
import type { ParamSpec } from './param-spec.js';

export interface ManualToolInput {
  method: string;
  path: string;
  params: ParamSpec[];
  name?: string;
  description?: string;
  enabled?: boolean;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

export function manualEndpoint(input: ManualToolInput): Endpoint {
  const method = input.method.toUpperCase();
  if (!(METHODS as readonly string[]).includes(method)) {
    throw new SvcError('USAGE', `method "${input.method}" must be one of ${METHODS.join(', ')}`, {
      place: { field: '--method' },
    });
  }
  if (!input.path.startsWith('/') || /(^|\/)\.\.?(\/|$)/.test(input.path)) {
    throw new SvcError(
      'USAGE',
      `path "${input.path}" must start with "/" and contain no "." or ".." segment`,
      {
        place: { field: '--path' },
      },
    );
  }
  const templated = [...input.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  const declaredPath = input.params.filter((p) => p.in === 'path').map((p) => p.name);
  // Undeclared path variables are strings; declared ones that the path lacks are a mistake.
  for (const name of declaredPath) {
    if (!templated.includes(name)) {
      throw new SvcError('USAGE', `path parameter "${name}" does not appear in ${input.path}`, {
        place: { field: '--param' },
      });
    }
  }
  const params: ParamSpec[] = [
    ...input.params,
    ...templated
      .filter((n) => !declaredPath.includes(n))
      .map((name): ParamSpec => ({ name, in: 'path', type: 'string', required: true })),
  ];
  const body = params.filter((p) => p.in === 'body');
  const endpoint: Endpoint = {
    method: method as Endpoint['method'],
    path: input.path,
    tags: [],
    deprecated: false,
    security: [],
    parameters: params
      .filter((p) => p.in !== 'body')
      .map((p) => ({
        name: p.name,
        in: p.in as 'path' | 'query' | 'header' | 'cookie',
        required: p.required,
        schema: { type: p.type },
        ...(p.description ? { description: p.description } : {}),
      })),
    ...(input.description ? { description: input.description } : {}),
  };
  if (body.length > 0) {
    endpoint.requestBody = {
      required: body.some((p) => p.required),
      contentType: 'application/json',
      schema: {
        type: 'object',
        properties: Object.fromEntries(
          body.map((p) => [
            p.name,
            { type: p.type, ...(p.description ? { description: p.description } : {}) },
          ]),
        ),
        ...(body.some((p) => p.required)
          ? { required: body.filter((p) => p.required).map((p) => p.name) }
          : {}),
      },
    };
  }
  return endpoint;
}

export function manualTool(input: ManualToolInput, sortOrder: number): SvcTool {
  const endpoint = manualEndpoint(input);
  const name = input.name ?? toolNameFor(endpoint);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw new SvcError('USAGE', `tool name "${name}" must match ^[A-Za-z0-9_-]{1,64}$`, {
      place: { field: '--name' },
    });
  }
  const { generated: _generated, ...tool } = buildTool(endpoint, name);
  return {
    ...tool,
    description: input.description ?? tool.description,
    enabled: input.enabled ?? false,
    sortOrder,
    origin: 'manual',
  };
}
