"""kafka-python against the stub: create a topic and describe its configs (admin), produce three
records (producer), consume them back in a group and commit (consumer). Exits non-zero when the
records read back differ from those produced."""
import sys
import time

from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewTopic

BOOTSTRAP = sys.argv[1]
TOPIC = "kwire-kafka-python"
SENT = [(b"key-%d" % i, b"value-%d from kafka-python" % i) for i in range(3)]

admin = KafkaAdminClient(bootstrap_servers=BOOTSTRAP, client_id="kwire-admin")
admin.create_topics([NewTopic(TOPIC, num_partitions=1, replication_factor=1)])
print("configs:", admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, TOPIC)]))
admin.close()

producer = KafkaProducer(bootstrap_servers=BOOTSTRAP, client_id="kwire-producer", linger_ms=5)
for k, v in SENT:
    producer.send(TOPIC, key=k, value=v, headers=[("h", b"1")])
producer.flush(30)
producer.close()

consumer = KafkaConsumer(
    TOPIC,
    bootstrap_servers=BOOTSTRAP,
    client_id="kwire-consumer",
    group_id="kwire-group",
    auto_offset_reset="earliest",
    enable_auto_commit=False,
)
got = []
deadline = time.time() + 60
while len(got) < len(SENT) and time.time() < deadline:
    for records in consumer.poll(timeout_ms=1000).values():
        got.extend((r.key, r.value) for r in records)
consumer.commit()
consumer.close()
print("received:", got)
sys.exit(0 if got == SENT else "consumer: records differ from those produced")
