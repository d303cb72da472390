import { keysetCursor } from '../../http/keyset-cursor';

const cursor = keysetCursor('p1.');

export const encodeCursor = (afterId: number): string => cursor.encode(afterId);

export const decodeCursor = (text: string): number => cursor.decode(text);
