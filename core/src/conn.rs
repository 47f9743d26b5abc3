//! Speaking Kafka over a connection, without I/O and without allocating.
//!
//! - [`FrameCutter`] cuts size-prefixed frames out of the bytes a stream delivers, in a buffer
//!   the caller owns (fixed, or `Growable` with `alloc`); "need more bytes" is a status, and a
//!   size prefix is checked against the maximum before anything is kept for its frame.
//! - [`Client`] is a client's side of one connection: correlation ids, a bounded table of
//!   requests in flight, and each response paired with its request and parsed once, as the
//!   request's typed response or by API key.
//! - [`Observer`] watches both directions of one connection (a capture, a proxy, a broker
//!   stub): requests decoded and remembered, responses paired, one [`Event`] type, each frame
//!   parsed once.
//! - [`Blocking`] runs a [`Client`] over a blocking stream ([`Transport`]: `std::io` with
//!   `std`, `embedded-io` with the `embedded-io` feature); `Async` over an
//!   `embedded-io-async` stream (feature `embedded-io-async`).

mod client;
mod cutter;
mod io;
#[cfg(feature = "embedded-io-async")]
mod io_async;
mod observe;

pub use client::{Client, ClientError, InFlight, Received, Sent};
#[cfg(feature = "alloc")]
pub use cutter::Growable;
pub use cutter::{frame_size, Cut, CutError, FrameCutter, Storage, GROW_STEP};
#[cfg(feature = "embedded-io")]
pub use io::EmbeddedIo;
#[cfg(feature = "std")]
pub use io::StdIo;
pub use io::{Blocking, ConnError, Transport};
#[cfg(feature = "embedded-io-async")]
pub use io_async::Async;
pub use observe::{Decoded, Direction, Event, Observer, Pending};
