# syntax=docker/dockerfile:1
# One image for all four services; APP selects which one runs:
#
#   docker build -t crm-platform .
#   docker run --rm -e APP=auth-server ... crm-platform            # start the service
#   docker run --rm -e APP=auth-server ... crm-platform migrate    # run its migrations, then exit
#
# APP is one of api-gateway, auth-server, crm-core, webhook-dispatcher. It can also be baked in at
# build time (--build-arg APP=crm-core); the environment variable wins at run time.

ARG NODE_IMAGE=node:22-bookworm-slim

# ---- build: install every dependency, compile with SWC, then drop the dev dependencies ----------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false

COPY package.json package-lock.json ./
# npm ci can reject a lock file resolved on another platform; npm install --no-save installs from the
# same lock without rewriting it (the fallback scripts/lib.sh uses as well).
RUN npm ci || npm install --no-save

COPY nx.json tsconfig.base.json tsconfig.json .swcrc ./
COPY tools ./tools
COPY libs ./libs
COPY apps ./apps
RUN npm run build

# Production dependencies only. The `node` package (the project's own Node 22 binary, ~180 MB) is a
# runtime dependency for machines without Node 22; the image already has Node 22, so drop it.
RUN npm prune --omit=dev \
 && rm -rf node_modules/node node_modules/.bin/node

# ---- runtime: no compiler, no dev dependencies, non-root, read-only friendly ------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app

# Owned by root and not writable by the service user; the services write nothing to disk.
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist

# The image's `node` user, by number so Kubernetes can verify runAsNonRoot.
USER 1000:1000

# api-gateway PORT, auth-server AUTH_PORT, crm-core HTTP_PORT, webhook-dispatcher HTTP_PORT.
EXPOSE 3000 3001 3002 3003

# Last, so images built for different apps share every other layer.
ARG APP=""
ENV APP=${APP}

# exec: node is PID 1 and receives SIGTERM directly (the services drain and exit 0).
# Arguments after the image name are passed on to main.js, e.g. `migrate`.
STOPSIGNAL SIGTERM
ENTRYPOINT ["sh", "-c", "exec node --enable-source-maps \"dist/apps/${APP:?set APP to api-gateway, auth-server, crm-core or webhook-dispatcher}/src/main.js\" \"$@\"", "main.js"]
CMD []
