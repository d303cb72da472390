import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ORM_ENTITIES } from './entities';

const SRC = join(__dirname, '..');

function entityFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entityFiles(path);
    return entry.name.endsWith('.orm-entity.ts') ? [path] : [];
  });
}

describe('ORM_ENTITIES', () => {
  it("names every class of every module's *.orm-entity.ts, so the TypeORM CLI sees each table the service uses", () => {
    const files = entityFiles(SRC);
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) {
      const classes = Object.values(require(file) as Record<string, unknown>).filter((value) => typeof value === 'function');
      expect({ file: relative(SRC, file), missing: classes.filter((entity) => !ORM_ENTITIES.includes(entity as never)) }).toEqual({
        file: relative(SRC, file),
        missing: [],
      });
    }
  });
});
