//! The merged model: every message with every version from both Kafka releases.
//!
//! A version present in the newer release (the current one, `schemas/inputs.txt`) is defined by
//! it; a version only the older release has is defined by the older one. Field by field, each
//! version set (present, nullable, tagged, compact) is taken from the newer schema for the newer
//! versions and from the older schema for the others, so one struct covers the union.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::schema::{self, CommonStruct, Field, Schema, SchemaError, Type, Versions};

/// Where a message came from, for the generated headers and docs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    pub newer: Option<String>,
    pub older: Option<String>,
    pub draft: Option<String>,
    /// The schema files it is read from, relative to `schemas/` (`kafka/4.4.0/clients/…json`).
    pub files: Vec<String>,
}

/// One message after the merge.
#[derive(Clone, Debug)]
pub struct Message {
    pub name: String,
    pub kind: String,
    /// Module group (`messages`, `metadata`, `coordinator`, …).
    pub group: String,
    /// Source folder (`clients`, `metadata`, `group-coordinator`, …, `drafts`).
    pub folder: String,
    pub api_key: Option<i16>,
    pub provisional: bool,
    pub valid: Versions,
    pub flexible: Versions,
    pub latest_unstable: bool,
    pub listeners: Vec<String>,
    /// Versions defined by the older release only.
    pub older_only: Versions,
    pub origin: Origin,
    pub fields: Vec<Field>,
    pub common: Vec<CommonStruct>,
}

/// Where the generator reads its inputs. A release folder is named after its Kafka release
/// (`schemas/kafka/4.4.0`): the release number is read from the folder's name.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// The current release: every message and version it defines.
    pub newer: PathBuf,
    /// The older release whose versions and APIs the newer one dropped.
    pub older: PathBuf,
    /// The release whose generator test schemas (`clients-test/`) are read.
    pub test: PathBuf,
    /// kafka-wire's own draft schemas (KIP-1279), with `provisional-api-keys.json`.
    pub drafts: PathBuf,
    /// Kafka's error table (`errors.tsv` in a folder named after its release).
    pub errors: PathBuf,
    /// Every release's API version ranges (`releases.tsv`).
    pub releases: PathBuf,
}

fn input_err(path: &Path, rule: String) -> SchemaError {
    SchemaError {
        file: path.display().to_string(),
        line: 0,
        column: 0,
        rule,
    }
}

impl Inputs {
    /// Reads `inputs.txt` in the schema folder `dir`: lines `current DIR`, `older DIR`,
    /// `test DIR`, `drafts DIR`, `errors FILE` and `releases FILE`, each relative to `dir`; `#`
    /// starts a comment.
    pub fn from_file(dir: &Path) -> Result<Inputs, SchemaError> {
        let file = dir.join("inputs.txt");
        let text = std::fs::read_to_string(&file)
            .map_err(|e| input_err(&file, format!("cannot read the generator's input list: {e}")))?;
        let (mut newer, mut older, mut test, mut drafts) = (None, None, None, None);
        let (mut errors, mut releases) = (None, None);
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let bad = || SchemaError {
                file: file.display().to_string(),
                line: i + 1,
                column: 1,
                rule: format!("expected `current|older|test|drafts|errors|releases PATH`, found `{line}`"),
            };
            let (k, v) = line.split_once(char::is_whitespace).ok_or_else(bad)?;
            let slot = match k {
                "current" => &mut newer,
                "older" => &mut older,
                "test" => &mut test,
                "drafts" => &mut drafts,
                "errors" => &mut errors,
                "releases" => &mut releases,
                _ => return Err(bad()),
            };
            *slot = Some(dir.join(v.trim()));
        }
        let need = |x: Option<PathBuf>, k: &str| x.ok_or_else(|| input_err(&file, format!("no `{k}` line")));
        Ok(Inputs {
            newer: need(newer, "current")?,
            older: need(older, "older")?,
            test: need(test, "test")?,
            drafts: need(drafts, "drafts")?,
            errors: need(errors, "errors")?,
            releases: need(releases, "releases")?,
        })
    }

    /// The inputs the repository's generated code is made from: `schemas/inputs.txt` under
    /// the workspace root `root`.
    pub fn repository(root: &Path) -> Result<Inputs, SchemaError> {
        Inputs::from_file(&root.join("schemas"))
    }

    /// Checks that every input folder exists and holds schemas, so that a missing folder is an
    /// error naming it rather than an empty set of messages.
    pub fn check(&self) -> Result<(), SchemaError> {
        for (dir, sub) in [
            (&self.newer, "clients"),
            (&self.older, "clients"),
            (&self.test, "clients-test"),
            (&self.drafts, ""),
        ] {
            let d = if sub.is_empty() { dir.clone() } else { dir.join(sub) };
            let n = std::fs::read_dir(&d)
                .map_err(|e| input_err(&d, format!("schema folder missing: {e}")))?
                .flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                .count();
            if n == 0 {
                return Err(input_err(&d, "schema folder holds no .json schema".into()));
            }
        }
        for f in [&self.errors, &self.releases] {
            if !f.is_file() {
                return Err(input_err(f, "table missing".into()));
            }
        }
        Ok(())
    }

    fn release(dir: &Path) -> String {
        dir.file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }
}

const FOLDERS: &[(&str, &str)] = &[
    ("clients", "messages"),
    ("clients-test", "testing"),
    ("metadata", "metadata"),
    ("raft", "raft"),
    ("group-coordinator", "coordinator"),
    ("share-coordinator", "coordinator"),
    ("transaction-coordinator", "coordinator"),
    ("storage", "storage"),
    ("streams", "streams"),
];

fn list_json(dir: &Path) -> Result<Vec<PathBuf>, SchemaError> {
    let mut out = Vec::new();
    let rd = match std::fs::read_dir(dir) {
        Ok(r) => r,
        Err(_) => return Ok(out),
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}

/// Loads both releases and the drafts, checks them, and merges them.
pub fn load(inputs: &Inputs) -> Result<Vec<Message>, SchemaError> {
    inputs.check()?;
    let mut out: BTreeMap<(String, String), Message> = BTreeMap::new();
    for (folder, group) in FOLDERS {
        let mut newer: BTreeMap<String, Schema> = BTreeMap::new();
        let mut older: BTreeMap<String, Schema> = BTreeMap::new();
        // Requests, responses and metadata records are matched by API key: Kafka renames
        // messages (ListClientMetricsResources became ListConfigResources) but keeps keys.
        let key = |s: &Schema| match (s.kind.as_str(), s.api_key) {
            ("request" | "response" | "metadata", Some(k)) => format!("{}#{k:05}", s.kind),
            _ => s.name.clone(),
        };
        // The generator test schemas come from one release of their own.
        let (new_dir, old_dir) = if *folder == "clients-test" {
            (&inputs.test, None)
        } else {
            (&inputs.newer, Some(&inputs.older))
        };
        for p in list_json(&new_dir.join(folder))? {
            let s = schema::load_file(&p)?;
            newer.insert(key(&s), s);
        }
        if let Some(d) = old_dir {
            for p in list_json(&d.join(folder))? {
                let s = schema::load_file(&p)?;
                older.insert(key(&s), s);
            }
        }
        let releases = Releases {
            newer: Inputs::release(new_dir),
            older: Inputs::release(&inputs.older),
        };
        let names: std::collections::BTreeSet<String> = newer.keys().chain(older.keys()).cloned().collect();
        for name in names {
            let m = merge(newer.get(&name), older.get(&name), folder, group, &releases)?;
            if let Some(m) = m {
                out.insert((group.to_string(), name), m);
            }
        }
    }
    // Our own drafts (the KIP-1279 mirror RPCs), with provisional API keys from one file.
    let keys_file = inputs.drafts.join("provisional-api-keys.json");
    let provisional = read_provisional(&keys_file)?;
    // Draft forks of Kafka put the KIP-1279 RPCs on these keys; a provisional key there would
    // make a fork's frame parse as a draft of another shape.
    const FORK_KEYS: [i16; 3] = [99, 100, 105];
    if let Some((name, k)) = provisional.iter().find(|(_, k)| FORK_KEYS.contains(k)) {
        return Err(SchemaError {
            file: keys_file.display().to_string(),
            line: 0,
            column: 0,
            rule: format!("provisional key {k} of {name} is one that draft forks of Kafka use (99, 100, 105)"),
        });
    }
    for p in list_json(&inputs.drafts)? {
        if p == keys_file {
            continue;
        }
        let mut s = schema::load_file_with(&p, false)?;
        let stem = s
            .name
            .trim_end_matches("Request")
            .trim_end_matches("Response")
            .to_string();
        let Some(key) = provisional.get(&stem) else {
            return Err(SchemaError {
                file: keys_file.display().to_string(),
                line: 1,
                column: 1,
                rule: format!("no provisional API key for {stem} (needed by {})", p.display()),
            });
        };
        if s.api_key.is_some() {
            return Err(SchemaError {
                file: p.display().to_string(),
                line: 1,
                column: 1,
                rule: "draft schemas take their API key from provisional-api-keys.json only".into(),
            });
        }
        s.api_key = Some(*key);
        let none = Releases {
            newer: String::new(),
            older: String::new(),
        };
        let mut m = merge(Some(&s), None, "drafts", "messages", &none)?.expect("draft has versions");
        m.provisional = true;
        m.origin = Origin {
            newer: None,
            older: None,
            draft: Some(p.file_name().unwrap().to_string_lossy().into()),
            files: vec![format!("kip-1279/{}", p.file_name().unwrap().to_string_lossy())],
        };
        if out.contains_key(&("messages".to_string(), m.name.clone())) {
            return Err(SchemaError {
                file: p.display().to_string(),
                line: 1,
                column: 1,
                rule: format!("draft {} collides with a released message", m.name),
            });
        }
        out.insert(("messages".into(), m.name.clone()), m);
    }
    let msgs: Vec<Message> = out.into_values().collect();
    // API keys must not collide within a kind and group.
    let mut seen: BTreeMap<(String, String, i16), String> = BTreeMap::new();
    for m in &msgs {
        if let Some(k) = m.api_key {
            let scope = if m.kind.starts_with("coordinator") {
                m.folder.clone()
            } else {
                m.group.clone()
            };
            if let Some(other) = seen.insert((scope, m.kind.clone(), k), m.name.clone()) {
                return Err(SchemaError {
                    file: m.name.clone(),
                    line: 0,
                    column: 0,
                    rule: format!("API key {k} of {} is also used by {other}", m.name),
                });
            }
        }
    }
    Ok(msgs)
}

fn read_provisional(path: &Path) -> Result<BTreeMap<String, i16>, SchemaError> {
    let text = std::fs::read_to_string(path).map_err(|e| SchemaError {
        file: path.display().to_string(),
        line: 0,
        column: 0,
        rule: format!("cannot read: {e}"),
    })?;
    let mut out = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim().trim_end_matches(',');
        if let Some((k, v)) = l.split_once(':') {
            let k = k.trim().trim_matches('"');
            if k.is_empty() || k.starts_with("//") {
                continue;
            }
            let v: i16 = v.trim().parse().map_err(|_| SchemaError {
                file: path.display().to_string(),
                line: i + 1,
                column: 1,
                rule: format!("API key for {k} must be an int16"),
            })?;
            out.insert(k.to_string(), v);
        }
    }
    Ok(out)
}

fn merge_err(new: Option<&Schema>, old: Option<&Schema>, rule: String) -> SchemaError {
    let file = new.or(old).map_or(String::new(), |s| s.file.clone());
    SchemaError {
        file,
        line: 1,
        column: 1,
        rule,
    }
}

/// The release numbers of the two sides of a merge, for [`Origin`].
struct Releases {
    newer: String,
    older: String,
}

fn merge(
    new: Option<&Schema>,
    old: Option<&Schema>,
    folder: &str,
    group: &str,
    releases: &Releases,
) -> Result<Option<Message>, SchemaError> {
    // Kafka 4.0 turned the coordinator records from plain `data` schemas, versioned by record
    // type, into `coordinator-key`/`coordinator-value` schemas with an apiKey. The bytes are the
    // same (an int16 type, then the body); the newer definition replaces the older one.
    let old = match (new, old) {
        (Some(n), Some(o)) if n.kind.starts_with("coordinator") && o.kind == "data" => None,
        _ => old,
    };
    let a = new.map_or(Versions::NONE, |s| s.valid);
    let b = old.map_or(Versions::NONE, |s| s.valid);
    let old_only = b.minus(a);
    let valid = a.or(b);
    let base = new.filter(|s| !s.valid.is_empty()).or(old).or(new).expect("one side");
    if valid.is_empty() && base.kind != "header" {
        return Ok(None);
    }
    if let (Some(n), Some(o)) = (new, old) {
        if n.kind != o.kind || (!n.valid.is_empty() && n.api_key != o.api_key) {
            return Err(merge_err(
                new,
                old,
                format!("{}: type or apiKey differs between releases", n.name),
            ));
        }
        if n.valid.is_empty() {
            // Removed in the newer release: the older one defines everything.
        }
    }
    let runs = valid.runs();
    if runs.len() > 1 {
        return Err(merge_err(
            new,
            old,
            format!("{}: merged valid versions {valid} are not contiguous", base.name),
        ));
    }
    let flexible = new
        .map_or(Versions::NONE, |s| s.flexible.and(a))
        .or(old.map_or(Versions::NONE, |s| s.flexible.and(old_only)));
    let nf: &[Field] = new.map_or(&[], |s| &s.fields);
    let of: &[Field] = old.map_or(&[], |s| &s.fields);
    let fields = merge_fields(nf, of, a, old_only).map_err(|e| merge_err(new, old, format!("{}: {e}", base.name)))?;
    // Common structs: merge by name.
    let mut common = Vec::new();
    let nc: Vec<&CommonStruct> = new.map_or(vec![], |s| s.common.iter().collect());
    let oc: Vec<&CommonStruct> = old.map_or(vec![], |s| s.common.iter().collect());
    let mut names: Vec<String> = nc.iter().map(|c| c.name.clone()).collect();
    for c in &oc {
        if !names.contains(&c.name) {
            names.push(c.name.clone());
        }
    }
    for n in names {
        let x = nc.iter().find(|c| c.name == n);
        let y = oc.iter().find(|c| c.name == n);
        let fields = merge_fields(
            x.map_or(&[][..], |c| &c.fields),
            y.map_or(&[][..], |c| &c.fields),
            a,
            old_only,
        )
        .map_err(|e| merge_err(new, old, format!("{}: common struct {n}: {e}", base.name)))?;
        let versions = x
            .map_or(Versions::NONE, |c| c.versions.and(a))
            .or(y.map_or(Versions::NONE, |c| c.versions.and(old_only)));
        let loc = x.or(y).map(|c| c.loc.clone()).expect("one side");
        common.push(CommonStruct {
            name: n,
            versions,
            fields,
            loc,
        });
    }
    Ok(Some(Message {
        name: base.name.clone(),
        kind: base.kind.clone(),
        group: group.to_string(),
        folder: folder.to_string(),
        api_key: base.api_key.or(old.and_then(|o| o.api_key)),
        provisional: false,
        valid,
        flexible,
        latest_unstable: new.is_some_and(|s| s.latest_unstable && !s.valid.is_empty()),
        listeners: base.listeners.clone(),
        older_only: old_only,
        origin: Origin {
            newer: new.filter(|s| !s.valid.is_empty()).map(|_| releases.newer.clone()),
            older: old.filter(|_| !old_only.is_empty()).map(|_| releases.older.clone()),
            draft: None,
            files: [
                new.filter(|s| !s.valid.is_empty()).map(|s| (&releases.newer, s)),
                old.filter(|_| !old_only.is_empty()).map(|s| (&releases.older, s)),
            ]
            .into_iter()
            .flatten()
            .map(|(r, s)| {
                let file = Path::new(&s.file)
                    .file_name()
                    .map_or_else(String::new, |f| f.to_string_lossy().into_owned());
                format!("kafka/{r}/{folder}/{file}")
            })
            .collect(),
        },
        fields,
        common,
    }))
}

fn merge_one(n: Option<&Field>, o: Option<&Field>, a: Versions, old: Versions) -> Result<Option<Field>, String> {
    let pick = |f: fn(&Field) -> Versions| -> Versions {
        n.map_or(Versions::NONE, |x| f(x).and(a))
            .or(o.map_or(Versions::NONE, |x| f(x).and(old)))
    };
    let versions = pick(|f| f.versions);
    if versions.is_empty() {
        return Ok(None);
    }
    let base = n
        .filter(|x| !x.versions.and(a).is_empty())
        .or(o)
        .or(n)
        .expect("one side");
    if let (Some(x), Some(y)) = (n, o) {
        if !x.versions.and(a).is_empty() && !y.versions.and(old).is_empty() && x.ty != y.ty {
            return Err(format!(
                "field {} is {} in one release and {} in the other",
                x.name, x.ty, y.ty
            ));
        }
        let xt = x.tagged.and(a);
        let yt = y.tagged.and(old);
        if !xt.is_empty() && !yt.is_empty() && x.tag != y.tag {
            return Err(format!("field {} has different tags in the two releases", x.name));
        }
    }
    let tagged = pick(|f| f.tagged);
    let tag = if tagged.is_empty() {
        None
    } else {
        n.filter(|x| !x.tagged.and(a).is_empty()).or(o).and_then(|x| x.tag)
    };
    let compact_override = {
        let f = |x: &Field| x.flexible.unwrap_or(Versions(u64::MAX));
        n.map_or(Versions::NONE, |x| f(x).and(a))
            .or(o.map_or(Versions::NONE, |x| f(x).and(old)))
    };
    let fields = match (n.and_then(|x| x.fields.as_ref()), o.and_then(|x| x.fields.as_ref())) {
        (None, None) => None,
        (x, y) => Some(merge_fields(x.map_or(&[], |v| v), y.map_or(&[], |v| v), a, old)?),
    };
    Ok(Some(Field {
        name: base.name.clone(),
        ty: base.ty.clone(),
        versions,
        nullable: pick(|f| f.nullable),
        tagged,
        tag,
        flexible: if compact_override.0 == u64::MAX || compact_override.and(versions) == versions {
            None
        } else {
            Some(compact_override)
        },
        default: n.and_then(|x| x.default.clone()).or(o.and_then(|x| x.default.clone())),
        ignorable: base.ignorable,
        entity_type: base.entity_type.clone(),
        map_key: base.map_key,
        zero_copy: base.zero_copy,
        fields,
        loc: base.loc.clone(),
    }))
}

/// Merges two ordered field lists into one that keeps both orders.
fn merge_fields(new: &[Field], old: &[Field], a: Versions, oldv: Versions) -> Result<Vec<Field>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    let in_new = |name: &str| new.iter().any(|f| f.name == name);
    for nf in new {
        match old.iter().position(|f| f.name == nf.name) {
            Some(j) if j >= i => {
                for of in &old[i..j] {
                    if in_new(&of.name) {
                        return Err(format!(
                            "fields {} and {} are in a different order in the two releases",
                            nf.name, of.name
                        ));
                    }
                    if let Some(m) = merge_one(None, Some(of), a, oldv)? {
                        out.push(m);
                    }
                }
                if let Some(m) = merge_one(Some(nf), Some(&old[j]), a, oldv)? {
                    out.push(m);
                }
                i = j + 1;
            }
            Some(_) => return Err(format!("field {} is in a different order in the two releases", nf.name)),
            None => {
                if let Some(m) = merge_one(Some(nf), None, a, oldv)? {
                    out.push(m);
                }
            }
        }
    }
    for of in &old[i..] {
        if let Some(m) = merge_one(None, Some(of), a, oldv)? {
            out.push(m);
        }
    }
    Ok(out)
}

/// A Rust identifier in snake case for a schema name.
pub fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut s = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev = if i > 0 { Some(chars[i - 1]) } else { None };
            let next = chars.get(i + 1).copied();
            let boundary = match prev {
                None => false,
                Some(p) if p.is_ascii_lowercase() || p.is_ascii_digit() => true,
                Some(p) if p.is_ascii_uppercase() => next.is_some_and(|n| n.is_ascii_lowercase()),
                _ => false,
            };
            if boundary {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        } else {
            s.push(c);
        }
    }
    s
}

/// `snake`, made safe as a Rust field name.
pub fn field_ident(name: &str) -> String {
    let s = snake(name);
    match s.as_str() {
        "type" | "match" | "ref" | "self" | "move" | "loop" | "mod" | "fn" | "impl" | "use" | "where" | "async"
        | "await" | "dyn" | "box" | "final" | "override" | "yield" | "crate" | "super" | "struct" | "enum"
        | "trait" | "const" | "static" | "mut" | "let" | "if" | "else" | "for" | "while" | "in" | "return"
        | "break" | "continue" | "true" | "false" | "as" | "pub" | "unsafe" | "extern" | "abstract" | "become"
        | "do" | "macro" | "priv" | "typeof" | "unsized" | "virtual" | "try" | "gen" => format!("r#{s}"),
        _ => s,
    }
}

pub use schema::Type as FieldType;

/// Every struct of a message, flattened: `(rust name, path prefix, fields)`, root first.
pub fn structs(m: &Message) -> Vec<(String, String, Vec<Field>)> {
    let mut out: Vec<(String, String, Vec<Field>)> = vec![(m.name.clone(), String::new(), m.fields.clone())];
    let mut i = 0;
    while i < out.len() {
        let (_, prefix, fields) = out[i].clone();
        for f in &fields {
            let Some(sn) = f.ty.struct_name() else {
                continue;
            };
            if out.iter().any(|(n, _, _)| n == sn) {
                continue;
            }
            let sub = match &f.fields {
                Some(s) => s.clone(),
                None => match m.common.iter().find(|c| c.name == sn) {
                    Some(c) => c.fields.clone(),
                    None => continue,
                },
            };
            let p = format!("{prefix}{}{}.", snake(&f.name), if f.ty.is_array() { "[]" } else { "" });
            out.push((sn.to_string(), p, sub));
        }
        i += 1;
    }
    out
}

/// One place where a struct of a message is used: the root, or a struct field (of a struct at
/// another site). A struct that several fields share has several sites; its first in
/// [`structs`] order is its canonical one, whose paths the struct's code reports.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    /// The struct, as an index into [`structs`].
    pub ty: usize,
    /// The path prefix of its fields, e.g. `topics[].partitions[].`.
    pub prefix: String,
    /// The site it is a field of, and that field's index; `None` for the root.
    pub parent: Option<(usize, usize)>,
    /// True for the struct's canonical site.
    pub canonical: bool,
}

/// Every site of a message's structs, breadth first from the root (see [`Site`]).
pub fn sites(all: &[(String, String, Vec<Field>)]) -> Vec<Site> {
    let mut out = vec![Site {
        ty: 0,
        prefix: String::new(),
        parent: None,
        canonical: true,
    }];
    let mut i = 0;
    while i < out.len() {
        let (ty, prefix) = (out[i].ty, out[i].prefix.clone());
        for (k, f) in all[ty].2.iter().enumerate() {
            let Some(t) =
                f.ty.struct_name()
                    .and_then(|sn| all.iter().position(|(n, _, _)| n == sn))
            else {
                continue;
            };
            assert!(out.len() < 1 << 14, "{}: structs nest without end", all[0].0);
            let prefix = format!("{prefix}{}{}.", snake(&f.name), if f.ty.is_array() { "[]" } else { "" });
            let canonical = prefix == all[t].1;
            out.push(Site {
                ty: t,
                prefix,
                parent: Some((i, k)),
                canonical,
            });
        }
        i += 1;
    }
    out
}

/// The type of an `FieldType`, for callers that only need the element.
pub fn elem(t: &Type) -> &Type {
    match t {
        Type::Array(e) => e,
        t => t,
    }
}
