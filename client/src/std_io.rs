//! A blocking driver over `std::net` (feature `std`): the producer on the caller's thread, a
//! reader thread per connection cutting response frames, the wall clock as the producer's.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use kafka_wire::conn::{Cut, FrameCutter, Growable};

use crate::producer::{ConnId, Delivery, Event, Producer, Record, RecordId, SendError, TopicId};

/// The largest response frame read (Metadata of a large cluster stays far below).
pub const MAX_FRAME: usize = 16 << 20;

/// Why the driver stopped.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The record was refused (see [`SendError`]); with `NotReady` or `Full`, after waiting
    /// the given time.
    Send(SendError),
    /// A request could not be encoded into the output buffer.
    Transmit(crate::producer::TransmitError),
    /// Waiting for the producer took longer than allowed.
    Timeout,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Send(e) => write!(f, "{e}"),
            Error::Transmit(e) => write!(f, "{e}"),
            Error::Timeout => f.write_str("timed out waiting for the producer"),
        }
    }
}

impl std::error::Error for Error {}

enum Msg {
    Frame { conn: u8, gen: u64, frame: Vec<u8> },
    Closed { conn: u8, gen: u64 },
}

/// The caller's log of connection events.
type Log<'c> = Box<dyn FnMut(&str) + 'c>;

struct Sock {
    stream: TcpStream,
    gen: u64,
}

/// A [`Producer`] driven over TCP from the calling thread. Delivery reports go to the callback
/// each call is given.
pub struct StdProducer<'c, const P: usize, const S: usize, const B: usize, const C: usize> {
    producer: Producer<'c, P, S, B, C>,
    socks: Vec<Option<Sock>>,
    tx: Sender<Msg>,
    rx: Receiver<Msg>,
    out: Vec<u8>,
    gen: u64,
    /// What each connection event was, for the caller's log.
    log: Option<Log<'c>>,
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl<'c, const P: usize, const S: usize, const B: usize, const C: usize> StdProducer<'c, P, S, B, C> {
    /// Drives `producer`; requests are encoded into a buffer of `max_request` bytes (at least
    /// one batch buffer and its request's header).
    pub fn new(producer: Producer<'c, P, S, B, C>, max_request: usize) -> Self {
        let (tx, rx) = mpsc::channel();
        StdProducer {
            producer,
            socks: (0..C).map(|_| None).collect(),
            tx,
            rx,
            out: vec![0; max_request.max(B + 1024)],
            gen: 0,
            log: None,
        }
    }

    /// Has `log` told of each connection opened, closed or failed.
    pub fn with_log(mut self, log: impl FnMut(&str) + 'c) -> Self {
        self.log = Some(Box::new(log));
        self
    }

    /// The producer.
    pub fn producer(&self) -> &Producer<'c, P, S, B, C> {
        &self.producer
    }

    fn note(&mut self, what: &str) {
        if let Some(l) = self.log.as_mut() {
            l(what);
        }
    }

    /// Does what is due without waiting; with `wait`, first waits for an answer or the next
    /// timeout, at most `max_wait`.
    fn step(&mut self, wait: Option<Duration>, on: &mut dyn FnMut(Delivery)) -> Result<(), Error> {
        let mut now = now_ms();
        loop {
            let mut busy = false;
            while let Some(ev) = self.producer.poll_event(now) {
                busy = true;
                match ev {
                    Event::Delivery(d) => on(d),
                    Event::Connect { conn, host, port } => {
                        let addr = format!("{host}:{port}");
                        self.connect(conn, &addr, now);
                    }
                    Event::Close { conn, why } => {
                        self.note(&format!("closing connection {}: {why:?}", conn.0));
                        self.drop_sock(conn);
                        self.producer.on_closed(conn, now);
                    }
                }
                now = now_ms();
            }
            while let Some(t) = self
                .producer
                .poll_transmit(now, &mut self.out)
                .map_err(Error::Transmit)?
            {
                busy = true;
                let frame = self.out.get(..t.len).unwrap_or_default();
                let written = match self.socks.get_mut(usize::from(t.conn.0)).and_then(Option::as_mut) {
                    Some(s) => s.stream.write_all(frame).is_ok(),
                    None => false,
                };
                if !written {
                    self.note(&format!("connection {} failed on write", t.conn.0));
                    self.drop_sock(t.conn);
                    self.producer.on_closed(t.conn, now);
                }
            }
            // Answers already read.
            while let Ok(m) = self.rx.try_recv() {
                busy = true;
                self.take(m, now);
            }
            if !busy {
                break;
            }
            now = now_ms();
        }
        if let Some(max) = wait {
            let until = self
                .producer
                .next_timeout()
                .map_or(max, |t| Duration::from_millis(t.saturating_sub(now)).min(max));
            match self.rx.recv_timeout(until) {
                Ok(m) => {
                    self.take(m, now_ms());
                    return self.step(None, on);
                }
                Err(RecvTimeoutError::Timeout) => return self.step(None, on),
                Err(RecvTimeoutError::Disconnected) => {}
            }
        }
        Ok(())
    }

    fn take(&mut self, m: Msg, now: u64) {
        match m {
            Msg::Frame { conn, gen, frame } => {
                if self.current(conn, gen) {
                    if let Err(e) = self.producer.on_frame(ConnId(conn), &frame, now) {
                        self.note(&format!("connection {conn}: {e}"));
                    }
                }
            }
            Msg::Closed { conn, gen } => {
                if self.current(conn, gen) {
                    self.note(&format!("connection {conn} closed by the broker"));
                    self.drop_sock(ConnId(conn));
                    self.producer.on_closed(ConnId(conn), now);
                }
            }
        }
    }

    fn current(&self, conn: u8, gen: u64) -> bool {
        self.socks
            .get(usize::from(conn))
            .and_then(Option::as_ref)
            .is_some_and(|s| s.gen == gen)
    }

    fn drop_sock(&mut self, conn: ConnId) {
        if let Some(s) = self.socks.get_mut(usize::from(conn.0)).and_then(Option::take) {
            let _ = s.stream.shutdown(Shutdown::Both);
        }
    }

    fn connect(&mut self, conn: ConnId, addr: &str, now: u64) {
        let stream = addr
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next())
            .and_then(|a| TcpStream::connect_timeout(&a, Duration::from_secs(10)).ok());
        let Some(stream) = stream else {
            self.note(&format!("connection {} to {addr} failed", conn.0));
            self.producer.on_closed(conn, now);
            return;
        };
        let _ = stream.set_nodelay(true);
        let Ok(reader) = stream.try_clone() else {
            self.producer.on_closed(conn, now);
            return;
        };
        self.gen += 1;
        let gen = self.gen;
        let tx = self.tx.clone();
        let c = conn.0;
        std::thread::spawn(move || read_frames(reader, c, gen, &tx));
        if let Some(slot) = self.socks.get_mut(usize::from(conn.0)) {
            *slot = Some(Sock { stream, gen });
        }
        self.note(&format!("connection {} to {addr} open", conn.0));
        self.producer.on_connected(conn, now_ms());
    }

    /// Waits until the topic's partitions are known (or Metadata reports an error that a retry
    /// does not mend), at most `max`.
    pub fn wait_ready(&mut self, topic: TopicId, max: Duration, on: &mut dyn FnMut(Delivery)) -> Result<i32, Error> {
        let start = Instant::now();
        loop {
            if let Some(n) = self.producer.partitions(topic) {
                return Ok(n);
            }
            if let Some(e) = self.producer.topic_error(topic).filter(|e| !e.is_retriable()) {
                return Err(Error::Send(SendError::Topic(e)));
            }
            let left = max.checked_sub(start.elapsed()).ok_or(Error::Timeout)?;
            self.step(Some(left.min(Duration::from_millis(100))), on)?;
        }
    }

    /// Hands a record to the producer, driving the connections while it has no room (at most
    /// `max_wait`), and does what falls due.
    pub fn send(
        &mut self,
        topic: TopicId,
        partition: Option<i32>,
        record: &Record<'_>,
        max_wait: Duration,
        on: &mut dyn FnMut(Delivery),
    ) -> Result<RecordId, Error> {
        let start = Instant::now();
        loop {
            let now = now_ms();
            match self.producer.send(topic, partition, record, now) {
                Ok(id) => {
                    if self.producer.next_timeout().is_some_and(|t| t <= now) {
                        self.step(None, on)?;
                    }
                    return Ok(id);
                }
                Err(SendError::Full | SendError::NotReady) => {
                    let left = max_wait.checked_sub(start.elapsed()).ok_or(Error::Timeout)?;
                    self.step(Some(left.min(Duration::from_millis(100))), on)?;
                }
                Err(e) => return Err(Error::Send(e)),
            }
        }
    }

    /// Sends every open batch and waits until every record is reported, at most `max`.
    pub fn flush(&mut self, max: Duration, on: &mut dyn FnMut(Delivery)) -> Result<(), Error> {
        let start = Instant::now();
        self.producer.flush();
        loop {
            self.step(None, on)?;
            if self.producer.pending() == 0 {
                return Ok(());
            }
            let left = max.checked_sub(start.elapsed()).ok_or(Error::Timeout)?;
            self.step(Some(left.min(Duration::from_millis(100))), on)?;
        }
    }
}

impl<const P: usize, const S: usize, const B: usize, const C: usize> Drop for StdProducer<'_, P, S, B, C> {
    fn drop(&mut self) {
        for s in self.socks.iter_mut().filter_map(Option::take) {
            let _ = s.stream.shutdown(Shutdown::Both);
        }
    }
}

/// Cuts frames from `stream` and hands each to the driver; says when the stream ends or
/// breaks.
fn read_frames(mut stream: TcpStream, conn: u8, gen: u64, tx: &Sender<Msg>) {
    let mut cut = FrameCutter::new(Growable::new(64 << 10), MAX_FRAME);
    loop {
        match cut.next_frame() {
            Ok(Cut::Frame(f)) => {
                if tx
                    .send(Msg::Frame {
                        conn,
                        gen,
                        frame: f.to_vec(),
                    })
                    .is_err()
                {
                    return;
                }
                continue;
            }
            Ok(Cut::NeedMore(_)) => {}
            Err(_) => break,
        }
        match stream.read(cut.space()) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Ok(0) | Err(_) => break,
            Ok(n) => cut.filled(n),
        }
    }
    let _ = tx.send(Msg::Closed { conn, gen });
}
