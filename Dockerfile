# syntax=docker/dockerfile:1
# Traffic Health Monitor worker. Multi-stage: build with dev dependencies, run with production
# ones only, as a non-root user. Config and secrets are mounted at run time, never baked in.
# Node 24, the newest LTS that package.json "engines" supports (a test keeps them in step).
# Pinned by tag: pin by digest (node:24-bookworm-slim@sha256:...) where your registry access
# allows looking it up.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
COPY scripts ./scripts
# Compiles, then bundles the CLI into dist/cli/ (scripts/build.js, scripts/bundle-cli.js).
RUN npm run build

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY config ./config
USER node
ENV THM_CONFIG=/etc/thm/thm.yaml
# Logs are JSON lines on stderr; SIGTERM stops the worker gracefully (exit 0); SIGHUP reloads
# the config.
STOPSIGNAL SIGTERM
# Healthy when /-/ready answers 200 (Redis answers, the workers run, a canary went through):
# the config must set monitoring.port 9464 and monitoring.host 0.0.0.0 (deploy/thm.yaml does).
# Node's own fetch: the slim image has no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/-/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "--max-semi-space-size=32", "--heap-growing-percent=200", "--no-allocation-site-pretenuring", "bin/thm.js"]
CMD ["worker"]
