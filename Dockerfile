# syntax=docker/dockerfile:1
# Traffic Health Monitor worker. Multi-stage: build with dev dependencies, run with production
# ones only, as a non-root user. Config and secrets are mounted at run time, never baked in.

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bench ./bench
RUN npm run build

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY config ./config
USER node
ENV THM_CONFIG=/etc/thm/thm.yaml
# Logs are JSON lines on stderr; SIGTERM stops the worker gracefully (exit 0).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "--max-semi-space-size=32", "--heap-growing-percent=200", "bin/thm.js"]
CMD ["worker"]
