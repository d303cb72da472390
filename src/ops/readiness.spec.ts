import { notReadyMessage, runReadinessChecks } from './readiness';

describe('runReadinessChecks', () => {
  it('reports each check up or down, with the reason of a failure', async () => {
    const outcomes = await runReadinessChecks(
      [
        { name: 'database', check: async () => undefined },
        { name: 'redis', check: () => Promise.reject(new Error('connect ECONNREFUSED')) },
        {
          name: 'thrower',
          check: () => {
            throw new Error('synchronous failure');
          },
        },
      ],
      1_000,
    );
    expect(outcomes).toEqual([
      { name: 'database', state: 'up' },
      { name: 'redis', state: 'down', reason: 'connect ECONNREFUSED' },
      { name: 'thrower', state: 'down', reason: 'synchronous failure' },
    ]);
  });

  it('reports an optional check that fails as degraded, which leaves the service ready', async () => {
    const outcomes = await runReadinessChecks(
      [
        { name: 'database', check: async () => undefined },
        { name: 'replica-1', optional: true, check: () => Promise.reject(new Error('12 s behind the primary')) },
        { name: 'replica-2', optional: true, check: async () => undefined },
      ],
      1_000,
    );
    expect(outcomes).toEqual([
      { name: 'database', state: 'up' },
      { name: 'replica-1', state: 'degraded', reason: '12 s behind the primary' },
      { name: 'replica-2', state: 'up' },
    ]);
    expect(notReadyMessage(outcomes)).toBeUndefined();
  });

  it('counts a check that does not answer in time as down', async () => {
    const hanging = { name: 'slow', check: () => new Promise<void>(() => undefined) };
    await expect(runReadinessChecks([hanging], 20)).resolves.toEqual([
      { name: 'slow', state: 'down', reason: 'no answer within 20 ms' },
    ]);
  });

  it('calls a check as a method of its object', async () => {
    class Pinger {
      readonly name = 'pinger';
      private readonly answer = Promise.resolve();
      check(): Promise<void> {
        return this.answer;
      }
    }
    await expect(runReadinessChecks([new Pinger()], 100)).resolves.toEqual([{ name: 'pinger', state: 'up' }]);
  });
});

describe('notReadyMessage', () => {
  it('names what is down and never the reason, which may hold an address', () => {
    expect(notReadyMessage([{ name: 'database', state: 'down', reason: 'mysql://user:pw@db' }])).toBe('Not ready: database is down');
    expect(
      notReadyMessage([
        { name: 'database', state: 'down' },
        { name: 'cache', state: 'up' },
        { name: 'redis', state: 'down' },
      ]),
    ).toBe('Not ready: database, redis are down');
  });

  it('is undefined when everything is up', () => {
    expect(notReadyMessage([{ name: 'database', state: 'up' }])).toBeUndefined();
  });
});
