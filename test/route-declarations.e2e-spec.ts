import { Controller, Module, Post } from '@nestjs/common';
import { Public } from '../src/http/public.decorator';
import { RouteDeclarationError } from '../src/http/route-declarations';
import { Idempotent } from '../src/idempotency/http/idempotent.decorator';
import { IdempotencyModule } from '../src/idempotency/idempotency.module';
import { describeOnStore } from './support/describe-store';
import { createTestApp } from './support/test-app';
import { createTestDatabase, currentStore } from './support/test-database';

/** A module whose create is made safe to retry, on a route that takes callers without a key. */
@Controller({ path: 'open-cards', version: '1' })
class OpenCardsController {
  @Public()
  @Post()
  @Idempotent()
  send(): { sent: boolean } {
    return { sent: true };
  }
}

@Module({ imports: [IdempotencyModule], controllers: [OpenCardsController] })
class OpenCardsModule {}

describeOnStore('a route declared so that it cannot work', () => {
  it('stops the start, before any request, with one line naming the route: @Idempotent() on a @Public() route', async () => {
    const database = await createTestDatabase(currentStore());
    try {
      const started = createTestApp({ database, modules: [OpenCardsModule] });
      await expect(started).rejects.toThrow(RouteDeclarationError);
      await expect(started).rejects.toThrow(
        /^@Idempotent\(\) on OpenCardsController\.send, a @Public\(\) route: an Idempotency-Key is kept per API key, so the route must require one$/,
      );
    } finally {
      await database.drop();
    }
  });
});
