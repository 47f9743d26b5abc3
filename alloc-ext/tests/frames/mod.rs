//! Whole request and response frames (size prefix included), encoded by kafka-wire.

use kafka_wire::frame::{encode_request_frame, encode_response_frame};
use kafka_wire::{RequestBody, ResponseBody};

/// A request frame with correlation id `corr` and client id `proxy-test`.
pub fn request(corr: i32, body: RequestBody<'_>, version: i16) -> Vec<u8> {
    let mut buf = vec![0u8; 4096];
    let n = encode_request_frame(corr, Some("proxy-test"), &body, version, &mut buf).unwrap();
    buf.truncate(n);
    buf
}

/// A response frame with correlation id `corr`.
pub fn response(corr: i32, body: ResponseBody<'_>, version: i16) -> Vec<u8> {
    let mut buf = vec![0u8; 4096];
    let n = encode_response_frame(corr, &body, version, &mut buf).unwrap();
    buf.truncate(n);
    buf
}
