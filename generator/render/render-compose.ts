/**
 * docker-compose.yml: the runtime image and nothing else (no database, no cache). The folder
 * is mounted read-only; the port mapping and the runtime's listen port read the same variable
 * so that setting MCP_RUNTIME_PORT in .env cannot split them.
 */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a compose variable, not a JS template
export const RUNTIME_IMAGE = '${SVC_RUNTIME_IMAGE:-ghcr.io/svc-dev/svc-runtime:0.1}';
// biome-ignore lint/suspicious/noTemplateCurlyInString: a compose variable, not a JS template
const PORT = '${MCP_RUNTIME_PORT:-3002}';

export const COMPOSE_SCHEMA =
  'https://raw.githubusercontent.com/compose-spec/compose-spec/master/schema/compose-spec.json';

// The runtime image is Node: probe /healthz with node itself (slim images carry no curl or wget).
const HEALTH_PROBE =
  "fetch('http://127.0.0.1:'+(process.env.MCP_RUNTIME_PORT||3002)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))";

export function renderCompose(): string {
  return [
    `# yaml-language-server: $schema=${COMPOSE_SCHEMA}`,
    '# Serves this folder as an MCP server: docker compose up',
    '# MCP endpoint: http://localhost:3002/mcp (set MCP_RUNTIME_PORT in .env to change the port)',
    'services:',
    '  runtime:',
    `    image: ${RUNTIME_IMAGE}`,
    '    restart: unless-stopped',
    '    env_file:',
    '      - path: .env',
    '        required: false',
    '    environment:',
    '      SVC_FOLDER_PATH: /folder',
    '      SVC_RUNTIME_MODE: standalone',
    '    volumes:',
    '      - ./:/folder:ro',
    '    ports:',
    `      - "${PORT}:${PORT}"`,
    '    healthcheck:',
    `      test: ["CMD", "node", "-e", ${JSON.stringify(HEALTH_PROBE)}]`,
    '      interval: 10s',
    '      timeout: 3s',
    '      retries: 3',
    '      start_period: 5s',
    '',
  ].join('\n');
}
