//! Walks a KRaft `__cluster_metadata` log segment: every batch, every record, each record
//! decoded by its type. Give a segment file (`__cluster_metadata-0/00000000000000000000.log`),
//! or nothing to walk a small segment built here.
//!
//!     cargo run -p kafka-wire --example cluster_metadata [SEGMENT]

use kafka_wire::frame::encode_metadata_record;
use kafka_wire::metadata::{PartitionRecord, TopicRecord};
use kafka_wire::records::{Batch, BatchBuilder, BatchRecords, Batches, NewRecord};
use kafka_wire::{Array, MetadataRecord, Uuid};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let segment = match std::env::args().nth(1) {
        Some(path) => std::fs::read(path)?,
        None => sample()?,
    };
    for batch in Batches::new(&segment) {
        let Batch::V2(batch) = batch? else { continue };
        let Some(records) = batch.records() else {
            println!("batch at offset {}: compressed, skipped", batch.base_offset);
            continue;
        };
        if batch.is_control() {
            println!("batch at offset {}: control records", batch.base_offset);
            continue;
        }
        for (record, framed) in records.metadata()? {
            let offset = batch.offset_of(&record);
            match framed.record {
                MetadataRecord::Topic(t) => println!("{offset}: topic {} id {}", t.name, t.topic_id),
                MetadataRecord::Partition(p) => {
                    let replicas: Vec<i32> = p.replicas.iter().collect();
                    println!(
                        "{offset}: partition {} of {} on {replicas:?}, leader {}",
                        p.partition_id, p.topic_id, p.leader
                    )
                }
                _ => println!("{offset}: {:?} v{}", framed.record_type, framed.version),
            }
        }
    }
    Ok(())
}

/// One batch with a TopicRecord and a PartitionRecord, as a controller writes them.
fn sample() -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let id = Uuid::from_u128(0x0123_4567_89ab_cdef_0123_4567_89ab_cdef);
    let topic = MetadataRecord::Topic(TopicRecord {
        name: "orders",
        topic_id: id,
        ..TopicRecord::DEFAULT
    });
    let replicas = [1, 2, 3];
    let partition = MetadataRecord::Partition(PartitionRecord {
        partition_id: 0,
        topic_id: id,
        replicas: Array::from_slice(&replicas),
        isr: Array::from_slice(&replicas),
        leader: 1,
        ..PartitionRecord::DEFAULT
    });
    let (mut a, mut b) = ([0u8; 64], [0u8; 96]);
    let na = encode_metadata_record(&topic, 0, &mut a)?;
    let nb = encode_metadata_record(&partition, 0, &mut b)?;
    let records = [
        NewRecord {
            value: Some(&a[..na]),
            ..NewRecord::DEFAULT
        },
        NewRecord {
            offset_delta: 1,
            value: Some(&b[..nb]),
            ..NewRecord::DEFAULT
        },
    ];
    let batch = BatchBuilder {
        records: BatchRecords::Plain(&records),
        ..BatchBuilder::DEFAULT
    };
    let mut out = vec![0u8; batch.encoded_len()?];
    batch.encode_to_slice(&mut out)?;
    Ok(out)
}
