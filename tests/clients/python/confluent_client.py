"""librdkafka (through the confluent-kafka wheel) against the stub: create two topics and
describe one's configs (admin), produce records with each compression codec (producer), consume
them back in a group and commit (consumer), with the classic group protocol and with KIP-848's,
then list the groups and delete the second topic (admin). Exits non-zero when the records read
back differ from those produced."""
import os
import sys
import time

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic

BOOTSTRAP = sys.argv[1]
# Settings for every client from the file KWIRE_CLIENT_CONFIG names (key=value lines: security).
EXTRA = {}
if os.environ.get("KWIRE_CLIENT_CONFIG"):
    for line in open(os.environ["KWIRE_CLIENT_CONFIG"]):
        if "=" in line and not line.startswith("#"):
            k, v = line.rstrip("\n").split("=", 1)
            EXTRA[k] = v


def conf(d):
    d.update(EXTRA)
    return d

# KWIRE_NAME_SUFFIX keeps a second run on the same broker apart (topics and groups).
SUFFIX = os.environ.get("KWIRE_NAME_SUFFIX", "")
TOPIC = "kwire-librdkafka" + SUFFIX
SCRATCH = "kwire-librdkafka-scratch" + SUFFIX
# Three records per compression codec, each codec from its own producer.
CODECS = ["none", "lz4", "zstd"]
SENT = [(b"key-%d" % i, b"value-%d from librdkafka (%s)" % (i, c.encode())) for c in CODECS for i in range(3)]

admin = AdminClient(conf({"bootstrap.servers": BOOTSTRAP, "client.id": "kwire-admin"}))
for f in admin.create_topics([NewTopic(t, num_partitions=1, replication_factor=1) for t in (TOPIC, SCRATCH)]).values():
    f.result(timeout=30)
for f in admin.describe_configs([ConfigResource("topic", TOPIC)]).values():
    print("configs:", sorted(f.result(timeout=30)))

for n, codec in enumerate(CODECS):
    producer = Producer(conf({"bootstrap.servers": BOOTSTRAP, "client.id": "kwire-producer", "linger.ms": 5, "compression.type": codec}))
    for k, v in SENT[3 * n:3 * n + 3]:
        producer.produce(TOPIC, key=k, value=v, headers=[("h", b"1")])
    if producer.flush(30) != 0:
        sys.exit("producer: messages left undelivered")


def consume(group, protocol, client_id):
    """Reads the records back in `group` with the given group protocol and commits."""
    consumer = Consumer(conf({
        "bootstrap.servers": BOOTSTRAP,
        "client.id": client_id,
        "group.id": group,
        "group.protocol": protocol,
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    }))
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
    print("received (%s protocol):" % protocol, got)
    if got != SENT:
        sys.exit("consumer (%s protocol): records differ from those produced" % protocol)


consume("kwire-group" + SUFFIX, "classic", "kwire-consumer")
# The KIP-848 group protocol (ConsumerGroupHeartbeat).
consume("kwire-group-kip848" + SUFFIX, "consumer", "kwire-consumer-kip848")

admin = AdminClient(conf({"bootstrap.servers": BOOTSTRAP, "client.id": "kwire-admin"}))
print("groups:", sorted(g.group_id for g in admin.list_consumer_groups().result(timeout=30).valid))
for f in admin.delete_topics([SCRATCH]).values():
    f.result(timeout=30)
