//! Cargo features select what is compiled: these tests hold under any set of features, and CI
//! runs them without default features for each group (`.ci/features.sh`) as well as with all.
//!
//! - Dispatch and the catalog agree on which messages are compiled.
//! - A known API key whose messages are not compiled fails to parse with `NotEnabled`, naming
//!   the feature, and never with "unknown key".
//! - Under `producer` alone, exactly its four APIs are compiled.

use kafka_wire::{catalog, ApiKey, DecodeErrorKind, MetadataRecord, MetadataRecordType, RequestBody, ResponseBody};

/// The feature `kafka-wire` compiles `key`'s messages under: `api-` and the name in kebab case.
fn feature_of(key: ApiKey) -> String {
    let mut f = String::from("api-");
    for (i, c) in key.name().chars().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_upper = i > 0 && key.name().as_bytes()[i - 1].is_ascii_uppercase();
            if i > 0 && !prev_upper {
                f.push('-');
            }
            f.push(c.to_ascii_lowercase());
        } else {
            f.push(c);
        }
    }
    f
}

/// Whether dispatch compiles `key`'s request: an empty body is either parsed or fails for a
/// reason other than `NotEnabled`.
fn request_compiled(key: ApiKey) -> Result<bool, String> {
    let v = key.request_info().min_version;
    match RequestBody::parse(key, &[], v) {
        Ok(_) => Ok(true),
        Err(e) => match e.kind() {
            DecodeErrorKind::NotEnabled { feature } => {
                if feature != feature_of(key) {
                    return Err(format!(
                        "{key}: NotEnabled names {feature}, expected {}",
                        feature_of(key)
                    ));
                }
                if e.message() != key.request_info().name || e.version() != v {
                    return Err(format!("{key}: error names {} v{}", e.message(), e.version()));
                }
                Ok(false)
            }
            DecodeErrorKind::UnknownApiKey { .. } => Err(format!("{key}: a known key reported as unknown")),
            _ => Ok(true),
        },
    }
}

fn response_compiled(key: ApiKey) -> bool {
    let v = key.response_info().min_version;
    !matches!(
        ResponseBody::parse(key, &[], v).map_err(|e| e.kind()),
        Err(DecodeErrorKind::NotEnabled { .. })
    )
}

#[test]
fn dispatch_and_catalog_agree_on_every_api() {
    for &key in ApiKey::ALL {
        let compiled = request_compiled(key).unwrap();
        assert_eq!(compiled, response_compiled(key), "{key}: request and response differ");
        let req = key.request_info().name;
        let resp = key.response_info().name;
        assert_eq!(catalog::find(req).is_some(), compiled, "{key}: catalog entry for {req}");
        assert_eq!(
            catalog::find(resp).is_some(),
            compiled,
            "{key}: catalog entry for {resp}"
        );
        if let Some(e) = catalog::find(req) {
            assert_eq!(e.info, key.request_info(), "{key}: the key's facts equal the message's");
        }
    }
}

#[test]
fn metadata_records_follow_their_family_feature() {
    for &ty in MetadataRecordType::ALL {
        let v = ty.info().min_version;
        let r = MetadataRecord::parse(ty, &[], v);
        let not_enabled = matches!(
            r.map_err(|e| e.kind()),
            Err(DecodeErrorKind::NotEnabled {
                feature: "metadata-records"
            })
        );
        assert_eq!(not_enabled, !cfg!(feature = "metadata-records"), "{ty}");
        assert_eq!(
            catalog::find(ty.info().name).is_some(),
            cfg!(feature = "metadata-records"),
            "{ty}"
        );
    }
}

#[test]
fn headers_and_control_records_are_always_compiled() {
    for name in [
        "RequestHeader",
        "ResponseHeader",
        "EndTxnMarker",
        "LeaderChangeMessage",
        "VotersRecord",
    ] {
        assert!(catalog::find(name).is_some(), "{name}");
    }
}

#[cfg(all(
    feature = "producer",
    not(feature = "all"),
    not(feature = "consumer"),
    not(feature = "admin")
))]
#[test]
fn producer_compiles_exactly_its_four_apis() {
    let compiled: Vec<ApiKey> = ApiKey::ALL
        .iter()
        .copied()
        .filter(|&k| request_compiled(k).unwrap())
        .collect();
    assert_eq!(
        compiled,
        [
            ApiKey::Produce,
            ApiKey::Metadata,
            ApiKey::ApiVersions,
            ApiKey::InitProducerId
        ]
    );
}

#[cfg(feature = "all")]
#[test]
fn all_compiles_every_api() {
    for &key in ApiKey::ALL {
        assert!(request_compiled(key).unwrap(), "{key}");
    }
}
