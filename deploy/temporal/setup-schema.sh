#!/bin/sh
# Creates or upgrades Temporal's two PostgreSQL databases: run by the `temporal-schema` service of
# docker-compose.yml (temporalio/admin-tools image) and by `npm run cluster` (tools/cluster, with the pinned
# SQL tool in TEMPORAL_SQL_TOOL). Safe to run on every start: an existing database is only ever upgraded
# (update-schema), never set up again. The schemas are the ones built into the SQL tool (--schema-name), so
# the tool's version decides the schema version, as the server's version does for the server.
set -eu

SQL_TOOL="${TEMPORAL_SQL_TOOL:-temporal-sql-tool}"
export SQL_PLUGIN=postgres12
export SQL_HOST="${POSTGRES_SEEDS:?POSTGRES_SEEDS is not set}"
export SQL_PORT="${DB_PORT:-5432}"
export SQL_USER="${POSTGRES_USER:?POSTGRES_USER is not set}"
export SQL_PASSWORD="${POSTGRES_PWD:?POSTGRES_PWD is not set}"

ensure_database() {
  db="$1"
  schema="$2"
  if "$SQL_TOOL" --db "$db" update-schema --schema-name "$schema"; then
    echo "database $db is at the latest schema version"
    return 0
  fi
  # update-schema fails on a database that does not exist yet (or has no schema_version table).
  if "$SQL_TOOL" --db "$db" create; then
    "$SQL_TOOL" --db "$db" setup-schema -v 0.0
    "$SQL_TOOL" --db "$db" update-schema --schema-name "$schema"
    echo "database $db created at the latest schema version"
    return 0
  fi
  echo "database $db exists but could not be upgraded: see the errors above" >&2
  return 1
}

ensure_database "${DBNAME:-temporal}" postgresql/v12/temporal
ensure_database "${VISIBILITY_DBNAME:-temporal_visibility}" postgresql/v12/visibility
