import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { decodeEvent } from '../../schemas';
import { repoRoot } from '../../services/home/repo-root';
import { readBundle, writeBundle } from '../../services/projector/bundle/bundle-format';
import { launchBrowser, newViewerPage, untilAttribute, type ViewerPage } from '../helpers/browser';
import { noStack } from '../helpers/no-stack';
import { recur } from '../helpers/run-cli';
import { py, scriptsDir } from '../helpers/session-harness';

// An auditor's machine: the bundle of an overnight-style CI run, opened with `recur view` and as
// an HTML file in Chromium, with an empty home and every port a stack service would use closed.

const CLI = join(repoRoot(), 'dist', 'services', 'cli', 'main.js');
const work = mkdtempSync(join(tmpdir(), 'recur-bundle-viewer-'));
let browser: Browser;
let away: Record<string, string>;
let id: string;
let bigCell: string;
const files = { bundle: join(work, 'tree.tar.gz'), tampered: join(work, 'tampered.tar.gz'), pubkey: join(work, 'operator.pem'), stranger: join(work, 'stranger.pem') };
const pages: ViewerPage[] = [];
const views: ChildProcess[] = [];

/** Whether something accepts a TCP connection on the port (loopback). */
const listening = (port: number) => new Promise<boolean>((resolve) => {
  const s = connect(port, '127.0.0.1').once('connect', () => s.destroy() && resolve(true)).once('error', () => resolve(false));
});
const stackPorts = () => Object.entries(away).filter(([k]) => k.endsWith('_PORT')).map(([, v]) => Number(v));

/** `recur view` on the auditor's machine, until its link (the last line it prints); resolves to the link and how long it took. */
function startView(args: string[]): Promise<{ url: string; ms: number; lines: string[] }> {
  const t0 = Date.now();
  const child = spawn(process.execPath, [CLI, 'view', ...args, '--no-open'], { env: { ...process.env, ...away }, cwd: work });
  views.push(child);
  const lines: string[] = [];
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`recur view exited ${code}: ${stderr}`)));
    child.stdout.on('data', (d: Buffer) => {
      lines.push(...d.toString().split('\n').filter(Boolean));
      const url = lines.find((l) => l.startsWith('http://'));
      if (url) resolve({ url, ms: Date.now() - t0, lines });
    });
  });
}

/** A page that records every request it makes, besides the CSP violations and errors every viewer page records. */
async function auditorPage(offline = false): Promise<ViewerPage & { requests: string[] }> {
  const v = await newViewerPage(browser);
  pages.push(v);
  await v.context.setOffline(offline);
  const requests: string[] = [];
  v.page.on('request', (r) => requests.push(r.url()));
  // A bundle never grows: a page that opened the live stream over one would show here.
  v.page.on('websocket', (ws) => requests.push(ws.url()));
  return Object.assign(v, { requests });
}

/** The page shows the tree, the timeline (the big output read from the bundle) and the verdict; resolves to the verify box. */
async function showsTheTree(v: ViewerPage, base: string, verified: boolean) {
  const go = (hash: string) => v.page.goto(`${base}${hash}`);
  await v.page.locator(`[data-testid=session-row][data-session="${id}"]`).waitFor();
  await go(`#/s/${encodeURIComponent(id)}/tree`);
  await untilAttribute(v.page.locator(`[data-testid=tree-node][data-session="${id}"]`), 'data-status', 'completed');
  await untilAttribute(v.page.locator(`[data-testid=tree-node][data-session="${id}/alpha"]`), 'data-status', 'completed');
  await go(`#/s/${encodeURIComponent(id)}/timeline?e=${encodeURIComponent(bigCell)}`);
  for (const type of ['GateChecked', 'SessionCompleted']) await v.page.locator(`[data-testid=timeline-row][data-type=${type}]`).first().waitFor();
  const detail = v.byTestId('event-detail');
  await detail.getByTestId('load-blob').first().click();
  await detail.getByTestId('blob-text').filter({ hasText: 'y'.repeat(100) }).waitFor();
  await go(`#/s/${encodeURIComponent(id)}/verify`);
  await untilAttribute(v.byTestId('verify-result'), 'data-ok', String(verified));
  expect(await v.byTestId('verify-blobs').innerText()).toMatch(/^blobs: (\d+) of \1 /);
  await v.shot(`verify-${verified ? 'ok' : 'failed'}`);
  return v.byTestId('verify-result');
}

beforeAll(async () => {
  browser = await launchBrowser();
  // The overnight job, shortened: a gate red then green in a git workspace, a cell whose output goes to a blob, one sub-agent.
  const workspace = mkdtempSync(join(work, 'ws-'));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=dev', '-c', 'user.email=dev@example.com', ...args], { cwd: workspace });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(workspace, 'README'), 'app\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
  const script = join(scriptsDir(), 'overnight.json');
  writeFileSync(script, JSON.stringify({ agents: {
    root: [py('print("y" * 20000)\na = rlm("say 42", name="alpha")\nprint(a.result(timeout=120))'), 'All done.', 'Fixed it.'],
    alpha: ['42'],
  } }));
  const gate = 'test -f fixed && echo green || { touch fixed; echo "1 test failed"; exit 1; }';
  const run = await recur(['run', 'Make the test suite pass.', '--model', `scripted:${script}`, '--ci', '--autonomous', '--gate', gate, '--cwd', workspace]);
  expect(run.stderr).toMatch(/recur: exit 0: \S+ completed/);
  id = /session (\S+) started; CI mode/.exec(run.stderr)![1];
  // Where the tree ran, the bundle and its page in one go (the page here rests on the bundle's own key; the auditor's below on theirs).
  const exported = await recur(['export', id, '--out', files.bundle, '--html', join(work, 'where-it-ran.html'), '--json']);
  expect(exported.code).toBe(0);
  const { keys, html } = JSON.parse(exported.lines[0]) as { keys: string[]; html: { verified: boolean; keys: string } };
  expect(html).toMatchObject({ verified: true, keys: 'bundle' });
  writeFileSync(files.pubkey, readFileSync(join(process.env.RECUR_HOME!, 'keys', 'public', `${keys[0]}.pem`)));
  writeFileSync(files.stranger, generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }));

  const bundle = readBundle(files.bundle);
  const events = bundle.records.map((r) => decodeEvent(r.value!));
  bigCell = events.find((e) => e.type === 'CellExecuted' && (e.event as { outputsBlob?: unknown }).outputsBlob)!.eventId;
  // The answer rewritten in place, same length: a forgery an auditor must see.
  const forged = bundle.records.find((r) => r.value!.includes('Fixed it.'))!;
  forged.value!.write('Faked it.', forged.value!.indexOf('Fixed it.'));
  await writeBundle(files.tampered, bundle);

  away = await noStack();
  for (const port of stackPorts()) expect(await listening(port)).toBe(false);
});

afterEach(async () => {
  for (const v of pages.splice(0)) {
    v.expectClean();
    await v.close();
  }
});

afterAll(async () => {
  for (const child of views) child.kill('SIGKILL');
  await browser?.close();
});

describe('recur view: the viewer over one bundle, no stack, no home', () => {
  it('with the operator key: the tree, the timeline and a blob from the bundle alone, verified with the key given; Ctrl-C ends it with 0', async () => {
    const view = await startView([files.bundle, '--pubkey', files.pubkey]);
    expect(view.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/#login=[A-Za-z0-9_-]{43,}$/);
    expect(view.lines).toContainEqual(expect.stringContaining('signatures are checked against the public key(s) given with --pubkey'));
    process.stderr.write(`recur view: link printed ${view.ms} ms after start\n`);
    const v = await auditorPage();
    await v.page.goto(view.url);
    const origin = new URL(view.url).origin;
    const box = await showsTheTree(v, `${origin}/ui/`, true);
    expect(await box.innerText()).toContain('The log verifies');
    expect(await v.byTestId('verify-keys').getAttribute('data-source')).toBe('given');
    expect(await v.byTestId('bundle-banner').innerText()).toContain('tree.tar.gz');
    // Everything came from the view's own origin: no other host, no stack service.
    expect(v.requests.filter((u) => !u.startsWith(`${origin}/`))).toEqual([]);
    // The link worked once: a second browser is signed out.
    const again = await auditorPage();
    await again.page.goto(view.url);
    await again.byTestId('signed-out').waitFor();

    const child = views.at(-1)!;
    const exited = new Promise((resolve) => child.once('close', resolve));
    child.removeAllListeners('exit');
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it("flags a stranger's key, a tampered bundle, and a verdict resting only on the bundle's own keys", async () => {
    const [stranger, tampered, own] = await Promise.all([
      startView([files.bundle, '--pubkey', files.stranger]),
      startView([files.tampered, '--pubkey', files.pubkey]),
      startView([files.bundle]),
    ]);
    const verify = async (url: string) => {
      const v = await auditorPage();
      await v.page.goto(url);
      await v.page.locator(`[data-testid=session-row][data-session="${id}"]`).waitFor();
      await v.page.goto(`${new URL(url).origin}/ui/#/s/${encodeURIComponent(id)}/verify`);
      await v.byTestId('verify-result').waitFor();
      return v;
    };
    const s = await verify(stranger.url);
    await untilAttribute(s.byTestId('verify-result'), 'data-ok', 'false');
    expect(await s.byTestId('verify-fault').first().innerText()).toContain('unknown-key');

    const t = await verify(tampered.url);
    await untilAttribute(t.byTestId('verify-result'), 'data-ok', 'false');
    expect(await t.byTestId('verify-fault').first().innerText()).toContain('hash-mismatch');

    expect(own.lines).toContainEqual(expect.stringContaining("checked only against the bundle's own public key(s)"));
    const o = await verify(own.url);
    await untilAttribute(o.byTestId('verify-keys'), 'data-source', 'bundle');
    expect(await o.byTestId('verify-keys').innerText()).toContain('proves only that the bundle is self-consistent');
  });
});

describe('recur export --html: one file that opens from disk', () => {
  it('from the bundle with no stack: opens offline from file://, shows the tree, timeline, blob and the verdict computed at export; a tampered bundle exports as failed', async () => {
    const html = join(work, 'tree.html');
    const r = await recur(['export', '--bundle', files.bundle, '--html', html, '--pubkey', files.pubkey, '--json'], { env: away });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.lines[0]) as { html: { bytes: number; blobs: number; verified: boolean } };
    expect(out.html).toMatchObject({ verified: true, blobs: expect.any(Number) });
    process.stderr.write(`recur export --html: ${out.html.bytes} bytes, ${out.html.blobs} blobs\n`);

    const v = await auditorPage(true);
    await v.page.goto(`file://${html}`);
    const box = await showsTheTree(v, `file://${html}`, true);
    expect(await box.innerText()).toContain('The log verifies');
    expect(await v.byTestId('verified-at').innerText()).toContain('Verified when this file was exported');
    expect(await v.byTestId('key-fingerprint').innerText()).toMatch(/^[0-9a-f]{64}$/);
    expect(v.requests.filter((u) => u !== `file://${html}`)).toEqual([]);

    const bad = join(work, 'tampered.html');
    const t = await recur(['export', '--bundle', files.tampered, '--html', bad, '--pubkey', files.pubkey], { env: away });
    expect(t.lines[0]).toMatch(/FAILED verification/);
    const w = await auditorPage(true);
    await w.page.goto(`file://${bad}`);
    await w.page.goto(`file://${bad}#/s/${encodeURIComponent(id)}/verify`);
    await untilAttribute(w.byTestId('verify-result'), 'data-ok', 'false');
    expect(await w.byTestId('verify-fault').first().innerText()).toContain('hash-mismatch');

    for (const port of stackPorts()) expect(await listening(port)).toBe(false);
  });
});
