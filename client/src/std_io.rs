//! Blocking drivers over `std::net` (feature `std`): the producer or the consumer on the
//! caller's thread, a reader thread per connection cutting response frames, the wall clock as
//! the client's.

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
    Transmit(crate::TransmitError),
    /// Waiting took longer than allowed.
    Timeout,
    /// Metadata reports an error for the topic that a retry does not mend.
    Topic(kafka_wire::ErrorCode),
    /// SASL authentication failed.
    Authentication(kafka_wire::ErrorCode),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Send(e) => write!(f, "{e}"),
            Error::Transmit(e) => write!(f, "{e}"),
            Error::Timeout => f.write_str("timed out waiting for the cluster"),
            Error::Topic(e) => write!(f, "the topic: {e}"),
            Error::Authentication(e) => write!(f, "SASL authentication failed: {e}"),
        }
    }
}

impl std::error::Error for Error {}

enum Msg {
    Frame { conn: u8, gen: u64, frame: Vec<u8> },
    Closed { conn: u8, gen: u64 },
}

/// What a connection's reader thread brought.
enum Incoming {
    Frame(ConnId, Vec<u8>),
    Closed(ConnId),
}

/// The caller's log of connection events.
type Log<'c> = Box<dyn FnMut(&str) + 'c>;

struct Sock {
    stream: TcpStream,
    gen: u64,
}

/// The sockets of a driver: one per connection of the client, each with a reader thread that
/// cuts frames and sends them over one channel; a connection's generation tells the frames of
/// a closed socket from those of its successor.
struct Net<'c> {
    socks: Vec<Option<Sock>>,
    tx: Sender<Msg>,
    rx: Receiver<Msg>,
    gen: u64,
    /// What each connection event was, for the caller's log.
    log: Option<Log<'c>>,
}

impl Net<'_> {
    fn new(conns: usize) -> Self {
        let (tx, rx) = mpsc::channel();
        Net {
            socks: (0..conns).map(|_| None).collect(),
            tx,
            rx,
            gen: 0,
            log: None,
        }
    }

    fn note(&mut self, what: &str) {
        if let Some(l) = self.log.as_mut() {
            l(what);
        }
    }

    /// Opens connection `conn`; `false` when it cannot be had.
    fn connect(&mut self, conn: ConnId, host: &str, port: u16) -> bool {
        let addr = format!("{host}:{port}");
        let stream = addr
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next())
            .and_then(|a| TcpStream::connect_timeout(&a, Duration::from_secs(10)).ok());
        let Some(stream) = stream else {
            self.note(&format!("connection {} to {addr} failed", conn.0));
            return false;
        };
        let _ = stream.set_nodelay(true);
        let Ok(reader) = stream.try_clone() else {
            return false;
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
        true
    }

    /// Writes a whole frame; `false` (and the socket dropped) when the connection failed.
    fn write(&mut self, conn: ConnId, frame: &[u8]) -> bool {
        let written = match self.socks.get_mut(usize::from(conn.0)).and_then(Option::as_mut) {
            Some(s) => s.stream.write_all(frame).is_ok(),
            None => false,
        };
        if !written {
            self.note(&format!("connection {} failed on write", conn.0));
            self.drop_sock(conn);
        }
        written
    }

    fn close(&mut self, conn: ConnId, why: &dyn std::fmt::Debug) {
        self.note(&format!("closing connection {}: {why:?}", conn.0));
        self.drop_sock(conn);
    }

    fn drop_sock(&mut self, conn: ConnId) {
        if let Some(s) = self.socks.get_mut(usize::from(conn.0)).and_then(Option::take) {
            let _ = s.stream.shutdown(Shutdown::Both);
        }
    }

    fn current(&self, conn: u8, gen: u64) -> bool {
        self.socks
            .get(usize::from(conn))
            .and_then(Option::as_ref)
            .is_some_and(|s| s.gen == gen)
    }

    /// What a current connection brought; a closed connection's socket is dropped. `None`
    /// after `wait` (or at once without it) when nothing came.
    fn recv(&mut self, wait: Option<Duration>) -> Option<Incoming> {
        loop {
            let m = match wait {
                None => self.rx.try_recv().ok()?,
                Some(d) => match self.rx.recv_timeout(d) {
                    Ok(m) => m,
                    Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return None,
                },
            };
            match m {
                Msg::Frame { conn, gen, frame } if self.current(conn, gen) => {
                    return Some(Incoming::Frame(ConnId(conn), frame));
                }
                Msg::Closed { conn, gen } if self.current(conn, gen) => {
                    self.note(&format!("connection {conn} closed by the broker"));
                    self.drop_sock(ConnId(conn));
                    return Some(Incoming::Closed(ConnId(conn)));
                }
                // A frame of a connection since closed: gone with it.
                _ if wait.is_none() => {}
                _ => return None,
            }
        }
    }
}

impl Drop for Net<'_> {
    fn drop(&mut self) {
        for s in self.socks.iter_mut().filter_map(Option::take) {
            let _ = s.stream.shutdown(Shutdown::Both);
        }
    }
}

/// A [`Producer`] driven over TCP from the calling thread. Delivery reports go to the callback
/// each call is given.
pub struct StdProducer<'c, const P: usize, const S: usize, const B: usize, const C: usize> {
    producer: Producer<'c, P, S, B, C>,
    net: Net<'c>,
    out: Vec<u8>,
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
        StdProducer {
            producer,
            net: Net::new(C),
            out: vec![0; max_request.max(B + 1024)],
        }
    }

    /// Has `log` told of each connection opened, closed or failed.
    pub fn with_log(mut self, log: impl FnMut(&str) + 'c) -> Self {
        self.net.log = Some(Box::new(log));
        self
    }

    /// The producer.
    pub fn producer(&self) -> &Producer<'c, P, S, B, C> {
        &self.producer
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
                        if self.net.connect(conn, host, port) {
                            self.producer.on_connected(conn, now_ms());
                        } else {
                            self.producer.on_closed(conn, now_ms());
                        }
                    }
                    Event::Close { conn, why } => {
                        self.net.close(conn, &why);
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
                if !self.net.write(t.conn, self.out.get(..t.len).unwrap_or_default()) {
                    self.producer.on_closed(t.conn, now);
                }
            }
            // Answers already read.
            while let Some(m) = self.net.recv(None) {
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
            if let Some(m) = self.net.recv(Some(until)) {
                self.take(m, now_ms());
            }
            return self.step(None, on);
        }
        Ok(())
    }

    fn take(&mut self, m: Incoming, now: u64) {
        match m {
            Incoming::Frame(conn, frame) => {
                if let Err(e) = self.producer.on_frame(conn, &frame, now) {
                    self.net.note(&format!("connection {}: {e}", conn.0));
                }
            }
            Incoming::Closed(conn) => self.producer.on_closed(conn, now),
        }
    }

    /// Waits until the topic's partitions are known (or Metadata reports an error that a retry
    /// does not mend), at most `max`.
    pub fn wait_ready(&mut self, topic: TopicId, max: Duration, on: &mut dyn FnMut(Delivery)) -> Result<i32, Error> {
        let start = Instant::now();
        loop {
            if let Some(n) = self.producer.partitions(topic) {
                return Ok(n);
            }
            if let Some(e) = self.producer.auth_error() {
                return Err(Error::Authentication(e));
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

/// A [`Consumer`](crate::Consumer) driven over TCP from the calling thread.
#[cfg(feature = "consumer")]
pub struct StdConsumer<'c, const P: usize, const C: usize> {
    consumer: crate::Consumer<'c, P, C>,
    net: Net<'c>,
    out: Vec<u8>,
}

#[cfg(feature = "consumer")]
impl<'c, const P: usize, const C: usize> StdConsumer<'c, P, C> {
    /// Drives `consumer`.
    pub fn new(consumer: crate::Consumer<'c, P, C>) -> Self {
        StdConsumer {
            consumer,
            net: Net::new(C),
            out: vec![0; 64 << 10],
        }
    }

    /// Has `log` told of each connection opened, closed or failed.
    pub fn with_log(mut self, log: impl FnMut(&str) + 'c) -> Self {
        self.net.log = Some(Box::new(log));
        self
    }

    /// The consumer.
    pub fn consumer(&self) -> &crate::Consumer<'c, P, C> {
        &self.consumer
    }

    /// The consumer, to assign or seek partitions.
    pub fn consumer_mut(&mut self) -> &mut crate::Consumer<'c, P, C> {
        &mut self.consumer
    }

    /// Waits until the topic's partitions are known (or Metadata reports an error that a retry
    /// does not mend), at most `max`.
    pub fn wait_ready(&mut self, topic: TopicId, max: Duration) -> Result<i32, Error> {
        let start = Instant::now();
        loop {
            if let Some(n) = self.consumer.partitions(topic) {
                return Ok(n);
            }
            if let Some(e) = self.consumer.auth_error() {
                return Err(Error::Authentication(e));
            }
            if let Some(e) = self.consumer.topic_error(topic).filter(|e| !e.is_retriable()) {
                return Err(Error::Topic(e));
            }
            let left = max.checked_sub(start.elapsed()).ok_or(Error::Timeout)?;
            self.poll(left.min(Duration::from_millis(100)), &mut |_| {})?;
        }
    }

    /// Drives the connections for at most `max_wait`, or until an answer has been handled,
    /// and hands `on` every record fetched meanwhile and every partition that failed.
    pub fn poll(&mut self, max_wait: Duration, on: &mut dyn FnMut(crate::consumer::Output<'_>)) -> Result<(), Error> {
        let start = Instant::now();
        loop {
            let mut now = now_ms();
            let mut busy = false;
            while let Some(ev) = self.consumer.poll_event(now) {
                busy = true;
                match ev {
                    crate::consumer::Event::Connect { conn, host, port } => {
                        if self.net.connect(conn, host, port) {
                            self.consumer.on_connected(conn, now_ms());
                        } else {
                            self.consumer.on_closed(conn, now_ms());
                        }
                    }
                    crate::consumer::Event::Close { conn, why } => {
                        self.net.close(conn, &why);
                        self.consumer.on_closed(conn, now);
                    }
                    crate::consumer::Event::Failed {
                        topic,
                        partition,
                        error,
                    } => on(crate::consumer::Output::Failed {
                        topic,
                        partition,
                        error,
                    }),
                }
                now = now_ms();
            }
            while let Some(t) = self
                .consumer
                .poll_transmit(now, &mut self.out)
                .map_err(Error::Transmit)?
            {
                busy = true;
                if !self.net.write(t.conn, self.out.get(..t.len).unwrap_or_default()) {
                    self.consumer.on_closed(t.conn, now);
                }
            }
            if busy {
                continue;
            }
            let Some(left) = max_wait.checked_sub(start.elapsed()) else {
                return Ok(());
            };
            let until = self
                .consumer
                .next_timeout()
                .map_or(left, |t| Duration::from_millis(t.saturating_sub(now)).min(left));
            match self.net.recv(Some(until)) {
                Some(Incoming::Frame(conn, frame)) => match self.consumer.on_frame(conn, &frame, now_ms()) {
                    Ok(fetched) => {
                        let any = !fetched.is_empty();
                        for item in fetched.items() {
                            on(crate::consumer::Output::Item(item));
                        }
                        if any {
                            return Ok(());
                        }
                    }
                    Err(e) => self.net.note(&format!("connection {}: {e}", conn.0)),
                },
                Some(Incoming::Closed(conn)) => self.consumer.on_closed(conn, now_ms()),
                None => {}
            }
        }
    }
}

/// Cuts frames from `stream` and hands each to the driver; says when the stream ends or
/// breaks. Frames that fit the cutter's 64 KiB are cut from it and copied out; a larger one (a
/// fetch answer) is read straight into an allocation of its own size once its prefix is in, so
/// that its bytes are neither zeroed nor copied on their way.
fn read_frames(mut stream: TcpStream, conn: u8, gen: u64, tx: &Sender<Msg>) {
    const REST: usize = 64 << 10;
    let mut cut = FrameCutter::new(Growable::new(REST), MAX_FRAME);
    loop {
        let frame = match cut.next_frame() {
            Ok(Cut::Frame(f)) => f.to_vec(),
            Ok(Cut::NeedMore(need)) => {
                let got = cut.pending().len();
                if got < 4 || got + need <= REST {
                    match stream.read(cut.space()) {
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Ok(0) | Err(_) => break,
                        Ok(n) => cut.filled(n),
                    }
                    continue;
                }
                // The prefix was checked against the maximum by the cutter: `need` is bounded.
                let mut frame = Vec::with_capacity(got + need);
                frame.extend_from_slice(cut.pending());
                cut.discard(got);
                match (&mut stream).take(need as u64).read_to_end(&mut frame) {
                    Ok(n) if n == need => frame,
                    _ => break,
                }
            }
            Err(_) => break,
        };
        if tx.send(Msg::Frame { conn, gen, frame }).is_err() {
            return;
        }
    }
    let _ = tx.send(Msg::Closed { conn, gen });
}
