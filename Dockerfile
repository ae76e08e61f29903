# syntax=docker/dockerfile:1
# One image for the worker (default command), the codec server and the sandbox:
#   node dist/main/worker.js | node dist/main/codec-server.js | node dist/sandbox/main.js --host 0.0.0.0 --port 4010
# Debian (glibc) because the Temporal SDK's native core-bridge ships glibc builds. Node.js 24, the current LTS
# (Node.js 20 reached end of life on 2026-04-30); package.json engines: >= 22.12.
ARG NODE_IMAGE=node:24-bookworm-slim

# --- build: all dependencies, compile TypeScript, prebuild the workflow bundle ------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The lockfile lists the client package's workspace: npm ci needs its manifest (its code is not in the image).
COPY packages/client/package.json ./packages/client/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY tools/build-workflow-bundle.ts ./tools/
RUN npm run build \
 && npx tsx tools/build-workflow-bundle.ts --out dist/workflow-bundle.js

# --- prod-deps: production dependencies only ------------------------------------------------------------------
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json ./packages/client/
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# --- runtime ---------------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    WORKFLOW_BUNDLE_PATH=/app/dist/workflow-bundle.js \
    DOCUMENTS_ROOT=/data/documents
WORKDIR /app
# Code and dependencies stay owned by root: the process (user node, uid 1000) can read but not change them.
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /data/documents && chown node:node /data/documents
USER node
# Codec server and sandbox ports (the worker listens on none).
EXPOSE 8888 4010
CMD ["node", "dist/main/worker.js"]
