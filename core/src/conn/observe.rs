//! Both directions of one connection, seen from the side (a capture, a proxy, a broker stub):
//! each request decoded and remembered by correlation id, each response paired and decoded
//! once.

use crate::codec::Mode;
use crate::error::DecodeError;
use crate::frame::{self, RequestFrame, ResponseFrame};
use crate::generated::api::ApiKey;

/// Which way a frame went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    /// Client to broker.
    Request,
    /// Broker to client.
    Response,
}

impl Direction {
    /// `"request"` or `"response"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Direction::Request => "request",
            Direction::Response => "response",
        }
    }
}

/// A request seen and not yet answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pending {
    /// Its correlation id.
    pub correlation_id: i32,
    /// Its API.
    pub api_key: ApiKey,
    /// Its version.
    pub version: i16,
}

/// What a frame held.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decoded<'a> {
    /// A request, decoded (leniently: [`Event::strict`] says whether bytes were left over).
    Request(RequestFrame<'a>),
    /// A response, paired and decoded at its request's version.
    Response(ResponseFrame<'a>),
    /// A frame that does not decode (for a response: as the answer to its request). The bytes
    /// are still the event's `frame`.
    Failed(DecodeError),
    /// A response whose correlation id no request seen has: not decoded.
    Unpaired,
}

/// One frame of the connection, decoded once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Event<'a> {
    /// Which way it went.
    pub direction: Direction,
    /// The whole frame, size prefix included.
    pub frame: &'a [u8],
    /// Its correlation id, where the frame is long enough to have one.
    pub correlation_id: Option<i32>,
    /// The API and version: a request's own, a response's request's.
    pub api: Option<(ApiKey, i16)>,
    /// What it held.
    pub decoded: Decoded<'a>,
    /// For a request: whether it was remembered for its response (false for a request Kafka
    /// does not answer, a Produce with `acks = 0`, and when `N` requests were already waiting,
    /// so that its response will be unpaired). For a response: whether it was paired.
    pub remembered: bool,
    /// For a response: how many requests before its own, on this connection, got no response
    /// (a Produce with `acks = 0` is not answered) and were dropped from the table.
    pub skipped: usize,
}

impl Event<'_> {
    /// Whether the frame decoded with no byte left over (a strict parse would have accepted it).
    /// An ApiVersions answer read in version 0's shape is not strict either.
    pub fn strict(&self) -> bool {
        match &self.decoded {
            Decoded::Request(r) => r.trailing.is_empty(),
            Decoded::Response(r) => r.trailing.is_empty() && self.api.is_none_or(|(_, v)| v == r.version),
            Decoded::Failed(_) | Decoded::Unpaired => false,
        }
    }
}

/// Watches one connection both ways, without I/O and without allocating: up to `N` requests
/// waiting for their responses are remembered, in order. Each frame is parsed once, leniently;
/// whether it was also strict is read off the parse ([`Event::strict`]).
///
/// Kafka answers a connection's requests in order, and some requests get no answer (Produce
/// with `acks = 0`): a response pairs with the oldest waiting request of its correlation id, and
/// the requests before it are dropped as unanswered ([`Event::skipped`]). Pairing costs O(1)
/// per frame over a connection's life; a response to nothing costs a scan of at most `N`.
#[derive(Clone, Debug)]
pub struct Observer<const N: usize> {
    ring: [Option<Pending>; N],
    head: usize,
    len: usize,
}

impl<const N: usize> Default for Observer<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Observer<N> {
    /// Nothing seen yet.
    pub const fn new() -> Self {
        Observer {
            ring: [None; N],
            head: 0,
            len: 0,
        }
    }

    /// How many requests wait for a response.
    pub const fn waiting(&self) -> usize {
        self.len
    }

    /// Whether the next request could not be remembered: a proxy stops reading the client
    /// until a response arrives.
    pub const fn is_full(&self) -> bool {
        self.len >= N
    }

    fn at(&self, i: usize) -> Option<&Pending> {
        self.ring.get((self.head + i) % N.max(1)).and_then(Option::as_ref)
    }

    /// The oldest request waiting with `correlation_id`: what a response with that id would be
    /// paired with.
    pub fn pending(&self, correlation_id: i32) -> Option<Pending> {
        (0..self.len)
            .filter_map(|i| self.at(i))
            .find(|p| p.correlation_id == correlation_id)
            .copied()
    }

    /// The oldest request waiting for its response.
    pub fn oldest(&self) -> Option<Pending> {
        if self.len == 0 {
            return None;
        }
        self.at(0).copied()
    }

    /// Forgets every waiting request (the connection closed); returns them, oldest first, through
    /// `each`.
    pub fn close(&mut self, mut each: impl FnMut(Pending)) {
        for i in 0..self.len {
            if let Some(p) = self.at(i) {
                each(*p);
            }
        }
        self.ring = [None; N];
        self.head = 0;
        self.len = 0;
    }

    /// A whole request frame (size prefix included), decoded and remembered. A request that
    /// does not decode is still remembered when its API key is known, so that its response
    /// is paired; a Produce with `acks = 0` is not (Kafka does not answer it).
    pub fn request<'a>(&mut self, frame: &'a [u8]) -> Event<'a> {
        let head = frame::peek_request_head(frame);
        let (decoded, api) = match frame::parse_request_frame(frame, Mode::Lenient) {
            Ok(r) => (Decoded::Request(r), Some((r.api_key, r.api_version))),
            Err(e) => (
                Decoded::Failed(e),
                head.and_then(|(k, v, _)| ApiKey::from_i16(k).map(|k| (k, v))),
            ),
        };
        let correlation_id = head.map(|(_, _, c)| c);
        let answered = !matches!(&decoded, Decoded::Request(r) if !r.expects_response());
        let mut remembered = false;
        if let (Some((api_key, version)), Some(correlation_id), true) = (api, correlation_id, answered) {
            if self.len < N {
                if let Some(slot) = self.ring.get_mut((self.head + self.len) % N.max(1)) {
                    *slot = Some(Pending {
                        correlation_id,
                        api_key,
                        version,
                    });
                    self.len += 1;
                    remembered = true;
                }
            }
        }
        Event {
            direction: Direction::Request,
            frame,
            correlation_id,
            api,
            decoded,
            remembered,
            skipped: 0,
        }
    }

    /// A whole response frame, paired with its request and decoded as its answer.
    pub fn response<'a>(&mut self, frame: &'a [u8]) -> Event<'a> {
        let correlation_id = frame::peek_response_correlation_id(frame);
        let mut event = Event {
            direction: Direction::Response,
            frame,
            correlation_id,
            api: None,
            decoded: Decoded::Unpaired,
            remembered: false,
            skipped: 0,
        };
        let Some(id) = correlation_id else {
            event.decoded = match frame::split_frame(frame) {
                Err(e) => Decoded::Failed(e),
                Ok(_) => Decoded::Unpaired,
            };
            return event;
        };
        // The oldest waiting request with this id; those before it went unanswered.
        let Some(pos) = (0..self.len).find(|&i| self.at(i).is_some_and(|p| p.correlation_id == id)) else {
            return event;
        };
        let Some(&p) = self.at(pos) else {
            return event;
        };
        for _ in 0..=pos {
            if let Some(slot) = self.ring.get_mut(self.head) {
                *slot = None;
            }
            self.head = (self.head + 1) % N.max(1);
            self.len -= 1;
        }
        event.skipped = pos;
        event.remembered = true;
        event.api = Some((p.api_key, p.version));
        event.decoded = match frame::parse_response_frame(frame, p.api_key, p.version, Mode::Lenient) {
            Ok(r) => Decoded::Response(r),
            Err(e) => Decoded::Failed(e),
        };
        event
    }
}
