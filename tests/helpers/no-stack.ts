import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Ports nobody listens on: each bound by us for a moment, then let go. */
async function closedPorts(n: number): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < n; i++) {
    ports.push(await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as { port: number };
        s.close(() => resolve(port));
      });
    }));
  }
  return ports;
}

/** What a fresh machine has: an empty home, and nothing listening where Kafka, Temporal, Jupyter or a daemon would be. */
export async function noStack(): Promise<Record<string, string>> {
  const names = ['RECUR_KAFKA_PORT', 'RECUR_KAFKA_CONTROLLER_PORT', 'RECUR_TEMPORAL_PORT', 'RECUR_TEMPORAL_HTTP_PORT', 'RECUR_TEMPORAL_METRICS_PORT', 'RECUR_JUPYTER_PORT', 'RECUR_DAEMON_PORT'];
  const ports = await closedPorts(names.length);
  return { RECUR_HOME: mkdtempSync(join(tmpdir(), 'recur-fresh-home-')), ...Object.fromEntries(names.map((k, i) => [k, String(ports[i])])) };
}
