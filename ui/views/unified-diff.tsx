import { unifiedLines } from '../model/diff';

/** A unified (git) diff with added, removed, hunk and file lines coloured. */
export function UnifiedDiff({ text, testId }: { text: string; testId?: string }) {
  return (
    <pre class="diff" data-testid={testId}>
      {unifiedLines(text).map((l, i) => (
        <div key={i} class={`diff-${l.kind}`}>{l.text || ' '}</div>
      ))}
    </pre>
  );
}
