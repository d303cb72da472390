#!/bin/bash
# healthcheck.sh of the mariadb stand-in: the tests of the mariadb image's script that
# docs/containers.md lists, run in the order given, as the entrypoint's healthcheck user.
#   --connect             the server accepts connections from the network (init is over)
#   --innodb_initialized  InnoDB is up
#   --replication_io, --replication_sql   what --replication then requires to be running
#   --replication         this server replicates
set -o pipefail

client=(mariadb --protocol=socket --batch)
if [ -f /var/lib/mysql/.my-healthcheck.cnf ]; then
  client=(mariadb --defaults-extra-file=/var/lib/mysql/.my-healthcheck.cnf --protocol=socket --batch)
fi
query() { "${client[@]}" --skip-column-names -e "$1"; }

# The temporary server of the entrypoint runs without networking, so this passes only once init is over.
connect() { [ "$(query 'SELECT @@skip_networking')" = 0 ]; }

innodb_initialized() {
  [ "$(query "SELECT 1 FROM information_schema.ENGINES WHERE engine = 'InnoDB' AND support IN ('YES', 'DEFAULT', 'ENABLED')")" = 1 ]
}

declare -A required=()
replication() {
  local status field
  status=$("${client[@]}" --vertical -e 'SHOW REPLICA STATUS') || return 1
  [ -n "$status" ] || return 1
  for field in "${!required[@]}"; do
    grep -qE "^ *${field}: Yes$" <<<"$status" || return 1
  done
}

[ $# -gt 0 ] || {
  echo 'At least one test required' >&2
  exit 1
}
for option; do
  case "$option" in
    --replication_io) required[Slave_IO_Running]=1 ;;
    --replication_sql) required[Slave_SQL_Running]=1 ;;
    --connect | --innodb_initialized | --replication)
      test=${option#--}
      "$test" || {
        echo "healthcheck $test failed" >&2
        exit 1
      }
      ;;
    *)
      echo "healthcheck option $option is not implemented by this stand-in" >&2
      exit 1
      ;;
  esac
done
