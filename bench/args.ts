export interface BenchArgs {
  /** Benchmark names to run; empty means all. */
  only: string[];
  quick: boolean;
  /** Report directory. */
  out: string;
}

/** `--only a,b` (repeatable), `--quick`, `--out DIR`. Throws on anything else, naming it. */
export function parseBenchArgs(argv: readonly string[], known: readonly string[], defaultOut: string): BenchArgs {
  const args: BenchArgs = { only: [], quick: false, out: defaultOut };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') args.quick = true;
    else if (a === '--only' || a === '--out') {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${a} needs a value`);
      if (a === '--out') args.out = v;
      else args.only.push(...v.split(',').filter(Boolean));
    } else throw new Error(`unknown argument ${a}; usage: run-all [--quick] [--only ${known.join('|')}] [--out DIR]`);
  }
  const unknown = args.only.filter((n) => !known.includes(n));
  if (unknown.length) throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${known.join(', ')}`);
  return args;
}
