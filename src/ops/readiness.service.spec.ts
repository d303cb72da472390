import { TerminusModule } from '@nestjs/terminus';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { ReadinessCheck, ServiceUnavailableError } from './readiness';
import { READINESS_CHECKS, ReadinessService } from './readiness.service';

describe('ReadinessService', () => {
  let databaseUp: boolean;
  const database = { options: { type: 'mysql' }, query: async () => (databaseUp ? [{ 1: 1 }] : Promise.reject(new Error('connect ECONNREFUSED 10.0.0.7:3306'))) };

  const readinessOf = async (checks: ReadinessCheck[]): Promise<ReadinessService> => {
    const moduleRef = await Test.createTestingModule({
      imports: [TerminusModule.forRoot({ logger: false })],
      providers: [ReadinessService, { provide: DataSource, useValue: database }, { provide: READINESS_CHECKS, useValue: checks }],
    }).compile();
    return moduleRef.get(ReadinessService);
  };

  beforeEach(() => {
    databaseUp = true;
  });

  it('answers the database and every listed check, in order, with what a reporting check shows', async () => {
    const readiness = await readinessOf([
      { name: 'redis', check: async () => undefined },
      { name: 'database-1', check: async () => 'in-use' },
    ]);
    await expect(readiness.check()).resolves.toEqual({ status: 'ready', checks: { database: 'up', redis: 'up', 'database-1': 'in-use' } });
  });

  it('reports an optional check that fails as degraded, which leaves the service ready', async () => {
    const readiness = await readinessOf([{ name: 'replica-1', optional: true, check: () => Promise.reject(new Error('12 s behind the primary')) }]);
    await expect(readiness.check()).resolves.toEqual({ status: 'ready', checks: { database: 'up', 'replica-1': 'degraded' } });
  });

  it('refuses with the names of what is down and never the reason, which may hold an address', async () => {
    databaseUp = false;
    const readiness = await readinessOf([
      { name: 'redis', check: () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.8:6379')) },
      { name: 'queue', check: async () => undefined },
    ]);
    const refusal = readiness.check();
    await expect(refusal).rejects.toThrow(ServiceUnavailableError);
    await expect(refusal).rejects.toThrow(/^Not ready: database, redis are down$/);
  });

  it('counts a check that does not answer in time as down', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    try {
      const readiness = await readinessOf([{ name: 'slow', check: () => new Promise<void>(() => undefined) }]);
      const refusal = readiness.check();
      await jest.advanceTimersByTimeAsync(2_000);
      await expect(refusal).rejects.toThrow(/^Not ready: slow is down$/);
    } finally {
      jest.useRealTimers();
    }
  });
});
