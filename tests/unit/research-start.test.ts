import { join } from 'node:path';
import { researchStart } from '../../services/research/research-spec';
import { readTask } from '../../services/research/tasks';

const task = readTask('nqm-speedrun')!;

describe('a research session\'s start (its tier\'s papers and network)', () => {
  it('starts against the last record the feed releases at the start, with the judge\'s numbers', () => {
    const { spec } = researchStart(task, 'weights-only', undefined);
    expect(spec).toEqual({ task: 'nqm-speedrun', knowledge: 'weights-only', problem: 'small', record: { id: 'r0-baseline', steps: 1003, mean: expect.any(Number), n: 8 }, releases: expect.any(Array) });
    expect(spec.record.mean).toBeCloseTo(3.27519, 5);
  });

  it('carries the records the feed releases later, in release order, for the session to release on its clock', () => {
    const { releases } = researchStart(task, 'weights-only', undefined).spec;
    expect(releases!.map((r) => [r.id, r.afterSeconds, r.steps])).toEqual([['r1-nesterov', 21600, 992], ['r2-tail-ema', 86400, 678], ['r3-ema-stack', 172800, 615]]);
    expect(JSON.parse(releases![0].config)).toMatchObject({ nesterov: true, schedule: 'cosine' });
    expect(releases![0]).toMatchObject({ n: 8, mean: expect.any(Number), note: expect.stringContaining('Nesterov') });
  });

  it('mounts the host\'s archive on the tiers that have one, hides it on the one that does not, and reaches no network without it', () => {
    expect(researchStart(task, 'weights-only', undefined)).toMatchObject({ net: 'none', knowledge: { tier: 'weights-only', papers: null } });
    expect(researchStart(task, 'archive', 'none')).toMatchObject({ net: 'none', knowledge: { tier: 'archive', papers: join(task.dir, 'papers') } });
    expect(researchStart(task, 'full', 'allow:Papers.example.org:443')).toMatchObject({ net: 'allow:papers.example.org:443', knowledge: { tier: 'full', papers: join(task.dir, 'papers') } });
  });

  it('refuses what the tier does not allow rather than narrowing it', () => {
    expect(() => researchStart(task, 'weights-only', 'full')).toThrow('the weights-only tier has no network: drop --net full');
    expect(() => researchStart(task, 'archive', 'allow:example.org')).toThrow('the archive tier has no network');
    expect(() => researchStart(task, 'full', undefined)).toThrow('the full tier reaches only the hosts it is given: pass --net allow:HOST[:PORT],…');
    expect(() => researchStart(task, 'full', 'full')).toThrow('pass --net allow:');
    expect(() => researchStart(task, 'full', 'allow:bad host')).toThrow(/^net: /);
    expect(() => researchStart(task, 'everything', undefined)).toThrow('unknown knowledge tier "everything"; nqm-speedrun has weights-only, archive, full');
  });
});
