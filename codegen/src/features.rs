//! Cargo features of the `kafka-wire` crate: which feature compiles each message, and the
//! groups that gather them. The `[features]` block of `core/Cargo.toml` is rendered from here.
//!
//! - Every API has one feature, `api-` and its name in kebab case (`api-produce`), that compiles
//!   its request and its response.
//! - Every record family has one: `metadata-records`, `coordinator-records`, `raft-records`,
//!   `storage-records`, `streams-records`; `consumer-protocol` compiles the embedded consumer
//!   protocol schemas; `test-schemas` Kafka's generator test schemas.
//! - The request and response headers and the control records that a record batch may carry
//!   are always compiled.
//! - Groups: `producer`, `transactions`, `sasl`, `consumer`, `admin`, `broker` and
//!   `controller` (every API whose schema lists that listener; `zkBroker` counts as `broker`),
//!   `metadata-log`, `all` (everything but `test-schemas`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::model::{snake, Message};

/// Messages in the `messages` group that are always compiled: the headers, and the control
/// records of record batches (`records::control` decodes them).
const ALWAYS: &[&str] = &[
    "RequestHeader",
    "ResponseHeader",
    "ControlRecordTypeSchema",
    "EndTxnMarker",
    "LeaderChangeMessage",
    "SnapshotHeaderRecord",
    "SnapshotFooterRecord",
    "VotersRecord",
    "KRaftVersionRecord",
];

/// Data schemas of the `messages` group and the feature that compiles each.
const DATA: &[(&str, &str)] = &[
    ("AbortedTxn", "storage-records"),
    ("ConsumerProtocolAssignment", "consumer-protocol"),
    ("ConsumerProtocolSubscription", "consumer-protocol"),
    ("DefaultPrincipalData", "api-envelope"),
];

/// Groups listed by API name (a group may also take other features).
const GROUPS: &[(&str, &str, &[&str])] = &[
    (
        "producer",
        "What a producer sends: ApiVersions, Metadata, InitProducerId and Produce.",
        &["ApiVersions", "Metadata", "InitProducerId", "Produce"],
    ),
    (
        "transactions",
        "What a transactional producer adds to `producer`.",
        &[
            "FindCoordinator",
            "AddPartitionsToTxn",
            "AddOffsetsToTxn",
            "EndTxn",
            "TxnOffsetCommit",
        ],
    ),
    ("sasl", "SASL authentication.", &["SaslHandshake", "SaslAuthenticate"]),
    (
        "consumer",
        "What a consumer of any group protocol sends, with the embedded consumer protocol.",
        &[
            "ApiVersions",
            "Metadata",
            "FindCoordinator",
            "ListOffsets",
            "Fetch",
            "OffsetForLeaderEpoch",
            "JoinGroup",
            "SyncGroup",
            "Heartbeat",
            "LeaveGroup",
            "OffsetCommit",
            "OffsetFetch",
            "ConsumerGroupHeartbeat",
            "ShareGroupHeartbeat",
            "ShareFetch",
            "ShareAcknowledge",
            "StreamsGroupHeartbeat",
            "GetTelemetrySubscriptions",
            "PushTelemetry",
        ],
    ),
    (
        "admin",
        "What an admin client sends.",
        &[
            "ApiVersions",
            "Metadata",
            "FindCoordinator",
            "ListOffsets",
            "OffsetFetch",
            "OffsetDelete",
            "CreateTopics",
            "DeleteTopics",
            "DeleteRecords",
            "CreatePartitions",
            "DescribeConfigs",
            "AlterConfigs",
            "IncrementalAlterConfigs",
            "DescribeAcls",
            "CreateAcls",
            "DeleteAcls",
            "DescribeLogDirs",
            "AlterReplicaLogDirs",
            "CreateDelegationToken",
            "RenewDelegationToken",
            "ExpireDelegationToken",
            "DescribeDelegationToken",
            "DescribeGroups",
            "ListGroups",
            "DeleteGroups",
            "ElectLeaders",
            "AlterPartitionReassignments",
            "ListPartitionReassignments",
            "DescribeClientQuotas",
            "AlterClientQuotas",
            "DescribeUserScramCredentials",
            "AlterUserScramCredentials",
            "DescribeCluster",
            "DescribeProducers",
            "DescribeTransactions",
            "ListTransactions",
            "UpdateFeatures",
            "DescribeQuorum",
            "AddRaftVoter",
            "RemoveRaftVoter",
            "UnregisterBroker",
            "ConsumerGroupDescribe",
            "ShareGroupDescribe",
            "StreamsGroupDescribe",
            "DescribeShareGroupOffsets",
            "AlterShareGroupOffsets",
            "DeleteShareGroupOffsets",
            "ListConfigResources",
            "DescribeTopicPartitions",
        ],
    ),
];

/// The API name of a request or response (`ProduceRequest` → `Produce`).
pub fn api_name(m: &Message) -> &str {
    m.name
        .strip_suffix("Request")
        .or_else(|| m.name.strip_suffix("Response"))
        .unwrap_or(&m.name)
}

/// `Produce` → `produce`, `ApiVersions` → `api-versions`.
fn kebab(name: &str) -> String {
    snake(name).replace('_', "-")
}

/// The feature that compiles `m`, or `None` where it is always compiled.
pub fn feature(m: &Message) -> Option<String> {
    match m.group.as_str() {
        "messages" => match m.kind.as_str() {
            "request" | "response" => Some(format!("api-{}", kebab(api_name(m)))),
            _ if ALWAYS.contains(&m.name.as_str()) => None,
            _ => Some(DATA.iter().find(|(n, _)| *n == m.name).map_or_else(
                || panic!("no feature for data schema {}", m.name),
                |(_, f)| f.to_string(),
            )),
        },
        "testing" => Some("test-schemas".into()),
        g => Some(format!("{g}-records")),
    }
}

/// `#[cfg(feature = "…")]` for `m`, with a trailing space, or nothing.
pub fn cfg(m: &Message) -> String {
    feature(m).map_or(String::new(), |f| format!("#[cfg(feature = \"{f}\")] "))
}

/// Every feature and what it enables, in the order the manifest lists them.
pub fn table(msgs: &[Message]) -> Result<Vec<(String, String, Vec<String>)>, String> {
    let mut apis: BTreeMap<i16, (String, Vec<String>)> = BTreeMap::new();
    let mut families: BTreeSet<String> = BTreeSet::new();
    for m in msgs {
        let Some(f) = feature(m) else { continue };
        if m.kind == "request" && m.group == "messages" {
            apis.insert(m.api_key.unwrap_or(-1), (f, m.listeners.clone()));
        } else if !f.starts_with("api-") {
            families.insert(f);
        }
    }
    let by_name: BTreeMap<String, String> = msgs
        .iter()
        .filter(|m| m.kind == "request" && m.group == "messages")
        .map(|m| (api_name(m).to_string(), feature(m).unwrap_or_default()))
        .collect();
    let mut out: Vec<(String, String, Vec<String>)> = Vec::new();
    let with = |l: &str| -> Vec<String> {
        apis.values()
            .filter(|(_, ls)| ls.iter().any(|x| x == l || (l == "broker" && x == "zkBroker")))
            .map(|(f, _)| f.clone())
            .collect()
    };
    for (name, doc, list) in GROUPS {
        let mut v = Vec::new();
        for a in *list {
            v.push(
                by_name
                    .get(*a)
                    .ok_or_else(|| format!("feature group {name} names API {a}, which no schema defines"))?
                    .clone(),
            );
        }
        if *name == "consumer" {
            v.push("consumer-protocol".into());
        }
        out.push((name.to_string(), doc.to_string(), v));
    }
    out.push((
        "broker".into(),
        "Every API a broker serves (its schema lists the `broker` or `zkBroker` listener).".into(),
        with("broker"),
    ));
    out.push((
        "controller".into(),
        "Every API a KRaft controller serves (its schema lists the `controller` listener).".into(),
        with("controller"),
    ));
    out.push((
        "metadata-log".into(),
        "The KRaft metadata log: metadata records and the raft records.".into(),
        vec!["metadata-records".into(), "raft-records".into()],
    ));
    let mut all: Vec<String> = apis.values().map(|(f, _)| f.clone()).collect();
    all.extend(families.iter().filter(|f| *f != "test-schemas").cloned());
    out.push(("all".into(), "Every API and every record family.".into(), all));
    for (f, _) in apis.values() {
        out.push((f.clone(), String::new(), Vec::new()));
    }
    for f in &families {
        out.push((f.clone(), String::new(), Vec::new()));
    }
    Ok(out)
}

/// The `[features]` entries that `core/Cargo.toml` holds between its markers.
pub fn manifest_block(msgs: &[Message], part: &BTreeMap<String, usize>) -> Result<String, String> {
    let mut o = String::from(
        "# Generated by kafka-wire-codegen from the schemas: one feature per API (`api-*`, its request\n# and response) and per record family, and groups of them. See docs/FEATURES.md. Each API\n# and family turns on its modules in the message crate that holds them.\n",
    );
    // Which part crates hold the modules of each feature.
    let mut held: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for m in msgs {
        if let Some(f) = feature(m) {
            held.entry(f).or_default().insert(part[&m.name]);
        }
    }
    for (name, doc, deps) in table(msgs)? {
        if !doc.is_empty() {
            let _ = writeln!(o, "# {doc}");
        }
        let list: Vec<String> = if deps.is_empty() {
            held.get(&name)
                .into_iter()
                .flatten()
                .map(|i| format!("\"{}/{name}\"", crate::PARTS[*i].0))
                .collect()
        } else {
            deps.iter().map(|d| format!("\"{d}\"")).collect()
        };
        let _ = writeln!(o, "{name} = [{}]", list.join(", "));
    }
    Ok(o)
}

/// The features block of a part crate's manifest: the features of the modules it holds.
pub fn part_block(msgs: &[Message]) -> String {
    let mut o = String::from("# Generated by kafka-wire-codegen: the features of the modules this crate holds.\n");
    let feats: BTreeSet<String> = msgs.iter().filter_map(feature).collect();
    for f in feats {
        let _ = writeln!(o, "{f} = []");
    }
    o
}

/// The generated part of `kafka-wire`'s front page (`core/src/generated/front.md`, included by
/// the crate docs): the Kafka releases the code is generated from, counted from the schemas, and
/// the feature tables.
pub fn front_page(msgs: &[Message]) -> Result<String, String> {
    let release = |pick: fn(&Message) -> Option<&String>, group: &str| -> Option<String> {
        let key = |r: &str| -> Vec<u32> { r.split('.').map(|x| x.parse().unwrap_or(0)).collect() };
        msgs.iter()
            .filter(|m| (group == "testing") == (m.group == "testing"))
            .filter_map(|m| pick(m).cloned())
            .max_by_key(|r| key(r))
    };
    let current = release(|m| m.origin.newer.as_ref(), "").ok_or("no schema of a current release")?;
    let older = release(|m| m.origin.older.as_ref(), "");
    let test = release(|m| m.origin.newer.as_ref(), "testing");
    let count = |f: &dyn Fn(&Message) -> bool| msgs.iter().filter(|m| f(m)).count();
    let apis = count(&|m| m.kind == "request" && m.group == "messages" && m.origin.newer.is_some());
    let drafts = count(&|m| m.kind == "request" && m.provisional);
    let older_only = count(&|m| m.kind == "request" && m.origin.newer.is_none() && m.origin.older.is_some());
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<!-- @generated by kafka-wire-codegen from the schemas in schemas/. Generated — do not edit. -->\n"
    );
    let _ = write!(
        o,
        "Generated from the message schemas of **Apache Kafka {current}** (`schemas/kafka/{current}`): \
         {apis} APIs, requests, responses and headers at every version"
    );
    if let Some(old) = &older {
        let _ = write!(
            o,
            ", plus the versions and the {older_only} APIs that only **Kafka {old}** defines \
             (`schemas/kafka/{old}`), which Kafka {old} peers still speak"
        );
    }
    let _ = writeln!(
        o,
        ". The KRaft metadata, coordinator, raft, storage and streams records of the same \
         release are included, with {drafts} draft APIs of KIP-1279 on provisional keys \
         (`schemas/kip-1279`). {} schemas in all.",
        count(&|m| m.group != "testing")
    );
    if let Some(t) = &test {
        let _ = writeln!(
            o,
            "\nKafka {t}'s generator test schemas are behind the `test-schemas` feature."
        );
    }
    o.push_str("\n### Feature groups\n\n| feature | what it compiles |\n|---|---|\n");
    for (name, doc, list) in table(msgs)? {
        if doc.is_empty() {
            continue;
        }
        let _ = writeln!(o, "| `{name}` | {doc} ({} features) |", list.len());
    }
    o.push_str("\n### One feature per API\n\n| API key | API | feature |\n|---:|---|---|\n");
    let mut reqs: Vec<&Message> = msgs
        .iter()
        .filter(|m| m.kind == "request" && m.group == "messages")
        .collect();
    reqs.sort_by_key(|m| m.api_key);
    let older_note = format!(" (Kafka {} only)", older.as_deref().unwrap_or("?"));
    for m in reqs {
        let f = feature(m).unwrap_or_default();
        let note = if m.provisional {
            " (KIP-1279 draft, provisional key)"
        } else if m.origin.newer.is_none() {
            older_note.as_str()
        } else {
            ""
        };
        let _ = writeln!(o, "| {} | {}{note} | `{f}` |", m.api_key.unwrap_or(-1), api_name(m));
    }
    o.push_str("\n### Record families\n\n| feature | schemas |\n|---|---|\n");
    let mut fam: BTreeMap<String, usize> = BTreeMap::new();
    for m in msgs {
        if let Some(f) = feature(m).filter(|f| !f.starts_with("api-")) {
            *fam.entry(f).or_default() += 1;
        }
    }
    for (f, n) in fam {
        let _ = writeln!(o, "| `{f}` | {n} |");
    }
    Ok(o)
}
