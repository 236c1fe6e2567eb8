import { loadConfig } from '../../config';
import { kafkaClient } from '../../config/connections';

describe('Kafka KRaft broker with kafkajs', () => {
  const config = loadConfig();
  const kafka = kafkaClient(config, 'admin', 'smoke');

  it('produces and consumes through a consumer group', async () => {
    const topic = `smoke-${process.pid}-${Date.now()}`;
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 1 }], waitForLeaders: true });
    await admin.disconnect();

    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const sent = Array.from({ length: 10 }, (_, i) => ({ key: `k${i % 3}`, value: `v${i}` }));
    await producer.send({ topic, acks: -1, messages: sent });
    await producer.disconnect();

    const consumer = kafka.consumer({ groupId: `${topic}-group` });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const got: string[] = [];
    await new Promise<void>((resolve, reject) => {
      consumer.run({
        autoCommit: false,
        eachMessage: async ({ topic: t, partition, message }) => {
          await consumer.commitOffsets([{ topic: t, partition, offset: String(Number(message.offset) + 1) }]);
          got.push(message.value!.toString());
          if (got.length === sent.length) resolve();
        },
      }).catch(reject);
    });
    await consumer.disconnect();
    expect(got.sort()).toEqual(sent.map((m) => m.value).sort());

    const check = kafka.admin();
    await check.connect();
    const committed = await check.fetchOffsets({ groupId: `${topic}-group`, topics: [topic] });
    const ends = await check.fetchTopicOffsets(topic);
    await check.disconnect();
    const byPartition = (rows: Array<{ partition: number; offset: string }>) =>
      Object.fromEntries(rows.map((p) => [p.partition, Math.max(0, Number(p.offset))]));
    expect(byPartition(committed[0].partitions)).toEqual(byPartition(ends.map((e) => ({ partition: e.partition, offset: e.high }))));
  });
});
