import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'animal-store:public';

/**
 * Marks a route (or a whole controller) as answering without an API key. Every
 * other route needs one, so a new controller is protected by default.
 * Rate limits still apply, per client address, unless the route also has @SkipThrottle().
 */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);
