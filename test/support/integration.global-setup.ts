import { MARIADB, REDIS, requireCommands, requireLocalService } from './local-services';

/** Integration specs talk to the real Redis and MariaDB of this machine. */
export default async function globalSetup(): Promise<void> {
  await requireLocalService(REDIS, 'REDIS_AVAILABLE');
  await requireLocalService(MARIADB, 'MYSQL_AVAILABLE');
  // The Redis Cluster spec starts a cluster of its own from these.
  requireCommands(['redis-server', 'redis-cli'], 'REDIS_CLUSTER_TOOLS_AVAILABLE');
  // The read-replica spec starts a MariaDB primary and replica of its own (mariadb-install-db comes with the server).
  requireCommands(['mariadbd'], 'MARIADB_SERVER_AVAILABLE');
}
