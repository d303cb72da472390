import { once } from 'node:events';
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { QueryFailedError } from 'typeorm';
import { DatabaseNode } from '../config/app-config';
import { createDataSourceOptions } from './database-options';
import { isUnavailable } from './driver-errors';
import { failoverOrder, galeraUnfitness, NoDatabaseNodeError, NodeFailover, nodeFailoverOf, NodeProbe, stopNodeFailover } from './failover';

const NODES: DatabaseNode[] = [
  { host: 'db1', port: 3306 },
  { host: 'db2', port: 3306 },
  { host: 'db3', port: 3306 },
];

/** A probe that finds each node as `fit` says, and remembers which nodes it was asked about before they were taken. */
function fakeProbe(fit: boolean[]): { probe: NodeProbe; settled: string[] } {
  const settled: string[] = [];
  const probe: NodeProbe = async (node, purpose) => {
    const index = NODES.findIndex(({ host }) => host === node.host);
    if (!fit[index]) throw new Error(`${node.host} refused`);
    if (purpose === 'take') settled.push(node.host);
  };
  return { probe, settled };
}

const silent = () => ({ warn: jest.fn(), log: jest.fn() });
const states = (failover: NodeFailover) => failover.statuses().map(({ state }) => state);

describe('failoverOrder', () => {
  it('tries the nodes after the lost one in the order of DATABASE_URL, wrapping round, and the lost one last', () => {
    expect(failoverOrder(3, undefined)).toEqual([0, 1, 2]);
    expect(failoverOrder(3, 0)).toEqual([1, 2, 0]);
    expect(failoverOrder(3, 1)).toEqual([2, 0, 1]);
    expect(failoverOrder(3, 2)).toEqual([0, 1, 2]);
  });
});

describe('galeraUnfitness', () => {
  const status = (cluster: string, ready: string, state: string) => [
    { Variable_name: 'wsrep_cluster_status', Value: cluster },
    { Variable_name: 'wsrep_ready', Value: ready },
    { Variable_name: 'wsrep_local_state_comment', Value: state },
  ];

  it('takes a ready, Synced member of the primary component, for any purpose', () => {
    for (const purpose of ['take', 'keep', 'watch'] as const) expect(galeraUnfitness(status('Primary', 'ON', 'Synced'), purpose)).toBeUndefined();
  });

  it.each([
    [status('non-Primary', 'OFF', 'Initialized'), 'not in the primary component (non-Primary)'],
    [status('Primary', 'OFF', 'Joining'), 'wsrep_ready is not ON'],
    [status('Primary', 'ON', 'Donor/Desynced'), 'Donor/Desynced, not Synced'],
    [status('Primary', 'ON', 'Joined'), 'Joined, not Synced'],
  ])('refuses to take or watch as fit a node that reports %j', (rows, why) => {
    expect(galeraUnfitness(rows, 'take')).toBe(why);
    expect(galeraUnfitness(rows, 'watch')).toBe(why);
  });

  it('keeps the node in use while it donates a state transfer, and nothing else that is not Synced', () => {
    expect(galeraUnfitness(status('Primary', 'ON', 'Donor/Desynced'), 'keep')).toBeUndefined();
    expect(galeraUnfitness(status('Primary', 'ON', 'Joined'), 'keep')).toBe('Joined, not Synced');
    expect(galeraUnfitness(status('non-Primary', 'ON', 'Donor/Desynced'), 'keep')).toBe('not in the primary component (non-Primary)');
  });
});

describe('NodeFailover', () => {
  it('uses the first fit node, settled first, and reports the others up once checked', async () => {
    const { probe, settled } = fakeProbe([true, true, true]);
    const failover = new NodeFailover(NODES, probe, silent());
    await expect(failover.nodeInUse()).resolves.toBe(0);
    expect(settled).toEqual(['db1']);
    await failover.check();
    expect(failover.statuses()).toEqual([
      { name: 'database-1', state: 'in-use' },
      { name: 'database-2', state: 'up' },
      { name: 'database-3', state: 'up' },
    ]);
  });

  it('moves to the next fit node when the one in use is lost, and stays there when the lost one comes back', async () => {
    const fit = [true, true, true];
    const { probe, settled } = fakeProbe(fit);
    const logger = silent();
    const failover = new NodeFailover(NODES, probe, logger);
    await failover.nodeInUse();
    await failover.check();

    fit[0] = false;
    await failover.check();
    await expect(failover.nodeInUse()).resolves.toBe(1);
    expect(states(failover)).toEqual(['down', 'in-use', 'up']);
    expect(failover.statuses()[0].reason).toBe('db1 refused');
    expect(settled).toEqual(['db1', 'db2']);
    expect(logger.warn).toHaveBeenCalledWith('database-1 is lost (db1 refused); moving to the next node');

    fit[0] = true;
    await failover.check();
    await expect(failover.nodeInUse()).resolves.toBe(1);
    expect(states(failover)).toEqual(['up', 'in-use', 'up']);
    expect(logger.log).toHaveBeenCalledWith('database-1 is up again');

    // The node after the lost one, not the first of the list.
    fit[1] = false;
    await failover.check();
    await expect(failover.nodeInUse()).resolves.toBe(2);
    expect(states(failover)).toEqual(['up', 'down', 'in-use']);
  });

  it('skips an unfit node while choosing, and fails with a fatal error of its own when none is fit', async () => {
    const fit = [false, false, true];
    const failover = new NodeFailover(NODES, fakeProbe(fit).probe, silent());
    await expect(failover.nodeInUse()).resolves.toBe(2);
    expect(states(failover)).toEqual(['down', 'down', 'in-use']);

    fit[2] = false;
    await failover.check();
    const none = failover.nodeInUse();
    await expect(none).rejects.toThrow(NoDatabaseNodeError);
    await expect(none).rejects.toMatchObject({ fatal: true, message: 'None of the 3 database nodes can take statements' });
    expect(states(failover)).toEqual(['down', 'down', 'down']);
    expect(isUnavailable(await none.catch((error: unknown) => error))).toBe(true);

    fit[0] = true;
    await expect(failover.nodeInUse()).resolves.toBe(0);
  });

  it('makes one choice for connections that ask at once', async () => {
    let probes = 0;
    const failover = new NodeFailover(NODES, async () => void probes++, silent());
    await expect(Promise.all([failover.nodeInUse(), failover.nodeInUse(), failover.nodeInUse()])).resolves.toEqual([0, 0, 0]);
    expect(probes).toBe(1);
  });
});

describe('NodeFailover.stream', () => {
  const servers: Server[] = [];
  const accepted: Socket[][] = [];

  async function listen(): Promise<DatabaseNode> {
    const server = createServer();
    const sockets: Socket[] = [];
    server.on('connection', (socket) => sockets.push(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    servers.push(server);
    accepted.push(sockets);
    return { host: '127.0.0.1', port: (server.address() as AddressInfo).port };
  }

  afterEach(async () => {
    for (const sockets of accepted.splice(0)) sockets.forEach((socket) => socket.destroy());
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('connects each connection to the node in use, closes them when it is lost, and reaches another server straight', async () => {
    const nodes = [await listen(), await listen()];
    const replica = await listen();
    const fit = [true, true];
    const probe: NodeProbe = async (node) => {
      if (!fit[nodes.findIndex(({ port }) => port === node.port)]) throw new Error('gone');
    };
    const failover = new NodeFailover(nodes, probe, silent());
    // mysql2 names the first node's address for every connection of the primary's pool.
    const config = { host: nodes[0].host, port: nodes[0].port };

    const first = failover.stream({ config });
    await once(first, 'connect');
    expect(first.remotePort).toBe(nodes[0].port);

    fit[0] = false;
    // The first call may join the check the first connection started, made while the node was fit.
    await failover.check();
    await failover.check();
    expect(first.destroyed).toBe(true);

    const second = failover.stream({ config });
    await once(second, 'connect');
    expect(second.remotePort).toBe(nodes[1].port);

    const direct = failover.stream({ config: { host: replica.host, port: replica.port } });
    await once(direct, 'connect');
    expect(direct.remotePort).toBe(replica.port);
    [second, direct].forEach((socket) => socket.destroy());
    await failover.stop();
  });

  it('loses a node whose port refuses the connection, and fails that connection with the reason', async () => {
    const alive = await listen();
    const dead = await listen();
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const logger = silent();
    const failover = new NodeFailover([dead, alive], async () => undefined, logger);

    const refused = failover.stream({ config: dead });
    const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ECONNREFUSED');
    expect(isUnavailable(error)).toBe(true);
    expect(logger.warn).toHaveBeenCalledWith(expect.stringMatching(/^database-1 is lost \(connect ECONNREFUSED .*\); moving to the next node$/));

    const next = failover.stream({ config: dead });
    await once(next, 'connect');
    expect(next.remotePort).toBe(alive.port);
    next.destroy();
    await failover.stop();
  });
});

describe('errors of a lost node', () => {
  const driverError = (fields: Record<string, unknown>) => Object.assign(new Error('driver'), fields);

  it('are the connection errors, raw or wrapped by TypeORM, and a Galera node not ready for statements', () => {
    expect(isUnavailable(driverError({ code: 'ECONNREFUSED' }))).toBe(true);
    expect(isUnavailable(new QueryFailedError('SELECT 1', [], driverError({ code: 'PROTOCOL_CONNECTION_LOST', fatal: true })))).toBe(true);
    expect(isUnavailable(new QueryFailedError('SELECT 1', [], driverError({ code: 'ER_UNKNOWN_COM_ERROR', errno: 1047 })))).toBe(true);
    expect(isUnavailable(driverError({ code: 'ER_PARSE_ERROR' }))).toBe(false);
    expect(isUnavailable(new Error('a bug'))).toBe(false);
    expect(isUnavailable(undefined)).toBe(false);
  });

  it('include a certification conflict at commit, which Galera ends as a deadlock, and not a duplicate key', () => {
    expect(isUnavailable(new QueryFailedError('COMMIT', [], driverError({ code: 'ER_LOCK_DEADLOCK', errno: 1213 })))).toBe(true);
    expect(isUnavailable(new QueryFailedError('INSERT …', [], driverError({ code: 'ER_DUP_ENTRY', errno: 1062 })))).toBe(false);
  });
});

describe('createDataSourceOptions with several nodes', () => {
  const url = 'mariadb://store:pw@db1:3306,db2:3306,db3:3306/animal_store';
  afterAll(() => stopNodeFailover(url));

  it("gives TypeORM the first node's URL and mysql2 the one failover of the URL, whose stream reaches replicas straight", () => {
    const failover = nodeFailoverOf(url)!.failover;
    const options = createDataSourceOptions(url, [], ['mysql://r:pw@replica-1:3306/animal_store']) as {
      replication: { master: { url: string }; slaves: Array<{ url: string }> };
      extra: { stream: unknown };
    };
    expect(options.replication.master.url).toBe('mysql://store:pw@db1:3306/animal_store');
    expect(options.replication.slaves).toEqual([{ url: 'mysql://r:pw@replica-1:3306/animal_store' }]);
    expect(options.extra.stream).toBe(failover.stream);
    expect(nodeFailoverOf(url.replace(/^mariadb:/, 'mysql:'))!.failover).toBe(failover);
    expect(failover.nodes).toEqual([
      { host: 'db1', port: 3306 },
      { host: 'db2', port: 3306 },
      { host: 'db3', port: 3306 },
    ]);
  });

  it('leaves a URL of one host as it was, with no stream', () => {
    const options = createDataSourceOptions('mysql://u:p@db:3306/store') as { url: string; extra: object };
    expect(options.url).toBe('mysql://u:p@db:3306/store');
    expect(options.extra).not.toHaveProperty('stream');
    expect(nodeFailoverOf('mysql://u:p@db:3306/store')).toBeUndefined();
  });
});
