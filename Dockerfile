# The exchange as a container image: `docker compose up` runs it with PostgreSQL and Redis
# (docker-compose.yml); `docker build -t exchange-api .` builds it alone.

# Build: every dependency (dev ones too), the Prisma client generated (offline: prisma.config.ts needs no
# schema engine for it) and the esbuild bundle `npm start` runs.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json prisma.config.ts ./
COPY prisma ./prisma
COPY src ./src
RUN npm run -s generate && npm run -s build

# Runtime: production dependencies only, the bundle (the generated Prisma client is inside it; its runtime
# is @prisma/client's) and the migrations it applies at start (it finds them at ../../prisma/migrations
# from dist/app). Runs as the image's unprivileged `node` user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/app ./dist/app
COPY prisma/migrations ./prisma/migrations
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# As `npm start` without its build step (the image has no build tools): same flags.
CMD ["node", "--max-semi-space-size=128", "--no-allocation-site-pretenuring", "--enable-source-maps", "dist/app/main.mjs"]
