import { Writable } from 'node:stream';
import { loadConfig } from '../config/app-config';
import { chooseLogFormat, createRootLogger } from './logging';

describe('chooseLogFormat', () => {
  it.each([
    [undefined, 'development', true, 'pretty'],
    [undefined, 'development', false, 'json'],
    [undefined, 'production', true, 'json'],
    [undefined, 'test', true, 'json'],
    [undefined, 'staging', true, 'json'],
    ['json', 'development', true, 'json'],
    ['pretty', 'production', false, 'pretty'],
  ] as const)('LOG_FORMAT %p in %s, terminal %p: %s', (format, appEnv, isTerminal, expected) => {
    expect(chooseLogFormat(format, appEnv, isTerminal)).toBe(expected);
  });
});

describe('createRootLogger', () => {
  const written: string[] = [];
  let destination: Writable;
  beforeEach(() => {
    written.length = 0;
    destination = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        written.push(chunk.toString());
        done();
      },
    });
  });

  it('writes one JSON object per line in production, even on a terminal', () => {
    const logger = createRootLogger(loadConfig({ APP_ENV: 'production', ALLOW_SQLITE_IN_PRODUCTION: 'true', PUBLIC_BASE_URL: 'https://api.example.com/v1' }), destination, true);
    logger.info({ requestId: 'r-1', status: 200 }, 'request completed');
    expect(written).toHaveLength(1);
    expect(JSON.parse(written[0])).toMatchObject({ level: 'info', requestId: 'r-1', status: 200, msg: 'request completed' });
  });

  it('writes readable lines in development on a terminal, still censoring secrets', () => {
    const logger = createRootLogger(loadConfig({ APP_ENV: 'development' }), destination, true);
    logger.warn({ context: 'Database', apiKey: 'ask_test_secret' }, 'replica-1 is out of reads');
    const text = written.join('').replace(/\x1b\[[0-9;]*m/g, '');
    expect(text).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] WARN: \[Database\] replica-1 is out of reads/);
    expect(text).not.toContain('ask_test_secret');
    expect(() => JSON.parse(written[0])).toThrow();
  });

  it('writes readable lines without colour when LOG_FORMAT=pretty sends them to a pipe', () => {
    const logger = createRootLogger(loadConfig({ LOG_FORMAT: 'pretty' }), destination, false);
    logger.info('ready');
    expect(written.join('')).toMatch(/^\[[\d:.]+\] INFO: ready\n$/);
  });
});
