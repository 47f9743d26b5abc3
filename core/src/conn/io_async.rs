//! The async driver: a [`Client`] over an `embedded-io-async` stream (feature
//! `embedded-io-async`), as embassy-net's TCP sockets implement it.

use embedded_io_async::{Read, Write};

use super::client::{Client, Sent};
use super::cutter::{Cut, FrameCutter, Storage};
use super::io::ConnError;
use crate::codec::Mode;
use crate::frame::TypedResponseFrame;
use crate::generated::api::Request;

/// A client connection over an async byte stream; the same conversation as
/// [`Blocking`](super::Blocking), awaiting the stream instead of blocking on it.
#[derive(Debug)]
pub struct Async<T, S, const N: usize> {
    io: T,
    cut: FrameCutter<S>,
    client: Client<N>,
    client_id: Option<&'static str>,
}

impl<T: Read + Write, S: Storage, const N: usize> Async<T, S, N> {
    /// A connection over `io`, reading into `store` frames of at most `max_frame` bytes, naming
    /// itself `client_id` in each request header.
    pub fn new(io: T, store: S, max_frame: usize, client_id: Option<&'static str>) -> Self {
        Async {
            io,
            cut: FrameCutter::new(store, max_frame),
            client: Client::new(),
            client_id,
        }
    }

    /// The conversation's state.
    pub fn client(&self) -> &Client<N> {
        &self.client
    }

    /// Encodes `req` at `version` into `scratch` and writes it; it is then in flight.
    pub async fn send<'a, R: Request<'a>>(
        &mut self,
        req: &R,
        version: i16,
        scratch: &mut [u8],
    ) -> Result<Sent, ConnError<T::Error>> {
        let sent = self.client.send(req, version, self.client_id, scratch)?;
        let frame = scratch.get(..sent.len).unwrap_or_default();
        self.io.write_all(frame).await.map_err(ConnError::Io)?;
        self.io.flush().await.map_err(ConnError::Io)?;
        Ok(sent)
    }

    /// The next response, which must answer a request of type `R`, decoded as its response.
    pub async fn receive<'a, R: Request<'a>>(
        &mut self,
        mode: Mode,
    ) -> Result<TypedResponseFrame<'_, R::Response<'_>>, ConnError<T::Error>> {
        loop {
            if let Cut::Frame(_) = self.cut.next_frame()? {
                break;
            }
            let space = self.cut.space();
            let n = self.io.read(space).await.map_err(ConnError::Io)?;
            if n == 0 {
                return Err(ConnError::Closed);
            }
            self.cut.filled(n);
        }
        let frame = self.cut.handed();
        Ok(self.client.receive_as::<R>(frame, mode)?)
    }

    /// Sends `req` and waits for its response.
    pub async fn call<'a, R: Request<'a>>(
        &mut self,
        req: &R,
        version: i16,
        scratch: &mut [u8],
        mode: Mode,
    ) -> Result<TypedResponseFrame<'_, R::Response<'_>>, ConnError<T::Error>> {
        self.send(req, version, scratch).await?;
        self.receive::<R>(mode).await
    }
}
