import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ZERO_HASH, checkSeal, decodeEvent, encodeEvent, encodeEventBatch, keyringOf, verifyChain, type EncodeEventInput, type RecurEventInput,
} from '../../schemas';
import { ensureLogKey, homeKeyring, homeSigner, logKeyPaths, readPublicKeyFile, rotateLogKey } from '../../services/home/log-keys';
import type { LogRecord } from '../../services/projector';
import { logCopyLine, parseLogCopy } from '../../services/projector/log-copy';
import { readBundle, writeBundle } from '../../services/projector/bundle/bundle-format';
import { collectBundle } from '../../services/projector/bundle/collect-bundle';
import { createLocalBlobStore } from '../../activities/blob-store';
import { inOrderCollector } from '../../log/in-order-collector';
import { verifyTree } from '../../log/verify-tree';
import { EventLogError } from '../../errors';
import { cliInProcess } from '../helpers/cli-in-process';
import { FIXTURE_KEY, chain, ev, records } from '../helpers/replay-tree-fixture';
import { testLogKey } from '../helpers/test-log-key';

const base: EncodeEventInput = {
  sessionId: 'r', rootId: 'r', parentId: null, seq: 0, ts: 1_700_000_000_000, prevHash: ZERO_HASH, event: ev.started('root', 0),
};

function audit(treeId: string, log: LogRecord[], keys = FIXTURE_KEY.keyring) {
  const c = inOrderCollector(treeId);
  for (const r of log) c.accept(r);
  return verifyTree(treeId, c.result(), keys);
}

/** The event with `seq` that chains onto `log`'s records, built as a forger would: with Recur's own codec, no key. */
function forgedNext(head: { seq: number; hash: string }, event: RecurEventInput, signer?: Parameters<typeof encodeEvent>[1]) {
  return encodeEvent({ ...base, seq: head.seq + 1, prevHash: head.hash, ts: 2_000, event }, signer);
}

describe('sealing events', () => {
  test('a sealed event carries its key id and a deterministic signature over its hash, which the seal leaves out', () => {
    const a = encodeEvent(base, FIXTURE_KEY.signer);
    const b = encodeEvent(structuredClone(base), FIXTURE_KEY.signer);
    expect(a.value.equals(b.value)).toBe(true);
    expect(a.record.keyId).toBe(FIXTURE_KEY.keyId);
    expect(a.record.signature).toMatch(/^[0-9a-f]{128}$/);
    expect(decodeEvent(a.value)).toEqual(a.record);
    expect(checkSeal(a.record, FIXTURE_KEY.keyring)).toBeNull();
    const unsigned = encodeEvent(base);
    const other = testLogKey();
    expect(encodeEvent(base, other.signer).record.hash).toBe(unsigned.record.hash);
    expect(unsigned.record.hash).toBe(a.record.hash);
  });

  test('unsigned, an unknown key, a signature of another event and a flipped signature digit are each named', () => {
    const [e0, e1] = encodeEventBatch({ ...base, fromSeq: 0, events: [{ ts: 1, event: ev.started('root', 0) }, { ts: 2, event: ev.model(1) }] }, FIXTURE_KEY.signer).records;
    expect(checkSeal(encodeEvent(base).record, FIXTURE_KEY.keyring)).toBe('unsigned');
    expect(checkSeal(e0, testLogKey().keyring)).toBe('unknown-key');
    expect(checkSeal({ ...e1, signature: e0.signature }, FIXTURE_KEY.keyring)).toBe('bad-signature');
    const sealed = encodeEvent(base, FIXTURE_KEY.signer);
    const value = Buffer.from(sealed.value);
    const at = value.indexOf(sealed.record.signature!.slice(0, 16));
    expect(at).toBeGreaterThan(0);
    value[at] = value[at] === 0x30 ? 0x31 : 0x30;
    expect(checkSeal(decodeEvent(value), FIXTURE_KEY.keyring)).toBe('bad-signature');
  });

  test('a log written before signing (envelope v1) still decodes and chains, and every event of it is named unsigned', () => {
    const fixture = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'envelope-v1-log.json'), 'utf8')) as { headHash: string; values: string[] };
    const values = fixture.values.map((hex) => Buffer.from(hex, 'hex'));
    const events = values.map(decodeEvent);
    expect(events.map((e) => [e.type, e.keyId, e.signature])).toEqual([
      ['SessionStarted', null, null], ['ModelCalled', null, null], ['SessionCompleted', null, null],
    ]);
    expect(verifyChain(events)).toMatchObject({ ok: true, heads: { v1s: { nextSeq: 3, headHash: fixture.headHash } } });
    const v = audit('v1s', records('v1s', values));
    expect(v.faults.map((f) => `${f.eventId} ${f.fault}`)).toEqual(['v1s/0 unsigned', 'v1s/1 unsigned', 'v1s/2 unsigned']);
  });
});

describe('audit verify names forged events', () => {
  const genuine = () => chain('r', [[1, ev.started('root', 0)], [2, ev.model(1)], [3, ev.request('print(1)')], [4, ev.completed('1')]]);

  test('an event appended after the end, chained correctly but unsigned or signed by a key of its own, is named', () => {
    const g = genuine();
    const unsigned = forgedNext(g.records[3], ev.model(2));
    expect(audit('r', records('r', [...g.values, unsigned.value])).faults).toEqual([
      expect.objectContaining({ eventId: 'r/4', fault: 'unsigned', detail: 'no signature: no holder of a log key wrote this event' }),
    ]);
    const ownKey = forgedNext(g.records[3], ev.model(2), testLogKey().signer);
    expect(audit('r', records('r', [...g.values, ownKey.value])).faults).toEqual([
      expect.objectContaining({ eventId: 'r/4', fault: 'unknown-key' }),
    ]);
  });

  test('a chained event landed before the genuine one is named, and so is the genuine copy it shadows', () => {
    const g = genuine();
    // The forger saw r/1 and wrote its own r/2 before the workflow's r/2 landed.
    const forged = forgedNext(g.records[1], ev.request('import os; os.system("rm -rf /")'));
    const log = records('r', [g.values[0], g.values[1], forged.value, g.values[2], g.values[3]]);
    const v = audit('r', log);
    expect(v.faults.map((f) => `${f.eventId} ${f.fault}`)).toEqual(['r/2 unsigned', 'r/2 conflict', 'r/3 prev-hash-mismatch']);
    expect(v.faults[0].detail).toBe(
      `no signature: no holder of a log key wrote this event; it shadows the copy at partition 0 offset 3, validly signed by key ${FIXTURE_KEY.keyId}, because readers keep the first copy of an id`,
    );
    expect(v.faults[1].detail).toContain(`that copy: validly signed by key ${FIXTURE_KEY.keyId}`);
  });

  test('the same content sealed again by another known key (a retry across a rotation) is not a fault; by an unknown one it is', () => {
    const next = testLogKey();
    const items: Array<[number, RecurEventInput]> = [[1, ev.started('root', 0)], [2, ev.completed('1')]];
    const first = chain('r', items);
    const again = encodeEventBatch({ ...base, fromSeq: 0, events: items.map(([ts, event]) => ({ ts, event })) }, next.signer);
    const log = records('r', [...first.values, again.values[1]]);
    const both = keyringOf([...FIXTURE_KEY.keyring.values(), ...next.keyring.values()]);
    expect(audit('r', log, both)).toMatchObject({ ok: true, resealed: 1, duplicates: 0 });
    const v = audit('r', log);
    expect(v.faults.map((f) => `${f.eventId} ${f.fault}`)).toEqual(['r/1 conflict']);
    expect(v.faults[0].detail).toContain(`that copy: signed by key ${next.keyId}, which is none of the 1 public key(s) given`);
  });
});

describe('the home\'s keys', () => {
  const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);

  test('the first start creates an owner-only signing key and its public key; later starts keep it', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'recur-keys-')), 'keys');
    const id = ensureLogKey(dir);
    expect(ensureLogKey(dir)).toBe(id);
    const p = logKeyPaths(dir);
    expect([mode(dir), mode(p.signing), mode(p.public), mode(join(p.public, `${id}.pem`))]).toEqual(['700', '600', '700', '600']);
    expect([...homeKeyring(dir).keys()]).toEqual([id]);
  });

  test('rotation makes a new signer at the next append, and old events verify under the old public key, new ones under the new', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'recur-keys-')), 'keys');
    const signer = homeSigner(dir);
    const oldId = ensureLogKey(dir);
    const before = encodeEventBatch({ ...base, fromSeq: 0, events: [{ ts: 1, event: ev.started('root', 0) }] }, signer);
    const { previous, current } = rotateLogKey(dir);
    expect(previous).toBe(oldId);
    expect(current).not.toBe(oldId);
    const after = encodeEventBatch({ ...base, fromSeq: 1, prevHash: before.headHash, events: [{ ts: 2, event: ev.completed('1') }] }, signer);
    expect([before.records[0].keyId, after.records[0].keyId]).toEqual([oldId, current]);
    const log = records('r', [...before.values, ...after.values]);
    expect(audit('r', log, homeKeyring(dir))).toMatchObject({ ok: true, signedBy: { [oldId]: 1, [current]: 1 } });
    const oldOnly = keyringOf([readPublicKeyFile(join(logKeyPaths(dir).public, `${oldId}.pem`))]);
    expect(audit('r', log, oldOnly).faults.map((f) => `${f.eventId} ${f.fault}`)).toEqual(['r/1 unknown-key']);
    expect(readFileSync(logKeyPaths(dir).signing, 'utf8')).toContain('PRIVATE KEY');
  });

  test('with the signing key gone, sealing fails as retryable naming the fix, and works again once a key is rotated in', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'recur-keys-')), 'keys');
    const signer = homeSigner(dir);
    rmSync(logKeyPaths(dir).signing);
    let err: unknown;
    try {
      signer.seal('ab'.repeat(32));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EventLogError);
    expect(err).toMatchObject({ retryable: true, hint: 'run `recur keys rotate` to make a new signing key' });
    const { current } = rotateLogKey(dir);
    expect(signer.seal('ab'.repeat(32)).keyId).toBe(current);
  });

  test('a public key file must be an Ed25519 public key: a private key or an RSA key is refused, naming the file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'recur-keys-'));
    const priv = join(dir, 'priv.pem');
    writeFileSync(priv, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }));
    const rsa = join(dir, 'rsa.pem');
    writeFileSync(rsa, generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'pem', type: 'spki' }));
    expect(() => readPublicKeyFile(priv)).toThrow(`${priv} is not an Ed25519 public key (no PEM PUBLIC KEY block)`);
    expect(() => readPublicKeyFile(rsa)).toThrow(`${rsa} is not an Ed25519 public key (it is rsa)`);
  });
});

describe('an auditor with a copy of the log and a public key file', () => {
  test('a copy line that is not JSON or not a record is refused, naming the file and line', () => {
    const good = logCopyLine('r', { partition: 0, offset: '0', key: Buffer.from('r'), value: Buffer.from('x') });
    expect(() => parseLogCopy(`${good}\nnot json\n`, 'copy.ndjson')).toThrow('copy.ndjson line 2: not JSON');
    expect(() => parseLogCopy('{"partition":0,"offset":0,"key":"r","value":""}', 'copy.ndjson'))
      .toThrow('copy.ndjson line 1: expected {"partition": int, "offset": string, "key": base64, "value": base64}');
  });

  const cli = (args: string[], home: string) => cliInProcess(args, { RECUR_HOME: home });

  test('verifies with only those (an empty home, no Kafka), and names a forged event in the copy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'recur-auditor-'));
    const home = join(dir, 'empty-home');
    const pub = join(dir, 'recur.pub.pem');
    writeFileSync(pub, FIXTURE_KEY.publicPem);
    const g = chain('r', [[1, ev.started('root', 0)], [2, ev.completed('1')]]);
    // A bundle that carries no key of its own: only the file handed over can vouch for it.
    const copy = async (values: Buffer[]) => {
      const file = join(dir, `copy-${values.length}.tar.gz`);
      const bundle = await collectBundle({
        treeId: 'r', topic: 't', records: [...records('r', values), ...records('elsewhere', values)], blobs: createLocalBlobStore(join(dir, 'blobs')),
        publicKey: () => null, now: new Date(0),
      });
      await writeBundle(file, bundle);
      return file;
    };
    const good = await copy(g.values);
    expect(readBundle(good).records).toHaveLength(2);
    const ok = await cli(['audit', 'verify', '--bundle', good, '--pubkey', pub], home);
    expect(ok.code).toBe(0);
    expect(ok.out[0]).toBe('verified r: 1 session, 2 events; every chain intact, every event signed by a known key, tree consistent, every blob present and intact');
    expect(ok.out).toContain(`  verified with the public key(s) given with --pubkey (${FIXTURE_KEY.keyId})`);
    expect(ok.out).toContain(`  signed by key ${FIXTURE_KEY.keyId}: 2 events`);

    const bad = await copy([...g.values, forgedNext(g.records[1], ev.model(9)).value]);
    const failed = await cli(['audit', 'verify', '--bundle', bad, '--pubkey', pub], home);
    expect(failed).toMatchObject({ code: 3, message: 'audit of r failed at r/2: unsigned: no signature: no holder of a log key wrote this event' });
    const noKeys = await cli(['audit', 'verify', '--bundle', good], home);
    expect(noKeys.message).toBe(`audit of r failed at r/0: unknown-key: signed by key ${FIXTURE_KEY.keyId}, which is none of the 0 public key(s) given`);
  });
});
