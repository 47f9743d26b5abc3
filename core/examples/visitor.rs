//! A visitor: one pass over a MetadataResponse that reads each byte once and builds no view,
//! here to count partitions per leader.
//!
//!     cargo run -p kafka-wire --example visitor

use std::collections::BTreeMap;

use kafka_wire::messages::metadata_response::{
    fields, MetadataResponse, MetadataResponsePartition, MetadataResponseTopic,
};
use kafka_wire::{Array, FieldId, Message, Visitor};

/// Partitions led by each broker id.
#[derive(Default)]
struct Leaders(BTreeMap<i32, usize>);

impl<'a> Visitor<'a> for Leaders {
    fn i32(&mut self, f: FieldId, x: i32) {
        if f == fields::TOPICS_PARTITIONS_LEADER_ID {
            *self.0.entry(x).or_default() += 1;
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let partitions: Vec<MetadataResponsePartition<'_>> = (0..12)
        .map(|i| MetadataResponsePartition {
            partition_index: i,
            leader_id: i % 3 + 1,
            ..MetadataResponsePartition::DEFAULT
        })
        .collect();
    let topics = [MetadataResponseTopic {
        name: Some("orders"),
        partitions: Array::from_slice(&partitions),
        ..MetadataResponseTopic::DEFAULT
    }];
    let response = MetadataResponse {
        topics: Array::from_slice(&topics),
        ..MetadataResponse::DEFAULT
    };
    let mut buf = vec![0u8; response.encoded_len(12)?];
    response.encode_to_slice(&mut buf, 12)?;

    let mut leaders = Leaders::default();
    MetadataResponse::visit(&buf, 12, &mut leaders)?;
    for (broker, count) in &leaders.0 {
        println!("broker {broker} leads {count} partitions");
    }
    Ok(())
}
