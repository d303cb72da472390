import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isCi } from '../support/local-services';

const ROOT = join(__dirname, '..', '..');
const NODES = ['galera1', 'galera2', 'galera3'];

function hasDockerCompose(): boolean {
  if (!spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).error) return true;
  if (isCi()) throw new Error('docker-compose is not installed: CI needs it (apt-get install -y docker-compose), failing the run.');
  process.stderr.write('\n!!!!!!!! docker-compose is not installed: the check of docker-compose.galera.yml is SKIPPED. !!!!!!!!\n\n');
  return false;
}

/** `docker-compose config` of the Galera stack, split into each service's resolved text. */
function resolvedServices(): Map<string, string> {
  const result = spawnSync('docker-compose', ['-f', 'docker-compose.yml', '-f', 'docker-compose.galera.yml', 'config'], { cwd: ROOT, encoding: 'utf8' });
  expect({ status: result.status, stderr: result.stderr.trim() }).toEqual({ status: 0, stderr: '' });
  const afterHeading = result.stdout.slice(result.stdout.indexOf('services:\n') + 'services:\n'.length);
  const nextTopLevelKey = afterHeading.search(/^\S/m);
  const services = nextTopLevelKey === -1 ? afterHeading : afterHeading.slice(0, nextTopLevelKey);
  return new Map(services.split(/^(?=  [a-z0-9-]+:$)/m).map((block) => [/^  ([a-z0-9-]+):$/m.exec(block)![1], block]));
}

/** The options of an option file, `[group]` by `[group]`, with `-` and `_` in names alike. */
function optionFile(path: string): Map<string, Map<string, string>> {
  const groups = new Map<string, Map<string, string>>();
  let group = new Map<string, string>();
  for (const line of readFileSync(join(ROOT, path), 'utf8').split('\n')) {
    const heading = /^\[([^\]]+)\]$/.exec(line.trim());
    const option = /^([a-z_-]+)\s*=\s*(.*)$/i.exec(line.trim());
    if (heading) {
      group = groups.get(heading[1]) ?? new Map<string, string>();
      groups.set(heading[1], group);
    } else if (option) {
      group.set(option[1].replace(/-/g, '_'), option[2]);
    }
  }
  return groups;
}

const describeWithCompose = hasDockerCompose() ? describe : describe.skip;

describeWithCompose('docker-compose.galera.yml over docker-compose.yml', () => {
  let services: Map<string, string>;
  beforeAll(() => {
    services = resolvedServices();
  });

  it('runs three Galera nodes built from deploy/galera in place of the primary and its replica', () => {
    for (const node of NODES) {
      expect(services.get(node)).toMatch(/^    image: animal-store\/galera:10\.11$/m);
      expect(services.get(node)).toMatch(/^    build:\n      context: .*\/deploy\/galera$/m);
    }
    for (const replaced of ['mariadb', 'mariadb-replica']) expect(services.get(replaced)).toMatch(/^    deploy:\n      replicas: 0$/m);
  });

  it('points both app replicas at HAProxy alone, with no asynchronous replica, once the proxy has started', () => {
    for (const app of ['app1', 'app2']) {
      const service = services.get(app)!;
      expect(service).toMatch(/^      DATABASE_URL: mysql:\/\/animal:animal@galera-proxy:3306\/animal_store$/m);
      expect(service).toMatch(/^      DATABASE_REPLICA_URLS: null$/m);
      expect(service).toMatch(/^      galera-proxy:\n        condition: service_started$/m);
    }
  });

  it('starts HAProxy built from deploy/galera-proxy in front of the three nodes once they are healthy', () => {
    const proxy = services.get('galera-proxy')!;
    expect(proxy).toMatch(/^    build:\n      context: .*\/deploy\/galera-proxy$/m);
    for (const [index, node] of NODES.entries()) {
      expect(proxy).toMatch(new RegExp(`^      GALERA_NODE_${index + 1}: ${node}:3306$`, 'm'));
      expect(proxy).toMatch(new RegExp(`^      ${node}:\\n        condition: service_healthy$`, 'm'));
    }
  });

  it('sends every connection to galera1, else to the first Synced backup, checked each second, and closes a lost node\'s connections', () => {
    const config = readFileSync(join(ROOT, 'deploy/galera-proxy/haproxy.cfg'), 'utf8');
    const servers = [...config.matchAll(/^\s*server (\S+) "\$\{(\S+)\}" (.*)$/gm)].map(([, name, address, options]) => ({ name, address, options }));
    expect(servers).toEqual([
      { name: 'galera1', address: 'GALERA_NODE_1', options: 'check' },
      { name: 'galera2', address: 'GALERA_NODE_2', options: 'check backup' },
      { name: 'galera3', address: 'GALERA_NODE_3', options: 'check backup' },
    ]);
    expect(config).toMatch(/^\s*default-server inter 1s fall 2 rise 2 on-marked-down shutdown-sessions on-marked-up shutdown-backup-sessions /m);
    for (const line of ['external-check', 'insecure-fork-wanted', 'option external-check', 'external-check command "${GALERA_NODE_CHECK}"']) {
      expect(config.split('\n').map((text) => text.trim())).toContain(line);
    }
    // The check passes on a Synced (4), ready node only, never waiting for the cluster.
    const check = readFileSync(join(ROOT, 'deploy/galera-proxy/galera-node-check.sh'), 'utf8');
    expect(check).toMatch(/WSREP_LOCAL_STATE'/);
    expect(check).toMatch(/WSREP_READY'/);
    expect(check).toMatch(/wsrep_sync_wait = 0/);
    expect(check).toContain(`[ "$state" = "$(printf '4\\tON')" ]`);
  });

  it('bootstraps from galera1 alone, and joins the others one at a time, each once the node before it is healthy', () => {
    expect(services.get('galera1')).toMatch(/^      GALERA_BOOTSTRAP: "yes"$/m);
    expect(services.get('galera1')).toMatch(/deploy\/galera\/cluster-init\.sql:\/docker-entrypoint-initdb\.d\//);
    // Two joiners at once can leave one without a donor, so galera3 waits for galera2.
    for (const [joiner, before] of [['galera2', 'galera1'], ['galera3', 'galera2']]) {
      expect(services.get(joiner)).not.toMatch(/GALERA_BOOTSTRAP|MARIADB_USER|initdb/);
      expect(services.get(joiner)).toMatch(new RegExp(`^    depends_on:\\n      ${before}:\\n        condition: service_healthy$`, 'm'));
    }
  });

  it('gives each node the shared options and an option file of its own that names it, and a health check on Synced', () => {
    for (const node of NODES) {
      const service = services.get(node)!;
      expect(service).toMatch(/deploy\/galera\/cluster\.cnf:\/etc\/mysql\/conf\.d\/cluster\.cnf:ro$/m);
      expect(service).toMatch(new RegExp(`deploy/galera/${node}\\.cnf:/etc/mysql/conf\\.d/node\\.cnf:ro$`, 'm'));
      expect(service).toMatch(new RegExp(`^    - ${node}-data:/var/lib/mysql:rw$`, 'm'));
      expect(service).toMatch(/^      - galera-healthcheck\.sh$/m);
      expect(optionFile(`deploy/galera/${node}.cnf`).get('galera')?.get('wsrep_node_name')).toBe(node);
    }
    const cluster = optionFile('deploy/galera/cluster.cnf').get('galera')!;
    expect(Object.fromEntries(['wsrep_on', 'wsrep_cluster_address', 'wsrep_sst_method', 'binlog_format', 'innodb_autoinc_lock_mode', 'wsrep_sync_wait'].map((name) => [name, cluster.get(name)]))).toEqual({
      wsrep_on: 'ON',
      wsrep_cluster_address: `gcomm://${NODES.join(',')}`,
      wsrep_sst_method: 'mariabackup',
      binlog_format: 'ROW',
      innodb_autoinc_lock_mode: '2',
      wsrep_sync_wait: '1',
    });
  });

  it('publishes nginx alone, on the loopback address', () => {
    const published = [...services].map(([name, service]) => [name, /^    ports:\n((?:    - .*\n)+)/m.exec(service)?.[1].trim()]).filter(([, ports]) => ports !== undefined);
    expect(published).toEqual([['proxy', '- 127.0.0.1:3000:8080/tcp']]);
  });
});
