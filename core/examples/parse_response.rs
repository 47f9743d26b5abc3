//! Parses a broker's ApiVersions response frame as the answer to the ApiVersionsRequest that
//! was sent (no API key typed by hand), then agrees a version for each API the client uses.
//!
//!     cargo run -p kafka-wire --example parse_response

use kafka_wire::frame::{encode_response_frame, parse_response_frame_to, Mode};
use kafka_wire::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
use kafka_wire::messages::ApiVersionsRequest;
use kafka_wire::versions::Negotiated;
use kafka_wire::{ApiKey, Array, ErrorCode, ResponseBody};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // What a broker might answer, as bytes on the wire (response header v0, body v3).
    let ranges = [
        ApiVersion {
            api_key: ApiKey::Produce.id(),
            min_version: 3,
            max_version: 13,
            ..ApiVersion::DEFAULT
        },
        ApiVersion {
            api_key: ApiKey::Metadata.id(),
            min_version: 0,
            max_version: 13,
            ..ApiVersion::DEFAULT
        },
        ApiVersion {
            api_key: ApiKey::ApiVersions.id(),
            min_version: 0,
            max_version: 4,
            ..ApiVersion::DEFAULT
        },
    ];
    let answer = ApiVersionsResponse {
        api_keys: Array::from_slice(&ranges),
        ..ApiVersionsResponse::DEFAULT
    };
    let mut wire = [0u8; 128];
    let n = encode_response_frame(7, &ResponseBody::ApiVersions(answer), 3, &mut wire)?;

    // The client knows what it sent: an ApiVersionsRequest v3. The body type follows from it.
    let frame = parse_response_frame_to::<ApiVersionsRequest<'_>>(&wire[..n], 3, Mode::Strict)?;
    println!(
        "correlation id {}, error {}",
        frame.header.correlation_id,
        ErrorCode::from_code(frame.body.error_code)
    );

    // The client produces at v9..=13 and reads metadata at v12 only.
    let agreed = Negotiated::new(&frame.body, |key| match key {
        ApiKey::Produce => Some((9, 13)),
        ApiKey::Metadata => Some((12, 12)),
        ApiKey::ApiVersions => Some((0, 3)),
        _ => None,
    })?;
    for (key, version) in agreed.iter() {
        println!("{key:?}: v{version}");
    }
    Ok(())
}
