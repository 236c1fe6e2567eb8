import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { computeEventHash, decodeEvent, encodeSingleObject, SchemaSet, soeSchema, verifyChain, ZERO_HASH } from '../../schemas';
import { CHAINED_ENVELOPE, EVENT_SCHEMA, EVENT_SCHEMAS_BY_FINGERPRINT } from '../../schemas/registry';

/** SessionStarted as the first wave wrote it, before it recorded the sandbox. */
const V1 = soeSchema(JSON.parse(readFileSync(join(__dirname, '..', '..', 'schemas', 'history', 'SessionStarted.1.json'), 'utf8')));

/** An event exactly as the first wave's writer put it on the topic: the old payload in the old (unsigned) envelope. */
function writtenByV1(fields: Record<string, unknown>): Buffer {
  const envelope = {
    eventId: 'old/0', sessionId: 'old', rootId: 'old', parentId: null, seq: 0, ts: 1_700_000_000_000,
    type: 'SessionStarted', prevHash: ZERO_HASH, payload: encodeSingleObject(V1, fields),
  };
  const unhashed = encodeSingleObject(CHAINED_ENVELOPE, { ...envelope, hash: '' });
  const hash = createHash('sha256').update(Buffer.from(ZERO_HASH, 'hex')).update(unhashed).digest('hex');
  return encodeSingleObject(CHAINED_ENVELOPE, { ...envelope, hash });
}

const OLD_FIELDS = {
  task: 'an old task', taskBlob: null, name: 'root', model: 'scripted:x.json', parentId: null,
  depth: 0, maxDepth: 2, maxTurns: 50, cellTimeoutSeconds: 600, budgetUsd: null, systemPromptBlob: null,
};

describe('events written with an earlier schema version (schemas/history)', () => {
  test('decode to the current shape, with the added fields at their defaults', () => {
    const event = decodeEvent(writtenByV1(OLD_FIELDS));
    expect(event.event).toEqual({ type: 'SessionStarted', ...OLD_FIELDS, sandbox: null, research: null });
  });

  test('still verify: their hash is recomputed from the bytes their writer produced', () => {
    const event = decodeEvent(writtenByV1(OLD_FIELDS));
    expect(computeEventHash(event)).toBe(event.hash);
    expect(verifyChain([event])).toMatchObject({ ok: true });
  });

  test('an edited copy of an old event is caught', () => {
    const event = decodeEvent(writtenByV1(OLD_FIELDS));
    const edited = { ...event, event: { ...event.event, task: 'rewritten' } };
    expect(verifyChain([edited])).toMatchObject({ ok: false, fault: 'hash-mismatch' });
  });

  test('without its earlier schema registered, the same record is an unknown writer schema', () => {
    const currentOnly = new SchemaSet(Object.values(EVENT_SCHEMA));
    expect(() => currentOnly.decode(encodeSingleObject(V1, OLD_FIELDS))).toThrow(/unknown writer schema/);
  });
});

/** ModelCalled as the second wave wrote it, before it logged the workspace files a prompt showed and where its token counts came from. */
const MODEL_CALLED_V1 = soeSchema(JSON.parse(readFileSync(join(__dirname, '..', '..', 'schemas', 'history', 'ModelCalled.1.json'), 'utf8')));

describe('ModelCalled written before contextFiles and usageSource', () => {
  const fields = {
    turn: 1, model: 'm', provider: 'p', tokensIn: 1, tokensOut: 2, costUsd: 0, latencyMs: 3, response: 'hi', responseBlob: null,
    toolCalls: [], stopReason: 'end', requestBlob: null,
  };

  test('decodes with no context files and no usage source', () => {
    const bytes = encodeSingleObject(MODEL_CALLED_V1, fields);
    expect(EVENT_SCHEMAS_BY_FINGERPRINT.decode(bytes).value).toEqual({
      ...fields, contextFiles: [], usageSource: null, cacheReadTokens: null, cacheWriteTokens: null,
    });
    expect(() => new SchemaSet(Object.values(EVENT_SCHEMA)).decode(bytes)).toThrow(/unknown writer schema/);
  });
});

/** ModelCalled as the fourth wave wrote it, before it recorded prompt-cache reads and writes. */
const MODEL_CALLED_V2 = soeSchema(JSON.parse(readFileSync(join(__dirname, '..', '..', 'schemas', 'history', 'ModelCalled.2.json'), 'utf8')));

describe('ModelCalled written before cacheReadTokens and cacheWriteTokens', () => {
  const fields = {
    turn: 1, model: 'm', provider: 'p', tokensIn: 1, tokensOut: 2, costUsd: 0, latencyMs: 3, response: 'hi', responseBlob: null,
    toolCalls: [], stopReason: 'end', requestBlob: null, contextFiles: [], usageSource: 'reported',
  };

  test('decodes with no cache counts', () => {
    const bytes = encodeSingleObject(MODEL_CALLED_V2, fields);
    expect(EVENT_SCHEMAS_BY_FINGERPRINT.decode(bytes).value).toEqual({ ...fields, cacheReadTokens: null, cacheWriteTokens: null });
    expect(() => new SchemaSet(Object.values(EVENT_SCHEMA)).decode(bytes)).toThrow(/unknown writer schema/);
  });
});

/** Compacted as written before an operator could ask for one (manual). */
const COMPACTED_V1 = soeSchema(JSON.parse(readFileSync(join(__dirname, '..', '..', 'schemas', 'history', 'Compacted.1.json'), 'utf8')));

describe('Compacted written before manual', () => {
  test('decodes as a compaction the prompt size made', () => {
    const fields = { fromSeq: 1, toSeq: 9, droppedTurns: 3, droppedChars: 900, summary: 's', tokensBefore: 300, tokensAfter: 40, tokensIn: 1, tokensOut: 1, costUsd: 0 };
    const bytes = encodeSingleObject(COMPACTED_V1, fields);
    expect(EVENT_SCHEMAS_BY_FINGERPRINT.decode(bytes).value).toEqual({ ...fields, manual: false });
    expect(() => new SchemaSet(Object.values(EVENT_SCHEMA)).decode(bytes)).toThrow(/unknown writer schema/);
  });
});

/** The ledger's events as written before a research tree's sub-agents could ask the root's ledger. */
const history = (type: string) => soeSchema(JSON.parse(readFileSync(join(__dirname, '..', '..', 'schemas', 'history', `${type}.1.json`), 'utf8')));

describe('ExperimentRecorded and ExperimentAnnotated written before by', () => {
  test('decode with no session named as the one that asked', () => {
    const row = {
      jobId: 'job-1', kind: 'trial', idea: 'ema', parent: null, file: 'train.py', source: { sha256: 'a'.repeat(64), size: 9 }, problem: 'small', status: 'measured',
      steps: 900, seeds: [12648430], values: [3.27], mean: 3.27, promising: false, configHash: null, frozenHash: null, reason: 'screen',
    };
    const note = { jobId: 'job-1', note: 'stack it' };
    for (const [type, fields] of [['ExperimentRecorded', row], ['ExperimentAnnotated', note]] as const) {
      const bytes = encodeSingleObject(history(type), fields);
      expect(EVENT_SCHEMAS_BY_FINGERPRINT.decode(bytes).value).toEqual({ ...fields, by: null });
      expect(() => new SchemaSet(Object.values(EVENT_SCHEMA)).decode(bytes)).toThrow(/unknown writer schema/);
    }
  });
});
