//! Small conveniences of the public API: key enums from numbers and as text, frame encoders
//! into any sink, and `Message::to_vec`.

use kafka_wire::frame::{encode_request_frame, encode_request_frame_into, parse_request_frame, Mode};
use kafka_wire::messages::ApiVersionsRequest;
use kafka_wire::{ApiKey, Message, MetadataRecordType, RequestBody, UnknownKey};

#[test]
fn key_enums_convert_from_numbers_and_display_kafkas_names() {
    assert_eq!(ApiKey::try_from(18), Ok(ApiKey::ApiVersions));
    assert_eq!(ApiKey::try_from(-7), Err(UnknownKey(-7)));
    assert_eq!(ApiKey::ApiVersions.to_string(), "ApiVersions");
    assert_eq!(UnknownKey(-7).to_string(), "unknown key -7");
    assert_eq!(
        MetadataRecordType::try_from(2).map(|t| t.to_string()),
        Ok("Topic".to_string())
    );
    for k in ApiKey::ALL {
        assert_eq!(ApiKey::try_from(k.id()), Ok(*k));
    }
}

#[test]
fn frame_encoders_write_into_any_sink() {
    let body = RequestBody::ApiVersions(ApiVersionsRequest {
        client_software_name: "x",
        ..ApiVersionsRequest::DEFAULT
    });
    let mut slice = [0u8; 64];
    let n = encode_request_frame(3, None, &body, 3, &mut slice).unwrap();
    // Two frames back to back into a heapless::Vec.
    let mut v: heapless::Vec<u8, 128> = heapless::Vec::new();
    assert_eq!(encode_request_frame_into(3, None, &body, 3, &mut v).unwrap(), n);
    assert_eq!(encode_request_frame_into(3, None, &body, 3, &mut v).unwrap(), n);
    assert_eq!(&v[..n], &slice[..n]);
    assert_eq!(&v[n..], &slice[..n]);
    assert!(parse_request_frame(&v[..n], Mode::Strict).is_ok());
    // Too small a sink: an error with the size needed, nothing half-written counted.
    let mut small: heapless::Vec<u8, 8> = heapless::Vec::new();
    assert!(encode_request_frame_into(3, None, &body, 3, &mut small).is_err());
}

#[cfg(feature = "alloc")]
#[test]
fn to_vec_is_exactly_the_encoding() {
    let m = ApiVersionsRequest {
        client_software_name: "kafka-wire",
        ..ApiVersionsRequest::DEFAULT
    };
    let v = m.to_vec(3).unwrap();
    assert_eq!(v.len(), m.encoded_len(3).unwrap());
    assert_eq!(ApiVersionsRequest::parse(&v, 3).unwrap(), m);
}

/// Views are covariant in their lifetime: a view over long-lived bytes can be used where a
/// shorter one is expected (a proxy builds new arrays beside parsed ones). A field that made
/// `Array` or a message invariant would stop this from compiling.
#[test]
fn views_shorten_their_lifetime() {
    fn shorten<'long: 'short, 'short>(
        a: kafka_wire::Array<'long, ApiVersionsRequest<'long>>,
        m: ApiVersionsRequest<'long>,
        t: kafka_wire::TaggedFields<'long>,
    ) -> (
        kafka_wire::Array<'short, ApiVersionsRequest<'short>>,
        ApiVersionsRequest<'short>,
        kafka_wire::TaggedFields<'short>,
    ) {
        (a, m, t)
    }
    let (a, m, t) = shorten(
        kafka_wire::Array::EMPTY,
        ApiVersionsRequest::DEFAULT,
        kafka_wire::TaggedFields::EMPTY,
    );
    assert!(a.is_empty() && t.is_empty());
    assert_eq!(m, ApiVersionsRequest::DEFAULT);
}
