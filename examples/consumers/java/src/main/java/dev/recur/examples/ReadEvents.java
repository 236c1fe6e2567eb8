package dev.recur.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Prints every event of one Recur session tree, read straight from the event topic, as JSON
 * lines. It uses no Recur code: the record format (docs/consumers.md) and the published writer
 * schemas (schemas/generated/writer-schemas.json) are all it needs, with Apache Avro and
 * kafka-clients.
 *
 * <pre>
 * KAFKA_BROKERS=127.0.0.1:19092 KAFKA_USERNAME=recur-reader KAFKA_PASSWORD=... \
 *     java -jar target/recur-read-events.jar --root &lt;root session id&gt;
 * </pre>
 *
 * Each line holds the envelope's fields (payload aside, {@code ts} in epoch milliseconds) and,
 * under {@code event}, the payload's fields as the current schema of its type reads them.
 */
public final class ReadEvents {
  private ReadEvents() {}

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = parseArgs(argv);
    String root = args.get("root");
    String password = args.get("password");
    if (root == null || password == null) fail("usage: --root <root session id>, and the password in KAFKA_PASSWORD (or --password)");
    JsonNode published = new ObjectMapper().readTree(Files.readString(Path.of(args.get("schemas"))));

    BinaryMessageDecoder<GenericRecord> envelopes = decoder("Envelope", published.get("envelope"));
    Map<String, BinaryMessageDecoder<GenericRecord>> events = new HashMap<>();
    published.get("events").properties().forEach((e) -> events.put(e.getKey(), decoder(e.getKey(), e.getValue())));

    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    Set<String> seen = new HashSet<>();
    String topic = args.get("topic");
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig(args, password))) {
      readTree(consumer, topic, root, Double.parseDouble(args.get("timeout")), (r) -> {
        String where = topic + "/" + r.partition() + "@" + r.offset();
        GenericRecord envelope = decode(envelopes, ByteBuffer.wrap(r.value()), where);
        // A retried append writes the same record again; readers keep the first.
        if (!seen.add(envelope.get("eventId").toString())) return;
        String type = envelope.get("type").toString();
        BinaryMessageDecoder<GenericRecord> payloads = events.get(type);
        if (payloads == null) fail(where + ": unknown event type " + type);
        Map<String, Object> line = new LinkedHashMap<>();
        for (Schema.Field f : envelope.getSchema().getFields()) {
          if (!f.name().equals("payload")) line.put(f.name(), envelope.get(f.name()));
        }
        line.put("event", decode(payloads, (ByteBuffer) envelope.get("payload"), where));
        // Avro's own JSON rendering: strings escaped, longs as numbers, unions unwrapped, enums by symbol.
        out.println(GenericData.get().toString(line));
      });
    }
    out.flush();
  }

  /**
   * Reads as kind's current schema whatever any of its versions wrote: the decoder picks the
   * writer schema by the fingerprint in the header and resolves it to the reader schema.
   */
  static BinaryMessageDecoder<GenericRecord> decoder(String kind, JsonNode versions) {
    int current = versions.size() - 1;
    BinaryMessageDecoder<GenericRecord> decoder = new BinaryMessageDecoder<>(GenericData.get(), parse(kind, versions.get(current)));
    for (int i = 0; i < current; i++) decoder.addSchema(parse(kind, versions.get(i)));
    return decoder;
  }

  static Schema parse(String kind, JsonNode version) {
    // A parser per schema: each is standalone, and one parser refuses a named type defined twice.
    Schema schema = new Schema.Parser().parse(version.get("schema").toString());
    String fingerprint = String.format("%016x", Long.reverseBytes(SchemaNormalization.parsingFingerprint64(schema)));
    if (!fingerprint.equals(version.get("fingerprint").asText())) {
      fail(kind + " v" + version.get("version") + " lists " + version.get("fingerprint").asText() + ", Avro computes " + fingerprint);
    }
    return schema;
  }

  static GenericRecord decode(BinaryMessageDecoder<GenericRecord> decoder, ByteBuffer value, String where) {
    try {
      return decoder.decode(value);
    } catch (Exception e) {
      fail(where + ": " + e);
      return null;
    }
  }

  /** Hands `each` the tree's records: every partition, from its start to its end as of now. */
  static void readTree(KafkaConsumer<byte[], byte[]> consumer, String topic, String root, double timeoutS,
      Consumer<ConsumerRecord<byte[], byte[]>> each) {
    List<TopicPartition> partitions = consumer.partitionsFor(topic).stream().map((p) -> new TopicPartition(topic, p.partition())).toList();
    if (partitions.isEmpty()) fail("topic " + topic + " does not exist, or this principal may not describe it");
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    Map<TopicPartition, Long> start = consumer.beginningOffsets(partitions);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
    Set<TopicPartition> left = new HashSet<>(partitions);
    left.removeIf((tp) -> end.get(tp) <= start.get(tp));
    long deadline = System.nanoTime() + (long) (timeoutS * 1e9);
    while (!left.isEmpty()) {
      if (System.nanoTime() > deadline) fail("read did not reach the end of " + left + " within " + timeoutS + " s");
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
        // Records are keyed by sessionId, so a session's events are in one partition, in order.
        if (r.offset() < end.get(new TopicPartition(topic, r.partition())) && r.key() != null && inTree(new String(r.key(), StandardCharsets.UTF_8), root)) {
          each.accept(r);
        }
      }
      left.removeIf((tp) -> consumer.position(tp) >= end.get(tp));
    }
  }

  static boolean inTree(String key, String root) {
    return key.equals(root) || key.startsWith(root + "/");
  }

  /** No consumer group: it reads by assignment and commits nothing, so it needs only Read and Describe on the topic. */
  static Properties consumerConfig(Map<String, String> args, String password) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args.get("brokers"));
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "recur-example-java");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put("security.protocol", args.get("security-protocol"));
    p.put("sasl.mechanism", "SCRAM-SHA-512");
    p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
        + jaasQuoted(args.get("username")) + "\" password=\"" + jaasQuoted(password) + "\";");
    return p;
  }

  static String jaasQuoted(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  /** --name value pairs over defaults from the environment, as the Python consumer takes them. */
  static Map<String, String> parseArgs(String[] argv) throws Exception {
    Map<String, String> args = new HashMap<>();
    Path jar = Path.of(ReadEvents.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    args.put("schemas", jar.resolveSibling("../../../../schemas/generated/writer-schemas.json").normalize().toString());
    args.put("brokers", env("KAFKA_BROKERS", "127.0.0.1:19092"));
    args.put("topic", env("KAFKA_TOPIC", "recur.events.v1"));
    args.put("username", env("KAFKA_USERNAME", "recur-reader"));
    args.put("password", System.getenv("KAFKA_PASSWORD"));
    args.put("security-protocol", env("KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT"));
    args.put("timeout", "60");
    for (int i = 0; i < argv.length; i += 2) {
      String name = argv[i].startsWith("--") ? argv[i].substring(2) : "";
      if (!args.containsKey(name) && !name.equals("root") || i + 1 >= argv.length) fail("unknown or valueless argument " + argv[i]);
      args.put(name, argv[i + 1]);
    }
    return args;
  }

  static String env(String name, String otherwise) {
    String v = System.getenv(name);
    return v == null || v.isEmpty() ? otherwise : v;
  }

  static void fail(String message) {
    System.err.println("read-events: " + message);
    System.exit(1);
  }
}
