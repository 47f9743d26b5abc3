//! Compressed record batches: one batch per codec, framed by hand around a payload made by the
//! codec's crate (zstd: by the reference `zstd` tool, committed as a fixture, since the Rust
//! zstd crates that compress need a newer Rust or a C build), decompressed and validated;
//! decompression bombs fail with a typed error; legacy compressed wrappers; and the core's
//! rejection of hostile input allocates nothing.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::{Read, Write};

use kafka_wire::records::{
    crc32_ieee, crc32c, encode_records, Batch, BatchBuilder, BatchRecords, Batches, Compression, NewHeader, NewRecord,
    RecordBatch, Records,
};
use kafka_wire::DecodeErrorKind;
use kafka_wire_ext::compression::{
    batch_records, decompress, decompress_owned, legacy_inner, DecompressError, DEFAULT_LIMIT,
};

/// Where the committed fixtures live.
const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../core/tests/data/records");

/// 50 records with keys, values, headers and a tombstone: the uncompressed records section
/// every compressed batch here carries.
fn sample_records() -> Vec<u8> {
    let keys: Vec<String> = (0..50).map(|i| format!("key-{i:03}")).collect();
    let values: Vec<String> = (0..50)
        .map(|i| format!("the quick brown fox #{i:03} jumps over the lazy dog"))
        .collect();
    let trace = [
        NewHeader::new("trace", Some(b"0af7651916cd43dd")),
        NewHeader::new("n", None),
    ];
    let recs: Vec<NewRecord<'_>> = (0..50)
        .map(|i| NewRecord {
            timestamp_delta: i as i64 * 10,
            offset_delta: i,
            key: Some(keys[i as usize].as_bytes()),
            value: if i == 7 {
                None
            } else {
                Some(values[i as usize].as_bytes())
            },
            headers: if i % 2 == 0 { &trace } else { &[] },
            ..NewRecord::DEFAULT
        })
        .collect();
    let mut out = Vec::new();
    encode_records(&recs, &mut out).unwrap();
    out
}

/// A magic 2 batch framed by hand around `payload` (compressed with `codec`), holding `count`
/// records; the CRC is computed last.
#[rustfmt::skip]
fn frame_batch(codec: u8, count: i32, payload: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(1000i64.to_be_bytes());                       // base offset
    b.extend(((49 + payload.len()) as i32).to_be_bytes()); // batch length
    b.extend(3i32.to_be_bytes());                          // partition leader epoch
    b.push(2);                                             // magic
    b.extend([0, 0, 0, 0]);                                // CRC, below
    b.extend([0, codec]);                                  // attributes: the codec
    b.extend((count - 1).to_be_bytes());                   // last offset delta
    b.extend(1_700_000_000_000i64.to_be_bytes());          // base timestamp
    b.extend(1_700_000_000_490i64.to_be_bytes());          // max timestamp
    b.extend((-1i64).to_be_bytes());                       // producer id
    b.extend((-1i16).to_be_bytes());                       // producer epoch
    b.extend((-1i32).to_be_bytes());                       // base sequence
    b.extend(count.to_be_bytes());                         // record count
    b.extend(payload);
    let crc = crc32c(&b[21..]);
    b[17..21].copy_from_slice(&crc.to_be_bytes());
    b
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// Snappy in the xerial framing Kafka's Java client writes: a 16-byte header, then
/// `int32`-length-prefixed raw snappy blocks (here two, to cross a block boundary).
fn xerial(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1];
    let (a, b) = data.split_at(data.len() / 2);
    for chunk in [a, b] {
        let c = snap::raw::Encoder::new().compress_vec(chunk).unwrap();
        out.extend((c.len() as i32).to_be_bytes());
        out.extend(c);
    }
    out
}

fn lz4(data: &[u8]) -> Vec<u8> {
    let info = lz4_flex::frame::FrameInfo::new()
        .block_size(lz4_flex::frame::BlockSize::Max64KB)
        .block_mode(lz4_flex::frame::BlockMode::Independent);
    let mut e = lz4_flex::frame::FrameEncoder::with_frame_info(info, Vec::new());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn zstd_fixture() -> Vec<u8> {
    std::fs::read(format!("{DATA}/sample-records.zst")).expect("committed zstd fixture")
}

fn check_batch(batch: &[u8], codec: Compression, records: &[u8]) {
    let mut it = Batches::strict(batch);
    let Some(Ok(Batch::V2(b))) = it.next() else {
        panic!("{codec:?}: not a batch")
    };
    assert!(it.next().is_none());
    assert_eq!(b.compression(), codec);
    assert_eq!(
        b.records().is_none(),
        codec != Compression::None,
        "core does not decompress"
    );
    let mut buf = Vec::new();
    let rs = batch_records(&b, &mut buf, DEFAULT_LIMIT).unwrap();
    assert_eq!(rs.bytes(), records, "{codec:?}");
    assert_eq!(rs.len(), 50);
    let all: Vec<_> = rs.iter().collect();
    assert_eq!(all[3].key, Some(&b"key-003"[..]));
    assert_eq!(all[7].value, None);
    assert_eq!(b.offset_of(&all[49]), 1049);
    assert_eq!(b.timestamp_of(&all[49]), 1_700_000_000_490);
    let h: Vec<_> = all[4].headers.iter().collect();
    assert_eq!(
        (h[0].key_str(), h[0].value, h[1].value),
        (Some("trace"), Some(&b"0af7651916cd43dd"[..]), None)
    );
    assert!(all[5].headers.is_empty());
}

#[test]
fn one_batch_per_codec() {
    let records = sample_records();
    let cases = [
        (0u8, Compression::None, records.clone()),
        (1, Compression::Gzip, gzip(&records)),
        (2, Compression::Snappy, xerial(&records)),
        (
            2,
            Compression::Snappy,
            snap::raw::Encoder::new().compress_vec(&records).unwrap(),
        ),
        (3, Compression::Lz4, lz4(&records)),
        (4, Compression::Zstd, zstd_fixture()),
    ];
    for (id, codec, payload) in cases {
        if codec != Compression::None {
            assert!(payload.len() < records.len(), "{codec:?} compresses");
        }
        check_batch(&frame_batch(id, 50, &payload), codec, &records);
    }
}

/// Owned batches of every codec: decompressed in place into the same owned records as the
/// uncompressed batch holds, whose values share the decompressed buffer.
#[test]
fn owned_batches_of_every_codec_decompress_to_the_same_records() {
    use kafka_wire::records::{OwnedBatch, OwnedBatchRecords, OwnedRecordBatch};
    use kafka_wire::OwnedBytes;
    let records = sample_records();
    let plain = frame_batch(0, 50, &records);
    let read = |b: &[u8]| -> OwnedRecordBatch {
        let all = OwnedRecordBatch::parse_all(&OwnedBytes::from(b), true).unwrap();
        let [OwnedBatch::V2(batch)] = &all[..] else {
            panic!("{all:?}")
        };
        batch.clone()
    };
    let expect = read(&plain);
    let OwnedBatchRecords::Plain(want) = &expect.records else {
        panic!()
    };
    assert_eq!(want.len(), 50);
    for (id, codec, payload) in [
        (1u8, Compression::Gzip, gzip(&records)),
        (2, Compression::Snappy, xerial(&records)),
        (3, Compression::Lz4, lz4(&records)),
        (4, Compression::Zstd, zstd_fixture()),
    ] {
        let mut b = read(&frame_batch(id, 50, &payload));
        assert!(
            matches!(b.records, OwnedBatchRecords::Compressed { compression, record_count: 50, .. } if compression == codec)
        );
        decompress_owned(&mut b, DEFAULT_LIMIT).unwrap();
        let OwnedBatchRecords::Plain(got) = &b.records else {
            panic!()
        };
        assert_eq!(got, want, "{codec:?}");
        // The values are slices of one decompressed buffer: consecutive in memory.
        let (a, z) = (got[0].value.as_deref().unwrap(), got[1].value.as_deref().unwrap());
        assert!(z.as_ptr() as usize > a.as_ptr() as usize && (z.as_ptr() as usize) < a.as_ptr() as usize + 200);
        // A record count that the bytes do not hold is an error, as for views.
        let mut lying = read(&frame_batch(id, 51, &payload));
        assert!(matches!(
            decompress_owned(&mut lying, DEFAULT_LIMIT),
            Err(DecompressError::Records(_))
        ));
        // Too small a limit fails before the records are read.
        let mut small = read(&frame_batch(id, 50, &payload));
        assert!(matches!(
            decompress_owned(&mut small, 100),
            Err(DecompressError::TooLarge { .. })
        ));
    }
}

#[test]
fn the_builder_writes_compressed_batches_too() {
    let records = sample_records();
    let z = gzip(&records);
    let builder = BatchBuilder {
        base_offset: 1000,
        partition_leader_epoch: 3,
        base_timestamp: 1_700_000_000_000,
        max_timestamp: Some(1_700_000_000_490),
        records: BatchRecords::Compressed {
            compression: Compression::Gzip,
            record_count: 50,
            bytes: &z,
        },
        ..BatchBuilder::DEFAULT
    };
    let mut out = Vec::new();
    builder.encode(&mut out).unwrap();
    assert_eq!(
        out,
        frame_batch(1, 50, &z),
        "the builder writes what the hand framing does"
    );
}

/// A zstd frame written by hand: a raw block and an RLE block.
#[rustfmt::skip]
const ZSTD_BY_HAND: &[u8] = &[
    0x28, 0xb5, 0x2f, 0xfd, // magic
    0x20,                   // frame header: single segment, 1-byte content size, no checksum
    0x08,                   // content size 8
    0x28, 0x00, 0x00,       // block 1: raw, 5 bytes, not last
    b'h', b'e', b'l', b'l', b'o',
    0x1b, 0x00, 0x00,       // block 2: RLE, 3 bytes, last
    b'!',
];

#[test]
fn zstd_frames_written_by_hand() {
    assert_eq!(decompress(Compression::Zstd, ZSTD_BY_HAND, 100).unwrap(), b"hello!!!");
    let e = decompress(Compression::Zstd, ZSTD_BY_HAND, 7).unwrap_err();
    assert_eq!(
        e,
        DecompressError::TooLarge {
            codec: Compression::Zstd,
            limit: 7
        }
    );
}

/// A zstd frame of `n` RLE blocks of 128 KiB each: a few bytes that expand to `n` × 128 KiB.
fn zstd_bomb(n: usize) -> Vec<u8> {
    let mut out = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38]; // no content size; window 128 KiB
    for i in 0..n {
        let last = u32::from(i == n - 1);
        let header = last | (1 << 1) | (128 * 1024) << 3;
        out.extend(&header.to_le_bytes()[..3]);
        out.push(b'A');
    }
    out
}

#[test]
fn decompression_bombs_fail_with_a_typed_error() {
    let limit = 1 << 20;
    let zeros = vec![0u8; 4 << 20];
    let bombs = [
        (Compression::Gzip, gzip(&zeros)),
        (Compression::Snappy, xerial(&zeros)),
        (
            Compression::Snappy,
            snap::raw::Encoder::new().compress_vec(&zeros).unwrap(),
        ),
        (Compression::Lz4, lz4(&zeros)),
        (Compression::Zstd, zstd_bomb(32)),
    ];
    for (codec, bomb) in bombs {
        assert!(
            bomb.len() < 1 << 20,
            "{codec:?}: a bomb is small ({} bytes)",
            bomb.len()
        );
        let e = decompress(codec, &bomb, limit).unwrap_err();
        assert_eq!(e, DecompressError::TooLarge { codec, limit }, "{codec:?}");
        assert!(e.to_string().contains("exceeds the limit of 1048576 bytes"), "{e}");
        // Through a batch as well.
        let batch = frame_batch(codec.id(), 1, &bomb);
        let Some(Ok(Batch::V2(b))) = Batches::new(&batch).next() else {
            panic!()
        };
        let mut buf = Vec::new();
        assert_eq!(
            batch_records(&b, &mut buf, limit).unwrap_err(),
            DecompressError::TooLarge { codec, limit }
        );
    }
    // Just under the limit is fine.
    let ok = vec![0u8; limit];
    assert_eq!(decompress(Compression::Gzip, &gzip(&ok), limit).unwrap().len(), limit);
    assert_eq!(
        decompress(Compression::Zstd, &zstd_bomb(8), limit).unwrap().len(),
        limit
    );
}

#[test]
fn corrupt_payloads_and_lying_counts_are_typed_errors() {
    let records = sample_records();
    for (codec, mut payload) in [
        (Compression::Gzip, gzip(&records)),
        (Compression::Snappy, xerial(&records)),
        (Compression::Lz4, lz4(&records)),
        (Compression::Zstd, zstd_fixture()),
    ] {
        payload.truncate(payload.len() / 2);
        let e = decompress(codec, &payload, DEFAULT_LIMIT).unwrap_err();
        assert!(
            matches!(e, DecompressError::Corrupt { codec: c, .. } if c == codec),
            "{codec:?}: {e:?}"
        );
    }
    // An LZ4 frame cut inside its content-size field.
    assert!(matches!(
        decompress(Compression::Lz4, &[0x04, 0x22, 0x4d, 0x18, 0x68, 0x40, 0, 0], 100),
        Err(DecompressError::Corrupt { .. })
    ));
    // A batch whose count does not match its (decompressed) records.
    let z = gzip(&records);
    for (count, kind) in [
        (49, DecodeErrorKind::TrailingBytes { count: 0 }),
        (51, DecodeErrorKind::UnexpectedEof { needed: 1 }),
        (
            i32::MAX,
            DecodeErrorKind::LengthExceedsInput {
                length: i32::MAX as i64,
            },
        ),
    ] {
        let batch = frame_batch(1, count, &z);
        let (b, _) = RecordBatch::parse(&batch).unwrap();
        let mut buf = Vec::new();
        let DecompressError::Records(e) = batch_records(&b, &mut buf, DEFAULT_LIMIT).unwrap_err() else {
            panic!()
        };
        match kind {
            DecodeErrorKind::TrailingBytes { .. } => {
                assert!(matches!(e.kind(), DecodeErrorKind::TrailingBytes { .. }), "{e}")
            }
            k => assert_eq!(e.kind(), k, "{e}"),
        }
    }
}

/// A legacy message with a valid CRC-32.
fn legacy(offset: i64, magic: u8, attributes: u8, key: Option<&[u8]>, value: Option<&[u8]>) -> Vec<u8> {
    let mut body = vec![magic, attributes];
    if magic == 1 {
        body.extend(1_600_000_000_000i64.to_be_bytes());
    }
    for b in [key, value] {
        match b {
            None => body.extend((-1i32).to_be_bytes()),
            Some(b) => {
                body.extend((b.len() as i32).to_be_bytes());
                body.extend(b);
            }
        }
    }
    let mut out = offset.to_be_bytes().to_vec();
    out.extend(((body.len() + 4) as i32).to_be_bytes());
    out.extend(crc32_ieee(&body).to_be_bytes());
    out.extend(body);
    out
}

#[test]
fn legacy_wrappers_gzip_snappy_lz4() {
    // Magic 1: inner offsets 0 and 1 (relative); the wrapper carries the last one's, 11.
    let mut inner = legacy(0, 1, 0, Some(b"a"), Some(b"first"));
    inner.extend(legacy(1, 1, 0, None, Some(b"second")));
    for (id, payload) in [(1u8, gzip(&inner)), (2, xerial(&inner)), (3, lz4(&inner))] {
        let w = legacy(11, 1, id, None, Some(&payload));
        let Some(Ok(Batch::Legacy(m))) = Batches::strict(&w).next() else {
            panic!()
        };
        let bytes = legacy_inner(&m, DEFAULT_LIMIT).unwrap().unwrap();
        assert_eq!(bytes, inner);
        let msgs: Vec<_> = Batches::strict(&bytes)
            .map(|x| match x.unwrap() {
                Batch::Legacy(x) => x,
                other => panic!("{other:?}"),
            })
            .collect();
        let offsets: Vec<i64> = msgs.iter().map(|x| m.inner_offset(x.offset, 1)).collect();
        assert_eq!(offsets, [10, 11]);
        assert_eq!(msgs[1].value, Some(&b"second"[..]));
    }
    // Not a wrapper: nothing to decompress.
    let plain = legacy(0, 0, 0, None, Some(b"x"));
    let Some(Ok(Batch::Legacy(m))) = Batches::strict(&plain).next() else {
        panic!()
    };
    assert_eq!(legacy_inner(&m, DEFAULT_LIMIT).unwrap(), None);
}

#[test]
fn magic_0_lz4_wrapper_with_kafkas_broken_header_checksum() {
    let inner = legacy(5, 0, 0, None, Some(b"old"));
    let mut frame = lz4(&inner);
    // Kafka 0.8-0.9 computed the frame descriptor checksum over the magic number too.
    let hc_at = 6; // magic (4), FLG, BD; no content size
    assert_eq!(frame[4] & 0x08, 0);
    frame[hc_at] = (twox_hash::XxHash32::oneshot(0, &frame[..hc_at]) >> 8) as u8;
    assert!(matches!(
        decompress(Compression::Lz4, &frame, DEFAULT_LIMIT),
        Err(DecompressError::Corrupt { .. })
    ));
    let w = legacy(5, 0, 3, None, Some(&frame));
    let Some(Ok(Batch::Legacy(m))) = Batches::strict(&w).next() else {
        panic!()
    };
    assert_eq!(
        legacy_inner(&m, DEFAULT_LIMIT).unwrap().unwrap(),
        inner,
        "repaired, as Kafka ignores it at magic 0"
    );
    // At magic 1 the checksum must be right.
    let w1 = legacy(5, 1, 3, None, Some(&frame));
    let Some(Ok(Batch::Legacy(m1))) = Batches::strict(&w1).next() else {
        panic!()
    };
    assert!(legacy_inner(&m1, DEFAULT_LIMIT).is_err());
}

// ---- allocation accounting (per thread, so that parallel tests do not disturb it) ----

struct Counting;
thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        if ARMED.with(|a| a.get()) {
            ALLOCATED.with(|n| n.set(n.get() + l.size()));
        }
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocated_by<R>(f: impl FnOnce() -> R) -> (R, usize) {
    ALLOCATED.with(|n| n.set(0));
    ARMED.with(|a| a.set(true));
    let r = f();
    ARMED.with(|a| a.set(false));
    (r, ALLOCATED.with(|n| n.get()))
}

#[test]
fn core_rejects_hostile_batches_without_allocating() {
    // Record count 2^31-1 in an empty batch; a batch length of 2^31-1; a record claiming 2^30
    // bytes; a header count of 2^30; a decompressed section claiming 2^31-1 records.
    let mut count = Vec::new();
    BatchBuilder::DEFAULT.encode(&mut count).unwrap();
    count[57..61].copy_from_slice(&i32::MAX.to_be_bytes());
    let crc = crc32c(&count[21..]);
    count[17..21].copy_from_slice(&crc.to_be_bytes());

    let mut length = count.clone();
    length[8..12].copy_from_slice(&i32::MAX.to_be_bytes());

    let rec = [NewRecord {
        value: Some(b"v"),
        ..NewRecord::DEFAULT
    }];
    let mut big_record = Vec::new();
    BatchBuilder {
        records: BatchRecords::Plain(&rec),
        ..BatchBuilder::DEFAULT
    }
    .encode(&mut big_record)
    .unwrap();
    let mut big_headers = big_record.clone();
    big_record.truncate(61);
    big_record.extend([0x80, 0x80, 0x80, 0x80, 0x08]); // length varint 2^30 (zig-zag)
    big_record.extend([0; 8]); // enough bytes that the record count itself is plausible
    let len = (big_record.len() - 12) as i32;
    big_record[8..12].copy_from_slice(&len.to_be_bytes());
    let crc = crc32c(&big_record[21..]);
    big_record[17..21].copy_from_slice(&crc.to_be_bytes());
    let n = big_headers.len();
    big_headers[n - 1] = 0xfe; // header count varint continues...
    big_headers.extend([0xff, 0xff, 0x07]);
    big_headers[61] += 6; // the record's length grows by the three added bytes (zig-zag)
    let len = (big_headers.len() - 12) as i32;
    big_headers[8..12].copy_from_slice(&len.to_be_bytes());
    let crc = crc32c(&big_headers[21..]);
    big_headers[17..21].copy_from_slice(&crc.to_be_bytes());

    for (name, input) in [
        ("count", &count),
        ("record length", &big_record),
        ("header count", &big_headers),
    ] {
        let (r, used) = allocated_by(|| Batches::new(input).next().map(|x| x.map(|_| ()).map_err(|e| e.kind())));
        let kind = r.unwrap().unwrap_err();
        assert!(
            matches!(kind, DecodeErrorKind::LengthExceedsInput { .. }),
            "{name}: {kind:?}"
        );
        assert_eq!(used, 0, "{name}: core allocated");
    }
    let (r, used) = allocated_by(|| RecordBatch::parse(&length).map(|_| ()).map_err(|e| e.kind()));
    assert_eq!(
        r,
        Err(DecodeErrorKind::LengthExceedsInput {
            length: i32::MAX as i64
        })
    );
    assert_eq!(used, 0);
    let (r, used) = allocated_by(|| Records::parse(&[0u8; 64], i32::MAX).map(|_| ()).map_err(|e| e.kind()));
    assert_eq!(
        r,
        Err(DecodeErrorKind::LengthExceedsInput {
            length: i32::MAX as i64
        })
    );
    assert_eq!(used, 0);

    // And walking a good batch allocates nothing either.
    let records = sample_records();
    let batch = frame_batch(0, 50, &records);
    let (n, used) = allocated_by(|| {
        let mut n = 0;
        for item in Batches::new(&batch) {
            if let Ok(Batch::V2(b)) = item {
                for r in b.records().unwrap() {
                    n += r.headers.iter().count() + usize::from(r.value.is_some());
                }
            }
        }
        n
    });
    assert_eq!((n, used), (25 * 2 + 49, 0));
}

/// Writes the uncompressed sample records to `target/sample-records.bin`, from which the zstd
/// fixture was made with `zstd -19 sample-records.bin -o core/tests/data/records/sample-records.zst`
/// (zstd 1.5; the frame has a content checksum). Run with `--ignored` to redo it.
#[test]
#[ignore]
fn write_sample_records_for_the_zstd_fixture() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/sample-records.bin");
    std::fs::write(path, sample_records()).unwrap();
    let mut f = std::fs::File::open(path).unwrap();
    let mut back = Vec::new();
    f.read_to_end(&mut back).unwrap();
    assert_eq!(back, sample_records());
}

/// The seeds of the `record_batches` fuzz target (`fuzz/corpus/record_batches/`), made here from
/// the same hand-framed batches as the tests above: a plain batch, one batch per codec, a
/// transactional batch and its control marker, a `__cluster_metadata` batch, legacy messages
/// and wrappers, and a Fetch tail that ends inside a batch. The test fails when the committed
/// seeds differ from these; `KAFKA_WIRE_WRITE_SEEDS=1 cargo test -p kafka-wire-ext --test
/// records` rewrites them.
#[test]
fn record_batch_fuzz_seeds_are_committed() {
    use kafka_wire::frame::encode_metadata_record;
    use kafka_wire::records::Attributes;
    use kafka_wire::MetadataRecord;

    let few: Vec<u8> = {
        let h = [NewHeader::new("h", Some(b"v")), NewHeader::new("null", None)];
        let recs = [
            NewRecord {
                key: Some(b"k0"),
                value: Some(b"hello"),
                headers: &h,
                ..NewRecord::DEFAULT
            },
            NewRecord {
                timestamp_delta: 7,
                offset_delta: 1,
                ..NewRecord::DEFAULT
            },
            NewRecord {
                timestamp_delta: 3,
                offset_delta: 2,
                key: Some(b""),
                value: Some(b"x"),
                ..NewRecord::DEFAULT
            },
        ];
        let mut out = Vec::new();
        encode_records(&recs, &mut out).unwrap();
        out
    };
    let build = |b: BatchBuilder<'_>| {
        let mut out = vec![0u8; b.encoded_len().unwrap()];
        b.encode_to_slice(&mut out).unwrap();
        out
    };
    let records = sample_records();
    let mut seeds: Vec<(&str, Vec<u8>)> = vec![
        ("v2-plain", frame_batch(0, 3, &few)),
        ("v2-gzip", frame_batch(1, 50, &gzip(&records))),
        ("v2-snappy-xerial", frame_batch(2, 50, &xerial(&records))),
        (
            "v2-snappy-raw",
            frame_batch(2, 50, &snap::raw::Encoder::new().compress_vec(&records).unwrap()),
        ),
        ("v2-lz4", frame_batch(3, 50, &lz4(&records))),
        ("v2-zstd", frame_batch(4, 50, &zstd_fixture())),
    ];
    let txn_value = [NewRecord {
        key: Some(b"a"),
        value: Some(b"v1"),
        ..NewRecord::DEFAULT
    }];
    let mut txn = build(BatchBuilder {
        base_offset: 19,
        attributes: Attributes::NONE.with_transactional(true),
        producer_id: 4000,
        producer_epoch: 2,
        base_sequence: 0,
        records: BatchRecords::Plain(&txn_value),
        ..BatchBuilder::DEFAULT
    });
    // COMMIT marker: key = version 0, type 1; value = version 0, coordinator epoch 5.
    let marker = [NewRecord {
        key: Some(&[0, 0, 0, 1]),
        value: Some(&[0, 0, 0, 0, 0, 5]),
        ..NewRecord::DEFAULT
    }];
    txn.extend(build(BatchBuilder {
        base_offset: 20,
        attributes: Attributes::NONE.with_transactional(true).with_control(true),
        producer_id: 4000,
        producer_epoch: 2,
        records: BatchRecords::Plain(&marker),
        ..BatchBuilder::DEFAULT
    }));
    seeds.push(("v2-transaction-and-commit", txn));
    let topic = kafka_wire::metadata::TopicRecord {
        name: "orders",
        topic_id: kafka_wire::Uuid::from_u128(7),
        ..Default::default()
    };
    let mut framed = [0u8; 64];
    let n = encode_metadata_record(&MetadataRecord::Topic(topic), 0, &mut framed).unwrap();
    let meta = [NewRecord {
        value: Some(&framed[..n]),
        ..NewRecord::DEFAULT
    }];
    seeds.push((
        "v2-cluster-metadata",
        build(BatchBuilder {
            records: BatchRecords::Plain(&meta),
            ..BatchBuilder::DEFAULT
        }),
    ));
    let mut tail = frame_batch(0, 3, &few);
    let second = frame_batch(0, 3, &few);
    tail.extend(&second[..second.len() / 2]);
    seeds.push(("v2-fetch-tail", tail));
    let mut legacy_set = legacy(0, 0, 0, None, Some(b"old"));
    legacy_set.extend(legacy(1, 1, 0, Some(b"k"), Some(b"newer")));
    seeds.push(("legacy-v0-v1", legacy_set));
    let inner = [
        legacy(0, 1, 0, Some(b"a"), Some(b"first")),
        legacy(1, 1, 0, None, Some(b"second")),
    ]
    .concat();
    seeds.push(("legacy-v1-gzip-wrapper", legacy(11, 1, 1, None, Some(&gzip(&inner)))));
    seeds.push(("legacy-v1-lz4-wrapper", legacy(11, 1, 3, None, Some(&lz4(&inner)))));

    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/record_batches");
    if std::env::var_os("KAFKA_WIRE_WRITE_SEEDS").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in &seeds {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    for (name, bytes) in &seeds {
        // Every seed reads without error, and passes the fuzz target's checks.
        assert!(Batches::new(bytes).all(|b| b.is_ok()), "{name}");
        kafka_wire_testkit::check_record_batches(bytes);
        let committed =
            std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("fuzz/corpus/record_batches/{name}: {e}"));
        assert_eq!(
            &committed, bytes,
            "fuzz/corpus/record_batches/{name} differs from what this test makes"
        );
    }
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        seeds.len(),
        "unexpected files in fuzz/corpus/record_batches"
    );
}
