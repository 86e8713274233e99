# The App's own image: the Probot server that receives webhooks. Jobs run in
# docker/executor's image, never in this one.

# The base image, for a host that cannot reach Docker Hub: any Debian bookworm
# image with Node >= 20.18.1 on PATH, npm, and a `node` user (uid 1000), e.g. a
# mirror's copy (docker build --build-arg NODE_IMAGE=…; docs/operate.md).
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 (the default job queue) is a native module: its install script
# fetches a prebuilt binary, or compiles one with these when it cannot.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
# HOST: Probot listens on localhost unless told otherwise, and nothing outside
# the container can reach that. NODE_ENV=production also makes Probot refuse to
# start without APP_ID and PRIVATE_KEY instead of opening its setup page.
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
# The production dependencies as the build stage installed and pruned them,
# with better-sqlite3's native binary; the runtime needs no compiler.
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY app.yml ./
# The default queue file; mount a volume here to keep queued jobs across containers.
RUN mkdir -p /app/data && chown node:node /app/data
ENV SELFDEBUG_QUEUE_PATH=/app/data/selfdebug-queue.sqlite
# The code stays owned by root, so the server cannot rewrite itself.
USER node
EXPOSE 3000
# Probot serves GET /ping; slim images have no curl, so node's fetch asks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/ping').then((response) => process.exit(response.ok ? 0 : 1), () => process.exit(1))"]
# Node itself is PID 1, so SIGTERM reaches the App: it stops taking jobs and lets
# running ones finish or hands them back (SELFDEBUG_SHUTDOWN_SECONDS; give
# `docker stop` a longer --time). `node dist/cli/main.js worker` runs a worker.
CMD ["node", "node_modules/probot/bin/probot.js", "run", "./dist/index.js"]
