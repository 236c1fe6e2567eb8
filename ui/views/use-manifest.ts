import { useEffect, useState } from 'preact/hooks';
import { manifestNames, type ManifestNames } from '../model/manifest';
import { fetchBlob } from './fetch-blob';

/** Manifests are content-addressed, so one fetch per hash serves every later look. */
const cache = new Map<string, Promise<ManifestNames>>();

function load(sha256: string): Promise<ManifestNames> {
  let p = cache.get(sha256);
  if (!p) {
    p = fetchBlob(sha256, true).then((b) => manifestNames(b.text));
    // A failed fetch may work later (signed back in, daemon up again): forget it.
    p.catch(() => cache.delete(sha256));
    cache.set(sha256, p);
  }
  return p;
}

export type ManifestState = { names: ManifestNames } | { error: string } | { loading: true } | null;

/** The names in the snapshot manifest `sha256`, loaded from the blob store; null for no snapshot. */
export function useManifest(sha256: string | null): ManifestState {
  const [state, setState] = useState<ManifestState>(null);
  useEffect(() => {
    if (sha256 === null) {
      setState(null);
      return undefined;
    }
    let current = true;
    setState({ loading: true });
    load(sha256).then((names) => current && setState({ names }), (err: Error) => current && setState({ error: err.message }));
    return () => {
      current = false;
    };
  }, [sha256]);
  return state;
}
