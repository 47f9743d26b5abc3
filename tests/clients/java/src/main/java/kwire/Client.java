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
 * Kafka's Java client against the kafka-wire stub: create a topic and describe its configs
 * (admin), produce three records (producer), consume them back in a group and commit
 * (consumer). Exits non-zero when the records read back differ from those produced.
 */
public final class Client {
    private static final String TOPIC = "kwire-java";

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            sent.add("key-" + i + "=value-" + i + " from kafka-clients");
        }

        Properties a = new Properties();
        a.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        a.put(AdminClientConfig.CLIENT_ID_CONFIG, "kwire-admin");
        try (Admin admin = Admin.create(a)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
            ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
            System.out.println("configs: " + admin.describeConfigs(List.of(r)).all().get().get(r).entries().size());
        }

        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "kwire-producer");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (String kv : sent) {
                String[] parts = kv.split("=", 2);
                ProducerRecord<String, String> rec = new ProducerRecord<>(TOPIC, parts[0], parts[1]);
                rec.headers().add("h", new byte[] {'1'});
                producer.send(rec);
            }
            producer.flush();
        }

        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, "kwire-consumer");
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "kwire-group");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
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
        }
        System.out.println("received: " + got);
        if (!got.equals(sent)) {
            System.err.println("consumer: records differ from those produced");
            System.exit(1);
        }
        System.exit(0);
    }
}
