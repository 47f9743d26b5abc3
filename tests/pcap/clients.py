"""The Python half of tests/pcap/capture.sh: a short conversation with the real broker from
librdkafka (confluent-kafka) or kafka-python, small enough that the capture stays small.

    python clients.py librdkafka|kafka-python BOOTSTRAP

librdkafka: creates the topic kwire-pcap (and tries again, for a TOPIC_ALREADY_EXISTS error),
produces three records, reads them back in a consumer group (classic protocol) and commits.
kafka-python: produces two records, reads the topic back without a group, and asks for the
metadata of a topic that does not exist (UNKNOWN_TOPIC_OR_PARTITION). Exits non-zero when the
records read back are not those produced."""
import sys
import time

TOPIC = "kwire-pcap"
mode, bootstrap = sys.argv[1], sys.argv[2]

if mode == "librdkafka":
    from confluent_kafka import Consumer, KafkaException, Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap, "client.id": "kwire-pcap-admin"})
    for f in admin.create_topics([NewTopic(TOPIC, num_partitions=1, replication_factor=1)]).values():
        f.result(timeout=30)
    try:
        for f in admin.create_topics([NewTopic(TOPIC, num_partitions=1, replication_factor=1)]).values():
            f.result(timeout=30)
        sys.exit("creating the topic twice succeeded")
    except KafkaException as e:
        print("second create:", e)
    time.sleep(1)  # the partition gets its leader
    sent = [(b"k%d" % i, b"librdkafka record %d" % i) for i in range(3)]
    p = Producer({"bootstrap.servers": bootstrap, "client.id": "kwire-pcap-producer", "linger.ms": 5})
    for k, v in sent:
        p.produce(TOPIC, key=k, value=v)
    if p.flush(30) != 0:
        sys.exit("records left undelivered")
    c = Consumer({"bootstrap.servers": bootstrap, "client.id": "kwire-pcap-consumer", "group.id": "kwire-pcap-group",
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.subscribe([TOPIC])
    got = []
    deadline = time.time() + 60
    while len(got) < len(sent) and time.time() < deadline:
        m = c.poll(1.0)
        if m is not None and not m.error():
            got.append((m.key(), m.value()))
    c.commit(asynchronous=False)
    c.close()
    print("librdkafka read back:", got)
    if got != sent:
        sys.exit("records differ")
elif mode == "kafka-python":
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition

    sent = [(b"kp%d" % i, b"kafka-python record %d" % i) for i in range(2)]
    p = KafkaProducer(bootstrap_servers=bootstrap, client_id="kwire-pcap-kafka-python")
    for k, v in sent:
        p.send(TOPIC, key=k, value=v).get(timeout=30)
    p.close()
    c = KafkaConsumer(bootstrap_servers=bootstrap, client_id="kwire-pcap-kafka-python", enable_auto_commit=False,
                      consumer_timeout_ms=10000)
    tp = TopicPartition(TOPIC, 0)
    c.assign([tp])
    c.seek_to_beginning(tp)
    got = []
    deadline = time.time() + 30
    while len(got) < 5 and time.time() < deadline:
        for recs in c.poll(timeout_ms=1000).values():
            got.extend((r.key, r.value) for r in recs)
    # A topic that does not exist (the broker does not create topics on demand).
    print("missing topic partitions:", c.partitions_for_topic("kwire-pcap-missing"))
    c.close()
    print("kafka-python read back:", got)
    if got[-2:] != sent:
        sys.exit("records differ")
else:
    sys.exit("unknown mode " + mode)
