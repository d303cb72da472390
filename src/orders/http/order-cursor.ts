import { keysetCursor } from '../../http/keyset-cursor';

/** The opaque cursor of an account's order pages. */
export const orderCursor = keysetCursor('o1.');
