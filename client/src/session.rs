//! What a driver needs of a client: the producer and the consumer both are a [`Session`], so
//! one driver of a transport serves either.

use crate::cluster::{ConnEvent, ConnId, ProtocolError, Transmit, TransmitError};

/// A client without I/O, as drivers see it: connections to open and close, request frames to
/// write, response frames to hand back, a clock, and what it has for the host
/// ([`Output`](Self::Output): a producer's delivery reports, a consumer's records).
pub trait Session {
    /// What the client hands its host: borrowed from a response frame for a consumer.
    type Output<'f>;

    /// Hands `on` what is waiting for the host, then the next connection to open or close.
    fn poll_conn(&mut self, now: u64, on: &mut impl FnMut(Self::Output<'_>)) -> Option<ConnEvent<'_>>;

    /// Encodes the next request frame due into `out`.
    fn poll_transmit(&mut self, now: u64, out: &mut [u8]) -> Result<Option<Transmit>, TransmitError>;

    /// A whole response frame read on `conn`; what it brings for the host goes to `on`. An
    /// error means the client will ask for the connection to be closed.
    fn on_frame(
        &mut self,
        conn: ConnId,
        frame: &[u8],
        now: u64,
        on: &mut impl FnMut(Self::Output<'_>),
    ) -> Result<(), ProtocolError>;

    /// A connection opened.
    fn on_connected(&mut self, conn: ConnId, now: u64);

    /// A connection closed or failed to open.
    fn on_closed(&mut self, conn: ConnId, now: u64);

    /// When the client wants to be called again, if it has a time in mind.
    fn next_timeout(&self) -> Option<u64>;
}

/// What stopped a driver's `poll`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DriverError {
    /// A request does not fit the output buffer (`O`).
    Transmit(TransmitError),
}

impl core::fmt::Display for DriverError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DriverError::Transmit(e) => write!(f, "{e}"),
        }
    }
}
