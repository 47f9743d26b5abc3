//! Structs that several fields share (`TaskIds` at `active_tasks`, `standby_tasks` and
//! `warmup_tasks` of StreamsGroupHeartbeatRequest, and every other such struct in the schemas)
//! report the field they are at: their visitor ids, their reflection tables, and the field
//! paths of decode and encode errors.

mod noise;
use noise::noise;

use std::collections::{BTreeMap, BTreeSet};

use arbitrary::Unstructured;
use kafka_wire::catalog::{Entry, ALL};
use kafka_wire::reflect::{FieldDesc, Kind, StructDesc};
use kafka_wire::{arbitrary_bytes, CodecError, DecodeError, FieldId, Visitor};

/// One place a struct is used in a message: its table and the path prefix of its fields.
struct Site {
    desc: &'static StructDesc,
    prefix: String,
    /// The id of the field it is at (`None` for the root).
    at: Option<FieldId>,
}

fn struct_of(f: &FieldDesc) -> Option<&'static StructDesc> {
    match f.kind {
        Kind::Struct(d) => Some(d),
        _ => None,
    }
}

/// The prefix of the fields of the struct at field `f`.
fn child_prefix(e: &Entry, f: &FieldDesc) -> String {
    format!("{}{}.", e.paths[usize::from(f.id)], if f.array { "[]" } else { "" })
}

/// Every site of the message, from its reflection tables.
fn sites(e: &Entry) -> Vec<Site> {
    let mut out = vec![Site {
        desc: e.schema,
        prefix: String::new(),
        at: None,
    }];
    let mut i = 0;
    while i < out.len() {
        let desc = out[i].desc;
        for f in desc.fields {
            if let Some(d) = struct_of(f) {
                assert!(out.len() < 10_000, "{}: tables nest without end", e.info.name);
                out.push(Site {
                    desc: d,
                    prefix: child_prefix(e, f),
                    at: Some(f.id),
                });
            }
        }
        i += 1;
    }
    out
}

/// The sites of structs that several fields share.
fn shared(e: &Entry) -> Vec<Site> {
    let all = sites(e);
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &all {
        *count.entry(s.desc.name).or_default() += 1;
    }
    all.into_iter().filter(|s| count[s.desc.name] > 1).collect()
}

#[test]
fn every_site_has_its_own_ids_and_paths() {
    let mut shared_sites = 0;
    let mut messages = BTreeSet::new();
    for e in ALL {
        let mut ids = BTreeSet::new();
        for s in sites(e) {
            for f in s.desc.fields {
                assert!(ids.insert(f.id), "{}: id {} at two fields", e.info.name, f.id);
                let path = e.paths[usize::from(f.id)];
                let rest = path.strip_prefix(s.prefix.as_str());
                assert!(
                    rest.is_some_and(|r| !r.contains('.')),
                    "{}: field {} of the struct at `{}` has the path `{path}`",
                    e.info.name,
                    f.name,
                    s.prefix
                );
            }
            assert!(
                ids.insert(s.desc.tags_id),
                "{}: id {} at two fields",
                e.info.name,
                s.desc.tags_id
            );
            assert_eq!(
                e.paths[usize::from(s.desc.tags_id)],
                format!("{}_tagged_fields", s.prefix)
            );
        }
        assert_eq!(ids.len(), e.paths.len(), "{}: ids and paths", e.info.name);
        let n = shared(e).len();
        if n > 0 {
            shared_sites += n;
            messages.insert(e.info.name);
        }
    }
    // The schemas have shared structs in these messages; a generator that lost track of them
    // would find none.
    assert!(messages.contains("StreamsGroupHeartbeatRequest"), "{messages:?}");
    assert!(messages.len() >= 10, "{messages:?}");
    assert!(shared_sites >= 2 * messages.len());
}

/// Checks each visitor event against the reflection tables: its id must be a field of the
/// struct being visited, at that struct's site.
struct Checker<'e> {
    e: &'e Entry,
    /// The structs being visited, innermost last.
    stack: Vec<(&'static StructDesc, String)>,
    /// The ids of the fields where a shared struct began.
    seen: BTreeSet<FieldId>,
    wrong: Vec<String>,
}

impl<'e> Checker<'e> {
    fn new(e: &'e Entry) -> Self {
        Checker {
            e,
            stack: vec![(e.schema, String::new())],
            seen: BTreeSet::new(),
            wrong: Vec::new(),
        }
    }

    fn field(&mut self, f: FieldId) -> Option<&'static FieldDesc> {
        let (desc, prefix) = self.stack.last()?;
        let found = desc.fields.iter().find(|x| x.id == f);
        if found.is_none() {
            self.wrong.push(format!(
                "id {f} (`{}`) in the struct at `{prefix}`",
                self.e.paths.get(usize::from(f)).unwrap_or(&"?")
            ));
        }
        found
    }

    /// The path prefix of the innermost struct being visited.
    fn prefix(&self) -> &str {
        self.stack.last().map_or("", |(_, p)| p.as_str())
    }
}

impl<'a> Visitor<'a> for Checker<'_> {
    fn bool(&mut self, f: FieldId, _: bool) {
        self.field(f);
    }
    fn i8(&mut self, f: FieldId, _: i8) {
        self.field(f);
    }
    fn i16(&mut self, f: FieldId, _: i16) {
        self.field(f);
    }
    fn u16(&mut self, f: FieldId, _: u16) {
        self.field(f);
    }
    fn i32(&mut self, f: FieldId, _: i32) {
        self.field(f);
    }
    fn u32(&mut self, f: FieldId, _: u32) {
        self.field(f);
    }
    fn i64(&mut self, f: FieldId, _: i64) {
        self.field(f);
    }
    fn f64(&mut self, f: FieldId, _: f64) {
        self.field(f);
    }
    fn uuid(&mut self, f: FieldId, _: kafka_wire::Uuid) {
        self.field(f);
    }
    fn str(&mut self, f: FieldId, _: Option<&'a str>) {
        self.field(f);
    }
    fn bytes(&mut self, f: FieldId, _: Option<&'a [u8]>) {
        self.field(f);
    }
    fn records(&mut self, f: FieldId, _: Option<&'a [u8]>) {
        self.field(f);
    }
    fn begin_array(&mut self, f: FieldId, _: u32) {
        self.field(f);
    }
    fn end_array(&mut self, f: FieldId) {
        self.field(f);
    }
    fn null(&mut self, f: FieldId) {
        self.field(f);
    }
    fn begin_struct(&mut self, f: FieldId) {
        let Some(fd) = self.field(f) else {
            // Keep the stack balanced for `end_struct`.
            let top = self.stack.last().map(|(d, p)| (*d, p.clone()));
            self.stack.extend(top);
            return;
        };
        let desc = struct_of(fd).expect("a struct field");
        self.seen.insert(f);
        let prefix = child_prefix(self.e, fd);
        self.stack.push((desc, prefix));
    }
    fn end_struct(&mut self, _: FieldId) {
        self.stack.pop();
    }
    fn unknown_tag(&mut self, f: FieldId, _: u32, _: &'a [u8]) {
        let tags = self.stack.last().map(|(d, _)| d.tags_id);
        if tags != Some(f) {
            self.wrong
                .push(format!("unknown tag under id {f} in the struct at `{}`", self.prefix()));
        }
    }
}

fn decode_error(e: CodecError) -> DecodeError {
    match e {
        CodecError::Decode(d) => d,
        other => panic!("expected a decode error, got {other:?}"),
    }
}

#[test]
fn visits_and_decode_errors_name_the_field_a_shared_struct_is_at() {
    let mut unseen = Vec::new();
    let mut checked = 0usize;
    for e in ALL {
        let shared: Vec<Site> = shared(e).into_iter().filter(|s| s.at.is_some()).collect();
        if shared.is_empty() {
            continue;
        }
        let mut seen = BTreeSet::new();
        let mut out = vec![0u8; 1 << 16];
        for v in e.info.min_version..=e.info.max_version {
            for seed in 0..64u64 {
                let data = noise(seed + 1000 * v as u64, 64 << 10);
                let Ok(bytes) = arbitrary_bytes(e.schema, v, &mut Unstructured::new(&data)) else {
                    continue;
                };
                let mut ck = Checker::new(e);
                (e.visit)(&bytes, v, &mut ck).unwrap_or_else(|err| panic!("{} v{v}: {err}", e.info.name));
                assert!(ck.wrong.is_empty(), "{} v{v}: {:?}", e.info.name, ck.wrong);
                seen.extend(ck.seen.iter().copied());
                // Cut short anywhere, the message fails in the innermost struct being read, and
                // the error names a field of that struct, at its site; the parse fails alike.
                // Every cut in a small message; a sample of them in a large one.
                let step = (bytes.len() / 1500).max(1);
                for end in (0..bytes.len()).step_by(step) {
                    let mut ck = Checker::new(e);
                    let err = (e.visit)(&bytes[..end], v, &mut ck).expect_err("a cut message fails");
                    assert!(ck.wrong.is_empty(), "{} v{v}: {:?}", e.info.name, ck.wrong);
                    assert!(
                        err.field().starts_with(ck.prefix()),
                        "{} v{v} cut at {end}: `{}` read in the struct at `{}`",
                        e.info.name,
                        err.field(),
                        ck.prefix()
                    );
                    let parse =
                        decode_error((e.transcode)(&bytes[..end], v, &mut out, v).expect_err("a cut message fails"));
                    assert_eq!(parse.field(), err.field(), "{} v{v} cut at {end}", e.info.name);
                    assert_eq!(parse.offset(), err.offset(), "{} v{v} cut at {end}", e.info.name);
                    checked += 1;
                }
            }
        }
        for s in &shared {
            if let Some(at) = s.at.filter(|at| !seen.contains(at)) {
                unseen.push(format!("{} `{}`", e.info.name, e.paths[usize::from(at)]));
            }
        }
    }
    // Every shared struct was met at every field it is at, with elements to visit.
    assert!(unseen.is_empty(), "never generated: {unseen:?}");
    assert!(checked > 1000);
}

#[test]
fn encode_errors_name_the_field_a_shared_struct_is_at() {
    use kafka_wire::messages::streams_group_heartbeat_request::{StreamsGroupHeartbeatRequest, TaskIds};
    use kafka_wire::{Array, Message};

    let long = "x".repeat(40_000);
    let tasks = [TaskIds {
        subtopology_id: &long,
        ..TaskIds::DEFAULT
    }];
    let at = |field: &str| -> StreamsGroupHeartbeatRequest<'_> {
        let some = Some(Array::from_slice(&tasks));
        match field {
            "active_tasks" => StreamsGroupHeartbeatRequest {
                active_tasks: some,
                ..StreamsGroupHeartbeatRequest::DEFAULT
            },
            "standby_tasks" => StreamsGroupHeartbeatRequest {
                standby_tasks: some,
                ..StreamsGroupHeartbeatRequest::DEFAULT
            },
            _ => StreamsGroupHeartbeatRequest {
                warmup_tasks: some,
                ..StreamsGroupHeartbeatRequest::DEFAULT
            },
        }
    };
    let mut buf = vec![0u8; 1 << 17];
    for field in ["active_tasks", "standby_tasks", "warmup_tasks"] {
        let m = at(field);
        let want = format!("{field}[].subtopology_id");
        // The size pass, the one-pass write and the owned value's encoder.
        assert_eq!(m.encoded_len(0).unwrap_err().field(), want);
        assert_eq!(m.encode_to_slice(&mut buf, 0).unwrap_err().field(), want);
        let owned =
            kafka_wire::messages::streams_group_heartbeat_request::owned::StreamsGroupHeartbeatRequest::from(&m);
        assert_eq!(kafka_wire::OwnedMessage::to_vec(&owned, 0).unwrap_err().field(), want);
    }
}
