import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfig } from '../../config';
import { createKernelHost, sandboxKey, sandboxRoot } from '../../services/sandbox';

// What the Jupyter server does with the file (kernel/recur_jupyter/sandbox.py load_policy), in a
// loop: counts the reads that found it empty or cut short, until stdin closes.
const READER = `
import json, sys, threading
path = sys.argv[1]
done = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
reads = torn = 0
while not done.is_set():
    try:
        with open(path, encoding="utf-8") as f:
            json.load(f)
    except ValueError:
        torn += 1
    except OSError:
        pass
    reads += 1
print(reads, torn)
`;

describe("a session's sandbox policy, rewritten at every bind", () => {
  const home = mkdtempSync(join(tmpdir(), 'recur-policy-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('is never seen half-written by a process reading it meanwhile, and leaves no temporary file behind', async () => {
    const config = parseConfig({ RECUR_HOME: home }).config;
    const host = createKernelHost(config);
    const session = 'policy-race-session';
    await host.prepare(session);
    const dir = join(sandboxRoot(config), sandboxKey(session));
    const reader = spawn('python3', ['-c', READER, join(dir, 'policy.json')], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    reader.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const ended = new Promise<number | null>((resolve) => reader.on('close', resolve));
    // Long enough for the reader to be mid-read during many rewrites: a plain rewrite (truncate,
    // then write) is caught empty within a few hundred.
    for (let i = 0; i < 1000; i++) {
      await host.prepare(session);
      if (i % 100 === 0) await new Promise((r) => setImmediate(r));
    }
    reader.stdin.end();
    expect(await ended).toBe(0);
    const [reads, torn] = out.trim().split(' ').map(Number);
    expect(reads).toBeGreaterThan(100);
    expect(torn).toBe(0);
    expect(readdirSync(dir).filter((f) => f.startsWith('policy.json'))).toEqual(['policy.json']);
  });
});
