import { useState } from 'preact/hooks';
import type { BlobRef } from '../../schemas';
import { blobCaption } from '../model/blob';
import { fetchBlob, type FetchedBlob } from './fetch-blob';
import { UnifiedDiff } from './unified-diff';

interface Props {
  field: string;
  blobRef: BlobRef;
  /** Show the text as a unified diff (a workspace change's diff blobs). */
  diff?: boolean;
}

/** A blob the event names, fetched only when asked for. */
export function BlobView({ field, blobRef, diff = false }: Props) {
  const [state, setState] = useState<{ blob?: FetchedBlob; error?: string; loading?: boolean }>({});
  const load = () => {
    setState({ loading: true });
    fetchBlob(blobRef.sha256).then((blob) => setState({ blob }), (err: Error) => setState({ error: err.message }));
  };
  return (
    <div class="blob">
      <div class="blob-head">
        <code>{field}</code> <span class="dim">{blobRef.sha256.slice(0, 12)} · {blobRef.size.toLocaleString('en-US')} bytes</span>{' '}
        {!state.blob && (
          <button type="button" data-testid="load-blob" data-field={field} disabled={state.loading} onClick={load}>
            {state.loading ? 'loading…' : 'load'}
          </button>
        )}
      </div>
      {state.error && <p class="error">{state.error}</p>}
      {state.blob && (
        <>
          <p class="dim">{blobCaption(state.blob.fetched, state.blob.size)}</p>
          {diff ? <UnifiedDiff text={state.blob.text} testId="blob-text" /> : <pre class="blob-text" data-testid="blob-text">{state.blob.text}</pre>}
        </>
      )}
    </div>
  );
}
