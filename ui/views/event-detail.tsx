import type { CellExecuted, CellRequested, HarnessEdited, ModelCalled, StoredEvent, WorkspaceChanged } from '../../schemas';
import { blobRefs } from '../../services/projector/timeline';
import type { SessionViewProps } from '../state/types';
import { BlobView } from './blob-view';
import { CellDetail } from './detail-cell';
import { DetailHeader } from './detail-header';
import { HarnessDetail } from './detail-harness';
import { ModelDetail } from './detail-model';
import { WorkspaceDetail } from './detail-workspace';

/** The blobs a WorkspaceDetail shows as diffs itself. */
const WORKSPACE_DIFFS = new Set(['diff', 'netDiff']);

function TypeDetail(props: SessionViewProps & { event: StoredEvent }) {
  const { event } = props;
  const select = (id: string) => props.select(id);
  switch (event.event.type) {
    case 'ModelCalled':
      return <ModelDetail {...props} event={event as StoredEvent<ModelCalled>} />;
    case 'CellRequested':
    case 'CellExecuted':
      return <CellDetail event={event as StoredEvent<CellRequested | CellExecuted>} select={select} />;
    case 'HarnessEdited':
      return <HarnessDetail event={event as StoredEvent<HarnessEdited>} select={select} />;
    case 'WorkspaceChanged':
      return <WorkspaceDetail event={event as StoredEvent<WorkspaceChanged>} />;
    default:
      return null;
  }
}

/** One event in full: header, what its type means, its blobs on demand and its raw fields. */
export function EventDetail(props: SessionViewProps & { event: StoredEvent }) {
  const { event } = props;
  const blobs = blobRefs(event.event).filter((b) => event.type !== 'WorkspaceChanged' || !WORKSPACE_DIFFS.has(b.field));
  return (
    <article class="event-detail" data-testid="event-detail" data-event={event.eventId}>
      <DetailHeader event={event} info={props.info} />
      <TypeDetail {...props} />
      {blobs.length > 0 && (
        <section>
          <h4>Blobs</h4>
          {blobs.map((b) => <BlobView key={b.field} field={b.field} blobRef={b.ref} />)}
        </section>
      )}
      <details>
        <summary>All fields</summary>
        <pre class="text">{JSON.stringify(event.event, null, 2)}</pre>
      </details>
    </article>
  );
}
