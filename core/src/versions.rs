//! Version negotiation and Kafka's release tables, without allocating.
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
//! [`Release`] tables say, for each Kafka release from 3.0 on, the ranges its nodes put in their
//! ApiVersions answers: a KRaft broker on its client listener, a KRaft controller, and for 3.x a
//! ZooKeeper-mode broker. They were computed by each release's own classes
//! (`schemas/tools/releases.sh`) and checked against real brokers' answers
//! (`core/tests/data/api-versions/`), so a proxy or a client can ask what a broker of release X
//! advertises, or which releases a broker's answer fits ([`Release::fitting`]).
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
//! // A client limited to the ranges a Kafka 3.9.1 broker advertises.
//! let ours = Release::find("3.9.1").unwrap();
//! let n = Negotiated::new(&answer, |k| ours.versions(k)).unwrap();
//! assert_eq!(n.version(ApiKey::Metadata), Some(12)); // a 3.9.1 broker advertises Metadata v0-12
//! assert_eq!(n.version(ApiKey::ApiVersions), Some(4));
//! assert_eq!(n.version(ApiKey::Produce), None); // not in the answer
//! ```
// Without ApiVersions compiled, the negotiation items the docs above name do not exist: their
// links point at this module instead.
#![cfg_attr(
    not(feature = "api-api-versions"),
    doc = "\n[`Negotiated`]: self\n[`NegotiationError::RetryApiVersions`]: self\n[`parse_api_versions_response`]: self\n[`Release::fitting`]: self"
)]

use crate::generated::api::ApiKey;
pub use crate::generated::releases::{Advertised, ApiRange, Listeners, Release, RELEASES};

// Negotiation reads ApiVersions answers: compiled with the ApiVersions API.
#[cfg(feature = "api-api-versions")]
mod negotiate;
#[cfg(feature = "api-api-versions")]
pub use negotiate::{parse_api_versions_response, Negotiated, NegotiationError};

/// A kind of Kafka node, each with its own ApiVersions answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// A KRaft broker, on its client listeners ([`Release::apis`]).
    Broker,
    /// A KRaft controller, on its controller listener ([`Release::controller`]).
    Controller,
    /// A ZooKeeper-mode broker ([`Release::zk_broker`]; releases before 4.0).
    ZkBroker,
}

impl Node {
    /// Every kind of node, in the order `Release::fits_as` tries them.
    pub const ALL: [Node; 3] = [Node::Broker, Node::ZkBroker, Node::Controller];
}

impl ApiRange {
    /// The highest version the node advertises by default: [`ApiRange::max`].
    pub const fn stable_max(&self) -> i16 {
        self.max
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

    /// What a node of kind `node` of the release advertises, by key (empty for a ZooKeeper-mode
    /// broker from 4.0).
    pub const fn node(&self, node: Node) -> &'static [ApiRange] {
        match node {
            Node::Broker => self.apis,
            Node::Controller => self.controller,
            Node::ZkBroker => self.zk_broker,
        }
    }

    /// The release's KRaft broker's range for API key `key` (as on the wire), if the broker
    /// advertises the API in some configuration (see [`ApiRange::when`]).
    pub fn api(&self, key: i16) -> Option<&'static ApiRange> {
        find(self.apis, key)
    }

    /// The versions (lowest, highest) that the release's KRaft broker advertises for `key` by
    /// default, the shape `Negotiated::new` takes; `None` for an API it does not advertise, or
    /// advertises only with unstable versions enabled. The telemetry APIs, advertised only with a
    /// telemetry reporter configured, have their ranges.
    pub fn versions(&self, key: ApiKey) -> Option<(i16, i16)> {
        self.api(key.id())
            .filter(|a| a.when != Advertised::Unstable)
            .map(|a| (a.min, a.max))
    }
}

/// `key`'s row in a node table sorted by key.
fn find(apis: &'static [ApiRange], key: i16) -> Option<&'static ApiRange> {
    apis.binary_search_by_key(&key, |a| a.key).ok().map(|i| &apis[i])
}
