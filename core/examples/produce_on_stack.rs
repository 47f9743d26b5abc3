//! Builds a ProduceRequest v9 with one record batch, entirely in stack buffers (no allocator),
//! encodes it as a frame, and reads the frame back.
//!
//!     cargo run -p kafka-wire --example produce_on_stack

use kafka_wire::frame::{encode_request_frame, parse_request_frame, Mode};
use kafka_wire::messages::produce_request::{PartitionProduceData, ProduceRequest, TopicProduceData};
use kafka_wire::records::{Batch, BatchBuilder, BatchRecords, Batches, NewHeader, NewRecord};
use kafka_wire::{Array, RequestBody};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Two records with borrowed keys, values and headers.
    let headers = [NewHeader::new("unit", Some(b"celsius"))];
    let records = [
        NewRecord {
            key: Some(b"sensor-7"),
            value: Some(b"21.5"),
            headers: &headers,
            ..NewRecord::DEFAULT
        },
        NewRecord {
            offset_delta: 1,
            timestamp_delta: 1000,
            key: Some(b"sensor-7"),
            value: Some(b"21.7"),
            ..NewRecord::DEFAULT
        },
    ];
    let batch = BatchBuilder {
        base_timestamp: 1_700_000_000_000,
        records: BatchRecords::Plain(&records),
        ..BatchBuilder::DEFAULT
    };
    let mut batch_buf = [0u8; 256];
    let batch_len = batch.encode_to_slice(&mut batch_buf)?;

    // The request borrows the batch bytes and the topic name.
    let partitions = [PartitionProduceData {
        index: 0,
        records: Some(&batch_buf[..batch_len]),
        ..PartitionProduceData::DEFAULT
    }];
    let topics = [TopicProduceData {
        name: "telemetry",
        partition_data: Array::from_slice(&partitions),
        ..TopicProduceData::DEFAULT
    }];
    let request = ProduceRequest {
        acks: -1,
        timeout_ms: 30_000,
        topic_data: Array::from_slice(&topics),
        ..ProduceRequest::DEFAULT
    };

    // Size prefix, request header v2 (correlation id, client id) and body, into one buffer.
    let mut frame = [0u8; 512];
    let n = encode_request_frame(1, Some("firmware"), &RequestBody::Produce(request), 9, &mut frame)?;
    println!("ProduceRequest v9 frame: {n} bytes (record batch {batch_len} bytes)");

    // Read it back: the frame, then the batch inside it.
    let parsed = parse_request_frame(&frame[..n], Mode::Strict)?;
    let RequestBody::Produce(produce) = parsed.body else {
        unreachable!("a Produce frame")
    };
    for topic in produce.topic_data.iter() {
        for partition in topic.partition_data.iter() {
            for batch in Batches::new(partition.records.unwrap_or_default()) {
                let Batch::V2(batch) = batch? else { continue };
                for record in batch.records().into_iter().flat_map(|r| r.iter()) {
                    println!(
                        "{}[{}] offset {} key {:?} value {:?}",
                        topic.name,
                        partition.index,
                        batch.offset_of(&record),
                        record.key.map(String::from_utf8_lossy),
                        record.value.map(String::from_utf8_lossy),
                    );
                }
            }
        }
    }
    Ok(())
}
