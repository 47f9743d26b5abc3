//! `tokio_util` codecs for Kafka connections (feature `tokio`), on the connection layer of
//! `kafka_wire::conn`.
//!
//! - [`ClientCodec`], a client's side: the encoder numbers each request and records it in
//!   flight, the decoder cuts each response frame out of the read buffer without a copy, pairs
//!   it with its request and hands it out as shared bytes, which decode as the request's
//!   response type, owned values slicing the frame's `Bytes` (`OwnedMessage::parse_bytes`) or
//!   views over it.
//! - [`ServerCodec`], a server's side: the decoder cuts each request frame out without a copy
//!   and reads its header ([`IncomingRequest`]: API key, version, correlation id, client id);
//!   the encoder writes a [`Reply`], a response body with the facts of the request it answers,
//!   as a frame with the response header version that API and version use.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use futures_util::{SinkExt, StreamExt};
//! use kafka_wire::messages::{api_versions_response::owned::ApiVersionsResponse, ApiVersionsRequest};
//! use kafka_wire_ext::tokio_codec::{ClientCodec, Outgoing};
//! use tokio_util::codec::Framed;
//!
//! let stream = tokio::net::TcpStream::connect("127.0.0.1:9092").await?;
//! let mut conn = Framed::new(stream, ClientCodec::<16>::new(Some("my-app"), 100 << 20));
//! conn.send(Outgoing::new(ApiVersionsRequest::DEFAULT, 3)).await?;
//! let answer = conn.next().await.ok_or("closed")??;
//! let versions: ApiVersionsResponse = answer.parse()?;
//! # Ok(()) }
//! ```

use std::fmt;

use std::ops::Range;

use kafka_wire::bytes::{Bytes, BytesMut};
use kafka_wire::conn::{frame_size, Client, ClientError, CutError, InFlight};
use kafka_wire::frame::{self, Mode};
use kafka_wire::messages::RequestHeader;
use kafka_wire::{
    ApiKey, DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, Message, OwnedMessage, Request, ResponseBody,
};
use tokio_util::codec::{Decoder, Encoder};

/// What can go wrong on a connection driven by [`ClientCodec`] or [`ServerCodec`].
#[derive(Debug)]
#[non_exhaustive]
pub enum CodecError {
    /// The socket failed.
    Io(std::io::Error),
    /// A size prefix that is negative or above the maximum.
    Cut(CutError),
    /// Encoding, a full in-flight table, or a response that answers nothing in flight.
    Client(ClientError),
    /// A request frame whose header does not decode (an unknown API key, a frame too short for
    /// its header); the frame has been taken off the stream.
    Header(DecodeError),
    /// A reply that does not encode; nothing was written.
    Encode(EncodeError),
    /// A reply whose body is of another API than the request it answers; nothing was written.
    WrongReply {
        /// The request's API.
        request: ApiKey,
        /// The body's API.
        reply: ApiKey,
    },
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodecError::Io(e) => write!(f, "{e}"),
            CodecError::Cut(e) => write!(f, "{e}"),
            CodecError::Client(e) => write!(f, "{e}"),
            CodecError::Header(e) => write!(f, "a request header: {e}"),
            CodecError::Encode(e) => write!(f, "encoding a reply: {e}"),
            CodecError::WrongReply { request, reply } => {
                write!(f, "a {} body cannot answer a {} request", reply.name(), request.name())
            }
        }
    }
}

impl std::error::Error for CodecError {}

impl From<std::io::Error> for CodecError {
    fn from(e: std::io::Error) -> Self {
        CodecError::Io(e)
    }
}

/// A request to send, with the version to send it at.
#[derive(Clone, Copy, Debug)]
pub struct Outgoing<R> {
    /// The request (a view: `kafka_wire::messages::…`).
    pub request: R,
    /// The version.
    pub version: i16,
    /// False for a request the broker does not answer (a Produce with `acks = 0`): it is not
    /// recorded in flight.
    pub answered: bool,
}

impl<R> Outgoing<R> {
    /// `request` at `version`, expecting an answer.
    pub fn new(request: R, version: i16) -> Self {
        Outgoing {
            request,
            version,
            answered: true,
        }
    }
}

/// A response frame paired with the request it answers, as shared bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    /// The request it answers.
    pub in_flight: InFlight,
    /// The whole frame, size prefix included.
    pub frame: Bytes,
}

impl Response {
    /// The frame's body: after the size prefix and the response header.
    pub fn body(&self) -> Result<Bytes, DecodeError> {
        let key = self.in_flight.api_key;
        let payload = self.frame.get(4..).unwrap_or_default();
        let (_, body) = frame::split_response_header(payload, key.response_header_version(self.in_flight.version))
            .map_err(|e| e.shifted(4))?;
        Ok(self.frame.slice(self.frame.len() - body.len()..))
    }

    /// The body decoded as an owned value (the request's response type: `T` must be it), its
    /// bytes and records slicing the frame's buffer. An ApiVersions answer in version 0's shape
    /// is read at version 0 (`frame::reads_v0_fallback`).
    pub fn parse<T: OwnedMessage>(&self) -> Result<T, DecodeError> {
        let body = self.body()?;
        let v = self.in_flight.version;
        match T::parse_bytes(body.clone(), v) {
            Err(e) if frame::reads_v0_fallback(self.in_flight.api_key.id(), v) => {
                T::parse_bytes(body, 0).map_err(|_| e)
            }
            r => r,
        }
    }

    /// The frame decoded as a view, by the request's API key and version (error offsets count
    /// from the size prefix).
    pub fn view(&self, mode: Mode) -> Result<frame::ResponseFrame<'_>, DecodeError> {
        // The codec cut the frame by its prefix: the payload after it is the whole frame's.
        let payload = self.frame.get(4..).unwrap_or_default();
        frame::parse_response(payload, self.in_flight.api_key, self.in_flight.version, mode).map_err(|e| e.shifted(4))
    }
}

/// A client connection's codec: up to `N` requests in flight, frames up to a maximum size.
#[derive(Debug)]
pub struct ClientCodec<const N: usize> {
    client: Client<N>,
    client_id: Option<String>,
    max_frame: usize,
}

impl<const N: usize> ClientCodec<N> {
    /// A codec naming itself `client_id` in each request header, refusing response frames
    /// larger than `max_frame` bytes.
    pub fn new(client_id: Option<&str>, max_frame: usize) -> Self {
        ClientCodec {
            client: Client::new(),
            client_id: client_id.map(str::to_owned),
            max_frame,
        }
    }

    /// The conversation's state (requests in flight).
    pub fn client(&self) -> &Client<N> {
        &self.client
    }
}

impl<'a, R: Request<'a>, const N: usize> Encoder<Outgoing<R>> for ClientCodec<N> {
    type Error = CodecError;

    fn encode(&mut self, item: Outgoing<R>, dst: &mut BytesMut) -> Result<(), CodecError> {
        let id = self.client_id.as_deref();
        let send = |c: &mut Client<N>, out: &mut [u8]| {
            if item.answered {
                c.send(&item.request, item.version, id, out)
            } else {
                c.send_unanswered(&item.request, item.version, id, out)
            }
        };
        // Sized by a first pass into no room, then written in place into the buffer's tail.
        let needed = match send(&mut self.client, &mut []) {
            Err(ClientError::Encode(e)) => match e.kind() {
                EncodeErrorKind::BufferTooShort { needed } => needed,
                _ => return Err(CodecError::Client(ClientError::Encode(e))),
            },
            Err(e) => return Err(CodecError::Client(e)),
            Ok(_) => 0,
        };
        let start = dst.len();
        dst.resize(start + needed, 0);
        match send(&mut self.client, &mut dst[start..]) {
            Ok(sent) => {
                dst.truncate(start + sent.len);
                Ok(())
            }
            Err(e) => {
                dst.truncate(start);
                Err(CodecError::Client(e))
            }
        }
    }
}

impl<const N: usize> Decoder for ClientCodec<N> {
    type Item = Response;
    type Error = CodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Response>, CodecError> {
        let Some(frame) = cut(src, self.max_frame)? else {
            return Ok(None);
        };
        let in_flight = self.client.answered(&frame).map_err(CodecError::Client)?;
        Ok(Some(Response { in_flight, frame }))
    }
}

/// The next whole frame (size prefix included) split off the front of `src` without a copy, or
/// nothing until one has arrived. The size prefix is checked against `max_frame` first, and the
/// buffer grows towards the announced frame in steps of at most
/// [`GROW_STEP`](kafka_wire::conn::GROW_STEP), as its bytes arrive; it is given back after a
/// frame larger than that.
fn cut(src: &mut BytesMut, max_frame: usize) -> Result<Option<Bytes>, CodecError> {
    let Some(&prefix) = src.first_chunk::<4>() else {
        src.reserve(4);
        return Ok(None);
    };
    let size = frame_size(prefix, max_frame).map_err(CodecError::Cut)?;
    if src.len() < 4 + size {
        // More room only once what is there is full, and in steps: memory follows the bytes
        // that arrived, not the size a peer announced.
        if src.len() == src.capacity() {
            src.reserve((4 + size - src.len()).min(kafka_wire::conn::GROW_STEP));
        }
        return Ok(None);
    }
    let frame = src.split_to(4 + size).freeze();
    if src.is_empty() && src.capacity() > kafka_wire::conn::GROW_STEP {
        // Give back the memory of a large frame.
        *src = BytesMut::new();
    }
    Ok(Some(frame))
}

/// A request frame as a server reads it: the header's facts, and the whole frame as shared
/// bytes, from which the body decodes as owned values slicing it or as views over it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncomingRequest {
    /// The API.
    pub api_key: ApiKey,
    /// The version the request was sent at (kafka-wire may not know it: [`view`](Self::view)
    /// and [`parse`](Self::parse) then fail with `UnsupportedVersion`).
    pub api_version: i16,
    /// The correlation id, which the reply must carry.
    pub correlation_id: i32,
    /// The request header version (0, 1 or 2) that API and version use.
    pub header_version: i16,
    /// The whole frame, size prefix included.
    pub frame: Bytes,
    /// Where the client id's bytes are in the frame (`None` when null).
    client_id: Option<Range<usize>>,
    /// Where the body starts in the frame.
    body_start: usize,
}

impl IncomingRequest {
    /// The client id of the header (`Some("")` at header version 0, which has none).
    pub fn client_id(&self) -> Option<&str> {
        let range = self.client_id.clone()?;
        // The header decoded, so these bytes are the client id's, checked UTF-8.
        std::str::from_utf8(self.frame.get(range).unwrap_or_default()).ok()
    }

    /// The body: the frame after the size prefix and the header.
    pub fn body(&self) -> Bytes {
        self.frame.slice(self.body_start.min(self.frame.len())..)
    }

    /// The body decoded as an owned value at the request's version (`T` must be the request
    /// type of its API), its bytes and records slicing the frame's buffer. Error offsets count
    /// from the body's first byte.
    pub fn parse<T: OwnedMessage>(&self) -> Result<T, DecodeError> {
        T::parse_bytes(self.body(), self.api_version)
    }

    /// The frame decoded as a view (`frame::parse_request_frame`).
    pub fn view(&self, mode: Mode) -> Result<frame::RequestFrame<'_>, DecodeError> {
        frame::parse_request_frame(&self.frame, mode)
    }

    /// A reply to this request: `body` at the request's version, under its correlation id.
    pub fn reply<'b>(&self, body: ResponseBody<'b>) -> Reply<'b> {
        Reply {
            api_key: self.api_key,
            correlation_id: self.correlation_id,
            version: self.api_version,
            body,
        }
    }

    /// Reads the header of a whole request frame.
    fn read(frame: Bytes) -> Result<IncomingRequest, DecodeError> {
        let payload = frame.get(4..).unwrap_or_default();
        // The API key and version come first in every header version; they say which one follows.
        let Some(&[k0, k1, v0, v1]) = payload.first_chunk::<4>() else {
            return Err(DecodeError::new_at(
                DecodeErrorKind::UnexpectedEof {
                    needed: 4 - payload.len(),
                },
                frame.len(),
                "RequestHeader",
                -1,
                if payload.len() < 2 {
                    "request_api_key"
                } else {
                    "request_api_version"
                },
            ));
        };
        let key = i16::from_be_bytes([k0, k1]);
        let Some(api_key) = ApiKey::from_i16(key) else {
            return Err(DecodeError::new_at(
                DecodeErrorKind::UnknownApiKey { key: i32::from(key) },
                4,
                "RequestHeader",
                -1,
                "request_api_key",
            ));
        };
        let header_version = api_key.request_header_version(i16::from_be_bytes([v0, v1]));
        let (header, rest) = RequestHeader::parse_lenient(payload, header_version).map_err(|e| e.shifted(4))?;
        let body_start = frame.len() - rest.len();
        // The parsed client id borrows the frame: its place is where its bytes are. Header
        // version 0 has none.
        let client_id = match (header_version, header.client_id) {
            (0, _) => Some(0..0),
            (_, Some(id)) => {
                let start = (id.as_ptr() as usize).wrapping_sub(frame.as_ptr() as usize);
                Some(start..start.wrapping_add(id.len()))
            }
            (_, None) => None,
        };
        let client_id = client_id.filter(|r| frame.get(r.clone()).is_some());
        Ok(IncomingRequest {
            api_key,
            api_version: header.request_api_version,
            correlation_id: header.correlation_id,
            header_version,
            frame,
            client_id,
            body_start,
        })
    }
}

/// A response to send: its body and the facts of the request it answers
/// ([`IncomingRequest::reply`]).
#[derive(Clone, Copy, Debug)]
pub struct Reply<'a> {
    /// The API of the request answered; the body must be of the same API.
    pub api_key: ApiKey,
    /// The request's correlation id.
    pub correlation_id: i32,
    /// The version the body is encoded at: the request's, or 0 for an ApiVersions request at a
    /// version the server does not speak ([`at_version`](Self::at_version)).
    pub version: i16,
    /// The body.
    pub body: ResponseBody<'a>,
}

impl Reply<'_> {
    /// The same reply encoded at `version`. A server answers an ApiVersions request at a
    /// version it does not speak at version 0, with `UNSUPPORTED_VERSION` and its own
    /// ApiVersions range, as Kafka's brokers do; clients read that shape at any version.
    pub fn at_version(self, version: i16) -> Self {
        Reply { version, ..self }
    }
}

/// A server connection's codec: the decoder yields each request frame with its header read
/// ([`IncomingRequest`]), refusing frames larger than a maximum; the encoder writes each
/// [`Reply`] as a response frame whose header version is the one its API and version use
/// (version 0 for ApiVersions, whatever the version; version 1 for flexible versions of the
/// others).
///
/// Kafka clients read the responses of a connection in the order they sent the requests:
/// reply in that order.
///
/// A request whose header does not decode ends the stream with [`CodecError::Header`], as a
/// Kafka broker closes such a connection.
#[derive(Clone, Debug)]
pub struct ServerCodec {
    max_frame: usize,
}

impl ServerCodec {
    /// A codec refusing request frames larger than `max_frame` bytes (after the size prefix;
    /// Kafka's brokers take 100 MiB by default, `socket.request.max.bytes`).
    pub fn new(max_frame: usize) -> Self {
        ServerCodec { max_frame }
    }
}

impl Decoder for ServerCodec {
    type Item = IncomingRequest;
    type Error = CodecError;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<IncomingRequest>, CodecError> {
        let Some(frame) = cut(src, self.max_frame)? else {
            return Ok(None);
        };
        IncomingRequest::read(frame).map(Some).map_err(CodecError::Header)
    }
}

impl<'a> Encoder<Reply<'a>> for ServerCodec {
    type Error = CodecError;

    fn encode(&mut self, item: Reply<'a>, dst: &mut BytesMut) -> Result<(), CodecError> {
        let reply = item.body.key();
        if reply != item.api_key {
            return Err(CodecError::WrongReply {
                request: item.api_key,
                reply,
            });
        }
        let start = dst.len();
        match frame::encode_response_frame_into(item.correlation_id, &item.body, item.version, dst) {
            Ok(_) => Ok(()),
            Err(e) => {
                dst.truncate(start);
                Err(CodecError::Encode(e))
            }
        }
    }
}
