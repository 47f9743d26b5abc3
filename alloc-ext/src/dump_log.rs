//! `kwire dump-log`: every batch and record of a Kafka log segment (or of any record bytes, such
//! as a Fetch response's `records`) as JSON lines, like Kafka's `kafka-dump-log.sh
//! --print-data-log`.
//!
//! Each line is one JSON object with one key that says what it is:
//!
//! - `{"batch": {...}}`: a magic 2 batch's header (`baseOffset`, `lastOffset`, `count`,
//!   `compression`, `isTransactional`, `isControl`, `crc`, `crcValid`, …);
//! - `{"record": {...}}`: one of its records (`offset`, `timestamp`, `key` and `value` in base64,
//!   `headers`). With `--metadata` (a `__cluster_metadata` segment), the value is decoded as a
//!   framed KRaft metadata record and printed as `"payload"`, in the shape
//!   `kwire decode --metadata-record` prints: `{"type": "TOPIC_RECORD", "version": 0, "data": {...}}`;
//! - `{"control": {...}}`: a record of a control batch: `type` (`COMMIT`, `ABORT`,
//!   `LEADER_CHANGE`, `SNAPSHOT_HEADER`, …), `keyVersion`, `version`, and `data`, the value as
//!   Kafka's JSON;
//! - `{"message": {...}}`: a magic 0 or 1 message; the messages inside a compressed wrapper follow
//!   it, each with `wrapperOffset`;
//! - `{"truncated": {...}}`: the partial batch the bytes end with.
//!
//! Compressed batches are decompressed (up to a size limit). The first error stops the dump: the
//! lines before it are printed, and the error is returned.

use std::io::{Read, Write};

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use kafka_wire::frame::FramedMetadataRecord;
use kafka_wire::records::{Batch, Batches, ControlValue, LegacyMessage, Record, RecordBatch, Truncated};
use kafka_wire::MetadataRecordType;
use serde_json::{json, Value};

use crate::compression::{self, DEFAULT_LIMIT};
use crate::json::{entry_of, wire_to_json, JsonError};

/// What to print and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DumpOptions {
    /// Decode record values as framed KRaft metadata records.
    pub metadata: bool,
    /// Largest decompressed size of one batch.
    pub limit: usize,
    /// Stop at a batch whose CRC does not match (otherwise it is printed with `crcValid: false`).
    pub verify_crc: bool,
}

impl Default for DumpOptions {
    fn default() -> Self {
        DumpOptions {
            metadata: false,
            limit: DEFAULT_LIMIT,
            verify_crc: true,
        }
    }
}

/// How many of each thing a dump printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DumpSummary {
    /// Magic 2 batches.
    pub batches: usize,
    /// Records of data batches (metadata records with `--metadata`).
    pub records: usize,
    /// Control records.
    pub control_records: usize,
    /// Legacy messages, inner ones included.
    pub messages: usize,
    /// True when the bytes ended inside a batch.
    pub truncated: bool,
}

/// `PartitionChange` → `PARTITION_CHANGE_RECORD`, as Kafka's metadata tools (and
/// `kwire decode --metadata-record`) name record types.
pub fn record_type_name(t: MetadataRecordType) -> String {
    let mut s = String::new();
    for (i, ch) in t.name().chars().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            s.push('_');
        }
        s.push(ch.to_ascii_uppercase());
    }
    s + "_RECORD"
}

/// A framed metadata record as `{"type": …, "version": …, "data": …}`, the shape
/// `kwire decode --metadata-record` prints.
pub fn metadata_record_json(r: &FramedMetadataRecord<'_>) -> Result<Value, JsonError> {
    let data = wire_to_json(entry_of(r.record.schema())?, r.record_bytes, r.version)?;
    Ok(json!({ "type": record_type_name(r.record_type), "version": r.version, "data": data }))
}

fn b64(b: Option<&[u8]>) -> Value {
    match b {
        Some(b) => Value::String(STANDARD.encode(b)),
        None => Value::Null,
    }
}

fn headers_json(r: &Record<'_>) -> Value {
    Value::Array(
        r.headers
            .iter()
            .map(|h| match h.key_str() {
                Some(k) => json!({ "key": k, "value": b64(h.value) }),
                None => json!({ "keyBase64": STANDARD.encode(h.key), "value": b64(h.value) }),
            })
            .collect(),
    )
}

fn batch_json(b: &RecordBatch<'_>) -> Value {
    json!({ "batch": {
        "position": b.position(),
        "baseOffset": b.base_offset,
        "lastOffset": b.last_offset(),
        "count": b.record_count,
        "batchLength": b.batch_length,
        "sizeInBytes": b.size_in_bytes(),
        "partitionLeaderEpoch": b.partition_leader_epoch,
        "magic": b.magic,
        "crc": b.crc,
        "crcValid": b.is_crc_valid(),
        "attributes": b.attributes.0,
        "compression": b.compression().name(),
        "timestampType": b.timestamp_type().name(),
        "isTransactional": b.is_transactional(),
        "isControl": b.is_control(),
        "deleteHorizonMs": b.delete_horizon_ms(),
        "lastOffsetDelta": b.last_offset_delta,
        "baseTimestamp": b.base_timestamp,
        "maxTimestamp": b.max_timestamp,
        "producerId": b.producer_id,
        "producerEpoch": b.producer_epoch,
        "baseSequence": b.base_sequence,
        "lastSequence": b.last_sequence(),
    }})
}

fn message_json(m: &LegacyMessage<'_>, offset: i64, wrapper: Option<i64>) -> Value {
    let mut o = json!({
        "position": m.position(),
        "offset": offset,
        "magic": m.magic,
        "crc": m.crc,
        "crcValid": m.computed_crc() == m.crc,
        "attributes": m.attributes,
        "compression": m.compression().name(),
        "timestampType": m.timestamp_type().map(|t| t.name()),
        "timestamp": m.timestamp,
        "sizeInBytes": m.bytes().len(),
        "key": b64(m.key),
    });
    if m.compressed_inner().is_none() {
        o["value"] = b64(m.value);
    }
    if let Some(w) = wrapper {
        o["wrapperOffset"] = json!(w);
    }
    json!({ "message": o })
}

fn truncated_json(t: &Truncated<'_>) -> Value {
    json!({ "truncated": {
        "position": t.position,
        "bytes": t.bytes.len(),
        "baseOffset": t.base_offset(),
        "batchLength": t.batch_length(),
    }})
}

fn line(out: &mut dyn Write, v: &Value) -> Result<(), String> {
    writeln!(out, "{v}").map_err(|e| format!("writing output: {e}"))
}

/// Dumps `bytes` (a log segment, or any record bytes) as JSON lines into `out`.
pub fn dump(bytes: &[u8], opts: &DumpOptions, out: &mut dyn Write) -> Result<DumpSummary, String> {
    let mut sum = DumpSummary::default();
    for item in Batches::new(bytes).verify_crc(opts.verify_crc) {
        match item.map_err(|e| batch_error(bytes, &e))? {
            Batch::V2(b) => dump_batch(&b, opts, out, &mut sum)?,
            Batch::Legacy(m) => dump_message(&m, opts, out, &mut sum)?,
            Batch::Truncated(t) => {
                line(out, &truncated_json(&t))?;
                sum.truncated = true;
            }
        }
    }
    Ok(sum)
}

/// An error found while reading batches; a CRC mismatch names the batch's base offset too.
fn batch_error(bytes: &[u8], e: &kafka_wire::DecodeError) -> String {
    let base = bytes
        .get(e.offset()..e.offset().saturating_add(8))
        .and_then(|b| b.try_into().ok())
        .map(i64::from_be_bytes);
    match base {
        Some(base) if e.field() == "crc" => format!("batch at offset {base}: {e} (CRC mismatch)"),
        _ => e.to_string(),
    }
}

fn dump_batch(
    b: &RecordBatch<'_>,
    opts: &DumpOptions,
    out: &mut dyn Write,
    sum: &mut DumpSummary,
) -> Result<(), String> {
    line(out, &batch_json(b))?;
    sum.batches += 1;
    let at = |e: &dyn std::fmt::Display| format!("batch at offset {} (byte {}): {e}", b.base_offset, b.position());
    let mut buf = Vec::new();
    let records = compression::batch_records(b, &mut buf, opts.limit).map_err(|e| at(&e))?;
    if b.is_control() {
        for (r, c) in records.control().map_err(|e| at(&e))? {
            let data = match (c.value.schema(), c.value) {
                (_, ControlValue::Unknown) | (None, _) => b64(Some(c.value_bytes)),
                (Some(schema), _) => entry_of(schema)
                    .and_then(|e| wire_to_json(e, c.value_bytes, c.version))
                    .map_err(|e| at(&e))?,
            };
            let v = json!({ "control": {
                "offset": b.offset_of(&r),
                "timestamp": b.timestamp_of(&r),
                "type": c.record_type.name(),
                "typeId": c.record_type.id(),
                "keyVersion": c.key_version,
                "version": c.version,
                "data": data,
            }});
            line(out, &v)?;
            sum.control_records += 1;
        }
        return Ok(());
    }
    if opts.metadata {
        for (r, m) in records.metadata().map_err(|e| at(&e))? {
            let payload = metadata_record_json(&m).map_err(|e| at(&e))?;
            let mut v = record_fields(b, &r);
            v["payload"] = payload;
            line(out, &json!({ "record": v }))?;
            sum.records += 1;
        }
        return Ok(());
    }
    for r in records.iter() {
        let mut v = record_fields(b, &r);
        v["value"] = b64(r.value);
        line(out, &json!({ "record": v }))?;
        sum.records += 1;
    }
    Ok(())
}

fn record_fields(b: &RecordBatch<'_>, r: &Record<'_>) -> Value {
    json!({
        "offset": b.offset_of(r),
        "timestamp": b.timestamp_of(r),
        "offsetDelta": r.offset_delta,
        "timestampDelta": r.timestamp_delta,
        "attributes": r.attributes,
        "keySize": r.key.map_or(-1, |k| k.len() as i64),
        "valueSize": r.value.map_or(-1, |v| v.len() as i64),
        "key": b64(r.key),
        "headers": headers_json(r),
    })
}

fn dump_message(
    m: &LegacyMessage<'_>,
    opts: &DumpOptions,
    out: &mut dyn Write,
    sum: &mut DumpSummary,
) -> Result<(), String> {
    line(out, &message_json(m, m.offset, None))?;
    sum.messages += 1;
    let at = |e: &dyn std::fmt::Display| format!("message at offset {} (byte {}): {e}", m.offset, m.position());
    let Some(inner) = compression::legacy_inner(m, opts.limit).map_err(|e| at(&e))? else {
        return Ok(());
    };
    let mut msgs = Vec::new();
    for item in Batches::strict(&inner).verify_crc(opts.verify_crc) {
        match item.map_err(|e| at(&e))? {
            Batch::Legacy(x) => msgs.push(x),
            _ => return Err(at(&"the inner message set holds something other than legacy messages")),
        }
    }
    let last = msgs.last().map_or(0, |x| x.offset);
    for x in &msgs {
        if x.compressed_inner().is_some() {
            return Err(at(&"a compressed message inside a compressed message"));
        }
        line(out, &message_json(x, m.inner_offset(x.offset, last), Some(m.offset)))?;
        sum.messages += 1;
    }
    Ok(())
}

/// Reads `file` (or standard input for `-`) and dumps it to standard output; what `kwire
/// dump-log` runs.
pub fn run(file: &str, opts: &DumpOptions, out: &mut dyn Write) -> Result<(), String> {
    let mut bytes = Vec::new();
    if file == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .map_err(|e| format!("reading standard input: {e}"))?;
    } else {
        bytes = std::fs::read(file).map_err(|e| format!("reading {file}: {e}"))?;
    }
    let r = dump(&bytes, opts, out);
    out.flush().map_err(|e| format!("writing output: {e}"))?;
    r.map(|_| ())
}
