/**
 * What bench/floor can add to a bare NestJS application: a card library or
 * a Nest mechanism the service's hot path goes through; `card` names them
 * all, the floor the service is judged against. Here, beside the floor's
 * server, so the server and bench/args.ts read one list.
 */
export const FLOOR_PARTS = ['typeorm', 'throttler', 'validation', 'interceptors'] as const;
export type FloorPart = (typeof FLOOR_PARTS)[number];
