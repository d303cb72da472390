#!/bin/bash
# Entrypoint of a Galera node (docker-compose.galera.yml). A node with GALERA_BOOTSTRAP=yes starts
# a new cluster (--wsrep-new-cluster) when its data directory is new, or when no other node
# answers and this one left the cluster last; every other start joins the nodes of
# wsrep_cluster_address. Then the mariadb image's own entrypoint initializes and starts the server.
set -eo pipefail

DATADIR=/var/lib/mysql
GALERA_PORT=4567

note() { printf '%s [Note] [Galera entrypoint]: %s\n' "$(date --rfc-3339=seconds)" "$*"; }

# host:port of each node in the server's wsrep_cluster_address (this one's included: nothing answers there yet).
cluster_nodes() {
  local address node
  address=$(my_print_defaults --mysqld | sed -n 's|^--wsrep[-_]cluster[-_]address=gcomm://||p' | tail -n 1)
  for node in ${address//,/ }; do
    node=${node%%\?*}
    [[ $node == *:* ]] || node=$node:$GALERA_PORT
    printf '%s\n' "$node"
  done
}

# The first node whose Galera port accepts a connection.
answering_node() {
  local node
  for node in $(cluster_nodes); do
    if timeout 2 bash -c 'exec 3<>"/dev/tcp/${1%:*}/${1##*:}"' _ "$node" 2>/dev/null; then
      printf '%s\n' "${node%:*}"
      return 0
    fi
  done
  return 1
}

# Galera writes this when a node leaves cleanly as the last member of its cluster.
left_last() { grep -qx 'safe_to_bootstrap: 1' "$DATADIR/grastate.dat" 2>/dev/null; }

if [ "${1:-}" = mariadbd ] && [ "${GALERA_BOOTSTRAP:-}" = yes ]; then
  if [ ! -d "$DATADIR/mysql" ]; then
    note "A new data directory: starting a new cluster"
    set -- "$@" --wsrep-new-cluster
  elif node=$(answering_node); then
    note "$node answers: joining its cluster"
  elif left_last; then
    note "No other node answers and this one left the cluster last: starting the cluster again"
    set -- "$@" --wsrep-new-cluster
  else
    # Starting a cluster from this node's older state would lose what the others committed after it left.
    note "No other node answers and another one left the cluster after this one: joining, to wait for it"
  fi
fi
exec docker-entrypoint.sh "$@"
