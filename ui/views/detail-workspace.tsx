import type { StoredEvent, WorkspaceChanged } from '../../schemas';
import { workspaceFileRows } from '../model/workspace-files';
import { BlobView } from './blob-view';

/** A workspace scan: the files it found changed, those that run outside Recur first and marked, and its diffs, loaded on demand. */
export function WorkspaceDetail({ event }: { event: StoredEvent<WorkspaceChanged> }) {
  const ev = event.event;
  const rows = workspaceFileRows(ev.files);
  const outside = rows.filter((r) => r.mark !== null).length;
  return (
    <section>
      <p>{ev.reason} scan #{ev.scan} of <code>{ev.workspace}</code> · {ev.filesTotal} file(s) changed{ev.files.length < ev.filesTotal ? `, first ${ev.files.length} listed` : ''}</p>
      {outside > 0 && <p class="outside-note">{outside} of them run or are read later outside Recur: review before trusting the result.</p>}
      <table class="grid files">
        <tbody>
          {rows.map(({ file: f, mark }) => (
            <tr key={f.path} class={mark?.cls}>
              <td><code>{f.path}</code>{mark && <> <span class={`file-mark ${mark.cls}`} title={mark.title}>{mark.label}</span></>}</td>
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
