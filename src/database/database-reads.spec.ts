import type { DataSource } from 'typeorm';
import { FakeClock } from '../../test/support/fake-clock';
import { DatabaseReads, PrimaryReads, primaryReads, ReadTarget } from './database-reads';
import { ReplicationReport } from './replica-health';
import { ReplicaMonitor, ReplicaProbe } from './replica-monitor';

/** A replica whose answer to the monitor a spec sets. */
class FakeProbe implements ReplicaProbe {
  answer: ReplicationReport | Error = { running: true, secondsBehind: 0 };
  closed = false;

  async report(): Promise<ReplicationReport> {
    if (this.answer instanceof Error) throw this.answer;
    return this.answer;
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** A DataSource that answers each query with the name of the server it would run on. */
function fakeDataSource(name: string, replicaFails = false) {
  const dataSource = {
    destroyed: false,
    get isInitialized() {
      return !dataSource.destroyed;
    },
    createQueryRunner: jest.fn((mode: 'master' | 'slave') => {
      const query = async () => {
        if (replicaFails && mode === 'slave') throw new Error('Connection lost: The server closed the connection.');
        return [{ from: `${name} ${mode === 'slave' ? 'slave' : 'primary'}` }];
      };
      return { connection: { subscribers: [] }, query, manager: { query }, release: jest.fn(async () => undefined) };
    }),
    destroy: jest.fn(async () => void (dataSource.destroyed = true)),
  };
  return dataSource;
}

describe('DatabaseReads', () => {
  const logger = { log: jest.fn(), warn: jest.fn() };
  const clock = new FakeClock(0);
  let probes: FakeProbe[];
  let monitor: ReplicaMonitor;
  let counted: ReadTarget[];
  let subsets: Array<{ positions: readonly number[]; source: ReturnType<typeof fakeDataSource> }>;

  function readsOn(app: ReturnType<typeof fakeDataSource>, replicas: number): DatabaseReads {
    probes = Array.from({ length: replicas }, () => new FakeProbe());
    monitor = new ReplicaMonitor(
      probes.map((probe, index) => ({ name: `replica-${index + 1}`, probe })),
      5,
      clock,
      logger,
    );
    counted = [];
    subsets = [];
    return new DatabaseReads(
      app as unknown as DataSource,
      monitor,
      (servedBy) => counted.push(servedBy),
      async (positions) => {
        const source = fakeDataSource(`replicas ${positions.join('+')}:`);
        subsets.push({ positions, source });
        return source as unknown as DataSource;
      },
      logger,
    );
  }

  const from = async (reads: DatabaseReads, prefer: ReadTarget) => {
    const { rows, servedBy } = await reads.query<{ from: string }>('SELECT 1', [], prefer);
    return { from: rows[0].from, servedBy };
  };

  beforeEach(() => jest.clearAllMocks());
  afterEach(() => monitor?.stop());

  it('reads on the primary alone when no replica is configured', async () => {
    const app = fakeDataSource('app');
    const counts: ReadTarget[] = [];
    const reads = primaryReads(app as unknown as DataSource, (servedBy) => counts.push(servedBy));
    await expect(from(reads, 'replica')).resolves.toEqual({ from: 'app primary', servedBy: 'primary' });
    expect(app.createQueryRunner.mock.calls).toEqual([['master']]);
    expect(counts).toEqual(['primary']);
  });

  it('reads on the primary through the reads\' own pool when there is one, which closes with the app', async () => {
    const app = fakeDataSource('app');
    const own = fakeDataSource('reads');
    const ownReads = new PrimaryReads(own as unknown as DataSource, true);
    const reads = new DatabaseReads(app as unknown as DataSource, new ReplicaMonitor([], 5, clock, logger), () => undefined, () => Promise.reject(new Error('none')), logger, ownReads);
    await expect(from(reads, 'primary')).resolves.toEqual({ from: 'reads primary', servedBy: 'primary' });
    expect(app.createQueryRunner).not.toHaveBeenCalled();
    await ownReads.onApplicationShutdown();
    expect({ own: own.destroyed, app: app.destroyed }).toEqual({ own: true, app: false });
    // A pool already closed (a spec that broke the store, say) is not closed again.
    await ownReads.onApplicationShutdown();
    expect(own.destroy).toHaveBeenCalledTimes(1);
  });

  it('reads on a slave query runner of the app DataSource while every replica is fit, on the primary when asked', async () => {
    const app = fakeDataSource('app');
    const reads = readsOn(app, 2);
    await monitor.start();
    await expect(from(reads, 'replica')).resolves.toEqual({ from: 'app slave', servedBy: 'replica' });
    await expect(from(reads, 'primary')).resolves.toEqual({ from: 'app primary', servedBy: 'primary' });
    expect(counted).toEqual(['replica', 'primary']);
    expect(logger.log.mock.calls).toEqual([['replica-1 serves reads'], ['replica-2 serves reads']]);
  });

  it('answers from the primary a read that fails on a replica, and logs the failure once until the route changes', async () => {
    const app = fakeDataSource('app', true);
    const reads = readsOn(app, 1);
    await monitor.start();
    await expect(from(reads, 'replica')).resolves.toEqual({ from: 'app primary', servedBy: 'primary' });
    await expect(from(reads, 'replica')).resolves.toEqual({ from: 'app primary', servedBy: 'primary' });
    expect(app.createQueryRunner.mock.results[0].value.release).toHaveBeenCalled();
    expect(counted).toEqual(['primary', 'primary']);
    const failed = 'A read on a replica failed and was answered by the primary: Connection lost: The server closed the connection.';
    expect(logger.warn.mock.calls).toEqual([[failed]]);

    probes[0].answer = new Error('connect ECONNREFUSED');
    await monitor.check();
    probes[0].answer = { running: true, secondsBehind: 0 };
    await monitor.check();
    await expect(from(reads, 'replica')).resolves.toEqual({ from: 'app primary', servedBy: 'primary' });
    expect(logger.warn.mock.calls.filter(([message]) => message === failed)).toHaveLength(2);
  });

  it('reads on a DataSource of the fit replicas alone while some are out, and on the app DataSource again once all are back', async () => {
    const app = fakeDataSource('app');
    const reads = readsOn(app, 3);
    await monitor.start();
    probes[1].answer = { running: true, secondsBehind: 12 };
    await monitor.check();
    expect(subsets.map(({ positions }) => positions)).toEqual([[0, 2]]);
    await expect(from(reads, 'replica')).resolves.toEqual({ from: 'replicas 0+2: slave', servedBy: 'replica' });
    expect(logger.warn).toHaveBeenCalledWith('replica-2 is out of reads, lagging: 12 s behind the primary, over the bound of 5 s');

    probes[1].answer = { running: true, secondsBehind: 0 };
    await monitor.check();
    await expect(from(reads, 'replica')).resolves.toEqual({ from: 'app slave', servedBy: 'replica' });
    // The subset's pool closes once reads that took it have had time to finish, or at shutdown.
    expect(subsets[0].source.destroyed).toBe(false);
    await reads.close();
    expect(subsets[0].source.destroyed).toBe(true);
  });

  it('reads on the primary while no replica is fit, and on the replicas when they recover', async () => {
    const app = fakeDataSource('app');
    const reads = readsOn(app, 2);
    await monitor.start();
    probes.forEach((probe) => (probe.answer = new Error('connect ECONNREFUSED')));
    await monitor.check();
    await expect(from(reads, 'replica')).resolves.toEqual({ from: 'app primary', servedBy: 'primary' });
    expect(monitor.statuses()).toEqual([
      { name: 'replica-1', state: 'down', reason: 'connect ECONNREFUSED' },
      { name: 'replica-2', state: 'down', reason: 'connect ECONNREFUSED' },
    ]);
    probes.forEach((probe) => (probe.answer = { running: true, secondsBehind: 0 }));
    await monitor.check();
    await expect(from(reads, 'replica')).resolves.toEqual({ from: 'app slave', servedBy: 'replica' });
    expect(subsets).toEqual([]);
  });

  it('starts with replicas out of reads until a first check finds them fit, and closes their probes at shutdown', async () => {
    const app = fakeDataSource('app');
    const reads = readsOn(app, 1);
    probes[0].answer = { running: false, secondsBehind: null };
    await expect(from(reads, 'replica')).resolves.toMatchObject({ servedBy: 'primary' });
    await monitor.start();
    await expect(from(reads, 'replica')).resolves.toMatchObject({ servedBy: 'primary' });
    expect(monitor.statuses()).toEqual([{ name: 'replica-1', state: 'lagging', reason: 'replication is not running and its lag is unknown' }]);
    await monitor.stop();
    expect(probes[0].closed).toBe(true);
  });
});
