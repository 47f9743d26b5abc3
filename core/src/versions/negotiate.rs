//! Version negotiation from a broker's ApiVersions answer (feature `api-api-versions`); see
//! the parent module.

use super::{Advertised, ApiRange, Node, Release, RELEASES};
use crate::codec::Message;
use crate::error::DecodeError;
use crate::generated::api::ApiKey;
use crate::generated::errors::ErrorCode;
use crate::generated::messages::api_versions_response::ApiVersionsResponse;

/// Parses an ApiVersions response body that answers a request sent at `version`.
///
/// A broker that does not support `version` answers in version 0's shape with
/// `UNSUPPORTED_VERSION`, so when the body does not parse at `version`, this parses it at
/// version 0, as Kafka's client does ([`crate::frame::reads_v0_fallback`]; the frame parsers
/// apply the same rule, so a caller holding a whole frame needs no header slicing). Returns the view and the version it was read at; the
/// error is the one at `version` when neither parse succeeds.
#[inline]
pub fn parse_api_versions_response(body: &[u8], version: i16) -> Result<(ApiVersionsResponse<'_>, i16), DecodeError> {
    match ApiVersionsResponse::parse(body, version) {
        Ok(r) => Ok((r, version)),
        Err(e) if crate::frame::reads_v0_fallback(ApiKey::ApiVersions.id(), version) => {
            ApiVersionsResponse::parse(body, 0).map(|r| (r, 0)).map_err(|_| e)
        }
        Err(e) => Err(e),
    }
}

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

impl core::error::Error for NegotiationError {}

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

const NONE: i16 = -1;

/// The version to use for each API, agreed between a broker's ApiVersions answer and the
/// caller's own ranges. Fixed size (one `i16` per known API key); no allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Negotiated {
    versions: [i16; ApiKey::ALL.len()],
}

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
fn common(a: (i16, i16), b: (i16, i16)) -> Option<i16> {
    let lo = a.0.max(b.0);
    let hi = a.1.min(b.1);
    (lo <= hi).then_some(hi)
}

impl Release {
    /// True when a broker's ApiVersions `answer` is one a node of this release gives: its API
    /// ranges are exactly those of one of the release's node tables ([`Release::fits_as`]).
    #[inline]
    pub fn fits(&self, answer: &ApiVersionsResponse<'_>) -> bool {
        self.fits_as(answer).is_some()
    }

    /// The kind of node of this release that gives `answer`, trying a KRaft broker, then a
    /// ZooKeeper-mode broker, then a KRaft controller; `None` when no node of the release does.
    ///
    /// A node's answer fits when it lists exactly the APIs the node advertises, each with
    /// exactly the node's range, in one of two configurations: the default one, or
    /// `unstable.api.versions.enable=true` (each API up to [`ApiRange::unstable_max`], and the
    /// APIs advertised only then). The telemetry APIs ([`Advertised::Telemetry`]) may be listed
    /// (with their exact ranges) or absent, since they depend on a telemetry reporter being
    /// configured. Answers carrying an error fit no release.
    #[inline]
    pub fn fits_as(&self, answer: &ApiVersionsResponse<'_>) -> Option<Node> {
        Node::ALL.into_iter().find(|&n| self.fits_node(answer, n))
    }

    /// True when `answer` is one a node of kind `node` of this release gives (see
    /// [`Release::fits_as`]).
    #[inline]
    pub fn fits_node(&self, answer: &ApiVersionsResponse<'_>, node: Node) -> bool {
        let table = self.node(node);
        answer.error_code == 0
            && !table.is_empty()
            && (fits_table(table, answer, false) || fits_table(table, answer, true))
    }

    /// Every release that a broker's `answer` fits, oldest first. Releases whose nodes advertise
    /// the same ranges (often the patch releases of one minor release) all fit.
    #[inline]
    pub fn fitting(answer: ApiVersionsResponse<'_>) -> impl Iterator<Item = &'static Release> + '_ {
        RELEASES.iter().filter(move |r| r.fits(&answer))
    }
}

/// True when `answer` lists exactly what `table` advertises, with unstable versions enabled or
/// not.
fn fits_table(table: &[ApiRange], answer: &ApiVersionsResponse<'_>, unstable: bool) -> bool {
    // Which of the table's rows the answer listed: a key listed twice does not count twice.
    let mut seen = [0u64; 4];
    let mut required = 0usize;
    for k in answer.api_keys.iter() {
        let Ok(i) = table.binary_search_by_key(&k.api_key, |a| a.key) else {
            return false;
        };
        let a = &table[i];
        let max = if unstable { a.unstable_max } else { a.max };
        if (a.when == Advertised::Unstable && !unstable) || k.min_version != a.min || k.max_version != max {
            return false;
        }
        if i >= 256 {
            return false;
        }
        if seen[i / 64] & (1 << (i % 64)) != 0 {
            continue;
        }
        seen[i / 64] |= 1 << (i % 64);
        if a.when != Advertised::Telemetry {
            required += 1;
        }
    }
    required
        == table
            .iter()
            .filter(|a| match a.when {
                Advertised::Always => true,
                Advertised::Telemetry => false,
                Advertised::Unstable => unstable,
            })
            .count()
}
