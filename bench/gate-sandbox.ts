import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gateLauncher } from '../activities/jobs/job-launch';
import { createGateActivities } from '../activities/run-gate';
import { loadConfig, type RecurConfig } from '../config';
import { stackPaths } from '../config/home-paths';
import { repoRoot } from '../services/home/repo-root';
import { sandboxRecord } from '../services/sandbox';
import { size, type Benchmark } from './benchmark';
import { compare } from './report';
import { summarize } from './stats';

const KEY = 'b'.repeat(32);
const MODULES = 20;
const TESTS_PER_MODULE = 6;

const PACKAGE: Record<string, string> = {
  '__init__.py': '',
  'items.py': `import csv, io, json
from dataclasses import asdict, dataclass
from decimal import Decimal


@dataclass(frozen=True)
class Item:
    sku: str
    name: str
    qty: int
    price: Decimal


def parse_items(text):
    return [Item(r["sku"], r["name"], int(r["qty"]), Decimal(r["price"])) for r in csv.DictReader(io.StringIO(text))]


def to_json(items):
    return json.dumps([{**asdict(i), "price": str(i.price)} for i in items], sort_keys=True)


def from_json(text):
    return [Item(d["sku"], d["name"], d["qty"], Decimal(d["price"])) for d in json.loads(text)]
`,
  'pricing.py': `from decimal import ROUND_HALF_EVEN, Decimal


def total(items):
    return sum((i.price * i.qty for i in items), Decimal(0))


def discount(amount, percent):
    return (amount * (100 - Decimal(percent)) / 100).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
`,
  'report.py': `import re
import statistics


def slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def summary(items):
    qtys = [i.qty for i in items]
    return {"count": len(items), "median_qty": statistics.median(qtys), "skus": sorted(slug(i.name) for i in items)}
`,
};

/** One test module of the fixture: each parses, prices and round-trips its own inventory of `rows` lines. */
const testModule = (n: number, rows: number) => `import os
import tempfile
import unittest
from decimal import Decimal

from inventory import items, pricing, report

ROWS = "sku,name,qty,price\\n" + "".join(f"S{k},Item {k} of ${n},{k % 7 + 1},{k}.25\\n" for k in range(${rows}))


class Inventory${n}Test(unittest.TestCase):
    def setUp(self):
        self.items = items.parse_items(ROWS)

    def test_parse(self):
        self.assertEqual(len(self.items), ${rows})

    def test_total(self):
        self.assertEqual(pricing.total(self.items), sum(Decimal(f"{k}.25") * (k % 7 + 1) for k in range(${rows})))

    def test_discount(self):
        for pct in range(0, 100, 5):
            with self.subTest(pct=pct):
                self.assertLessEqual(pricing.discount(pricing.total(self.items), pct), pricing.total(self.items))

    def test_json_round_trip(self):
        self.assertEqual(items.from_json(items.to_json(self.items)), self.items)

    def test_file_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "inventory.json")
            with open(path, "w") as f:
                f.write(items.to_json(self.items))
            with open(path) as f:
                self.assertEqual(items.from_json(f.read()), self.items)

    def test_summary(self):
        s = report.summary(self.items)
        self.assertEqual(s["count"], ${rows})
        self.assertTrue(all(x.startswith("item-") for x in s["skus"]))
`;

/** A small Python project as an agent's workspace holds one: a package, its unittest modules, a git checkout. */
function makeProject(ws: string): void {
  mkdirSync(join(ws, 'inventory'), { recursive: true });
  mkdirSync(join(ws, 'tests'));
  for (const [name, text] of Object.entries(PACKAGE)) writeFileSync(join(ws, 'inventory', name), text);
  writeFileSync(join(ws, 'tests', '__init__.py'), '');
  for (let n = 0; n < MODULES; n++) writeFileSync(join(ws, 'tests', `test_inventory_${n}.py`), testModule(n, 100 + 40 * n));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=b@b', '-c', 'user.name=b', ...args], { cwd: ws, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'fixture');
}

/**
 * CPU milliseconds of the gate's own processes, from bash's `times` after it: load-independent,
 * unlike wall time on a busy machine. Read inside the gate: a sandboxed gate's processes never
 * reach the worker's count of its reaped children.
 */
function gateCpuMs(output: string): number {
  const m = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(output);
  if (!m) throw new Error(`no \`times\` line at the end of ${output.slice(-200)}`);
  return (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000;
}

/** The policy a session's kernel host writes (services/sandbox/kernel-host.ts), laid out by hand: no worker, no bridge. */
function writePolicy(root: string, ws: string, config: RecurConfig): void {
  const dir = join(root, KEY);
  const limits = sandboxRecord(config.sandbox);
  const policy = {
    workspace: ws, group: ws, shared: [], zmq: join(dir, 'zmq'), bridge: join(dir, 'bridge'), spool: join(dir, 'spool'),
    restore: join(dir, 'restore'), skills: join(dir, 'skills'), kernelPackage: join(repoRoot(), 'kernel', 'recur_kernel'),
    limits: { memoryBytes: limits.memoryBytes, processes: limits.processes, openFiles: limits.openFiles, fileBytes: limits.fileBytes },
    net: limits.net,
  };
  for (const d of [policy.bridge, policy.restore, policy.skills]) {
    mkdirSync(d, { recursive: true });
    chmodSync(d, 0o755);
  }
  writeFileSync(join(dir, 'policy.json'), JSON.stringify(policy));
}

/**
 * The same quality gate through the real gate activity and launcher, in the session's bubblewrap
 * sandbox and on the host, alternated in one run; an empty gate (`true`) each way is the
 * sandbox's own start for a gate, which the target (≤ 1.1× the host) leaves out.
 */
export const gateSandbox: Benchmark = {
  name: 'gate-sandbox',
  async run(ctx) {
    const rounds = size(ctx, 15, 2);
    // The smoke test runs it with no bench stack: only the tools' venv is needed.
    const config = ctx.config ?? loadConfig();
    const tmp = realpathSync(mkdtempSync(join(tmpdir(), 'recur-bench-gate-')));
    try {
      chmodSync(tmp, 0o755);
      const ws = join(tmp, 'ws');
      makeProject(ws);
      const root = join(tmp, 'sb');
      writePolicy(root, ws, config);
      const places = {
        python: stackPaths(config).python, kernelDir: join(repoRoot(), 'kernel'), sandboxRoot: root,
        keyOf: () => KEY, workspaceOf: () => ws, prepare: async () => undefined, env: process.env,
      };
      const gates = {
        on: createGateActivities({ launch: gateLauncher({ ...places, sandbox: 'on' }) }).runGate,
        off: createGateActivities({ launch: gateLauncher({ ...places, sandbox: 'off' }) }).runGate,
      };
      const gate = async (side: 'on' | 'off', command: string) => {
        const t0 = performance.now();
        const r = await gates[side]({ sessionId: 'b', command, timeoutSeconds: 120, cwd: null });
        const ms = performance.now() - t0;
        if (!r.passed) throw new Error(`gate ${command} (sandbox ${side}) failed with ${r.exitCode}: ${r.output.slice(-500)}`);
        return { ms, output: r.output };
      };
      // `python3` is found by the worker's PATH on the host and by the sandbox's own inside it, which
      // need not be the same interpreter: both sides run the one the sandbox finds.
      const python = (await gate('on', 'command -v python3')).output.trim();
      const unittest = `${python} -m unittest -q && times`;
      const ran = `Ran ${MODULES * TESTS_PER_MODULE} tests`;
      for (const side of ['on', 'off'] as const) {
        const { output } = await gate(side, unittest);
        if (!output.includes(ran)) throw new Error(`sandbox ${side}: expected "${ran}", got ${output.slice(-300)}`);
      }
      const ms = { on: [] as number[], off: [] as number[], emptyOn: [] as number[], emptyOff: [] as number[] };
      const cpu = { on: [] as number[], off: [] as number[] };
      const time = async (side: 'on' | 'off', empty: boolean) => {
        const g = await gate(side, empty ? 'true' : unittest);
        if (empty) {
          ms[side === 'on' ? 'emptyOn' : 'emptyOff'].push(g.ms);
        } else {
          ms[side].push(g.ms);
          cpu[side].push(gateCpuMs(g.output));
        }
      };
      ctx.log(`gate-sandbox: ${rounds} rounds of \`${unittest}\` (${MODULES * TESTS_PER_MODULE} tests) and \`true\`, each way`);
      for (let r = 0; r < rounds; r++) {
        for (const side of r % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
          await time(side, false);
          await time(side, true);
        }
      }
      // What the sandbox adds to starting any gate, beyond the host's own start of bash.
      const start = summarize(ms.emptyOn).median - summarize(ms.emptyOff).median;
      const host = { label: 'the same gate on the host', samples: ms.off };
      const limits = `${MODULES} unittest modules, ${rounds} rounds alternated; the sandbox's start (an empty gate's, less the host's) is subtracted whole`;
      const [cpuOn, cpuOff] = [summarize(cpu.on).median, summarize(cpu.off).median];
      const details = {
        rounds, tests: MODULES * TESTS_PER_MODULE, sandboxStartMs: Math.round(start),
        gateCpuMs: { sandboxed: Math.round(cpuOn), host: Math.round(cpuOff), ratio: Math.round((100 * cpuOn) / cpuOff) / 100 }, loadAverage: loadavg()[0],
      };
      return [
        compare({
          name: 'gate-sandbox/unittest', title: 'Quality gate `python3 -m unittest`: sandboxed vs host', unit: 'ms', better: 'lower',
          subject: { label: 'gate in the session sandbox', samples: ms.on }, baseline: host, limits, details,
        }),
        compare({
          name: 'gate-sandbox/less-start', title: "The same gate less the sandbox's start: sandboxed vs host (target ≤ 1.1×)", unit: 'ms', better: 'lower',
          subject: { label: "sandboxed less the sandbox's start", samples: ms.on.map((x) => x - start) }, baseline: host, limits, details,
        }),
        compare({
          name: 'gate-sandbox/start', title: 'An empty gate (`true`): sandboxed vs host', unit: 'ms', better: 'lower',
          subject: { label: 'empty gate in the sandbox', samples: ms.emptyOn }, baseline: { label: 'empty gate on the host', samples: ms.emptyOff },
          limits: "bash alone on the host; sandboxed, also the launcher's Python, the egress forwarder's, setfacl over the workspace and bwrap", details: { rounds },
        }),
      ];
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  },
};
