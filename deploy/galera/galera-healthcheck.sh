#!/bin/bash
# Health check of a Galera node (docker-compose.galera.yml): healthy while the server accepts
# connections from the network and the node is Synced in a primary component, so it takes
# writes and holds every committed one. Prints the node's state into the container's health log.
set -o pipefail

# It logs in as the server's OS user over the socket (deploy/galera/cluster-init.sql): no password to keep.
if [ "$(id -u)" = 0 ]; then exec setpriv --reuid=mysql --regid=mysql --init-groups "$0" "$@"; fi

status() {
  printf "(SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = '%s')" "$1"
}
row=$(mariadb --protocol=socket --user=mysql --batch --skip-column-names -e "SET STATEMENT wsrep_sync_wait = 0 FOR SELECT @@wsrep_node_name, @@skip_networking,
  $(status WSREP_LOCAL_STATE_COMMENT), $(status WSREP_CLUSTER_STATUS), $(status WSREP_READY), $(status WSREP_CLUSTER_SIZE)") || exit 1
IFS=$'\t' read -r node skip_networking state component ready size <<<"$row"
echo "$node: $state, $component component of $size nodes, ready $ready"
[ "$skip_networking" = 0 ] && [ "$state" = Synced ] && [ "$component" = Primary ] && [ "$ready" = ON ]
