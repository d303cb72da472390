#!/bin/bash
# Entrypoint of the mariadb stand-in. On an empty data directory it creates the
# server's accounts and database from the environment variables of the mariadb
# image, then runs /docker-entrypoint-initdb.d once; then it starts mariadbd as
# the mysql user. What it does not implement it refuses (docs/containers.md).
set -eo pipefail
shopt -s nullglob

DATADIR=/var/lib/mysql
SOCKET=/run/mysqld/mysqld.sock

log() { printf '%s [%s] [Entrypoint]: %s\n' "$(date --rfc-3339=seconds)" "$1" "$2"; }
note() { log Note "$*"; }
die() {
  log ERROR "$*" >&2
  exit 1
}

# MARIADB_<name>, else MYSQL_<alias>, else the contents of the *_FILE of either.
setting() {
  local name=$1 alias=${2:-$1} variable value=
  for variable in "MARIADB_$name" "MYSQL_$alias"; do
    if [ -n "${!variable:-}" ]; then
      value=${!variable}
      break
    fi
    local file_variable=${variable}_FILE
    if [ -n "${!file_variable:-}" ]; then
      value=$(<"${!file_variable}")
      break
    fi
  done
  printf '%s' "$value"
}

refuse_unimplemented() {
  local variable
  for variable in MARIADB_ROOT_PASSWORD_HASH MARIADB_PASSWORD_HASH MARIADB_REPLICATION_USER MARIADB_REPLICATION_PASSWORD \
    MARIADB_MASTER_HOST MARIADB_AUTO_UPGRADE MARIADB_MYSQL_LOCALHOST_USER MARIADB_DISABLE_UPGRADE_BACKUP; do
    [ -z "${!variable:-}" ] || die "$variable is not implemented by this stand-in for the mariadb image"
  done
  local file
  for file in /docker-entrypoint-initdb.d/*.tar.* /docker-entrypoint-initdb.d/*.sql.xz /docker-entrypoint-initdb.d/*.sql.zst; do
    die "$file: only *.sh, *.sql and *.sql.gz init files are implemented by this stand-in"
  done
}

# A string as the inside of an SQL string literal.
sql_literal() {
  local escaped=${1//\\/\\\\}
  printf '%s' "${escaped//\'/\\\'}"
}

# 32 letters and digits; head reads a fixed count, so no stage of the pipe ends early.
random_password() {
  local characters
  characters=$(head -c 96 /dev/urandom | base64 -w 0 | tr -dc 'A-Za-z0-9')
  printf '%s' "${characters:0:32}"
}

# SQL on the temporary server as root, over its socket.
sql() { MYSQL_PWD=${root_password:-} mariadb --protocol=socket --socket="$SOCKET" -uroot "$@"; }

start_temporary_server() {
  "$@" --skip-networking --socket="$SOCKET" --skip-slave-start --loose-wsrep-on=OFF --default-time-zone=SYSTEM --expire-logs-days=0 &
  temporary_pid=$!
  local attempt
  for attempt in $(seq 30); do
    if sql --database=mysql <<<'SELECT 1' >/dev/null 2>&1; then return; fi
    kill -0 "$temporary_pid" 2>/dev/null || die "The temporary server exited while starting"
    sleep 1
  done
  die "The temporary server did not answer within 30 s"
}

stop_temporary_server() {
  kill "$temporary_pid"
  wait "$temporary_pid"
}

healthcheck_users() {
  local password grants host
  password=$(random_password)
  grants=${MARIADB_HEALTHCHECK_GRANTS:-USAGE}
  for host in 127.0.0.1 ::1 localhost; do
    echo "CREATE USER IF NOT EXISTS healthcheck@'$host' IDENTIFIED BY '$password';"
    echo "GRANT $grants ON *.* TO healthcheck@'$host';"
  done
  (
    umask 0077
    printf '[mariadb-client]\nport=3306\nsocket=%s\nuser=healthcheck\npassword=%s\n' "$SOCKET" "$password" >"$DATADIR/.my-healthcheck.cnf"
  )
}

run_init_files() {
  local file client=(sql)
  [ -z "$database" ] || client+=(--database="$database")
  for file in /docker-entrypoint-initdb.d/*; do
    case "$file" in
      *.sh)
        note "running $file"
        if [ -x "$file" ]; then "$file"; else
          # shellcheck disable=SC1090
          . "$file"
        fi
        ;;
      *.sql) note "running $file"; "${client[@]}" <"$file" ;;
      *.sql.gz) note "running $file"; gunzip -c "$file" | "${client[@]}" ;;
      *) note "ignoring $file" ;;
    esac
  done
}

initialize() {
  refuse_unimplemented
  database=$(setting DATABASE)
  local user password root_host allow_empty random_root
  user=$(setting USER)
  password=$(setting PASSWORD)
  root_password=$(setting ROOT_PASSWORD)
  root_host=$(setting ROOT_HOST)
  root_host=${root_host:-%}
  allow_empty=$(setting ALLOW_EMPTY_ROOT_PASSWORD ALLOW_EMPTY_PASSWORD)
  random_root=$(setting RANDOM_ROOT_PASSWORD)
  if [ -z "$root_password" ] && [ -z "$allow_empty" ] && [ -z "$random_root" ]; then
    die 'The database is uninitialized: set one of MARIADB_ROOT_PASSWORD, MARIADB_ALLOW_EMPTY_ROOT_PASSWORD and MARIADB_RANDOM_ROOT_PASSWORD'
  fi
  # Unlike the image, the generated password is never printed: nothing here needs root from outside.
  [ -z "$random_root" ] || root_password=$(random_password)

  note "Initializing database files"
  # The server's own options first, so that the binlog stays off while the system tables are written.
  mariadb-install-db "${@:2}" --datadir="$DATADIR" --rpm --auth-root-authentication-method=normal --skip-test-db \
    --skip-log-bin --default-time-zone=SYSTEM --expire-logs-days=0 >/dev/null
  note "Starting temporary server"
  local pending_root=$root_password
  root_password=
  start_temporary_server "$@"

  if [ -z "$(setting INITDB_SKIP_TZINFO)" ]; then
    mariadb-tzinfo-to-sql --skip-write-binlog /usr/share/zoneinfo 2>/dev/null | sql --database=mysql
  fi

  local root_sql=
  if [ "$root_host" != localhost ]; then
    root_sql="CREATE USER 'root'@'$root_host' IDENTIFIED BY '$(sql_literal "$pending_root")';
      GRANT ALL ON *.* TO 'root'@'$root_host' WITH GRANT OPTION;
      GRANT PROXY ON ''@'%' TO 'root'@'$root_host' WITH GRANT OPTION;"
  fi
  local database_sql= user_sql=
  [ -z "$database" ] || database_sql="CREATE DATABASE IF NOT EXISTS \`$database\`;"
  if [ -n "$user" ] && [ -n "$password" ]; then
    user_sql="CREATE USER '$user'@'%' IDENTIFIED BY '$(sql_literal "$password")';"
    [ -z "$database" ] || user_sql+="GRANT ALL ON \`${database//_/\\_}\`.* TO '$user'@'%';"
  fi
  # The server's own accounts stay out of the binlog; the database and its user go in, so replicas get them.
  sql --database=mysql --binary-mode <<-EOSQL
	SET @binlog = @@SESSION.SQL_LOG_BIN;
	SET @@SESSION.SQL_LOG_BIN = 0;
	DROP USER IF EXISTS root@'127.0.0.1', root@'::1';
	EXECUTE IMMEDIATE CONCAT('DROP USER IF EXISTS root@\'', @@hostname, '\'');
	SET PASSWORD FOR 'root'@'localhost' = PASSWORD('$(sql_literal "$pending_root")');
	$root_sql
	$(healthcheck_users)
	SET @@SESSION.SQL_LOG_BIN = @binlog;
	$database_sql
	$user_sql
	EOSQL
  root_password=$pending_root

  run_init_files
  note "Stopping temporary server"
  stop_temporary_server
  note "MariaDB init process done. Ready for start up."
}

wants_help() {
  local argument
  for argument; do
    case "$argument" in -'?' | --help | --print-defaults | -V | --version) return 0 ;; esac
  done
  return 1
}

if [ "${1:0:1}" = - ]; then set -- mariadbd "$@"; fi

if { [ "$1" = mariadbd ] || [ "$1" = mysqld ]; } && ! wants_help "$@"; then
  if [ "$(id -u)" = 0 ]; then
    mkdir -p "$DATADIR"
    find "$DATADIR" \! -user mysql -exec chown mysql: {} +
    find "${SOCKET%/*}" -maxdepth 0 \! -user mysql -exec chown mysql: {} +
    exec setpriv --reuid=mysql --regid=mysql --init-groups "${BASH_SOURCE[0]}" "$@"
  fi
  [ -d "$DATADIR/mysql" ] || initialize "$@"
  unset MARIADB_ROOT_PASSWORD MYSQL_ROOT_PASSWORD MARIADB_PASSWORD MYSQL_PASSWORD \
    MARIADB_ROOT_PASSWORD_FILE MYSQL_ROOT_PASSWORD_FILE MARIADB_PASSWORD_FILE MYSQL_PASSWORD_FILE root_password
fi
exec "$@"
