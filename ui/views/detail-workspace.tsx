import type { StoredEvent, WorkspaceChanged } from '../../schemas';
import { BlobView } from './blob-view';

/** A workspace scan: the files it found changed, and its diffs, loaded on demand. */
export function WorkspaceDetail({ event }: { event: StoredEvent<WorkspaceChanged> }) {
  const ev = event.event;
  return (
    <section>
      <p>{ev.reason} scan #{ev.scan} of <code>{ev.workspace}</code> · {ev.filesTotal} file(s) changed{ev.files.length < ev.filesTotal ? `, first ${ev.files.length} listed` : ''}</p>
      <table class="grid files">
        <tbody>
          {ev.files.map((f) => (
            <tr key={f.path}>
              <td><code>{f.path}</code></td>
              <td>{f.change}{f.binary ? ' (binary)' : ''}{f.overCap ? ' (over cap)' : ''}</td>
              <td class="diff-add">+{f.linesAdded}</td>
              <td class="diff-del">-{f.linesDeleted}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {ev.diff && <BlobView field="diff" blobRef={ev.diff} diff />}
      {ev.netDiff && <BlobView field="netDiff" blobRef={ev.netDiff} diff />}
    </section>
  );
}
