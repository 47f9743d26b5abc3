//! Differential conformance: kafka-wire against Kafka's own generated message classes.
//!
//! For every message version our catalog has (except Kafka's generator test schemas), the harness
//! finds the class of Kafka 4.4.0 (or, for versions only 3.9.1 has, of Kafka 3.9.1) that defines
//! it, and checks three things through a JVM running `tests/java/harness`:
//!
//! 1. **Kafka to us.** Kafka builds random values (every field of the version set, nulls where
//!    allowed, tagged fields present and absent, unknown tags now and then), writes them, reads
//!    them back and writes them again. Our strict view parse and our owned parse must accept those
//!    bytes and re-encode them to the same bytes, and our JSON must equal Kafka's JSON
//!    (`XxxDataJsonConverter.write`) after the documented normalizations (`jcmp`).
//! 2. **Us to Kafka.** Our random values (`kafka_wire::arbitrary_bytes`, then our owned encoder)
//!    must be read by Kafka, leave no byte unread, be written back by Kafka to the same bytes and
//!    give the same JSON; and Kafka's JSON converter must read our JSON to the same bytes.
//! 3. **Hostile inputs.** Mutated and truncated encodings, plus targeted ones (known tags at
//!    versions without them, known tags with a wrong declared size, unknown tags from 2^31-1, and
//!    counts at the limits of Kafka 4.4.0's readers), go to both sides. Each must be rejected by
//!    both, or accepted by both with the same re-encoding.
//!
//! Every disagreement gets a kind; kinds listed in `known-differences.txt` (each with a reason)
//! are documented, any other kind fails the run. The report (Markdown and JSON) has coverage,
//! values per case and the disagreements by kind with their inputs in hex.

mod java;
mod jcmp;
mod mutate;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use arbitrary::Unstructured;
use kafka_wire::catalog::{self, Entry};
use kafka_wire::reflect::Kind;
use kafka_wire::CodecError;
use serde_json::{json, Value};

use java::{JavaMsg, JavaRead, Jvm};
use mutate::Rng;

const RELEASES: [&str; 2] = ["4.4.0", "3.9.1"];

struct Opts {
    values: usize,
    hostile: usize,
    java_dir: PathBuf,
    report: PathBuf,
    allow: PathBuf,
    only: Option<String>,
    seed: u64,
    examples: usize,
}

fn usage() -> ! {
    eprintln!(
        "usage: kafka-wire-conformance [--values N] [--hostile N] [--java-dir DIR] [--report PATH.md] \
         [--allow FILE] [--only NAME[,NAME..]] [--seed S] [--examples N]\n\
         or:    kafka-wire-conformance --probe NAME VERSION HEX|@FILE   (one input, both sides)\n\
         --values N   values per case for parts 1 and 2 (default 100)\n\
         --hostile N  hostile inputs per case for part 3 (default: 2 x values)\n\
         --report     Markdown report; a .json with the same stem is written beside it"
    );
    std::process::exit(2)
}

fn parse_opts() -> Opts {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut o = Opts {
        values: 100,
        hostile: usize::MAX,
        java_dir: here.join("../java"),
        report: here.join("target/report.md"),
        allow: here.join("known-differences.txt"),
        only: None,
        seed: 1,
        examples: 3,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| usage());
        match a.as_str() {
            "--values" => o.values = val().parse().unwrap_or_else(|_| usage()),
            "--hostile" => o.hostile = val().parse().unwrap_or_else(|_| usage()),
            "--java-dir" => o.java_dir = PathBuf::from(val()),
            "--report" => o.report = PathBuf::from(val()),
            "--allow" => o.allow = PathBuf::from(val()),
            "--only" => o.only = Some(val()),
            "--seed" => o.seed = val().parse().unwrap_or_else(|_| usage()),
            "--examples" => o.examples = val().parse().unwrap_or_else(|_| usage()),
            _ => usage(),
        }
    }
    if o.hostile == usize::MAX {
        o.hostile = o.values * 2;
    }
    o
}

// ---- tallies --------------------------------------------------------------------------------

#[derive(Default)]
struct KindStat {
    count: usize,
    cases: BTreeSet<String>,
    examples: Vec<Value>,
    /// The allow-list's reason, when documented.
    reason: Option<String>,
}

#[derive(Default)]
struct Tally {
    kinds: BTreeMap<String, KindStat>,
    /// Checks that agreed, by check.
    agreed: BTreeMap<&'static str, usize>,
    examples: usize,
}

impl Tally {
    fn agree(&mut self, what: &'static str) {
        *self.agreed.entry(what).or_default() += 1;
    }
    /// Counts one disagreement; the key is the kind, plus the scope of a case-scoped allow entry.
    fn add(&mut self, kind: String, case: &str, example: Value, allow: &Allow) {
        let entry = allow.find(&kind, case);
        let key = match entry.and_then(|e| e.scope.as_ref()) {
            Some(scope) => format!("{kind} @ {scope}"),
            None => kind,
        };
        let k = self.kinds.entry(key).or_default();
        k.reason = entry.map(|e| e.reason.clone());
        k.count += 1;
        k.cases.insert(case.to_string());
        if k.examples.len() < self.examples {
            let mut ex = example;
            ex["case"] = json!(case);
            k.examples.push(ex);
        }
    }
}

struct AllowEntry {
    kind: String,
    /// A case (`Name vN`, or a prefix ending in `*`) the entry is limited to.
    scope: Option<String>,
    reason: String,
    used: std::cell::Cell<bool>,
}

struct Allow {
    entries: Vec<AllowEntry>,
}

fn pattern_matches(pat: &str, s: &str) -> bool {
    match pat.strip_suffix('*') {
        Some(prefix) => s.starts_with(prefix),
        None => s == pat,
    }
}

impl Allow {
    fn load(path: &Path) -> Allow {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut entries = Vec::new();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (k, r) = line
                .split_once('|')
                .unwrap_or_else(|| panic!("{}: no '|' in {line:?}", path.display()));
            let r = r.trim();
            assert!(!r.is_empty(), "{}: no reason for {k}", path.display());
            let (kind, scope) = match k.split_once(" @ ") {
                Some((kind, scope)) => (kind.trim().to_string(), Some(scope.trim().to_string())),
                None => (k.trim().to_string(), None),
            };
            entries.push(AllowEntry {
                kind,
                scope,
                reason: r.to_string(),
                used: std::cell::Cell::new(false),
            });
        }
        Allow { entries }
    }
    /// The entry that documents `kind` in `case`, if any.
    fn find(&self, kind: &str, case: &str) -> Option<&AllowEntry> {
        let e = self
            .entries
            .iter()
            .find(|e| pattern_matches(&e.kind, kind) && e.scope.as_ref().is_none_or(|s| pattern_matches(s, case)));
        if let Some(e) = e {
            e.used.set(true);
        }
        e
    }
}

// ---- cases ----------------------------------------------------------------------------------

struct Case {
    entry: &'static Entry,
    version: i16,
    /// (index of the JVM, Kafka's class).
    java: Option<(usize, JavaMsg)>,
}

impl Case {
    fn id(&self) -> String {
        format!("{} v{}", self.entry.info.name, self.version)
    }
}

fn find_class<'j>(index: &'j [JavaMsg], name: &str) -> Option<&'j JavaMsg> {
    let with_data = format!("{name}Data");
    index
        .iter()
        .find(|m| m.simple == name)
        .or_else(|| index.iter().find(|m| m.simple == with_data))
}

#[derive(Default, Clone, Copy)]
struct CaseStats {
    java_values: usize,
    our_values: usize,
    json_values: usize,
    hostile: usize,
    disagreements: usize,
    documented: usize,
}

/// `--probe NAME VERSION HEX`: both sides' results for one input, for investigating a finding.
fn probe(java_dir: &Path, args: &[String]) {
    let [name, v, hx] = args else { usage() };
    let v: i16 = v.parse().unwrap_or_else(|_| usage());
    // `@FILE`: the hex is in FILE (inputs too long for a command line).
    let hx = match hx.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("{path}: {e}"))
            .trim()
            .to_string(),
        None => hx.clone(),
    };
    let input = hex::decode(hx).unwrap_or_else(|_| usage());
    let e = catalog::ALL
        .iter()
        .find(|e| e.info.name == name.as_str() && e.group != "testing")
        .unwrap_or_else(|| panic!("no message {name}"));
    for r in RELEASES {
        let mut jvm = Jvm::start(java_dir, r).unwrap_or_else(|err| panic!("{err}"));
        if let Some(m) = find_class(&jvm.index, name).filter(|m| m.has_version(v)) {
            let m = m.clone();
            let res = jvm
                .read(&m.class, v, &[input.clone()], true)
                .unwrap_or_else(|err| panic!("{err}"));
            println!("Kafka {r} ({}): {}", m.class, cut(format!("{:?}", res[0])));
        }
        jvm.quit();
    }
    let (view, owned) = ours(e, &input, v);
    println!("ours, view:  {}", cut(fmt_res(&view)));
    println!("ours, owned: {}", cut(fmt_res(&owned)));
    match kafka_wire_ext::json::wire_to_json(e, &input, v) {
        Ok(j) => println!("ours, JSON:  {}", cut(j.to_string())),
        Err(err) => println!("ours, JSON:  error: {err}"),
    }
}

/// A long probe result cut to its first 2,000 characters.
fn cut(s: String) -> String {
    match s.char_indices().nth(2000) {
        Some((i, _)) => format!("{}… ({} characters in all)", &s[..i], s.chars().count()),
        None => s,
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some("--probe") {
        probe(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../java"), &argv[2..]);
        return;
    }
    let opts = parse_opts();
    let allow = Allow::load(&opts.allow);
    let started = Instant::now();
    let mut tally = Tally {
        examples: opts.examples,
        ..Tally::default()
    };

    let mut jvms: Vec<Jvm> = Vec::new();
    for r in RELEASES {
        match Jvm::start(&opts.java_dir, r) {
            Ok(j) => jvms.push(j),
            Err(e) => {
                eprintln!("conformance: cannot start the JVM for Kafka {r}: {e}");
                println!("conformance: 0 passed, 1 failed");
                std::process::exit(1);
            }
        }
    }
    eprintln!(
        "Kafka {}: {} generated message classes; Kafka {}: {}",
        jvms[0].release,
        jvms[0].index.len(),
        jvms[1].release,
        jvms[1].index.len()
    );

    // Our cases, each with the Kafka class that defines it.
    let only: Option<BTreeSet<String>> = opts.only.as_ref().map(|s| s.split(',').map(str::to_string).collect());
    let mut cases: Vec<Case> = Vec::new();
    let mut meta: Vec<String> = Vec::new();
    for e in catalog::ALL.iter().filter(|e| e.group != "testing") {
        if let Some(o) = &only {
            if !o.contains(e.info.name) {
                continue;
            }
        }
        let c_cur = find_class(&jvms[0].index, e.info.name);
        // 3.9.1's coordinator records were versioned by record type; kafka-wire follows 4.4.0's
        // numbering, so 3.9.1 defines only the records 4.4.0 no longer has.
        let c391 = if e.group == "coordinator" && c_cur.is_some() {
            None
        } else {
            find_class(&jvms[1].index, e.info.name)
        };
        if let Some(m) = c_cur.or(c391) {
            let ours = e.info.api_key;
            if m.api_key.is_some() && m.api_key != ours {
                meta.push(format!(
                    "{}: API key {:?} in Kafka, {:?} ours",
                    e.info.name, m.api_key, ours
                ));
                tally.add(
                    "meta:api-key-differs".into(),
                    e.info.name,
                    json!({"kafka": m.api_key, "ours": ours}),
                    &allow,
                );
            }
        }
        for v in e.info.min_version..=e.info.max_version {
            let java = match (c_cur, c391) {
                (Some(m), _) if m.has_version(v) => Some((0, m.clone())),
                (_, Some(m)) if m.has_version(v) => Some((1, m.clone())),
                _ => None,
            };
            cases.push(Case {
                entry: e,
                version: v,
                java,
            });
        }
    }
    // Kafka's cases that our catalog lacks.
    let mut missing: Vec<String> = Vec::new();
    if only.is_none() {
        let ours: BTreeSet<(String, i16)> = cases
            .iter()
            .map(|c| (c.entry.info.name.to_string(), c.version))
            .collect();
        let names: BTreeSet<&str> = catalog::ALL.iter().map(|e| e.info.name).collect();
        let our_name = |simple: &str| -> String {
            match simple.strip_suffix("Data") {
                Some(s) if names.contains(s) => s.to_string(),
                _ => simple.to_string(),
            }
        };
        // The same API key, direction and version under another name (ListClientMetricsResources
        // became ListConfigResources in 4.0).
        let suffix = |n: &str| {
            if n.ends_with("Request") || n.ends_with("RequestData") {
                1
            } else if n.ends_with("Response") || n.ends_with("ResponseData") {
                2
            } else {
                0
            }
        };
        let by_key: BTreeSet<(i16, u8, i16)> = cases
            .iter()
            .filter(|c| c.entry.group == "messages")
            .filter_map(|c| c.entry.info.api_key.map(|k| (k, suffix(c.entry.info.name), c.version)))
            .collect();
        for (i, jvm) in jvms.iter().enumerate() {
            for m in &jvm.index {
                let n = our_name(&m.simple);
                let in_cur = find_class(&jvms[0].index, &n);
                // 3.9.1's coordinator records were versioned differently; kafka-wire follows 4.4.0.
                if i == 1 && m.jar.contains("coordinator") && in_cur.is_some() {
                    continue;
                }
                for v in m.lowest..=m.highest {
                    if i == 1 && in_cur.is_some_and(|m4| m4.has_version(v)) {
                        continue;
                    }
                    let same_key = m.jar.starts_with("kafka-clients")
                        && m.api_key
                            .is_some_and(|k| suffix(&m.simple) > 0 && by_key.contains(&(k, suffix(&m.simple), v)));
                    if !ours.contains(&(n.clone(), v)) && !same_key {
                        let id = format!("{n} v{v} (Kafka {})", jvm.release);
                        tally.add(
                            "meta:missing-in-kafka-wire".into(),
                            &id,
                            json!({"class": m.class}),
                            &allow,
                        );
                        missing.push(id);
                    }
                }
            }
        }
    }

    let total_cases = cases.len() + missing.len();
    let mut per_case: Vec<(String, &'static str, Option<String>, CaseStats)> = Vec::new();
    for (j, jvm) in jvms.iter_mut().enumerate() {
        let t0 = Instant::now();
        let mut n = 0;
        for case in cases.iter().filter(|c| c.java.as_ref().is_some_and(|(i, _)| *i == j)) {
            let stats = match run_case(jvm, case, &opts, &mut tally, &allow) {
                Ok(s) => s,
                Err(e) => {
                    tally.add("harness:error".into(), &case.id(), json!({"error": e}), &allow);
                    CaseStats {
                        disagreements: 1,
                        ..CaseStats::default()
                    }
                }
            };
            per_case.push((case.id(), case.entry.group, Some(jvm.release.clone()), stats));
            n += 1;
        }
        eprintln!("Kafka {}: {n} cases in {:.1}s", jvm.release, t0.elapsed().as_secs_f64());
    }
    for case in cases.iter().filter(|c| c.java.is_none()) {
        let reason = if case.entry.info.provisional {
            "kafka-wire draft (no Kafka class)"
        } else {
            "no Kafka class has this version"
        };
        tally.add(
            if case.entry.info.provisional {
                "meta:no-kafka-reference:draft".into()
            } else {
                "meta:no-kafka-reference".into()
            },
            &case.id(),
            json!({"why": reason}),
            &allow,
        );
        per_case.push((case.id(), case.entry.group, None, CaseStats::default()));
    }
    for jvm in jvms {
        jvm.quit();
    }

    let elapsed = started.elapsed().as_secs_f64();
    let (passed, failed) = write_report(&opts, &allow, &tally, &per_case, total_cases, &missing, &meta, elapsed);
    println!("conformance: {passed} passed, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}

fn case_seed(opts: &Opts, case: &Case, part: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ opts.seed.wrapping_mul(0x100_0000_01b3);
    for b in case
        .entry
        .info
        .name
        .bytes()
        .chain(case.version.to_be_bytes())
        .chain(part.to_be_bytes())
    {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// Our strict parse and re-encode, through the view and through the owned type.
fn ours(entry: &Entry, bytes: &[u8], v: i16) -> (Result<Vec<u8>, CodecError>, Result<Vec<u8>, CodecError>) {
    let mut out = vec![0u8; bytes.len() * 2 + 4096];
    let view = (entry.transcode)(bytes, v, &mut out, v).map(|n| out[..n].to_vec());
    let owned = (entry.owned_transcode)(bytes, v, v);
    (view, owned)
}

fn kind_name(e: &CodecError) -> String {
    match e {
        CodecError::Decode(d) => {
            let k = format!("{:?}", d.kind());
            k.split([' ', '{', '(']).next().unwrap_or("").to_string()
        }
        CodecError::Encode(e) => format!("Encode{:?}", e.kind())
            .split([' ', '{', '('])
            .next()
            .unwrap_or("")
            .to_string(),
    }
}

/// True when our JSON of `input` has an unknown tagged field numbered `tag` anywhere.
fn has_unknown_tag(e: &Entry, input: &[u8], v: i16, tag: u32) -> bool {
    fn walk(j: &Value, tag: u32) -> bool {
        match j {
            Value::Object(m) => {
                m.get("_unknownTaggedFields")
                    .and_then(Value::as_array)
                    .is_some_and(|a| a.iter().any(|t| t["tag"].as_u64() == Some(u64::from(tag))))
                    || m.values().any(|x| walk(x, tag))
            }
            Value::Array(a) => a.iter().any(|x| walk(x, tag)),
            _ => false,
        }
    }
    kafka_wire_ext::json::wire_to_json(e, input, v).is_ok_and(|j| walk(&j, tag))
}

fn has_unknown_tags(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("_unknownTaggedFields") || m.values().any(has_unknown_tags),
        Value::Array(a) => a.iter().any(has_unknown_tags),
        _ => false,
    }
}

fn noise(seed: u64, n: usize) -> Vec<u8> {
    let mut r = Rng::new(seed);
    r.bytes(n)
}

fn run_case(jvm: &mut Jvm, case: &Case, opts: &Opts, tally: &mut Tally, allow: &Allow) -> Result<CaseStats, String> {
    let (_, jm) = case.java.as_ref().expect("a case with a Kafka class");
    let e = case.entry;
    let v = case.version;
    let id = case.id();
    let mut st = CaseStats::default();
    let mut local: Vec<(String, Value)> = Vec::new();
    let mut agreed: Vec<&'static str> = Vec::new();

    // ---- 1. Kafka to us -----------------------------------------------------------------
    let (jvals, problems) = jvm.gen(&jm.class, v, opts.values, case_seed(opts, case, 1))?;
    for p in problems {
        local.push(("java:cannot-generate".into(), json!({"kafka": p})));
    }
    let mut bases: Vec<Vec<u8>> = Vec::new();
    for jv in &jvals {
        st.java_values += 1;
        let hx = hex::encode(&jv.bytes);
        if let Some(p) = &jv.problem {
            local.push(("java:self-inconsistent".into(), json!({"input": hx, "kafka": p})));
            continue;
        }
        let (view, owned) = ours(e, &jv.bytes, v);
        for (what, r) in [("view", view), ("owned", owned)] {
            match r {
                Ok(b) if b == jv.bytes => agreed.push("kafka-to-us bytes"),
                Ok(b) => local.push((
                    format!("kafka-to-us:{what}-reencoding-differs"),
                    json!({"input": hx, "ours": hex::encode(b)}),
                )),
                Err(err) => local.push((
                    format!("kafka-to-us:{what}-rejects:{}", kind_name(&err)),
                    json!({"input": hx, "ours": err.to_string()}),
                )),
            }
        }
        match (&jv.json, &jv.json_err) {
            (Some(kj), _) => match kafka_wire_ext::json::wire_to_json(e, &jv.bytes, v) {
                Ok(mut oj) => {
                    // Kafka's JSON read by us: the same bytes, unless Kafka's JSON lost data
                    // (non-empty records, unknown tags).
                    if !has_unknown_tags(&oj) && !jcmp::has_nonempty_records(e.schema, v, &oj) {
                        match kafka_wire_ext::json::json_to_wire(e, kj, v) {
                            Ok(b) if b == jv.bytes => agreed.push("kafka-json-to-us"),
                            Ok(b) => local.push((
                                "kafka-json-to-us:bytes-differ".into(),
                                json!({"input": hx, "json": kj, "ours": hex::encode(b)}),
                            )),
                            Err(err) => local.push((
                                "kafka-json-to-us:we-reject-kafka-json".into(),
                                json!({"input": hx, "json": kj, "ours": err.to_string()}),
                            )),
                        }
                    }
                    jcmp::normalize(e.schema, v, &mut oj);
                    st.json_values += 1;
                    match jcmp::diff(kj, &oj) {
                        None => agreed.push("kafka-to-us json"),
                        Some(d) => local.push((
                            "kafka-to-us:json-differs".into(),
                            json!({"input": hx, "diff": d, "kafka": kj, "ours": oj}),
                        )),
                    }
                }
                Err(err) => local.push((
                    "kafka-to-us:json-walker-rejects".into(),
                    json!({"input": hx, "ours": err.to_string()}),
                )),
            },
            (None, Some(err)) => local.push(("java:json-converter-fails".into(), json!({"input": hx, "kafka": err}))),
            (None, None) => {}
        }
        bases.push(jv.bytes.clone());
    }

    // ---- 2. Us to Kafka -----------------------------------------------------------------
    let mut our_vals: Vec<Vec<u8>> = Vec::new();
    let seed2 = case_seed(opts, case, 2);
    for i in 0..opts.values {
        let data = noise(seed2.wrapping_add(i as u64), 4096);
        let raw = match kafka_wire::arbitrary_bytes(e.schema, v, &mut Unstructured::new(&data)) {
            Ok(b) => b,
            Err(err) => {
                local.push(("ours:arbitrary-fails".into(), json!({"ours": err.to_string()})));
                continue;
            }
        };
        match (e.owned_transcode)(&raw, v, v) {
            Ok(b) => our_vals.push(b),
            Err(err) => local.push((
                "ours:arbitrary-value-invalid".into(),
                json!({"input": hex::encode(&raw), "ours": err.to_string()}),
            )),
        }
    }
    let reads = jvm.read(&jm.class, v, &our_vals, jm.has_json)?;
    let mut to_kafka_json: Vec<(usize, Value)> = Vec::new();
    for (i, (b, r)) in our_vals.iter().zip(&reads).enumerate() {
        st.our_values += 1;
        let hx = hex::encode(b);
        match r {
            JavaRead::Rejected(err) => {
                local.push(("us-to-kafka:kafka-rejects".into(), json!({"input": hx, "kafka": err})))
            }
            JavaRead::Accepted {
                remaining,
                hex: h,
                json: kj,
            } => {
                if *remaining > 0 {
                    local.push((
                        "us-to-kafka:kafka-leaves-bytes-unread".into(),
                        json!({"input": hx, "kafka": format!("{remaining} byte(s) unread")}),
                    ));
                }
                match h {
                    Ok(h) if *h == hx => agreed.push("us-to-kafka bytes"),
                    Ok(h) => local.push((
                        "us-to-kafka:kafka-reencoding-differs".into(),
                        json!({"input": hx, "kafka": h}),
                    )),
                    Err(err) => local.push((
                        "us-to-kafka:kafka-cannot-write".into(),
                        json!({"input": hx, "kafka": err}),
                    )),
                }
                let ours_json = kafka_wire_ext::json::wire_to_json(e, b, v);
                match (kj, &ours_json) {
                    (Some(Ok(kj)), Ok(oj)) => {
                        let mut oj = oj.clone();
                        jcmp::normalize(e.schema, v, &mut oj);
                        st.json_values += 1;
                        match jcmp::diff(kj, &oj) {
                            None => agreed.push("us-to-kafka json"),
                            Some(d) => local.push((
                                "us-to-kafka:json-differs".into(),
                                json!({"input": hx, "diff": d, "kafka": kj, "ours": oj}),
                            )),
                        }
                    }
                    (Some(Err(err)), _) => {
                        local.push(("java:json-converter-fails".into(), json!({"input": hx, "kafka": err})))
                    }
                    (_, Err(err)) => local.push((
                        "us:json-walker-rejects-own-value".into(),
                        json!({"input": hx, "ours": err.to_string()}),
                    )),
                    (None, _) => {}
                }
                if let Ok(oj) = ours_json {
                    // Kafka's JSON has no unknown tags: only values without them can round trip.
                    if jm.has_json && !has_unknown_tags(&oj) {
                        to_kafka_json.push((i, oj));
                    }
                }
            }
        }
        bases.push(b.clone());
    }
    if !to_kafka_json.is_empty() {
        let jsons: Vec<Value> = to_kafka_json.iter().map(|(_, j)| j.clone()).collect();
        let back = jvm.from_json(&jm.class, v, &jsons)?;
        for ((i, j), r) in to_kafka_json.iter().zip(back) {
            let b = &our_vals[*i];
            match r {
                Ok(kb) if kb == *b => agreed.push("our-json-to-kafka"),
                Ok(kb) => local.push((
                    "our-json-to-kafka:bytes-differ".into(),
                    json!({"input": hex::encode(b), "json": j, "kafka": hex::encode(kb)}),
                )),
                Err(err) if err.contains("expected a floating point type, but got STRING") => local.push((
                    "our-json-to-kafka:kafka-cannot-read-nan-or-infinity".into(),
                    json!({"input": hex::encode(b), "json": j, "kafka": err}),
                )),
                Err(err) => local.push((
                    "our-json-to-kafka:kafka-rejects".into(),
                    json!({"input": hex::encode(b), "json": j, "kafka": err}),
                )),
            }
        }
    }

    // ---- 3. Hostile inputs --------------------------------------------------------------
    let mut rng = Rng::new(case_seed(opts, case, 3));
    let mut inputs: Vec<(Vec<u8>, String)> = Vec::new();
    if !bases.is_empty() {
        for i in 0..opts.hostile {
            let (m, op) = mutate::mutate(&bases[i % bases.len()], &mut rng);
            inputs.push((m, op.to_string()));
        }
    }
    targeted(e, v, &our_vals, &mut rng, &mut inputs);
    let hostile_bytes: Vec<Vec<u8>> = inputs.iter().map(|(b, _)| b.clone()).collect();
    let reads = jvm.read(&jm.class, v, &hostile_bytes, false)?;
    for ((input, op), jr) in inputs.iter().zip(reads) {
        st.hostile += 1;
        let (view, owned) = ours(e, input, v);
        let agree_internal = match (&view, &owned) {
            (Ok(a), Ok(b)) => a == b,
            (Err(a), Err(b)) => kind_name(a) == kind_name(b),
            _ => false,
        };
        // Unknown tag 2^32-1 is the one input shape known to break our encoders (RESULTS.md).
        let max_tag = if input.len() <= 4096 && has_unknown_tag(e, input, v, u32::MAX) {
            ":unknown-tag-4294967295"
        } else {
            ""
        };
        if !agree_internal {
            local.push((
                format!("ours:view-and-owned-disagree{max_tag}"),
                json!({"input": short_hex(input), "op": op, "view": fmt_res(&view), "owned": fmt_res(&owned)}),
            ));
        }
        // What we accept, we must re-encode to bytes that we parse back to themselves.
        if let Ok(b) = &view {
            let mut out = vec![0u8; b.len() * 2 + 4096];
            let again = (e.transcode)(b, v, &mut out, v).map(|n| out[..n].to_vec());
            match again {
                Ok(a) if a == *b => {}
                other => local.push((
                    format!("ours:reencoding-not-stable{max_tag}"),
                    json!({"input": short_hex(input), "op": op, "ours": short_hex(b), "reparsed": fmt_res(&other)}),
                )),
            }
        }
        match classify(e, v, input, &jr, &view) {
            None if op.contains("absent-at-version") => agreed.push("hostile: known tag at a version without it"),
            None if op.starts_with("known-tag") => agreed.push("hostile: known tag with a wrong size"),
            None if op.starts_with("tag-count-") || op.starts_with("unknown-tags-") || op.starts_with("array-") => {
                agreed.push("hostile: counts at Kafka 4.4.0's limits")
            }
            None if op.starts_with("unknown-tag-") => agreed.push("hostile: unknown tags of 2^31-1 and more"),
            None => agreed.push("hostile: mutations"),
            Some((kind, mut ex)) => {
                ex["op"] = json!(op);
                local.push((kind, ex));
            }
        }
    }

    for a in agreed {
        tally.agree(a);
    }
    for (kind, ex) in local {
        if allow.find(&kind, &id).is_some() {
            st.documented += 1;
        } else {
            st.disagreements += 1;
        }
        tally.add(kind, &id, ex, allow);
    }
    Ok(st)
}

/// Hex of an input for the report; inputs over 4 KiB (the count-limit inputs) are cut.
fn short_hex(b: &[u8]) -> String {
    if b.len() > 4096 {
        format!("{}… ({} bytes in all)", hex::encode(&b[..256]), b.len())
    } else {
        hex::encode(b)
    }
}

fn fmt_res(r: &Result<Vec<u8>, CodecError>) -> String {
    match r {
        Ok(b) => hex::encode(b),
        Err(e) => format!("error: {e}"),
    }
}

/// The kind of disagreement of one hostile input, or `None` when both sides agree.
fn classify(
    e: &Entry,
    v: i16,
    input: &[u8],
    jr: &JavaRead,
    view: &Result<Vec<u8>, CodecError>,
) -> Option<(String, Value)> {
    let hx = short_hex(input);
    match jr {
        JavaRead::Rejected(jerr) => match view {
            Err(_) => None,
            Ok(b) => {
                // Kafka 4.4.0's readers limit counts that 3.9.1's (and ours) do not.
                let cls = if jerr.contains("Invalid negative number of tagged fields") {
                    "tagged-field-count-at-least-2^31".to_string()
                } else if jerr.contains("tagged fields, which exceeds the maximum allowed count") {
                    "more-than-10000-tagged-fields".to_string()
                } else if jerr.contains("which exceeds the maximum allowed size of") {
                    "array-of-more-than-1000000".to_string()
                } else {
                    jerr.split(':').next().unwrap_or("").to_string()
                };
                let ours = short_hex(b);
                Some((
                    format!("hostile:we-accept-kafka-rejects:{cls}"),
                    json!({"input": hx, "kafka": jerr, "ours": ours}),
                ))
            }
        },
        JavaRead::Accepted {
            remaining, hex: jhex, ..
        } => {
            let consumed = input.len() - remaining;
            let prefix = &input[..consumed];
            let trailing = *remaining > 0;
            let eff = if trailing {
                match view {
                    Ok(b) => {
                        return Some((
                            "hostile:we-accept-kafka-leaves-bytes".into(),
                            json!({"input": hx, "kafka": format!("{remaining} byte(s) unread"), "ours": short_hex(b)}),
                        ));
                    }
                    Err(_) => {
                        let mut out = vec![0u8; prefix.len() * 2 + 4096];
                        (e.transcode)(prefix, v, &mut out, v).map(|n| out[..n].to_vec())
                    }
                }
            } else {
                view.clone()
            };
            match (eff, jhex) {
                (Ok(b), Ok(h)) if hex::encode(&b) == *h => {
                    if trailing {
                        Some((
                            "hostile:kafka-ignores-trailing-bytes".into(),
                            json!({"input": hx, "kafka": format!("reads the first {consumed} byte(s), leaves {remaining}"), "ours": fmt_res(view)}),
                        ))
                    } else {
                        None
                    }
                }
                (Ok(b), Ok(h)) => Some((
                    "hostile:both-accept-different-bytes".into(),
                    json!({"input": hx, "kafka": if h.len() > 8192 { format!("{}… ({} bytes in all)", &h[..512], h.len() / 2) } else { h.clone() }, "ours": short_hex(&b), "trailing": remaining}),
                )),
                (Ok(b), Err(werr)) => {
                    let why = if werr.contains("Invalid raw tag field list") {
                        ":unknown-tags-out-of-order-or-at-least-2^31"
                    } else if werr.contains("as an undefined tag") {
                        ":unknown-tag-2^31-1"
                    } else {
                        ""
                    };
                    Some((
                        format!("hostile:kafka-reads-but-cannot-write{why}"),
                        json!({"input": hx, "kafka": werr, "ours": short_hex(&b)}),
                    ))
                }
                (Err(oerr), jh) => {
                    let java_same = matches!(jh, Ok(h) if *h == hex::encode(prefix));
                    let how = match jh {
                        Ok(_) if java_same => "kafka-keeps-the-bytes",
                        Ok(_) => "kafka-changes-the-bytes",
                        Err(_) => "kafka-cannot-write-it",
                    };
                    let trail = if trailing { ":with-trailing-bytes" } else { "" };
                    Some((
                        format!("hostile:kafka-accepts-we-reject:{}:{how}{trail}", kind_name(&oerr)),
                        json!({"input": hx, "kafka": match jh { Ok(h) => format!("accepts; re-encodes as {h}{}", if trailing { format!(" ({remaining} byte(s) unread)") } else { String::new() }), Err(w) => format!("reads, then cannot write: {w}") }, "ours": oerr.to_string()}),
                    ))
                }
            }
        }
    }
}

/// Targeted hostile inputs on the top-level struct (whose tagged section ends the message):
/// unknown tags 2^31-1, 2^31 and 2^32-1, the count limits of Kafka 4.4.0's readers (`limits`),
/// a tag the message knows at other versions but not at `v`, and known tags at `v` whose
/// declared size is one more or one less than their fixed-size value takes.
fn targeted(e: &Entry, v: i16, our_vals: &[Vec<u8>], rng: &mut Rng, out: &mut Vec<(Vec<u8>, String)>) {
    if !e.schema.flexible_at(v) || our_vals.is_empty() {
        return;
    }
    let base = &our_vals[0];
    let Ok(json) = kafka_wire_ext::json::wire_to_json(e, base, v) else {
        return;
    };
    // Unknown tags at the top of the range: Kafka reads them as ints (2^31 and up are negative).
    for tag in [2_147_483_647u32, 2_147_483_648, 4_294_967_295] {
        let mut j = json.clone();
        if let Value::Object(m) = &mut j {
            let mut unknown = m
                .get("_unknownTaggedFields")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            unknown.push(json!({"tag": tag, "data": base64(&rng.bytes(2))}));
            m.insert("_unknownTaggedFields".into(), Value::Array(unknown));
        }
        if let Ok(b) = kafka_wire_ext::json::json_to_wire(e, &j, v) {
            out.push((b, format!("unknown-tag-{tag}")));
        }
    }
    limits(e, v, &json, out);
    for f in e.schema.fields {
        let fixed = match f.kind {
            Kind::Bool | Kind::Int8 => Some(1),
            Kind::Int16 | Kind::Uint16 => Some(2),
            Kind::Int32 | Kind::Uint32 => Some(4),
            Kind::Int64 | Kind::Float64 => Some(8),
            Kind::Uuid => Some(16),
            _ => None,
        };
        let mut inject = |payload: Vec<u8>, op: String| {
            let mut j = json.clone();
            if let Value::Object(m) = &mut j {
                m.shift_remove(f.json);
                let mut unknown = m
                    .get("_unknownTaggedFields")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                unknown.retain(|u| u["tag"].as_u64() != Some(u64::from(f.tag)));
                unknown.push(json!({"tag": f.tag, "data": base64(&payload)}));
                m.insert("_unknownTaggedFields".into(), Value::Array(unknown));
            }
            if let Ok(b) = kafka_wire_ext::json::json_to_wire(e, &j, v) {
                out.push((b, op));
            }
        };
        if f.tagged != 0 && !f.tagged_at(v) && !f.in_version(v) {
            // Known at other versions, absent at this one.
            let n = fixed.unwrap_or(1 + rng.below(6));
            inject(rng.bytes(n), format!("known-tag-{}-absent-at-version", f.tag));
        }
        if f.tagged_at(v) && !f.array {
            if let Some(n) = fixed {
                inject(rng.bytes(n + 1), format!("known-tag-{}-size-plus-one", f.tag));
                if n > 1 {
                    // The declared size is one byte short of the value: Kafka reads the value on
                    // into what follows.
                    let mut p = rng.bytes(n);
                    p.truncate(n - 1);
                    inject(p, format!("known-tag-{}-size-minus-one", f.tag));
                }
            }
        }
    }
}

fn put_uvarint(out: &mut Vec<u8>, mut x: u32) {
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
}

/// Inputs at the limits Kafka 4.4.0's generated readers put on counts (3.9.1's readers have none):
/// a tagged-field count of 2^31 or more ("Invalid negative number of tagged fields"), more than
/// 10,000 tagged fields in one section, and an array of more than 1,000,000 elements; each with
/// the largest count still allowed beside it. All on the top-level struct, built from `json` (our
/// JSON of a valid value).
fn limits(e: &Entry, v: i16, json: &Value, out: &mut Vec<(Vec<u8>, String)>) {
    // The value without top-level tagged fields: its encoding ends with the count 0 of the
    // top-level tagged section.
    let mut bare = json.clone();
    if let Value::Object(m) = &mut bare {
        m.shift_remove("_unknownTaggedFields");
        for f in e.schema.fields.iter().filter(|f| f.tagged_at(v)) {
            m.shift_remove(f.json);
        }
    }
    if let Ok(b) = kafka_wire_ext::json::json_to_wire(e, &bare, v) {
        if b.last() == Some(&0) && ours(e, &b, v).0.is_ok() {
            let head = &b[..b.len() - 1];
            for (count, op) in [(1u32 << 31, "tag-count-2^31"), (u32::MAX, "tag-count-2^32-1")] {
                let mut x = head.to_vec();
                put_uvarint(&mut x, count);
                out.push((x, op.to_string()));
            }
            // Unknown tags 1000.. (no schema has a tag that high), empty; at the message's
            // highest version only (30 KB each; the check is the same generated code at every
            // flexible version).
            let counts: &[u32] = if v == e.info.max_version {
                &[10_000, 10_001]
            } else {
                &[]
            };
            for &n in counts {
                let mut x = head.to_vec();
                put_uvarint(&mut x, n);
                for i in 0..n {
                    put_uvarint(&mut x, 1000 + i);
                    x.push(0);
                }
                out.push((x, format!("unknown-tags-{n}")));
            }
        }
    }
    // The top-level array whose smallest element takes one byte, with 1,000,000 and
    // 1,000,001 elements: at the message's highest version only (these inputs are 1-2 MB; the
    // check is the same generated code at every version).
    if v != e.info.max_version {
        return;
    }
    for f in e
        .schema
        .fields
        .iter()
        .filter(|f| f.array && f.in_version(v) && !f.tagged_at(v))
    {
        let Some(elem) = minimal_json(f.kind, v) else { continue };
        let with = |n: usize| {
            let mut j = bare.clone();
            j[f.json] = Value::Array(vec![elem.clone(); n]);
            kafka_wire_ext::json::json_to_wire(e, &j, v).ok()
        };
        let (Some(a), Some(b)) = (with(0), with(8)) else {
            continue;
        };
        if b.len() != a.len() + 8 {
            continue; // elements of more than one byte
        }
        // Splice the array in as bytes (the JSON of a million elements is slow to write):
        // the length field starts where the encodings of 0 and 8 elements first differ (a
        // compact length is one byte; a classic one is an int32, `00 00 00 00` against
        // `00 00 00 08`).
        let compact = f.compact_at(v);
        let width = if compact { 1 } else { 4 };
        let lcp = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        let Some(pos) = lcp.checked_sub(width - 1) else {
            continue;
        };
        let elem_byte = b[pos + width];
        let splice = |n: usize| {
            let mut x = a[..pos].to_vec();
            if compact {
                put_uvarint(&mut x, n as u32 + 1);
            } else {
                x.extend_from_slice(&(n as i32).to_be_bytes());
            }
            x.resize(x.len() + n, elem_byte);
            x.extend_from_slice(&a[pos + width..]);
            x
        };
        if splice(8) != b {
            continue;
        }
        for n in [1_000_000usize, 1_000_001] {
            out.push((splice(n), format!("array-{}-of-{n}", f.json)));
        }
        return;
    }
}

/// The JSON of the smallest value of one array element of `kind` at `v` (structs: every
/// non-tagged field at its smallest, arrays empty), or `None` for kinds not worth it.
fn minimal_json(kind: Kind, v: i16) -> Option<Value> {
    Some(match kind {
        Kind::Bool => json!(false),
        Kind::Int8 | Kind::Int16 | Kind::Uint16 | Kind::Int32 | Kind::Uint32 | Kind::Int64 => json!(0),
        Kind::String | Kind::Bytes | Kind::Records => json!(""),
        Kind::Struct(d) => {
            let mut m = serde_json::Map::new();
            for f in d.fields.iter().filter(|f| f.in_version(v) && !f.tagged_at(v)) {
                let x = if f.array { json!([]) } else { minimal_json(f.kind, v)? };
                m.insert(f.json.to_string(), x);
            }
            Value::Object(m)
        }
        _ => return None,
    })
}

fn base64(b: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for c in b.chunks(3) {
        let n =
            (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                s.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

// ---- report ---------------------------------------------------------------------------------

#[allow(clippy::too_many_arguments)]
fn write_report(
    opts: &Opts,
    allow: &Allow,
    tally: &Tally,
    per_case: &[(String, &'static str, Option<String>, CaseStats)],
    total_cases: usize,
    missing: &[String],
    meta: &[String],
    elapsed: f64,
) -> (usize, usize) {
    let checked: Vec<_> = per_case.iter().filter(|c| c.2.is_some()).collect();
    let failed_cases: Vec<&String> = checked.iter().filter(|c| c.3.disagreements > 0).map(|c| &c.0).collect();
    let meta_failed = tally
        .kinds
        .iter()
        .filter(|(k, s)| k.starts_with("meta:") && s.reason.is_none())
        .map(|(_, s)| s.count)
        .sum::<usize>();
    let open_bugs: Vec<(&String, &KindStat)> = tally
        .kinds
        .iter()
        .filter(|(_, s)| s.reason.as_deref().is_some_and(|r| r.starts_with("OPEN BUG")))
        .collect();
    let open_bug_cases: BTreeSet<&String> = open_bugs.iter().flat_map(|(_, s)| s.cases.iter()).collect();
    let passed = checked.len() - failed_cases.len();
    let failed = failed_cases.len() + meta_failed;

    let mut md = String::new();
    let _ = writeln!(
        md,
        "# kafka-wire against Kafka's generated classes: coverage and disagreements\n"
    );
    let rev = std::env::var("CONFORMANCE_REV")
        .ok()
        .or_else(|| {
            std::process::Command::new("git")
                .args(["describe", "--always", "--dirty", "--abbrev=12"])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    let _ = writeln!(
        md,
        "Generated by `tests/conformance` (`--values {} --hostile {} --seed {}`) on kafka-wire `{rev}` in {elapsed:.0} s.\n",
        opts.values, opts.hostile, opts.seed
    );
    let _ = writeln!(md, "## Coverage\n");
    let _ = writeln!(
        md,
        "| group | cases (message versions) | checked against Kafka {} | against {} | no Kafka class |",
        RELEASES[0], RELEASES[1]
    );
    let _ = writeln!(md, "|---|---:|---:|---:|---:|");
    let groups: BTreeSet<&str> = per_case.iter().map(|c| c.1).collect();
    for g in &groups {
        let in_g: Vec<_> = per_case.iter().filter(|c| c.1 == *g).collect();
        let n4 = in_g.iter().filter(|c| c.2.as_deref() == Some(RELEASES[0])).count();
        let n3 = in_g.iter().filter(|c| c.2.as_deref() == Some(RELEASES[1])).count();
        let _ = writeln!(md, "| {g} | {} | {n4} | {n3} | {} |", in_g.len(), in_g.len() - n4 - n3);
    }
    let _ = writeln!(md, "| Kafka only (missing in kafka-wire) | {} | | | |", missing.len());
    let _ = writeln!(md, "| **all** | **{total_cases}** | | | |\n");
    let sum = |f: fn(&CaseStats) -> usize| checked.iter().map(|c| f(&c.3)).sum::<usize>();
    let min = |f: fn(&CaseStats) -> usize| checked.iter().map(|c| f(&c.3)).min().unwrap_or(0);
    let _ = writeln!(
        md,
        "Checked **{} of {total_cases}** cases. Per case: Kafka's values {} (min {}), ours {} (min {}), hostile inputs {} (min {}); \
         {} JSON comparisons in all.\n",
        checked.len(),
        opts.values,
        min(|s| s.java_values),
        opts.values,
        min(|s| s.our_values),
        opts.hostile,
        min(|s| s.hostile),
        sum(|s| s.json_values)
    );
    let _ = writeln!(md, "| check | agreed |\n|---|---:|");
    for (k, n) in &tally.agreed {
        let _ = writeln!(md, "| {k} | {n} |");
    }
    let _ = writeln!(
        md,
        "\nValues: {} from Kafka, {} from us; {} hostile inputs.\n",
        sum(|s| s.java_values),
        sum(|s| s.our_values),
        sum(|s| s.hostile)
    );

    let _ = writeln!(md, "## Disagreements by kind\n");
    let _ = writeln!(md, "| kind | count | cases | documented |\n|---|---:|---:|---|");
    for (k, s) in &tally.kinds {
        let doc = match s.reason.as_deref() {
            Some(r) if r.starts_with("OPEN BUG") => "open bug (allow-listed)",
            Some(_) => "yes",
            None => "**NO**",
        };
        let _ = writeln!(md, "| `{k}` | {} | {} | {doc} |", s.count, s.cases.len());
    }
    if !open_bugs.is_empty() {
        let _ = writeln!(
            md,
            "\n**Open bugs** (allow-listed so CI stays green until they are fixed; remove the entries then): {} kind(s) in {} case(s): {}.",
            open_bugs.len(),
            open_bug_cases.len(),
            open_bug_cases.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ")
        );
    }
    let unused: Vec<String> = allow
        .entries
        .iter()
        .filter(|e| !e.used.get())
        .map(|e| {
            format!(
                "`{}{}`",
                e.kind,
                e.scope.as_ref().map(|s| format!(" @ {s}")).unwrap_or_default()
            )
        })
        .collect();
    if !unused.is_empty() {
        let _ = writeln!(
            md,
            "\nAllow-list entries that matched nothing in this run: {}.",
            unused.join(", ")
        );
    }
    let _ = writeln!(md, "\n## Examples\n");
    for (k, s) in &tally.kinds {
        let _ = writeln!(md, "### `{k}`\n");
        if let Some(r) = &s.reason {
            let _ = writeln!(md, "Documented: {r}\n");
        }
        let cases: Vec<&String> = s.cases.iter().take(12).collect();
        let _ = writeln!(
            md,
            "Cases ({}): {}{}\n",
            s.cases.len(),
            cases.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", "),
            if s.cases.len() > 12 { ", …" } else { "" }
        );
        for ex in &s.examples {
            let _ = writeln!(md, "```\n{}\n```", serde_json::to_string_pretty(ex).unwrap_or_default());
        }
        md.push('\n');
    }
    if !meta.is_empty() {
        let _ = writeln!(md, "## Schema facts that differ\n");
        for m in meta {
            let _ = writeln!(md, "- {m}");
        }
    }
    let _ = writeln!(md, "\n## Result\n\nconformance: {passed} passed, {failed} failed");

    let js = json!({
        "values": opts.values,
        "hostile": opts.hostile,
        "kafka_wire": rev,
        "seed": opts.seed,
        "seconds": elapsed,
        "cases_total": total_cases,
        "cases_checked": checked.len(),
        "missing_in_kafka_wire": missing,
        "agreed": tally.agreed,
        "kinds": tally.kinds.iter().map(|(k, s)| (k.clone(), json!({"count": s.count, "cases": s.cases.len(), "documented": s.reason.is_some(), "reason": s.reason, "examples": s.examples}))).collect::<serde_json::Map<_, _>>(),
        "cases": per_case.iter().map(|(id, g, r, s)| json!({"case": id, "group": g, "kafka": r, "kafka_values": s.java_values, "our_values": s.our_values, "hostile": s.hostile, "undocumented": s.disagreements, "documented": s.documented})).collect::<Vec<_>>(),
        "passed": passed,
        "failed": failed,
    });
    if let Some(dir) = opts.report.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    std::fs::write(&opts.report, md).unwrap_or_else(|e| panic!("{}: {e}", opts.report.display()));
    let jpath = opts.report.with_extension("json");
    std::fs::write(&jpath, serde_json::to_string_pretty(&js).unwrap_or_default())
        .unwrap_or_else(|e| panic!("{}: {e}", jpath.display()));

    // The summary on stderr.
    eprintln!(
        "\nchecked {} of {total_cases} cases ({} missing in kafka-wire) in {elapsed:.0}s",
        checked.len(),
        missing.len()
    );
    for (k, s) in &tally.kinds {
        let doc = match s.reason.as_deref() {
            Some(r) if r.starts_with("OPEN BUG") => "OPEN BUG (allow-listed)",
            Some(_) => "documented",
            None => "UNDOCUMENTED",
        };
        eprintln!("  {:>7}  {:<100} {doc}", s.count, k);
    }
    for e in allow.entries.iter().filter(|e| !e.used.get()) {
        eprintln!(
            "  allow-list entry that matched nothing in this run: {}{}",
            e.kind,
            e.scope.as_ref().map(|s| format!(" @ {s}")).unwrap_or_default()
        );
    }
    if !open_bug_cases.is_empty() {
        eprintln!(
            "conformance: {} case(s) pass only through allow-listed OPEN BUGs: {}",
            open_bug_cases.len(),
            open_bug_cases.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ")
        );
    }
    eprintln!("report: {} and {}", opts.report.display(), jpath.display());
    (passed, failed)
}
