import { MARIADB, requireLocalService } from './local-services';

export default async function globalSetup(): Promise<void> {
  await requireLocalService(MARIADB, 'MYSQL_AVAILABLE');
}
