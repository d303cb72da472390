import 'reflect-metadata';
import { CanActivate } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module';
import { configureApp, createFastifyAdapter, NEST_APP_OPTIONS } from '../../src/app.setup';
import { AccessGuard } from '../../src/auth/http/access.guard';
import { loadConfig } from '../../src/config/app-config';
import { PlanThrottlerGuard } from '../../src/rate-limit/http/plan-throttler.guard';
import { Variant, VARIANTS } from './variants';

/**
 * The real AppModule with some of its guards replaced by a pass-through, so the
 * cost of each guard can be measured against the same service without it.
 * The redis variant needs REDIS_URL.
 */

const passThrough: CanActivate = { canActivate: () => true };

async function main(variant: Variant): Promise<void> {
  const config = loadConfig();
  let builder = Test.createTestingModule({ imports: [AppModule.forRoot(config)] });
  if (variant === 'off' || variant === 'auth') builder = builder.overrideProvider(PlanThrottlerGuard).useValue(passThrough);
  if (variant === 'off') builder = builder.overrideProvider(AccessGuard).useValue(passThrough);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), { ...NEST_APP_OPTIONS, logger: ['error'] });
  configureApp(app);
  await app.listen(config.port, '127.0.0.1');
  process.stdout.write(`ready ${variant}\n`);
}

const variant = process.argv[2] as Variant;
if (!VARIANTS.includes(variant)) {
  console.error(`usage: server.ts <${VARIANTS.join('|')}>`);
  process.exit(2);
}
main(variant).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
