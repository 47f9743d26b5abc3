//! The codec at work on built-in samples: every seed message (the KIP drafts the project started
//! from) is built on the stack, encoded at each of its versions, parsed back as a zero-copy view
//! and printed. Run with `cargo run -p kafka-wire --example demo`.

use kafka_wire::messages::alter_partition_request::{self as apreq, AlterPartitionRequest};
use kafka_wire::messages::alter_partition_response::{self as apresp, AlterPartitionResponse};
use kafka_wire::messages::broker_registration_request::{self as brr, BrokerRegistrationRequest};
use kafka_wire::messages::bump_leader_epochs_request::{self as bler, BumpLeaderEpochsRequest};
use kafka_wire::messages::bump_leader_epochs_response::{self as blers, BumpLeaderEpochsResponse};
use kafka_wire::messages::describe_mirrors_request::DescribeMirrorsRequest;
use kafka_wire::messages::describe_mirrors_response::{self as dmr, DescribeMirrorsResponse};
use kafka_wire::messages::read_mirror_states_request::{self as rmsr, ReadMirrorStatesRequest};
use kafka_wire::messages::read_mirror_states_response::{self as rmsrs, ReadMirrorStatesResponse};
use kafka_wire::metadata::partition_change_record::PartitionChangeRecord;
use kafka_wire::metadata::partition_record::PartitionRecord;
use kafka_wire::{Array, Message, Uuid};

/// Encodes `$m` at every version of its type, parses each encoding back and prints both.
macro_rules! show {
    ($ty:ident, $m:expr, $buf:expr) => {{
        let m: $ty = $m;
        let info = <$ty as Message>::INFO;
        let mut count = 0;
        for v in info.min_version..=info.max_version {
            match m.encode_to_slice($buf, v) {
                Err(e) => println!("{} v{v}: not encodable at this version: {e}", info.name),
                Ok(n) => {
                    let bytes = &$buf[..n];
                    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
                    println!("{} v{v}: {n} bytes: {hex}", info.name);
                    let view = $ty::parse(bytes, v).expect("parse");
                    let mut again = [0u8; 4096];
                    let k = view.encode_to_slice(&mut again, v).expect("re-encode");
                    assert_eq!(&again[..k], bytes, "the view re-encodes to the same bytes");
                    if view != m {
                        println!("  (fields this version lacks, marked ignorable, were left out)");
                    }
                    println!("  view: {view:?}");
                    count += 1;
                }
            }
        }
        count
    }};
}

fn main() {
    let buf: &mut [u8] = &mut [0u8; 4096];
    let mut n = 0;
    // KIP-966: ELR fields on the partition records (shipped at v2 as tagged fields 6 and 7).
    let isr = [1, 2, 3];
    let elr = [4];
    let lkelr = [5];
    n += show!(PartitionChangeRecord, PartitionChangeRecord {
            partition_id: 0,
            topic_id: Uuid::from_u128(0x0123_4567_89ab_cdef),
            isr: Some(Array::from_slice(&isr)),
            leader: 1,
            ..PartitionChangeRecord::DEFAULT
        },
        buf
    );
    n += show!(PartitionChangeRecord, PartitionChangeRecord {
            partition_id: 0,
            topic_id: Uuid::from_u128(0x0123_4567_89ab_cdef),
            eligible_leader_replicas: Some(Array::from_slice(&elr)),
            last_known_elr: Some(Array::from_slice(&lkelr)),
            ..PartitionChangeRecord::DEFAULT
        },
        buf
    );
    n += show!(PartitionRecord, PartitionRecord {
            partition_id: 2,
            topic_id: Uuid::from_u128(7),
            replicas: Array::from_slice(&isr),
            isr: Array::from_slice(&isr),
            leader: 1,
            leader_epoch: 3,
            partition_epoch: 4,
            ..PartitionRecord::DEFAULT
        },
        buf
    );
    // KIP-966: BrokerRegistration's BrokerEpoch shipped as PreviousBrokerEpoch (v3).
    let listeners = [brr::Listener { name: "PLAINTEXT", host: "127.0.0.1", port: 9092, security_protocol: 0, ..brr::Listener::DEFAULT }];
    n += show!(BrokerRegistrationRequest, BrokerRegistrationRequest {
            broker_id: 1,
            cluster_id: "demo-cluster",
            incarnation_id: Uuid::from_u128(99),
            listeners: Array::from_slice(&listeners),
            rack: Some("rack-a"),
            previous_broker_epoch: 41,
            ..BrokerRegistrationRequest::DEFAULT
        },
        buf
    );
    // KIP-903: AlterPartition NewIsrWithEpochs (v3); v0-2 carry NewIsr.
    let states = [apreq::BrokerState { broker_id: 1, broker_epoch: 10, ..apreq::BrokerState::DEFAULT }];
    let parts = [apreq::PartitionData { partition_index: 0, leader_epoch: 5, new_isr_with_epochs: Array::from_slice(&states), partition_epoch: 6, ..apreq::PartitionData::DEFAULT }];
    let topics = [apreq::TopicData { topic_id: Uuid::from_u128(42), partitions: Array::from_slice(&parts), ..apreq::TopicData::DEFAULT }];
    n += show!(AlterPartitionRequest, AlterPartitionRequest { broker_id: 1, broker_epoch: 10, topics: Array::from_slice(&topics), ..AlterPartitionRequest::DEFAULT }, buf);
    // KIP-704: AlterPartitionResponse LeaderRecoveryState (v1).
    let rparts = [apresp::PartitionData { partition_index: 0, leader_id: 1, leader_epoch: 5, isr: Array::from_slice(&isr), leader_recovery_state: 1, partition_epoch: 7, ..apresp::PartitionData::DEFAULT }];
    let rtopics = [apresp::TopicData { topic_name: "orders", topic_id: Uuid::from_u128(42), partitions: Array::from_slice(&rparts), ..apresp::TopicData::DEFAULT }];
    n += show!(AlterPartitionResponse, AlterPartitionResponse { topics: Array::from_slice(&rtopics), ..AlterPartitionResponse::DEFAULT }, buf);
    // KIP-1279 drafts (provisional API keys).
    let names = ["mirror-a"];
    n += show!(DescribeMirrorsRequest, DescribeMirrorsRequest { mirror_names: Some(Array::from_slice(&names)), include_authorized_operations: true, ..DescribeMirrorsRequest::DEFAULT }, buf);
    let pd = [dmr::PartitionDetail { partition_index: 0, source_offset: 100, destination_offset: 90, lag: 10, state: "MIRRORING", last_mirror_epoch: 3, ..dmr::PartitionDetail::DEFAULT }];
    let tp = [dmr::TopicPartitions { topic_name: "orders", partitions: Array::from_slice(&pd), ..dmr::TopicPartitions::DEFAULT }];
    let mirrors = [dmr::DescribedMirror { mirror_name: "mirror-a", topics: Array::from_slice(&tp), ..dmr::DescribedMirror::DEFAULT }];
    n += show!(DescribeMirrorsResponse, DescribeMirrorsResponse { mirrors: Array::from_slice(&mirrors), ..DescribeMirrorsResponse::DEFAULT }, buf);
    let les = [bler::LeaderEpochState { partition_index: 0, min_leader_epoch: 8, ..bler::LeaderEpochState::DEFAULT }];
    let ts = [bler::TopicState { topic_id: Uuid::from_u128(42), partitions: Array::from_slice(&les), ..bler::TopicState::DEFAULT }];
    n += show!(BumpLeaderEpochsRequest, BumpLeaderEpochsRequest { topics: Array::from_slice(&ts), ..BumpLeaderEpochsRequest::DEFAULT }, buf);
    let bpd = [blers::PartitionDetail { partition_index: 0, ..blers::PartitionDetail::DEFAULT }];
    let btp = [blers::TopicPartitions { topic_name: "orders", partitions: Array::from_slice(&bpd), ..blers::TopicPartitions::DEFAULT }];
    n += show!(BumpLeaderEpochsResponse, BumpLeaderEpochsResponse { topics: Array::from_slice(&btp), ..BumpLeaderEpochsResponse::DEFAULT }, buf);
    let rp = [rmsr::PartitionData { partition_index: 0, ..rmsr::PartitionData::DEFAULT }];
    let rt = [rmsr::TopicData { name: "orders", partitions: Array::from_slice(&rp), ..rmsr::TopicData::DEFAULT }];
    n += show!(ReadMirrorStatesRequest, ReadMirrorStatesRequest { mirror_name: "mirror-a", topics: Array::from_slice(&rt), ..ReadMirrorStatesRequest::DEFAULT }, buf);
    let rr = [rmsrs::PartitionResult { partition_index: 0, last_mirror_epoch: 3, state: 1, ..rmsrs::PartitionResult::DEFAULT }];
    let rtr = [rmsrs::TopicResult { name: "orders", partitions: Array::from_slice(&rr), ..rmsrs::TopicResult::DEFAULT }];
    n += show!(ReadMirrorStatesResponse, ReadMirrorStatesResponse { topics: Array::from_slice(&rtr), ..ReadMirrorStatesResponse::DEFAULT }, buf);
    println!("{n} seed message versions encoded, parsed and printed");
}
