//! A driver over `embedded-io` streams (feature `embedded-io`), for firmware: no allocator, no
//! threads; the host calls [`Driver::poll`] from its main loop with its clock. It drives any
//! [`Session`]: the client or the consumer.
//!
//! The host's TCP stack (or serial link) opens connections through a [`Connector`]; each
//! stream must say whether a read would block ([`embedded_io::ReadReady`]), so one loop serves
//! every connection without waiting on any.

use embedded_io::{Read, ReadReady, Write};
use kafka_wire::conn::{Cut, FrameCutter};

use crate::cluster::{ConnEvent, ConnId};
pub use crate::session::DriverError;
use crate::session::Session;

/// Opens connections for the client: a TCP stack's sockets, or a serial link.
pub trait Connector {
    /// A connection.
    type Stream: Read + Write + ReadReady;
    /// Opens connection `conn` to `host:port`; `None` when it cannot (the client tries again
    /// after its reconnect backoff).
    fn connect(&mut self, conn: ConnId, host: &str, port: u16) -> Option<Self::Stream>;
}

/// The connections of one client: `C` streams, each with a buffer of `R` bytes where its
/// response frames are cut (the largest answer the client reads: for a client, Metadata of
/// its topics; for a consumer, a Fetch answer), and one output buffer of `O` bytes for requests
/// (for a client, at least a batch buffer and 128 bytes).
pub struct Driver<K: Connector, const C: usize, const R: usize, const O: usize> {
    streams: [Option<K::Stream>; C],
    cutters: [FrameCutter<[u8; R]>; C],
    out: [u8; O],
}

impl<K: Connector, const C: usize, const R: usize, const O: usize> Default for Driver<K, C, R, O> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Connector, const C: usize, const R: usize, const O: usize> Driver<K, C, R, O> {
    /// No connection open.
    pub fn new() -> Self {
        Driver {
            streams: [const { None }; C],
            cutters: core::array::from_fn(|_| FrameCutter::new([0; R], R.saturating_sub(4))),
            out: [0; O],
        }
    }

    fn lost(&mut self, i: usize) {
        if let Some(s) = self.streams.get_mut(i) {
            *s = None;
        }
        if let Some(c) = self.cutters.get_mut(i) {
            *c = FrameCutter::new([0; R], R.saturating_sub(4));
        }
    }

    /// Does everything due at `now`: opens and closes connections, writes the requests due,
    /// reads what each connection has ready and hands its whole frames to the client, and
    /// gives what the client has for the host (delivery reports, records) to `on`. Blocks only
    /// while a request is written.
    pub fn poll<Se: Session>(
        &mut self,
        client: &mut Se,
        connector: &mut K,
        now: u64,
        on: &mut impl FnMut(Se::Output<'_>),
    ) -> Result<(), DriverError> {
        loop {
            let mut busy = false;
            while let Some(ev) = client.poll_conn(now, on) {
                busy = true;
                match ev {
                    ConnEvent::Connect { conn, host, port } => {
                        let i = usize::from(conn.0);
                        match connector.connect(conn, host, port) {
                            Some(s) => {
                                self.lost(i);
                                if let Some(slot) = self.streams.get_mut(i) {
                                    *slot = Some(s);
                                }
                                client.on_connected(conn, now);
                            }
                            None => client.on_closed(conn, now),
                        }
                    }
                    ConnEvent::Close { conn, .. } => {
                        self.lost(usize::from(conn.0));
                        client.on_closed(conn, now);
                    }
                }
            }
            while let Some(t) = client
                .poll_transmit(now, &mut self.out)
                .map_err(DriverError::Transmit)?
            {
                busy = true;
                let i = usize::from(t.conn.0);
                let frame = self.out.get(..t.len).unwrap_or_default();
                let ok = match self.streams.get_mut(i).and_then(Option::as_mut) {
                    Some(s) => s.write_all(frame).is_ok() && s.flush().is_ok(),
                    None => false,
                };
                if !ok {
                    self.lost(i);
                    client.on_closed(t.conn, now);
                }
            }
            for i in 0..C {
                if self.read(i, client, now, on) {
                    busy = true;
                }
            }
            if !busy {
                return Ok(());
            }
        }
    }

    /// Reads what connection `i` has ready and hands each whole frame to the client; whether
    /// anything was read.
    fn read<Se: Session>(&mut self, i: usize, client: &mut Se, now: u64, on: &mut impl FnMut(Se::Output<'_>)) -> bool {
        let conn = ConnId(i as u8);
        let (Some(Some(stream)), Some(cut)) = (self.streams.get_mut(i), self.cutters.get_mut(i)) else {
            return false;
        };
        let mut any = false;
        let mut broken = false;
        loop {
            match cut.next_frame() {
                Ok(Cut::Frame(f)) => {
                    any = true;
                    // A broken answer makes the client close the connection (an event).
                    let _ = client.on_frame(conn, f, now, on);
                    continue;
                }
                Ok(Cut::NeedMore(_)) => {}
                Err(_) => {
                    broken = true;
                    break;
                }
            }
            match stream.read_ready() {
                Ok(true) => {}
                Ok(false) => break,
                Err(_) => {
                    broken = true;
                    break;
                }
            }
            match stream.read(cut.space()) {
                Ok(0) | Err(_) => {
                    broken = true;
                    break;
                }
                Ok(n) => {
                    any = true;
                    cut.filled(n);
                }
            }
        }
        if broken {
            self.lost(i);
            client.on_closed(conn, now);
            return true;
        }
        any
    }
}
