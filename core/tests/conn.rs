//! The connection layer (`kafka_wire::conn`) on real brokers' bytes: the ApiVersions answers in
//! `tests/data/api-versions/` (see its README), and the requests `tests/broker/api_versions.py`
//! sent to get them.

#[cfg(feature = "alloc")]
use kafka_wire::conn::Growable;
use kafka_wire::conn::{Client, ClientError, Cut, CutError, Decoded, Direction, FrameCutter, Observer};
use kafka_wire::frame::Mode;
use kafka_wire::messages::{ApiVersionsRequest, MetadataRequest};
use kafka_wire::ApiKey;

fn answer(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/api-versions")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The ApiVersions v3 request frame that `tests/broker/api_versions.py` sent (correlation id 1,
/// client id and software name `kwire-capture`, software version `1`), byte for byte as that
/// script writes it.
fn capture_request_v3() -> Vec<u8> {
    let client = b"kwire-capture";
    let mut msg = Vec::new();
    msg.extend_from_slice(&18i16.to_be_bytes());
    msg.extend_from_slice(&3i16.to_be_bytes());
    msg.extend_from_slice(&1i32.to_be_bytes());
    msg.extend_from_slice(&(client.len() as i16).to_be_bytes());
    msg.extend_from_slice(client);
    msg.push(0); // header v2: no tagged fields
    msg.push(client.len() as u8 + 1);
    msg.extend_from_slice(client);
    msg.push(2);
    msg.push(b'1');
    msg.push(0);
    let mut frame = (msg.len() as i32).to_be_bytes().to_vec();
    frame.extend_from_slice(&msg);
    frame
}

const ANSWERS: [&str; 4] = [
    "4.4.0-broker-v3.bin",
    "3.9.1-broker-v0.bin",
    "3.9.1-broker-v5.bin",
    "4.4.0-controller-v3.bin",
];

#[test]
fn a_stream_of_real_answers_cut_at_every_chunk_size_gives_back_each_frame() {
    let frames: Vec<Vec<u8>> = ANSWERS.iter().map(|f| answer(f)).collect();
    let stream: Vec<u8> = frames.concat();
    for chunk in [1, 2, 3, 4, 5, 7, 64, 333, 1000, stream.len()] {
        let mut cut = FrameCutter::new([0u8; 1024], 1 << 20);
        let mut got: Vec<Vec<u8>> = Vec::new();
        let mut pushed = 0;
        while pushed < stream.len() {
            let end = (pushed + chunk).min(stream.len());
            let mut piece = &stream[pushed..end];
            while !piece.is_empty() {
                let n = cut.push(piece);
                piece = &piece[n..];
                while let Cut::Frame(f) = cut.next_frame().unwrap() {
                    got.push(f.to_vec());
                }
            }
            pushed = end;
        }
        assert_eq!(got, frames, "chunks of {chunk}");
        assert_eq!(cut.buffered(), 0);
        assert_eq!(cut.next_frame(), Ok(Cut::NeedMore(4)));
    }
}

#[test]
fn need_more_says_how_many_bytes_the_frame_still_needs() {
    let f = answer("4.4.0-broker-v3.bin");
    let mut cut = FrameCutter::new([0u8; 1024], 1 << 20);
    cut.push(&f[..2]);
    assert_eq!(cut.next_frame(), Ok(Cut::NeedMore(2)));
    cut.push(&f[2..10]);
    assert_eq!(cut.next_frame(), Ok(Cut::NeedMore(f.len() - 10)));
    cut.push(&f[10..]);
    assert_eq!(cut.next_frame(), Ok(Cut::Frame(&f[..])));
}

#[test]
fn a_size_prefix_above_the_maximum_is_refused_before_anything_is_kept() {
    // 100 MiB announced, nothing sent after the prefix.
    let prefix = (100i32 << 20).to_be_bytes();
    let mut fixed = FrameCutter::new([0u8; 1024], 128 << 20);
    fixed.push(&prefix);
    // A fixed buffer holds frames of at most its size less the prefix.
    assert_eq!(
        fixed.next_frame(),
        Err(CutError::TooLarge {
            size: 100 << 20,
            max: 1020
        })
    );

    let mut small_max = FrameCutter::new([0u8; 4096], 1 << 10);
    small_max.push(&prefix);
    assert_eq!(
        small_max.next_frame(),
        Err(CutError::TooLarge {
            size: 100 << 20,
            max: 1 << 10
        })
    );

    let mut negative = FrameCutter::new([0u8; 64], 60);
    negative.push(&(-2i32).to_be_bytes());
    assert_eq!(negative.next_frame(), Err(CutError::NegativeSize { size: -2 }));
}

#[cfg(feature = "alloc")]
#[test]
fn a_growable_buffer_commits_memory_as_bytes_arrive_and_gives_it_back() {
    let mut cut = FrameCutter::new(Growable::new(4096), 128 << 20);
    // A prefix announcing 100 MiB, then nothing: the buffer stays at its resting size.
    cut.push(&(100i32 << 20).to_be_bytes());
    assert_eq!(cut.next_frame(), Ok(Cut::NeedMore(100 << 20)));
    let _ = cut.space();
    assert_eq!(cut.storage().capacity(), 4096);

    // A large frame (the real answers repeated inside one 300,004-byte frame) grows it as its
    // bytes arrive, never past what arrived plus one step.
    let real = answer("4.4.0-broker-v3.bin");
    let mut cut = FrameCutter::new(Growable::new(4096), 128 << 20);
    let body: Vec<u8> = real.iter().cycle().take(300_000).copied().collect();
    let mut big = (body.len() as i32).to_be_bytes().to_vec();
    big.extend_from_slice(&body);
    let mut sent = 0;
    let mut peak = 0;
    for piece in big.chunks(1500) {
        let mut piece = piece;
        while !piece.is_empty() {
            let n = cut.push(piece);
            piece = &piece[n..];
            sent += n;
            peak = peak.max(cut.storage().capacity());
            assert!(
                cut.storage().capacity() <= (sent + kafka_wire::conn::GROW_STEP).max(4096),
                "{} bytes held after {sent} arrived",
                cut.storage().capacity()
            );
        }
    }
    assert_eq!(cut.next_frame(), Ok(Cut::Frame(&big[..])));
    assert!(peak >= big.len());
    // The next frame, a small one, finds the buffer back at its resting size.
    cut.push(&real);
    assert_eq!(cut.storage().capacity(), 4096);
    assert_eq!(cut.next_frame(), Ok(Cut::Frame(&real[..])));
}

#[test]
fn a_client_encodes_what_a_real_peer_sent_and_pairs_the_real_answer() {
    let mut client: Client<4> = Client::starting_at(1);
    let req = ApiVersionsRequest {
        client_software_name: "kwire-capture",
        client_software_version: "1",
        ..ApiVersionsRequest::DEFAULT
    };
    let mut out = [0u8; 128];
    let sent = client.send(&req, 3, Some("kwire-capture"), &mut out).unwrap();
    assert_eq!(sent.correlation_id, 1);
    assert_eq!(&out[..sent.len], &capture_request_v3()[..]);
    assert_eq!(client.in_flight(), 1);

    // The 4.4.0 broker's answer to exactly those bytes.
    let frame = answer("4.4.0-broker-v3.bin");
    let resp = client
        .receive_as::<ApiVersionsRequest<'_>>(&frame, Mode::Strict)
        .unwrap();
    assert_eq!(resp.header.correlation_id, 1);
    assert_eq!(resp.version, 3);
    assert!(resp
        .body
        .api_keys
        .iter()
        .any(|k| k.api_key == 0 && k.min_version == 0 && k.max_version == 13));
    assert_eq!(client.in_flight(), 0);

    // The same answer again pairs with nothing.
    assert_eq!(
        client
            .receive_as::<ApiVersionsRequest<'_>>(&frame, Mode::Strict)
            .unwrap_err(),
        ClientError::UnknownCorrelationId { correlation_id: 1 }
    );
}

#[test]
fn a_client_reads_a_3_9_brokers_answer_to_a_version_it_does_not_speak() {
    let mut client: Client<1> = Client::starting_at(1);
    let mut out = [0u8; 128];
    client
        .send(&ApiVersionsRequest::DEFAULT, 5, Some("kwire-capture"), &mut out)
        .unwrap();
    let frame = answer("3.9.1-broker-v5.bin");
    let r = client.receive(&frame, Mode::Strict).unwrap();
    assert_eq!(
        (r.in_flight.api_key, r.in_flight.version, r.frame.version),
        (ApiKey::ApiVersions, 5, 0)
    );
}

#[test]
fn the_in_flight_table_is_bounded_and_checks_the_answers_api() {
    let mut client: Client<2> = Client::starting_at(1);
    let mut out = [0u8; 128];
    client.send(&ApiVersionsRequest::DEFAULT, 3, None, &mut out).unwrap();
    client.send(&MetadataRequest::DEFAULT, 12, None, &mut out).unwrap();
    assert_eq!(
        client.send(&MetadataRequest::DEFAULT, 12, None, &mut out).unwrap_err(),
        ClientError::Full { capacity: 2 }
    );
    // Correlation id 1 is the ApiVersions request: read as a Metadata answer, it is refused.
    let frame = answer("4.4.0-broker-v3.bin");
    assert!(matches!(
        client.receive_as::<MetadataRequest<'_>>(&frame, Mode::Strict),
        Err(ClientError::WrongApi {
            asked: ApiKey::Metadata,
            ..
        })
    ));
    // A frame too short for a correlation id.
    assert_eq!(
        client.receive(&[0, 0, 0, 1, 0], Mode::Strict).unwrap_err(),
        ClientError::ShortFrame { len: 5 }
    );
    // A truncated answer is a decode error naming the request; the request is then answered.
    let cut_short = {
        let mut f = frame[..frame.len() - 3].to_vec();
        let size = f.len() as i32 - 4;
        f[..4].copy_from_slice(&size.to_be_bytes());
        f
    };
    match client.receive(&cut_short, Mode::Strict) {
        Err(ClientError::Decode { in_flight, error }) => {
            assert_eq!((in_flight.correlation_id, in_flight.api_key), (1, ApiKey::ApiVersions));
            assert_eq!(error.message(), "ApiVersionsResponse");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(client.in_flight(), 1);
}

#[test]
fn an_observer_pairs_the_real_conversation_and_parses_each_frame_once() {
    let mut obs: Observer<4> = Observer::new();
    let req = capture_request_v3();
    let ev = obs.request(&req);
    assert_eq!(ev.direction, Direction::Request);
    assert_eq!((ev.correlation_id, ev.api), (Some(1), Some((ApiKey::ApiVersions, 3))));
    assert!(ev.strict() && ev.remembered);
    assert_eq!(obs.waiting(), 1);

    let resp = answer("4.4.0-broker-v3.bin");
    let ev = obs.response(&resp);
    assert_eq!(ev.api, Some((ApiKey::ApiVersions, 3)));
    assert!(ev.strict());
    assert!(matches!(ev.decoded, Decoded::Response(r) if r.body_bytes.len() == resp.len() - 8));
    assert_eq!(obs.waiting(), 0);

    // A response to nothing seen: unpaired, the bytes kept.
    let ev = obs.response(&resp);
    assert_eq!(ev.decoded, Decoded::Unpaired);
    assert_eq!(ev.frame, &resp[..]);

    // Trailing bytes inside a request frame: decoded leniently, not strict.
    let mut padded = req.clone();
    padded.push(0);
    let size = padded.len() as i32 - 4;
    padded[..4].copy_from_slice(&size.to_be_bytes());
    let ev = obs.request(&padded);
    assert!(matches!(ev.decoded, Decoded::Request(r) if r.trailing.len() == 1));
    assert!(!ev.strict());

    // A request the broker does not answer is dropped when a later one's answer arrives.
    let mut second = req.clone();
    second[8..12].copy_from_slice(&2i32.to_be_bytes());
    obs.request(&second);
    let mut answer2 = resp.clone();
    answer2[4..8].copy_from_slice(&2i32.to_be_bytes());
    let ev = obs.response(&answer2);
    assert_eq!((ev.skipped, ev.correlation_id), (1, Some(2)));
    assert!(ev.strict());
}

#[test]
fn an_observer_that_is_full_keeps_decoding_and_says_so() {
    let mut obs: Observer<1> = Observer::new();
    let req = capture_request_v3();
    assert!(obs.request(&req).remembered);
    assert!(obs.is_full());
    let ev = obs.request(&req);
    assert!(!ev.remembered);
    assert!(matches!(ev.decoded, Decoded::Request(_)));
    // A frame that does not decode is delivered with its error and its bytes.
    let junk = [0, 0, 0, 4, 0x7f, 0x7f, 0, 0];
    let ev = obs.request(&junk);
    assert!(matches!(ev.decoded, Decoded::Failed(_)));
    assert_eq!(ev.frame, &junk[..]);
}

#[test]
fn a_cutter_hands_back_what_it_holds_after_a_refused_prefix() {
    let mut cut = FrameCutter::new([0u8; 64], 60);
    let stream = [0, 0, 1, 0, 0, 0, 0, 1, 9];
    assert_eq!(cut.push(&stream), stream.len());
    assert!(matches!(cut.next_frame(), Err(CutError::TooLarge { size: 256, .. })));
    assert_eq!(cut.pending(), &stream[..]);
    // A reader that looks for the next frame itself skips the refused prefix.
    cut.discard(4);
    assert_eq!(cut.next_frame(), Ok(Cut::Frame(&stream[4..])));
    assert_eq!(cut.next_frame(), Ok(Cut::NeedMore(4)));
    cut.discard(100);
    assert_eq!(cut.pending(), &[] as &[u8]);
}

#[test]
fn an_observer_waits_for_no_answer_to_acks_0_and_pairs_the_answer_to_a_request_that_does_not_decode() {
    use kafka_wire::frame::{encode_request_frame, peek_request_head};
    use kafka_wire::messages::ProduceRequest;
    use kafka_wire::RequestBody;

    let mut obs: Observer<4> = Observer::new();
    let mut buf = [0u8; 256];
    // Kafka does not answer a Produce with acks = 0; it answers acks = 1.
    for (acks, waits) in [(0i16, false), (1, true)] {
        let body = RequestBody::Produce(ProduceRequest {
            acks,
            ..ProduceRequest::DEFAULT
        });
        let n = encode_request_frame(7, Some("c"), &body, 9, &mut buf).unwrap();
        let ev = obs.request(&buf[..n]);
        assert!(ev.strict());
        assert_eq!(ev.remembered, waits, "acks {acks}");
    }
    assert_eq!(obs.waiting(), 1);
    // The real ApiVersions v3 request cut two bytes short: it does not decode, but its header
    // names the API, so the broker's real answer is still paired and read.
    let mut req = capture_request_v3();
    req.truncate(req.len() - 2);
    let size = req.len() as i32 - 4;
    req[..4].copy_from_slice(&size.to_be_bytes());
    assert_eq!(peek_request_head(&req), Some((18, 3, 1)));
    let ev = obs.request(&req);
    assert!(matches!(ev.decoded, Decoded::Failed(_)));
    assert_eq!(ev.api, Some((ApiKey::ApiVersions, 3)));
    assert!(ev.remembered);
    assert_eq!(
        obs.pending(1).map(|p| (p.api_key, p.version)),
        Some((ApiKey::ApiVersions, 3))
    );
    let resp = answer("4.4.0-broker-v3.bin");
    let ev = obs.response(&resp);
    assert!(ev.strict() && ev.remembered);
    assert_eq!(ev.skipped, 1, "the Produce with acks = 1 before it went unanswered");
    assert_eq!(obs.waiting(), 0);
}
