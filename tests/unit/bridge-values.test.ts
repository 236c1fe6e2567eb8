import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import { createLocalBlobStore, type BlobStore } from '../../activities/blob-store';
import { INLINE } from '../../schemas/field-limits';
import type { BridgeHandler, HostBridge } from '../../services/host-bridge';
import { toErrorReply } from '../../errors';
import { registerSessionOps } from '../../services/worker/bridge-ops';
import { bridgeValues } from '../../services/worker/bridge-values';
import { registerLongRunOps } from '../../services/worker/long-run-ops';

/** The session ops over a fake Temporal client that records each update's arguments and answers from `replies`. */
function opsWith(blobs: BlobStore, replies: Record<string, unknown>) {
  const handlers = new Map<string, BridgeHandler>();
  const host = { handle: (op: string, fn: BridgeHandler) => handlers.set(op, fn) } as unknown as HostBridge;
  const updates: Array<{ name: string; args: unknown[] }> = [];
  const client = {
    workflow: {
      getHandle: () => ({
        executeUpdate: async (def: { name: string }, opts: { args: unknown[] }) => {
          updates.push({ name: def.name, args: opts.args });
          return replies[def.name];
        },
        query: async () => [],
      }),
    },
  } as unknown as Client;
  const values = bridgeValues(blobs);
  registerSessionOps(host, client, async () => null, values, { merge: async () => { throw new Error('no worktrees here'); } });
  registerLongRunOps(host, client, values);
  const call = (op: string, args: Record<string, unknown>) => handlers.get(op)!('root', args, { signal: new AbortController().signal });
  return { call, updates };
}

describe('bridge ops: large values enter workflows as a preview and a BlobRef', () => {
  let root: string;
  let blobs: BlobStore;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'recur-bridge-values-'));
    blobs = createLocalBlobStore(root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test('final() of 600 KB sends the workflow a preview and the ref of the whole', async () => {
    const { call, updates } = opsWith(blobs, {});
    await call('final', { value: 'y'.repeat(600_000) });
    const [{ answer, answerBlob }] = updates[0].args as Array<{ answer: string; answerBlob: { sha256: string } }>;
    expect(answer).toBe('y'.repeat(INLINE.answer));
    expect((await blobs.get(answerBlob.sha256)).toString()).toBe('y'.repeat(600_000));
    expect(JSON.stringify(updates).length).toBeLessThan(INLINE.answer + 500);
  });

  test('a short message is sent inline; recv hands the kernel the whole of a long one', async () => {
    const whole = 'm'.repeat(100_000);
    const ref = await blobs.put(Buffer.from(whole));
    const { call, updates } = opsWith(blobs, {
      sendAgentMessage: { ok: true, messageId: 'root#m1', to: 'root/kid' },
      takeMessages: [{ messageId: 'kid#m1', from: 'root/kid', text: whole.slice(0, 10), textBlob: ref }],
    });
    await call('agent_message.send', { to: 'child:kid', text: 'hi' });
    expect(updates[0].args).toEqual([{ to: 'child:kid', text: 'hi', textBlob: null }]);
    expect(await call('agent_message.recv', { wait: 0 })).toEqual({ message: { messageId: 'kid#m1', from: 'root/kid', text: whole } });
  });

  test('goal evidence past its limit is a preview naming the blob with the whole', async () => {
    const { call, updates } = opsWith(blobs, { goal: { ok: true, goal: null } });
    await call('goal.complete', { evidence: 'e'.repeat(600_000) });
    const [{ evidence }] = updates[0].args as Array<{ evidence: string }>;
    expect(evidence.length).toBeLessThanOrEqual(INLINE.evidence);
    const sha = /blob ([0-9a-f]{64})/.exec(evidence)![1];
    expect((await blobs.get(sha)).toString()).toBe('e'.repeat(600_000));
  });

  test('a recipient, model or objective past its hard limit is refused before any update, naming the limit', async () => {
    const { call, updates } = opsWith(blobs, {});
    const refusal = async (p: Promise<unknown>) => toErrorReply(await p.then(() => null, (e: unknown) => e));
    expect(await refusal(call('agent_message.send', { to: 'x'.repeat(2_000), text: 'hi' }))).toEqual({
      status: 413, body: { error: { name: 'LimitExceededError', message: 'agent_message.send(to=...) is 2000 characters, over the 1024-character limit' } },
    });
    expect((await refusal(call('rlm.spawn', { task: 't', model: 'm'.repeat(300) }))).body.error.message).toMatch(/over the 256-character limit/);
    expect((await refusal(call('goal.create', { objective: 'o'.repeat(5_000) }))).body.error.message).toMatch(/over the 4000-character limit/);
    expect(updates).toEqual([]);
  });
});
