-- Run once, on galera1, when the cluster's first data directory is created
-- (docker-compose.galera.yml), after the image has created the database and the animal
-- user. The other nodes get these accounts with the data, by state transfer.

-- A donor's mariabackup and each node's health check log in as the server's OS user over the socket, with no password.
CREATE USER IF NOT EXISTS 'mysql'@'localhost' IDENTIFIED VIA unix_socket;
GRANT RELOAD, PROCESS, LOCK TABLES, BINLOG MONITOR ON *.* TO 'mysql'@'localhost';

-- HAProxy's check of each node (deploy/galera-proxy/galera-node-check.sh) reads the node's state, which needs no privilege: no password to keep, and a bound on its connections.
CREATE USER IF NOT EXISTS 'galera_check'@'%' WITH MAX_USER_CONNECTIONS 10;
