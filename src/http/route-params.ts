import type { Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';

/** What a handler takes from the request, as Nest's param decorators record it: which kind of input, at which position. */
export interface RouteParam {
  readonly kind: RouteParamtypes;
  readonly index: number;
}

/** The handler's parameters that Nest's own decorators (@Body(), @Query(), @Param(), ...) fill; custom ones are left out. */
export function routeParamsOf(controller: Type, handler: string | symbol): RouteParam[] {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {}) as Record<string, { index: number }>;
  return Object.entries(args)
    .map(([key, { index }]) => ({ kind: Number(key.split(':')[0]) as RouteParamtypes, index }))
    .filter(({ kind }) => RouteParamtypes[kind] !== undefined);
}

/** The class of the handler's @Body() parameter, if it has one. */
export function bodyTypeOf(controller: Type, handler: string | symbol): Type | undefined {
  const body = routeParamsOf(controller, handler).find(({ kind }) => kind === RouteParamtypes.BODY);
  if (body === undefined) return undefined;
  return (Reflect.getMetadata('design:paramtypes', controller.prototype, handler) as Type[] | undefined)?.[body.index];
}

export { RouteParamtypes };
