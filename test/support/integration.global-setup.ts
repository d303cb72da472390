import { MARIADB, REDIS, requireLocalService } from './local-services';

/** Integration specs talk to the real Redis and MariaDB of this machine. */
export default async function globalSetup(): Promise<void> {
  await requireLocalService(REDIS, 'REDIS_AVAILABLE');
  await requireLocalService(MARIADB, 'MYSQL_AVAILABLE');
}
