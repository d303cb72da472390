import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = join(__dirname, '..', '..', 'src');

/**
 * What application code may take from @nestjs/common: dependency injection,
 * the logger and lifecycle hooks. Its HTTP side (HttpException and its kin,
 * pipes, guards, decorators of routes) belongs to http/; the layer rules see
 * packages, not the names imported from them, so this spec reads those.
 */
const DI_AND_LIFECYCLE = new Set([
  'Injectable',
  'Inject',
  'Optional',
  'Logger',
  'OnModuleInit',
  'OnModuleDestroy',
  'OnApplicationBootstrap',
  'BeforeApplicationShutdown',
  'OnApplicationShutdown',
]);

function sourcesOfLayers(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => /^[^/]+\/(application|domain)\//.test(relative(SRC, path)));
}

/** The names a source imports from @nestjs/common; `*` for a namespace import. */
function namesFromNestCommon(source: string): string[] {
  const named = [...source.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'@nestjs\/common'/g)].flatMap(([, names]) =>
    names
      .split(',')
      .map((name) => name.replace(/^\s*type\s+/, '').split(/\s+as\s+/)[0].trim())
      .filter(Boolean),
  );
  const namespace = /import\s+\*\s+as\s+\w+\s+from\s+'@nestjs\/common'/.test(source) ? ['*'] : [];
  return [...named, ...namespace];
}

describe("application and domain code's use of @nestjs/common", () => {
  it('reads the names a file imports', () => {
    const source = "import { Injectable, type HttpException as E } from '@nestjs/common';\nimport * as nest from '@nestjs/common';\n";
    expect(namesFromNestCommon(source)).toEqual(['Injectable', 'HttpException', '*']);
  });

  it('is dependency injection, the logger and lifecycle hooks only', () => {
    const outside = sourcesOfLayers(SRC).flatMap((path) =>
      namesFromNestCommon(readFileSync(path, 'utf8'))
        .filter((name) => !DI_AND_LIFECYCLE.has(name))
        .map((name) => `${relative(SRC, path)}: ${name}`),
    );
    expect(outside).toEqual([]);
  });
});
