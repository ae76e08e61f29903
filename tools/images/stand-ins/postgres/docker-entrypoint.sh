#!/bin/bash
# The part of the official image's docker-entrypoint.sh (github.com/docker-library/postgres) that deployments
# rely on: the POSTGRES_* variables and their _FILE forms, a first start that runs initdb (with
# POSTGRES_INITDB_ARGS), allows password logins from any host (POSTGRES_HOST_AUTH_METHOD, scram-sha-256),
# creates POSTGRES_DB and runs /docker-entrypoint-initdb.d/*.sh and *.sql, then postgres as user postgres.
set -Eeo pipefail

# file_env VAR [DEFAULT]: VAR from $VAR or from the file named by $VAR_FILE (not both).
file_env() {
	local var="$1" fileVar="${1}_FILE" def="${2:-}"
	if [ "${!var:-}" ] && [ "${!fileVar:-}" ]; then
		echo >&2 "error: both $var and $fileVar are set (but are exclusive)"
		exit 1
	fi
	local val="$def"
	if [ "${!var:-}" ]; then
		val="${!var}"
	elif [ "${!fileVar:-}" ]; then
		val="$(< "${!fileVar}")"
	fi
	export "$var"="$val"
	unset "$fileVar"
}

setup_env() {
	file_env 'POSTGRES_PASSWORD'
	file_env 'POSTGRES_USER' 'postgres'
	file_env 'POSTGRES_DB' "$POSTGRES_USER"
	file_env 'POSTGRES_INITDB_ARGS'
	: "${POSTGRES_HOST_AUTH_METHOD:=scram-sha-256}"
	DATABASE_ALREADY_EXISTS=
	if [ -s "$PGDATA/PG_VERSION" ]; then DATABASE_ALREADY_EXISTS=true; fi
}

psql_as_superuser() {
	PGHOST= PGHOSTADDR= psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --no-password --no-psqlrc "$@"
}

init_database() {
	if [ -z "$POSTGRES_PASSWORD" ] && [ "$POSTGRES_HOST_AUTH_METHOD" != trust ]; then
		echo >&2 'error: database is uninitialized and superuser password is not specified.'
		echo >&2 '       You must specify POSTGRES_PASSWORD to a non-empty value for the superuser.'
		exit 1
	fi
	# shellcheck disable=SC2086 # POSTGRES_INITDB_ARGS is a list of arguments
	initdb --username="$POSTGRES_USER" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") $POSTGRES_INITDB_ARGS
	printf '\nhost all all all %s\n' "$POSTGRES_HOST_AUTH_METHOD" >> "$PGDATA/pg_hba.conf"
	pg_ctl -D "$PGDATA" -o "-c listen_addresses='' -p 5432" -w start
	export PGPASSWORD="$POSTGRES_PASSWORD"
	if [ "$POSTGRES_DB" != postgres ]; then
		psql_as_superuser --dbname postgres --set db="$POSTGRES_DB" <<-'SQL'
			CREATE DATABASE :"db" ;
		SQL
	fi
	for f in /docker-entrypoint-initdb.d/*; do
		case "$f" in
			*.sh) echo "running $f"; . "$f" ;;
			*.sql) echo "running $f"; psql_as_superuser --dbname "$POSTGRES_DB" -f "$f" ;;
			*) ;;
		esac
	done
	unset PGPASSWORD
	pg_ctl -D "$PGDATA" -m fast -w stop
	echo 'PostgreSQL init process complete; ready for start up.'
}

if [ "${1:0:1}" = '-' ]; then set -- postgres "$@"; fi

if [ "$1" = 'postgres' ]; then
	setup_env
	if [ "$(id -u)" = '0' ]; then
		mkdir -p "$PGDATA"
		chown postgres:postgres "$PGDATA"
		chmod 00700 "$PGDATA"
		exec setpriv --reuid=postgres --regid=postgres --init-groups "$BASH_SOURCE" "$@"
	fi
	if [ -z "$DATABASE_ALREADY_EXISTS" ]; then
		init_database
	else
		echo 'PostgreSQL Database directory appears to contain a database; Skipping initialization'
	fi
fi

exec "$@"
