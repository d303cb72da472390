-- Run once, when the primary's data directory is created (docker-compose.yml), after the
-- image has created the database and the animal user. Written to the binlog, so the
-- replica gets these accounts too.

-- The replica's connection to the primary.
CREATE USER 'replicator'@'%' IDENTIFIED BY 'replicator';
GRANT REPLICATION SLAVE ON *.* TO 'replicator'@'%';

-- The service asks each replica how far behind it is: SHOW REPLICA STATUS needs SLAVE MONITOR on MariaDB.
GRANT SLAVE MONITOR ON *.* TO 'animal'@'%';
