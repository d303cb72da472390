import { SetMetadata } from '@nestjs/common';

export const OWN_BAN = 'animal-store:rate-limit:own-ban';

/**
 * The route's rejections and ban are the key's own for this route: a ban
 * earned on other routes does not refuse it, and one earned on it refuses
 * only it. For a route limited by a bucket of its own (`@Throttle`), such as
 * the quota status, which must answer a banned key.
 */
export const OwnBan = (): MethodDecorator => SetMetadata(OWN_BAN, true);
