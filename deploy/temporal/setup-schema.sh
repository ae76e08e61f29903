#!/bin/sh
# Creates or upgrades Temporal's two PostgreSQL databases (run by the `temporal-schema` service of
# docker-compose.yml with the temporalio/admin-tools image). Safe to run on every `docker compose up`:
# an existing database is only ever upgraded (update-schema), never set up again.
set -eu

PLUGIN=postgres12
SCHEMA_ROOT=/etc/temporal/schema/postgresql/v12
export SQL_PLUGIN="$PLUGIN"
export SQL_HOST="${POSTGRES_SEEDS:?POSTGRES_SEEDS is not set}"
export SQL_PORT="${DB_PORT:-5432}"
export SQL_USER="${POSTGRES_USER:?POSTGRES_USER is not set}"
export SQL_PASSWORD="${POSTGRES_PWD:?POSTGRES_PWD is not set}"

ensure_database() {
  db="$1"
  dir="$2"
  if temporal-sql-tool --db "$db" update-schema -d "$dir"; then
    echo "database $db is at the latest schema version"
    return 0
  fi
  # update-schema fails on a database that does not exist yet (or has no schema_version table).
  if temporal-sql-tool --db "$db" create; then
    temporal-sql-tool --db "$db" setup-schema -v 0.0
    temporal-sql-tool --db "$db" update-schema -d "$dir"
    echo "database $db created at the latest schema version"
    return 0
  fi
  echo "database $db exists but could not be upgraded: see the errors above" >&2
  return 1
}

ensure_database "${DBNAME:-temporal}" "$SCHEMA_ROOT/temporal/versioned"
ensure_database "${VISIBILITY_DBNAME:-temporal_visibility}" "$SCHEMA_ROOT/visibility/versioned"
