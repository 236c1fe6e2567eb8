import type { RecurConfig } from '../../../config';
import type { StoredEvent } from '../../../schemas';
import { encodeManifest } from '../../../activities/workspace/manifest';
import { manifestOnDisk } from '../../../activities/workspace/manifest-on-disk';
import { sha256Hex } from '../../../activities/blob-store';
import { stackPaths } from '../../../config/home-paths';
import { workspaceChains } from '../../projector';
import type { CliIo } from '../command-context';

/**
 * The workspace half of `recur replay --verify`: per workspace, the logged scans compose (each
 * starts where the one before ended) to the final hash, and the workspace on disk, where this
 * host has it, still has that hash. Returns the problems found, each already reported.
 */
export async function verifyWorkspaces(config: RecurConfig, events: readonly StoredEvent[], io: CliIo & { json: boolean }): Promise<string[]> {
  const problems: string[] = [];
  for (const chain of workspaceChains(events)) {
    const disk = await manifestOnDisk(stackPaths(config).workspaceLog, chain.workspace, config.worker.workspaceMaxFileKiB * 1024);
    const onDisk = disk ? sha256Hex(encodeManifest(disk)) : null;
    const mine = [...chain.breaks];
    if (onDisk !== null && onDisk !== chain.final.sha256) {
      mine.push(`the workspace on disk has hash ${onDisk.slice(0, 12)}, not the logged final ${chain.final.sha256.slice(0, 12)}: it changed after the session's last scan`);
    }
    problems.push(...mine.map((m) => `${chain.workspace}: ${m}`));
    const diskWord = onDisk === null ? 'not on this host' : onDisk === chain.final.sha256 ? 'same on disk' : 'DIFFERS on disk';
    if (io.json) io.out(JSON.stringify({ kind: 'workspace', workspace: chain.workspace, scans: chain.scans, final: chain.final.sha256, onDisk, problems: mine }));
    else {
      io.out(`workspace ${chain.workspace}: ${chain.scans} scans, final hash ${chain.final.sha256.slice(0, 12)}, ${diskWord}${chain.breaks.length ? `, ${chain.breaks.length} break(s) in the log` : ''}`);
      for (const m of mine) io.out(`  ${m}`);
    }
  }
  return problems;
}
