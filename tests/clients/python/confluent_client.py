"""librdkafka (through the confluent-kafka wheel) against the stub: create a topic and describe
its configs (admin), produce three records (producer), consume them back in a group and commit
(consumer). Exits non-zero when the records read back differ from those produced."""
import sys
import time

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic

BOOTSTRAP = sys.argv[1]
TOPIC = "kwire-librdkafka"
SENT = [(b"key-%d" % i, b"value-%d from librdkafka" % i) for i in range(3)]

admin = AdminClient({"bootstrap.servers": BOOTSTRAP, "client.id": "kwire-admin"})
for f in admin.create_topics([NewTopic(TOPIC, num_partitions=1, replication_factor=1)]).values():
    f.result(timeout=30)
for f in admin.describe_configs([ConfigResource("topic", TOPIC)]).values():
    print("configs:", sorted(f.result(timeout=30)))

producer = Producer({"bootstrap.servers": BOOTSTRAP, "client.id": "kwire-producer", "linger.ms": 5})
for k, v in SENT:
    producer.produce(TOPIC, key=k, value=v, headers=[("h", b"1")])
if producer.flush(30) != 0:
    sys.exit("producer: messages left undelivered")

consumer = Consumer({
    "bootstrap.servers": BOOTSTRAP,
    "client.id": "kwire-consumer",
    "group.id": "kwire-group",
    "auto.offset.reset": "earliest",
    "enable.auto.commit": False,
})
consumer.subscribe([TOPIC])
got = []
deadline = time.time() + 60
while len(got) < len(SENT) and time.time() < deadline:
    m = consumer.poll(1.0)
    if m is None:
        continue
    if m.error():
        print("consumer:", m.error())
        continue
    got.append((m.key(), m.value()))
consumer.commit(asynchronous=False)
consumer.close()
print("received:", got)
sys.exit(0 if got == SENT else "consumer: records differ from those produced")
