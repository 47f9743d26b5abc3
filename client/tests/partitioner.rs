//! Kafka's default partitioner: hashes and partitions as Kafka 4.4.0's Java classes compute them
//! (`org.apache.kafka.common.utils.Utils.murmur2`, and `toPositive(murmur2(key)) % 7`), printed
//! by a Java program on the broker's class path; the CI's real-broker stage checks thousands of
//! keys the same way.

use kafka_wire_client::partitioner::{murmur2, partition_for_key};

/// (key, Java's murmur2, Java's partition of 7).
const JAVA: &[(&str, i32, i32)] = &[
    ("", 275646681, 2),
    ("a", -1563381124, 5),
    ("ab", 316155434, 0),
    ("abc", 479470107, 4),
    ("abcd", -1323649548, 5),
    ("abcde", 461995741, 4),
    ("key-0", 29210041, 0),
    ("key-499", 320548976, 6),
    ("sensor-7", 1648233316, 2),
    ("été-2026", -1189016594, 6),
];

#[test]
fn murmur2_and_partition_as_kafka_computes_them() {
    for &(key, hash, partition) in JAVA {
        assert_eq!(murmur2(key.as_bytes()), hash, "murmur2({key:?})");
        assert_eq!(partition_for_key(key.as_bytes(), 7), partition, "partition of {key:?}");
    }
}
