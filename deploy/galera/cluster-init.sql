-- Run once, on galera1, when the cluster's first data directory is created
-- (docker-compose.galera.yml), after the image has created the database and the animal
-- user. The other nodes get these accounts with the data, by state transfer.

-- A donor's mariabackup and each node's health check log in as the server's OS user over the socket, with no password.
CREATE USER IF NOT EXISTS 'mysql'@'localhost' IDENTIFIED VIA unix_socket;
GRANT RELOAD, PROCESS, LOCK TABLES, BINLOG MONITOR ON *.* TO 'mysql'@'localhost';
