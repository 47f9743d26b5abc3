//! What the producer and the consumer share: their connections to the cluster (phases,
//! timeouts, reconnect backoff), version negotiation, and the brokers a Metadata answer names.

use core::fmt;

use heapless::{String, Vec};
use kafka_wire::conn::{Client, ClientError, InFlight};
use kafka_wire::frame::{self, Mode};
use kafka_wire::messages::metadata_response::MetadataResponseBroker;
use kafka_wire::messages::ApiVersionsRequest;
use kafka_wire::versions::NegotiationError;
use kafka_wire::{ApiKey, Array, DecodeError, EncodeError, ErrorCode, Message};

/// The longest broker host name kept from a Metadata answer.
pub const MAX_HOST: usize = 64;
/// Requests in flight on one connection, at most (Kafka's idempotent producer allows 5).
pub const MAX_IN_FLIGHT: usize = 5;

/// A connection, by its place in the client's table (0 is the bootstrap broker's).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ConnId(pub u8);

/// Why the client closes a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CloseReason {
    /// A request went unanswered for the request timeout (or the connect took as long).
    Timeout,
    /// An answer did not parse or did not pair with a request.
    Protocol(ProtocolError),
}

/// A broker's answer that breaks the protocol: the connection is closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProtocolError {
    /// The frame does not pair with a request in flight, or does not decode.
    Client(ClientError),
    /// The frame does not decode as the answer to its request.
    Decode(DecodeError),
    /// ApiVersions gave no version both sides speak (or failed).
    Negotiation(NegotiationError),
    /// The broker speaks no version of an API the client needs.
    NoVersion(ApiKey),
    /// SASL authentication failed: the broker refused the mechanism or the credentials, or its
    /// answer did not prove it knows them (SCRAM).
    Authentication(ErrorCode),
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::Client(e) => write!(f, "{e}"),
            ProtocolError::Decode(e) => write!(f, "{e}"),
            ProtocolError::Negotiation(e) => write!(f, "{e}"),
            ProtocolError::NoVersion(k) => write!(f, "the broker speaks no version of {} the client can", k.name()),
            ProtocolError::Authentication(e) => write!(f, "SASL authentication failed: {e}"),
        }
    }
}

/// A request frame to write: the first `len` bytes of the buffer given to `poll_transmit`, on
/// connection `conn`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// The connection.
    pub conn: ConnId,
    /// The frame's length.
    pub len: usize,
}

/// The client could not write a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TransmitError {
    /// The output buffer is too small for the next request (its size says how much is needed).
    Encode(EncodeError),
    /// The connection's table of requests in flight refused it.
    Client(ClientError),
}

impl fmt::Display for TransmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TransmitError::Encode(e) => write!(f, "{e}"),
            TransmitError::Client(e) => write!(f, "{e}"),
        }
    }
}

impl core::error::Error for TransmitError {}

pub(crate) fn encode_error(e: ClientError) -> TransmitError {
    match e {
        ClientError::Encode(e) => TransmitError::Encode(e),
        e => TransmitError::Client(e),
    }
}

/// Open or close a connection: what a client asks of its host about connections
/// ([`Session::poll_conn`](crate::session::Session::poll_conn)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnEvent<'a> {
    /// Open a connection to `host:port`, then call `on_connected` (or `on_closed` when it
    /// fails).
    Connect {
        /// The connection.
        conn: ConnId,
        /// The broker's host.
        host: &'a str,
        /// Its port.
        port: u16,
    },
    /// Close the connection, then call `on_closed`.
    Close {
        /// The connection.
        conn: ConnId,
        /// Why.
        why: CloseReason,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Down,
    Wanted,
    Connecting {
        since: u64,
    },
    Versions {
        sent: bool,
        version: i16,
    },
    /// SASL: a SaslHandshake or SaslAuthenticate request to send, or in flight.
    #[cfg_attr(not(feature = "sasl"), allow(dead_code))]
    Auth {
        sent: bool,
    },
    Ready,
    Backoff {
        until: u64,
    },
}

/// One broker connection: where it goes, how far it is, what is in flight on it, and the
/// versions negotiated (in the order of the client's list of APIs).
#[derive(Debug)]
pub(crate) struct Conn {
    pub node: i32,
    pub host: String<MAX_HOST>,
    pub port: u16,
    pub phase: Phase,
    pub client: Client<8>,
    pub versions: [i16; 4],
    /// When the oldest unanswered request was sent, or the last answer came.
    pub progress: u64,
    pub close: Option<CloseReason>,
    /// Connections lost or refused in a row, since the last answer.
    pub failures: u32,
    /// Connections opened so far (each SASL exchange's nonce differs by it).
    pub attempts: u64,
    /// For the bootstrap connection: its address's place in the bootstrap list.
    pub boot: usize,
    /// Until when the broker throttles this client (KIP-219: it answered at once with a
    /// `throttle_time_ms`, and nothing more is sent here before then); 0 when it does not.
    pub throttled_until: u64,
    /// Why SASL authentication last failed on this connection.
    pub auth_error: Option<ErrorCode>,
    /// The SaslAuthenticate version negotiated.
    #[cfg(feature = "sasl")]
    auth_version: i16,
    #[cfg(feature = "sasl")]
    auth: crate::sasl::Exchange,
}

/// Times that rule connections.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timing {
    pub request_timeout_ms: u64,
    pub reconnect_backoff_ms: u64,
    pub reconnect_backoff_max_ms: u64,
}

impl Conn {
    /// A connection to `host:port`; node -1 (the bootstrap broker) is wanted at once.
    pub fn new(node: i32, host: String<MAX_HOST>, port: u16) -> Self {
        Conn {
            node,
            host,
            port,
            phase: if node < 0 { Phase::Wanted } else { Phase::Down },
            client: Client::new(),
            versions: [-1; 4],
            progress: 0,
            close: None,
            failures: 0,
            attempts: 0,
            boot: 0,
            throttled_until: 0,
            auth_error: None,
            #[cfg(feature = "sasl")]
            auth_version: 0,
            #[cfg(feature = "sasl")]
            auth: crate::sasl::Exchange::new(),
        }
    }

    /// The connection opened: ApiVersions goes first.
    pub fn connected(&mut self, now: u64) {
        self.phase = Phase::Versions {
            sent: false,
            version: ApiVersionsRequest::INFO.max_version,
        };
        self.progress = now;
        self.attempts += 1;
    }

    /// The connection closed: its requests are forgotten, and it is opened again after the
    /// reconnect backoff, which doubles with each failure in a row.
    pub fn closed(&mut self, now: u64, t: Timing) {
        self.client.reset();
        self.close = None;
        self.throttled_until = 0;
        let backoff = t
            .reconnect_backoff_ms
            .saturating_mul(1 << self.failures.min(16))
            .min(t.reconnect_backoff_max_ms.max(t.reconnect_backoff_ms));
        self.failures = self.failures.saturating_add(1);
        self.phase = Phase::Backoff { until: now + backoff };
    }

    /// Ready, not throttled, with room for another request.
    pub fn ready(&self, max_in_flight: usize) -> bool {
        self.phase == Phase::Ready && self.throttled_until == 0 && self.client.in_flight() < max_in_flight
    }

    /// An answer's `throttle_time_ms`: as Kafka's clients do for the versions that came with
    /// KIP-219 (every version this client negotiates), nothing more is sent on the connection
    /// until that time has passed.
    pub fn throttle(&mut self, now: u64, ms: i32) {
        if let Ok(ms @ 1..) = u64::try_from(ms) {
            self.throttled_until = self.throttled_until.max(now.saturating_add(ms));
        }
    }

    /// Before a request is sent: a connection with nothing in flight starts its clock.
    pub fn sending(&mut self, now: u64) {
        if self.client.in_flight() == 0 {
            self.progress = now;
        }
    }
}

/// What falls due at `now` for each connection: backoffs and throttles end, unanswered requests
/// and slow connects time out.
pub(crate) fn tick(conns: &mut [Conn], now: u64, t: Timing) {
    for c in conns {
        if c.throttled_until != 0 && now >= c.throttled_until {
            c.throttled_until = 0;
        }
        match c.phase {
            Phase::Backoff { until } if now >= until => c.phase = Phase::Wanted,
            Phase::Connecting { since } if now >= since + t.request_timeout_ms && c.close.is_none() => {
                c.close = Some(CloseReason::Timeout);
            }
            Phase::Versions { .. } | Phase::Auth { .. } | Phase::Ready
                if c.client.in_flight() > 0 && now >= c.progress + t.request_timeout_ms && c.close.is_none() =>
            {
                c.close = Some(CloseReason::Timeout);
            }
            _ => {}
        }
    }
}

/// The earliest moment a connection needs the client again.
pub(crate) fn next_timeout(conns: &[Conn], t: Timing, at: &mut impl FnMut(u64)) {
    for c in conns {
        if c.throttled_until != 0 {
            at(c.throttled_until);
        }
        match c.phase {
            Phase::Backoff { until } => at(until),
            Phase::Connecting { since } => at(since + t.request_timeout_ms),
            _ if c.client.in_flight() > 0 => at(c.progress + t.request_timeout_ms),
            _ => {}
        }
    }
}

/// A connection to close, or else one to open.
pub(crate) fn poll_event(conns: &mut [Conn], now: u64) -> Option<ConnEvent<'_>> {
    let mut target = None;
    for (i, c) in conns.iter_mut().enumerate() {
        if let Some(why) = c.close {
            c.close = None;
            c.phase = Phase::Down;
            return Some(ConnEvent::Close {
                conn: ConnId(i as u8),
                why,
            });
        }
        if c.phase == Phase::Wanted && target.is_none() {
            target = Some(i);
        }
    }
    let i = target?;
    let c = conns.get_mut(i)?;
    c.phase = Phase::Connecting { since: now };
    Some(ConnEvent::Connect {
        conn: ConnId(i as u8),
        host: c.host.as_str(),
        port: c.port,
    })
}

/// An ApiVersions request on the first new connection that has not sent one.
pub(crate) fn send_api_versions(
    conns: &mut [Conn],
    now: u64,
    client_id: &str,
    out: &mut [u8],
) -> Result<Option<Transmit>, TransmitError> {
    for (i, c) in conns.iter_mut().enumerate() {
        if let Phase::Versions { sent: false, version } = c.phase {
            let req = ApiVersionsRequest {
                client_software_name: "kafka-wire-client",
                client_software_version: env!("CARGO_PKG_VERSION"),
                ..ApiVersionsRequest::DEFAULT
            };
            let sent = c
                .client
                .send(&req, version, Some(client_id), out)
                .map_err(encode_error)?;
            c.phase = Phase::Versions { sent: true, version };
            c.progress = now;
            return Ok(Some(Transmit {
                conn: ConnId(i as u8),
                len: sent.len,
            }));
        }
    }
    Ok(None)
}

/// The answer to ApiVersions: the highest version both sides speak of each API in `ours` (key,
/// lowest and highest version the client speaks) goes into `c.versions`, and the connection is
/// ready (or, with `auth`, goes on to SASL). A broker that does not speak our ApiVersions
/// version is asked again at its highest.
pub(crate) fn negotiate(
    c: &mut Conn,
    f: InFlight,
    frame: &[u8],
    ours: &[(ApiKey, i16, i16)],
    auth: bool,
) -> Result<(), ProtocolError> {
    let answer = frame::parse_response_frame_to::<ApiVersionsRequest<'_>>(frame, f.version, Mode::Lenient)
        .map_err(ProtocolError::Decode)?;
    let e = ErrorCode::from_code(answer.body.error_code);
    if e == ErrorCode::UnsupportedVersion {
        // The answer names the broker's ApiVersions range: again at the lower of its highest
        // version and ours (0 when it does not say).
        let retry = answer
            .body
            .api_keys
            .iter()
            .find(|k| k.api_key == ApiKey::ApiVersions.id())
            .map_or(0, |k| k.max_version.clamp(0, ApiVersionsRequest::INFO.max_version));
        if retry < f.version {
            c.phase = Phase::Versions {
                sent: false,
                version: retry,
            };
            return Ok(());
        }
    }
    if !e.is_none() {
        return Err(ProtocolError::Negotiation(NegotiationError::Broker(e)));
    }
    let mut v = [-1i16; 4];
    for k in answer.body.api_keys.iter() {
        for (slot, &(key, lo, hi)) in v.iter_mut().zip(ours) {
            if k.api_key == key.id() && k.min_version <= hi && k.max_version >= lo {
                *slot = hi.min(k.max_version);
            }
        }
    }
    for (&(key, _, _), &got) in ours.iter().zip(&v) {
        if got < 0 {
            return Err(ProtocolError::NoVersion(key));
        }
    }
    c.versions = v;
    c.phase = Phase::Ready;
    if auth {
        #[cfg(feature = "sasl")]
        {
            use kafka_wire::messages::SaslAuthenticateRequest;
            // SaslHandshake version 1: the messages go in SaslAuthenticate requests.
            let mut handshake = false;
            let mut authenticate = -1;
            for k in answer.body.api_keys.iter() {
                if k.api_key == ApiKey::SaslHandshake.id() && k.max_version >= 1 {
                    handshake = true;
                }
                if k.api_key == ApiKey::SaslAuthenticate.id() {
                    authenticate = k.max_version.min(SaslAuthenticateRequest::INFO.max_version);
                }
            }
            if !handshake || authenticate < 0 {
                return Err(ProtocolError::NoVersion(ApiKey::SaslAuthenticate));
            }
            c.auth_version = authenticate;
            c.auth = crate::sasl::Exchange::new();
            c.phase = Phase::Auth { sent: false };
        }
    }
    Ok(())
}

/// The next SASL request on the first connection that has one to send.
#[cfg(feature = "sasl")]
pub(crate) fn send_auth(
    conns: &mut [Conn],
    now: u64,
    client_id: &str,
    sasl: &crate::sasl::Sasl<'_>,
    out: &mut [u8],
) -> Result<Option<Transmit>, TransmitError> {
    use kafka_wire::messages::{SaslAuthenticateRequest, SaslHandshakeRequest};
    for (i, c) in conns.iter_mut().enumerate() {
        if c.phase != (Phase::Auth { sent: false }) {
            continue;
        }
        let sent = if c.auth.handshake_next() {
            let req = SaslHandshakeRequest {
                mechanism: sasl.mechanism.name(),
                ..SaslHandshakeRequest::DEFAULT
            };
            c.client.send(&req, 1, Some(client_id), out)
        } else {
            let req = SaslAuthenticateRequest {
                auth_bytes: &c.auth.out,
                ..SaslAuthenticateRequest::DEFAULT
            };
            c.client.send(&req, c.auth_version, Some(client_id), out)
        }
        .map_err(encode_error)?;
        c.phase = Phase::Auth { sent: true };
        c.progress = now;
        return Ok(Some(Transmit {
            conn: ConnId(i as u8),
            len: sent.len,
        }));
    }
    Ok(None)
}

/// A SaslHandshake or SaslAuthenticate answer: the exchange goes on, or the connection is
/// ready, or authentication failed (the connection is to be closed).
#[cfg(feature = "sasl")]
pub(crate) fn on_auth(
    c: &mut Conn,
    f: InFlight,
    frame: &[u8],
    sasl: &crate::sasl::Sasl<'_>,
) -> Result<(), ProtocolError> {
    use crate::sasl::Next;
    use kafka_wire::messages::{SaslAuthenticateRequest, SaslHandshakeRequest};
    let next = if f.api_key == ApiKey::SaslHandshake {
        let a = frame::parse_response_frame_to::<SaslHandshakeRequest<'_>>(frame, f.version, Mode::Lenient)
            .map_err(ProtocolError::Decode)?;
        c.auth
            .on_handshake(sasl, ErrorCode::from_code(a.body.error_code), c.attempts)
    } else {
        let a = frame::parse_response_frame_to::<SaslAuthenticateRequest<'_>>(frame, f.version, Mode::Lenient)
            .map_err(ProtocolError::Decode)?;
        c.auth
            .on_authenticate(sasl, ErrorCode::from_code(a.body.error_code), a.body.auth_bytes)
    };
    match next {
        Ok(Next::Send) => c.phase = Phase::Auth { sent: false },
        Ok(Next::Done) => {
            c.auth_error = None;
            c.phase = Phase::Ready;
        }
        Err(e) => {
            c.auth_error = Some(e);
            return Err(ProtocolError::Authentication(e));
        }
    }
    Ok(())
}

/// The answer on connection `ci` carried `throttle_time_ms` `ms` ([`Conn::throttle`]).
pub(crate) fn throttle(conns: &mut [Conn], ci: usize, now: u64, ms: i32) {
    if let Some(c) = conns.get_mut(ci) {
        c.throttle(now, ms);
    }
}

/// The first connection: to the first address of the bootstrap list (`Err` when the list is
/// empty, `Ok(None)` when a host name is too long).
pub(crate) fn bootstrap_conn(list: &[(&str, u16)]) -> Result<Option<Conn>, ()> {
    let &(host, port) = list.first().ok_or(())?;
    if list.iter().any(|(h, _)| h.len() > MAX_HOST) {
        return Ok(None);
    }
    Ok(String::try_from(host).ok().map(|h| Conn::new(-1, h, port)))
}

/// After the bootstrap connection closed (before a Metadata answer named its broker): the next
/// address of the list is tried at once; after the last one, the first again, once the
/// reconnect backoff (which doubles with each round) has passed.
pub(crate) fn next_bootstrap(c: &mut Conn, list: &[(&str, u16)]) {
    if c.node >= 0 || list.len() < 2 {
        return;
    }
    c.boot = (c.boot + 1) % list.len();
    if let Some(&(h, p)) = list.get(c.boot) {
        if let Ok(h) = String::try_from(h) {
            c.host = h;
            c.port = p;
        }
    }
    if c.boot != 0 {
        c.phase = Phase::Wanted;
        c.failures = c.failures.saturating_sub(1);
    }
}

/// The bootstrap connection is the broker at its address: it serves that broker's partitions
/// too, rather than a second connection to the same place.
pub(crate) fn adopt_bootstrap(conns: &mut [Conn], brokers: &Array<'_, MetadataResponseBroker<'_>>) {
    for b in brokers.iter() {
        if conns.iter().any(|c| c.node == b.node_id) {
            continue;
        }
        if let Some(c) = conns
            .iter_mut()
            .find(|c| c.node < 0 && c.host.as_str() == b.host && i32::from(c.port) == b.port)
        {
            c.node = b.node_id;
        }
    }
}

/// A connection to broker `leader`, opened when there is none. `false` when the broker is not
/// in the answer or no room is left: Metadata is to be asked again.
pub(crate) fn want_leader<const C: usize>(
    conns: &mut Vec<Conn, C>,
    leader: i32,
    brokers: &Array<'_, MetadataResponseBroker<'_>>,
) -> bool {
    if conns.iter().any(|c| c.node == leader) {
        return true;
    }
    let Some(b) = brokers.iter().find(|b| b.node_id == leader) else {
        return false;
    };
    let (Ok(host), Ok(port)) = (String::try_from(b.host), u16::try_from(b.port)) else {
        return true;
    };
    let mut conn = Conn::new(leader, host, port);
    conn.phase = Phase::Wanted;
    conns.push(conn).is_ok()
}
