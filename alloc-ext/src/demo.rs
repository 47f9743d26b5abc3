//! The built-in samples behind `kwire demo`: every seed message (the KIP drafts the project
//! started from), built with the borrowed types on the stack and encoded at each of its versions.

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
use kafka_wire::reflect::StructDesc;
use kafka_wire::{Array, Message, Uuid};

/// One encoded sample.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The message.
    pub name: &'static str,
    /// The version it is encoded at.
    pub version: i16,
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Its schema, for JSON.
    pub schema: &'static StructDesc,
    /// Re-encoding the parsed view gives the same bytes.
    pub round_trips: bool,
}

/// Encodes `$m` at every version its schema has; versions where a non-ignorable field is
/// missing are skipped (the encoder says why).
macro_rules! push {
    ($out:ident, $ty:ident, $m:expr $(,)?) => {{
        let m: $ty = $m;
        let info = <$ty as Message>::INFO;
        for v in info.min_version..=info.max_version {
            let mut bytes = Vec::new();
            if m.encode(&mut bytes, v).is_err() {
                continue;
            }
            let round_trips = match $ty::parse(&bytes, v) {
                Ok(view) => {
                    let mut again = Vec::new();
                    view.encode(&mut again, v).is_ok() && again == bytes
                }
                Err(_) => false,
            };
            $out.push(Sample {
                name: info.name,
                version: v,
                bytes,
                schema: <$ty as Message>::SCHEMA,
                round_trips,
            });
        }
    }};
}

/// Every seed message at each of its versions.
pub fn samples() -> Vec<Sample> {
    let mut out = Vec::new();
    // KIP-966: ELR fields on the partition records (shipped at v2 as tagged fields 6 and 7).
    let isr = [1, 2, 3];
    let elr = [4];
    let lkelr = [5];
    push!(
        out,
        PartitionChangeRecord,
        PartitionChangeRecord {
            partition_id: 0,
            topic_id: Uuid::from_u128(0x0123_4567_89ab_cdef),
            isr: Some(Array::from_slice(&isr)),
            leader: 1,
            ..PartitionChangeRecord::DEFAULT
        },
    );
    push!(
        out,
        PartitionChangeRecord,
        PartitionChangeRecord {
            partition_id: 0,
            topic_id: Uuid::from_u128(0x0123_4567_89ab_cdef),
            eligible_leader_replicas: Some(Array::from_slice(&elr)),
            last_known_elr: Some(Array::from_slice(&lkelr)),
            ..PartitionChangeRecord::DEFAULT
        },
    );
    push!(
        out,
        PartitionRecord,
        PartitionRecord {
            partition_id: 2,
            topic_id: Uuid::from_u128(7),
            replicas: Array::from_slice(&isr),
            isr: Array::from_slice(&isr),
            leader: 1,
            leader_epoch: 3,
            partition_epoch: 4,
            ..PartitionRecord::DEFAULT
        },
    );
    // KIP-966: BrokerRegistration's BrokerEpoch shipped as PreviousBrokerEpoch (v3).
    let listeners = [brr::Listener {
        name: "PLAINTEXT",
        host: "127.0.0.1",
        port: 9092,
        security_protocol: 0,
        ..brr::Listener::DEFAULT
    }];
    push!(
        out,
        BrokerRegistrationRequest,
        BrokerRegistrationRequest {
            broker_id: 1,
            cluster_id: "demo-cluster",
            incarnation_id: Uuid::from_u128(99),
            listeners: Array::from_slice(&listeners),
            rack: Some("rack-a"),
            previous_broker_epoch: 41,
            ..BrokerRegistrationRequest::DEFAULT
        },
    );
    // KIP-903: AlterPartition NewIsrWithEpochs (v3); v0-2 carry NewIsr.
    let states = [apreq::BrokerState {
        broker_id: 1,
        broker_epoch: 10,
        ..apreq::BrokerState::DEFAULT
    }];
    let parts = [apreq::PartitionData {
        partition_index: 0,
        leader_epoch: 5,
        new_isr_with_epochs: Array::from_slice(&states),
        partition_epoch: 6,
        ..apreq::PartitionData::DEFAULT
    }];
    let topics = [apreq::TopicData {
        topic_id: Uuid::from_u128(42),
        partitions: Array::from_slice(&parts),
        ..apreq::TopicData::DEFAULT
    }];
    push!(
        out,
        AlterPartitionRequest,
        AlterPartitionRequest {
            broker_id: 1,
            broker_epoch: 10,
            topics: Array::from_slice(&topics),
            ..AlterPartitionRequest::DEFAULT
        }
    );
    // KIP-704: AlterPartitionResponse LeaderRecoveryState (v1).
    let rparts = [apresp::PartitionData {
        partition_index: 0,
        leader_id: 1,
        leader_epoch: 5,
        isr: Array::from_slice(&isr),
        leader_recovery_state: 1,
        partition_epoch: 7,
        ..apresp::PartitionData::DEFAULT
    }];
    let rtopics = [apresp::TopicData {
        topic_name: "orders",
        topic_id: Uuid::from_u128(42),
        partitions: Array::from_slice(&rparts),
        ..apresp::TopicData::DEFAULT
    }];
    push!(
        out,
        AlterPartitionResponse,
        AlterPartitionResponse {
            topics: Array::from_slice(&rtopics),
            ..AlterPartitionResponse::DEFAULT
        }
    );
    // KIP-1279 drafts (provisional API keys).
    let names = ["mirror-a"];
    push!(
        out,
        DescribeMirrorsRequest,
        DescribeMirrorsRequest {
            mirror_names: Some(Array::from_slice(&names)),
            include_authorized_operations: true,
            ..DescribeMirrorsRequest::DEFAULT
        }
    );
    let pd = [dmr::PartitionDetail {
        partition_index: 0,
        source_offset: 100,
        destination_offset: 90,
        lag: 10,
        state: "MIRRORING",
        last_mirror_epoch: 3,
        ..dmr::PartitionDetail::DEFAULT
    }];
    let tp = [dmr::TopicPartitions {
        topic_name: "orders",
        partitions: Array::from_slice(&pd),
        ..dmr::TopicPartitions::DEFAULT
    }];
    let mirrors = [dmr::DescribedMirror {
        mirror_name: "mirror-a",
        topics: Array::from_slice(&tp),
        ..dmr::DescribedMirror::DEFAULT
    }];
    push!(
        out,
        DescribeMirrorsResponse,
        DescribeMirrorsResponse {
            mirrors: Array::from_slice(&mirrors),
            ..DescribeMirrorsResponse::DEFAULT
        }
    );
    let les = [bler::LeaderEpochState {
        partition_index: 0,
        min_leader_epoch: 8,
        ..bler::LeaderEpochState::DEFAULT
    }];
    let ts = [bler::TopicState {
        topic_id: Uuid::from_u128(42),
        partitions: Array::from_slice(&les),
        ..bler::TopicState::DEFAULT
    }];
    push!(
        out,
        BumpLeaderEpochsRequest,
        BumpLeaderEpochsRequest {
            topics: Array::from_slice(&ts),
            ..BumpLeaderEpochsRequest::DEFAULT
        }
    );
    let bpd = [blers::PartitionDetail {
        partition_index: 0,
        ..blers::PartitionDetail::DEFAULT
    }];
    let btp = [blers::TopicPartitions {
        topic_name: "orders",
        partitions: Array::from_slice(&bpd),
        ..blers::TopicPartitions::DEFAULT
    }];
    push!(
        out,
        BumpLeaderEpochsResponse,
        BumpLeaderEpochsResponse {
            topics: Array::from_slice(&btp),
            ..BumpLeaderEpochsResponse::DEFAULT
        }
    );
    let rp = [rmsr::PartitionData {
        partition_index: 0,
        ..rmsr::PartitionData::DEFAULT
    }];
    let rt = [rmsr::TopicData {
        name: "orders",
        partitions: Array::from_slice(&rp),
        ..rmsr::TopicData::DEFAULT
    }];
    push!(
        out,
        ReadMirrorStatesRequest,
        ReadMirrorStatesRequest {
            mirror_name: "mirror-a",
            topics: Array::from_slice(&rt),
            ..ReadMirrorStatesRequest::DEFAULT
        }
    );
    let rr = [rmsrs::PartitionResult {
        partition_index: 0,
        last_mirror_epoch: 3,
        state: 1,
        ..rmsrs::PartitionResult::DEFAULT
    }];
    let rtr = [rmsrs::TopicResult {
        name: "orders",
        partitions: Array::from_slice(&rr),
        ..rmsrs::TopicResult::DEFAULT
    }];
    push!(
        out,
        ReadMirrorStatesResponse,
        ReadMirrorStatesResponse {
            topics: Array::from_slice(&rtr),
            ..ReadMirrorStatesResponse::DEFAULT
        }
    );
    out
}

/// The seed mapping: (seed file, draft, draft field, where it lives now).
pub const SEED_MAP: &[(&str, &str, &str, &str)] = &[
    (
        "000, 001",
        "PartitionChangeRecord v1",
        "EligibleLeaderReplicas (tag 6)",
        "PartitionChangeRecord v2+, tagged field 6 eligible_leader_replicas",
    ),
    (
        "000, 001",
        "PartitionChangeRecord v1",
        "LastKnownELR (tag 7)",
        "PartitionChangeRecord v2+, tagged field 7 last_known_elr",
    ),
    (
        "001",
        "PartitionRecord v1",
        "EligibleLeaderReplicas (untagged draft)",
        "PartitionRecord v2+, tagged field 1 eligible_leader_replicas",
    ),
    (
        "001",
        "PartitionRecord v1",
        "LastKnownELR (untagged draft)",
        "PartitionRecord v2+, tagged field 2 last_known_elr",
    ),
    (
        "001",
        "BrokerRegistrationRequest v2",
        "BrokerEpoch (int64, default -1)",
        "BrokerRegistrationRequest v3+, previous_broker_epoch",
    ),
    (
        "002",
        "AlterPartitionRequest v3",
        "NewIsrWithEpochs [BrokerId, BrokerEpoch]",
        "AlterPartitionRequest v3+, new_isr_with_epochs (NewIsr for v0-2)",
    ),
    (
        "003",
        "AlterPartitionResponse v1",
        "LeaderRecoveryState (int8)",
        "AlterPartitionResponse v1+, leader_recovery_state (v0-1 from Kafka 3.9.1)",
    ),
    (
        "004",
        "DescribeMirrors, BumpLeaderEpochs, ReadMirrorStates",
        "apiKey TBD",
        "unreleased: kafka-wire drafts, provisional API keys 32000-32002",
    ),
];
