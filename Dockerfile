# The App's own image: the Probot server that receives webhooks. Jobs run in
# docker/executor's image, never in this one.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim AS runtime
# HOST: Probot listens on localhost unless told otherwise, and nothing outside
# the container can reach that. NODE_ENV=production also makes Probot refuse to
# start without APP_ID and PRIVATE_KEY instead of opening its setup page.
ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: production dependencies need no build step, and install
# scripts are code we would otherwise run for nothing (ssh2's optional native
# speed-up is skipped; it falls back to JavaScript).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY app.yml ./
# The code stays owned by root, so the server cannot rewrite itself.
USER node
EXPOSE 3000
# Probot serves GET /ping; slim images have no curl, so node's fetch asks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/ping').then((response) => process.exit(response.ok ? 0 : 1), () => process.exit(1))"]
# Keep the default stop signal: on SIGTERM npm (PID 1) exits and the container
# ends with it, whereas SIGINT sent to npm alone never reaches Probot.
CMD ["npm", "start"]
