-- Run once, when the replica's data directory is created (docker-compose.yml): follow the
-- primary by GTID from the start of its binlog, which holds the database, its accounts and
-- everything since.
CHANGE MASTER TO
  MASTER_HOST = 'mariadb',
  MASTER_PORT = 3306,
  MASTER_USER = 'replicator',
  MASTER_PASSWORD = 'replicator',
  MASTER_USE_GTID = slave_pos,
  MASTER_CONNECT_RETRY = 5;
START SLAVE;
