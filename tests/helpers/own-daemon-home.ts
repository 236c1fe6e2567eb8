import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventLogActivities, createEventLogProducer } from '../../activities/event-log';
import { loadConfig, type RecurConfig } from '../../config';
import { startDaemon, type Daemon, type DaemonOptions } from '../../services/daemon/daemon';
import { kafkaClient } from '../../config/connections';
import { stackPaths } from '../../config/home-paths';
import { homeSigner } from '../../services/home/log-keys';
import { ensureEventTopicAccess } from '../../services/devstack';
import { fileOffsetIndex, treeStartMarker } from '../../services/projector';

/**
 * For a daemon run in-process against the real stack: a home, topic and task queue of its own
 * (named `<prefix>-<random>`), so nothing here picks up or disturbs other tests' sessions, and
 * the event-log writer a worker of that home would have (the home's signing key, its offset index).
 */
export function ownDaemonHome(prefix: string) {
  const base = loadConfig();
  const suffix = randomUUID().slice(0, 8);
  const config: RecurConfig = {
    ...base,
    home: mkdtempSync(join(tmpdir(), `recur-${prefix}-`)),
    kafka: { ...base.kafka, topic: `${prefix}-${suffix}` },
    temporal: { ...base.temporal, taskQueue: `${prefix}-${suffix}` },
  };
  // Its own home, the stack's broker: the broker's users are the stack home's.
  mkdirSync(stackPaths(config).run, { recursive: true });
  copyFileSync(stackPaths(base).kafkaCredentials, stackPaths(config).kafkaCredentials);
  const kafka = kafkaClient(config, 'writer', prefix);
  const producer = createEventLogProducer(kafka);
  const index = fileOffsetIndex(stackPaths(config).logIndex);
  const log = createEventLogActivities({ kafka, topic: config.kafka.topic, producer, signer: homeSigner(stackPaths(config).keys), beforeTreeStarts: treeStartMarker(kafka, config.kafka.topic, index) });
  /** Makes the home's topic (`partitions` of them), connects the writer, and starts the daemon in-process supervising a dummy worker. */
  const start = async (partitions: number, extra: Partial<DaemonOptions> = {}): Promise<Daemon> => {
    await ensureEventTopicAccess({ ...config, kafka: { ...config.kafka, partitions } });
    await producer.connect();
    return startDaemon({
      config, port: 0, workerGraceMs: 2000, ...extra,
      workerCommand: { cmd: process.execPath, args: ['-e', 'setInterval(() => {}, 1000) // recur dummy worker'] },
    });
  };
  return { base, suffix, config, kafka, producer, index, log, start };
}
