/**
 * Step outputs and the job summary, written the way the runner reads them: GITHUB_OUTPUT takes
 * `name<<DELIMITER` blocks (safe for any value), GITHUB_STEP_SUMMARY takes Markdown appended per step.
 */
import { randomUUID } from 'node:crypto';
import { appendFile } from 'node:fs/promises';
import type { Env } from './inputs.js';

export async function writeOutputs(env: Env, outputs: Record<string, string>): Promise<void> {
  const file = env['GITHUB_OUTPUT'];
  if (!file) return;
  let text = '';
  for (const [name, value] of Object.entries(outputs)) {
    const delimiter = `svc_${randomUUID()}`;
    text += `${name}<<${delimiter}\n${value}\n${delimiter}\n`;
  }
  await appendFile(file, text, 'utf8');
}

export async function writeSummary(env: Env, markdown: string): Promise<void> {
  const file = env['GITHUB_STEP_SUMMARY'];
  if (!file) return;
  await appendFile(file, `${markdown}\n`, 'utf8');
}

/** Reads a GITHUB_OUTPUT file back (tests, and the bundle's child-process test). */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<=]+)<<(.+)$/.exec(lines[i] ?? '');
    if (m) {
      const [, name = '', delimiter] = m;
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i] ?? '');
      out[name] = value.join('\n');
    } else {
      const eq = (lines[i] ?? '').indexOf('=');
      if (eq > 0) out[(lines[i] ?? '').slice(0, eq)] = (lines[i] ?? '').slice(eq + 1);
    }
  }
  return out;
}
