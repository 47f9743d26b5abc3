//! Tables read from Kafka's jars rather than from its schemas (`schemas/derived/`): the error
//! codes and the API version ranges each release's nodes advertise. Each is a tab-separated file with `#` comments
//! and a header line; this module reads them, checks them against the schemas, and emits the
//! `errors` and `releases` modules.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use crate::emit::header;
use crate::model::Message;
use crate::schema::SchemaError;

/// One of Kafka's error codes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorRow {
    pub code: i16,
    /// Kafka's name, e.g. `UNKNOWN_TOPIC_OR_PARTITION`.
    pub name: String,
    /// The simple name of the exception class (empty for `NONE`).
    pub exception: String,
    pub retriable: bool,
}

/// When a node advertises an API (the `when` column of `releases.tsv`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// In every answer.
    Always,
    /// Only when a client telemetry reporter is configured.
    Telemetry,
    /// Only with `unstable.api.versions.enable=true`.
    Unstable,
}

/// One API's range as one kind of node of one release advertises it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseApi {
    pub key: i16,
    /// Kafka's name for the API (`ApiKeys.name`), e.g. `Produce`.
    pub name: String,
    pub min: i16,
    /// The highest version advertised by default.
    pub max: i16,
    /// The highest version advertised with unstable versions enabled.
    pub unstable_max: i16,
    pub when: When,
}

/// What each kind of node of one release advertises, each by key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReleaseNodes {
    /// A KRaft broker's client listener.
    pub broker: Vec<ReleaseApi>,
    /// A KRaft controller's listener.
    pub controller: Vec<ReleaseApi>,
    /// A ZooKeeper-mode broker (3.x releases; empty from 4.0).
    pub zk_broker: Vec<ReleaseApi>,
}

/// Everything under `schemas/derived/` the generator reads.
#[derive(Clone, Debug, Default)]
pub struct Tables {
    /// The release the error table was read from.
    pub errors_release: String,
    pub errors: Vec<ErrorRow>,
    /// Release name to what its nodes advertise, oldest release first.
    pub releases: Vec<(String, ReleaseNodes)>,
}

fn err(path: &Path, line: usize, rule: String) -> SchemaError {
    SchemaError {
        file: path.display().to_string(),
        line,
        column: 1,
        rule,
    }
}

/// The data lines of a table, split on tabs, after checking the header line; with line numbers.
fn tsv(path: &Path, header: &str) -> Result<Vec<(usize, Vec<String>)>, SchemaError> {
    let text = std::fs::read_to_string(path).map_err(|e| err(path, 0, format!("cannot read: {e}")))?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty());
    match lines.next() {
        Some((_, h)) if h == header => {}
        Some((i, h)) => return Err(err(path, i + 1, format!("expected the header `{header}`, found `{h}`"))),
        None => return Err(err(path, 0, "empty table".into())),
    }
    let cols = header.split('\t').count();
    lines
        .map(|(i, l)| {
            let f: Vec<String> = l.split('\t').map(str::to_string).collect();
            if f.len() == cols {
                Ok((i + 1, f))
            } else {
                Err(err(path, i + 1, format!("{} columns, expected {cols}", f.len())))
            }
        })
        .collect()
}

fn num<T: std::str::FromStr>(path: &Path, line: usize, s: &str) -> Result<T, SchemaError> {
    s.parse()
        .map_err(|_| err(path, line, format!("`{s}` is not a number in range")))
}

fn boolean(path: &Path, line: usize, s: &str) -> Result<bool, SchemaError> {
    match s {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(err(path, line, format!("`{s}` is not true or false"))),
    }
}

fn release_key(r: &str) -> Vec<u32> {
    r.split('.').map(|x| x.parse().unwrap_or(0)).collect()
}

/// Reads the error table (`errors.tsv`, in a folder named after its release) and the release
/// table, and checks them against the merged schemas: the release table's rows for the releases
/// the schemas come from must give the schemas' own version ranges.
pub fn load(errors: &Path, releases: &Path, msgs: &[Message]) -> Result<Tables, SchemaError> {
    let mut t = Tables {
        errors_release: errors
            .parent()
            .and_then(|p| p.file_name())
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        ..Tables::default()
    };
    for (line, f) in tsv(errors, "code\tname\texception\tretriable")? {
        let row = ErrorRow {
            code: num(errors, line, &f[0])?,
            name: f[1].clone(),
            exception: f[2].clone(),
            retriable: boolean(errors, line, &f[3])?,
        };
        if !row
            .name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
            || row.name.is_empty()
        {
            return Err(err(
                errors,
                line,
                format!("error name `{}` is not UPPER_SNAKE_CASE", row.name),
            ));
        }
        if t.errors.iter().any(|e| e.code == row.code || e.name == row.name) {
            return Err(err(
                errors,
                line,
                format!("error {} ({}) is listed twice", row.name, row.code),
            ));
        }
        t.errors.push(row);
    }
    let mut by_release: BTreeMap<Vec<u32>, (String, ReleaseNodes)> = BTreeMap::new();
    for (line, f) in tsv(releases, "release\tnode\tapi_key\tname\tmin\tmax\tunstable_max\twhen")? {
        let api = ReleaseApi {
            key: num(releases, line, &f[2])?,
            name: f[3].clone(),
            min: num(releases, line, &f[4])?,
            max: num(releases, line, &f[5])?,
            unstable_max: num(releases, line, &f[6])?,
            when: match f[7].as_str() {
                "always" => When::Always,
                "telemetry" => When::Telemetry,
                "unstable" => When::Unstable,
                w => {
                    return Err(err(
                        releases,
                        line,
                        format!("`{w}` is not always, telemetry or unstable"),
                    ))
                }
            },
        };
        if api.min > api.max || api.min < 0 || api.unstable_max < api.max {
            return Err(err(
                releases,
                line,
                format!("bad range {}-{} (unstable {})", api.min, api.max, api.unstable_max),
            ));
        }
        let entry = by_release
            .entry(release_key(&f[0]))
            .or_insert_with(|| (f[0].clone(), ReleaseNodes::default()));
        let node = match f[1].as_str() {
            "broker" => &mut entry.1.broker,
            "controller" => &mut entry.1.controller,
            "zk-broker" => &mut entry.1.zk_broker,
            n => {
                return Err(err(
                    releases,
                    line,
                    format!("`{n}` is not broker, controller or zk-broker"),
                ))
            }
        };
        if node.last().is_some_and(|a| a.key >= api.key) {
            return Err(err(
                releases,
                line,
                format!("{} {}: API key {} out of order or listed twice", f[0], f[1], api.key),
            ));
        }
        node.push(api);
    }
    t.releases = by_release.into_values().collect();
    // Every range the release the schemas come from advertises is one the generated code
    // decodes (the schemas merged with the older release's, which keep versions such as
    // Produce v0-2 that 4.x brokers still advertise).
    let requests: Vec<&Message> = msgs.iter().filter(|m| m.kind == "request").collect();
    for (release, nodes) in &t.releases {
        if !requests
            .iter()
            .any(|m| m.origin.newer.as_deref() == Some(release.as_str()))
        {
            continue;
        }
        for a in nodes.broker.iter().chain(&nodes.controller).chain(&nodes.zk_broker) {
            let Some(m) = requests.iter().find(|m| m.api_key == Some(a.key)) else {
                return Err(err(
                    releases,
                    0,
                    format!(
                        "{release} advertises API key {} ({}), which no schema defines",
                        a.key, a.name
                    ),
                ));
            };
            let (lo, hi) = (m.valid.min().map(i16::from), m.valid.max().map(i16::from));
            if lo.is_none_or(|lo| a.min < lo) || hi.is_none_or(|hi| a.unstable_max > hi) {
                return Err(err(
                    releases,
                    0,
                    format!(
                        "{release} advertises {} v{}-{}, beyond its schemas ({lo:?}-{hi:?})",
                        a.name, a.min, a.unstable_max
                    ),
                ));
            }
        }
    }
    Ok(t)
}

/// `UNKNOWN_TOPIC_OR_PARTITION` to `UnknownTopicOrPartition`.
fn camel(name: &str) -> String {
    name.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or_else(String::new, |f| {
                f.to_ascii_uppercase().to_string() + &c.as_str().to_ascii_lowercase()
            })
        })
        .collect()
}

/// The `errors` module: `ErrorCode` with one variant per code.
pub fn errors_module(t: &Tables) -> String {
    let mut o = header(&format!(
        "Apache Kafka {}'s error table (schemas/derived/{}/errors.tsv)",
        t.errors_release, t.errors_release
    ));
    let _ = writeln!(
        o,
        "//! Kafka's error codes, as Kafka {} defines them: the code on the wire, Kafka's name for it, and\n//! whether Kafka's clients retry a request that failed with it.\n",
        t.errors_release
    );
    o.push_str("use core::fmt;\n\n");
    o.push_str("/// An error code from a response. Codes that Kafka's table does not have are kept as\n/// [`ErrorCode::Unknown`], so every `i16` converts and converts back unchanged.\n");
    o.push_str("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\n#[non_exhaustive]\npub enum ErrorCode {\n");
    for e in &t.errors {
        let _ = writeln!(
            o,
            "    /// Code {}: `{}`{}.",
            e.code,
            e.name,
            if e.retriable { ", retriable" } else { "" }
        );
        let _ = writeln!(o, "    {},", camel(&e.name));
    }
    o.push_str("    /// A code Kafka's table does not have.\n    Unknown(i16),\n}\n\n");
    o.push_str("impl ErrorCode {\n    /// Every code of Kafka's table, in numeric order.\n    pub const ALL: &'static [ErrorCode] = &[\n");
    let mut sorted: Vec<&ErrorRow> = t.errors.iter().collect();
    sorted.sort_by_key(|e| e.code);
    for e in &sorted {
        let _ = writeln!(o, "        ErrorCode::{},", camel(&e.name));
    }
    o.push_str("    ];\n\n    /// The error for a code read off the wire.\n    pub const fn from_code(code: i16) -> Self {\n        match code {\n");
    for e in &sorted {
        let _ = writeln!(o, "            {} => Self::{},", e.code, camel(&e.name));
    }
    o.push_str("            c => Self::Unknown(c),\n        }\n    }\n\n    /// The code on the wire.\n    pub const fn code(self) -> i16 {\n        match self {\n");
    for e in &sorted {
        let _ = writeln!(o, "            Self::{} => {},", camel(&e.name), e.code);
    }
    o.push_str("            Self::Unknown(c) => c,\n        }\n    }\n\n    /// Kafka's name for the code (`UNKNOWN_TOPIC_OR_PARTITION`); `None` for an unknown code.\n    pub const fn name(self) -> Option<&'static str> {\n        Some(match self {\n");
    for e in &sorted {
        let _ = writeln!(o, "            Self::{} => \"{}\",", camel(&e.name), e.name);
    }
    o.push_str("            Self::Unknown(_) => return None,\n        })\n    }\n\n    /// The simple name of the Java exception Kafka raises for the code; `None` for `NONE` and\n    /// unknown codes.\n    pub const fn exception(self) -> Option<&'static str> {\n        Some(match self {\n");
    for e in sorted.iter().filter(|e| !e.exception.is_empty()) {
        let _ = writeln!(o, "            Self::{} => \"{}\",", camel(&e.name), e.exception);
    }
    o.push_str("            _ => return None,\n        })\n    }\n\n    /// True when Kafka's clients treat the error as transient and retry (its exception is a\n    /// `RetriableException`). False for unknown codes.\n    pub const fn is_retriable(self) -> bool {\n        matches!(\n            self,\n");
    let retriable: Vec<String> = sorted
        .iter()
        .filter(|e| e.retriable)
        .map(|e| format!("Self::{}", camel(&e.name)))
        .collect();
    let _ = writeln!(o, "            {}", retriable.join(" | "));
    o.push_str("        )\n    }\n\n    /// True for code 0, `NONE`.\n    pub const fn is_none(self) -> bool {\n        self.code() == 0\n    }\n}\n\n");
    o.push_str(
        "impl From<i16> for ErrorCode {\n    fn from(code: i16) -> Self {\n        Self::from_code(code)\n    }\n}\n\n",
    );
    o.push_str("impl From<ErrorCode> for i16 {\n    fn from(e: ErrorCode) -> i16 {\n        e.code()\n    }\n}\n\n");
    o.push_str("impl fmt::Display for ErrorCode {\n    /// Kafka's name (`NOT_LEADER_OR_FOLLOWER`), or `UNKNOWN_ERROR_CODE(n)`.\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n        match self.name() {\n            Some(n) => f.write_str(n),\n            None => write!(f, \"UNKNOWN_ERROR_CODE({})\", self.code()),\n        }\n    }\n}\n\n");
    o.push_str("#[cfg(feature = \"defmt\")]\nimpl defmt::Format for ErrorCode {\n    fn format(&self, f: defmt::Formatter<'_>) {\n        match self.name() {\n            Some(n) => defmt::write!(f, \"{=str}\", n),\n            None => defmt::write!(f, \"UNKNOWN_ERROR_CODE({=i16})\", self.code()),\n        }\n    }\n}\n");
    o
}

/// The `releases` module: what each release's nodes advertise. Node tables that are identical
/// share one slice.
pub fn releases_module(t: &Tables) -> String {
    let first = t.releases.first().map_or("", |r| r.0.as_str());
    let last = t.releases.last().map_or("", |r| r.0.as_str());
    let mut o = header("the API version ranges Apache Kafka's releases advertise (schemas/derived/releases.tsv)");
    let _ = writeln!(
        o,
        "//! The API version ranges that the nodes of each Apache Kafka release from {first} to {last} whose\n//! `kafka-clients` jar is published put in their ApiVersions answers, computed by the release's own\n//! classes (`schemas/tools/releases.sh`).\n"
    );
    o.push_str("/// One API's versions as one kind of node of a release advertises them.\n#[derive(Clone, Copy, Debug, PartialEq, Eq)]\npub struct ApiRange {\n    /// The API key.\n    pub key: i16,\n    /// Lowest version advertised.\n    pub min: i16,\n    /// Highest version advertised by default.\n    pub max: i16,\n    /// Highest version advertised with `unstable.api.versions.enable=true`: `max`, or above it\n    /// when the latest version is unstable.\n    pub unstable_max: i16,\n    /// True when `unstable_max` is above `max`: the node advertises its latest version only when\n    /// configured to.\n    pub latest_unstable: bool,\n    /// When the node advertises the API at all.\n    pub when: Advertised,\n    /// The kinds of node of the release that advertise the API with this same range and\n    /// condition (bits of [`Listeners`]).\n    pub listeners: u8,\n}\n\n");
    o.push_str("/// When a node advertises an API.\n#[derive(Clone, Copy, Debug, PartialEq, Eq)]\npub enum Advertised {\n    /// In every answer.\n    Always,\n    /// Only when a client telemetry reporter is configured (`metric.reporters` naming one that\n    /// implements `ClientTelemetry`): GetTelemetrySubscriptions and PushTelemetry.\n    Telemetry,\n    /// Only with `unstable.api.versions.enable=true`: every version of the API is unstable.\n    Unstable,\n}\n\n");
    o.push_str("/// The bits of [`ApiRange::listeners`].\npub struct Listeners;\n\nimpl Listeners {\n    /// A KRaft broker's client listener.\n    pub const BROKER: u8 = 1;\n    /// A KRaft controller's listener.\n    pub const CONTROLLER: u8 = 2;\n    /// A ZooKeeper-mode broker (releases before 4.0).\n    pub const ZK_BROKER: u8 = 4;\n}\n\n");
    o.push_str("/// One Kafka release and what its nodes advertise in their ApiVersions answers, each table by\n/// key.\n#[derive(Clone, Copy, Debug, PartialEq, Eq)]\npub struct Release {\n    /// The release number, e.g. `\"4.4.0\"`.\n    pub name: &'static str,\n    /// What a KRaft broker of the release advertises on its client listeners, with the active\n    /// controller of the same release.\n    pub apis: &'static [ApiRange],\n    /// What a KRaft controller of the release advertises on its controller listener.\n    pub controller: &'static [ApiRange],\n    /// What a ZooKeeper-mode broker of the release advertises; empty from 4.0, which has no\n    /// ZooKeeper mode.\n    pub zk_broker: &'static [ApiRange],\n}\n\n");
    let when = |w: When| match w {
        When::Always => "ALWAYS",
        When::Telemetry => "TELEMETRY",
        When::Unstable => "UNSTABLE",
    };
    o.push_str("use Advertised::{Always as ALWAYS, Telemetry as TELEMETRY, Unstable as UNSTABLE};\n\n/// A table row: key, min, max, unstable_max, when, listeners.\nconst fn row(key: i16, min: i16, max: i16, unstable_max: i16, when: Advertised, listeners: u8) -> ApiRange {\n    ApiRange { key, min, max, unstable_max, latest_unstable: unstable_max > max, when, listeners }\n}\n\n");
    // Each node table rendered, its rows' `listeners` bits included; identical ones are shared.
    let mut slices: Vec<(String, Vec<String>)> = Vec::new();
    let mut refs: Vec<(String, [String; 3])> = Vec::new();
    for (name, nodes) in &t.releases {
        let all = [(1u8, &nodes.broker), (2, &nodes.controller), (4, &nodes.zk_broker)];
        let tables = [
            ("BROKER", &nodes.broker),
            ("CONTROLLER", &nodes.controller),
            ("ZK_BROKER", &nodes.zk_broker),
        ];
        let ids = tables.map(|(kind, apis)| {
            if apis.is_empty() {
                return "&[]".to_string();
            }
            let rows: Vec<String> = apis
                .iter()
                .map(|a| {
                    let bits = all
                        .iter()
                        .filter(|(_, t)| t.iter().any(|b| b == a))
                        .fold(0u8, |b, (bit, _)| b | bit);
                    format!(
                        "    row({}, {}, {}, {}, {}, {bits}), // {}",
                        a.key,
                        a.min,
                        a.max,
                        a.unstable_max,
                        when(a.when),
                        a.name
                    )
                })
                .collect();
            match slices.iter().find(|(_, r)| *r == rows) {
                Some((id, _)) => id.clone(),
                None => {
                    let id = format!("{kind}_{}", name.replace('.', "_"));
                    slices.push((id.clone(), rows));
                    id
                }
            }
        });
        refs.push((name.clone(), ids));
    }
    for (id, rows) in &slices {
        let _ = writeln!(o, "const {id}: &[ApiRange] = &[");
        for r in rows {
            o.push_str(r);
            o.push('\n');
        }
        o.push_str("];\n\n");
    }
    o.push_str("/// Every release in the table, oldest first.\npub const RELEASES: &[Release] = &[\n");
    for (name, [b, c, z]) in &refs {
        let _ = writeln!(
            o,
            "    Release {{ name: \"{name}\", apis: {b}, controller: {c}, zk_broker: {z} }},"
        );
    }
    o.push_str("];\n");
    o
}
