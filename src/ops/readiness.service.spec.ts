import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { READINESS_CHECKS, ReadinessCheck } from './readiness';
import { ReadinessService } from './readiness.service';

let redisUp = true;

@Module({ providers: [{ provide: READINESS_CHECKS, useValue: { name: 'database', check: async () => undefined } }] })
class DatabaseChecks {}

@Module({
  providers: [
    {
      provide: READINESS_CHECKS,
      useFactory: (): ReadinessCheck[] => [
        { name: 'redis', check: async () => (redisUp ? undefined : Promise.reject(new Error('ECONNREFUSED'))) },
        { name: 'queue', check: async () => undefined },
      ],
    },
  ],
})
class CacheChecks {}

describe('ReadinessService', () => {
  it('runs the checks that any module registers under READINESS_CHECKS, one or several per provider', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [DiscoveryModule, DatabaseChecks, CacheChecks],
      providers: [ReadinessService],
    }).compile();
    const readiness = moduleRef.get(ReadinessService);

    redisUp = true;
    const up = await readiness.check();
    expect(up.map(({ name, state }) => [name, state]).sort()).toEqual([
      ['database', 'up'],
      ['queue', 'up'],
      ['redis', 'up'],
    ]);

    redisUp = false;
    const down = await readiness.check();
    expect(down.find(({ name }) => name === 'redis')).toEqual({ name: 'redis', state: 'down', reason: 'ECONNREFUSED' });
  });
});
