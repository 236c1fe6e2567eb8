import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZERO_HASH, encodeEventBatch, verifyChain, type EventSigner, type StoredEvent } from '../schemas';
import { homeKeyring, homeSigner } from '../services/home/log-keys';
import { checkSeals } from '../log/check-seals';
import { size, type Benchmark } from './benchmark';
import { compare } from './report';
import { sessionEvents, stepEvents } from './sample-events';

/** Microseconds to encode one agent step's batch (model call, cell request, cell result), each run. */
function stepBatchUs(steps: number, signer?: EventSigner): number[] {
  const out: number[] = [];
  let prevHash = ZERO_HASH;
  for (let step = 0; step < steps; step++) {
    const events = stepEvents(step, 1_700_000_000_000).map((event) => ({ ts: 1_700_000_000_000, event }));
    const t0 = performance.now();
    prevHash = encodeEventBatch({ sessionId: 'bench', rootId: 'bench', parentId: null, fromSeq: step * 3, prevHash, events }, signer).headHash;
    out.push((performance.now() - t0) * 1000);
  }
  return out;
}

/** Microseconds per event to check a session's chain, with or without its seals. */
function verifyUsPerEvent(events: readonly StoredEvent[], runs: number, seals: boolean, keysDir: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    if (!verifyChain(events).ok) throw new Error('bench chain does not verify');
    if (seals && checkSeals(new Map([['bench', events]]), [], homeKeyring(keysDir)).problems.length > 0) throw new Error('bench seals do not verify');
    out.push(((performance.now() - t0) * 1000) / events.length);
  }
  return out;
}

/** What sealing adds to an append (encode + sign, in the worker) and to an audit (verify), in-process. */
export const eventSeal: Benchmark = {
  name: 'event-seal',
  async run(ctx) {
    const keysDir = join(mkdtempSync(join(tmpdir(), 'recur-bench-keys-')), 'keys');
    const signer = homeSigner(keysDir);
    const steps = size(ctx, 2_000, 100);
    stepBatchUs(50, signer); // warm up the JIT and the key
    const signed = stepBatchUs(steps, signer);
    const plain = stepBatchUs(steps);
    const n = size(ctx, 3_000, 300);
    const events = encodeEventBatch({ sessionId: 'bench', rootId: 'bench', parentId: null, fromSeq: 0, prevHash: ZERO_HASH, events: sessionEvents(n, 0, 1_700_000_000_000) }, signer).records;
    const runs = size(ctx, 5, 2);
    return [
      compare({
        name: 'event-seal/append', title: 'Encoding one agent step\'s batch (3 events) with and without Ed25519 seals', unit: 'µs', better: 'lower',
        subject: { label: 'encode + seal (homeSigner)', samples: signed },
        baseline: { label: 'encode only', samples: plain },
        limits: 'in-process, no Kafka; one Ed25519 signature and one stat of the key file per event',
        details: { steps },
      }),
      compare({
        name: 'event-seal/verify', title: `Auditing a ${n}-event session: chain and seals against the chain alone`, unit: 'µs/event', better: 'lower',
        subject: { label: 'verifyChain + checkSeals', samples: verifyUsPerEvent(events, runs, true, keysDir) },
        baseline: { label: 'verifyChain', samples: verifyUsPerEvent(events, runs, false, keysDir) },
        limits: 'in-process; one Ed25519 verification per event',
        details: { events: n, runs },
      }),
    ];
  },
};
