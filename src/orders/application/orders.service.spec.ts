import { Test } from '@nestjs/testing';
import { AppConfig, loadConfig } from '../../config/app-config';
import { Clock } from '../../config/clock';
import { DatabaseUnavailableError } from '../../database/database.errors';
import { UnitOfWork } from '../../database/unit-of-work';
import { RecentWriters } from '../../pets/application/recent-writers';
import { PetNotAvailableError } from '../domain/order.errors';
import { OrderRepository } from '../domain/order.repository';
import { OpenOrderCaps } from './open-order-caps';
import { OrdersService } from './orders.service';

describe('OrdersService.place', () => {
  const account = { accountId: 1, plan: 'pro' };
  const commitRefused = new DatabaseUnavailableError('ER_LOCK_DEADLOCK: Deadlock found when trying to get lock');

  async function serviceWith(petTaken: boolean | Error): Promise<OrdersService> {
    const orders = {
      isPetTaken: jest.fn(() => (petTaken instanceof Error ? Promise.reject(petTaken) : Promise.resolve(petTaken))),
    };
    const config = loadConfig({});
    const clock = { now: () => 0, schedule: () => () => undefined };
    const moduleRef = await Test.createTestingModule({
      providers: [
        OrdersService,
        { provide: OrderRepository, useValue: orders },
        // The unit's commit is refused, as Galera refuses the loser of a race between nodes.
        { provide: UnitOfWork, useValue: { run: () => Promise.reject(commitRefused) } },
        { provide: OpenOrderCaps, useValue: new OpenOrderCaps(config) },
        { provide: RecentWriters, useValue: new RecentWriters(0, clock as unknown as Clock) },
        { provide: Clock, useValue: clock },
        { provide: AppConfig, useValue: config },
      ],
    }).compile();
    return moduleRef.get(OrdersService);
  }

  it('answers a commit refused while the pet went to another order as the lost race it is', async () => {
    await expect((await serviceWith(true)).place(account, 7)).rejects.toThrow(PetNotAvailableError);
  });

  it('answers a commit refused while the pet is still available as the database unavailable, to retry', async () => {
    await expect((await serviceWith(false)).place(account, 7)).rejects.toBe(commitRefused);
  });

  it('answers the database unavailable when the pet cannot be read either', async () => {
    await expect((await serviceWith(new Error('connection lost'))).place(account, 7)).rejects.toBe(commitRefused);
  });
});
