//! Kafka conversations from capture files: `kwire pcap`.
//!
//! Reads pcap and pcapng files (`pcap-file`), takes the link, IP and TCP headers apart
//! (`etherparse`; Ethernet, Linux cooked capture v1 and v2, BSD loopback, raw IP), keeps the
//! TCP segments to and from the Kafka ports, reassembles each stream in each direction, cuts it
//! into size-prefixed frames and hands them to a [`Connection`] (pairing, JSON).
//!
//! Reassembly, per direction of each TCP stream:
//! - bytes are delivered in sequence-number order: a segment ahead of the next expected byte
//!   waits (out of order); bytes already delivered are dropped (retransmissions, overlaps), and
//!   a segment that overlaps partly delivers only its new bytes;
//! - a stream whose handshake (SYN) is in the capture starts on a frame boundary; one whose
//!   handshake is not (the capture began mid-stream) starts unsynchronised;
//! - a hole that is never filled (the capture lost a segment) is skipped once the bytes waiting
//!   behind it exceed [`Options::max_out_of_order`], or at the end of the stream or file, and
//!   the direction becomes unsynchronised;
//! - unsynchronised, the bytes are scanned for the next plausible frame: a size from 8 (requests)
//!   or 4 (responses) to [`Options::max_frame`], then for a request a known API key and a valid
//!   version, for a response the correlation id of a request waiting on that connection, and
//!   in both cases a frame that decodes strictly;
//! - a size above [`Options::max_frame`] (or negative) is reported as an error event and not
//!   allocated; the direction resynchronises after it.
//!
//! Memory per direction is bounded by one frame ([`Options::max_frame`]) plus the out-of-order
//! bytes ([`Options::max_out_of_order`]).
//!
//! With [`Options::hex`], each frame's JSON line ends with `"hex"`: the frame's bytes (size
//! prefix, header, body) as lowercase hex, ready for `kwire decode --hex`.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::net::{IpAddr, SocketAddr};

use etherparse::{EtherType, NetSlice, SlicedPacket, TransportSlice};
use kafka_wire::conn::{Cut, CutError, FrameCutter, Growable};
use kafka_wire::frame::{self, Mode};
use kafka_wire::ApiKey;
use pcap_file::pcap::PcapReader;
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
use pcap_file::pcapng::{Block, PcapNgReader};
use pcap_file::DataLink;
use serde_json::{json, Value};

use kafka_wire_ext::conversation::{Connection, Direction, FrameEvent, Summary};

/// Kafka's default `socket.request.max.bytes`: the largest frame accepted by default.
pub const DEFAULT_MAX_FRAME: usize = 100 * 1024 * 1024;
/// Bytes that may wait behind a hole in one direction of one stream, by default.
pub const DEFAULT_MAX_OUT_OF_ORDER: usize = 16 * 1024 * 1024;

/// What to decode, and the memory bounds.
#[derive(Clone, Debug)]
pub struct Options {
    /// TCP ports of the brokers: a segment is kept when one of its ports is one of these, and
    /// that side is the broker.
    pub ports: Vec<u16>,
    /// The largest frame accepted, in bytes (without the size prefix).
    pub max_frame: usize,
    /// The most bytes waiting behind a hole in one direction of one stream.
    pub max_out_of_order: usize,
    /// Add `"hex"` to each frame's JSON: the whole frame as it was on the wire, size prefix
    /// included (what `kwire decode --hex` reads).
    pub hex: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            ports: vec![9092],
            max_frame: DEFAULT_MAX_FRAME,
            max_out_of_order: DEFAULT_MAX_OUT_OF_ORDER,
            hex: false,
        }
    }
}

/// Counts at the packet and TCP level.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaptureStats {
    /// Packets in the file.
    pub packets: u64,
    /// TCP segments to or from a Kafka port.
    pub segments: u64,
    /// TCP streams seen (a new handshake on the same addresses counts again).
    pub streams: u64,
    /// Segments that arrived ahead of a hole and waited.
    pub out_of_order_segments: u64,
    /// Payload bytes received again (retransmissions, overlaps), dropped.
    pub retransmitted_bytes: u64,
    /// Bytes the capture lost (holes skipped).
    pub lost_bytes: u64,
    /// Times a direction was resynchronised on a plausible frame.
    pub resyncs: u64,
    /// Bytes skipped while looking for a frame boundary.
    pub skipped_bytes: u64,
    /// Sizes above the maximum, or negative.
    pub oversized_frames: u64,
    /// Bytes left at the end of a stream that did not make a whole frame.
    pub incomplete_bytes: u64,
    /// Requests still waiting for their response at the end.
    pub unanswered_requests: u64,
}

impl CaptureStats {
    /// The counts as JSON (camelCase).
    pub fn to_json(&self) -> Value {
        json!({
            "packets": self.packets,
            "segments": self.segments,
            "streams": self.streams,
            "outOfOrderSegments": self.out_of_order_segments,
            "retransmittedBytes": self.retransmitted_bytes,
            "lostBytes": self.lost_bytes,
            "resyncs": self.resyncs,
            "skippedBytes": self.skipped_bytes,
            "oversizedFrames": self.oversized_frames,
            "incompleteBytes": self.incomplete_bytes,
            "unansweredRequests": self.unanswered_requests,
        })
    }
}

/// One TCP segment, taken apart.
#[derive(Clone, Copy, Debug)]
pub struct Segment<'a> {
    /// Sender.
    pub src: SocketAddr,
    /// Receiver.
    pub dst: SocketAddr,
    /// Sequence number.
    pub seq: u32,
    /// SYN flag.
    pub syn: bool,
    /// ACK flag.
    pub ack: bool,
    /// FIN flag.
    pub fin: bool,
    /// RST flag.
    pub rst: bool,
    /// The TCP payload.
    pub payload: &'a [u8],
}

/// The TCP segment in a captured packet with the given link type, if it is one.
pub fn tcp_segment(link: DataLink, data: &[u8]) -> Option<Segment<'_>> {
    let sliced = match link {
        DataLink::ETHERNET => SlicedPacket::from_ethernet(data).ok()?,
        DataLink::LINUX_SLL => SlicedPacket::from_linux_sll(data).ok()?,
        DataLink::LINUX_SLL2 => {
            // 20 bytes: protocol type, reserved, interface index, ARPHRD type, packet type,
            // address length, 8 address bytes.
            let proto = u16::from_be_bytes([*data.first()?, *data.get(1)?]);
            SlicedPacket::from_ether_type(EtherType(proto), data.get(20..)?).ok()?
        }
        // A 4-byte address family (host order for NULL, network order for LOOP), then IP.
        DataLink::NULL | DataLink::LOOP => SlicedPacket::from_ip(data.get(4..)?).ok()?,
        DataLink::RAW | DataLink::IPV4 | DataLink::IPV6 => SlicedPacket::from_ip(data).ok()?,
        _ => return None,
    };
    let (src_ip, dst_ip): (IpAddr, IpAddr) = match sliced.net.as_ref()? {
        NetSlice::Ipv4(ip) => (ip.header().source_addr().into(), ip.header().destination_addr().into()),
        NetSlice::Ipv6(ip) => (ip.header().source_addr().into(), ip.header().destination_addr().into()),
        _ => return None,
    };
    let TransportSlice::Tcp(tcp) = sliced.transport? else {
        return None;
    };
    Some(Segment {
        src: SocketAddr::new(src_ip, tcp.source_port()),
        dst: SocketAddr::new(dst_ip, tcp.destination_port()),
        seq: tcp.sequence_number(),
        syn: tcp.syn(),
        ack: tcp.ack(),
        fin: tcp.fin(),
        rst: tcp.rst(),
        payload: tcp.payload(),
    })
}

/// One direction of a stream: sequence tracking, bytes waiting behind holes, and the frame cut.
#[derive(Debug)]
struct Half {
    /// Sequence number of stream offset 0, once known.
    base: Option<u32>,
    /// Offset of the next byte expected.
    pos: i64,
    /// Segments ahead of `pos`, by offset.
    waiting: BTreeMap<i64, Vec<u8>>,
    waiting_bytes: usize,
    /// In-order bytes not yet given to the cutter (synchronised) or judged (unsynchronised).
    buf: Vec<u8>,
    /// Synchronised: the bytes of the frame in progress, cut as the connection layer cuts.
    cutter: FrameCutter<Growable>,
    /// True when `buf` starts on a frame boundary.
    synced: bool,
    /// Unsynchronised: positions in `buf` before this one have been judged.
    scan_from: usize,
    /// Unsynchronised: plausible frame starts waiting for their bytes.
    candidates: Vec<usize>,
    fin: bool,
}

/// The cutter's resting buffer: frames larger than this grow it as they arrive, and it shrinks
/// back after them.
const CUTTER_REST: usize = 4096;

impl Half {
    fn new(max_frame: usize) -> Self {
        Half {
            base: None,
            pos: 0,
            waiting: BTreeMap::new(),
            waiting_bytes: 0,
            buf: Vec::new(),
            cutter: FrameCutter::new(Growable::new(CUTTER_REST), max_frame),
            synced: false,
            scan_from: 0,
            candidates: Vec::new(),
            fin: false,
        }
    }

    /// Bytes received and not yet handed out as frames.
    fn held(&self) -> usize {
        self.buf.len() + self.cutter.buffered()
    }
}

impl Half {
    fn start(&mut self, seq: u32, synced: bool) {
        self.base = Some(seq);
        self.pos = 0;
        self.synced = synced;
    }

    fn lose_sync(&mut self) {
        self.synced = false;
        self.scan_from = 0;
        self.candidates.clear();
    }

    fn offset(&self, seq: u32) -> i64 {
        let base = self.base.unwrap_or(seq);
        let d = seq.wrapping_sub(base.wrapping_add(self.pos as u32)) as i32;
        self.pos + i64::from(d)
    }

    /// Takes a segment's payload; in-order bytes go to `buf`.
    fn segment(&mut self, seq: u32, payload: &[u8], opts: &Options, stats: &mut CaptureStats) {
        if payload.is_empty() {
            return;
        }
        if self.base.is_none() {
            // No handshake seen: the capture began inside this stream.
            self.start(seq, false);
        }
        let off = self.offset(seq);
        let end = off + payload.len() as i64;
        if end <= self.pos {
            stats.retransmitted_bytes += payload.len() as u64;
            return;
        }
        if off <= self.pos {
            let skip = (self.pos - off) as usize;
            stats.retransmitted_bytes += skip as u64;
            self.deliver(&payload[skip..]);
            self.drain(stats);
            return;
        }
        stats.out_of_order_segments += 1;
        let e = self.waiting.entry(off).or_default();
        if payload.len() > e.len() {
            self.waiting_bytes += payload.len() - e.len();
            stats.retransmitted_bytes += e.len() as u64;
            *e = payload.to_vec();
        } else {
            stats.retransmitted_bytes += payload.len() as u64;
        }
        while self.waiting_bytes > opts.max_out_of_order {
            self.skip_hole(stats);
        }
    }

    fn deliver(&mut self, bytes: &[u8]) {
        self.pos += bytes.len() as i64;
        self.buf.extend_from_slice(bytes);
    }

    /// Delivers the waiting segments that have become in order.
    fn drain(&mut self, stats: &mut CaptureStats) {
        while let Some((&off, _)) = self.waiting.first_key_value() {
            if off > self.pos {
                break;
            }
            let data = self.waiting.remove(&off).unwrap_or_default();
            self.waiting_bytes -= data.len();
            let end = off + data.len() as i64;
            if end <= self.pos {
                stats.retransmitted_bytes += data.len() as u64;
                continue;
            }
            let skip = (self.pos - off) as usize;
            stats.retransmitted_bytes += skip as u64;
            self.deliver(&data[skip..]);
        }
    }

    /// Gives up on the first hole: the bytes before it are lost, and framing must be found again.
    fn skip_hole(&mut self, stats: &mut CaptureStats) {
        let Some((&off, _)) = self.waiting.first_key_value() else {
            return;
        };
        stats.lost_bytes += (off - self.pos) as u64;
        // What is buffered cannot be completed.
        stats.incomplete_bytes += self.held() as u64;
        self.buf.clear();
        let held = self.cutter.buffered();
        self.cutter.discard(held);
        self.pos = off;
        self.lose_sync();
        self.drain(stats);
    }
}

/// What a position in an unsynchronised buffer may be.
enum Check {
    /// Not the start of a frame.
    No,
    /// A plausible start whose frame has not fully arrived.
    Incomplete,
    /// The start of a frame that decodes.
    Frame,
}

/// Bytes a position needs before it can be judged.
fn head_len(dir: Direction) -> usize {
    match dir {
        Direction::Request => 12,
        Direction::Response => 8,
    }
}

fn check(buf: &[u8], i: usize, dir: Direction, conn: &Connection, max_frame: usize) -> Check {
    let Some(h) = buf.get(i..i + head_len(dir)) else {
        return Check::Incomplete;
    };
    let size = h.first_chunk::<4>().map_or(-1, |b| i32::from_be_bytes(*b));
    let min = if dir == Direction::Request { 8 } else { 4 };
    if size < min || size as usize > max_frame {
        return Check::No;
    }
    let plausible = match dir {
        Direction::Request => frame::peek_request_head(h)
            .is_some_and(|(key, version, _)| ApiKey::from_i16(key).is_some_and(|k| k.request_info().is_valid(version))),
        Direction::Response => {
            frame::peek_response_correlation_id(h).is_some_and(|c| conn.pending_request(c).is_some())
        }
    };
    if !plausible {
        return Check::No;
    }
    let Some(whole) = buf.get(i..i + 4 + size as usize) else {
        return Check::Incomplete;
    };
    // Strictly: a frame found by scanning must account for every one of its bytes.
    let decodes = match dir {
        Direction::Request => frame::parse_request_frame(whole, Mode::Strict).is_ok(),
        Direction::Response => match frame::peek_response_correlation_id(whole).and_then(|c| conn.pending_request(c)) {
            // The frame parser reads an ApiVersions answer in version 0's shape too.
            Some((key, version)) => frame::parse_response_frame(whole, key, version, Mode::Strict).is_ok(),
            None => false,
        },
    };
    if decodes {
        Check::Frame
    } else {
        Check::No
    }
}

/// Looks for a frame boundary in an unsynchronised direction. The first position whose frame
/// has arrived whole and decodes wins; plausible starts whose frame has not arrived yet are kept
/// (and the bytes from the earliest of them), unless that would keep more than
/// `max_out_of_order` bytes. Each position is judged once, except those kept waiting. Returns
/// true when the direction is synchronised again.
fn resync(half: &mut Half, dir: Direction, conn: &Connection, opts: &Options, stats: &mut CaptureStats) -> bool {
    let buf = &half.buf;
    let mut waiting = Vec::new();
    let mut found = None;
    for &p in &half.candidates {
        match check(buf, p, dir, conn, opts.max_frame) {
            Check::Frame => {
                found = Some(p);
                break;
            }
            Check::Incomplete => waiting.push(p),
            Check::No => {}
        }
    }
    if found.is_none() {
        let mut i = half.scan_from;
        while i + head_len(dir) <= buf.len() {
            match check(buf, i, dir, conn, opts.max_frame) {
                Check::Frame => {
                    found = Some(i);
                    break;
                }
                Check::Incomplete => waiting.push(i),
                Check::No => {}
            }
            i += 1;
        }
        half.scan_from = i;
    }
    if let Some(p) = found {
        stats.skipped_bytes += p as u64;
        stats.resyncs += 1;
        half.buf.drain(..p);
        half.candidates.clear();
        half.scan_from = 0;
        half.synced = true;
        return true;
    }
    let len = half.buf.len();
    waiting.retain(|&p| len - p <= opts.max_out_of_order);
    let keep_from = waiting.first().copied().unwrap_or(half.scan_from).min(half.scan_from);
    stats.skipped_bytes += keep_from as u64;
    half.buf.drain(..keep_from);
    half.scan_from -= keep_from;
    half.candidates = waiting.into_iter().map(|p| p - keep_from).collect();
    false
}

/// Cuts frames out of a direction's bytes and decodes them: synchronised, the bytes go through
/// the connection layer's cutter; unsynchronised, they are scanned for a frame boundary first.
fn cut(
    half: &mut Half,
    dir: Direction,
    conn: &mut Connection,
    time: f64,
    opts: &Options,
    stats: &mut CaptureStats,
    emit: &mut dyn FnMut(FrameEvent),
) {
    loop {
        if !half.synced && !resync(half, dir, conn, opts, stats) {
            return;
        }
        let mut taken = 0;
        let refused = loop {
            let refused = loop {
                match half.cutter.next_frame() {
                    Ok(Cut::Frame(f)) => {
                        let mut ev = conn.frame(dir, time, f);
                        if opts.hex {
                            if let Value::Object(m) = &mut ev.json {
                                m.insert("hex".into(), hex::encode(f).into());
                            }
                        }
                        emit(ev);
                    }
                    Ok(Cut::NeedMore(_)) => break None,
                    Err(e) => break Some(e),
                }
            };
            if refused.is_some() || taken == half.buf.len() {
                break refused;
            }
            taken += half.cutter.push(half.buf.get(taken..).unwrap_or_default());
        };
        half.buf.drain(..taken);
        let Some(e) = refused else { return };
        stats.oversized_frames += 1;
        let (what, size) = match e {
            CutError::NegativeSize { size } => ("negative frame size", i64::from(size)),
            CutError::TooLarge { size, .. } => ("frame size", size as i64),
            _ => ("frame size", -1),
        };
        emit(conn.error_event(
            dir,
            time,
            &format!(
                "{what} {size} (the maximum is {}); looking for the next frame",
                opts.max_frame
            ),
        ));
        // The refused prefix is skipped; what follows it is judged again, unsynchronised.
        let held = half.cutter.pending().to_vec();
        half.cutter.discard(held.len());
        stats.skipped_bytes += 4;
        half.buf.splice(0..0, held.into_iter().skip(4));
        half.lose_sync();
    }
}

#[derive(Debug)]
struct Stream {
    conn: Connection,
    /// Client to broker, broker to client.
    halves: [Half; 2],
}

fn idx(dir: Direction) -> usize {
    match dir {
        Direction::Request => 0,
        Direction::Response => 1,
    }
}

/// Turns TCP segments into frame events: streams, reassembly, frames, conversations.
#[derive(Debug)]
pub struct Decoder {
    opts: Options,
    /// Keyed by (client, broker).
    streams: HashMap<(SocketAddr, SocketAddr), Stream>,
    /// Counts at the packet and TCP level.
    pub stats: CaptureStats,
    /// Counts at the Kafka level, over every frame (whatever is printed).
    pub summary: Summary,
}

impl Decoder {
    /// A decoder with these options.
    pub fn new(opts: Options) -> Self {
        Decoder {
            opts,
            streams: HashMap::new(),
            stats: CaptureStats::default(),
            summary: Summary::default(),
        }
    }

    /// Takes one captured packet of link type `link`, captured at `time` (seconds since the
    /// Unix epoch). Calls `emit` for every frame it completes.
    pub fn packet(&mut self, link: DataLink, time: f64, data: &[u8], emit: &mut dyn FnMut(FrameEvent)) {
        self.stats.packets += 1;
        if let Some(s) = tcp_segment(link, data) {
            self.segment(time, &s, emit);
        }
    }

    /// Which side of a segment is the broker: `Some(direction)` when it is to or from a port
    /// in the list.
    fn direction(&self, s: &Segment<'_>) -> Option<Direction> {
        let to = self.opts.ports.contains(&s.dst.port());
        let from = self.opts.ports.contains(&s.src.port());
        match (to, from) {
            (true, false) => Some(Direction::Request),
            (false, true) => Some(Direction::Response),
            (false, false) => None,
            (true, true) => {
                if s.syn {
                    Some(if s.ack { Direction::Response } else { Direction::Request })
                } else if self.streams.contains_key(&(s.src, s.dst)) {
                    Some(Direction::Request)
                } else if self.streams.contains_key(&(s.dst, s.src)) {
                    Some(Direction::Response)
                } else if s.dst.port() < s.src.port() {
                    Some(Direction::Request)
                } else {
                    Some(Direction::Response)
                }
            }
        }
    }

    /// Takes one TCP segment.
    pub fn segment(&mut self, time: f64, s: &Segment<'_>, emit: &mut dyn FnMut(FrameEvent)) {
        let Some(dir) = self.direction(s) else { return };
        self.stats.segments += 1;
        let key = match dir {
            Direction::Request => (s.src, s.dst),
            Direction::Response => (s.dst, s.src),
        };
        if s.syn {
            let isn = s.seq.wrapping_add(1);
            let existing = self.streams.get(&key).and_then(|st| st.halves[idx(dir)].base);
            match existing {
                // A retransmitted SYN.
                Some(b) if b == isn => {}
                // The same addresses again: a new connection. The old one ends here.
                Some(_) if dir == Direction::Request => {
                    self.close(key, time, emit);
                    self.open(key).halves[0].start(isn, true);
                }
                _ => {
                    let st = self.open(key);
                    st.halves[idx(dir)].start(isn, true);
                }
            }
            return;
        }
        if !self.streams.contains_key(&key) {
            if s.payload.is_empty() {
                // The last ACKs of a connection already closed, or a keep-alive.
                return;
            }
            self.open(key);
        }
        let opts = &self.opts;
        let st = self.streams.get_mut(&key).expect("opened above");
        let half = &mut st.halves[idx(dir)];
        half.segment(s.seq, s.payload, opts, &mut self.stats);
        let mut count = |ev: FrameEvent| {
            self.summary.add(&ev);
            emit(ev);
        };
        cut(half, dir, &mut st.conn, time, opts, &mut self.stats, &mut count);
        if s.fin {
            half.fin = true;
        }
        if s.rst || (st.halves[0].fin && st.halves[1].fin) {
            self.close(key, time, emit);
        }
    }

    fn open(&mut self, key: (SocketAddr, SocketAddr)) -> &mut Stream {
        let label = format!("{} > {}", key.0, key.1);
        let max_frame = self.opts.max_frame;
        self.streams.entry(key).or_insert_with(|| {
            self.stats.streams += 1;
            Stream {
                conn: Connection::new(label),
                halves: [Half::new(max_frame), Half::new(max_frame)],
            }
        })
    }

    /// Ends a stream: holes are skipped, what follows them is decoded, what is left is counted.
    fn close(&mut self, key: (SocketAddr, SocketAddr), time: f64, emit: &mut dyn FnMut(FrameEvent)) {
        let Some(mut st) = self.streams.remove(&key) else {
            return;
        };
        let opts = &self.opts;
        let mut count = |ev: FrameEvent| {
            self.summary.add(&ev);
            emit(ev);
        };
        for dir in [Direction::Request, Direction::Response] {
            let half = &mut st.halves[idx(dir)];
            while !half.waiting.is_empty() {
                half.skip_hole(&mut self.stats);
                cut(half, dir, &mut st.conn, time, opts, &mut self.stats, &mut count);
            }
            self.stats.incomplete_bytes += half.held() as u64;
        }
        self.stats.unanswered_requests += st.conn.pending() as u64;
    }

    /// Ends every stream still open (the end of the capture).
    pub fn finish(&mut self, time: f64, emit: &mut dyn FnMut(FrameEvent)) {
        let mut keys: Vec<_> = self.streams.keys().copied().collect();
        keys.sort();
        for k in keys {
            self.close(k, time, emit);
        }
    }

    /// The summary line: `{"summary": {… Kafka counts …, "capture": {… TCP counts …}}}`.
    pub fn summary_json(&self) -> Value {
        let mut v = self.summary.to_json();
        v["summary"]["capture"] = self.stats.to_json();
        v
    }
}

/// The interface facts that turn a pcapng timestamp into seconds.
#[derive(Clone, Copy)]
struct Interface {
    link: DataLink,
    /// Seconds per timestamp unit.
    unit: f64,
    offset: f64,
}

/// Reads a whole capture (pcap or pcapng, told apart by the magic number) and feeds every packet
/// to `decoder`, then finishes it. `progress` is called now and then with the number of file
/// bytes read so far.
pub fn decode_capture<R: Read>(
    input: R,
    decoder: &mut Decoder,
    progress: &mut dyn FnMut(u64),
    emit: &mut dyn FnMut(FrameEvent),
) -> Result<(), String> {
    let counter = std::rc::Rc::new(std::cell::Cell::new(0u64));
    let mut input = Counting {
        inner: input,
        read: counter.clone(),
    };
    let mut magic = [0u8; 4];
    input
        .read_exact(&mut magic)
        .map_err(|e| format!("reading the capture's magic number: {e}"))?;
    let input = std::io::Cursor::new(magic).chain(input);
    let mut last = 0.0;
    if magic == [0x0a, 0x0d, 0x0d, 0x0a] {
        let mut r = PcapNgReader::new(input).map_err(|e| format!("not a pcapng file: {e}"))?;
        let mut ifaces: Vec<Interface> = Vec::new();
        let mut n = 0u64;
        while let Some(block) = r.next_block() {
            let block = block.map_err(|e| format!("pcapng block {n}: {e}"))?;
            n += 1;
            match block {
                Block::SectionHeader(_) => ifaces.clear(),
                Block::InterfaceDescription(d) => {
                    let mut unit = 1e-6;
                    let mut offset = 0.0;
                    for o in &d.options {
                        match o {
                            InterfaceDescriptionOption::IfTsResol(r) if r & 0x80 == 0 => {
                                unit = 10f64.powi(-i32::from(*r))
                            }
                            InterfaceDescriptionOption::IfTsResol(r) => unit = 2f64.powi(-i32::from(r & 0x7f)),
                            InterfaceDescriptionOption::IfTsOffset(s) => offset = *s as f64,
                            _ => {}
                        }
                    }
                    ifaces.push(Interface {
                        link: d.linktype,
                        unit,
                        offset,
                    });
                }
                Block::EnhancedPacket(p) => {
                    let Some(i) = ifaces.get(p.interface_id as usize) else {
                        return Err(format!(
                            "pcapng block {n}: a packet on undescribed interface {}",
                            p.interface_id
                        ));
                    };
                    // pcap-file hands the raw timestamp over as nanoseconds, whatever the
                    // interface's resolution: the units are the interface's.
                    let raw = p.timestamp.as_nanos() as f64;
                    last = i.offset + raw * i.unit;
                    decoder.packet(i.link, last, &p.data, emit);
                }
                Block::SimplePacket(p) => {
                    let Some(i) = ifaces.first() else {
                        return Err(format!("pcapng block {n}: a packet before any interface"));
                    };
                    decoder.packet(i.link, last, &p.data, emit);
                }
                Block::Packet(p) => {
                    let Some(i) = ifaces.get(p.interface_id as usize) else {
                        return Err(format!(
                            "pcapng block {n}: a packet on undescribed interface {}",
                            p.interface_id
                        ));
                    };
                    last = i.offset + p.timestamp as f64 * i.unit;
                    decoder.packet(i.link, last, &p.data, emit);
                }
                _ => {}
            }
            if n.is_multiple_of(256) {
                progress(counter.get());
            }
        }
    } else {
        let mut r = PcapReader::new(input).map_err(|e| format!("neither a pcap nor a pcapng file: {e}"))?;
        let link = r.header().datalink;
        let mut n = 0u64;
        while let Some(p) = r.next_packet() {
            let p = p.map_err(|e| format!("pcap packet {n}: {e}"))?;
            n += 1;
            last = p.timestamp.as_secs_f64();
            decoder.packet(link, last, &p.data, emit);
            if n.is_multiple_of(256) {
                progress(counter.get());
            }
        }
    }
    decoder.finish(last, emit);
    progress(counter.get());
    Ok(())
}

struct Counting<R> {
    inner: R,
    read: std::rc::Rc<std::cell::Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use etherparse::PacketBuilder;
    use kafka_wire::frame::{encode_request_frame, encode_response_frame};
    use kafka_wire::messages::{ApiVersionsRequest, ApiVersionsResponse, MetadataRequest, MetadataResponse};
    use kafka_wire::{RequestBody, ResponseBody};

    const CLIENT: ([u8; 4], u16) = ([10, 0, 0, 1], 50000);
    const BROKER: ([u8; 4], u16) = ([10, 0, 0, 2], 9092);

    fn packet(to_broker: bool, seq: u32, flags: &str, payload: &[u8]) -> Vec<u8> {
        let (src, dst) = if to_broker { (CLIENT, BROKER) } else { (BROKER, CLIENT) };
        let mut b = PacketBuilder::ethernet2([1; 6], [2; 6])
            .ipv4(src.0, dst.0, 64)
            .tcp(src.1, dst.1, seq, 65535);
        if flags.contains('S') {
            b = b.syn();
        }
        if flags.contains('A') {
            b = b.ack(1);
        }
        if flags.contains('F') {
            b = b.fin();
        }
        if flags.contains('R') {
            b = b.rst();
        }
        let mut out = Vec::new();
        b.write(&mut out, payload).unwrap();
        out
    }

    fn request(corr: i32, body: RequestBody<'_>, v: i16) -> Vec<u8> {
        let mut buf = vec![0u8; 1024];
        let n = encode_request_frame(corr, Some("t"), &body, v, &mut buf).unwrap();
        buf.truncate(n);
        buf
    }

    fn response(corr: i32, body: ResponseBody<'_>, v: i16) -> Vec<u8> {
        let mut buf = vec![0u8; 1024];
        let n = encode_response_frame(corr, &body, v, &mut buf).unwrap();
        buf.truncate(n);
        buf
    }

    /// Three requests and their responses as two byte streams.
    fn streams() -> (Vec<u8>, Vec<u8>) {
        let mut c = Vec::new();
        let mut b = Vec::new();
        c.extend(request(1, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 3));
        c.extend(request(2, RequestBody::Metadata(MetadataRequest::DEFAULT), 12));
        c.extend(request(3, RequestBody::Metadata(MetadataRequest::DEFAULT), 9));
        b.extend(response(
            1,
            ResponseBody::ApiVersions(ApiVersionsResponse {
                throttle_time_ms: 1,
                ..ApiVersionsResponse::DEFAULT
            }),
            3,
        ));
        b.extend(response(
            2,
            ResponseBody::Metadata(MetadataResponse {
                controller_id: 7,
                ..MetadataResponse::DEFAULT
            }),
            12,
        ));
        b.extend(response(
            3,
            ResponseBody::Metadata(MetadataResponse {
                controller_id: 8,
                ..MetadataResponse::DEFAULT
            }),
            9,
        ));
        (c, b)
    }

    fn run(packets: &[Vec<u8>], opts: Options) -> (Vec<Value>, Decoder) {
        let mut d = Decoder::new(opts);
        let mut out = Vec::new();
        for (i, p) in packets.iter().enumerate() {
            d.packet(DataLink::ETHERNET, i as f64, p, &mut |e| out.push(e.json));
        }
        d.finish(packets.len() as f64, &mut |e| out.push(e.json));
        (out, d)
    }

    fn brief(events: &[Value]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e.get("error") {
                Some(err) => format!("{} error {}", e["direction"].as_str().unwrap(), err["message"]),
                None => format!(
                    "{} {} v{} #{}",
                    e["direction"].as_str().unwrap(),
                    e["apiName"].as_str().unwrap(),
                    e["apiVersion"],
                    e["correlationId"]
                ),
            })
            .collect()
    }

    const ALL: [&str; 6] = [
        "request ApiVersions v3 #1",
        "request Metadata v12 #2",
        "request Metadata v9 #3",
        "response ApiVersions v3 #1",
        "response Metadata v12 #2",
        "response Metadata v9 #3",
    ];

    /// Client bytes in `cs`-byte segments, each followed by the broker's answer up to the same
    /// frame, with a handshake; `shuffle` reorders each direction's segments.
    fn conversation(cs: usize, with_handshake: bool, shuffle: impl Fn(&mut Vec<Vec<u8>>)) -> Vec<Vec<u8>> {
        let (c, b) = streams();
        let (ci, bi) = (1000u32, u32::MAX - 40); // the broker's sequence numbers wrap
        let mut out = Vec::new();
        if with_handshake {
            out.push(packet(true, ci - 1, "S", &[]));
            out.push(packet(false, bi.wrapping_sub(1), "SA", &[]));
        }
        let mut cseg: Vec<Vec<u8>> = c
            .chunks(cs)
            .enumerate()
            .map(|(i, p)| packet(true, ci + (i * cs) as u32, "A", p))
            .collect();
        let mut bseg: Vec<Vec<u8>> = b
            .chunks(cs)
            .enumerate()
            .map(|(i, p)| packet(false, bi.wrapping_add((i * cs) as u32), "A", p))
            .collect();
        shuffle(&mut cseg);
        shuffle(&mut bseg);
        out.extend(cseg);
        out.extend(bseg);
        out
    }

    #[test]
    fn in_order_segments_give_every_frame_paired() {
        let (ev, d) = run(&conversation(7, true, |_| {}), Options::default());
        assert_eq!(brief(&ev), ALL);
        assert_eq!(ev[4]["body"]["controllerId"], 7);
        assert_eq!(ev[0]["connection"], "10.0.0.1:50000 > 10.0.0.2:9092");
        assert_eq!(d.stats.streams, 1);
        assert_eq!(d.stats.resyncs, 0);
        assert_eq!(d.summary.undecoded, 0);
        assert_eq!(d.stats.unanswered_requests, 0);
    }

    #[test]
    fn out_of_order_segments_are_put_back_in_order() {
        let (ev, d) = run(&conversation(5, true, |v| v.reverse()), Options::default());
        assert_eq!(brief(&ev), ALL);
        assert!(d.stats.out_of_order_segments > 10, "{:?}", d.stats);
        assert_eq!(d.stats.lost_bytes, 0);
    }

    #[test]
    fn retransmissions_and_overlaps_are_dropped() {
        let (c, b) = streams();
        let mut p = vec![packet(true, 99, "S", &[]), packet(false, 499, "SA", &[])];
        // Client: 0..10, 0..10 again, 5..30 (overlap), 30.., and 20..40 again at the end.
        p.push(packet(true, 100, "A", &c[..10]));
        p.push(packet(true, 100, "A", &c[..10]));
        p.push(packet(true, 105, "A", &c[5..30]));
        p.push(packet(true, 130, "A", &c[30..]));
        p.push(packet(true, 120, "A", &c[20..40]));
        // Broker: the second half first, then the whole (a retransmission covering the gap).
        p.push(packet(false, 500 + 20, "A", &b[20..]));
        p.push(packet(false, 500, "A", &b));
        let (ev, d) = run(&p, Options::default());
        assert_eq!(brief(&ev), ALL);
        assert_eq!(d.stats.retransmitted_bytes, (10 + 5 + 20 + (b.len() - 20)) as u64);
    }

    #[test]
    fn a_capture_that_starts_mid_stream_resynchronises_on_the_next_frame() {
        // No handshake, and the first 10 client and broker bytes are not in the capture: the
        // first request is cut, so its response cannot be paired and is skipped.
        let (c, b) = streams();
        let p = vec![packet(true, 1010, "A", &c[10..]), packet(false, 5010, "A", &b[10..])];
        let (ev, d) = run(&p, Options::default());
        assert_eq!(
            brief(&ev),
            [
                "request Metadata v12 #2",
                "request Metadata v9 #3",
                "response Metadata v12 #2",
                "response Metadata v9 #3"
            ]
        );
        assert_eq!(d.stats.resyncs, 2);
        assert!(d.stats.skipped_bytes > 0);
        assert_eq!(d.summary.undecoded, 0);
    }

    #[test]
    fn a_lost_segment_is_skipped_at_the_end_and_the_rest_decodes() {
        let (c, b) = streams();
        let mut p = vec![packet(true, 99, "S", &[]), packet(false, 499, "SA", &[])];
        // Client bytes 5..15 are never captured (the first request is 19 bytes long).
        p.push(packet(true, 100, "A", &c[..5]));
        p.push(packet(true, 115, "A", &c[15..]));
        p.push(packet(false, 500, "A", &b));
        let (ev, d) = run(&p, Options::default());
        // The first request is lost; its response waits for nothing (unpaired: an error); the
        // broker's bytes are cut where they are, the client's are resynchronised at the end.
        assert_eq!(d.stats.lost_bytes, 10);
        assert_eq!(d.stats.resyncs, 1);
        let b = brief(&ev);
        assert!(b.contains(&"request Metadata v12 #2".to_string()), "{b:?}");
        assert!(b.contains(&"request Metadata v9 #3".to_string()), "{b:?}");
        assert_eq!(d.summary.unpaired_responses, 3, "{b:?}");
    }

    #[test]
    fn the_out_of_order_bound_skips_a_hole_early() {
        let (c, _) = streams();
        let mut p = vec![packet(true, 99, "S", &[])];
        p.push(packet(true, 100 + 10, "A", &c[10..]));
        let opts = Options {
            max_out_of_order: 16,
            ..Options::default()
        };
        let mut d = Decoder::new(opts);
        let mut n = 0;
        for q in &p {
            d.packet(DataLink::ETHERNET, 0.0, q, &mut |_| n += 1);
        }
        // Before the end of the capture: the hole was given up on, two requests found.
        assert_eq!(d.stats.lost_bytes, 10);
        assert_eq!(n, 2);
    }

    #[test]
    fn an_oversized_frame_is_an_error_not_an_allocation() {
        let (c, _) = streams();
        let mut s = vec![0x7f, 0xff, 0xff, 0xf0];
        s.extend_from_slice(&[0xab; 20]);
        s.extend_from_slice(&c);
        let p = vec![packet(true, 99, "S", &[]), packet(true, 100, "A", &s)];
        let (ev, d) = run(
            &p,
            Options {
                max_frame: 1 << 20,
                ..Options::default()
            },
        );
        assert!(
            ev[0]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("frame size 2147483632"),
            "{}",
            ev[0]
        );
        assert_eq!(
            brief(&ev[1..]),
            [
                "request ApiVersions v3 #1",
                "request Metadata v12 #2",
                "request Metadata v9 #3"
            ]
        );
        assert_eq!(d.stats.oversized_frames, 1);
        assert_eq!(d.stats.unanswered_requests, 3);
    }

    #[test]
    fn a_new_handshake_on_the_same_addresses_is_a_new_stream() {
        let (c, b) = streams();
        let first = request(1, RequestBody::ApiVersions(ApiVersionsRequest::DEFAULT), 3);
        let p = vec![
            packet(true, 99, "S", &[]),
            packet(true, 100, "A", &first),
            packet(true, 9999, "S", &[]),
            packet(false, 499, "SA", &[]),
            packet(true, 10000, "A", &c),
            packet(false, 500, "A", &b),
            packet(true, 10000 + c.len() as u32, "FA", &[]),
            packet(false, 500 + b.len() as u32, "FA", &[]),
        ];
        let (ev, d) = run(&p, Options::default());
        assert_eq!(brief(&ev)[1..], ALL);
        assert_eq!(d.stats.streams, 2);
        assert_eq!(d.stats.unanswered_requests, 1);
    }

    #[test]
    fn linux_cooked_and_loopback_links_are_read() {
        let (c, _) = streams();
        let mut ip = Vec::new();
        PacketBuilder::ipv4([127, 0, 0, 1], [127, 0, 0, 1], 64)
            .tcp(40000, 9092, 1, 100)
            .write(&mut ip, &c)
            .unwrap();
        let mut null = 2u32.to_ne_bytes().to_vec();
        null.extend_from_slice(&ip);
        let mut sll2 = vec![0x08, 0x00, 0, 0, 0, 0, 0, 1, 0, 0x03, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0];
        sll2.extend_from_slice(&ip);
        for (link, data) in [
            (DataLink::NULL, &null),
            (DataLink::LINUX_SLL2, &sll2),
            (DataLink::RAW, &ip),
        ] {
            let s = tcp_segment(link, data).unwrap_or_else(|| panic!("{link:?}"));
            assert_eq!(s.dst.port(), 9092);
            assert_eq!(s.payload, &c[..]);
        }
    }
}
