import { readFileSync } from 'node:fs';
import { createServer, Server } from 'node:net';
import { freePort } from './ports';

const ephemeralStart = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const close = (server: Server) => new Promise((resolve) => server.close(resolve));

describe('freePort', () => {
  afterEach(() => jest.restoreAllMocks());

  it('hands out a port below the ephemeral range that a server can bind', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(10_000);
    expect(port).toBeLessThan(ephemeralStart);
    await close(await listen(port));
  });

  it('checks the offset ports too, so a node and its bus port both bind', async () => {
    const port = await freePort({ alsoFree: [10_000] });
    expect(port + 10_000).toBeLessThan(ephemeralStart);
    const servers = await Promise.all([listen(port), listen(port + 10_000)]);
    await Promise.all(servers.map(close));
  });

  it('keeps the offset port below the ephemeral range even at the top of the draw', async () => {
    jest.spyOn(Math, 'random').mockReturnValueOnce(0.999_999);
    const port = await freePort({ alsoFree: [10_000] });
    expect(port + 10_000).toBeLessThan(ephemeralStart);
  });

  it('skips a port whose offset port another process is listening on', async () => {
    const busyBus = await listen(20_000).catch(() => undefined);
    try {
      const random = jest.spyOn(Math, 'random').mockReturnValueOnce(0).mockReturnValueOnce(0.5);
      const port = await freePort({ alsoFree: [10_000] });
      expect(port).not.toBe(10_000);
      expect(random.mock.calls.length).toBeGreaterThanOrEqual(2);
    } finally {
      if (busyBus) await close(busyBus);
    }
  });

  it('never hands out a port already promised to another server', async () => {
    // The first draw lands on the lowest port, which is taken; the next must be drawn instead.
    const random = jest.spyOn(Math, 'random').mockReturnValueOnce(0).mockReturnValueOnce(0.5);
    const port = await freePort({ taken: new Set([10_000]) });
    expect(port).not.toBe(10_000);
    expect(random.mock.calls.length).toBeGreaterThanOrEqual(2);
  });

  it('skips a port another process is listening on', async () => {
    const busy = await listen(10_000).catch(() => undefined);
    try {
      const random = jest.spyOn(Math, 'random').mockReturnValueOnce(0).mockReturnValueOnce(0.5);
      const port = await freePort();
      expect(port).not.toBe(10_000);
      expect(random.mock.calls.length).toBeGreaterThanOrEqual(2);
    } finally {
      if (busy) await close(busy);
    }
  });
});
