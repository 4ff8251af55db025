# syntax=docker/dockerfile:1
# Opsroom's image: one Node.js process serving the web app, the API and the sockets (docs/deploy.md).
#   docker build -t opsroom .
#   docker run -d -p 3000:3000 -v opsroom-data:/data opsroom
# Stage 1 installs everything from the lock file and builds (the web app into build/, the server into dist/), then
# drops the development tools: the native build of better-sqlite3 is kept, so the runtime needs no compiler.
ARG NODE_VERSION=20.20

FROM node:${NODE_VERSION}-bookworm-slim AS build
# better-sqlite3 compiles from source where no prebuilt binary fits the platform.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# Dependencies first (a layer kept while the lock file is unchanged); better-sqlite3 is the one with a native build.
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY . .
RUN npm run gen \
 && npm run build \
 && npm prune --omit=dev --ignore-scripts

# Stage 2: the runtime — production dependencies, the built output, the migrations; nothing else.
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# tini as PID 1: it passes SIGTERM on to Node and reaps children (Node as PID 1 ignores SIGTERM by default).
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir /data && chown node:node /data
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_PATH=/data/opsroom.db \
    LOG_FORMAT=json
COPY --from=build --chown=root:root /app/package.json /app/package-lock.json ./
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/build ./build
COPY --from=build --chown=root:root /app/migrations ./migrations
# The CSV exports' column names in each language, read at run time.
COPY --from=build --chown=root:root /app/web/messages ./web/messages
COPY --from=build --chown=root:root /app/project.inlang/settings.json ./project.inlang/settings.json
COPY --from=build --chown=root:root /app/scripts/healthcheck.mjs /app/scripts/backup.mjs ./scripts/
# The code belongs to root and is read-only to the server; only /data is the node user's.
USER node
VOLUME ["/data"]
EXPOSE 3000
# Liveness: the process answers. (Compose's cluster profile asks /api/ready instead: PostgreSQL and Redis reachable.)
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "scripts/healthcheck.mjs", "/api/health"]
# Started with node, not npm: npm does not pass SIGTERM on. On SIGTERM the server pauses and stores its running
# rounds (or, in cluster mode, hands them to the other processes), tells every page and exits; allow it the
# default 10 s (`docker stop -t`, compose's stop_grace_period).
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/server/main.js"]
