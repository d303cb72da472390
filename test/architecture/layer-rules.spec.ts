import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const CONFIG = join(ROOT, '.dependency-cruiser.js');
const DEPCRUISE = join(ROOT, 'node_modules', '.bin', 'depcruise');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/**
 * Writes a small source tree and cruises it with the project's own rules, so a
 * rule that stops matching (a renamed folder, a mistyped pattern) fails here.
 */
function violationsIn(files: Record<string, string>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'animal-store-layers-'));
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'node16', moduleResolution: 'node16' } }));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const run = spawnSync(DEPCRUISE, ['src', '--config', CONFIG, '--output-type', 'json'], { cwd: dir, encoding: 'utf8' });
    if (!run.stdout) throw new Error(`depcruise gave no report: ${run.stderr}`);
    const { summary } = JSON.parse(run.stdout) as { summary: { violations: Violation[] } };
    return summary.violations.map(({ rule, from, to }) => `${rule.name}: ${from} -> ${to.replace(/^.*node_modules\//, 'node_modules/')}`).sort();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const LEGAL_TREE = {
  'src/errors/domain/domain-error.ts': 'export abstract class DomainError extends Error {}\n',
  'src/errors/http/error-statuses.ts': "import { DomainError } from '../domain/domain-error';\nexport const statusOf = (error: DomainError) => (error ? 404 : 500);\n",
  'src/callers/caller.ts': 'export interface Caller { readonly keyId: number }\n',
  'src/config/app-config.ts': 'export abstract class AppConfig {}\n',
  'src/pets/domain/pet.ts': "import { DomainError } from '../../errors/domain/domain-error';\nexport class PetNotFound extends DomainError {}\n",
  'src/pets/domain/pet.repository.ts': "import { PetNotFound } from './pet';\nexport abstract class PetRepository { abstract find(): PetNotFound; }\n",
  'src/pets/application/pets.service.ts':
    "import { Injectable } from '@nestjs/common';\nimport { PetRepository } from '../domain/pet.repository';\nimport { AppConfig } from '../../config/app-config';\n@Injectable()\nexport class PetsService { constructor(readonly pets: PetRepository, readonly config: AppConfig) {} }\n",
  'src/pets/infrastructure/typeorm-pet.repository.ts':
    "import { Repository } from 'typeorm';\nimport { PetRepository } from '../domain/pet.repository';\nexport type Rows = Repository<object>;\nexport const port = PetRepository;\n",
  'src/pets/http/pets.controller.ts':
    "import type { FastifyRequest } from 'fastify';\nimport { PetsService } from '../application/pets.service';\nexport type Req = FastifyRequest;\nexport const service = PetsService;\n",
  'src/auth/application/keys.service.ts': "import { PetsService } from '../../pets/application/pets.service';\nexport const other = PetsService;\n",
  'src/http/request-context.ts': "import type { Caller } from '../callers/caller';\nexport const callerOf = (caller: Caller) => caller;\n",
  'src/rate-limit/application/rate-limiter.ts': "import type { Caller } from '../../callers/caller';\nexport const limitOf = (caller: Caller) => caller.keyId;\n",
  'src/idempotency/http/idempotent.decorator.ts': 'export const Idempotent = () => () => undefined;\n',
  'src/pets/http/pets-routes.ts':
    "import { Idempotent } from '../../idempotency/http/idempotent.decorator';\nimport type { Caller } from '../../callers/caller';\nimport { statusOf } from '../../errors/http/error-statuses';\nexport const x = [Idempotent, statusOf];\nexport type C = Caller;\n",
  'src/rate-limit/http/tracker.ts': "import type { Caller } from '../../callers/caller';\nexport const trackerOf = (caller: Caller) => `key:${caller.keyId}`;\n",
  'src/pets/infrastructure/pet.orm-entity.ts': 'export class PetOrmEntity {}\n',
};

describe('the layer rules (.dependency-cruiser.js)', () => {
  it('accept a tree whose dependencies point inward', () => {
    expect(violationsIn(LEGAL_TREE)).toEqual([]);
  });

  it.each<[string, Record<string, string>, string[]]>([
    [
      'a domain that imports a framework or an ORM',
      { 'src/pets/domain/bad.ts': "import { Injectable } from '@nestjs/common';\nimport { Entity } from 'typeorm';\nexport const x = [Injectable, Entity];\n" },
      [
        'domain-imports-no-package: src/pets/domain/bad.ts -> node_modules/@nestjs/common/index.js',
        'domain-imports-no-package: src/pets/domain/bad.ts -> node_modules/typeorm/index.js',
      ],
    ],
    [
      'a domain that imports configuration or another module',
      {
        'src/pets/domain/bad.ts':
          "import { AppConfig } from '../../config/app-config';\nimport { other } from '../../auth/application/keys.service';\nexport const x = [AppConfig, other];\n",
      },
      [
        'domain-imports-only-its-own-domain: src/pets/domain/bad.ts -> src/auth/application/keys.service.ts',
        'domain-imports-only-its-own-domain: src/pets/domain/bad.ts -> src/config/app-config.ts',
      ],
    ],
    [
      'a domain that imports the request kernel, the caller, or what HTTP makes of an error',
      {
        'src/auth/domain/plan.ts':
          "import type { Caller } from '../../callers/caller';\nimport { callerOf } from '../../http/request-context';\nimport { statusOf } from '../../errors/http/error-statuses';\nexport type C = Caller;\nexport const x = [callerOf, statusOf];\n",
      },
      [
        'domain-imports-only-its-own-domain: src/auth/domain/plan.ts -> src/callers/caller.ts',
        'domain-imports-only-its-own-domain: src/auth/domain/plan.ts -> src/errors/http/error-statuses.ts',
        'domain-imports-only-its-own-domain: src/auth/domain/plan.ts -> src/http/request-context.ts',
      ],
    ],
    [
      "an application service that takes a Fastify request, Nest's adapter or the throttler's storage",
      {
        'src/pets/application/bad.ts':
          "import type { FastifyRequest } from 'fastify';\nimport { HttpAdapterHost } from '@nestjs/core';\nimport type { NestFastifyApplication } from '@nestjs/platform-fastify';\nimport type { ThrottlerStorage } from '@nestjs/throttler';\nexport type R = FastifyRequest | NestFastifyApplication | ThrottlerStorage;\nexport const host = HttpAdapterHost;\n",
      },
      [
        'application-imports-no-transport: src/pets/application/bad.ts -> node_modules/@nestjs/core/index.js',
        'application-imports-no-transport: src/pets/application/bad.ts -> node_modules/@nestjs/platform-fastify/index.js',
        'application-imports-no-transport: src/pets/application/bad.ts -> node_modules/@nestjs/throttler/dist/index.js',
        'application-imports-no-transport: src/pets/application/bad.ts -> node_modules/fastify/fastify.js',
      ],
    ],
    [
      'an application service that reaches the request kernel or what HTTP makes of an error',
      {
        'src/pets/application/bad.ts':
          "import { callerOf } from '../../http/request-context';\nimport { statusOf } from '../../errors/http/error-statuses';\nexport const x = [callerOf, statusOf];\n",
      },
      [
        'application-imports-no-outer-layer: src/pets/application/bad.ts -> src/errors/http/error-statuses.ts',
        'application-imports-no-outer-layer: src/pets/application/bad.ts -> src/http/request-context.ts',
      ],
    ],
    [
      'an application service that reaches its own http or infrastructure layer',
      {
        'src/pets/application/bad.ts':
          "import { service } from '../http/pets.controller';\nimport { port } from '../infrastructure/typeorm-pet.repository';\nexport const x = [service, port];\n",
      },
      [
        'application-imports-no-outer-layer: src/pets/application/bad.ts -> src/pets/http/pets.controller.ts',
        'application-imports-no-outer-layer: src/pets/application/bad.ts -> src/pets/infrastructure/typeorm-pet.repository.ts',
      ],
    ],
    [
      "a module that reaches into another's http or infrastructure",
      { 'src/auth/http/bad.ts': "import { port } from '../../pets/infrastructure/typeorm-pet.repository';\nexport const x = port;\n" },
      ['modules-meet-through-their-exports: src/auth/http/bad.ts -> src/pets/infrastructure/typeorm-pet.repository.ts'],
    ],
    [
      "the database module naming a feature module's entity or service, a module added later's too",
      {
        'src/database/bad.ts': "import { PetOrmEntity } from '../pets/infrastructure/pet.orm-entity';\nexport const x = PetOrmEntity;\n",
        'src/database/worse.ts': "import { PetsService } from '../pets/application/pets.service';\nexport const y = PetsService;\n",
        'src/database/later.ts': "import { x } from '../greetings/domain/card';\nexport const z = x;\n",
        'src/greetings/domain/card.ts': 'export const x = 1;\n',
      },
      [
        'database-imports-no-feature: src/database/bad.ts -> src/pets/infrastructure/pet.orm-entity.ts',
        'database-imports-no-feature: src/database/later.ts -> src/greetings/domain/card.ts',
        'database-imports-no-feature: src/database/worse.ts -> src/pets/application/pets.service.ts',
        'modules-meet-through-their-exports: src/database/bad.ts -> src/pets/infrastructure/pet.orm-entity.ts',
      ],
    ],
    [
      'configuration, errors or the caller that import a feature module, the request kernel or a module added later',
      {
        'src/config/bad.ts': "import { PetsService } from '../pets/application/pets.service';\nexport const x = PetsService;\n",
        'src/errors/bad.ts': "import { PetNotFound } from '../pets/domain/pet';\nexport const y = PetNotFound;\n",
        'src/errors/kernel.ts': "import { callerOf } from '../http/request-context';\nexport const c = callerOf;\n",
        'src/errors/later.ts': "import { x } from '../greetings/domain/card';\nexport const z = x;\n",
        'src/callers/plan.ts': "import { PetNotFound } from '../pets/domain/pet';\nexport const y = PetNotFound;\n",
        'src/greetings/domain/card.ts': 'export const x = 1;\n',
      },
      [
        'the-ground-imports-nothing-above: src/callers/plan.ts -> src/pets/domain/pet.ts',
        'the-ground-imports-nothing-above: src/config/bad.ts -> src/pets/application/pets.service.ts',
        'the-ground-imports-nothing-above: src/errors/bad.ts -> src/pets/domain/pet.ts',
        'the-ground-imports-nothing-above: src/errors/kernel.ts -> src/http/request-context.ts',
        'the-ground-imports-nothing-above: src/errors/later.ts -> src/greetings/domain/card.ts',
      ],
    ],
    [
      "a module that reaches into another's http for anything but a route decorator",
      { 'src/pets/http/bad.ts': "import { ReplayHeaders } from '../../idempotency/http/replay-headers';\nexport const x = ReplayHeaders;\n", 'src/idempotency/http/replay-headers.ts': 'export class ReplayHeaders {}\n' },
      ['modules-meet-through-their-exports: src/pets/http/bad.ts -> src/idempotency/http/replay-headers.ts'],
    ],
    [
      'the shared request kernel (src/http) importing a feature module or a module added later',
      {
        'src/http/bad.ts': "import { PetsService } from '../pets/application/pets.service';\nexport const x = PetsService;\n",
        'src/http/later.ts': "import { x } from '../greetings/domain/card';\nexport const z = x;\n",
        'src/greetings/domain/card.ts': 'export const x = 1;\n',
      },
      [
        'http-kernel-imports-no-feature: src/http/bad.ts -> src/pets/application/pets.service.ts',
        'http-kernel-imports-no-feature: src/http/later.ts -> src/greetings/domain/card.ts',
      ],
    ],
    [
      'rate limits that ask auth for the caller',
      {
        'src/auth/application/authentication.service.ts': 'export class AuthenticationService {}\n',
        'src/rate-limit/http/bad.ts': "import { AuthenticationService } from '../../auth/application/authentication.service';\nexport const x = AuthenticationService;\n",
      },
      ['rate-limits-know-no-auth: src/rate-limit/http/bad.ts -> src/auth/application/authentication.service.ts'],
    ],
    [
      'a file inside a module that imports the application or an entry point',
      {
        'src/app.module.ts': "import { PetsService } from './pets/application/pets.service';\nexport const modules = [PetsService];\n",
        'src/keys.ts': "import { modules } from './app.module';\nexport const all = modules;\n",
        'src/auth/cli/keys.ts': "import { modules } from '../../app.module';\nexport const all = modules;\n",
        'src/pets/http/bad.ts': "import { all } from '../../keys';\nexport const x = all;\n",
      },
      [
        'modules-stand-below-the-application: src/auth/cli/keys.ts -> src/app.module.ts',
        'modules-stand-below-the-application: src/pets/http/bad.ts -> src/keys.ts',
      ],
    ],
    [
      'two files that import each other',
      {
        'src/pets/domain/a.ts': "import { b } from './b';\nexport const a = () => b;\n",
        'src/pets/domain/b.ts': "import { a } from './a';\nexport const b = () => a;\n",
      },
      // A cycle is reported once, at the first edge that closes it.
      ['no-circular: src/pets/domain/a.ts -> src/pets/domain/b.ts'],
    ],
  ])('refuse %s', (_case, broken, expected) => {
    expect(violationsIn({ ...LEGAL_TREE, ...broken })).toEqual(expected);
  });
});
