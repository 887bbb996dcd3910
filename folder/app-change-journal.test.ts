import { describe, expect, it } from 'vitest';
import { isSvcError } from '../core/svc-error.js';
import { parseJournal, renderJournal } from './app-change-journal.js';

const journal = {
  branches: ['main', 'live'],
  primary: 'live',
  carried: ['Prompts/b.md', 'Prompts/a.md'],
  modes: { 'z.sh': 0o755, 'a.txt': 0o600 },
};

function refusal(text: string): unknown {
  try {
    parseJournal(text, '/app/.svc/app-change.json');
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the app-change journal', () => {
  it('renders the same bytes for the same change, and reads back what it wrote', () => {
    const text = renderJournal(journal);
    expect(
      renderJournal({ ...journal, branches: ['live', 'main'], carried: ['Prompts/a.md', 'Prompts/b.md'] }),
    ).toBe(text);
    expect(parseJournal(text, 'j')).toEqual({
      branches: ['live', 'main'],
      primary: 'live',
      carried: ['Prompts/a.md', 'Prompts/b.md'],
      modes: { 'a.txt': 0o600, 'z.sh': 0o755 },
    });
  });

  it('refuses a journal that names anything outside the app folder, or is not one', () => {
    for (const bad of [
      'not json',
      JSON.stringify({ ...journal, branches: ['..'] }),
      JSON.stringify({ ...journal, branches: ['live/../..'] }),
      JSON.stringify({ ...journal, primary: '/etc' }),
      JSON.stringify({ ...journal, modes: { '../outside.sh': 0o777 } }),
      JSON.stringify({ ...journal, modes: { 'a.sh': 'rwx' } }),
      JSON.stringify({ ...journal, carried: 'all' }),
      // Only the names branch folders have: not a sibling server's.
      JSON.stringify({ ...journal, branches: ['billing'] }),
      JSON.stringify({ ...journal, primary: 'Tools' }),
    ]) {
      const error = refusal(bad);
      expect(isSvcError(error) && error.code, bad).toBe('FOLDER_INVALID');
    }
  });
});
