import { CpuProfile, frameOwner, selfTimeByOwner, topSelfTime } from './cpu-profile';

const frame = (id: number, functionName: string, url: string, lineNumber = 0) => ({ id, callFrame: { functionName, url, lineNumber } });

const profile: CpuProfile = {
  nodes: [
    frame(1, '(root)', ''),
    frame(2, 'handle', 'file:///app/node_modules/@nestjs/core/router/router-proxy.js', 9),
    frame(3, 'validate', 'file:///app/node_modules/class-validator/cjs/validation/ValidationExecutor.js', 41),
    frame(4, 'findPage', 'file:///app/dist/pets/infrastructure/typeorm-pet.repository.js', 27),
    frame(5, 'validate', 'file:///app/node_modules/class-validator/cjs/validation/ValidationExecutor.js', 41),
  ],
  samples: [2, 3, 3, 4, 5, 1],
  timeDeltas: [1000, 2000, 3000, 1000, 2000, 1000],
};

describe('topSelfTime', () => {
  it('sums the samples of one function wherever it was called from, largest first', () => {
    expect(topSelfTime(profile, 2)).toEqual([
      { name: 'validate class-validator:42', ms: 7, share: 0.7 },
      { name: 'handle @nestjs/core:10', ms: 1, share: 0.1 },
    ]);
  });
});

describe('selfTimeByOwner', () => {
  it('groups self time by package or by our own file', () => {
    expect(selfTimeByOwner(profile).map((entry) => [entry.name, entry.ms])).toEqual([
      ['class-validator', 7],
      ['@nestjs/core', 1],
      ['dist/pets/infrastructure/typeorm-pet.repository.js', 1],
      ['(root)', 1],
    ]);
  });
});

describe('frameOwner', () => {
  it('names node built-ins and native frames', () => {
    expect(frameOwner('node:internal/http')).toBe('node');
    expect(frameOwner('')).toBe('(native)');
  });
});
