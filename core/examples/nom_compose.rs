//! kafka-wire inside a nom grammar: a made-up capture format of records, each a direction
//! byte then a Kafka request frame, parsed with nom's combinators around kafka-wire's
//! parsers (`kafka_wire::nom`); then a made-up spool format, a count of record batches and
//! the batches, parsed with `length_count` around `kafka_wire::nom::record_batch`.
//!
//!     cargo run -p kafka-wire --example nom_compose

use kafka_wire::frame::{encode_request_frame, Mode, RequestFrame};
use kafka_wire::messages::{ApiVersionsRequest, MetadataRequest};
use kafka_wire::records::{BatchBuilder, BatchRecords, NewRecord, RecordBatch};
use kafka_wire::{DecodeError, RequestBody};
use nom::multi::{length_count, many0};
use nom::number::complete::{be_u16, u8 as direction};
use nom::{IResult, Parser};

/// One record of the capture: a direction byte and a request frame.
fn record(input: &[u8]) -> IResult<&[u8], (u8, RequestFrame<'_>), DecodeError> {
    (direction, kafka_wire::nom::request_frame(Mode::Strict)).parse(input)
}

/// A spool: a big-endian `u16` count, then that many magic 2 record batches.
fn spool(input: &[u8]) -> IResult<&[u8], Vec<RecordBatch<'_>>, DecodeError> {
    length_count(be_u16, kafka_wire::nom::record_batch).parse(input)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut capture = vec![0u8; 256];
    let mut at = 0;
    for (i, body) in [
        RequestBody::ApiVersions(ApiVersionsRequest {
            client_software_name: "demo",
            ..ApiVersionsRequest::DEFAULT
        }),
        RequestBody::Metadata(MetadataRequest::DEFAULT),
    ]
    .iter()
    .enumerate()
    {
        capture[at] = 1; // client to broker
        at += 1;
        let version = if i == 0 { 3 } else { 12 };
        at += encode_request_frame(i as i32, Some("nom"), body, version, &mut capture[at..])?;
    }
    capture.truncate(at);

    let (rest, records) = many0(record).parse(&capture).map_err(|e| format!("{e:?}"))?;
    for (dir, frame) in &records {
        println!(
            "direction {dir}: {:?} v{} correlation id {}",
            frame.api_key, frame.api_version, frame.header.correlation_id
        );
    }
    assert!(rest.is_empty());

    let mut bytes = 2u16.to_be_bytes().to_vec();
    for base_offset in [0, 100] {
        let recs = [NewRecord {
            value: Some(b"hello"),
            ..NewRecord::DEFAULT
        }];
        let b = BatchBuilder {
            base_offset,
            records: BatchRecords::Plain(&recs),
            ..BatchBuilder::DEFAULT
        };
        let mut buf = vec![0u8; b.encoded_len()?];
        b.encode_to_slice(&mut buf)?;
        bytes.extend(buf);
    }
    let (rest, batches) = spool(&bytes).map_err(|e| format!("{e:?}"))?;
    for b in &batches {
        println!("batch at offset {}: {} record(s)", b.base_offset, b.record_count);
    }
    assert!(rest.is_empty());
    Ok(())
}
