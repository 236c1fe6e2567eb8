/** How a cell's status or a harness edit's result reads at a glance: good, bad, or worth a look. */
export type Outcome = 'good' | 'bad' | 'warn';

const OUTCOMES: Record<string, Outcome> = {
  ok: 'good', applied: 'good',
  error: 'bad', timeout: 'bad', refused: 'bad',
  interrupted: 'warn', proposed: 'warn',
};

export function outcomeOf(value: string): Outcome {
  return OUTCOMES[value] ?? 'warn';
}
