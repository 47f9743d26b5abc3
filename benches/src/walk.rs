//! Walkers: every field of each measured message, through kafka-wire's view API and through
//! `kafka-protocol`'s structs, visited in the same order so that the digests compare.

use super::*;
use kafka_protocol::messages as kp;
use kafka_wire::messages as kw;

/// Stands in for `kafka-protocol` where it has no such message (metadata records).
pub struct NoKp;

impl Decodable for NoKp {
    fn decode<B: kafka_protocol::protocol::buf::ByteBuf>(_: &mut B, _: i16) -> anyhow::Result<Self> {
        anyhow::bail!("kafka-protocol has no such message")
    }
}
impl Encodable for NoKp {
    fn encode<B: kafka_protocol::protocol::buf::ByteBufMut>(&self, _: &mut B, _: i16) -> anyhow::Result<()> {
        anyhow::bail!("kafka-protocol has no such message")
    }
    fn compute_size(&self, _: i16) -> anyhow::Result<usize> {
        anyhow::bail!("kafka-protocol has no such message")
    }
}

fn u(x: kafka_wire::Uuid) -> [u8; 16] {
    *x.as_bytes()
}
fn ku(x: &uuid::Uuid) -> [u8; 16] {
    *x.as_bytes()
}

/// MetadataResponse.
pub struct Metadata;
impl Msg for Metadata {
    #[cfg(feature = "krabka")]
    type Kk = crate::kk::MetadataResponse;
    type View<'a> = kw::metadata_response::MetadataResponse<'a>;
    type Owned = kw::metadata_response::owned::MetadataResponse;
    type Kp = kp::MetadataResponse;
    #[inline(never)]
    fn walk<S: Sink>(m: &Self::View<'_>, s: &mut S) {
        s.int(m.throttle_time_ms.into());
        arr(s, &m.brokers, |s, b| {
            s.int(b.node_id.into());
            s.str(Some(b.host));
            s.int(b.port.into());
            s.str(b.rack);
        });
        s.str(m.cluster_id);
        s.int(m.controller_id.into());
        arr(s, &m.topics, |s, t| {
            s.int(t.error_code.into());
            s.str(t.name);
            s.uuid(u(t.topic_id));
            s.int(t.is_internal.into());
            arr(s, &t.partitions, |s, p| {
                s.int(p.error_code.into());
                s.int(p.partition_index.into());
                s.int(p.leader_id.into());
                s.int(p.leader_epoch.into());
                arr(s, &p.replica_nodes, |s, x| s.int(x.into()));
                arr(s, &p.isr_nodes, |s, x| s.int(x.into()));
                arr(s, &p.offline_replicas, |s, x| s.int(x.into()));
            });
            s.int(t.topic_authorized_operations.into());
        });
        s.int(m.cluster_authorized_operations.into());
        s.int(m.error_code.into());
    }
    fn kp_walk<S: Sink>(m: &Self::Kp, s: &mut S) {
        s.int(m.throttle_time_ms.into());
        vec(s, &m.brokers, |s, b| {
            s.int(b.node_id.0.into());
            s.str(kstr(&b.host));
            s.int(b.port.into());
            s.str(b.rack.as_ref().and_then(kstr));
        });
        s.str(m.cluster_id.as_ref().and_then(kstr));
        s.int(m.controller_id.0.into());
        vec(s, &m.topics, |s, t| {
            s.int(t.error_code.into());
            s.str(t.name.as_ref().and_then(|n| kstr(&n.0)));
            s.uuid(ku(&t.topic_id));
            s.int(t.is_internal.into());
            vec(s, &t.partitions, |s, p| {
                s.int(p.error_code.into());
                s.int(p.partition_index.into());
                s.int(p.leader_id.0.into());
                s.int(p.leader_epoch.into());
                vec(s, &p.replica_nodes, |s, x| s.int(x.0.into()));
                vec(s, &p.isr_nodes, |s, x| s.int(x.0.into()));
                vec(s, &p.offline_replicas, |s, x| s.int(x.0.into()));
            });
            s.int(t.topic_authorized_operations.into());
        });
        s.int(m.cluster_authorized_operations.into());
        s.int(m.error_code.into());
    }
}

/// AlterPartitionRequest.
pub struct AlterPartition;
impl Msg for AlterPartition {
    #[cfg(feature = "krabka")]
    type Kk = crate::kk::AlterPartitionRequest;
    type View<'a> = kw::alter_partition_request::AlterPartitionRequest<'a>;
    type Owned = kw::alter_partition_request::owned::AlterPartitionRequest;
    type Kp = kp::AlterPartitionRequest;
    #[inline(never)]
    fn walk<S: Sink>(m: &Self::View<'_>, s: &mut S) {
        s.int(m.broker_id.into());
        s.int(m.broker_epoch);
        arr(s, &m.topics, |s, t| {
            s.uuid(u(t.topic_id));
            arr(s, &t.partitions, |s, p| {
                s.int(p.partition_index.into());
                s.int(p.leader_epoch.into());
                arr(s, &p.new_isr_with_epochs, |s, b| {
                    s.int(b.broker_id.into());
                    s.int(b.broker_epoch);
                });
                s.int(p.leader_recovery_state.into());
                s.int(p.partition_epoch.into());
            });
        });
    }
    fn kp_walk<S: Sink>(m: &Self::Kp, s: &mut S) {
        s.int(m.broker_id.0.into());
        s.int(m.broker_epoch);
        vec(s, &m.topics, |s, t| {
            s.uuid(ku(&t.topic_id));
            vec(s, &t.partitions, |s, p| {
                s.int(p.partition_index.into());
                s.int(p.leader_epoch.into());
                vec(s, &p.new_isr_with_epochs, |s, b| {
                    s.int(b.broker_id.0.into());
                    s.int(b.broker_epoch);
                });
                s.int(p.leader_recovery_state.into());
                s.int(p.partition_epoch.into());
            });
        });
    }
}

/// FetchResponse.
pub struct Fetch;
impl Msg for Fetch {
    #[cfg(feature = "krabka")]
    type Kk = crate::kk::FetchResponse;
    type View<'a> = kw::fetch_response::FetchResponse<'a>;
    type Owned = kw::fetch_response::owned::FetchResponse;
    type Kp = kp::FetchResponse;
    #[inline(never)]
    fn walk<S: Sink>(m: &Self::View<'_>, s: &mut S) {
        s.int(m.throttle_time_ms.into());
        s.int(m.error_code.into());
        s.int(m.session_id.into());
        arr(s, &m.responses, |s, t| {
            s.str(Some(t.topic));
            s.uuid(u(t.topic_id));
            arr(s, &t.partitions, |s, p| {
                s.int(p.partition_index.into());
                s.int(p.error_code.into());
                s.int(p.high_watermark);
                s.int(p.last_stable_offset);
                s.int(p.log_start_offset);
                s.int(p.diverging_epoch.epoch.into());
                s.int(p.diverging_epoch.end_offset);
                s.int(p.current_leader.leader_id.into());
                s.int(p.current_leader.leader_epoch.into());
                s.int(p.snapshot_id.end_offset);
                s.int(p.snapshot_id.epoch.into());
                opt_arr(s, &p.aborted_transactions, |s, a| {
                    s.int(a.producer_id);
                    s.int(a.first_offset);
                });
                s.int(p.preferred_read_replica.into());
                s.bytes(p.records);
            });
        });
        arr(s, &m.node_endpoints, |s, n| {
            s.int(n.node_id.into());
            s.str(Some(n.host));
            s.int(n.port.into());
            s.str(n.rack);
        });
    }
    fn kp_walk<S: Sink>(m: &Self::Kp, s: &mut S) {
        s.int(m.throttle_time_ms.into());
        s.int(m.error_code.into());
        s.int(m.session_id.into());
        vec(s, &m.responses, |s, t| {
            s.str(kstr(&t.topic.0));
            s.uuid(ku(&t.topic_id));
            vec(s, &t.partitions, |s, p| {
                s.int(p.partition_index.into());
                s.int(p.error_code.into());
                s.int(p.high_watermark);
                s.int(p.last_stable_offset);
                s.int(p.log_start_offset);
                s.int(p.diverging_epoch.epoch.into());
                s.int(p.diverging_epoch.end_offset);
                s.int(p.current_leader.leader_id.0.into());
                s.int(p.current_leader.leader_epoch.into());
                s.int(p.snapshot_id.end_offset);
                s.int(p.snapshot_id.epoch.into());
                match &p.aborted_transactions {
                    Some(a) => vec(s, a, |s, a| {
                        s.int(a.producer_id.0);
                        s.int(a.first_offset);
                    }),
                    None => s.len(None),
                }
                s.int(p.preferred_read_replica.0.into());
                s.bytes(p.records.as_deref());
            });
        });
        vec(s, &m.node_endpoints, |s, n| {
            s.int(n.node_id.0.into());
            s.str(kstr(&n.host));
            s.int(n.port.into());
            s.str(n.rack.as_ref().and_then(kstr));
        });
    }
}

/// ProduceRequest.
pub struct Produce;
impl Msg for Produce {
    #[cfg(feature = "krabka")]
    type Kk = crate::kk::ProduceRequest;
    type View<'a> = kw::produce_request::ProduceRequest<'a>;
    type Owned = kw::produce_request::owned::ProduceRequest;
    type Kp = kp::ProduceRequest;
    #[inline(never)]
    fn walk<S: Sink>(m: &Self::View<'_>, s: &mut S) {
        s.str(m.transactional_id);
        s.int(m.acks.into());
        s.int(m.timeout_ms.into());
        arr(s, &m.topic_data, |s, t| {
            s.str(Some(t.name));
            s.uuid(u(t.topic_id));
            arr(s, &t.partition_data, |s, p| {
                s.int(p.index.into());
                s.bytes(p.records);
            });
        });
    }
    fn kp_walk<S: Sink>(m: &Self::Kp, s: &mut S) {
        s.str(m.transactional_id.as_ref().and_then(|x| kstr(&x.0)));
        s.int(m.acks.into());
        s.int(m.timeout_ms.into());
        vec(s, &m.topic_data, |s, t| {
            s.str(kstr(&t.name.0));
            s.uuid(ku(&t.topic_id));
            vec(s, &t.partition_data, |s, p| {
                s.int(p.index.into());
                s.bytes(p.records.as_deref());
            });
        });
    }
}

/// BrokerRegistrationRequest.
pub struct BrokerRegistration;
impl Msg for BrokerRegistration {
    #[cfg(feature = "krabka")]
    type Kk = crate::kk::BrokerRegistrationRequest;
    type View<'a> = kw::broker_registration_request::BrokerRegistrationRequest<'a>;
    type Owned = kw::broker_registration_request::owned::BrokerRegistrationRequest;
    type Kp = kp::BrokerRegistrationRequest;
    #[inline(never)]
    fn walk<S: Sink>(m: &Self::View<'_>, s: &mut S) {
        s.int(m.broker_id.into());
        s.str(Some(m.cluster_id));
        s.uuid(u(m.incarnation_id));
        arr(s, &m.listeners, |s, l| {
            s.str(Some(l.name));
            s.str(Some(l.host));
            s.int(l.port.into());
            s.int(l.security_protocol.into());
        });
        arr(s, &m.features, |s, f| {
            s.str(Some(f.name));
            s.int(f.min_supported_version.into());
            s.int(f.max_supported_version.into());
        });
        s.str(m.rack);
        s.int(m.is_migrating_zk_broker.into());
        arr(s, &m.log_dirs, |s, d| s.uuid(u(d)));
        s.int(m.previous_broker_epoch);
    }
    fn kp_walk<S: Sink>(m: &Self::Kp, s: &mut S) {
        s.int(m.broker_id.0.into());
        s.str(kstr(&m.cluster_id));
        s.uuid(ku(&m.incarnation_id));
        vec(s, &m.listeners, |s, l| {
            s.str(kstr(&l.name));
            s.str(kstr(&l.host));
            s.int(l.port.into());
            s.int(l.security_protocol.into());
        });
        vec(s, &m.features, |s, f| {
            s.str(kstr(&f.name));
            s.int(f.min_supported_version.into());
            s.int(f.max_supported_version.into());
        });
        s.str(m.rack.as_ref().and_then(kstr));
        s.int(m.is_migrating_zk_broker.into());
        vec(s, &m.log_dirs, |s, d| s.uuid(ku(d)));
        s.int(m.previous_broker_epoch);
    }
}

/// ApiVersionsResponse.
pub struct ApiVersions;
impl Msg for ApiVersions {
    #[cfg(feature = "krabka")]
    type Kk = crate::kk::ApiVersionsResponse;
    type View<'a> = kw::api_versions_response::ApiVersionsResponse<'a>;
    type Owned = kw::api_versions_response::owned::ApiVersionsResponse;
    type Kp = kp::ApiVersionsResponse;
    #[inline(never)]
    fn walk<S: Sink>(m: &Self::View<'_>, s: &mut S) {
        s.int(m.error_code.into());
        arr(s, &m.api_keys, |s, a| {
            s.int(a.api_key.into());
            s.int(a.min_version.into());
            s.int(a.max_version.into());
        });
        s.int(m.throttle_time_ms.into());
        arr(s, &m.supported_features, |s, f| {
            s.str(Some(f.name));
            s.int(f.min_version.into());
            s.int(f.max_version.into());
        });
        s.int(m.finalized_features_epoch);
        arr(s, &m.finalized_features, |s, f| {
            s.str(Some(f.name));
            s.int(f.max_version_level.into());
            s.int(f.min_version_level.into());
        });
        s.int(m.zk_migration_ready.into());
    }
    fn kp_walk<S: Sink>(m: &Self::Kp, s: &mut S) {
        s.int(m.error_code.into());
        vec(s, &m.api_keys, |s, a| {
            s.int(a.api_key.into());
            s.int(a.min_version.into());
            s.int(a.max_version.into());
        });
        s.int(m.throttle_time_ms.into());
        vec(s, &m.supported_features, |s, f| {
            s.str(kstr(&f.name));
            s.int(f.min_version.into());
            s.int(f.max_version.into());
        });
        s.int(m.finalized_features_epoch);
        vec(s, &m.finalized_features, |s, f| {
            s.str(kstr(&f.name));
            s.int(f.max_version_level.into());
            s.int(f.min_version_level.into());
        });
        s.int(m.zk_migration_ready.into());
    }
}

/// PartitionChangeRecord (kafka-wire only).
pub struct PartitionChange;
impl Msg for PartitionChange {
    #[cfg(feature = "krabka")]
    type Kk = crate::kk::PartitionChangeRecord;
    type View<'a> = kafka_wire::metadata::partition_change_record::PartitionChangeRecord<'a>;
    type Owned = kafka_wire::metadata::partition_change_record::owned::PartitionChangeRecord;
    type Kp = NoKp;
    const HAS_KP: bool = false;
    #[inline(never)]
    fn walk<S: Sink>(m: &Self::View<'_>, s: &mut S) {
        s.int(m.partition_id.into());
        s.uuid(u(m.topic_id));
        opt_arr(s, &m.isr, |s, x| s.int(x.into()));
        s.int(m.leader.into());
        opt_arr(s, &m.replicas, |s, x| s.int(x.into()));
        opt_arr(s, &m.removing_replicas, |s, x| s.int(x.into()));
        opt_arr(s, &m.adding_replicas, |s, x| s.int(x.into()));
        s.int(m.leader_recovery_state.into());
        opt_arr(s, &m.directories, |s, x| s.uuid(u(x)));
        opt_arr(s, &m.eligible_leader_replicas, |s, x| s.int(x.into()));
        opt_arr(s, &m.last_known_elr, |s, x| s.int(x.into()));
    }
    fn kp_walk<S: Sink>(_: &NoKp, _: &mut S) {}
}

/// PartitionRecord (kafka-wire only).
pub struct Partition;
impl Msg for Partition {
    #[cfg(feature = "krabka")]
    type Kk = crate::kk::PartitionRecord;
    type View<'a> = kafka_wire::metadata::partition_record::PartitionRecord<'a>;
    type Owned = kafka_wire::metadata::partition_record::owned::PartitionRecord;
    type Kp = NoKp;
    const HAS_KP: bool = false;
    #[inline(never)]
    fn walk<S: Sink>(m: &Self::View<'_>, s: &mut S) {
        s.int(m.partition_id.into());
        s.uuid(u(m.topic_id));
        arr(s, &m.replicas, |s, x| s.int(x.into()));
        arr(s, &m.isr, |s, x| s.int(x.into()));
        arr(s, &m.removing_replicas, |s, x| s.int(x.into()));
        arr(s, &m.adding_replicas, |s, x| s.int(x.into()));
        s.int(m.leader.into());
        s.int(m.leader_recovery_state.into());
        s.int(m.leader_epoch.into());
        s.int(m.partition_epoch.into());
        arr(s, &m.directories, |s, x| s.uuid(u(x)));
        opt_arr(s, &m.eligible_leader_replicas, |s, x| s.int(x.into()));
        opt_arr(s, &m.last_known_elr, |s, x| s.int(x.into()));
    }
    fn kp_walk<S: Sink>(_: &NoKp, _: &mut S) {}
}
