import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = join(__dirname, '..', '..', 'src');

/** Every class that a module's `*.orm-entity.ts` under src/ exports, with its file, as the modules and ormconfig.ts name them. */
export function ormEntityClasses(): Array<{ file: string; entity: Function }> {
  return entityFiles(SRC).flatMap((path) =>
    Object.values(require(path) as Record<string, unknown>)
      .filter((value): value is Function => typeof value === 'function')
      .map((entity) => ({ file: relative(SRC, path), entity })),
  );
}

function entityFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entityFiles(path);
    return entry.name.endsWith('.orm-entity.ts') ? [path] : [];
  });
}
