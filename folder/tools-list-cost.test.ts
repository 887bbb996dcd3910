import { describe, expect, it } from 'vitest';
import type { SvcConfig, SvcTool } from '../schemas/types.js';
import { META_TOOLS } from './discovery-mode.js';
import type { ToolItem } from './model.js';
import { describeCost, servedToolList, toolsListCost } from './tools-list-cost.js';

const config = {
  schemaVersion: 1,
  server: { id: 'demo', name: 'Demo', published: false },
  app: { name: 'Demo', provider: 'manual' },
  source: { kind: 'manual' },
  auth: { mode: 'none' },
  apiBaseUrl: 'https://api.example.test',
  requiredEnv: [],
} as unknown as SvcConfig;

function item(i: number, extra: Partial<SvcTool> = {}): ToolItem {
  const tool: SvcTool = {
    name: `op_${i}`,
    description: `Operation ${i}`,
    enabled: true,
    sortOrder: 0,
    origin: 'manual',
    endpoint: { method: 'GET', path: `/op/${i}` },
    classification: 'get',
    inputSchema: { type: 'object' },
    locations: {},
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    ...extra,
  };
  return { key: tool.name, file: `Tools/${tool.name}.yaml`, tool };
}

const folder = (tools: ToolItem[], discovery?: SvcConfig['discovery']) => ({
  config: { ...config, ...(discovery ? { discovery } : {}) },
  tools,
  widgets: [],
});

describe('toolsListCost', () => {
  it('lists every served tool while auto stays under 40 tools', () => {
    const tools = [
      ...Array.from({ length: 40 }, (_, i) => item(i)),
      item(99, { enabled: false }),
      item(98, { stale: true }),
    ];
    const cost = toolsListCost(folder(tools));
    expect(cost).toMatchObject({ setting: 'auto', mode: 'all', served: 40, pinned: 0 });
    expect(cost.bytes).toBe(Buffer.byteLength(JSON.stringify({ tools: servedToolList(folder(tools)) })));
    expect(cost.bytes).toBe(cost.allBytes);
  });

  it('in search mode weighs the meta-tools and the pinned tools only', () => {
    const tools = [...Array.from({ length: 41 }, (_, i) => item(i)), item(50, { pinned: true })];
    const cost = toolsListCost(folder(tools));
    expect(cost).toMatchObject({
      mode: 'search',
      served: 42,
      pinned: 1,
      reason: '42 enabled tools (more than 40)',
    });
    const pinned = servedToolList(folder(tools)).filter((t) => t.name === 'op_50');
    expect(cost.bytes).toBe(Buffer.byteLength(JSON.stringify({ tools: [...META_TOOLS, ...pinned] })));
    expect(cost.allBytes).toBeGreaterThan(cost.bytes);
    expect(describeCost(cost)).toMatch(
      /^search, [\d.]+ KB \(42 tools found by search, 1 pinned; [\d.]+ KB if each were listed\)$/,
    );
  });

  it('follows an explicit setting', () => {
    expect(toolsListCost(folder([item(1)], 'search')).mode).toBe('search');
    expect(
      toolsListCost(
        folder(
          Array.from({ length: 60 }, (_, i) => item(i)),
          'all',
        ),
      ).mode,
    ).toBe('all');
    expect(describeCost(toolsListCost(folder([item(1)], 'all')))).toMatch(/^all, \d+ B \(1 tool listed\)$/);
  });
});
