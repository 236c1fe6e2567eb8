import { BLOB_MAX, blobCaption, blobUrl } from '../../ui/model/blob';
import { lineDiff, prettyJson, unifiedLines } from '../../ui/model/diff';
import { temporalLink, traceLink } from '../../ui/model/links';
import { outcomeOf } from '../../ui/model/outcome';

describe('diffs and blobs in the event detail', () => {
  it('diffs harness values field by field', () => {
    const before = prettyJson('{"text":"one","tags":["a"]}');
    const after = prettyJson('{"text":"two","tags":["a"]}');
    expect(lineDiff(before, after)).toEqual([
      { kind: 'same', text: '{' },
      { kind: 'del', text: '  "text": "one",' },
      { kind: 'add', text: '  "text": "two",' },
      { kind: 'same', text: '  "tags": [' },
      { kind: 'same', text: '    "a"' },
      { kind: 'same', text: '  ]' },
      { kind: 'same', text: '}' },
    ]);
    expect(lineDiff(prettyJson(null), prettyJson('"new"'))).toEqual([{ kind: 'add', text: '"new"' }]);
    expect(prettyJson('not json')).toBe('not json\n');
  });

  it('marks the lines of a unified diff', () => {
    const diff = 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same';
    expect(unifiedLines(diff).map((l) => l.kind)).toEqual(['file', 'file', 'file', 'hunk', 'del', 'add', 'ctx']);
  });

  it('addresses blobs by hash only and says when a fetch was cut', () => {
    const sha = 'ab'.repeat(32);
    expect(blobUrl(sha)).toBe(`/v1/blobs/${sha}?max=${BLOB_MAX}`);
    expect(blobUrl(sha, null)).toBe(`/v1/blobs/${sha}`);
    expect(() => blobUrl('../etc/passwd')).toThrow('not a blob address');
    expect(blobCaption(262144, 1048576)).toBe('first 262,144 of 1,048,576 bytes');
    expect(blobCaption(12, 12)).toBe('12 bytes');
  });
});

describe('links out of the viewer', () => {
  const info = { temporalUi: 'http://localhost:8233', namespace: 'default', traceUrl: 'http://localhost:16686/trace/{traceId}' };

  it('fills the trace template and names the workflow, only when each is configured', () => {
    expect(traceLink(info, 'ab12')).toBe('http://localhost:16686/trace/ab12');
    expect(traceLink({ ...info, traceUrl: null }, 'ab12')).toBeNull();
    expect(temporalLink(info, 'r1/a b')).toBe('http://localhost:8233/namespaces/default/workflows/r1%2Fa%20b');
    expect(temporalLink({ ...info, temporalUi: null }, 'r1')).toBeNull();
  });
});

describe('outcomes at a glance', () => {
  it("reads a cell's status and a harness edit's result as good, bad or worth a look", () => {
    expect(['ok', 'applied', 'error', 'timeout', 'refused', 'interrupted', 'proposed', 'new'].map(outcomeOf))
      .toEqual(['good', 'good', 'bad', 'bad', 'bad', 'warn', 'warn', 'warn']);
  });
});
