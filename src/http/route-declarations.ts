import type { Type } from '@nestjs/common';
import type { DiscoveryService } from '@nestjs/core';

/** A route declared in a way that cannot work; the start stops with its message, one line. */
export class RouteDeclarationError extends Error {}

/** A route handler of one of the application's controllers. */
export interface DeclaredRoute {
  readonly controller: Type;
  readonly handler: (...args: unknown[]) => unknown;
  /** `Controller.method`, as an error names the route. */
  readonly name: string;
}

/** Every method of every controller in the application, for a module to check the declarations it owns at start-up. */
export function declaredRoutes(discovery: DiscoveryService): DeclaredRoute[] {
  return discovery.getControllers().flatMap(({ metatype }) => {
    const controller = metatype as Type | null;
    if (!controller) return [];
    return Object.getOwnPropertyNames(controller.prototype)
      .filter((method) => method !== 'constructor' && typeof controller.prototype[method] === 'function')
      .map((method) => ({ controller, handler: controller.prototype[method] as DeclaredRoute['handler'], name: `${controller.name}.${method}` }));
  });
}
