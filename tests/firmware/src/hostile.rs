//! Hostile request frames: each must fail with the expected typed error at the expected
//! offset, without reading past the input, allocating or panicking, however many elements a
//! count claims.
//!
//! With the `full-dispatch` feature the frames go through
//! `kafka_wire::frame::parse_request_frame(bytes, Mode::Strict)`, which links the parser of every
//! request of every API: ~300 KB of flash, more than the 256 KiB of the M0 and M3 boards, so
//! that build runs on the M4F board (mps2-an386, 4 MiB of flash) only. Without it (the default,
//! on every board) the firmware does what a device that speaks a few APIs would do: split the
//! frame with `kafka_wire::frame::split_frame`, read the header with `RequestHeader`, and parse
//! the body with the one message type the API key names; offsets are then relative to the bytes
//! handed to each parser, and are shifted back to frame offsets here.

use core::hint::black_box;

#[cfg(feature = "full-dispatch")]
use kafka_wire::frame::{parse_request_frame, Mode};
use kafka_wire::{DecodeError, DecodeErrorKind};

use crate::report::Checks;

struct Case {
    name: &'static str,
    frame: &'static [u8],
    kind: DecodeErrorKind,
    offset: usize,
    message: &'static str,
    field: &'static str,
}

const CASES: [Case; 4] = [
    Case {
        // Non-flexible (v4): the topics count is an int32 claiming 2^31 - 1 elements.
        name: "MetadataRequest v4, topics count 2^31-1",
        frame: &[
            0, 0, 0, 16, // size
            0, 3, 0, 4, 0, 0, 0, 7, 0, 2, b'k',
            b'w', // header v1: key 3, version 4, correlation id, client id "kw"
            0x7f, 0xff, 0xff, 0xff, // topics: 2147483647 elements, and nothing after
        ],
        kind: DecodeErrorKind::LengthExceedsInput { length: 0x7fff_ffff },
        offset: 16,
        message: "MetadataRequest",
        field: "topics",
    },
    Case {
        // Flexible (v3): the compact count is the varint 0x7fffffff, i.e. 2^31 - 2 elements
        // (Java reads count + 1 as an int32, so no larger claim is possible).
        name: "AlterPartitionRequest v3, topics count 2^31-2",
        frame: &[
            0, 0, 0, 30, // size
            0, 56, 0, 3, 0, 0, 0, 8, 0, 2, b'k', b'w', 0, // header v2 (no tagged fields)
            0, 0, 0, 3, // broker_id
            0, 0, 0, 1, 0, 0, 0, 0x42, // broker_epoch
            0xff, 0xff, 0xff, 0xff, 0x07, // topics: uvarint 0x7fffffff
        ],
        kind: DecodeErrorKind::LengthExceedsInput { length: 0x7fff_fffe },
        offset: 29,
        message: "AlterPartitionRequest",
        field: "topics",
    },
    Case {
        name: "size prefix 256, 8 bytes given",
        frame: &[0, 0, 1, 0, 0, 18, 0, 3, 0, 0, 0, 9],
        kind: DecodeErrorKind::UnexpectedEof { needed: 248 },
        offset: 12,
        message: "frame",
        field: "payload",
    },
    Case {
        name: "API key 32767",
        frame: &[0, 0, 0, 8, 0x7f, 0xff, 0, 0, 0, 0, 0, 10],
        kind: DecodeErrorKind::UnknownApiKey { key: 32767 },
        offset: 4,
        message: "RequestHeader",
        field: "request_api_key",
    },
];

/// What parsing a frame gave.
enum Outcome {
    Parsed,
    /// A typed error, and the frame offset of the bytes that were handed to the parser.
    Error(DecodeError, usize),
    /// An API key that `kafka_wire::ApiKey` does not know (narrow path only: the frame layer's
    /// own typed error needs `parse_request_frame`).
    #[allow(dead_code)]
    UnknownKey(i16),
    /// An API this firmware does not parse (narrow path only).
    #[allow(dead_code)]
    NotParsedHere,
}

#[cfg(feature = "full-dispatch")]
fn parse(frame: &[u8]) -> Outcome {
    match parse_request_frame(frame, Mode::Strict) {
        Ok(_) => Outcome::Parsed,
        Err(e) => Outcome::Error(e, 0),
    }
}

#[cfg(not(feature = "full-dispatch"))]
fn parse(frame: &[u8]) -> Outcome {
    use kafka_wire::messages::alter_partition_request::AlterPartitionRequest;
    use kafka_wire::messages::metadata_request::MetadataRequest;
    use kafka_wire::messages::RequestHeader;
    use kafka_wire::{ApiKey, Message};

    let payload = match kafka_wire::frame::split_frame(frame) {
        Ok((payload, _rest)) => payload,
        Err(e) => return Outcome::Error(e, 0),
    };
    let Some(&[k0, k1, v0, v1]) = payload.first_chunk::<4>() else {
        return Outcome::NotParsedHere;
    };
    let (key, version) = (i16::from_be_bytes([k0, k1]), i16::from_be_bytes([v0, v1]));
    let Some(api) = ApiKey::from_i16(key) else {
        return Outcome::UnknownKey(key);
    };
    let (_header, body) = match RequestHeader::parse_lenient(payload, api.request_header_version(version)) {
        Ok(x) => x,
        Err(e) => return Outcome::Error(e, 4),
    };
    let base = 4 + (payload.len() - body.len());
    let parsed = match api {
        ApiKey::Metadata => MetadataRequest::parse(body, version).map(drop),
        ApiKey::AlterPartition => AlterPartitionRequest::parse(body, version).map(drop),
        _ => return Outcome::NotParsedHere,
    };
    match parsed {
        Ok(()) => Outcome::Parsed,
        Err(e) => Outcome::Error(e, base),
    }
}

pub fn run(c: &mut Checks) {
    for case in CASES.iter() {
        // black_box: the parser must not be specialised for bytes the compiler can see.
        match parse(black_box(case.frame)) {
            Outcome::Error(e, base) => {
                c.eq("hostile: error kind", e.kind(), case.kind);
                c.eq("hostile: error offset in the frame", e.offset() + base, case.offset);
                c.eq("hostile: error message", e.message(), case.message);
                c.eq("hostile: error field", e.field(), case.field);
                say!(
                    "hostile frame ({}): {} (frame byte {})",
                    case.name,
                    e,
                    e.offset() + base
                );
            }
            Outcome::UnknownKey(key) => {
                let ok = c.eq(
                    "hostile: unknown API key",
                    DecodeErrorKind::UnknownApiKey { key: i32::from(key) },
                    case.kind,
                );
                if ok {
                    say!("hostile frame ({}): not a kafka_wire::ApiKey", case.name);
                }
            }
            Outcome::Parsed | Outcome::NotParsedHere => {
                say!("FAILED: hostile frame not rejected: {}", case.name);
                c.check(false, "hostile: must be rejected");
            }
        }
    }
    #[cfg(not(feature = "parse-path"))]
    {
        // The typed key of the second frame, printed with `{}`: its name through hprintln,
        // its defmt::Format impl with defmt.
        if let Some(key) = kafka_wire::ApiKey::from_i16(black_box(56)) {
            #[cfg(not(feature = "defmt"))]
            say!("api key 56: {}", key.name());
            #[cfg(feature = "defmt")]
            say!("api key 56: {}", key);
        }
    }
}
