import { Injectable, type Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

/** What a key holds when its metadata is absent: a Map cannot tell a stored undefined from a missing entry in one lookup. */
const ABSENT = Symbol('absent');

/** A handler's combined answer for one key, with the class it was combined with. */
interface Combined {
  readonly controller: unknown;
  readonly value: unknown;
}

/**
 * Nest's Reflector, answering each metadata key of a handler or class from
 * memory after the first read. Decorators have run by the time a request
 * arrives, so the answer cannot change; guards that ask on every request
 * then skip reflect-metadata's walk up each target's prototype chain.
 * getAll and getAllAndMerge read through `get`; getAllAndOverride, which the
 * guards ask most (handler, then class), is remembered per handler as one answer.
 */
@Injectable()
export class RouteReflector extends Reflector {
  // Maps, not WeakMaps: handlers and controllers live as long as the application, and a Map answers faster.
  private readonly answers = new Map<Type | Function, Map<unknown, unknown>>();
  private readonly combined = new Map<object, Map<unknown, Combined>>();

  override get(metadataKeyOrDecorator: unknown, target: Type | Function): any {
    let byKey = this.answers.get(target);
    if (!byKey) this.answers.set(target, (byKey = new Map()));
    const known = byKey.get(metadataKeyOrDecorator);
    if (known !== undefined) return known === ABSENT ? undefined : known;
    const value: unknown = super.get(metadataKeyOrDecorator, target);
    byKey.set(metadataKeyOrDecorator, value === undefined ? ABSENT : value);
    return value;
  }

  override getAllAndOverride<TResult = any, TKey = any>(metadataKeyOrDecorator: TKey, targets: (Type | Function)[]): TResult {
    const [handler, controller] = targets;
    if (targets.length !== 2 || !handler) return super.getAllAndOverride<TResult, TKey>(metadataKeyOrDecorator, targets);
    let byKey = this.combined.get(handler);
    if (!byKey) this.combined.set(handler, (byKey = new Map()));
    const known = byKey.get(metadataKeyOrDecorator);
    // A handler inherited by another controller is combined with that one's class anew.
    if (known?.controller === controller) return known.value as TResult;
    const value = super.getAllAndOverride<TResult, TKey>(metadataKeyOrDecorator, targets);
    byKey.set(metadataKeyOrDecorator, { controller, value });
    return value;
  }
}
