"""kafka-python against the stub: create two topics and describe one's configs (admin), produce
records uncompressed and gzipped (producer), consume them back in a group and commit
(consumer), list the groups and delete the second topic (admin). Exits non-zero when the
records read back differ from those produced."""
import sys
import time

from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewTopic

BOOTSTRAP = sys.argv[1]
TOPIC = "kwire-kafka-python"
SCRATCH = "kwire-kafka-python-scratch"
# Three records per compression codec, each codec from its own producer (kafka-python needs extra
# packages for lz4, snappy and zstd; gzip is built in).
CODECS = [None, "gzip"]
SENT = [(b"key-%d" % i, b"value-%d from kafka-python (%s)" % (i, str(c).encode())) for c in CODECS for i in range(3)]

admin = KafkaAdminClient(bootstrap_servers=BOOTSTRAP, client_id="kwire-admin")
admin.create_topics([NewTopic(t, num_partitions=1, replication_factor=1) for t in (TOPIC, SCRATCH)])
print("configs:", admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, TOPIC)]))
admin.close()

for n, codec in enumerate(CODECS):
    producer = KafkaProducer(bootstrap_servers=BOOTSTRAP, client_id="kwire-producer", linger_ms=5, compression_type=codec)
    for k, v in SENT[3 * n:3 * n + 3]:
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
    heartbeat_interval_ms=300,
)
got = []
deadline = time.time() + 60
while len(got) < len(SENT) and time.time() < deadline:
    for records in consumer.poll(timeout_ms=1000).values():
        got.extend((r.key, r.value) for r in records)
consumer.commit()
# Poll a little longer so that the group heartbeat is sent (and captured) too.
end = time.time() + 1.5
while time.time() < end:
    consumer.poll(timeout_ms=300)
consumer.close()
print("received:", got)
if got != SENT:
    sys.exit("consumer: records differ from those produced")

admin = KafkaAdminClient(bootstrap_servers=BOOTSTRAP, client_id="kwire-admin")
print("groups:", admin.list_groups())
admin.delete_topics([SCRATCH])
admin.close()
