import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RecurConfig } from '../../config';
import { StackError } from '../../errors';
import { stackPaths } from '../../config/home-paths';
import { KAFKA_ROLES, type KafkaCredentials } from '../../config/kafka-credentials';
import { jvmOpts, serverProperties, singleNode, writeProperties } from './kafka-properties';
import { repoRoot } from '../home/repo-root';
import { baseEnv } from './service';

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
  else child.once('exit', (code) => resolve(code));
});

/**
 * Gives a log formatted without SCRAM users (a home from before the broker required SASL) the
 * home's users, keeping every event in it. SCRAM users live in the KRaft metadata log, which only
 * a running broker can append to, and the controller listener does not take
 * AlterUserScramCredentials; so the broker runs once with PLAIN for the admin also open on its
 * client listener, ScramUsers.java adds the users through it, and the broker stops again.
 */
export async function addScramUsers(config: RecurConfig, creds: KafkaCredentials): Promise<void> {
  const p = stackPaths(config);
  const props = join(p.kafkaData, 'upgrade.properties');
  writeProperties(props, serverProperties(config, join(p.kafkaData, 'data'), creds.admin, singleNode(config), true));
  mkdirSync(p.logs, { recursive: true });
  const logFile = join(p.logs, 'kafka-upgrade.log');
  const fd = openSync(logFile, 'w');
  const cp = `${p.kafkaLib}/*`;
  const broker = spawn(config.java, [...jvmOpts(config), `-Drecur.home=${config.home}`, '-cp', cp, 'kafka.Kafka', props],
    { env: baseEnv(), stdio: ['ignore', fd, fd] });
  try {
    const tool = spawn(config.java, ['-Xmx128m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Dorg.slf4j.simpleLogger.defaultLogLevel=error',
      '-cp', cp, join(repoRoot(), 'services', 'devstack', 'kafka', 'ScramUsers.java'), `${config.host}:${config.ports.kafka}`],
    { env: baseEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    tool.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    tool.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    const lines = [creds.admin.username, creds.admin.password, ...KAFKA_ROLES.flatMap((r) => [creds[r].username, creds[r].password])];
    tool.stdin!.end(`${lines.join('\n')}\n`);
    const code = await Promise.race([exited(tool), exited(broker).then(() => 'broker' as const)]);
    if (code === 'broker') {
      tool.kill('SIGKILL');
      throw new StackError('kafka', `the broker exited while adding SCRAM users to the existing log; see ${logFile}`, 'fix the cause shown there and run `recur up` again');
    }
    if (code !== 0) {
      const last = out.trim().split('\n').filter((l) => !/^\s+at /.test(l)).slice(-2).join(' ');
      throw new StackError('kafka', `adding SCRAM users to the existing Kafka log failed: ${last}`,
        'this one-time upgrade compiles services/devstack/kafka/ScramUsers.java, so it needs a JDK (e.g. openjdk-17-jdk-headless), not only a JRE');
    }
  } finally {
    broker.kill('SIGTERM');
    const timer = setTimeout(() => broker.kill('SIGKILL'), 30_000);
    await exited(broker);
    clearTimeout(timer);
    closeSync(fd);
    rmSync(props, { force: true });
  }
}
