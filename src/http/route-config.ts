import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';

/**
 * Adds to a handler's Fastify route config, where @RouteConfig() would replace
 * it, so that several declarations on one handler (@Deprecated(),
 * @ConditionalGet()) all reach the route's onRoute hooks.
 */
export function ExtendRouteConfig(config: object): MethodDecorator {
  return (_target, _key, descriptor) => {
    const handler = descriptor.value as object;
    const current = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as object | undefined) ?? {};
    Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, { ...current, ...config }, handler);
  };
}
