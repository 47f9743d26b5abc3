//! Drivers that run a [`Client`] over a byte stream: blocking over [`Transport`] (with
//! `std::io` and `embedded-io` streams behind features), and async over `embedded-io-async`.

use core::fmt;

use super::client::{Client, ClientError, Sent};
use super::cutter::{Cut, CutError, FrameCutter, Storage};
use crate::codec::Mode;
use crate::frame::TypedResponseFrame;
use crate::generated::api::Request;

/// A blocking byte stream: what a driver needs of a connection.
pub trait Transport {
    /// The stream's error.
    type Error;
    /// Reads at least one byte into `buf`, or returns 0 at the end of the stream.
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error>;
    /// Writes all of `buf`.
    fn write_all(&mut self, buf: &[u8]) -> Result<(), Self::Error>;
    /// Sends what was written.
    fn flush(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// A `std::io` stream as a [`Transport`] (feature `std`).
#[cfg(feature = "std")]
#[derive(Debug)]
pub struct StdIo<T>(pub T);

#[cfg(feature = "std")]
impl<T: std::io::Read + std::io::Write> Transport for StdIo<T> {
    type Error = std::io::Error;
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => return r,
            }
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> Result<(), Self::Error> {
        self.0.write_all(buf)
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        self.0.flush()
    }
}

/// An `embedded-io` stream as a [`Transport`] (feature `embedded-io`): what embassy-net and
/// most embedded TCP stacks implement.
#[cfg(feature = "embedded-io")]
#[derive(Debug)]
pub struct EmbeddedIo<T>(pub T);

#[cfg(feature = "embedded-io")]
impl<T: embedded_io::Read + embedded_io::Write> Transport for EmbeddedIo<T> {
    type Error = T::Error;
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        self.0.read(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> Result<(), Self::Error> {
        self.0.write_all(buf)
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        self.0.flush()
    }
}

/// Why a call over a connection failed. Every kind but a full table or an encoding error ends
/// the connection.
#[derive(Debug)]
#[non_exhaustive]
pub enum ConnError<E> {
    /// The stream failed.
    Io(E),
    /// The stream ended.
    Closed,
    /// The stream cannot be cut into frames (a size prefix that is negative or too large).
    Cut(CutError),
    /// The conversation failed (full table, encoding, pairing or decoding).
    Client(ClientError),
}

impl<E: fmt::Debug> fmt::Display for ConnError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnError::Io(e) => write!(f, "the connection failed: {e:?}"),
            ConnError::Closed => f.write_str("the connection closed"),
            ConnError::Cut(e) => write!(f, "{e}"),
            ConnError::Client(e) => write!(f, "{e}"),
        }
    }
}

impl<E: fmt::Debug> core::error::Error for ConnError<E> {}

impl<E> From<ClientError> for ConnError<E> {
    fn from(e: ClientError) -> Self {
        ConnError::Client(e)
    }
}

impl<E> From<CutError> for ConnError<E> {
    fn from(e: CutError) -> Self {
        ConnError::Cut(e)
    }
}

/// A client connection over a blocking stream: requests are encoded into the caller's scratch
/// buffer and written; responses are read into the cutter's buffer, paired and decoded there,
/// without a copy.
///
/// `call` sends one request and waits for its answer; `send` and `receive` pipeline up to `N`.
#[derive(Debug)]
pub struct Blocking<T, S, const N: usize> {
    io: T,
    cut: FrameCutter<S>,
    client: Client<N>,
    client_id: Option<&'static str>,
}

impl<T: Transport, S: Storage, const N: usize> Blocking<T, S, N> {
    /// A connection over `io`, reading into `store` frames of at most `max_frame` bytes, naming
    /// itself `client_id` in each request header.
    pub fn new(io: T, store: S, max_frame: usize, client_id: Option<&'static str>) -> Self {
        Blocking {
            io,
            cut: FrameCutter::new(store, max_frame),
            client: Client::new(),
            client_id,
        }
    }

    /// The conversation's state (requests in flight, next correlation id).
    pub fn client(&self) -> &Client<N> {
        &self.client
    }

    /// The stream.
    pub fn io_mut(&mut self) -> &mut T {
        &mut self.io
    }

    /// Encodes `req` at `version` into `scratch` and writes it; it is then in flight.
    pub fn send<'a, R: Request<'a>>(
        &mut self,
        req: &R,
        version: i16,
        scratch: &mut [u8],
    ) -> Result<Sent, ConnError<T::Error>> {
        let sent = self.client.send(req, version, self.client_id, scratch)?;
        let frame = scratch.get(..sent.len).unwrap_or_default();
        self.io.write_all(frame).map_err(ConnError::Io)?;
        self.io.flush().map_err(ConnError::Io)?;
        Ok(sent)
    }

    /// Reads until a whole frame is buffered; returns nothing else.
    fn fill(&mut self) -> Result<(), ConnError<T::Error>> {
        loop {
            match self.cut.next_frame()? {
                Cut::Frame(_) => return Ok(()),
                Cut::NeedMore(_) => {}
            }
            // `next_frame` above handed nothing out; the space read into follows the bytes.
            let space = self.cut.space();
            let n = self.io.read(space).map_err(ConnError::Io)?;
            if n == 0 {
                return Err(ConnError::Closed);
            }
            self.cut.filled(n);
        }
    }

    /// The next response, which must answer a request of type `R`, decoded as `R`'s response.
    pub fn receive<'a, R: Request<'a>>(
        &mut self,
        mode: Mode,
    ) -> Result<TypedResponseFrame<'_, R::Response<'_>>, ConnError<T::Error>> {
        self.fill()?;
        let frame = self.cut.handed();
        Ok(self.client.receive_as::<R>(frame, mode)?)
    }

    /// Sends `req` and waits for its response (with nothing else in flight).
    pub fn call<'a, R: Request<'a>>(
        &mut self,
        req: &R,
        version: i16,
        scratch: &mut [u8],
        mode: Mode,
    ) -> Result<TypedResponseFrame<'_, R::Response<'_>>, ConnError<T::Error>> {
        self.send(req, version, scratch)?;
        self.receive::<R>(mode)
    }
}
