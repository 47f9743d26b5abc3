//! Version negotiation and Kafka's release tables, without allocating.
//!
//! Layer: dispatch. Uses the generated API keys, error codes, release tables and the
//! ApiVersions messages; nothing below it uses this module.
//!
//! A client sends ApiVersions first and learns, for each API, the range of versions the broker
//! supports. [`Negotiated`] intersects that answer with the client's own ranges the way Kafka's
//! clients do:
//! - an API the answer does not list is unsupported;
//! - otherwise the version used is the highest in both ranges, and none when they do not meet;
//! - an answer carrying `UNSUPPORTED_VERSION` means the broker does not speak the ApiVersions
//!   version that was sent. The broker then answers in version 0's shape, listing at least its
//!   own ApiVersions range, and the client asks again at the highest version both support
//!   ([`NegotiationError::RetryApiVersions`]).
//!
//! [`parse_api_versions_response`] reads such an answer: like Kafka's client, it falls back to
//! version 0 when the body does not parse at the version that was sent.
//!
//! [`Release`] tables say which versions each Kafka release from 3.0 on defines, so that a proxy
//! or a client can ask what release X speaks, or which releases a broker's answer fits.
//!
//! ```
//! use kafka_wire::messages::api_versions_response::{ApiVersion, ApiVersionsResponse};
//! use kafka_wire::versions::{Negotiated, Release};
//! use kafka_wire::{ApiKey, Array};
//!
//! // What a broker answered (built by hand here; usually parsed off the wire).
//! let keys = [
//!     ApiVersion { api_key: 3, min_version: 0, max_version: 13, ..ApiVersion::DEFAULT },
//!     ApiVersion { api_key: 18, min_version: 0, max_version: 4, ..ApiVersion::DEFAULT },
//! ];
//! let answer = ApiVersionsResponse { api_keys: Array::from_slice(&keys), ..ApiVersionsResponse::DEFAULT };
//!
//! // A client that speaks what Kafka 3.9.1's client speaks.
//! let ours = Release::find("3.9.1").unwrap();
//! let n = Negotiated::new(&answer, |k| ours.versions(k)).unwrap();
//! assert_eq!(n.version(ApiKey::Metadata), Some(12)); // 3.9.1 defines Metadata up to v12
//! assert_eq!(n.version(ApiKey::ApiVersions), Some(4));
//! assert_eq!(n.version(ApiKey::Produce), None); // not in the answer
//! ```

#[cfg(feature = "api-api-versions")]
use crate::codec::Message;
#[cfg(feature = "api-api-versions")]
use crate::error::DecodeError;
use crate::generated::api::ApiKey;
#[cfg(feature = "api-api-versions")]
use crate::generated::errors::ErrorCode;
#[cfg(feature = "api-api-versions")]
use crate::generated::messages::api_versions_response::ApiVersionsResponse;
pub use crate::generated::releases::{ApiRange, Listeners, Release, RELEASES};

#[cfg(feature = "api-api-versions")]
/// Parses an ApiVersions response body that answers a request sent at `version`.
///
/// A broker that does not support `version` answers in version 0's shape with
/// `UNSUPPORTED_VERSION`, so when the body does not parse at `version`, this parses it at
/// version 0, as Kafka's client does. Returns the view and the version it was read at; the
/// error is the one at `version` when neither parse succeeds.
#[inline]
pub fn parse_api_versions_response(body: &[u8], version: i16) -> Result<(ApiVersionsResponse<'_>, i16), DecodeError> {
    match ApiVersionsResponse::parse(body, version) {
        Ok(r) => Ok((r, version)),
        Err(e) if version != 0 => ApiVersionsResponse::parse(body, 0).map(|r| (r, 0)).map_err(|_| e),
        Err(e) => Err(e),
    }
}

#[cfg(feature = "api-api-versions")]
/// Why an ApiVersions answer gives no version table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NegotiationError {
    /// The broker does not support the ApiVersions version that was sent: send ApiVersions
    /// again at `retry_version`, the lower of the broker's highest ApiVersions version and ours
    /// (0 when the answer does not say). A `retry_version` not below the version that was sent
    /// means the broker cannot be talked to.
    RetryApiVersions {
        /// The version to send next.
        retry_version: i16,
    },
    /// The broker answered with another error.
    Broker(ErrorCode),
}

#[cfg(feature = "api-api-versions")]
impl core::error::Error for NegotiationError {}

#[cfg(feature = "api-api-versions")]
impl core::fmt::Display for NegotiationError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::RetryApiVersions { retry_version } => {
                write!(
                    f,
                    "the broker does not support this ApiVersions version; retry at version {retry_version}"
                )
            }
            Self::Broker(e) => write!(f, "ApiVersions failed: {e}"),
        }
    }
}

#[cfg(feature = "api-api-versions")]
const NONE: i16 = -1;

#[cfg(feature = "api-api-versions")]
/// The version to use for each API, agreed between a broker's ApiVersions answer and the
/// caller's own ranges. Fixed size (one `i16` per known API key); no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Negotiated {
    versions: [i16; ApiKey::ALL.len()],
}

#[cfg(feature = "api-api-versions")]
impl Negotiated {
    /// Agrees a version for every API from the broker's `answer` and `ours`, which gives the
    /// caller's range (lowest, highest) for a key, or `None` for an API it does not use.
    pub fn new(
        answer: &ApiVersionsResponse<'_>,
        ours: impl Fn(ApiKey) -> Option<(i16, i16)>,
    ) -> Result<Self, NegotiationError> {
        let error = ErrorCode::from_code(answer.error_code);
        if error == ErrorCode::UnsupportedVersion {
            // The answer lists the broker's ApiVersions range (at least): retry at the lower of
            // its highest version and ours; absent, at 0.
            let our_max = ours(ApiKey::ApiVersions).map_or(ApiKey::ApiVersions.request_info().max_version, |r| r.1);
            let retry_version = answer
                .api_keys
                .iter()
                .find(|k| k.api_key == ApiKey::ApiVersions.id())
                .map_or(0, |k| k.max_version.min(our_max).max(0));
            return Err(NegotiationError::RetryApiVersions { retry_version });
        }
        if !error.is_none() {
            return Err(NegotiationError::Broker(error));
        }
        let mut versions = [NONE; ApiKey::ALL.len()];
        for k in answer.api_keys.iter() {
            let Some(key) = ApiKey::from_i16(k.api_key) else {
                continue;
            };
            if let Some(v) = ours(key).and_then(|o| common(o, (k.min_version, k.max_version))) {
                versions[key.index()] = v;
            }
        }
        Ok(Negotiated { versions })
    }

    /// Agrees versions with kafka-wire's own ranges: every version this crate can encode and
    /// decode.
    #[inline]
    pub fn with_kafka_wire(answer: &ApiVersionsResponse<'_>) -> Result<Self, NegotiationError> {
        Self::new(answer, |k| {
            let i = k.request_info();
            Some((i.min_version, i.max_version))
        })
    }

    /// The version to use for `key`; `None` when the broker does not support the API or the two
    /// ranges do not meet.
    pub fn version(&self, key: ApiKey) -> Option<i16> {
        match self.versions[key.index()] {
            NONE => None,
            v => Some(v),
        }
    }

    /// Every API with an agreed version, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (ApiKey, i16)> + '_ {
        ApiKey::ALL.iter().filter_map(|&k| self.version(k).map(|v| (k, v)))
    }
}

/// The highest version in both ranges.
#[cfg(feature = "api-api-versions")]
fn common(a: (i16, i16), b: (i16, i16)) -> Option<i16> {
    let lo = a.0.max(b.0);
    let hi = a.1.min(b.1);
    (lo <= hi).then_some(hi)
}

impl ApiRange {
    /// The highest version a broker of the release advertises by default: the highest valid
    /// version, less one when that one is marked unstable.
    pub const fn stable_max(&self) -> i16 {
        if self.latest_unstable && self.max > self.min {
            self.max - 1
        } else {
            self.max
        }
    }
}

impl Release {
    /// The release named `name` (`"4.4.0"`), if the table has it.
    pub fn find(name: &str) -> Option<&'static Release> {
        RELEASES.iter().find(|r| r.name == name)
    }

    /// The newest release in the table.
    pub fn latest() -> &'static Release {
        &RELEASES[RELEASES.len() - 1]
    }

    /// The release's range for API key `key` (as on the wire), if it defines the API.
    pub fn api(&self, key: i16) -> Option<&'static ApiRange> {
        self.apis
            .binary_search_by_key(&key, |a| a.key)
            .ok()
            .map(|i| &self.apis[i])
    }

    /// The versions (lowest, highest stable) that the release's clients and brokers speak for
    /// `key`; the shape [`Negotiated::new`] takes.
    pub fn versions(&self, key: ApiKey) -> Option<(i16, i16)> {
        self.api(key.id()).map(|a| (a.min, a.stable_max()))
    }

    #[cfg(feature = "api-api-versions")]
    /// True when a broker's ApiVersions `answer` could come from this release: every API it
    /// lists is one the release defines, and its highest version is the release's highest
    /// (stable or not) with a lowest version inside the release's range.
    #[inline]
    pub fn fits(&self, answer: &ApiVersionsResponse<'_>) -> bool {
        answer.api_keys.iter().all(|k| {
            self.api(k.api_key).is_some_and(|a| {
                (k.max_version == a.max || k.max_version == a.stable_max())
                    && k.min_version >= a.min
                    && k.min_version <= k.max_version
            })
        })
    }

    #[cfg(feature = "api-api-versions")]
    /// Every release that a broker's `answer` fits, oldest first.
    #[inline]
    pub fn fitting(answer: ApiVersionsResponse<'_>) -> impl Iterator<Item = &'static Release> + '_ {
        RELEASES.iter().filter(move |r| r.fits(&answer))
    }
}
