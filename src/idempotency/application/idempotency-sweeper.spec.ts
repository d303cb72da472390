import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { FakeClock } from '../../../test/support/fake-clock';
import { Clock } from '../../config/clock';
import { IdempotencyRecordStore } from '../domain/idempotency-record.store';
import { IdempotencySweeper, SWEEP_BATCH, SWEEP_INTERVAL_MS } from './idempotency-sweeper';

describe('IdempotencySweeper', () => {
  const start = 1_000_000;
  let clock: FakeClock;
  let removeExpired: jest.Mock<Promise<void>, [number, number]>;
  let sweeper: IdempotencySweeper;

  /** Lets the sweep that the clock just started settle, and the next one be scheduled. */
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  beforeEach(async () => {
    clock = new FakeClock(start);
    removeExpired = jest.fn(async (_now: number, _limit: number) => undefined);
    const moduleRef = await Test.createTestingModule({
      providers: [IdempotencySweeper, { provide: IdempotencyRecordStore, useValue: { removeExpired } }, { provide: Clock, useValue: clock }],
    }).compile();
    sweeper = moduleRef.get(IdempotencySweeper);
    sweeper.onModuleInit();
  });

  afterEach(() => sweeper.onApplicationShutdown());

  it('removes a batch of expired records once per interval, as of the time of each sweep', async () => {
    clock.advance(SWEEP_INTERVAL_MS - 1);
    await settle();
    expect(removeExpired).not.toHaveBeenCalled();
    clock.advance(1);
    await settle();
    clock.advance(SWEEP_INTERVAL_MS);
    await settle();
    expect(removeExpired.mock.calls).toEqual([
      [start + SWEEP_INTERVAL_MS, SWEEP_BATCH],
      [start + 2 * SWEEP_INTERVAL_MS, SWEEP_BATCH],
    ]);
  });

  it('logs a sweep that fails and sweeps again at the next interval', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    removeExpired.mockRejectedValueOnce(new Error('Deadlock found when trying to get lock'));
    clock.advance(SWEEP_INTERVAL_MS);
    await settle();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('Deadlock found when trying to get lock'));
    clock.advance(SWEEP_INTERVAL_MS);
    await settle();
    expect(removeExpired).toHaveBeenCalledTimes(2);
    warn.mockRestore();
  });

  it('sweeps no more after shutdown, and lets a sweep under way finish first', async () => {
    let finish!: () => void;
    removeExpired.mockImplementationOnce(() => new Promise<void>((resolve) => (finish = resolve)));
    clock.advance(SWEEP_INTERVAL_MS);
    let stopped = false;
    const shutdown = sweeper.onApplicationShutdown().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    finish();
    await shutdown;
    clock.advance(10 * SWEEP_INTERVAL_MS);
    await settle();
    expect(removeExpired).toHaveBeenCalledTimes(1);
  });
});
