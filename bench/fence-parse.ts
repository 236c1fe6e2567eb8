import { extractFencedPython } from '../activities/model/extract-code';
import { size, type Benchmark } from './benchmark';
import { compare } from './report';

/** Unclosed fences, the input that made the old single-regex parser quadratic. */
const hostile = (bytes: number): string => '```python\nx = 1\n'.repeat(Math.ceil(bytes / 16));

function timesMs(text: string, runs: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    extractFencedPython(text);
    out.push(performance.now() - t0);
  }
  return out;
}

/** Parse time at 2n against n bytes: about 2 for a linear parser, about 4 for a quadratic one. */
export const fenceParse: Benchmark = {
  name: 'fence-parse',
  async run(ctx) {
    const n = size(ctx, 4 * 1024 * 1024, 256 * 1024);
    const runs = size(ctx, 15, 3);
    const small = timesMs(hostile(n), runs);
    const large = timesMs(hostile(2 * n), runs);
    return [compare({
      name: 'fence-parse/doubling', title: `Code-fence parse of ${(2 * n) / 2 ** 20} MiB of unclosed fences against ${n / 2 ** 20} MiB`, unit: 'ms', better: 'lower',
      subject: { label: `${(2 * n) / 2 ** 20} MiB`, samples: large },
      baseline: { label: `${n / 2 ** 20} MiB`, samples: small },
      limits: 'in-process, no stack involved; a ratio near 2 is linear time, near 4 quadratic',
      details: { bytes: n, runs },
    })];
  },
};
