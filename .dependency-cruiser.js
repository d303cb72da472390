/**
 * The layer rules of the service, checked by `npm test` (`npm run lint:layers`).
 * Each module under src/ has domain/, application/, infrastructure/ and http/
 * layers; dependencies point inward: http -> application -> domain <- infrastructure.
 * Specs are left out on the importing side: a test may assemble any layers.
 */
const NOT_A_SPEC = '\\.(e2e-|int-|docs-)?spec\\.ts$';

/** The packages that know a request is HTTP: the server, its plugins, Nest's adapter and engine. */
const TRANSPORT_PACKAGES = 'node_modules/(fastify|@fastify/[^/]+|@nestjs/platform-fastify|@nestjs/core|@nestjs/throttler)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'domain-imports-no-package',
      comment: 'The domain is plain TypeScript: no framework, ORM, validator or transport, so it can be read and tested alone.',
      severity: 'error',
      from: { path: '^src/[^/]+/domain/', pathNot: NOT_A_SPEC },
      to: { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'domain-imports-only-its-own-domain',
      comment:
        "A module's domain knows nothing of configuration, other layers, other modules or a request; only the errors' domain (DomainError and the codes), never what HTTP makes of them.",
      severity: 'error',
      from: { path: '^src/([^/]+)/domain/', pathNot: NOT_A_SPEC },
      to: {
        path: '^src/',
        pathNot: ['^src/$1/domain/', '^src/errors/domain/'],
      },
    },
    {
      name: 'application-imports-no-transport',
      comment: "Use cases speak in domain terms; Fastify's requests and replies, Nest's adapter and engine belong to http/ (@nestjs/common's DI decorators are fine).",
      severity: 'error',
      from: { path: '^src/[^/]+/(application|domain)/', pathNot: NOT_A_SPEC },
      to: { path: TRANSPORT_PACKAGES },
    },
    {
      name: 'application-imports-no-outer-layer',
      comment: 'Dependencies point inward: application code never reaches http/ or infrastructure/ of any module (errors/http included), nor the request kernel src/http/; it reads the caller from callers/.',
      severity: 'error',
      from: { path: '^src/[^/]+/application/', pathNot: NOT_A_SPEC },
      to: { path: ['^src/[^/]+/(http|infrastructure)/', '^src/http/'] },
    },
    {
      name: 'modules-meet-through-their-exports',
      comment:
        "A module uses another's application services, domain ports and route decorators (`http/*.decorator.ts`, e.g. @Idempotent()), never the rest of its http/ or its infrastructure/; errors/http, where every error meets HTTP, is the ground of every http side.",
      severity: 'error',
      from: { path: '^src/([^/]+)/', pathNot: NOT_A_SPEC },
      to: { path: '^src/[^/]+/(http|infrastructure)/', pathNot: ['^src/$1/', '^src/[^/]+/http/[^/]+\\.decorator\\.ts$', '^src/errors/http/'] },
    },
    {
      name: 'http-kernel-imports-no-feature',
      comment:
        'src/http holds what every module shares about a request (route declarations, the body parser, the validation pipe); it depends on no module, so any module can use it.',
      severity: 'error',
      from: { path: '^src/http/', pathNot: NOT_A_SPEC },
      // What it may use is listed, so a module added later is covered too.
      to: { path: '^src/', pathNot: '^src/(http|callers|config|errors)/' },
    },
    {
      name: 'rate-limits-know-no-auth',
      comment: 'Rate limits read the caller the authentication step left in the request context, as data; they never ask auth to look a key up.',
      severity: 'error',
      from: { path: '^src/rate-limit/', pathNot: NOT_A_SPEC },
      to: { path: '^src/auth/' },
    },
    {
      name: 'database-imports-no-feature',
      comment: "The database module serves every feature module and names none: each registers its own entities with TypeOrmModule.forFeature.",
      severity: 'error',
      from: { path: '^src/database/', pathNot: NOT_A_SPEC },
      // What it may use is listed, not what it may not, so a module added later is covered too.
      to: { path: '^src/', pathNot: '^src/(database|config|errors|http|ops)/' },
    },
    {
      name: 'the-ground-imports-nothing-above',
      comment:
        'Every module stands on configuration, errors and the caller (callers/), so they import nothing else of ours: the reverse would climb back up the layers.',
      severity: 'error',
      from: { path: '^src/(config|errors|callers)/', pathNot: NOT_A_SPEC },
      to: { path: '^src/', pathNot: '^src/(config|errors|callers)/' },
    },
    {
      name: 'modules-stand-below-the-application',
      comment:
        'The files at the top of src/ (the application module, its setup and the entry points) assemble the modules; a file inside a module that imported them would climb back up the layers.',
      severity: 'error',
      from: { path: '^src/[^/]+/', pathNot: NOT_A_SPEC },
      to: { path: '^src/[^/]+\\.ts$' },
    },
    {
      name: 'no-circular',
      comment: 'A cycle makes two files one unit that neither side can change alone.',
      severity: 'error',
      from: { pathNot: NOT_A_SPEC },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
