import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ArgsError, parseArgs, USAGE } from './args';

describe('parseArgs', () => {
  it('gives the documented defaults', () => {
    expect(parseArgs([])).toEqual({
      store: 'sqlite',
      pets: 100_000,
      duration: 10,
      warmup: 2,
      connections: 50,
      rounds: 3,
      slices: 5,
      port: 3200,
      scale: false,
      scenarios: ['list-first', 'list-deep', 'get', 'create', 'order'],
      floor: undefined,
      against: undefined,
      profile: undefined,
      help: false,
    });
  });

  it('reads both --flag value and --flag=value', () => {
    expect(parseArgs(['--store', 'mysql', '--pets=5000', '--duration', '3', '--connections=10', '--rounds', '5'])).toMatchObject({
      store: 'mysql',
      pets: 5000,
      duration: 3,
      connections: 10,
      rounds: 5,
    });
  });

  it('cuts each scenario into at most one stretch per second of --duration', () => {
    expect(parseArgs(['--slices', '2']).slices).toBe(2);
    expect(parseArgs(['--duration', '3']).slices).toBe(3);
    expect(parseArgs(['--duration', '4', '--slices', '4']).slices).toBe(4);
  });

  it('narrows the comparison to the scenarios named', () => {
    expect(parseArgs(['--scenarios', 'create,get']).scenarios).toEqual(['create', 'get']);
  });

  it('takes a scenario to profile', () => {
    expect(parseArgs(['--profile', 'create', '--store', 'mysql'])).toMatchObject({ profile: 'create', store: 'mysql' });
  });

  it('puts the library floor in the service\'s place, with NestJS alone, every card part or the parts named', () => {
    expect(parseArgs(['--floor', 'nest']).floor).toEqual([]);
    expect(parseArgs(['--floor', 'card']).floor).toEqual(['typeorm', 'throttler', 'validation', 'interceptors']);
    expect(parseArgs(['--floor=typeorm,throttler', '--scenarios', 'get']).floor).toEqual(['typeorm', 'throttler']);
    expect(parseArgs(['--floor', 'validation']).floor).toEqual(['validation']);
    expect(parseArgs(['--floor', 'interceptors,validation']).floor).toEqual(['interceptors', 'validation']);
  });

  it('puts the library floor in the baseline\'s place with --against, the service staying on its side', () => {
    expect(parseArgs(['--against', 'card'])).toMatchObject({ against: ['typeorm', 'throttler', 'validation', 'interceptors'], floor: undefined });
    expect(parseArgs(['--against=typeorm', '--store', 'mysql', '--scenarios', 'get,create'])).toMatchObject({ against: ['typeorm'], store: 'mysql' });
  });

  it('runs the scale run on MySQL with a million pets unless told otherwise', () => {
    expect(parseArgs(['--scale'])).toMatchObject({ scale: true, store: 'mysql', pets: 1_000_000 });
    expect(parseArgs(['--scale', '--pets', '10000000'])).toMatchObject({ scale: true, pets: 10_000_000 });
  });

  it.each([
    [['--colour'], 'unknown argument "--colour" (see --help)'],
    [['stray'], 'unknown argument "stray" (see --help)'],
    [['--store', 'postgres'], '--store must be sqlite or mysql, got "postgres"'],
    [['--pets', '12x'], '--pets needs an integer from 1000 to 100,000,000, got "12x"'],
    [['--pets', '10'], '--pets needs an integer from 1000 to 100,000,000, got "10"'],
    [['--duration'], '--duration needs an integer from 1 to 3,600, got nothing'],
    [['--duration', '--rounds', '2'], '--duration needs an integer from 1 to 3,600, got nothing'],
    [['--connections', '0'], '--connections needs an integer from 1 to 10,000, got "0"'],
    [['--rounds', '1.5'], '--rounds needs an integer from 1 to 100, got "1.5"'],
    [['--rounds', '2', '--rounds', '3'], '--rounds is given twice'],
    [['--scale=yes'], '--scale takes no value'],
    [['--slices', '0'], '--slices needs an integer from 1 to 100, got "0"'],
    [['--duration', '4', '--slices', '8'], '--slices 8 would cut 4 s into stretches under a second: use at most 4'],
    [['--scale', '--store', 'sqlite'], '--scale runs on MySQL only: drop --store sqlite'],
    [['--scale', '--pets', '1000'], '--pets must be above 1000 for --scale'],
    [['--profile', 'everything'], '--profile needs one of list-first, list-deep, get, create, create-idempotent, order, got "everything"'],
    [['--scenarios', 'get,delete'], '--scenarios takes names from list-first,list-deep,get,create,create-idempotent,order, got "delete"'],
    [['--scenarios'], '--scenarios takes names from list-first,list-deep,get,create,create-idempotent,order, got ""'],
    [['--profile'], '--profile needs one of list-first, list-deep, get, create, create-idempotent, order, got nothing'],
    [['--scale', '--profile', 'get'], '--profile and --scale do not go together'],
    [['--floor', 'typeorm,prisma'], '--floor takes nest, card or a comma list of typeorm,throttler,validation,interceptors, got "prisma"'],
    [['--floor'], '--floor takes nest, card or a comma list of typeorm,throttler,validation,interceptors, got ""'],
    [['--floor', 'card,typeorm'], '--floor takes nest, card or a comma list of typeorm,throttler,validation,interceptors, got "card"'],
    [['--scale', '--floor', 'nest'], '--floor and --scale do not go together'],
    [['--against', 'prisma'], '--against takes nest, card or a comma list of typeorm,throttler,validation,interceptors, got "prisma"'],
    [['--against', 'card', '--floor', 'card'], '--against and --floor do not go together'],
    [['--against', 'card', '--profile', 'get'], '--against and --profile do not go together'],
    [['--store', 'mysql', '--against', 'card', '--scale'], '--against and --scale do not go together'],
    [['--against', 'card', '--scenarios', 'create,create-idempotent'], "--against does not run create-idempotent: its target is the baseline's own keyed share, so run it without --against"],
  ])('rejects %j with one clear line', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(new ArgsError(message));
  });

  it('lists every flag in the help', () => {
    for (const flag of ['--scenarios', '--profile', '--floor', '--against', '--store', '--pets', '--duration', '--warmup', '--connections', '--rounds', '--slices', '--port', '--scale', '--help']) {
      expect(USAGE).toContain(flag);
    }
  });
});

describe('npm run bench with a bad command line', () => {
  const run = (...argv: string[]) =>
    spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', join(__dirname, 'run.ts'), ...argv], { encoding: 'utf8' });

  it('prints one line on stderr and exits non-zero before doing anything', () => {
    const result = run('--connections', 'many');
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('bench: --connections needs an integer from 1 to 10,000, got "many"\n');
    expect(result.stdout).toBe('');
  });

  it('prints the flags for --help and exits 0', () => {
    const result = run('--help');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`${USAGE}\n`);
  });
});
