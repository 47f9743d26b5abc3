//! A client's side of one connection: correlation ids, the requests in flight, and each
//! response paired with its request and parsed once.

use core::fmt;

use crate::codec::Mode;
use crate::error::{DecodeError, EncodeError};
use crate::frame::{self, ResponseFrame, TypedResponseFrame};
use crate::generated::api::{ApiKey, Request};

/// A request waiting for its response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InFlight {
    /// The correlation id it was sent with.
    pub correlation_id: i32,
    /// Its API.
    pub api_key: ApiKey,
    /// The version it was sent at.
    pub version: i16,
}

/// What went wrong on a client connection. Every kind but [`ClientError::Full`] and
/// [`ClientError::Encode`] means the connection's stream can no longer be trusted: close it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientError {
    /// As many requests are in flight as the table holds: wait for a response first.
    Full {
        /// The table's capacity.
        capacity: usize,
    },
    /// The request could not be encoded (too short an output buffer says how much is needed).
    Encode(EncodeError),
    /// A response whose correlation id no request in flight has.
    UnknownCorrelationId {
        /// The id read.
        correlation_id: i32,
    },
    /// A response too short to hold a correlation id.
    ShortFrame {
        /// Its length.
        len: usize,
    },
    /// A response that answers a request of another type than the one asked for
    /// ([`Client::receive_as`]).
    WrongApi {
        /// The request in flight under that correlation id.
        in_flight: InFlight,
        /// The API asked for.
        asked: ApiKey,
    },
    /// A response that does not decode as the answer to its request. Its bytes are the frame
    /// given; the request is no longer in flight.
    Decode {
        /// The request it answers.
        in_flight: InFlight,
        /// Why it does not decode.
        error: DecodeError,
    },
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Full { capacity } => write!(f, "{capacity} requests in flight: the table is full"),
            ClientError::Encode(e) => write!(f, "encoding the request: {e}"),
            ClientError::UnknownCorrelationId { correlation_id } => {
                write!(
                    f,
                    "a response with correlation id {correlation_id}, which no request in flight has"
                )
            }
            ClientError::ShortFrame { len } => write!(f, "a response frame of {len} bytes has no correlation id"),
            ClientError::WrongApi { in_flight, asked } => write!(
                f,
                "correlation id {} answers {} v{}, not {}",
                in_flight.correlation_id,
                in_flight.api_key.name(),
                in_flight.version,
                asked.name()
            ),
            ClientError::Decode { in_flight, error } => write!(
                f,
                "the response to {} v{} (correlation id {}): {error}",
                in_flight.api_key.name(),
                in_flight.version,
                in_flight.correlation_id
            ),
        }
    }
}

impl core::error::Error for ClientError {}

/// A request encoded and recorded as in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sent {
    /// The correlation id it carries.
    pub correlation_id: i32,
    /// The frame's length at the front of the output buffer.
    pub len: usize,
}

/// A response paired with its request, decoded by API key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Received<'b> {
    /// The request it answers.
    pub in_flight: InFlight,
    /// The frame, decoded at the version the request was sent at (or at version 0 for an
    /// ApiVersions answer in that shape: `frame.version`).
    pub frame: ResponseFrame<'b>,
}

/// The client side of one Kafka connection, without I/O: it numbers requests, encodes their
/// frames with the header version each needs, remembers up to `N` requests in flight, and pairs
/// each response frame with its request, decoding it once, as the request's typed response or by
/// API key.
///
/// The in-flight table is `N` slots indexed by correlation id: insert and lookup are O(1), and a
/// full table is [`ClientError::Full`], never growth. Kafka answers the requests of a
/// connection in order, so `N` is how many requests may be pipelined.
///
/// An ApiVersions answer in version 0's shape (a broker's answer to a version it does not
/// speak) is read by the frame parsers' fallback ([`frame::reads_v0_fallback`]); negotiate
/// with `versions::Negotiated` on it, then send at the agreed versions.
///
/// ```
/// use kafka_wire::conn::Client;
/// use kafka_wire::frame::{encode_response_frame, Mode};
/// use kafka_wire::messages::{ApiVersionsRequest, ApiVersionsResponse};
/// use kafka_wire::ResponseBody;
///
/// let mut client: Client<4> = Client::new();
/// let mut out = [0u8; 64];
/// let req = ApiVersionsRequest { client_software_name: "fw", client_software_version: "1", ..ApiVersionsRequest::DEFAULT };
/// let sent = client.send(&req, 3, Some("fw"), &mut out).unwrap();
/// // ... write out[..sent.len] to the connection; the broker answers:
/// let mut answer = [0u8; 64];
/// let body = ResponseBody::ApiVersions(ApiVersionsResponse { throttle_time_ms: 1, ..ApiVersionsResponse::DEFAULT });
/// let n = encode_response_frame(sent.correlation_id, &body, 3, &mut answer).unwrap();
/// let resp = client.receive_as::<ApiVersionsRequest<'_>>(&answer[..n], Mode::Strict).unwrap();
/// assert_eq!(resp.body.throttle_time_ms, 1);
/// assert_eq!(client.in_flight(), 0);
/// ```
#[derive(Clone, Debug)]
pub struct Client<const N: usize> {
    next: i32,
    slots: [Option<InFlight>; N],
    in_flight: usize,
}

impl<const N: usize> Default for Client<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Client<N> {
    /// A connection with nothing in flight; correlation ids start at 0.
    pub const fn new() -> Self {
        Self::starting_at(0)
    }

    /// A connection whose first correlation id is `first` (negative ids start at 0).
    pub const fn starting_at(first: i32) -> Self {
        Client {
            next: if first < 0 { 0 } else { first },
            slots: [None; N],
            in_flight: 0,
        }
    }

    /// How many requests wait for their response.
    pub const fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// How many requests may be in flight at once.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// The correlation id the next request will carry.
    pub const fn next_correlation_id(&self) -> i32 {
        self.next
    }

    fn slot(correlation_id: i32) -> usize {
        (correlation_id as u32 as usize) % N.max(1)
    }

    /// Encodes `req` at `version` as a request frame at the front of `out`, under the next
    /// correlation id, and records it as in flight. Nothing is recorded when the table is full
    /// or the frame does not fit `out`.
    pub fn send<'a, R: Request<'a>>(
        &mut self,
        req: &R,
        version: i16,
        client_id: Option<&str>,
        out: &mut [u8],
    ) -> Result<Sent, ClientError> {
        let correlation_id = self.next;
        let slot = Self::slot(correlation_id);
        match self.slots.get(slot) {
            Some(None) => {}
            _ => return Err(ClientError::Full { capacity: N }),
        }
        let len = frame::encode_request_frame_to(correlation_id, client_id, req, version, out)
            .map_err(ClientError::Encode)?;
        if let Some(s) = self.slots.get_mut(slot) {
            *s = Some(InFlight {
                correlation_id,
                api_key: R::API_KEY,
                version,
            });
            self.in_flight += 1;
        }
        self.advance();
        Ok(Sent { correlation_id, len })
    }

    /// Encodes `req` like [`send`](Self::send) without recording it: for a request the broker
    /// does not answer (a Produce with `acks = 0`).
    pub fn send_unanswered<'a, R: Request<'a>>(
        &mut self,
        req: &R,
        version: i16,
        client_id: Option<&str>,
        out: &mut [u8],
    ) -> Result<Sent, ClientError> {
        let correlation_id = self.next;
        let len = frame::encode_request_frame_to(correlation_id, client_id, req, version, out)
            .map_err(ClientError::Encode)?;
        self.advance();
        Ok(Sent { correlation_id, len })
    }

    fn advance(&mut self) {
        self.next = if self.next == i32::MAX { 0 } else { self.next + 1 };
    }

    /// The request a response frame answers, taken out of the table.
    fn take(&mut self, frame: &[u8], asked: Option<ApiKey>) -> Result<InFlight, ClientError> {
        let Some(id) = frame.get(4..8).and_then(|b| b.first_chunk::<4>()) else {
            return Err(ClientError::ShortFrame { len: frame.len() });
        };
        let correlation_id = i32::from_be_bytes(*id);
        let slot = self.slots.get_mut(Self::slot(correlation_id));
        let Some(entry) = slot else {
            return Err(ClientError::UnknownCorrelationId { correlation_id });
        };
        match *entry {
            Some(f) if f.correlation_id == correlation_id => {
                if let Some(asked) = asked.filter(|&a| a != f.api_key) {
                    return Err(ClientError::WrongApi { in_flight: f, asked });
                }
                *entry = None;
                self.in_flight -= 1;
                Ok(f)
            }
            _ => Err(ClientError::UnknownCorrelationId { correlation_id }),
        }
    }

    /// Pairs a whole response frame (size prefix included) with its request and takes the
    /// request out of the table, without decoding the frame: for a caller that decodes it
    /// itself (an owned decode from shared bytes).
    pub fn answered(&mut self, frame: &[u8]) -> Result<InFlight, ClientError> {
        self.take(frame, None)
    }

    /// Pairs a whole response frame (size prefix included) with its request and decodes it by
    /// the request's API key and version.
    pub fn receive<'b>(&mut self, frame: &'b [u8], mode: Mode) -> Result<Received<'b>, ClientError> {
        let in_flight = self.take(frame, None)?;
        match frame::parse_response_frame(frame, in_flight.api_key, in_flight.version, mode) {
            Ok(f) => Ok(Received { in_flight, frame: f }),
            Err(error) => Err(ClientError::Decode { in_flight, error }),
        }
    }

    /// Pairs a whole response frame with its request, which must be of type `R`, and decodes it
    /// as `R`'s response type.
    pub fn receive_as<'a, 'b, R: Request<'a>>(
        &mut self,
        frame: &'b [u8],
        mode: Mode,
    ) -> Result<TypedResponseFrame<'b, R::Response<'b>>, ClientError> {
        let in_flight = self.take(frame, Some(R::API_KEY))?;
        frame::parse_response_frame_to::<R>(frame, in_flight.version, mode)
            .map_err(|error| ClientError::Decode { in_flight, error })
    }

    /// Forgets every request in flight (after the connection closed), returning how many there
    /// were.
    pub fn reset(&mut self) -> usize {
        let n = self.in_flight;
        self.slots = [None; N];
        self.in_flight = 0;
        n
    }

    /// The requests in flight, in no particular order.
    pub fn pending(&self) -> impl Iterator<Item = InFlight> + '_ {
        self.slots.iter().flatten().copied()
    }
}
