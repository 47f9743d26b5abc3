//! Owned request types know their API key and the owned type of their response.

use kafka_wire::messages::{metadata_request, metadata_response, produce_request};
use kafka_wire::{ApiKey, OwnedMessage, OwnedRequest};

/// Decodes the answer to a request of type `R` without naming the response type or a key.
fn answer<R: OwnedRequest>(bytes: &[u8], version: i16) -> R::Response {
    R::Response::parse(bytes, version).expect("the response parses")
}

#[test]
fn owned_requests_pair_with_their_owned_responses() {
    assert_eq!(
        <metadata_request::owned::MetadataRequest as OwnedRequest>::API_KEY,
        ApiKey::Metadata
    );
    assert_eq!(
        <produce_request::owned::ProduceRequest as OwnedRequest>::API_KEY,
        ApiKey::Produce
    );
    for &k in ApiKey::ALL {
        // Each key's request and response schemas name the same API.
        assert_eq!(k.request_info().api_key, k.response_info().api_key);
    }
    let resp = metadata_response::owned::MetadataResponse {
        throttle_time_ms: 17,
        ..Default::default()
    };
    let bytes = resp.to_vec(12).unwrap();
    let back: metadata_response::owned::MetadataResponse =
        answer::<metadata_request::owned::MetadataRequest>(&bytes, 12);
    assert_eq!(back.throttle_time_ms, 17);
    assert_eq!(back, resp);
}
