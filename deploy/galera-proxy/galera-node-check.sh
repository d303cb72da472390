#!/bin/sh
# HAProxy's check of one Galera node (deploy/galera-proxy/haproxy.cfg), called with
# <proxy address> <proxy port> <node address> <node port>: passes while the node is Synced
# (wsrep_local_state 4) and ready for statements (wsrep_ready ON). It logs in as the node's
# galera_check account, which has no password and no privilege (deploy/galera/cluster-init.sql).
# The read never waits for the cluster (wsrep_sync_wait 0): a node stalled with the cluster answers,
# and HAProxy's own timeout, the check interval, ends a node that does not.
state=$(mariadb --no-defaults --host="$3" --port="$4" --user=galera_check --skip-password --connect-timeout=1 \
  --batch --skip-column-names -e "SET STATEMENT wsrep_sync_wait = 0 FOR SELECT
    (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'WSREP_LOCAL_STATE'),
    (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'WSREP_READY')" 2>/dev/null) || exit 1
[ "$state" = "$(printf '4\tON')" ]
