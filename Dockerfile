# Build: compile TypeScript, then keep production dependencies only.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The image brings Node 24 itself: the optional Node binaries of package.json are left out. No install
# script is needed (better-sqlite3 ships its addon prebuilt), so none runs, whatever npm's version allows.
RUN npm ci --no-audit --no-fund --omit=optional --ignore-scripts
COPY nest-cli.json tsconfig.json tsconfig.build.json ./
COPY src ./src
# --omit=optional also drops TypeScript, which typeorm names as an optional peer; the addon's C sources are not needed to run it.
RUN npm run build && npm prune --omit=dev --omit=optional \
  && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src node_modules/better-sqlite3/build

# Run: no compiler, no sources, not root.
FROM node:24-bookworm-slim
ENV NODE_ENV=production APP_ENV=production PORT=3000
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
USER node
EXPOSE 3000
# The image has no curl: Node's fetch asks the liveness probe.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# As npm run start:prod, on V8's defaults: the container's memory limit is the operator's bound (docs/adr/0033).
CMD ["node", "dist/main.js"]
