import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { SkipThrottle, Throttle } from '@nestjs/throttler';
import { RouteReflector } from './route-reflector';

const Flag = Reflector.createDecorator<string>();

@SetMetadata('scope', 'class')
@SkipThrottle({ day: true })
class SampleController {
  @SetMetadata('scope', 'handler')
  @Flag('on')
  @Throttle({ minute: { limit: 5, ttl: 60_000 } })
  decorated(): void {}

  plain(): void {}
}

const { decorated, plain } = SampleController.prototype;

describe('RouteReflector', () => {
  const reference = new Reflector();

  it.each([
    ['a key on the handler', 'scope', decorated],
    ['a key on the class', 'scope', SampleController],
    ['a key absent from the target', 'scope', plain],
    ["a key set through the throttler's decorators", 'THROTTLER:LIMITminute', decorated],
  ])('answers %s as Reflector does, the first time and every time after', (_case, key, target) => {
    const reflector = new RouteReflector();
    const expected: unknown = reference.get(key, target);
    expect(reflector.get(key, target)).toEqual(expected);
    expect(reflector.get(key, target)).toEqual(expected);
  });

  it('answers the combined reads guards use, including a decorator made by Reflector.createDecorator', () => {
    const reflector = new RouteReflector();
    for (let i = 0; i < 2; i++) {
      expect(reflector.getAllAndOverride('scope', [decorated, SampleController])).toBe('handler');
      expect(reflector.getAllAndOverride('scope', [plain, SampleController])).toBe('class');
      expect(reflector.getAllAndOverride('THROTTLER:SKIPday', [plain, SampleController])).toBe(true);
      expect(reflector.getAllAndOverride('THROTTLER:SKIPminute', [plain, SampleController])).toBeUndefined();
      expect(reflector.getAll('scope', [decorated, plain])).toEqual(['handler', undefined]);
      expect(reflector.get(Flag, decorated)).toBe('on');
      expect(reflector.get(Flag, plain)).toBeUndefined();
    }
  });

  it('combines a handler another controller inherits with that controller, not with the first one asked', () => {
    @SetMetadata('scope', 'child class')
    class ChildController extends SampleController {}
    const reflector = new RouteReflector();
    expect(reflector.getAllAndOverride('scope', [plain, SampleController])).toBe('class');
    expect(reflector.getAllAndOverride('scope', [plain, ChildController])).toBe('child class');
    expect(reflector.getAllAndOverride('scope', [plain, SampleController])).toBe('class');
  });
});
