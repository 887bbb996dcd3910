/**
 * Read env: the process's redactor and logger. Every secret any served folder holds is redacted
 * from every log line, whichever folder's request wrote it.
 */
import type { RuntimeEnv } from '../env.js';
import { jsonLineLogger, type Logger, redactingLogger } from '../logger.js';
import { createRedactor, type Redactor } from '../redact.js';
import { basicCredentials } from '../upstream-request.js';

/** The secrets one set of variables holds, in every form the runtime sends or derives them. */
export function envSecrets(env: RuntimeEnv): (string | undefined)[] {
  const basicPair = env.upstreamSecret ? basicCredentials(env.upstreamSecret, env.upstreamUser) : undefined;
  const sessionKey = env.sessionSecret ? Buffer.from(env.sessionSecret) : undefined;
  const oauthSecrets = Object.entries(env.oauthClients ?? {})
    .filter(([name]) => name.includes('SECRET'))
    .map(([, value]) => value);
  return [
    env.upstreamSecret,
    basicPair,
    env.deployToken,
    sessionKey?.toString('base64'),
    sessionKey?.toString('hex'),
    ...oauthSecrets,
  ];
}

export function bootLogger(envs: RuntimeEnv[], given?: Logger): { logger: Logger; redact: Redactor } {
  const redact = createRedactor([...new Set(envs.flatMap(envSecrets))]);
  return { logger: redactingLogger(given ?? jsonLineLogger({ redact }), redact), redact };
}
