//! Tables read from Kafka's jars rather than from its schemas (`schemas/derived/`): the error
//! codes and every release's API version ranges. Each is a tab-separated file with `#` comments
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

/// One API's request versions in one release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseApi {
    pub key: i16,
    pub name: String,
    pub min: i16,
    pub max: i16,
    pub latest_unstable: bool,
    pub listeners: Vec<String>,
}

/// Everything under `schemas/derived/` the generator reads.
#[derive(Clone, Debug, Default)]
pub struct Tables {
    /// The release the error table was read from.
    pub errors_release: String,
    pub errors: Vec<ErrorRow>,
    /// Release name to its APIs, oldest release first.
    pub releases: Vec<(String, Vec<ReleaseApi>)>,
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
    let mut by_release: BTreeMap<Vec<u32>, (String, Vec<ReleaseApi>)> = BTreeMap::new();
    for (line, f) in tsv(releases, "release\tapi_key\tname\tmin\tmax\tlatest_unstable\tlisteners")? {
        let api = ReleaseApi {
            key: num(releases, line, &f[1])?,
            name: f[2].clone(),
            min: num(releases, line, &f[3])?,
            max: num(releases, line, &f[4])?,
            latest_unstable: boolean(releases, line, &f[5])?,
            listeners: f[6].split(',').filter(|s| !s.is_empty()).map(str::to_string).collect(),
        };
        if api.min > api.max || api.min < 0 {
            return Err(err(releases, line, format!("bad range {}-{}", api.min, api.max)));
        }
        let entry = by_release
            .entry(release_key(&f[0]))
            .or_insert_with(|| (f[0].clone(), Vec::new()));
        if entry.1.iter().any(|a| a.key == api.key) {
            return Err(err(
                releases,
                line,
                format!("API key {} listed twice for {}", api.key, f[0]),
            ));
        }
        entry.1.push(api);
    }
    t.releases = by_release.into_values().collect();
    for (_, apis) in &mut t.releases {
        apis.sort_by_key(|a| a.key);
    }
    // The rows of the release the schemas come from must agree with them.
    let requests: Vec<&Message> = msgs
        .iter()
        .filter(|m| m.kind == "request" && m.folder == "clients")
        .collect();
    for (release, apis) in &t.releases {
        if requests
            .iter()
            .any(|m| m.origin.newer.as_deref() == Some(release.as_str()))
        {
            for m in requests.iter().filter(|m| m.origin.newer.is_some()) {
                let own = m.valid.minus(m.older_only);
                let (lo, hi) = (own.min().map(i16::from), own.max().map(i16::from));
                let row = apis.iter().find(|a| Some(a.key) == m.api_key);
                if row.map(|a| (Some(a.min), Some(a.max))) != Some((lo, hi)) {
                    return Err(err(
                        releases,
                        0,
                        format!(
                            "{release}'s row for {} ({row:?}) disagrees with its schema ({lo:?}-{hi:?})",
                            m.name
                        ),
                    ));
                }
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

/// The `releases` module: each release's API version ranges. Releases whose tables are
/// identical share one slice.
pub fn releases_module(t: &Tables) -> String {
    let first = t.releases.first().map_or("", |r| r.0.as_str());
    let last = t.releases.last().map_or("", |r| r.0.as_str());
    let mut o = header("the API version ranges of Apache Kafka's releases (schemas/derived/releases.tsv)");
    let _ = writeln!(
        o,
        "//! The request version ranges of every API in each Apache Kafka release from {first} to {last} whose\n//! `kafka-clients` jar is published, read from that release's schemas.\n"
    );
    o.push_str("/// One API's request versions in one release.\n#[derive(Clone, Copy, Debug, PartialEq, Eq)]\npub struct ApiRange {\n    /// The API key.\n    pub key: i16,\n    /// Lowest valid version.\n    pub min: i16,\n    /// Highest valid version.\n    pub max: i16,\n    /// True when the highest version is marked unstable: a broker of the release does not\n    /// advertise it unless configured to.\n    pub latest_unstable: bool,\n    /// The listeners that serve the API: bit 0 a broker, bit 1 a controller, bit 2 a\n    /// ZooKeeper-mode broker (see [`Listeners`]).\n    pub listeners: u8,\n}\n\n");
    o.push_str("/// The listener bits of [`ApiRange::listeners`].\npub struct Listeners;\n\nimpl Listeners {\n    /// A (KRaft) broker.\n    pub const BROKER: u8 = 1;\n    /// A KRaft controller.\n    pub const CONTROLLER: u8 = 2;\n    /// A ZooKeeper-mode broker (releases before 4.0).\n    pub const ZK_BROKER: u8 = 4;\n}\n\n");
    o.push_str("/// One Kafka release and the APIs it defines.\n#[derive(Clone, Copy, Debug, PartialEq, Eq)]\npub struct Release {\n    /// The release number, e.g. `\"4.4.0\"`.\n    pub name: &'static str,\n    /// Its APIs, by key.\n    pub apis: &'static [ApiRange],\n}\n\n");
    let mut slices: Vec<(String, &Vec<ReleaseApi>)> = Vec::new();
    let mut refs: Vec<(String, String)> = Vec::new();
    for (name, apis) in &t.releases {
        let id = match slices.iter().find(|(_, a)| *a == apis) {
            Some((id, _)) => id.clone(),
            None => {
                let id = format!("APIS_{}", name.replace('.', "_"));
                slices.push((id.clone(), apis));
                id
            }
        };
        refs.push((name.clone(), id));
    }
    for (id, apis) in &slices {
        let _ = writeln!(o, "const {id}: &[ApiRange] = &[");
        for a in apis.iter() {
            let bits = a.listeners.iter().fold(0u8, |b, l| {
                b | match l.as_str() {
                    "broker" => 1,
                    "controller" => 2,
                    "zkBroker" => 4,
                    _ => 0,
                }
            });
            let _ = writeln!(
                o,
                "    ApiRange {{ key: {}, min: {}, max: {}, latest_unstable: {}, listeners: {bits} }}, // {}",
                a.key, a.min, a.max, a.latest_unstable, a.name
            );
        }
        o.push_str("];\n\n");
    }
    o.push_str("/// Every release in the table, oldest first.\npub const RELEASES: &[Release] = &[\n");
    for (name, id) in &refs {
        let _ = writeln!(o, "    Release {{ name: \"{name}\", apis: {id} }},");
    }
    o.push_str("];\n");
    o
}
