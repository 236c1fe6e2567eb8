import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withCallerUmask } from '../home/owner-only';
import { parseFeed, releasedBy } from './records-feed';
import type { ResearchTask } from './tasks';

export interface InitOptions {
  task: ResearchTask;
  dir: string;
  knowledge: string;
}

export interface InitResult {
  files: string[];
  papers: number;
  records: number;
}

/**
 * Writes a new workspace for `task` into `dir` (which the caller checked is empty or absent):
 * the task's files, goal.md stating the knowledge tier, papers/ only on a tier that has them,
 * the records released at the start, and an empty notebook. The workspace is the user's, so
 * it is written under their umask, not the home's owner-only one.
 */
export function initWorkspace(o: InitOptions): InitResult {
  const tier = o.task.manifest.knowledge[o.knowledge];
  return withCallerUmask(() => {
    mkdirSync(o.dir, { recursive: true });
    const files: string[] = [];
    for (const name of o.task.manifest.files) {
      const from = join(o.task.dir, name);
      if (name === 'goal.md') writeFileSync(join(o.dir, name), readFileSync(from, 'utf8').replace('{{knowledge}}', tier.text));
      else copyFileSync(from, join(o.dir, name));
      chmodSync(join(o.dir, name), statSync(from).mode & 0o777);
      files.push(name);
    }
    let papers = 0;
    if (tier.papers) {
      mkdirSync(join(o.dir, 'papers'));
      for (const note of readdirSync(join(o.task.dir, 'papers')).sort()) {
        copyFileSync(join(o.task.dir, 'papers', note), join(o.dir, 'papers', note));
        files.push(`papers/${note}`);
        papers++;
      }
    }
    const feedPath = join(o.task.dir, 'records', 'feed.jsonl');
    const released = existsSync(feedPath) ? releasedBy(parseFeed(readFileSync(feedPath, 'utf8')), 0) : [];
    mkdirSync(join(o.dir, 'records'));
    writeFileSync(join(o.dir, 'records', 'feed.jsonl'), released.map((r) => `${JSON.stringify(r)}\n`).join(''));
    mkdirSync(join(o.dir, 'notebook'));
    writeFileSync(join(o.dir, 'notebook', 'thread.md'), `# ${o.task.manifest.name}: thread\n\nAppend every decision and its outcome here.\n`);
    files.push('records/feed.jsonl', 'notebook/thread.md');
    return { files, papers, records: released.length };
  });
}
