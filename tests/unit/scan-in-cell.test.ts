import type { WorkspaceChanged } from '../../schemas/generated/events';
import { FakeSessionWorld } from '../helpers/fake-session-world';

/*
 * The workspace scan after a cell runs in the cell's own activity (activities/scan-after.ts,
 * patch scan-in-cell), not as a local activity of the workflow's; where that scan fails, the
 * workflow scans as before, so no cell's changes go unlogged.
 */
jest.setTimeout(120_000);
let world: FakeSessionWorld;
const TQ = 'scan-in-cell';

beforeAll(async () => {
  world = await FakeSessionWorld.start(TQ);
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => world.reset());

const changed = (requestId: string | null): Omit<WorkspaceChanged, 'type'> => ({
  workspace: '/w', reason: 'cell', requestId, scan: 1, baseManifest: null, manifest: { sha256: '1'.repeat(64), size: 1 },
  diff: null, files: [{ path: 'a.txt', change: 'modified', binary: false, overCap: false, oldHash: 'a'.repeat(40), newHash: 'b'.repeat(40), size: 1, linesAdded: 1, linesDeleted: 1, kind: 'file', sensitive: null }], filesTotal: 1, overCapFiles: 0, overCapBytes: 0, ignored: null, git: null, netDiff: null, durationMs: 1,
});

async function run(): Promise<string> {
  world.script = { root: [{ code: [] }, { code: [] }, { answer: 'done' }] };
  world.cellScanFinds = (i) => changed(i.requestId);
  const input = world.input('t');
  await world.client.workflow.execute('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] });
  return input.sessionId;
}

const cellScans = (local: boolean) => world.scans.filter((s) => s.reason === 'cell' && s.local === local);
/** Each cell's CellExecuted and the WorkspaceChanged logged after it, as request ids. */
const cellEnds = (id: string) => world.events(id).flatMap((e) => (e.type === 'CellExecuted' || (e.type === 'WorkspaceChanged' && e.reason === 'cell')) ? [`${e.type} ${e.requestId}`] : []);

test("each cell's scan runs in the cell's activity, and its changes are logged with the cell's end", async () => {
  const id = await run();
  const requests = (world.logs.get(id) ?? []).filter((r) => r.event.type === 'CellRequested');
  expect(requests).toHaveLength(2);
  expect(cellScans(true)).toEqual([]);
  expect(cellScans(false).map((s) => [s.requestId, s.key])).toEqual(requests.map((r) => [`${id}/${r.seq}`, `${id}/${r.seq}/scan`]));
  expect(cellEnds(id)).toEqual(requests.flatMap((r) => [`CellExecuted ${id}/${r.seq}`, `WorkspaceChanged ${id}/${r.seq}`]));
  // The start and end scans stay the workflow's own.
  expect(world.scans.filter((s) => s.reason !== 'cell').map((s) => [s.reason, s.local])).toEqual([['start', true], ['end', true]]);
});

test('a scan that fails in the cell activity is made again by the workflow, and nothing is lost', async () => {
  world.failCellScans = true;
  const id = await run();
  expect(cellScans(false)).toHaveLength(2);
  // With the same key: a scan the cell's activity got as far as recording would be the answer.
  expect(cellScans(true).map((s) => [s.requestId, s.key])).toEqual(cellScans(false).map((s) => [s.requestId, s.key]));
  expect(cellEnds(id)).toHaveLength(4);
  expect(world.types(id).at(-1)).toBe('SessionCompleted');
});
