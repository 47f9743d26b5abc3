//! kafka-wire's test kit (not published): the checks every fuzz target runs, shared with the regression tests that replay the inputs
//! the fuzzer found.
//!
//! On the bytes it is given, each check asserts: parsing never panics; a view that parses can be
//! fully iterated (re-encoding walks every array and tagged field); re-encoding at the same
//! version writes exactly `encoded_len` bytes, which parse again and re-encode to themselves
//! (views are compared through their canonical bytes, so a NaN `float64` does not count as a
//! difference); strict and lenient parsing agree apart from trailing bytes.

use kafka_wire::frame::{self, Mode};
use kafka_wire::{DecodeErrorKind, OwnedMessage};

/// Picks a version from the first input byte; returns it with the rest of the input.
pub fn pick_version(data: &[u8], min: i16, max: i16) -> Option<(i16, &[u8])> {
    let (&b, rest) = data.split_first()?;
    let span = (max - min + 1).max(1) as u16;
    Some((min + (u16::from(b & 0x7f) % span) as i16, rest))
}

/// Runs every check for message type `$m` (a generated view type, named without its lifetime)
/// at `$version` on `$data`. A macro rather than a generic function: the re-parse of the
/// re-encoded bytes borrows a local buffer, so it needs the type at a fresh lifetime.
#[macro_export]
macro_rules! check_message {
    ($m:ty, $data:expr, $version:expr) => {{
        use $crate::__rt::*;
        let (data, version): (&[u8], i16) = ($data, $version);
        let strict = <$m>::parse(data, version);
        let lenient = <$m>::parse_lenient(data, version);
        match (&strict, &lenient) {
            (Ok(_), Ok((_, rest))) => assert!(rest.is_empty(), "strict accepted what lenient calls trailing"),
            (Err(e), Ok((_, rest))) => assert!(
                matches!(e.kind(), DecodeErrorKind::TrailingBytes { count } if count == rest.len()),
                "strict: {e}, lenient left {}",
                rest.len()
            ),
            (Err(s), Err(l)) => assert_eq!(s, l, "strict and lenient fail differently"),
            (Ok(_), Err(e)) => panic!("lenient failed where strict passed: {e}"),
        }
        if let Ok((view, _)) = lenient {
            let n = view.encoded_len(version).expect("a parsed view encodes at its own version");
            let mut buf = vec![0u8; n];
            let w = view.encode_to_slice(&mut buf, version).expect("encode");
            assert_eq!(w, n, "encoded_len must equal the bytes written");
            let again = <$m>::parse(&buf, version).expect("re-encoded bytes parse");
            let mut buf2 = vec![0u8; n];
            let w2 = again.encode_to_slice(&mut buf2, version).expect("encode again");
            assert_eq!(&buf2[..w2], &buf[..], "re-encoding is not a fixed point");
        }
    }};
}

/// The API-key targets: bit 7 of the first byte picks request or response, the rest of that
/// byte the version.
#[macro_export]
macro_rules! check_api {
    ($req:ty, $resp:ty, $data:expr) => {{
        use $crate::__rt::*;
        let data: &[u8] = $data;
        if let Some(&first) = data.first() {
            if first & 0x80 == 0 {
                let i = <$req as Message>::INFO;
                if let Some((v, rest)) = $crate::pick_version(data, i.min_version, i.max_version) {
                    $crate::check_message!($req, rest, v);
                }
            } else {
                let i = <$resp as Message>::INFO;
                if let Some((v, rest)) = $crate::pick_version(data, i.min_version, i.max_version) {
                    $crate::check_message!($resp, rest, v);
                }
            }
        }
    }};
}

/// Single-message targets (metadata records): the first byte picks the version.
#[macro_export]
macro_rules! check_one {
    ($m:ty, $data:expr) => {{
        use $crate::__rt::*;
        let i = <$m as Message>::INFO;
        if let Some((v, rest)) = $crate::pick_version($data, i.min_version, i.max_version) {
            $crate::check_message!($m, rest, v);
        }
    }};
}

#[doc(hidden)]
pub mod __rt {
    pub use kafka_wire::{DecodeErrorKind, Message};
}

/// Whole request frames through the dispatch, and framed metadata records.
pub fn check_frames(data: &[u8]) {
    let strict = frame::parse_request_frame(data, Mode::Strict);
    let lenient = frame::parse_request_frame(data, Mode::Lenient);
    match (&strict, &lenient) {
        (Ok(s), Ok(l)) => {
            assert!(l.trailing.is_empty());
            assert_eq!(s.body_bytes, l.body_bytes);
        }
        (Err(e), Ok(l)) => assert!(
            matches!(e.kind(), DecodeErrorKind::TrailingBytes { .. }) && !l.trailing.is_empty(),
            "{e}"
        ),
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) => panic!("lenient failed where strict passed: {e}"),
    }
    if let Ok(f) = lenient {
        let mut out = vec![0u8; data.len() + 64];
        let n = frame::encode_request_frame(
            f.header.correlation_id,
            f.header.client_id,
            &f.body,
            f.api_version,
            &mut out,
        )
        .expect("a parsed frame encodes");
        let again = frame::parse_request_frame(&out[..n], Mode::Strict).expect("re-encoded frame parses");
        assert_eq!(again.api_key, f.api_key);
    }
    if let Ok(r) = frame::parse_metadata_record(data) {
        let mut out = vec![0u8; data.len() + 16];
        let n = frame::encode_metadata_record(&r.record, r.version, &mut out).expect("encode record");
        frame::parse_metadata_record(&out[..n]).expect("re-encoded record parses");
    }
}

/// Coordinator records: the first byte picks the coordinator and whether a value follows;
/// the rest is split into key and value at the second byte.
pub fn check_coordinator(data: &[u8]) {
    let [sel, split, rest @ ..] = data else { return };
    let at = usize::from(*split).min(rest.len());
    let (key, value) = rest.split_at(at);
    let value = (sel & 0x80 == 0).then_some(value);
    match sel % 3 {
        0 => {
            let _ = frame::parse_group_coordinator_record(key, value);
        }
        1 => {
            let _ = frame::parse_share_coordinator_record(key, value);
        }
        _ => {
            let _ = frame::parse_transaction_coordinator_record(key, value);
        }
    }
}

/// The structured target: an arbitrary owned value of any message valid at a version; encode,
/// parse, convert to owned, compare with the original.
pub fn check_structured(data: &[u8]) {
    use arbitrary::Unstructured;
    let mut u = Unstructured::new(data);
    let Ok(i) = u.int_in_range(0..=kafka_wire::catalog::ALL.len() - 1) else {
        return;
    };
    let e = &kafka_wire::catalog::ALL[i];
    let Ok(v) = u.int_in_range(e.info.min_version..=e.info.max_version) else {
        return;
    };
    let Ok(bytes) = kafka_wire::arbitrary_bytes(e.schema, v, &mut u) else {
        return;
    };
    let once = (e.owned_transcode)(&bytes, v, v)
        .unwrap_or_else(|err| panic!("{} v{v}: generated value rejected: {err}", e.info.name));
    let twice = (e.owned_transcode)(&once, v, v).expect("owned round trip");
    assert_eq!(once, twice, "{} v{v}: owned round trip changed the bytes", e.info.name);
}

/// The typed structured check for one owned message type.
pub fn check_owned<M: OwnedMessage + PartialEq + std::fmt::Debug>(m: &M, version: i16) {
    let bytes = m.to_vec(version).expect("a generated value encodes");
    let back = M::parse(&bytes, version).expect("parses");
    assert_eq!(back.to_vec(version).expect("encodes"), bytes);
}

/// Largest decompressed records section the record-batch target accepts (a bomb beyond it is
/// a typed error, not an allocation).
const RECORDS_LIMIT: usize = 64 << 10;

/// Record bytes (a Fetch response's records, a log segment): every batch and legacy message,
/// lazily and strictly, every record in it (decompressed within a limit), and each uncompressed
/// magic 2 batch rebuilt by [`BatchBuilder`](kafka_wire::records::BatchBuilder) from what was read, which must parse to the same
/// header and records, and give the same bytes when the input's records were written minimally.
pub fn check_record_batches(data: &[u8]) {
    use kafka_wire::records::{Batch, Batches};
    let lazy: Vec<_> = Batches::new(data).collect();
    let strict: Vec<_> = Batches::strict(data).collect();
    assert_eq!(
        lazy.len(),
        strict.len(),
        "lazy and strict reading stop at different batches"
    );
    for (l, s) in lazy.iter().zip(&strict) {
        match (l, s) {
            // The one allowed difference: a partial tail is an item for one, an error for the other.
            (Ok(Batch::Truncated(_)), Err(_)) => {}
            (l, s) => assert_eq!(l, s, "lazy and strict reading disagree"),
        }
    }
    for b in lazy.iter().flatten() {
        match b {
            Batch::V2(batch) => check_v2_batch(batch),
            Batch::Legacy(m) => {
                let _ = (m.compression(), m.timestamp_type());
                if let Ok(Some(inner)) = kafka_wire_ext::compression::legacy_inner(m, RECORDS_LIMIT) {
                    // One level down; a wrapper inside a wrapper is not followed further.
                    for item in Batches::new(&inner).flatten() {
                        if let Batch::Legacy(m) = item {
                            let _ = (m.key, m.value, m.inner_offset(0, 0));
                        }
                    }
                }
            }
            Batch::Truncated(t) => {
                let _ = (t.base_offset(), t.batch_length());
            }
        }
    }
}

fn check_v2_batch(batch: &kafka_wire::records::RecordBatch<'_>) {
    use kafka_wire::records::{BatchBuilder, BatchRecords, Compression, RecordBatch};
    let _ = (
        batch.last_offset(),
        batch.next_offset(),
        batch.last_sequence(),
        batch.delete_horizon_ms(),
    );
    let mut buf = Vec::new();
    let Ok(records) = kafka_wire_ext::compression::batch_records(batch, &mut buf, RECORDS_LIMIT) else {
        return;
    };
    let recs: Vec<_> = records.iter().collect();
    assert_eq!(recs.len(), records.len(), "record iterator and count disagree");
    let _ = records.control().map(|c| c.count());
    let _ = records.metadata().map(|m| m.count());
    if batch.compression() != Compression::None {
        return;
    }
    let headers = headers_of(&recs);
    let new = new_records(&recs, &headers);
    let builder = BatchBuilder {
        base_offset: batch.base_offset,
        partition_leader_epoch: batch.partition_leader_epoch,
        attributes: batch.attributes,
        last_offset_delta: Some(batch.last_offset_delta),
        base_timestamp: batch.base_timestamp,
        max_timestamp: Some(batch.max_timestamp),
        producer_id: batch.producer_id,
        producer_epoch: batch.producer_epoch,
        base_sequence: batch.base_sequence,
        records: BatchRecords::Plain(&new),
    };
    let n = builder.encoded_len().expect("a batch that parsed can be rebuilt");
    let mut out = vec![0u8; n];
    assert_eq!(
        builder.encode_to_slice(&mut out).expect("rebuild"),
        n,
        "encoded_len must equal the bytes written"
    );
    let (again, rest) = RecordBatch::parse(&out).expect("the rebuilt batch parses");
    assert!(rest.is_empty());
    assert_eq!(
        (
            again.base_offset,
            again.partition_leader_epoch,
            again.attributes,
            again.last_offset_delta,
            again.base_timestamp
        ),
        (
            batch.base_offset,
            batch.partition_leader_epoch,
            batch.attributes,
            batch.last_offset_delta,
            batch.base_timestamp
        )
    );
    assert_eq!(
        (
            again.max_timestamp,
            again.producer_id,
            again.producer_epoch,
            again.base_sequence,
            again.record_count
        ),
        (
            batch.max_timestamp,
            batch.producer_id,
            batch.producer_epoch,
            batch.base_sequence,
            batch.record_count
        )
    );
    let back: Vec<_> = again.records().expect("uncompressed").iter().collect();
    assert_eq!(back.len(), recs.len());
    for (a, b) in back.iter().zip(&recs) {
        assert_eq!(
            (a.attributes, a.timestamp_delta, a.offset_delta, a.key, a.value),
            (b.attributes, b.timestamp_delta, b.offset_delta, b.key, b.value)
        );
        assert!(a.headers.iter().eq(b.headers.iter()), "headers differ after a rebuild");
    }
    // The rebuilt batch is canonical: rebuilding it from its own parse gives the same bytes.
    // (The input need not be: Kafka reads any negative key, value or header length as null,
    // and accepts over-long varints, so input and rebuild may differ byte for byte.)
    let again_recs: Vec<_> = again.records().expect("uncompressed").iter().collect();
    let again_headers = headers_of(&again_recs);
    let again_new = new_records(&again_recs, &again_headers);
    let mut out2 = vec![0u8; n];
    let rebuilt = BatchBuilder {
        records: BatchRecords::Plain(&again_new),
        ..builder
    };
    assert_eq!(rebuilt.encode_to_slice(&mut out2).expect("rebuild again"), n);
    assert_eq!(out2, out, "rebuilding is not a fixed point");
}

fn headers_of<'a>(recs: &[kafka_wire::records::Record<'a>]) -> Vec<Vec<kafka_wire::records::NewHeader<'a>>> {
    use kafka_wire::records::NewHeader;
    recs.iter()
        .map(|r| {
            r.headers
                .iter()
                .map(|h| NewHeader {
                    key: h.key,
                    value: h.value,
                })
                .collect()
        })
        .collect()
}

/// What the builder needs to write `recs` again.
fn new_records<'a>(
    recs: &[kafka_wire::records::Record<'a>],
    headers: &'a [Vec<kafka_wire::records::NewHeader<'a>>],
) -> Vec<kafka_wire::records::NewRecord<'a>> {
    recs.iter()
        .zip(headers)
        .map(|(r, h)| kafka_wire::records::NewRecord {
            attributes: r.attributes,
            timestamp_delta: r.timestamp_delta,
            offset_delta: r.offset_delta,
            key: r.key,
            value: r.value,
            headers: h,
        })
        .collect()
}

/// One frame as the connection layer reported it, reduced to what must not depend on how the
/// bytes were chunked.
#[derive(Debug, PartialEq)]
enum Seen {
    /// A frame: its direction, bytes, correlation id, API, decoding, and pairing.
    Frame {
        direction: kafka_wire::conn::Direction,
        frame: Vec<u8>,
        correlation_id: Option<i32>,
        api: Option<(kafka_wire::ApiKey, i16)>,
        decoded: String,
        remembered: bool,
        skipped: usize,
    },
    /// The stream could not be cut any further.
    Cut(kafka_wire::conn::CutError),
}

/// The largest frame the conversation check accepts: what its fixed buffers hold.
const CONVERSATION_MAX_FRAME: usize = 4092;
/// Requests its observer remembers at once.
const CONVERSATION_IN_FLIGHT: usize = 8;

/// The input of [`check_conversation`]: a chunking seed, then the request stream's length
/// (two bytes, big-endian), the client's bytes and the broker's bytes.
pub fn conversation_input(seed: u8, requests: &[u8], responses: &[u8]) -> Vec<u8> {
    let mut out = vec![seed];
    out.extend_from_slice(&u16::try_from(requests.len()).unwrap_or(u16::MAX).to_be_bytes());
    out.extend_from_slice(requests);
    out.extend_from_slice(responses);
    out
}

/// Feeds both directions of a conversation through the connection layer (`kafka_wire::conn`):
/// the client's bytes, then the broker's, each cut by a [`FrameCutter`](kafka_wire::conn::FrameCutter)
/// and observed by one [`Observer`](kafka_wire::conn::Observer). The bytes go in whole, in
/// chunks of sizes drawn from the first input byte, and through a growable buffer. Asserts:
/// no panic; the same events whatever the chunking and storage; memory bounded by the buffer
/// (fixed) or by the largest frame accepted (growable); an observer never remembers more than
/// its capacity, and every paired response names an API.
pub fn check_conversation(data: &[u8]) {
    use kafka_wire::conn::{Cut, Direction, FrameCutter, Growable, Observer, Storage};

    let [seed, hi, lo, rest @ ..] = data else { return };
    let split = usize::from(u16::from_be_bytes([*hi, *lo])).min(rest.len());
    let (requests, responses) = rest.split_at(split);

    fn run<S: Storage>(
        make: &dyn Fn() -> S,
        requests: &[u8],
        responses: &[u8],
        chunks: &mut dyn FnMut() -> usize,
        bound: usize,
    ) -> Vec<Seen> {
        let mut obs: Observer<CONVERSATION_IN_FLIGHT> = Observer::new();
        let mut seen = Vec::new();
        for (direction, stream) in [(Direction::Request, requests), (Direction::Response, responses)] {
            let mut cut = FrameCutter::new(make(), CONVERSATION_MAX_FRAME);
            let mut at = 0;
            'stream: while at < stream.len() {
                let n = chunks().min(stream.len() - at);
                let mut chunk = stream.get(at..at + n).unwrap_or_default();
                at += n;
                while !chunk.is_empty() {
                    let taken = cut.push(chunk);
                    chunk = chunk.get(taken..).unwrap_or_default();
                    assert!(cut.storage().bytes().len() <= bound, "buffer above its bound");
                    loop {
                        match cut.next_frame() {
                            Ok(Cut::Frame(f)) => {
                                let ev = match direction {
                                    Direction::Request => obs.request(f),
                                    Direction::Response => obs.response(f),
                                };
                                assert!(obs.waiting() <= CONVERSATION_IN_FLIGHT);
                                if let kafka_wire::conn::Decoded::Response(_) = ev.decoded {
                                    assert!(ev.api.is_some() && ev.remembered);
                                }
                                let decoded = match &ev.decoded {
                                    kafka_wire::conn::Decoded::Request(r) => {
                                        format!("request {} trailing {}", r.body_bytes.len(), r.trailing.len())
                                    }
                                    kafka_wire::conn::Decoded::Response(r) => {
                                        format!(
                                            "response v{} {} trailing {}",
                                            r.version,
                                            r.body_bytes.len(),
                                            r.trailing.len()
                                        )
                                    }
                                    kafka_wire::conn::Decoded::Failed(e) => format!("failed {e}"),
                                    kafka_wire::conn::Decoded::Unpaired => "unpaired".into(),
                                };
                                seen.push(Seen::Frame {
                                    direction,
                                    frame: ev.frame.to_vec(),
                                    correlation_id: ev.correlation_id,
                                    api: ev.api,
                                    decoded,
                                    remembered: ev.remembered,
                                    skipped: ev.skipped,
                                });
                            }
                            Ok(Cut::NeedMore(_)) => break,
                            Err(e) => {
                                // The connection ends here.
                                seen.push(Seen::Cut(e));
                                break 'stream;
                            }
                        }
                    }
                    // Every whole frame was taken above, so the cutter had room: a push that took
                    // nothing would never end.
                    assert!(
                        taken > 0 || chunk.is_empty(),
                        "a cutter took no bytes and held no whole frame"
                    );
                }
            }
        }
        seen
    }

    let fixed = || [0u8; CONVERSATION_MAX_FRAME + 4];
    let whole = run(
        &fixed,
        requests,
        responses,
        &mut || usize::MAX,
        CONVERSATION_MAX_FRAME + 4,
    );
    let mut state = u32::from(*seed) | 1;
    let mut lcg = move || {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (state >> 16) as usize % 64 + 1
    };
    let chunked = run(&fixed, requests, responses, &mut lcg, CONVERSATION_MAX_FRAME + 4);
    assert_eq!(whole, chunked, "the events depend on the chunking");
    let rest = 256;
    let growable = || Growable::new(rest);
    let grown = run(
        &growable,
        requests,
        responses,
        &mut || 7,
        rest.max(CONVERSATION_MAX_FRAME + 4),
    );
    assert_eq!(whole, grown, "the events depend on the storage");
}
