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

use crate::generated::api::ApiKey;
pub use crate::generated::releases::{ApiRange, Listeners, Release, RELEASES};

// Negotiation reads ApiVersions answers: compiled with the ApiVersions API.
#[cfg(feature = "api-api-versions")]
mod negotiate;
#[cfg(feature = "api-api-versions")]
pub use negotiate::{parse_api_versions_response, Negotiated, NegotiationError};

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
}
