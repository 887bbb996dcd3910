import { runCli } from '../../cli/main.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `svc <argv>` in-process, capturing its output, as a user's shell would see it. */
export async function svc(
  argv: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    cwd: options.cwd,
    env: options.env ?? {},
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr };
}
