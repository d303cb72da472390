import { SqliteStatementGate } from './sqlite-statement-gate';

/** Lets every callback already due run: pending promise reactions, then one check phase. */
const nextCheckPhase = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('SqliteStatementGate', () => {
  it('lets a free statement run in the check phase, not in the turn that sent it', async () => {
    const gate = new SqliteStatementGate();
    let entered = false;
    void gate.beforeQuery().then(() => (entered = true));
    await Promise.resolve();
    expect(entered).toBe(false);
    await nextCheckPhase();
    expect(entered).toBe(true);
  });

  it('counts a statement waiting for the check phase as under way, so a unit of work waits for it', async () => {
    const gate = new SqliteStatementGate();
    const unit = {};
    const order: string[] = [];
    const statement = gate.beforeQuery().then(() => order.push('statement'));
    const held = gate.hold({ unit, unitInProgress: () => undefined }).then(() => order.push('unit holds'));
    await statement;
    gate.afterQuery();
    await held;
    expect(order).toEqual(['statement', 'unit holds']);
    gate.release(unit);
  });

  it('runs the statements of the unit that holds the connection at once', async () => {
    const gate = new SqliteStatementGate();
    const unit = {};
    await gate.hold({ unit, unitInProgress: () => unit });
    let entered = false;
    void gate.beforeQuery().then(() => (entered = true));
    await Promise.resolve();
    expect(entered).toBe(true);
    gate.release(unit);
  });

  it('has the first statement of a unit that has not begun begin it, and wait until it has', async () => {
    const gate = new SqliteStatementGate();
    let begin!: () => void;
    const begun = new Promise<void>((resolve) => (begin = resolve));
    const unit = { begin: jest.fn(() => begun) };
    gate.beginUnitsWith(() => unit);
    let entered = false;
    const statement = gate.beforeQuery().then(() => (entered = true));
    await nextCheckPhase();
    expect({ entered, begins: unit.begin.mock.calls.length }).toEqual({ entered: false, begins: 1 });
    begin();
    await statement;
    expect(entered).toBe(true);
  });
});
