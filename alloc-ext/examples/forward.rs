//! The zero-copy forwarding loop of `kwire proxy`, for hosts of your own (a gateway, a sidecar).
//!
//! ```text
//! cargo run -p kafka-wire-ext --example forward                               # on built-in frames
//! cargo run -p kafka-wire-ext --example forward -- 127.0.0.1:19092 127.0.0.1:9092   # a live proxy
//! ```
//!
//! Bytes are read into a `kafka_wire::conn::FrameCutter` over a fixed buffer and each whole
//! frame is written on from it; each is decoded in place (kafka-wire's views borrow the
//! buffer) to look at its API, correlation id and fields. The loop allocates nothing. [`kafka_wire_ext::proxy::Pump`] is this
//! loop with response pairing, address rewriting and an observer; `kwire proxy` runs two per
//! connection, over tokio's sockets.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};

use kafka_wire::conn::{Cut, FrameCutter};
use kafka_wire::frame::{encode_request_frame, parse_request_frame, Mode};
use kafka_wire::messages::{ApiVersionsRequest, MetadataRequest};
use kafka_wire::RequestBody;

/// Forwards requests from `from` to `to` until `from` ends, printing each request's API; returns
/// the number of frames.
fn forward_requests(from: &mut impl Read, to: &mut impl Write) -> io::Result<usize> {
    // Frames up to 1 MiB; a larger size prefix ends the connection.
    let mut buf = vec![0u8; 1 << 20];
    let mut cut = FrameCutter::new(&mut buf[..], 1 << 20);
    let mut frames = 0;
    loop {
        let n = from.read(cut.space())?;
        if n == 0 {
            return Ok(frames);
        }
        cut.filled(n);
        // Every complete frame: decode in place, then write from the same bytes.
        while let Cut::Frame(frame) = cut
            .next_frame()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?
        {
            match parse_request_frame(frame, Mode::Strict) {
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
}

/// Copies responses back without decoding (they need the request's API to decode: see
/// `kafka_wire::conn::Observer` and `kafka_wire_ext::proxy::Pairing`).
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
