//! The zero-copy forwarding loop of `kwire proxy`, for hosts of your own (a gateway, a sidecar).
//!
//! ```text
//! cargo run -p kafka-wire-ext --example forward                               # on built-in frames
//! cargo run -p kafka-wire-ext --example forward -- 127.0.0.1:19092 127.0.0.1:9092   # a live proxy
//! ```
//!
//! Frames are read into a [`FrameBuffer`] and written on from it; each is decoded in place
//! (kafka-wire's views borrow the buffer) to look at its API, correlation id and fields. Once
//! the buffer has its size, the loop allocates nothing. [`kafka_wire_ext::proxy::Pump`] is this
//! loop with response pairing, address rewriting and an observer; `kwire proxy` runs two per
//! connection.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};

use kafka_wire::frame::{encode_request_frame, parse_request, Mode};
use kafka_wire::messages::{ApiVersionsRequest, MetadataRequest};
use kafka_wire::RequestBody;
use kafka_wire_ext::proxy::{FrameBuffer, DEFAULT_MAX_FRAME};

/// Forwards requests from `from` to `to` until `from` ends, printing each request's API; returns
/// the number of frames.
fn forward_requests(from: &mut impl Read, to: &mut impl Write) -> io::Result<usize> {
    let mut buf = FrameBuffer::new(64 * 1024, DEFAULT_MAX_FRAME);
    let mut frames = 0;
    while buf.read_from(from)? > 0 {
        // Every complete frame: decode in place, then write from the same bytes.
        while let Some(range) = buf
            .next_frame()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?
        {
            let frame = &buf.bytes()[range];
            match parse_request(&frame[4..], Mode::Strict) {
                Ok(f) => {
                    let topics = match f.body {
                        RequestBody::Metadata(m) => m.topics.map_or(0, |t| t.len()),
                        _ => 0,
                    };
                    println!(
                        "{} v{} correlation id {} from {:?} ({} bytes, {topics} topic(s) named)",
                        f.api_key.name(),
                        f.api_version,
                        f.header.correlation_id,
                        f.header.client_id,
                        frame.len()
                    );
                }
                Err(e) => println!("a frame that does not decode ({e}); forwarded as it is"),
            }
            to.write_all(frame)?;
            frames += 1;
        }
    }
    Ok(frames)
}

/// Copies responses back without decoding (they need the request's API to decode: see
/// `kafka_wire_ext::proxy::Inflight`).
fn forward_responses(mut from: TcpStream, mut to: TcpStream) {
    let _ = io::copy(&mut from, &mut to);
    let _ = to.shutdown(std::net::Shutdown::Both);
}

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [listen, upstream] = &args[..] {
        let l = TcpListener::bind(listen)?;
        eprintln!(
            "forwarding {listen} to {upstream} (brokers' addresses are not rewritten here: kwire proxy does that)"
        );
        for client in l.incoming() {
            let client = client?;
            let server = TcpStream::connect(upstream)?;
            let (c2, s2) = (client.try_clone()?, server.try_clone()?);
            std::thread::spawn(move || forward_responses(s2, c2));
            std::thread::spawn(move || {
                let (mut c, mut s) = (client, server);
                let _ = forward_requests(&mut c, &mut s);
                let _ = s.shutdown(std::net::Shutdown::Both);
            });
        }
        return Ok(());
    }
    // No addresses: three requests, delivered in 5-byte pieces, forwarded into a Vec.
    let mut input = Vec::new();
    let mut frame = [0u8; 256];
    for (corr, body, v) in [
        (
            1,
            RequestBody::ApiVersions(ApiVersionsRequest {
                client_software_name: "forward",
                ..ApiVersionsRequest::DEFAULT
            }),
            3,
        ),
        (2, RequestBody::Metadata(MetadataRequest::DEFAULT), 12),
        (3, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 0),
    ] {
        let n = encode_request_frame(corr, Some("example"), &body, v, &mut frame)
            .map_err(|e| io::Error::other(e.to_string()))?;
        input.extend_from_slice(&frame[..n]);
    }
    struct Trickle<'a>(&'a [u8]);
    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.0.len().min(5).min(out.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let mut output = Vec::new();
    let frames = forward_requests(&mut Trickle(&input), &mut output)?;
    assert_eq!(output, input, "forwarded byte for byte");
    println!("{frames} frames, {} bytes, forwarded unchanged", output.len());
    Ok(())
}
