//! Behaviour of the codec on good and bad input: typed errors with offsets and field paths,
//! strict and lenient modes, tagged fields, encode checks, sinks, transcoding and framing.

use kafka_wire::frame::{self, Mode};
use kafka_wire::messages::alter_partition_request::{AlterPartitionRequest, BrokerState, PartitionData, TopicData};
use kafka_wire::messages::api_versions_request::ApiVersionsRequest;
use kafka_wire::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kafka_wire::messages::init_producer_id_request::InitProducerIdRequest;
use kafka_wire::messages::metadata_request::{MetadataRequest, MetadataRequestTopic};
use kafka_wire::metadata::partition_change_record::PartitionChangeRecord;
use kafka_wire::metadata::topic_record::TopicRecord;
use kafka_wire::{
    ApiKey, Array, DecodeErrorKind, EncodeErrorKind, Message, MetadataRecord, MetadataRecordType, RawTaggedField,
    RequestBody, ResponseBody, TaggedFields, Uuid,
};

fn encode<'a, M: Message<'a>>(m: &M, v: i16) -> Vec<u8> {
    let n = m.encoded_len(v).expect("encoded_len");
    let mut buf = vec![0u8; n];
    let w = m.encode_to_slice(&mut buf, v).expect("encode");
    assert_eq!(w, n, "encoded_len must equal the bytes written");
    buf
}

fn alter_partition<'a>(
    isr: &'a [BrokerState<'a>],
    parts: &'a mut Vec<PartitionData<'a>>,
    topics: &'a mut Vec<TopicData<'a>>,
) -> AlterPartitionRequest<'a> {
    parts.push(PartitionData {
        partition_index: 3,
        leader_epoch: 9,
        new_isr_with_epochs: Array::from_slice(isr),
        partition_epoch: 11,
        ..PartitionData::DEFAULT
    });
    parts.push(PartitionData {
        partition_index: 4,
        leader_epoch: 1,
        new_isr_with_epochs: Array::from_slice(isr),
        ..PartitionData::DEFAULT
    });
    topics.push(TopicData {
        topic_id: Uuid::from_u128(0x1234),
        partitions: Array::from_slice(parts),
        ..TopicData::DEFAULT
    });
    AlterPartitionRequest {
        broker_id: 7,
        broker_epoch: 42,
        topics: Array::from_slice(topics),
        ..AlterPartitionRequest::DEFAULT
    }
}

#[test]
fn view_reads_every_field_and_iterates() {
    let isr = [
        BrokerState {
            broker_id: 1,
            broker_epoch: 10,
            ..BrokerState::DEFAULT
        },
        BrokerState {
            broker_id: 2,
            broker_epoch: 20,
            ..BrokerState::DEFAULT
        },
    ];
    let (mut p, mut t) = (Vec::new(), Vec::new());
    let req = alter_partition(&isr, &mut p, &mut t);
    let bytes = encode(&req, 3);
    let view = AlterPartitionRequest::parse(&bytes, 3).unwrap();
    assert_eq!(view, req);
    assert_eq!(view.broker_epoch, 42);
    let topics = view.topics.iter();
    assert_eq!(topics.len(), 1);
    let topic = view.topics.iter().next().unwrap();
    assert_eq!(topic.topic_id, Uuid::from_u128(0x1234));
    let parts: Vec<_> = topic.partitions.iter().collect();
    assert_eq!(parts.len(), 2);
    assert_eq!(parts[0].partition_epoch, 11);
    let epochs: Vec<i64> = parts[1].new_isr_with_epochs.iter().map(|b| b.broker_epoch).collect();
    assert_eq!(epochs, [10, 20]);
    assert!(
        view.topics.wire_bytes().is_some(),
        "a parsed array is a view over the input"
    );
}

#[test]
fn hostile_counts_fail_at_once_with_typed_errors() {
    // A 4-byte MetadataRequest v0 body that claims 2^31-1 topics (classic int32 count).
    let e = MetadataRequest::parse(&[0x7f, 0xff, 0xff, 0xff], 0).unwrap_err();
    assert_eq!(
        e.kind(),
        DecodeErrorKind::LengthExceedsInput {
            length: i32::MAX as i64
        }
    );
    assert_eq!(e.offset(), 0);
    assert_eq!(e.field(), "topics");
    // AlterPartitionRequest (flexible from v0) with a compact count of 2^31 - 2.
    let mut b = Vec::new();
    b.extend_from_slice(&7i32.to_be_bytes());
    b.extend_from_slice(&1i64.to_be_bytes());
    b.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x07]); // uvarint 0x7fffffff
    let e = AlterPartitionRequest::parse(&b, 2).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::LengthExceedsInput { .. }), "{e}");
    assert_eq!(e.offset(), 12);
    // A 2 GiB string length in a classic header.
    let mut b = Vec::new();
    b.extend_from_slice(&18i16.to_be_bytes());
    b.extend_from_slice(&3i16.to_be_bytes());
    b.extend_from_slice(&1i32.to_be_bytes());
    b.extend_from_slice(&0x7fffi16.to_be_bytes()); // client id length 32767, no bytes
    let e = kafka_wire::messages::RequestHeader::parse(&b, 1).unwrap_err();
    assert!(matches!(e.kind(), DecodeErrorKind::UnexpectedEof { .. }), "{e}");
    assert_eq!(e.field(), "client_id");
}

#[test]
fn string_limits_and_nulls_follow_kafka() {
    // Compact string of length 32768 (uvarint 32769): too long, before any bytes are read.
    let mut b = vec![0x81, 0x80, 0x02];
    b.resize(40000, b'a');
    let mut h = Vec::new();
    h.extend_from_slice(&18i16.to_be_bytes());
    h.extend_from_slice(&3i16.to_be_bytes());
    h.extend_from_slice(&1i32.to_be_bytes());
    h.extend_from_slice(&0i16.to_be_bytes()); // client id ""
    h.push(0); // header tags
               // ApiVersionsRequest v3 body: client_software_name compact string.
    let e = ApiVersionsRequest::parse(&b, 3).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::StringTooLong { length: 32768 });
    // A null (compact 0) in a non-nullable string.
    let e = ApiVersionsRequest::parse(&[0x00, 0x01, 0x00], 3).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::NullNotAllowed);
    assert_eq!(e.offset(), 0);
    // Any negative classic length means null where allowed: MetadataRequest v1 topics = -2.
    let mut b = (-2i32).to_be_bytes().to_vec();
    b.push(1);
    let m = MetadataRequest::parse(&b, 4).unwrap();
    assert_eq!(m.topics, None);
    // ... and is an error where not: v0.
    let e = MetadataRequest::parse(&(-1i32).to_be_bytes(), 0).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::NullNotAllowed);
    // Invalid UTF-8.
    let e = ApiVersionsRequest::parse(&[0x02, 0xff, 0x01, 0x00], 3).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::InvalidUtf8);
}

#[test]
fn varints_are_at_most_five_bytes() {
    // A compact array count with the continuation bit set in its fifth byte.
    let e = ApiVersionsResponse::parse(&[0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], 3).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::InvalidVarint);
    assert_eq!(e.offset(), 2);
}

#[test]
fn every_truncation_is_a_typed_error() {
    let isr = [BrokerState {
        broker_id: 1,
        broker_epoch: 10,
        ..BrokerState::DEFAULT
    }];
    let (mut p, mut t) = (Vec::new(), Vec::new());
    let req = alter_partition(&isr, &mut p, &mut t);
    for v in 0..=3 {
        let req = if v < 3 {
            AlterPartitionRequest {
                topics: Array::EMPTY,
                ..req
            }
        } else {
            req
        };
        let bytes = encode(&req, v);
        for cut in 0..bytes.len() {
            let e = AlterPartitionRequest::parse(&bytes[..cut], v).unwrap_err();
            assert!(
                matches!(
                    e.kind(),
                    DecodeErrorKind::UnexpectedEof { .. } | DecodeErrorKind::LengthExceedsInput { .. }
                ),
                "v{v} cut {cut}: {e}"
            );
            assert!(e.offset() <= cut, "v{v} cut {cut}: offset {} beyond input", e.offset());
        }
    }
}

#[test]
fn strict_rejects_and_lenient_reports_trailing_bytes() {
    let m = MetadataRequest {
        topics: None,
        ..MetadataRequest::DEFAULT
    };
    let mut bytes = encode(&m, 13);
    bytes.extend_from_slice(&[1, 2, 3]);
    let e = MetadataRequest::parse(&bytes, 13).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::TrailingBytes { count: 3 });
    assert_eq!(e.offset(), bytes.len() - 3);
    let (view, rest) = MetadataRequest::parse_lenient(&bytes, 13).unwrap();
    assert_eq!(view, m);
    assert_eq!(rest, [1, 2, 3]);
}

#[test]
fn errors_display_for_people() {
    let e = MetadataRequest::parse(&[0x7f, 0xff, 0xff, 0xff], 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "length 2147483647 exceeds the remaining input at byte 0 in MetadataRequest v0 topics"
    );
    let mut b = Vec::new();
    b.extend_from_slice(&7i32.to_be_bytes()); // broker_id
    b.extend_from_slice(&1i64.to_be_bytes()); // broker_epoch
    b.push(2); // one topic (compact)
    b.push(4); // topic_name: compact length 3
    b.extend_from_slice(b"abc");
    b.push(2); // one partition, then only two bytes of it
    b.extend_from_slice(&[0, 0]);
    let e = AlterPartitionRequest::parse(&b, 0).unwrap_err();
    assert_eq!(e.field(), "topics[].partitions[].partition_index");
    assert_eq!(e.offset(), 18);
    assert!(
        e.to_string()
            .contains("at byte 18 in AlterPartitionRequest v0 topics[].partitions[].partition_index"),
        "{e}"
    );
    let req = AlterPartitionRequest::DEFAULT;
    let mut small = [0u8; 3];
    let e = req.encode_to_slice(&mut small, 3).unwrap_err();
    assert_eq!(
        e.to_string(),
        "buffer too short, 14 byte(s) needed in AlterPartitionRequest v3"
    );
}

#[test]
fn unknown_tagged_fields_round_trip_in_order() {
    let extra = [
        RawTaggedField { tag: 9, data: &[1, 2] },
        RawTaggedField { tag: 70, data: &[] },
    ];
    let isr = [1, 2, 3];
    let elr = [2];
    let rec = PartitionChangeRecord {
        partition_id: 1,
        topic_id: Uuid::from_u128(5),
        isr: Some(Array::from_slice(&isr)),
        leader: 2,
        eligible_leader_replicas: Some(Array::from_slice(&elr)),
        unknown_tagged_fields: TaggedFields::from_slice(&extra),
        ..PartitionChangeRecord::DEFAULT
    };
    let bytes = encode(&rec, 2);
    let view = PartitionChangeRecord::parse(&bytes, 2).unwrap();
    assert_eq!(view, rec);
    let got: Vec<RawTaggedField> = view.unknown_tagged_fields.iter().collect();
    assert_eq!(got, extra);
    // Tag 9 sits after tag 8 (directories, absent) and before nothing known; 70 is last.
    assert_eq!(encode(&view, 2), bytes);
    // The same unknown fields cannot be written at a version without tagged fields.
    let ap = AlterPartitionRequest {
        unknown_tagged_fields: TaggedFields::from_slice(&extra),
        ..AlterPartitionRequest::DEFAULT
    };
    // AlterPartitionRequest is flexible from v0, so this works; MetadataRequest v0 is not.
    encode(&ap, 0);
    let md = MetadataRequest {
        unknown_tagged_fields: TaggedFields::from_slice(&extra),
        ..MetadataRequest::DEFAULT
    };
    assert_eq!(
        md.encoded_len(0).unwrap_err().kind(),
        EncodeErrorKind::TaggedFieldsNotInVersion
    );
}

#[test]
fn known_tag_at_a_version_without_it_is_an_error() {
    // PartitionChangeRecord v1: ELR (tag 6) exists only from v2.
    let mut b = Vec::new();
    b.extend_from_slice(&1i32.to_be_bytes());
    b.extend_from_slice(&[0u8; 16]);
    b.extend_from_slice(&[1, 6, 5, 2, 0, 0, 0, 7]); // one tag: 6, size 5, compact array [7]
    let e = PartitionChangeRecord::parse(&b, 1).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::TagNotInVersion { tag: 6 });
    let v2 = PartitionChangeRecord::parse(&b, 2).unwrap();
    assert_eq!(v2.eligible_leader_replicas.unwrap().iter().collect::<Vec<_>>(), [7]);
    // A known tag whose declared size does not match its value.
    b[22] = 6;
    b.push(0);
    let e = PartitionChangeRecord::parse(&b, 2).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::TaggedFieldSize { tag: 6, size: 6 });
}

#[test]
fn encode_checks_versions_and_nulls() {
    let isr = [BrokerState {
        broker_id: 1,
        broker_epoch: 10,
        ..BrokerState::DEFAULT
    }];
    let (mut p, mut t) = (Vec::new(), Vec::new());
    let req = alter_partition(&isr, &mut p, &mut t);
    // NewIsrWithEpochs does not exist at v2 and is not ignorable.
    let e = req.encoded_len(2).unwrap_err();
    assert_eq!(e.kind(), EncodeErrorKind::FieldNotInVersion);
    assert_eq!(e.field(), "topics[].partitions[].new_isr_with_epochs");
    // Out-of-range versions.
    assert_eq!(
        req.encoded_len(4).unwrap_err().kind(),
        EncodeErrorKind::UnsupportedVersion { version: 4 }
    );
    assert_eq!(
        AlterPartitionRequest::parse(&[], -1).unwrap_err().kind(),
        DecodeErrorKind::UnsupportedVersion { version: -1 }
    );
    // Null where the version does not allow it: MetadataRequest topics are nullable from v1.
    let m = MetadataRequest {
        topics: None,
        ..MetadataRequest::DEFAULT
    };
    let e = m.encoded_len(0).unwrap_err();
    assert_eq!(e.kind(), EncodeErrorKind::NullNotAllowed);
    assert_eq!(e.field(), "topics");
    assert!(m.encoded_len(1).is_ok());
    // Strings over 32767 bytes.
    let long = "x".repeat(40_000);
    let topics = [MetadataRequestTopic {
        name: Some(&long),
        ..MetadataRequestTopic::DEFAULT
    }];
    let m = MetadataRequest {
        topics: Some(Array::from_slice(&topics)),
        ..MetadataRequest::DEFAULT
    };
    assert_eq!(
        m.encoded_len(12).unwrap_err().kind(),
        EncodeErrorKind::TooLong { length: 40_000 }
    );
}

#[test]
fn views_transcode_to_other_versions() {
    // AlterPartitionRequest v3 view, re-encoded at v3 and v2 (after dropping the v3-only field).
    let isr = [BrokerState {
        broker_id: 1,
        broker_epoch: 10,
        ..BrokerState::DEFAULT
    }];
    let (mut p, mut t) = (Vec::new(), Vec::new());
    let req = alter_partition(&isr, &mut p, &mut t);
    let bytes = encode(&req, 3);
    let view = AlterPartitionRequest::parse(&bytes, 3).unwrap();
    assert_eq!(encode(&view, 3), bytes);
    // MetadataRequest parsed at v4 (classic) re-encoded at v12 (flexible) and back.
    let topics = [MetadataRequestTopic {
        name: Some("orders"),
        ..MetadataRequestTopic::DEFAULT
    }];
    let m = MetadataRequest {
        topics: Some(Array::from_slice(&topics)),
        allow_auto_topic_creation: true,
        ..MetadataRequest::DEFAULT
    };
    let v4 = encode(&m, 4);
    let view = MetadataRequest::parse(&v4, 4).unwrap();
    let v12 = encode(&view, 12);
    assert_ne!(v4, v12);
    let back = MetadataRequest::parse(&v12, 12).unwrap();
    assert_eq!(encode(&back, 4), v4);
    let out = &mut [0u8; 64];
    let n = kafka_wire::transcode::<MetadataRequest>(&v4, 4, out, 12).unwrap();
    assert_eq!(&out[..n], &v12[..]);
}

#[test]
fn sinks() {
    let m = MetadataRequest {
        topics: None,
        allow_auto_topic_creation: true,
        ..MetadataRequest::DEFAULT
    };
    let expect = encode(&m, 12);
    let mut hv: heapless::Vec<u8, 64> = heapless::Vec::new();
    assert_eq!(m.encode(&mut hv, 12).unwrap(), expect.len());
    assert_eq!(&hv[..], &expect[..]);
    let mut tiny: heapless::Vec<u8, 2> = heapless::Vec::new();
    assert!(matches!(
        m.encode(&mut tiny, 12).unwrap_err().kind(),
        EncodeErrorKind::BufferTooShort { .. }
    ));
    // A slice sink advances, so two messages go back to back.
    let mut buf = [0u8; 32];
    let mut s: &mut [u8] = &mut buf;
    m.encode(&mut s, 12).unwrap();
    m.encode(&mut s, 12).unwrap();
    let left = s.len();
    assert_eq!(left, 32 - 2 * expect.len());
    assert_eq!(&buf[..expect.len()], &expect[..]);
    assert_eq!(&buf[expect.len()..2 * expect.len()], &expect[..]);
}

#[test]
fn request_frames_parse_with_the_right_header_version() {
    let topics = [MetadataRequestTopic {
        name: Some("t"),
        ..MetadataRequestTopic::DEFAULT
    }];
    let body = RequestBody::Metadata(MetadataRequest {
        topics: Some(Array::from_slice(&topics)),
        ..MetadataRequest::DEFAULT
    });
    for v in [0i16, 8, 9, 13] {
        let mut out = [0u8; 128];
        let n = frame::encode_request_frame(77, Some("rdkafka"), &body, v, &mut out).unwrap();
        let f = frame::parse_request_frame(&out[..n], Mode::Strict).unwrap();
        assert_eq!(f.api_key, ApiKey::Metadata);
        assert_eq!(f.header_version, if v >= 9 { 2 } else { 1 });
        assert_eq!(f.header.correlation_id, 77);
        assert_eq!(f.header.client_id, Some("rdkafka"));
        let RequestBody::Metadata(m) = f.body else {
            panic!("wrong body")
        };
        assert_eq!(m.topics.unwrap().iter().next().unwrap().name, Some("t"));
    }
    // ControlledShutdown v0 uses request header v0 (no client id).
    assert_eq!(ApiKey::ControlledShutdown.request_header_version(0), 0);
    assert_eq!(ApiKey::ControlledShutdown.request_header_version(1), 1);
    // ApiVersions responses always use response header v0.
    assert_eq!(ApiKey::ApiVersions.response_header_version(3), 0);
    assert_eq!(ApiKey::Metadata.response_header_version(9), 1);
}

/// A sink that hands back at most `give` bytes whatever it is asked for (a faulty `Sink`).
struct ShortSink {
    buf: [u8; 128],
    give: usize,
}

impl kafka_wire::Sink for ShortSink {
    fn reserve(&mut self, len: usize) -> Option<&mut [u8]> {
        let n = len.min(self.give).min(self.buf.len());
        self.buf.get_mut(..n)
    }
}

#[test]
fn a_sink_that_gives_too_few_bytes_is_an_error_not_a_panic() {
    let topics = [MetadataRequestTopic {
        name: Some("t"),
        ..MetadataRequestTopic::DEFAULT
    }];
    let body = RequestBody::Metadata(MetadataRequest {
        topics: Some(Array::from_slice(&topics)),
        ..MetadataRequest::DEFAULT
    });
    let mut whole = [0u8; 128];
    let n = frame::encode_request_frame(7, Some("c"), &body, 12, &mut whole).unwrap();
    for give in 0..n {
        let mut sink = ShortSink { buf: [0; 128], give };
        let e = frame::encode_request_frame_into(7, Some("c"), &body, 12, &mut sink).unwrap_err();
        assert!(
            matches!(e.kind(), EncodeErrorKind::BufferTooShort { .. }),
            "{give} of {n} bytes: {e:?}"
        );
    }
    let mut sink = ShortSink { buf: [0; 128], give: n };
    assert_eq!(
        frame::encode_request_frame_into(7, Some("c"), &body, 12, &mut sink).unwrap(),
        n
    );
    assert_eq!(&sink.buf[..n], &whole[..n]);
}

/// A frame encoded into a slice of every length short of it: the size needed is the whole
/// frame's, for requests and responses alike; at its length, the same bytes as through a sink.
#[test]
fn a_frame_into_too_short_a_slice_gives_the_size_needed() {
    let topics = [MetadataRequestTopic {
        name: Some("t"),
        ..MetadataRequestTopic::DEFAULT
    }];
    let body = RequestBody::Metadata(MetadataRequest {
        topics: Some(Array::from_slice(&topics)),
        ..MetadataRequest::DEFAULT
    });
    let keys = [ApiVersion {
        api_key: 3,
        max_version: 13,
        ..ApiVersion::DEFAULT
    }];
    let response = ResponseBody::ApiVersions(ApiVersionsResponse {
        api_keys: Array::from_slice(&keys),
        ..ApiVersionsResponse::DEFAULT
    });
    for (name, version) in [
        ("request", 12),
        ("request, header v1", 8),
        ("response", 3),
        ("response, header v0", 2),
    ] {
        let encode = |out: &mut [u8]| {
            if name.starts_with("request") {
                frame::encode_request_frame(7, Some("client"), &body, version, out)
            } else {
                frame::encode_response_frame(7, &response, version, out)
            }
        };
        let mut whole = [0u8; 128];
        let n = encode(&mut whole).unwrap();
        let mut v: heapless::Vec<u8, 128> = heapless::Vec::new();
        let m = if name.starts_with("request") {
            frame::encode_request_frame_into(7, Some("client"), &body, version, &mut v)
        } else {
            frame::encode_response_frame_into(7, &response, version, &mut v)
        };
        assert_eq!(m, Ok(n), "{name}");
        assert_eq!(&v[..], &whole[..n], "{name}");
        assert_eq!(
            i32::from_be_bytes(whole[..4].try_into().unwrap()) as usize,
            n - 4,
            "{name}"
        );
        for give in 0..n {
            let mut short = [0u8; 128];
            let e = encode(&mut short[..give]).unwrap_err();
            assert_eq!(
                e.kind(),
                EncodeErrorKind::BufferTooShort { needed: n },
                "{name}: {give} of {n} bytes"
            );
        }
    }
    // An error other than a short buffer comes first, as through a sink: a field the version
    // lacks (InitProducerIdRequest's producer id before v3).
    let req = RequestBody::InitProducerId(InitProducerIdRequest {
        producer_id: 4000,
        ..InitProducerIdRequest::DEFAULT
    });
    let e = frame::encode_request_frame(1, None, &req, 2, &mut [0u8; 2]).unwrap_err();
    let mut v: heapless::Vec<u8, 2> = heapless::Vec::new();
    assert_eq!(Err(e), frame::encode_request_frame_into(1, None, &req, 2, &mut v));
    assert!(!matches!(e.kind(), EncodeErrorKind::BufferTooShort { .. }), "{e:?}");
}

#[test]
fn librdkafka_metadata_v13_with_three_extra_bytes() {
    // librdkafka's admin client sends 3 bytes after a Metadata v13 request body.
    let body = RequestBody::Metadata(MetadataRequest {
        topics: None,
        ..MetadataRequest::DEFAULT
    });
    let mut out = [0u8; 128];
    let n = frame::encode_request_frame(1, Some("rdkafka"), &body, 13, &mut out).unwrap();
    let mut f = out[..n].to_vec();
    f.extend_from_slice(&[0, 0, 0]);
    let size = (f.len() - 4) as i32;
    f[..4].copy_from_slice(&size.to_be_bytes());
    let e = frame::parse_request_frame(&f, Mode::Strict).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::TrailingBytes { count: 3 });
    assert_eq!(e.offset(), n);
    let ok = frame::parse_request_frame(&f, Mode::Lenient).unwrap();
    assert_eq!(ok.trailing, [0, 0, 0]);
}

#[test]
fn frame_errors() {
    // Unknown API key.
    let mut f = vec![0, 0, 0, 8];
    f.extend_from_slice(&9999i16.to_be_bytes());
    f.extend_from_slice(&0i16.to_be_bytes());
    f.extend_from_slice(&0i32.to_be_bytes());
    let e = frame::parse_request_frame(&f, Mode::Strict).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::UnknownApiKey { key: 9999 });
    assert_eq!(e.offset(), 4);
    // Unsupported version.
    f[6..8].copy_from_slice(&99i16.to_be_bytes());
    f[4..6].copy_from_slice(&3i16.to_be_bytes());
    let e = frame::parse_request_frame(&f, Mode::Strict).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::UnsupportedVersion { version: 99 });
    // A frame that promises more than was given.
    let e = frame::parse_request_frame(&[0, 0, 1, 0, 1, 2], Mode::Strict).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::UnexpectedEof { needed: 254 });
    // Negative size.
    let e = frame::parse_request_frame(&[0xff, 0xff, 0xff, 0xff], Mode::Strict).unwrap_err();
    assert_eq!(e.kind(), DecodeErrorKind::InvalidFrame { value: -1 });
}

#[test]
fn response_frames() {
    let keys = [ApiVersion {
        api_key: 0,
        min_version: 3,
        max_version: 13,
        ..ApiVersion::DEFAULT
    }];
    let body = ResponseBody::ApiVersions(ApiVersionsResponse {
        api_keys: Array::from_slice(&keys),
        ..ApiVersionsResponse::DEFAULT
    });
    let mut out = [0u8; 128];
    let n = frame::encode_response_frame(5, &body, 3, &mut out).unwrap();
    let f = frame::parse_response_frame(&out[..n], ApiKey::ApiVersions, 3, Mode::Strict).unwrap();
    assert_eq!(f.header_version, 0);
    assert_eq!(f.header.correlation_id, 5);
    assert_eq!(f.body, body);
}

#[test]
fn metadata_record_framing() {
    let rec = MetadataRecord::Topic(TopicRecord {
        name: "orders",
        topic_id: Uuid::from_u128(9),
        ..TopicRecord::DEFAULT
    });
    let mut out = [0u8; 64];
    let n = frame::encode_metadata_record(&rec, 0, &mut out).unwrap();
    assert_eq!(
        &out[..3],
        &[1, 2, 0],
        "frame version 1, type 2 (TopicRecord), version 0"
    );
    let f = frame::parse_metadata_record(&out[..n]).unwrap();
    assert_eq!(f.record_type, MetadataRecordType::Topic);
    assert_eq!(f.record, rec);
    // Trailing bytes are rejected.
    let mut t = out[..n].to_vec();
    t.push(0);
    assert_eq!(
        frame::parse_metadata_record(&t).unwrap_err().kind(),
        DecodeErrorKind::TrailingBytes { count: 1 }
    );
    // Frame version 0 and unknown types are rejected.
    let mut z = out[..n].to_vec();
    z[0] = 0;
    assert_eq!(
        frame::parse_metadata_record(&z).unwrap_err().kind(),
        DecodeErrorKind::InvalidFrame { value: 0 }
    );
    let mut u = out[..n].to_vec();
    u[1] = 0x7f;
    assert_eq!(
        frame::parse_metadata_record(&u).unwrap_err().kind(),
        DecodeErrorKind::UnknownApiKey { key: 127 }
    );
    // Record types list their versions.
    let info = MetadataRecordType::PartitionChange.info();
    assert_eq!((info.min_version, info.max_version, info.flexible_min), (0, 2, Some(0)));
}

#[test]
fn coordinator_records() {
    use kafka_wire::coordinator::offset_commit_key::OffsetCommitKey;
    use kafka_wire::coordinator::offset_commit_value::OffsetCommitValue;
    let key = OffsetCommitKey {
        group: "g",
        topic: "t",
        partition: 3,
        ..OffsetCommitKey::DEFAULT
    };
    let mut kb = 1i16.to_be_bytes().to_vec();
    kb.extend(encode(&key, 0));
    let val = OffsetCommitValue {
        offset: 100,
        metadata: "m",
        commit_timestamp: 5,
        ..OffsetCommitValue::DEFAULT
    };
    let mut vb = 3i16.to_be_bytes().to_vec();
    vb.extend(encode(&val, 3));
    let r = frame::parse_group_coordinator_record(&kb, Some(&vb)).unwrap();
    assert_eq!(r.record_type, kafka_wire::api::GroupCoordinatorRecordType::OffsetCommit);
    assert_eq!(r.key, kafka_wire::api::GroupCoordinatorKey::OffsetCommit(key));
    assert_eq!(
        r.value,
        Some((3, kafka_wire::api::GroupCoordinatorValue::OffsetCommit(val)))
    );
    let tomb = frame::parse_group_coordinator_record(&kb, None).unwrap();
    assert_eq!(tomb.value, None);
}

#[test]
fn api_key_table() {
    assert_eq!(ApiKey::from_i16(56), Some(ApiKey::AlterPartition));
    assert_eq!(ApiKey::AlterPartition.name(), "AlterPartition");
    let info = ApiKey::AlterPartition.request_info();
    assert_eq!((info.min_version, info.max_version, info.flexible_min), (0, 3, Some(0)));
    // Versions only Kafka 3.9.1 defines are included: Produce v0-2, LeaderAndIsr.
    assert_eq!(ApiKey::Produce.request_info().min_version, 0);
    assert!(ApiKey::from_i16(4).is_some(), "LeaderAndIsr (removed in Kafka 4.0)");
    // The KIP-1279 drafts carry provisional keys.
    assert!(ApiKey::DescribeMirrors.request_info().provisional);
    assert!(ApiKey::ALL.len() > 90);
    assert!(ApiKey::from_i16(-1).is_none());
}

#[test]
fn produce_request_built_entirely_on_the_stack() {
    use kafka_wire::messages::produce_request::{PartitionProduceData, ProduceRequest, TopicProduceData};
    // Everything below lives on the stack: no allocation, borrowed records.
    let batch = [0xAAu8; 61];
    let parts = [PartitionProduceData {
        index: 0,
        records: Some(&batch),
        ..PartitionProduceData::DEFAULT
    }];
    let topics = [TopicProduceData {
        name: "sensors",
        partition_data: Array::from_slice(&parts),
        ..TopicProduceData::DEFAULT
    }];
    let req = ProduceRequest {
        acks: -1,
        timeout_ms: 30_000,
        topic_data: Array::from_slice(&topics),
        ..ProduceRequest::DEFAULT
    };
    let mut buf = [0u8; 256];
    for v in [3i16, 9, 12] {
        let n = req.encode_to_slice(&mut buf, v).unwrap();
        assert_eq!(n, req.encoded_len(v).unwrap());
        let view = ProduceRequest::parse(&buf[..n], v).unwrap();
        let p = view
            .topic_data
            .iter()
            .next()
            .unwrap()
            .partition_data
            .iter()
            .next()
            .unwrap();
        assert_eq!(p.records, Some(&batch[..]));
        // The records are borrowed from `buf`, not copied.
        let start = buf.as_ptr() as usize;
        let rec = p.records.unwrap().as_ptr() as usize;
        assert!(rec > start && rec < start + n);
    }
    // ProduceRequest v13 names topics by id; the schema marks the name ignorable, so v13 leaves
    // it out (as Kafka does) rather than failing.
    let n = req.encode_to_slice(&mut buf, 13).unwrap();
    let view = ProduceRequest::parse(&buf[..n], 13).unwrap();
    assert_eq!(view.topic_data.iter().next().unwrap().name, "");
}

#[cfg(feature = "alloc")]
#[test]
fn vec_sink() {
    let m = MetadataRequest {
        topics: None,
        allow_auto_topic_creation: true,
        ..MetadataRequest::DEFAULT
    };
    let mut v: Vec<u8> = vec![9];
    let n = m.encode(&mut v, 12).unwrap();
    assert_eq!(v.len(), 1 + n);
    assert_eq!(&v[1..], &encode(&m, 12)[..]);
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Found by the Java conformance harness: inside a tagged field, Kafka marks a nullable struct
/// with an unsigned varint (0 null, 1 present), not the int8 marker of untagged structs.
#[test]
fn regression_tagged_nullable_struct_uses_a_varint_marker() {
    use kafka_wire::coordinator::consumer_group_member_metadata_value::ConsumerGroupMemberMetadataValue;
    let kafka_null = unhex("0008746f7069632d5c032e62190a222d67726f75705a67726f7570746f70696322f09f9880010c61c3a967726f7570205a30a66fd233095cc3a9202230c3a901000100");
    let v = ConsumerGroupMemberMetadataValue::parse(&kafka_null, 0).unwrap();
    assert_eq!(v.classic_member_metadata, None);
    assert_eq!(encode(&v, 0), kafka_null);
}

/// Found by the Java conformance harness: an unknown tag of 2^32-1 was dropped on re-encoding.
#[test]
fn regression_unknown_tag_u32_max_is_kept() {
    let bytes = unhex("0000010000000001ffffffff0f0101");
    let v = ApiVersionsResponse::parse(&bytes, 3).unwrap();
    assert_eq!(v.unknown_tagged_fields.iter().next().unwrap().tag, u32::MAX);
    assert_eq!(encode(&v, 3), bytes);
}

/// `encode_to_slice` writes in one pass, without sizing first: it must make every check the
/// size pass makes and report the same error, and a short buffer must report the exact size.
#[test]
fn one_pass_encode_makes_the_size_pass_checks() {
    use kafka_wire::messages::fetch_request::FetchRequest;
    fn same_error<'a, M: Message<'a>>(m: &M, v: i16, kind: EncodeErrorKind, field: &str) {
        let sized = m.encoded_len(v).unwrap_err();
        assert_eq!((sized.kind(), sized.field()), (kind, field));
        let mut big = vec![0u8; 1 << 17];
        assert_eq!(
            m.encode_to_slice(&mut big, v).unwrap_err(),
            sized,
            "one pass, room enough"
        );
        // Out of room before reaching the bad field: the size pass's error still wins.
        assert_eq!(m.encode_to_slice(&mut [], v).unwrap_err(), sized, "one pass, no room");
        let mut sink = Vec::<u8>::new();
        assert_eq!(m.encode(&mut sink, v).unwrap_err(), sized, "sink");
    }
    let isr = [BrokerState {
        broker_id: 1,
        broker_epoch: 10,
        ..BrokerState::DEFAULT
    }];
    let (mut p, mut t) = (Vec::new(), Vec::new());
    let req = alter_partition(&isr, &mut p, &mut t);
    same_error(
        &req,
        2,
        EncodeErrorKind::FieldNotInVersion,
        "topics[].partitions[].new_isr_with_epochs",
    );
    let m = MetadataRequest {
        topics: None,
        ..MetadataRequest::DEFAULT
    };
    same_error(&m, 0, EncodeErrorKind::NullNotAllowed, "topics");
    let long = "x".repeat(40_000);
    let topics = [MetadataRequestTopic {
        name: Some(&long),
        ..MetadataRequestTopic::DEFAULT
    }];
    let m = MetadataRequest {
        topics: Some(Array::from_slice(&topics)),
        ..MetadataRequest::DEFAULT
    };
    same_error(&m, 12, EncodeErrorKind::TooLong { length: 40_000 }, "topics[].name");
    let extra = [RawTaggedField { tag: 9, data: &[1, 2] }];
    let m = MetadataRequest {
        unknown_tagged_fields: TaggedFields::from_slice(&extra),
        ..MetadataRequest::DEFAULT
    };
    same_error(&m, 0, EncodeErrorKind::TaggedFieldsNotInVersion, "_tagged_fields");
    // A known tagged field whose value cannot be encoded (its size is computed while writing).
    let f = FetchRequest {
        cluster_id: Some(&long),
        ..FetchRequest::DEFAULT
    };
    same_error(&f, 12, EncodeErrorKind::TooLong { length: 40_000 }, "cluster_id");

    // Every length short of the encoding reports the exact size needed.
    let bytes = encode(&req, 3);
    let n = bytes.len();
    for len in 0..n {
        let mut buf = vec![0u8; len];
        let e = req.encode_to_slice(&mut buf, 3).unwrap_err();
        assert_eq!(
            e.kind(),
            EncodeErrorKind::BufferTooShort { needed: n },
            "buffer of {len}"
        );
    }
    let mut buf = vec![0u8; n + 7];
    assert_eq!(req.encode_to_slice(&mut buf, 3).unwrap(), n);
    assert_eq!(&buf[..n], &bytes[..]);
}

fn uvarint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

#[test]
fn collections_and_tag_sections_stop_where_kafkas_reader_stops() {
    use kafka_wire::messages::delete_acls_request::DeleteAclsRequest;
    use kafka_wire::messages::list_groups_request::ListGroupsRequest;
    // ListGroupsRequest v5: StatesFilter ([]string, compact), one byte per empty string;
    // TypesFilter empty; an empty tag section. Kafka reads 1,000,000 elements and no more.
    let list_groups = |n: u32| {
        let mut b = Vec::new();
        uvarint(&mut b, n + 1);
        b.resize(b.len() + n as usize, 1);
        b.extend([1, 0]);
        b
    };
    let ok = list_groups(1_000_000);
    let v = ListGroupsRequest::parse(&ok, 5).expect("1,000,000 elements are read");
    assert_eq!(v.states_filter.len(), 1_000_000);
    let e = ListGroupsRequest::parse(&list_groups(1_000_001), 5).unwrap_err();
    assert_eq!(
        (e.kind(), e.offset(), e.field()),
        (
            DecodeErrorKind::TooManyElements { count: 1_000_001 },
            0,
            "states_filter"
        )
    );
    assert!(e.to_string().contains("exceeds 1000000"), "{e}");
    // The visitor and owned decoding refuse it the same way.
    struct Nothing;
    impl<'a> kafka_wire::Visitor<'a> for Nothing {}
    let e2 = ListGroupsRequest::visit(&list_groups(1_000_001), 5, &mut Nothing).unwrap_err();
    assert_eq!(e2.kind(), e.kind());

    // DeleteAclsRequest v3: an empty filter array, then a tag section of `n` empty unknown tags.
    let delete_acls = |n: u32| {
        let mut b = vec![1];
        uvarint(&mut b, n);
        for t in 0..n.min(20_000) {
            uvarint(&mut b, 1000 + t);
            b.push(0);
        }
        b
    };
    let ten_thousand = delete_acls(10_000);
    let v = DeleteAclsRequest::parse(&ten_thousand, 3).expect("10,000 tagged fields are read");
    assert_eq!(v.unknown_tagged_fields.iter().count(), 10_000);
    for n in [10_001u32, 1 << 31, u32::MAX] {
        let mut b = delete_acls(n.min(10_001));
        if n > 10_001 {
            // The count alone: Kafka reads it as a negative int and stops there.
            b = vec![1];
            uvarint(&mut b, n);
        }
        let e = DeleteAclsRequest::parse(&b, 3).unwrap_err();
        assert_eq!(
            (e.kind(), e.offset()),
            (DecodeErrorKind::TooManyTaggedFields { count: n }, 1),
            "count {n}"
        );
    }
}
