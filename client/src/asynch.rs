//! A driver over `embedded-io-async` streams (feature `embedded-io-async`): the async TCP
//! sockets of embassy-net, or tokio's through `embedded-io-adapters`. No allocator, no task of
//! its own: [`AsyncDriver::poll`] is awaited in a loop by the host's task, with the host's clock
//! and timer. It drives any [`Session`]: the producer or the consumer.
//!
//! One task serves every connection: while it waits, it polls a read on each open stream and
//! the host's timer, and takes whichever is ready first. A read that is not ready is dropped and
//! made again on the next wake-up, so reads must be cancel-safe (nothing is lost when a read
//! future is dropped before it completes), as the reads of embassy-net's `TcpSocket` and of tokio's
//! `TcpStream` are.

use core::future::{poll_fn, Future};
use core::pin::pin;
use core::task::Poll;

use embedded_io_async::{Read, Write};
use heapless::String;
use kafka_wire::conn::{Cut, FrameCutter, Storage};

use crate::cluster::{ConnEvent, ConnId, MAX_HOST};
use crate::session::{DriverError, Session};

/// Opens connections for the client: a TCP stack's sockets.
#[allow(async_fn_in_trait)] // Futures of the host's own executor; no Send bound is wanted.
pub trait AsyncConnector {
    /// A connection.
    type Stream: Read + Write;
    /// Opens connection `conn` to `host:port`; `None` when it cannot (the client tries again
    /// after its reconnect backoff).
    async fn connect(&mut self, conn: ConnId, host: &str, port: u16) -> Option<Self::Stream>;
}

/// The connections of one client: `C` streams, each cutting its response frames in a
/// [`FrameCutter`] over storage `St` (a fixed array on a device, `Growable` with an
/// allocator), and an output buffer `O` for requests (for a producer, at least a batch buffer
/// and 128 bytes).
pub struct AsyncDriver<K: AsyncConnector, St: Storage, O: AsMut<[u8]>, const C: usize> {
    streams: [Option<K::Stream>; C],
    cutters: [FrameCutter<St>; C],
    out: O,
}

impl<K: AsyncConnector, St: Storage, O: AsMut<[u8]>, const C: usize> AsyncDriver<K, St, O, C> {
    /// No connection open; `cutters` cut each connection's frames, `out` holds requests.
    pub fn new(cutters: [FrameCutter<St>; C], out: O) -> Self {
        AsyncDriver {
            streams: [const { None }; C],
            cutters,
            out,
        }
    }

    fn lost(&mut self, i: usize) {
        if let Some(s) = self.streams.get_mut(i) {
            *s = None;
        }
        if let Some(c) = self.cutters.get_mut(i) {
            let n = c.pending().len();
            c.discard(n);
        }
    }

    /// Does everything due (opens and closes connections, writes the requests due), then
    /// waits until a connection brings bytes or the client's next timeout comes, at most
    /// `max_wait_ms`, and hands whole frames to the client. What the client has for the host
    /// (delivery reports, records) goes to `on`. `clock` gives the host's milliseconds;
    /// `sleep(ms)` is the host's timer.
    pub async fn poll<Se: Session, F: Future<Output = ()>>(
        &mut self,
        client: &mut Se,
        connector: &mut K,
        clock: &impl Fn() -> u64,
        sleep: impl FnOnce(u64) -> F,
        max_wait_ms: u64,
        on: &mut impl FnMut(Se::Output<'_>),
    ) -> Result<(), DriverError> {
        loop {
            let now = clock();
            let mut busy = false;
            while let Some(ev) = client.poll_conn(now, on) {
                busy = true;
                match ev {
                    ConnEvent::Connect { conn, host, port } => {
                        let i = usize::from(conn.0);
                        let Ok(host) = String::<MAX_HOST>::try_from(host) else {
                            client.on_closed(conn, clock());
                            continue;
                        };
                        match connector.connect(conn, &host, port).await {
                            Some(s) => {
                                self.lost(i);
                                if let Some(slot) = self.streams.get_mut(i) {
                                    *slot = Some(s);
                                }
                                client.on_connected(conn, clock());
                            }
                            None => client.on_closed(conn, clock()),
                        }
                    }
                    ConnEvent::Close { conn, .. } => {
                        self.lost(usize::from(conn.0));
                        client.on_closed(conn, now);
                    }
                }
            }
            while let Some(t) = client
                .poll_transmit(now, self.out.as_mut())
                .map_err(DriverError::Transmit)?
            {
                busy = true;
                let i = usize::from(t.conn.0);
                let frame = self.out.as_mut().get(..t.len).unwrap_or_default();
                let ok = match self.streams.get_mut(i).and_then(Option::as_mut) {
                    Some(s) => s.write_all(frame).await.is_ok() && s.flush().await.is_ok(),
                    None => false,
                };
                if !ok {
                    self.lost(i);
                    client.on_closed(t.conn, clock());
                }
            }
            if !busy {
                break;
            }
        }
        let now = clock();
        let wait = client
            .next_timeout()
            .map_or(max_wait_ms, |t| t.saturating_sub(now).min(max_wait_ms));
        let mut timer = pin!(sleep(wait));
        let streams = &mut self.streams;
        let cutters = &mut self.cutters;
        let got = poll_fn(|cx| {
            for (i, (s, cut)) in streams.iter_mut().zip(cutters.iter_mut()).enumerate() {
                let Some(s) = s else { continue };
                let read = pin!(s.read(cut.space()));
                if let Poll::Ready(r) = read.poll(cx) {
                    return Poll::Ready(Some((i, r.ok())));
                }
            }
            timer.as_mut().poll(cx).map(|()| None)
        })
        .await;
        let Some((i, read)) = got else { return Ok(()) };
        let conn = ConnId(i as u8);
        let now = clock();
        let Some(cut) = self.cutters.get_mut(i) else {
            return Ok(());
        };
        match read {
            Some(n) if n > 0 => cut.filled(n),
            // The stream ended or failed.
            _ => {
                self.lost(i);
                client.on_closed(conn, now);
                return Ok(());
            }
        }
        loop {
            match cut.next_frame() {
                // A broken answer makes the client close the connection (an event).
                Ok(Cut::Frame(f)) => {
                    let _ = client.on_frame(conn, f, now, on);
                }
                Ok(Cut::NeedMore(_)) => return Ok(()),
                Err(_) => {
                    self.lost(i);
                    client.on_closed(conn, now);
                    return Ok(());
                }
            }
        }
    }
}
