// Kafka's own Java classes on the other side of kafka-wire-client's checks (.ci/client.sh):
// run as a single-file program on the broker's class path (Kafka 4.4.0's kafka-clients).
//
//   java -cp CLASSPATH ClientCheck.java create BOOTSTRAP TOPIC PARTITIONS [REPLICAS]
//       creates the topic with Kafka's Admin client (REPLICAS replicas, default 1; with more than
//       one, min.insync.replicas 2) and waits until every partition has a leader
//   java -cp CLASSPATH ClientCheck.java leaders BOOTSTRAP TOPIC
//       prints each partition's leader, one line "PARTITION LEADER" each
//   java -cp CLASSPATH ClientCheck.java consume BOOTSTRAP TOPIC COUNT [ISOLATION]
//       reads COUNT records from the start of every partition with Kafka's consumer
//       (isolation.level ISOLATION, default read_committed) and prints one JSON line per record,
//       partitions in order, offsets in order:
//       {"partition":P,"offset":O,"key":B64|null,"value":B64|null,"headers":[[KEY,B64|null],...]}
//   java -cp CLASSPATH ClientCheck.java partition PARTITIONS < keys
//       prints the partition Kafka's producer gives each key (one UTF-8 key a line), by its
//       murmur2 (org.apache.kafka.common.utils.Utils)
//   java -cp CLASSPATH ClientCheck.java produce BOOTSTRAP TOPIC < lines
//       produces each line KEY<TAB>VALUE with Kafka's producer (acks=all, idempotent) to the
//       partition its key gives
//   java -cp CLASSPATH ClientCheck.java produce-records BOOTSTRAP TOPIC COMPRESSION [tx] < lines
//       produces with Kafka's producer (acks=all, idempotent, compression.type COMPRESSION) each
//       line PARTITION<TAB>KEY<TAB>VALUE<TAB>HEADERS: KEY and VALUE base64 or "-" for null,
//       HEADERS "-" or NAME=B64|-,... (NAME plain text). With tx, the producer is transactional:
//       a transaction is open from the start, and a line COMMIT or ABORT ends it and opens the
//       next. Prints the number of records sent.
//   java -cp CLASSPATH ClientCheck.java quota BOOTSTRAP CLIENT_ID BYTES_PER_SECOND
//       sets the produce quota (producer_byte_rate) of the client id with Kafka's Admin client
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;

public class ClientCheck {
    static String b64(byte[] b) {
        return b == null ? "null" : "\"" + Base64.getEncoder().encodeToString(b) + "\"";
    }

    static String str(String s) {
        StringBuilder o = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') o.append('\\').append(c);
            else if (c < 0x20) o.append(String.format("\\u%04x", (int) c));
            else o.append(c);
        }
        return o.append('"').toString();
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "create" -> create(args[1], args[2], Integer.parseInt(args[3]),
                    args.length > 4 ? Short.parseShort(args[4]) : (short) 1);
            case "leaders" -> leaders(args[1], args[2]);
            case "consume" -> consume(args[1], args[2], Long.parseLong(args[3]),
                    args.length > 4 ? args[4] : "read_committed");
            case "produce-records" -> produceRecords(args[1], args[2], args[3], args.length > 4 && args[4].equals("tx"));
            case "partition" -> partition(Integer.parseInt(args[1]));
            case "produce" -> produce(args[1], args[2]);
            case "quota" -> quota(args[1], args[2], Double.parseDouble(args[3]));
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    static void create(String bootstrap, String topic, int partitions, short replicas) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(p)) {
            NewTopic t = new NewTopic(topic, partitions, replicas);
            if (replicas > 1) t.configs(Map.of("min.insync.replicas", "2"));
            admin.createTopics(List.of(t)).all().get();
            for (int i = 0; i < 100; i++) {
                TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
                if (d.partitions().stream().allMatch(x -> x.leader() != null)) return;
                Thread.sleep(100);
            }
            throw new IllegalStateException("no leader for every partition of " + topic);
        }
    }

    /** A produce quota of `bytesPerSecond` on the client id `clientId`. */
    static void quota(String bootstrap, String clientId, double bytesPerSecond) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(p)) {
            ClientQuotaEntity who = new ClientQuotaEntity(Map.of(ClientQuotaEntity.CLIENT_ID, clientId));
            ClientQuotaAlteration.Op op = new ClientQuotaAlteration.Op("producer_byte_rate", bytesPerSecond);
            admin.alterClientQuotas(List.of(new ClientQuotaAlteration(who, List.of(op)))).all().get();
        }
    }

    static void leaders(String bootstrap, String topic) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(p)) {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            StringBuilder out = new StringBuilder();
            d.partitions().forEach(x -> out.append(x.partition()).append(' ')
                    .append(x.leader() == null ? -1 : x.leader().id()).append('\n'));
            System.out.print(out);
        }
    }

    static void consume(String bootstrap, String topic, long count, String isolation) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        p.put("enable.auto.commit", "false");
        p.put("isolation.level", isolation);
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> byPartition = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo i : c.partitionsFor(topic)) tps.add(new TopicPartition(topic, i.partition()));
            c.assign(tps);
            c.seekToBeginning(tps);
            long got = 0;
            long deadline = System.currentTimeMillis() + 60_000;
            while (got < count && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    byPartition.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r);
                    got++;
                }
            }
            // Anything beyond COUNT shows as a record too many.
            for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(1000))) {
                byPartition.computeIfAbsent(r.partition(), k -> new ArrayList<>()).add(r);
            }
        }
        StringBuilder out = new StringBuilder();
        for (List<ConsumerRecord<byte[], byte[]>> rs : byPartition.values()) {
            for (ConsumerRecord<byte[], byte[]> r : rs) {
                out.append("{\"partition\":").append(r.partition()).append(",\"offset\":").append(r.offset());
                out.append(",\"key\":").append(b64(r.key())).append(",\"value\":").append(b64(r.value()));
                out.append(",\"headers\":[");
                boolean first = true;
                for (Header h : r.headers()) {
                    if (!first) out.append(',');
                    first = false;
                    out.append('[').append(str(h.key())).append(',').append(b64(h.value())).append(']');
                }
                out.append("]}\n");
            }
        }
        System.out.print(out);
    }

    static byte[] unb64(String s) {
        return s.equals("-") ? null : Base64.getDecoder().decode(s);
    }

    static void produceRecords(String bootstrap, String topic, String compression, boolean tx) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        p.put("acks", "all");
        p.put("enable.idempotence", "true");
        p.put("compression.type", compression);
        if (tx) p.put("transactional.id", "kwire-check-" + topic);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        long sent = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            if (tx) {
                producer.initTransactions();
                producer.beginTransaction();
            }
            for (String line; (line = in.readLine()) != null; ) {
                if (tx && (line.equals("COMMIT") || line.equals("ABORT"))) {
                    producer.flush();
                    if (line.equals("COMMIT")) producer.commitTransaction();
                    else producer.abortTransaction();
                    producer.beginTransaction();
                    continue;
                }
                String[] f = line.split("\t", -1);
                ProducerRecord<byte[], byte[]> r =
                        new ProducerRecord<>(topic, Integer.parseInt(f[0]), unb64(f[1]), unb64(f[2]));
                if (!f[3].equals("-")) {
                    for (String h : f[3].split(",")) {
                        String[] kv = h.split("=", 2);
                        r.headers().add(kv[0], unb64(kv[1]));
                    }
                }
                producer.send(r);
                sent++;
            }
            producer.flush();
            if (tx) producer.commitTransaction();
        }
        System.out.println(sent);
    }

    static void partition(int partitions) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        for (String key; (key = in.readLine()) != null; ) {
            byte[] b = key.getBytes(StandardCharsets.UTF_8);
            out.append(Utils.toPositive(Utils.murmur2(b)) % partitions).append('\n');
        }
        System.out.print(out);
    }

    static void produce(String bootstrap, String topic) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        p.put("acks", "all");
        p.put("enable.idempotence", "true");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (String line; (line = in.readLine()) != null; ) {
                String[] kv = line.split("\t", 2);
                producer.send(new ProducerRecord<>(topic, kv[0].getBytes(StandardCharsets.UTF_8),
                        kv[1].getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }
}
