//! A `tokio_util` codec for a Kafka client connection (feature `tokio`), on the connection layer
//! of `kafka_wire::conn`: the encoder numbers each request and records it in flight, the decoder
//! cuts each response frame out of the read buffer without a copy, pairs it with its request
//! and hands it out as shared bytes, which decode as the request's response type, owned values
//! slicing the frame's `Bytes` (`OwnedMessage::parse_bytes`) or views over it.
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

use kafka_wire::bytes::{Bytes, BytesMut};
use kafka_wire::conn::{frame_size, Client, ClientError, CutError, InFlight};
use kafka_wire::frame::{self, Mode};
use kafka_wire::{DecodeError, EncodeErrorKind, OwnedMessage, Request};
use tokio_util::codec::{Decoder, Encoder};

/// What can go wrong on a connection driven by [`ClientCodec`].
#[derive(Debug)]
#[non_exhaustive]
pub enum CodecError {
    /// The socket failed.
    Io(std::io::Error),
    /// A size prefix that is negative or above the maximum.
    Cut(CutError),
    /// Encoding, a full in-flight table, or a response that answers nothing in flight.
    Client(ClientError),
}

impl fmt::Display for CodecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CodecError::Io(e) => write!(f, "{e}"),
            CodecError::Cut(e) => write!(f, "{e}"),
            CodecError::Client(e) => write!(f, "{e}"),
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

    /// The frame decoded as a view, by the request's API key and version.
    pub fn view(&self, mode: Mode) -> Result<frame::ResponseFrame<'_>, DecodeError> {
        frame::parse_response_frame(&self.frame, self.in_flight.api_key, self.in_flight.version, mode)
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
        let Some(&prefix) = src.first_chunk::<4>() else {
            src.reserve(4);
            return Ok(None);
        };
        let size = frame_size(prefix, self.max_frame).map_err(CodecError::Cut)?;
        if src.len() < 4 + size {
            // Room for what has arrived, in steps: not the whole announced frame at once.
            src.reserve((4 + size - src.len()).min(kafka_wire::conn::GROW_STEP));
            return Ok(None);
        }
        let frame = src.split_to(4 + size).freeze();
        let in_flight = self.client.answered(&frame).map_err(CodecError::Client)?;
        if src.is_empty() && src.capacity() > kafka_wire::conn::GROW_STEP {
            // Give back the memory of a large frame.
            *src = BytesMut::new();
        }
        Ok(Some(Response { in_flight, frame }))
    }
}
