import { REDIS, requireLocalService } from './local-services';

export default async function globalSetup(): Promise<void> {
  await requireLocalService(REDIS, 'REDIS_AVAILABLE');
}
