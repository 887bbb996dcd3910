import { describe, expect, it } from 'vitest';
import { commands, commandsUnder, findCommand } from './index.js';

describe('the command registry', () => {
  it('loads, for every entry, the command of that name with that summary', async () => {
    for (const entry of commands) {
      const command = await entry.load();
      expect({ name: command.name, summary: command.summary }).toEqual({
        name: entry.name,
        summary: entry.summary,
      });
      expect(command.usage).toMatch(new RegExp(`^Usage:\\s+svc ${entry.name}\\b`));
    }
  });

  it('writes help for its readers: no internal spec section numbers, no deprecated variable', async () => {
    for (const entry of commands) {
      const { usage } = await entry.load();
      expect(usage, entry.name).not.toMatch(/\bspec\s*§?\s*\d|§\s*\d/i);
      expect(usage, entry.name).not.toMatch(/FLOWCP_|SVC_BUNDLE_PATH|\(deprecated\)/);
    }
  });

  it('writes every summary in one style: lower case, no final full stop', () => {
    for (const { summary } of commands) {
      expect(summary).toMatch(/^[a-z]/);
      expect(summary).not.toMatch(/\.$/);
    }
  });

  it('finds one- and two-word commands and the commands under a first word', () => {
    expect(findCommand(['tool', 'add', 'x'])).toMatchObject({ entry: { name: 'tool add' }, words: 2 });
    expect(findCommand(['init', 'x'])).toMatchObject({ entry: { name: 'init' }, words: 1 });
    expect(findCommand(['tool'])).toBeUndefined();
    expect(commandsUnder('tool').map((c) => c.name)).toEqual([
      'tool add',
      'tool list',
      'tool enable',
      'tool disable',
    ]);
  });
});
