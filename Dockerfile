# svc runtime: serves a server folder (mounted at /folder) as an MCP server on port 3002.
# Runtime only: no generator, no CLI, no dev dependencies, no database, no cache.
#   docker build -t ghcr.io/svc-dev/svc-runtime:0.1 .
#   docker run --rm -p 3002:3002 -v "$PWD/mcp/petstore:/folder:ro" -e SVC_UPSTREAM_SECRET ghcr.io/svc-dev/svc-runtime:0.1
#
# svc control (second entry point, target `control`): snapshots, deploy tokens, webhooks, import jobs.
#   docker build --target control -t ghcr.io/svc-dev/svc-control:0.1 .
#   docker run --rm -p 3100:3100 -v svc-control:/data ghcr.io/svc-dev/svc-control:0.1
# The runtime stays the default (last) stage, so `docker build .` still gives the small runtime image.

# ---- build: bundle the runtime entry (our code only; packages stay external) ----
FROM node:24-alpine AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY core ./core
COPY schemas ./schemas
COPY folder ./folder
COPY runtime ./runtime
RUN npx esbuild runtime/main.ts --bundle --platform=node --format=esm --target=node24 \
      --packages=external --outfile=dist/runtime.mjs

# ---- production dependencies the runtime imports (pinned by the lockfile), nothing else ----
FROM node:24-alpine AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN node -e "const f='package.json',p=require('./'+f),keep=['@hono/node-server','@modelcontextprotocol/server','@opentelemetry/api','@opentelemetry/core','@opentelemetry/exporter-trace-otlp-http','@opentelemetry/resources','@opentelemetry/sdk-trace-base','ajv','ajv-formats','gray-matter','hono','jose','minisearch','oauth4webapi','prom-client','rate-limiter-flexible','re2js','remark-parse','stemmer','unified','yaml'];p.dependencies=Object.fromEntries(keep.map(k=>[k,p.dependencies[k]]));delete p.devDependencies;delete p.scripts;require('fs').writeFileSync(f,JSON.stringify(p,null,2))" \
 && npm install --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# ---- control service: bundle its entry (our code; packages stay external) ----
FROM build AS control-build
COPY generator ./generator
COPY control ./control
RUN npx esbuild control/main.ts --bundle --platform=node --format=esm --target=node24 \
      --packages=external --outfile=dist/control.mjs

# ---- control service image: every production dependency (the generator, libsql, pg, isomorphic-git) ----
FROM node:24-alpine AS control
ENV NODE_ENV=production \
    SVC_CONTROL_HOST=0.0.0.0 \
    SVC_CONTROL_PORT=3100 \
    SVC_DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=control-build /src/dist/control.mjs ./control.mjs
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 3100
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.SVC_CONTROL_PORT||3100)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "control.mjs"]

# ---- runtime image ----
FROM node:24-alpine
ENV NODE_ENV=production \
    SVC_RUNTIME_MODE=standalone \
    SVC_FOLDER_PATH=/folder \
    MCP_RUNTIME_HOST=0.0.0.0 \
    MCP_RUNTIME_PORT=3002
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist/runtime.mjs ./runtime.mjs
COPY package.json ./
USER node
EXPOSE 3002
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.MCP_RUNTIME_PORT||3002)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Exit codes: 0 clean shutdown (SIGTERM), 78 invalid folder or environment, 1 other failure.
CMD ["node", "runtime.mjs"]
