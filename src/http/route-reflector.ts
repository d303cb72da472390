import { Injectable, type Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

/** What a key holds when its metadata is absent: a Map cannot tell a stored undefined from a missing entry in one lookup. */
const ABSENT = Symbol('absent');

/**
 * Nest's Reflector, answering each metadata key of a handler or class from
 * memory after the first read. Decorators have run by the time a request
 * arrives, so the answer cannot change; guards that ask on every request
 * then skip reflect-metadata's walk up each target's prototype chain.
 * getAllAndOverride, getAll and getAllAndMerge all read through `get`.
 */
@Injectable()
export class RouteReflector extends Reflector {
  private readonly answers = new WeakMap<Type | Function, Map<unknown, unknown>>();

  override get(metadataKeyOrDecorator: unknown, target: Type | Function): any {
    let byKey = this.answers.get(target);
    if (!byKey) this.answers.set(target, (byKey = new Map()));
    const known = byKey.get(metadataKeyOrDecorator);
    if (known !== undefined) return known === ABSENT ? undefined : known;
    const value: unknown = super.get(metadataKeyOrDecorator, target);
    byKey.set(metadataKeyOrDecorator, value === undefined ? ABSENT : value);
    return value;
  }
}
