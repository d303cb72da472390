import { readReplicationReport, ReplicaHealth } from './replica-health';

describe('readReplicationReport', () => {
  it('reads MariaDB columns (Slave_*, Seconds_Behind_Master)', () => {
    expect(readReplicationReport([{ Slave_IO_Running: 'Yes', Slave_SQL_Running: 'Yes', Seconds_Behind_Master: 3 }])).toEqual({
      running: true,
      secondsBehind: 3,
    });
    expect(readReplicationReport([{ Slave_IO_Running: 'Yes', Slave_SQL_Running: 'No', Seconds_Behind_Master: null }])).toEqual({
      running: false,
      secondsBehind: null,
    });
  });

  it('reads MySQL 8 columns (Replica_*, Seconds_Behind_Source)', () => {
    expect(readReplicationReport([{ Replica_IO_Running: 'Connecting', Replica_SQL_Running: 'Yes', Seconds_Behind_Source: '0' }])).toEqual({
      running: false,
      secondsBehind: 0,
    });
  });

  it('refuses a server that is no replica', () => {
    expect(() => readReplicationReport([])).toThrow('it is not a replica');
  });
});

describe('ReplicaHealth', () => {
  const running = (secondsBehind: number) => ({ running: true, secondsBehind });
  const stopped = { running: false, secondsBehind: null };

  it('keeps a replica in service while its reported lag is within the bound, and takes it out past it', () => {
    const health = new ReplicaHealth(5);
    expect(health.judge(running(0), 0)).toEqual({ state: 'in-service' });
    expect(health.judge(running(5), 1_000)).toEqual({ state: 'in-service' });
    expect(health.judge(running(6), 2_000)).toEqual({ state: 'lagging', reason: '6 s behind the primary, over the bound of 5 s' });
    expect(health.judge(running(1), 3_000)).toEqual({ state: 'in-service' });
  });

  it('counts a replica whose replication stopped as lagging by its last lag plus the time since it stopped', () => {
    const health = new ReplicaHealth(5);
    health.judge(running(2), 0);
    expect(health.judge(stopped, 10_000)).toEqual({ state: 'in-service' });
    expect(health.judge(stopped, 13_000)).toEqual({ state: 'in-service' });
    expect(health.judge(stopped, 13_001)).toEqual({ state: 'lagging', reason: '5 s behind the primary (replication stopped), over the bound of 5 s' });
    expect(health.judge(stopped, 20_000).state).toBe('lagging');
    expect(health.judge(running(0), 21_000)).toEqual({ state: 'in-service' });
  });

  it('keeps out a replica never seen replicating, whose lag is unknown', () => {
    const health = new ReplicaHealth(5);
    expect(health.judge(stopped, 0)).toEqual({ state: 'lagging', reason: 'replication is not running and its lag is unknown' });
  });

  it('takes out a replica that does not answer, and forgets its lag: back with replication stopped, it stays out', () => {
    const health = new ReplicaHealth(5);
    health.judge(running(0), 0);
    expect(health.judge(new Error('connect ECONNREFUSED 127.0.0.1:3307'), 1_000)).toEqual({
      state: 'down',
      reason: 'connect ECONNREFUSED 127.0.0.1:3307',
    });
    expect(health.judge(stopped, 2_000).state).toBe('lagging');
  });
});
