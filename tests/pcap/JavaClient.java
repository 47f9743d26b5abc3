// The Java half of tests/pcap/capture.sh: Kafka's Java client (kafka-clients from the broker's
// classpath) describes the cluster, produces two records to kwire-pcap and reads the topic back
// without a group. Run as a single source file:
//   java -cp CLASSPATH tests/pcap/JavaClient.java BOOTSTRAP
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class JavaClient {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        Properties a = new Properties();
        a.put("bootstrap.servers", bootstrap);
        a.put("client.id", "kwire-pcap-java-admin");
        try (Admin admin = Admin.create(a)) {
            System.out.println("cluster id: " + admin.describeCluster().clusterId().get());
            System.out.println("topics: " + admin.listTopics().names().get());
        }
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", "kwire-pcap-java-producer");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < 2; i++) {
                producer.send(new ProducerRecord<>("kwire-pcap", "j" + i, "java record " + i)).get();
            }
        }
        Properties c = new Properties();
        c.put("bootstrap.servers", bootstrap);
        c.put("client.id", "kwire-pcap-java-consumer");
        c.put("key.deserializer", StringDeserializer.class.getName());
        c.put("value.deserializer", StringDeserializer.class.getName());
        List<String> got = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
            TopicPartition tp = new TopicPartition("kwire-pcap", 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.currentTimeMillis() + 30000;
            while (got.size() < 7 && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    got.add(r.key() + "=" + r.value());
                }
            }
        }
        System.out.println("java read back: " + got);
        if (got.size() < 2 || !got.get(got.size() - 1).equals("j1=java record 1")) {
            System.exit(1);
        }
    }
}
