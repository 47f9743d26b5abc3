"""librdkafka (through the confluent-kafka wheel) told not to ask for API versions and to assume a
Kafka 0.10.0 broker (`api.version.request=false`, `broker.version.fallback=0.10.0`): the
requests and versions of that era (Produce v2 with magic 1 message sets, Fetch v2, the v0 group
APIs, ...). Produce three records, consume them back in a group and commit; exits non-zero when
the records read back differ from those produced. No admin step: those APIs came later."""
import sys
import time

from confluent_kafka import Consumer, Producer

BOOTSTRAP = sys.argv[1]
TOPIC = "kwire-librdkafka-legacy"
SENT = [(b"key-%d" % i, b"value-%d from librdkafka (0.9.0 protocol)" % i) for i in range(3)]
LEGACY = {"api.version.request": False, "broker.version.fallback": "0.9.0"}

producer = Producer({"bootstrap.servers": BOOTSTRAP, "client.id": "kwire-producer", "linger.ms": 5, **LEGACY})
for k, v in SENT:
    producer.produce(TOPIC, key=k, value=v)
if producer.flush(30) != 0:
    sys.exit("producer: messages left undelivered")

consumer = Consumer({
    "bootstrap.servers": BOOTSTRAP,
    "client.id": "kwire-consumer",
    "group.id": "kwire-group-legacy",
    "auto.offset.reset": "earliest",
    "enable.auto.commit": False,
    **LEGACY,
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
