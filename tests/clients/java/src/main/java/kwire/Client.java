package kwire;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Kafka's Java client against the kafka-wire stub: create two topics and describe one's configs
 * (admin), produce records with each compression codec (producer), consume them back in a group
 * and commit (consumer), with the classic group protocol and with KIP-848's, then list the
 * groups and delete the second topic (admin). Exits non-zero when the records read back differ
 * from those produced.
 */
public final class Client {
    /** KWIRE_NAME_SUFFIX keeps a second run on the same broker apart (topics and groups). */
    private static final String SUFFIX = System.getenv().getOrDefault("KWIRE_NAME_SUFFIX", "");
    private static final String TOPIC = "kwire-java" + SUFFIX;
    private static final String SCRATCH = "kwire-java-scratch" + SUFFIX;

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        // Three records per compression codec, each codec from its own producer.
        List<String> codecs = List.of("none", "snappy", "lz4", "zstd");
        List<String> sent = new ArrayList<>();
        for (String codec : codecs) {
            for (int i = 0; i < 3; i++) {
                sent.add("key-" + i + "=value-" + i + " from kafka-clients (" + codec + ")");
            }
        }

        Properties a = new Properties();
        a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        a.put(AdminClientConfig.CLIENT_ID_CONFIG, "kwire-admin");
        common(a);
        try (Admin admin = Admin.create(a)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1), new NewTopic(SCRATCH, 1, (short) 1))).all().get();
            ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
            System.out.println("configs: " + admin.describeConfigs(List.of(r)).all().get().get(r).entries().size());
        }

        for (int n = 0; n < codecs.size(); n++) {
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ProducerConfig.CLIENT_ID_CONFIG, "kwire-producer");
            common(p);
            p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codecs.get(n));
            p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
                for (String kv : sent.subList(3 * n, 3 * n + 3)) {
                    String[] parts = kv.split("=", 2);
                    ProducerRecord<String, String> rec = new ProducerRecord<>(TOPIC, parts[0], parts[1]);
                    rec.headers().add("h", new byte[] {'1'});
                    producer.send(rec);
                }
                producer.flush();
            }
        }

        consume(bootstrap, sent, "kwire-group" + SUFFIX, "classic", "kwire-consumer");
        // The KIP-848 group protocol (ConsumerGroupHeartbeat).
        consume(bootstrap, sent, "kwire-group-kip848" + SUFFIX, "consumer", "kwire-consumer-kip848");

        try (Admin admin = Admin.create(a)) {
            System.out.println("groups: " + admin.listGroups().all().get());
            admin.deleteTopics(List.of(SCRATCH)).all().get();
        }
        System.exit(0);
    }

    /**
     * From kafka-clients 4.4 (KIP-1242): name the cluster and node in ApiVersions v5 when
     * connecting to a broker known from metadata ({@code metadata.cluster.check.enable}, off by
     * default), so that the capture holds the request's new fields. Older clients lack the setting.
     */
    private static void common(Properties p) throws java.io.IOException {
        // Settings for every client from the properties file KWIRE_CLIENT_CONFIG names (security).
        String extra = System.getenv("KWIRE_CLIENT_CONFIG");
        if (extra != null) {
            try (java.io.Reader r = java.nio.file.Files.newBufferedReader(java.nio.file.Path.of(extra))) {
                p.load(r);
            }
        }
        String[] v = clientVersion().split("\\.");
        if (Integer.parseInt(v[0]) > 4 || (Integer.parseInt(v[0]) == 4 && Integer.parseInt(v[1]) >= 4)) {
            p.put("metadata.cluster.check.enable", "true");
        }
    }

    /** The kafka-clients version, from the properties file in its jar. */
    private static String clientVersion() {
        Properties v = new Properties();
        try (java.io.InputStream in = Admin.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            v.load(in);
        } catch (java.io.IOException | NullPointerException e) {
            throw new IllegalStateException("kafka-clients has no kafka/kafka-version.properties", e);
        }
        return v.getProperty("version");
    }

    /** Reads the records back in {@code group} with the given group protocol and commits. */
    private static void consume(String bootstrap, List<String> sent, String group, String protocol, String clientId) throws java.io.IOException {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        common(c);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        if (protocol.equals("classic")) {
            // Not allowed with the consumer protocol, where the broker sets the interval.
            c.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 300);
        }
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<String> got = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
            consumer.subscribe(Set.of(TOPIC));
            long deadline = System.currentTimeMillis() + 60_000;
            while (got.size() < sent.size() && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofSeconds(1))) {
                    got.add(r.key() + "=" + r.value());
                }
            }
            consumer.commitSync();
            // Poll a little longer so that the group heartbeat is sent (and captured) too.
            long end = System.currentTimeMillis() + 1_500;
            while (System.currentTimeMillis() < end) {
                consumer.poll(Duration.ofMillis(300));
            }
        }
        System.out.println("received (" + protocol + " protocol): " + got);
        if (!got.equals(sent)) {
            System.err.println("consumer (" + protocol + " protocol): records differ from those produced");
            System.exit(1);
        }
    }
}
