import { waitFor } from './wait-for';

describe('waitFor', () => {
  it('resolves once the condition holds, polling through refusals', async () => {
    let calls = 0;
    await waitFor(async () => {
      calls += 1;
      if (calls === 1) throw new Error('connection refused');
      return calls === 3;
    }, 'the third call');
    expect(calls).toBe(3);
  });

  it('rejects naming what it waited for when the condition never holds', async () => {
    await expect(waitFor(async () => false, 'a server that never starts', 300)).rejects.toThrow(
      'Timed out waiting for a server that never starts',
    );
  });
});
