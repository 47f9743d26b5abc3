//! Benchmark cases for kafka-wire against the `kafka-protocol` crate, on the same bytes.
//!
//! Each case's input is generated once and encoded by one implementation (`kafka-protocol`
//! where it has the message, kafka-wire's owned types otherwise). Before anything is measured,
//! [`Case::check`] decodes the input with both implementations and requires the same content
//! (a digest over every field, walked through each crate's API), and requires each side's
//! re-encoding to give back the input bytes.
//!
//! Both the criterion benches (`benches/codec.rs`) and the callgrind driver (`src/bin/ir.rs`)
//! run the operations built here, so both measure the same code.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use bytes::{Bytes, BytesMut};
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use kafka_wire::{Array, Elem, Message, OwnedMessage};

#[cfg(feature = "krabka")]
pub mod kk;
pub mod walk;

// ---------------------------------------------------------------------------------------------
// Allocation counting

/// A global allocator that counts allocations (and reallocations) on top of the system one.
pub struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        unsafe { System.alloc_zeroed(l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations (including reallocations) so far in this process.
pub fn allocations() -> u64 {
    ALLOCS.load(Relaxed)
}

// ---------------------------------------------------------------------------------------------
// Field sinks: what "touching a field" does

/// Receives every field value a walker visits.
pub trait Sink {
    /// An integer or boolean field.
    fn int(&mut self, x: i64);
    /// A string field (`None` is null).
    fn str(&mut self, s: Option<&str>);
    /// A bytes or records field (`None` is null).
    fn bytes(&mut self, b: Option<&[u8]>);
    /// A UUID field.
    fn uuid(&mut self, u: [u8; 16]);
    /// The start of an array (its length; `None` is null).
    fn len(&mut self, n: Option<usize>);
}

/// The cheap sink: what a consumer that reads every field pays, and no more.
#[derive(Default)]
pub struct Touch(pub u64);

impl Sink for Touch {
    #[inline(always)]
    fn int(&mut self, x: i64) {
        self.0 = self.0.wrapping_add(x as u64);
    }
    #[inline(always)]
    fn str(&mut self, s: Option<&str>) {
        self.0 = self.0.wrapping_add(s.map_or(1, |s| s.len() as u64));
    }
    #[inline(always)]
    fn bytes(&mut self, b: Option<&[u8]>) {
        self.0 = self.0.wrapping_add(b.map_or(1, |b| b.len() as u64));
    }
    #[inline(always)]
    fn uuid(&mut self, u: [u8; 16]) {
        self.0 = self.0.wrapping_add(u128::from_ne_bytes(u) as u64);
    }
    #[inline(always)]
    fn len(&mut self, n: Option<usize>) {
        self.0 = self.0.wrapping_add(n.map_or(1, |n| n as u64));
    }
}

/// The cheap sink as a [`kafka_wire::Visitor`]: the sequential visitor's "touch every field".
impl<'a> kafka_wire::Visitor<'a> for Touch {
    #[inline(always)]
    fn bool(&mut self, _: kafka_wire::FieldId, x: bool) {
        Sink::int(self, x.into());
    }
    /// Every integer type.
    #[inline(always)]
    fn int(&mut self, _: kafka_wire::FieldId, x: i64) {
        Sink::int(self, x);
    }
    #[inline(always)]
    fn f64(&mut self, _: kafka_wire::FieldId, x: f64) {
        Sink::int(self, x.to_bits() as i64);
    }
    #[inline(always)]
    fn uuid(&mut self, _: kafka_wire::FieldId, x: kafka_wire::Uuid) {
        Sink::uuid(self, *x.as_bytes());
    }
    #[inline(always)]
    fn str(&mut self, _: kafka_wire::FieldId, x: Option<&'a str>) {
        Sink::str(self, x);
    }
    #[inline(always)]
    fn bytes(&mut self, _: kafka_wire::FieldId, x: Option<&'a [u8]>) {
        Sink::bytes(self, x);
    }
    #[inline(always)]
    fn records(&mut self, _: kafka_wire::FieldId, x: Option<&'a [u8]>) {
        Sink::bytes(self, x);
    }
    #[inline(always)]
    fn begin_array(&mut self, _: kafka_wire::FieldId, n: u32) {
        self.len(Some(n as usize));
    }
    #[inline(always)]
    fn null(&mut self, _: kafka_wire::FieldId) {
        self.len(None);
    }
}

/// The checking sink: an FNV-1a digest of every value, contents included, with type tags so
/// that different shapes do not collide.
pub struct Digest(pub u64);

impl Default for Digest {
    fn default() -> Self {
        Digest(0xcbf2_9ce4_8422_2325)
    }
}

impl Digest {
    fn byte(&mut self, b: u8) {
        self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    fn all(&mut self, bs: &[u8]) {
        for &b in bs {
            self.byte(b);
        }
    }
}

impl Sink for Digest {
    fn int(&mut self, x: i64) {
        self.byte(1);
        self.all(&x.to_le_bytes());
    }
    fn str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.byte(2);
                self.all(&(s.len() as u64).to_le_bytes());
                self.all(s.as_bytes());
            }
            None => self.byte(3),
        }
    }
    fn bytes(&mut self, b: Option<&[u8]>) {
        match b {
            Some(b) => {
                self.byte(4);
                self.all(&(b.len() as u64).to_le_bytes());
                self.all(b);
            }
            None => self.byte(5),
        }
    }
    fn uuid(&mut self, u: [u8; 16]) {
        self.byte(6);
        self.all(&u);
    }
    fn len(&mut self, n: Option<usize>) {
        match n {
            Some(n) => {
                self.byte(7);
                self.all(&(n as u64).to_le_bytes());
            }
            None => self.byte(8),
        }
    }
}

/// Visits every element of a view array (announcing its length first).
#[inline(always)]
pub fn arr<'a, T: Elem<'a>, S: Sink>(s: &mut S, a: &Array<'a, T>, mut f: impl FnMut(&mut S, T)) {
    s.len(Some(a.len()));
    for e in a.iter() {
        f(s, e);
    }
}

/// As [`arr`] for a nullable array.
#[inline(always)]
pub fn opt_arr<'a, T: Elem<'a>, S: Sink>(s: &mut S, a: &Option<Array<'a, T>>, f: impl FnMut(&mut S, T)) {
    match a {
        Some(a) => arr(s, a, f),
        None => s.len(None),
    }
}

/// Visits every element of a `kafka-protocol` vector.
#[inline(always)]
pub fn vec<T, S: Sink>(s: &mut S, a: &[T], mut f: impl FnMut(&mut S, &T)) {
    s.len(Some(a.len()));
    for e in a {
        f(s, e);
    }
}

/// `kafka-protocol`'s strings as `&str`.
pub fn kstr(s: &StrBytes) -> Option<&str> {
    Some(s.as_str())
}

// ---------------------------------------------------------------------------------------------
// Cases and operations

/// One message type measured: its view, owned twin, `kafka-protocol` twin and walkers.
pub trait Msg: 'static {
    /// The kafka-wire view.
    type View<'a>: Message<'a>;
    /// The kafka-wire owned value.
    type Owned: OwnedMessage;
    /// The `kafka-protocol` value, or `()` where it has no such message.
    type Kp: Decodable + Encodable + 'static;
    /// Visits every field of a view through the view API.
    fn walk<S: Sink>(v: &Self::View<'_>, s: &mut S);
    /// Visits every field of a `kafka-protocol` value, in the same order as [`Msg::walk`].
    fn kp_walk<S: Sink>(v: &Self::Kp, s: &mut S);
    /// True when `kafka-protocol` has the message.
    const HAS_KP: bool = true;
    /// krabka-protocol's flavours of the message.
    #[cfg(feature = "krabka")]
    type Kk: kk::Kk;
}

/// An operation: runs once per call and returns a value that depends on its work.
pub type Op = Box<dyn FnMut() -> u64>;

/// Which implementation an operation belongs to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Side {
    /// kafka-wire.
    Ours,
    /// `kafka-protocol`.
    Kp,
    /// krabka-protocol (feature `krabka`).
    Kk,
    /// The memcpy and read-every-byte floors.
    Floor,
}

/// A named operation on a case's bytes.
pub struct NamedOp {
    /// Short name (`parse`, `kp_decode`, …).
    pub name: &'static str,
    /// Which side.
    pub side: Side,
    /// The operation.
    pub op: Op,
}

/// One benchmark case: a message at a version, its bytes, and its operations.
pub struct Case {
    /// Case name, e.g. `metadata_response_v13`.
    pub name: String,
    /// The version.
    pub version: i16,
    /// The input bytes (leaked: views borrow them for the life of the process).
    pub bytes: &'static [u8],
    check_fn: fn(&'static [u8], i16) -> Result<(), String>,
    ops_fn: fn(&'static [u8], i16) -> Vec<NamedOp>,
}

impl Case {
    /// Checks that both implementations decode the bytes to the same content and re-encode them
    /// to the same bytes. Call before measuring.
    pub fn check(&self) -> Result<(), String> {
        (self.check_fn)(self.bytes, self.version).map_err(|e| format!("{}: {e}", self.name))
    }

    /// Builds the operations (views and owned values they need are prepared here, untimed).
    pub fn ops(&self) -> Vec<NamedOp> {
        (self.ops_fn)(self.bytes, self.version)
    }
}

fn check_case<M: Msg>(bytes: &'static [u8], v: i16) -> Result<(), String> {
    let view = M::View::parse(bytes, v).map_err(|e| format!("kafka-wire parse: {e}"))?;
    let mut ours = Digest::default();
    M::walk(&view, &mut ours);
    // Re-encodings: from the view, and from the owned value.
    let mut buf = vec![0u8; bytes.len()];
    let n = view
        .encode_to_slice(&mut buf, v)
        .map_err(|e| format!("kafka-wire encode: {e}"))?;
    if buf[..n] != *bytes {
        return Err("kafka-wire's encoding from the view differs from the input".into());
    }
    if view.encoded_len(v).map_err(|e| e.to_string())? != bytes.len() {
        return Err("kafka-wire's encoded_len differs from the input length".into());
    }
    let owned = M::Owned::parse(bytes, v).map_err(|e| format!("kafka-wire owned decode: {e}"))?;
    if owned.to_vec(v).map_err(|e| e.to_string())? != bytes {
        return Err("kafka-wire's encoding from the owned value differs from the input".into());
    }
    // The timed encode: one pass into a slice.
    buf.fill(0);
    let n = owned
        .encode_to_slice(&mut buf, v)
        .map_err(|e| format!("kafka-wire owned encode: {e}"))?;
    if buf[..n] != *bytes {
        return Err("kafka-wire's one-pass encoding from the owned value differs from the input".into());
    }
    M::View::visit(bytes, v, &mut Touch::default()).map_err(|e| format!("kafka-wire visit: {e}"))?;
    let reparsed = M::View::parse(bytes, v).map_err(|e| e.to_string())?;
    let mut again = Digest::default();
    M::walk(&reparsed, &mut again);
    if again.0 != ours.0 {
        return Err("kafka-wire digest is not stable".into());
    }
    #[cfg(feature = "krabka")]
    <M::Kk as kk::Kk>::check(bytes, v)?;
    if M::HAS_KP {
        let mut b = Bytes::from_static(bytes);
        let kp = M::Kp::decode(&mut b, v).map_err(|e| format!("kafka-protocol decode: {e}"))?;
        if !b.is_empty() {
            return Err(format!("kafka-protocol left {} bytes", b.len()));
        }
        let mut theirs = Digest::default();
        M::kp_walk(&kp, &mut theirs);
        if theirs.0 != ours.0 {
            return Err(format!(
                "content differs: kafka-wire digest {:#x}, kafka-protocol {:#x}",
                ours.0, theirs.0
            ));
        }
        let mut out = BytesMut::new();
        kp.encode(&mut out, v)
            .map_err(|e| format!("kafka-protocol encode: {e}"))?;
        if out[..] != *bytes {
            return Err("kafka-protocol's re-encoding differs from the input".into());
        }
    }
    Ok(())
}

fn ops<M: Msg>(bytes: &'static [u8], v: i16) -> Vec<NamedOp> {
    let mut out = Vec::new();
    let mut push = |name, side, op: Op| out.push(NamedOp { name, side, op });
    let view: M::View<'static> = M::View::parse(bytes, v).expect("checked");
    let owned: &'static M::Owned = Box::leak(Box::new(M::Owned::parse(bytes, v).expect("checked")));
    let n = bytes.len();

    // Floors.
    let mut dst = vec![0u8; n];
    push(
        "memcpy",
        Side::Floor,
        Box::new(move || {
            dst.copy_from_slice(black_box(bytes));
            black_box(&mut dst);
            u64::from(dst[n / 2])
        }),
    );
    push("read_all", Side::Floor, Box::new(move || read_all(black_box(bytes))));

    // Ours.
    push(
        "parse",
        Side::Ours,
        Box::new(move || {
            let m = M::View::parse(black_box(bytes), v).expect("parse");
            black_box(&m);
            1
        }),
    );
    push(
        "parse_touch",
        Side::Ours,
        Box::new(move || {
            let m = M::View::parse(black_box(bytes), v).expect("parse");
            let mut t = Touch::default();
            M::walk(&m, &mut t);
            black_box(t.0)
        }),
    );
    // The sequential visitor: one pass that validates and hands over every field; and the same
    // after a parse, for consumers that must not see a field of a message that turns out bad.
    push(
        "visit",
        Side::Ours,
        Box::new(move || {
            let mut t = Touch::default();
            M::View::visit(black_box(bytes), v, &mut t).expect("visit");
            black_box(t.0)
        }),
    );
    push(
        "parse_visit",
        Side::Ours,
        Box::new(move || {
            let m = M::View::parse(black_box(bytes), v).expect("parse");
            black_box(&m);
            let mut t = Touch::default();
            M::View::visit(black_box(bytes), v, &mut t).expect("visit");
            black_box(t.0)
        }),
    );
    push(
        "encoded_len",
        Side::Ours,
        Box::new(move || black_box(&view).encoded_len(v).expect("size") as u64),
    );
    let mut buf = vec![0u8; n];
    push(
        "encode_view",
        Side::Ours,
        Box::new(move || black_box(&view).encode_to_slice(&mut buf, v).expect("encode") as u64),
    );
    push(
        "owned_decode",
        Side::Ours,
        Box::new(move || {
            let m = M::Owned::parse(black_box(bytes), v).expect("decode");
            black_box(&m);
            drop(m);
            1
        }),
    );
    // From a received buffer, as kafka-protocol decodes: `bytes` and `records` fields slice it.
    let shared = Bytes::from(bytes.to_vec());
    let _ = shared.clone(); // the first clone allocates the shared count, once per buffer
    push(
        "owned_decode_bytes",
        Side::Ours,
        Box::new(move || {
            let m = M::Owned::parse_bytes(black_box(&shared).clone(), v).expect("decode");
            black_box(&m);
            drop(m);
            1
        }),
    );
    let mut buf = vec![0u8; n];
    push(
        "encode_owned",
        Side::Ours,
        Box::new(move || black_box(owned).encode_to_slice(&mut buf, v).expect("encode") as u64),
    );

    // krabka-protocol: owned from a received buffer, and borrowed.
    #[cfg(feature = "krabka")]
    {
        use kk::Kk;
        let shared = Bytes::from(bytes.to_vec());
        push(
            "kk_decode",
            Side::Kk,
            Box::new(move || {
                M::Kk::owned(black_box(&shared), v).expect("decode");
                1
            }),
        );
        push(
            "kk_borrow",
            Side::Kk,
            Box::new(move || {
                M::Kk::borrowed(black_box(bytes), v).expect("decode");
                1
            }),
        );
    }

    // kafka-protocol.
    if M::HAS_KP {
        // A received buffer, as a client or broker has it (not `from_static`): slicing it for
        // strings and records bumps a shared reference count.
        let shared = Bytes::from(bytes.to_vec());
        let mut b = shared.clone();
        let kp: &'static M::Kp = Box::leak(Box::new(M::Kp::decode(&mut b, v).expect("decode")));
        push(
            "kp_decode",
            Side::Kp,
            Box::new(move || {
                let mut b = black_box(&shared).clone();
                let m = M::Kp::decode(&mut b, v).expect("decode");
                black_box(&m);
                drop(m);
                1
            }),
        );
        let mut out = BytesMut::with_capacity(n);
        push(
            "kp_encode",
            Side::Kp,
            Box::new(move || {
                out.clear();
                black_box(kp).encode(&mut out, v).expect("encode");
                out.len() as u64
            }),
        );
    }
    out
}

/// One pass that reads every byte: the floor for any parser.
#[inline(never)]
pub fn read_all(b: &[u8]) -> u64 {
    let mut acc = [0u64; 4];
    let mut chunks = b.chunks_exact(32);
    for c in &mut chunks {
        for (i, w) in c.chunks_exact(8).enumerate() {
            acc[i] = acc[i].wrapping_add(u64::from_le_bytes(w.try_into().unwrap_or([0; 8])));
        }
    }
    let mut s = acc[0] ^ acc[1] ^ acc[2] ^ acc[3];
    for &x in chunks.remainder() {
        s = s.wrapping_add(u64::from(x));
    }
    s
}

fn case<M: Msg>(name: &str, version: i16, bytes: Vec<u8>) -> Case {
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    Case {
        name: name.to_string(),
        version,
        bytes,
        check_fn: check_case::<M>,
        ops_fn: ops::<M>,
    }
}

/// Encodes a `kafka-protocol` value.
pub fn kp_bytes<T: Encodable>(m: &T, v: i16) -> Vec<u8> {
    let mut out = BytesMut::new();
    m.encode(&mut out, v).expect("kafka-protocol encode");
    out.to_vec()
}

/// Every case. The two target cases come first.
pub fn cases() -> Vec<Case> {
    use walk::*;
    vec![
        case::<Metadata>("metadata_response_v13", 13, gen::metadata()),
        case::<AlterPartition>("alter_partition_request_v3", 3, gen::alter_partition()),
        case::<Fetch>("fetch_response_v12", 12, gen::fetch(12)),
        case::<Fetch>("fetch_response_v17", 17, gen::fetch(17)),
        case::<Produce>("produce_request_v9", 9, gen::produce(9)),
        case::<Produce>("produce_request_v13", 13, gen::produce(13)),
        case::<BrokerRegistration>("broker_registration_request_v4", 4, gen::broker_registration()),
        case::<ApiVersions>("api_versions_response_v3", 3, gen::api_versions()),
        case::<PartitionChange>("partition_change_record_v2", 2, gen::partition_change()),
        case::<Partition>("partition_record_v2", 2, gen::partition()),
    ]
}

/// The inputs.
pub mod gen {
    use super::*;
    use kafka_protocol::messages as kp;
    use kafka_protocol::messages::{BrokerId, TopicName};
    use kafka_protocol::records::{Compression, Record, RecordBatchEncoder, RecordEncodeOptions, TimestampType};

    fn s(x: impl Into<String>) -> StrBytes {
        StrBytes::from_string(x.into())
    }
    fn uuid(n: u128) -> uuid::Uuid {
        uuid::Uuid::from_u128(0x0123_4567_89ab_cdef_0011_2233_4455_6677 ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    /// MetadataResponse v13: 100 topics of 10 partitions, 3 replicas each (and 3 brokers).
    pub fn metadata() -> Vec<u8> {
        let mut m = kp::MetadataResponse::default();
        m.throttle_time_ms = 0;
        m.cluster_id = Some(s("kafka-wire-bench-cluster"));
        m.controller_id = BrokerId(1);
        for b in 0..3 {
            let mut br = kp::metadata_response::MetadataResponseBroker::default();
            br.node_id = BrokerId(b);
            br.host = s(format!("broker-{b}.kafka.example.com"));
            br.port = 9092;
            br.rack = Some(s(format!("rack-{b}")));
            m.brokers.push(br);
        }
        for t in 0..100 {
            let mut topic = kp::metadata_response::MetadataResponseTopic::default();
            topic.name = Some(TopicName(s(format!("events.tenant-{t:03}.clicks"))));
            topic.topic_id = uuid(t);
            topic.is_internal = false;
            topic.topic_authorized_operations = -2147483648;
            for p in 0..10 {
                let mut part = kp::metadata_response::MetadataResponsePartition::default();
                part.partition_index = p;
                part.leader_id = BrokerId(p % 3);
                part.leader_epoch = 5 + p;
                part.replica_nodes = (0..3).map(|r| BrokerId((p + r) % 3)).collect();
                part.isr_nodes = part.replica_nodes.clone();
                part.offline_replicas = vec![];
                topic.partitions.push(part);
            }
            m.topics.push(topic);
        }
        kp_bytes(&m, 13)
    }

    /// AlterPartitionRequest v3: 50 topics of 20 partitions, 3 NewIsrWithEpochs entries each.
    pub fn alter_partition() -> Vec<u8> {
        let mut m = kp::AlterPartitionRequest::default();
        m.broker_id = BrokerId(1);
        m.broker_epoch = 12345;
        for t in 0..50 {
            let mut topic = kp::alter_partition_request::TopicData::default();
            topic.topic_id = uuid(1000 + t);
            for p in 0..20 {
                let mut part = kp::alter_partition_request::PartitionData::default();
                part.partition_index = p;
                part.leader_epoch = 10 + p;
                part.leader_recovery_state = 0;
                part.partition_epoch = 20 + p;
                for r in 0..3 {
                    let mut b = kp::alter_partition_request::BrokerState::default();
                    b.broker_id = BrokerId((p + r) % 5);
                    b.broker_epoch = 1000 + i64::from(r);
                    part.new_isr_with_epochs.push(b);
                }
                topic.partitions.push(part);
            }
            m.topics.push(topic);
        }
        kp_bytes(&m, 3)
    }

    /// One record batch (magic 2, uncompressed) of 16 KiB: 16 records of 1000-byte values, the
    /// first value shortened so that the batch is exactly 16,384 bytes.
    pub fn records_16k() -> Bytes {
        let make = |first: usize| {
            let recs: Vec<Record> = (0..16)
                .map(|i| Record {
                    transactional: false,
                    control: false,
                    delete_horizon: false,
                    partition_leader_epoch: 3,
                    producer_id: -1,
                    producer_epoch: -1,
                    timestamp_type: TimestampType::Creation,
                    offset: i,
                    sequence: -1,
                    timestamp: 1_700_000_000_000 + i,
                    key: Some(Bytes::from(format!("key-{i}"))),
                    value: Some(Bytes::from(vec![
                        b'a' + (i as u8 % 26);
                        if i == 0 { first } else { 1000 }
                    ])),
                    headers: Default::default(),
                })
                .collect();
            let mut buf = BytesMut::new();
            RecordBatchEncoder::encode(
                &mut buf,
                &recs,
                &RecordEncodeOptions {
                    version: 2,
                    compression: Compression::None,
                },
            )
            .expect("records");
            buf.freeze()
        };
        let probe = make(1000);
        let first = 1000 + 16384 - probe.len();
        let b = make(first);
        assert_eq!(b.len(), 16384, "record batch size");
        b
    }

    /// FetchResponse v12 or v17: 10 topics of 4 partitions, 16 KiB of records each.
    pub fn fetch(v: i16) -> Vec<u8> {
        let recs = records_16k();
        let mut m = kp::FetchResponse::default();
        m.session_id = 7;
        for t in 0..10 {
            let mut topic = kp::fetch_response::FetchableTopicResponse::default();
            if v <= 12 {
                topic.topic = TopicName(s(format!("events.tenant-{t:03}.clicks")));
            } else {
                topic.topic_id = uuid(t);
            }
            for p in 0..4 {
                let mut part = kp::fetch_response::PartitionData::default();
                part.partition_index = p;
                part.high_watermark = 100_000 + i64::from(p);
                part.last_stable_offset = 100_000 + i64::from(p);
                part.log_start_offset = 0;
                part.aborted_transactions = Some(vec![]);
                part.preferred_read_replica = BrokerId(-1);
                part.records = Some(recs.clone());
                topic.partitions.push(part);
            }
            m.responses.push(topic);
        }
        kp_bytes(&m, v)
    }

    /// ProduceRequest v9 or v13 (topics by id): 5 topics of 4 partitions, 16 KiB of records
    /// each.
    pub fn produce(v: i16) -> Vec<u8> {
        let recs = records_16k();
        let mut m = kp::ProduceRequest::default();
        m.acks = -1;
        m.timeout_ms = 30_000;
        for t in 0..5 {
            let mut topic = kp::produce_request::TopicProduceData::default();
            if v >= 13 {
                topic.topic_id = uuid(t + 1);
            } else {
                topic.name = TopicName(s(format!("events.tenant-{t:03}.clicks")));
            }
            for p in 0..4 {
                let mut part = kp::produce_request::PartitionProduceData::default();
                part.index = p;
                part.records = Some(recs.clone());
                topic.partition_data.push(part);
            }
            m.topic_data.push(topic);
        }
        kp_bytes(&m, v)
    }

    /// BrokerRegistrationRequest v4.
    pub fn broker_registration() -> Vec<u8> {
        let mut m = kp::BrokerRegistrationRequest::default();
        m.broker_id = BrokerId(4);
        m.cluster_id = s("MkU3OEVBNTcwNTJENDM2Qk");
        m.incarnation_id = uuid(77);
        for (i, (name, proto)) in [("PLAINTEXT", 0i16), ("SSL", 1)].into_iter().enumerate() {
            let mut l = kp::broker_registration_request::Listener::default();
            l.name = s(name);
            l.host = s("broker-4.kafka.example.com");
            l.port = 9092 + i as u16;
            l.security_protocol = proto;
            m.listeners.push(l);
        }
        for (name, lo, hi) in [
            ("metadata.version", 1i16, 27i16),
            ("kraft.version", 0, 1),
            ("group.version", 0, 1),
        ] {
            let mut f = kp::broker_registration_request::Feature::default();
            f.name = s(name);
            f.min_supported_version = lo;
            f.max_supported_version = hi;
            m.features.push(f);
        }
        m.rack = Some(s("rack-1"));
        m.log_dirs = vec![uuid(1), uuid(2), uuid(3)];
        m.previous_broker_epoch = 4242;
        kp_bytes(&m, 4)
    }

    /// ApiVersionsResponse v3 with every API key `kafka-protocol` knows, and features.
    pub fn api_versions() -> Vec<u8> {
        let mut m = kp::ApiVersionsResponse::default();
        for (i, k) in kp::ApiKey::iter().enumerate() {
            let mut a = kp::api_versions_response::ApiVersion::default();
            a.api_key = k as i16;
            a.min_version = 0;
            a.max_version = (i % 18) as i16;
            m.api_keys.push(a);
        }
        for (name, lo, hi) in [("metadata.version", 1i16, 27i16), ("kraft.version", 0, 1)] {
            let mut f = kp::api_versions_response::SupportedFeatureKey::default();
            f.name = s(name);
            f.min_version = lo;
            f.max_version = hi;
            m.supported_features.push(f);
            let mut g = kp::api_versions_response::FinalizedFeatureKey::default();
            g.name = s(name);
            g.min_version_level = hi;
            g.max_version_level = hi;
            m.finalized_features.push(g);
        }
        m.finalized_features_epoch = 99;
        kp_bytes(&m, 3)
    }

    /// PartitionChangeRecord v2 (kafka-wire only), with the ELR fields set.
    pub fn partition_change() -> Vec<u8> {
        use kafka_wire::metadata::partition_change_record::owned::PartitionChangeRecord;
        let m = PartitionChangeRecord {
            partition_id: 3,
            topic_id: uuid(5),
            isr: Some(vec![1, 2, 3].into()),
            leader: 1,
            replicas: Some(vec![1, 2, 3].into()),
            directories: Some(vec![uuid(11), uuid(12), uuid(13)].into()),
            eligible_leader_replicas: Some(vec![4, 5].into()),
            last_known_elr: Some(vec![6].into()),
            ..Default::default()
        };
        m.to_vec(2).expect("encode")
    }

    /// PartitionRecord v2 (kafka-wire only), with the ELR fields set.
    pub fn partition() -> Vec<u8> {
        use kafka_wire::metadata::partition_record::owned::PartitionRecord;
        let m = PartitionRecord {
            partition_id: 3,
            topic_id: uuid(5),
            replicas: vec![1, 2, 3].into(),
            isr: vec![1, 2, 3].into(),
            leader: 1,
            leader_epoch: 9,
            partition_epoch: 12,
            directories: vec![uuid(11), uuid(12), uuid(13)].into(),
            eligible_leader_replicas: Some(vec![4, 5].into()),
            last_known_elr: Some(vec![6].into()),
            ..Default::default()
        };
        m.to_vec(2).expect("encode")
    }
}
