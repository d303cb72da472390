import { addDays, usageDayOf, usageOutcomeOf } from './usage';

describe('usage outcomes and days', () => {
  it.each([
    [200, 'success'],
    [201, 'success'],
    [204, 'success'],
    [304, 'notModified'],
    [400, 'clientError'],
    [401, 'clientError'],
    [404, 'clientError'],
    [429, 'rateLimited'],
    [500, 'serverError'],
    [503, 'serverError'],
  ])('counts a %i as %s', (status, outcome) => {
    expect(usageOutcomeOf(status)).toBe(outcome);
  });

  it('names UTC days and steps across months and years', () => {
    expect(usageDayOf(Date.UTC(2030, 0, 1, 23, 59, 59, 999))).toBe('2030-01-01');
    expect(usageDayOf(Date.UTC(2030, 0, 2))).toBe('2030-01-02');
    expect(addDays('2030-01-01', -1)).toBe('2029-12-31');
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2030-03-01', -89)).toBe('2029-12-02');
  });
});
