//! Memory a connection holds when its peer has sent only a size prefix announcing a large frame
//! (100 MiB, Kafka's default maximum), and nothing else.
//!
//! For each reader of a Kafka stream: the heap bytes it holds at rest (after it was made), and
//! after it took the 4-byte prefix and got ready for the next read, counted by this binary's
//! global allocator (bytes allocated and not freed). kafka-wire's: `FrameCutter` over a fixed
//! buffer and over a `Growable` storage, the tokio `ClientCodec` (on a `BytesMut` as
//! `tokio_util`'s `Framed` makes it, and inside a `FramedRead`), and the proxy's `Pump`. The
//! anchor: `tokio_util`'s `LengthDelimitedCodec` set up for Kafka's frames, the same two ways.
//!
//! Prints a Markdown table; exits with 1 when one of kafka-wire's readers holds more after the
//! prefix than at rest (its resting buffer), or when a figure the table relies on is not what
//! it assumes.
//!
//! This binary does not use the `kafka_wire_bench` library, whose global allocator counts
//! allocations only.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{self, Read, Write};
use std::pin::Pin;
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use bytes::BytesMut;
use futures_core::Stream;
use kafka_wire::conn::{Cut, CutError, FrameCutter, Growable, GROW_STEP};
use kafka_wire_ext::proxy::{Direction, Pairing, Pump, Stats};
use kafka_wire_ext::tokio_codec::ClientCodec;
use tokio::io::{AsyncRead, ReadBuf};
use tokio_util::codec::{Decoder, FramedRead, LengthDelimitedCodec};

/// Counts the bytes allocated and not yet freed.
struct Live;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Live {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            LIVE.fetch_add(l.size() as isize, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            LIVE.fetch_add(l.size() as isize, Relaxed);
        }
        p
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, n) };
        if !q.is_null() {
            LIVE.fetch_add(n as isize - l.size() as isize, Relaxed);
        }
        q
    }
}

#[global_allocator]
static GLOBAL: Live = Live;

fn live() -> isize {
    LIVE.load(Relaxed)
}

/// The frame size announced: 100 MiB, Kafka's default `socket.request.max.bytes`.
const ANNOUNCED: usize = 100 << 20;
/// The largest frame every reader here accepts: the announced one.
const MAX_FRAME: usize = ANNOUNCED;
/// `tokio_util`'s `Framed` starts its read buffer at this capacity (`framed_impl.rs`,
/// `INITIAL_CAPACITY`).
const FRAMED_INITIAL: usize = 8 * 1024;

fn prefix() -> [u8; 4] {
    (ANNOUNCED as i32).to_be_bytes()
}

/// One reader's figures.
struct Row {
    reader: String,
    rest: isize,
    held: isize,
    /// kafka-wire's: held must not exceed rest.
    guarded: bool,
    note: String,
}

/// Heap bytes `make` leaves allocated, and those still allocated after `feed` ran on what it
/// made; then `describe` says what happened (after the count: its text allocates).
fn measure<T, R>(
    make: impl FnOnce() -> T,
    feed: impl FnOnce(&mut T) -> R,
    describe: impl FnOnce(&mut T, R) -> String,
) -> (isize, isize, String) {
    let base = live();
    let mut t = make();
    let rest = live() - base;
    let r = feed(&mut t);
    let held = live() - base;
    let note = describe(&mut t, r);
    drop(t);
    (rest, held, note)
}

/// A reader that yields the prefix once, then nothing more for now.
struct PrefixThenWait {
    sent: bool,
}

impl AsyncRead for PrefixThenWait {
    fn poll_read(mut self: Pin<&mut Self>, _: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        if self.sent {
            return Poll::Pending;
        }
        buf.put_slice(&prefix());
        self.sent = true;
        Poll::Ready(Ok(()))
    }
}

impl Read for PrefixThenWait {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.sent {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        buf[..4].copy_from_slice(&prefix());
        self.sent = true;
        Ok(4)
    }
}

/// What a decoder said of the prefix.
enum Said<E> {
    NoFrame,
    Frame,
    Error(E),
}

impl<E: std::fmt::Display> Said<E> {
    fn text(self) -> String {
        match self {
            Said::NoFrame => "waits for the frame".into(),
            Said::Frame => "handed out a frame?".into(),
            Said::Error(e) => format!("error: {e}"),
        }
    }
}

/// Polls a `FramedRead` until its reader has nothing more: it read the prefix and waits.
fn poll_framed<D: Decoder>(f: &mut FramedRead<PrefixThenWait, D>) -> Said<D::Error> {
    let mut cx = Context::from_waker(Waker::noop());
    match Pin::new(&mut *f).poll_next(&mut cx) {
        Poll::Pending => Said::NoFrame,
        Poll::Ready(Some(Ok(_))) => Said::Frame,
        Poll::Ready(Some(Err(e))) => Said::Error(e),
        Poll::Ready(None) => Said::Frame,
    }
}

fn describe_framed<D: Decoder>(f: &mut FramedRead<PrefixThenWait, D>, said: Said<D::Error>) -> String
where
    D::Error: std::fmt::Display,
{
    format!(
        "{}; read buffer capacity {} bytes",
        said.text(),
        f.read_buffer().capacity()
    )
}

/// `Decoder::decode` on a buffer as `Framed` makes it, holding the prefix, then the `reserve(1)`
/// `Framed` makes before its next read.
fn decode_prefix<D: Decoder>(codec: &mut D, buf: &mut BytesMut) -> Said<D::Error> {
    buf.extend_from_slice(&prefix());
    let r = match codec.decode(buf) {
        Ok(None) => Said::NoFrame,
        Ok(Some(_)) => Said::Frame,
        Err(e) => Said::Error(e),
    };
    buf.reserve(1);
    r
}

fn describe_decoded<D: Decoder>(buf: &BytesMut, said: Said<D::Error>) -> String
where
    D::Error: std::fmt::Display,
{
    format!("{}; buffer capacity {} bytes", said.text(), buf.capacity())
}

fn length_delimited() -> LengthDelimitedCodec {
    LengthDelimitedCodec::builder()
        .length_field_offset(0)
        .length_field_length(4)
        .length_adjustment(0)
        .num_skip(4)
        .big_endian()
        .max_frame_length(MAX_FRAME)
        .new_codec()
}

/// A growable cutter: takes the prefix, then makes room for the next read.
fn growable(rest: usize) -> (isize, isize, String) {
    measure(
        || FrameCutter::new(Growable::new(rest), MAX_FRAME),
        |c| {
            assert_eq!(c.push(&prefix()), 4);
            let cut = c.next_frame().map(|c| match c {
                Cut::NeedMore(n) => n,
                Cut::Frame(_) => 0,
            });
            (cut, c.space().len())
        },
        |c, (cut, room)| {
            let cut = match cut {
                Ok(n) => format!("needs {n} more bytes"),
                Err(e) => format!("error: {e}"),
            };
            format!(
                "{cut}; room for the next read {room} bytes, storage {} bytes",
                c.storage().capacity()
            )
        },
    )
}

fn main() {
    let mut rows = Vec::new();
    let mut bad = Vec::new();

    // A fixed buffer: a frame must fit it, so the announcement is refused; nothing is allocated.
    let mut fixed = [0u8; 64 * 1024];
    let (rest, held, note) = measure(
        || FrameCutter::new(&mut fixed[..], MAX_FRAME),
        |c| {
            assert_eq!(c.push(&prefix()), 4);
            c.next_frame().map(|_| ())
        },
        |_, r| match r {
            Err(CutError::TooLarge { size, max }) => {
                format!("refused: frame size {size} exceeds the maximum {max} (the buffer's)")
            }
            r => format!("{r:?}"),
        },
    );
    if !note.starts_with("refused") {
        bad.push("a fixed 64 KiB cutter did not refuse a 100 MiB frame".to_string());
    }
    rows.push(Row {
        reader: "kafka-wire `FrameCutter<&mut [u8]>`, a fixed 64 KiB buffer the caller owns (not on the heap)".into(),
        rest,
        held,
        guarded: true,
        note,
    });

    for (rest_size, what) in [(64 * 1024, "64 KiB (the proxy's)"), (4 * 1024, "4 KiB")] {
        let (rest, held, note) = growable(rest_size);
        rows.push(Row {
            reader: format!("kafka-wire `FrameCutter<Growable>`, resting size {what}"),
            rest,
            held,
            guarded: true,
            note,
        });
    }
    // A resting size of 0: any read needs room, and the room offered is one step.
    let (rest, held, note) = growable(0);
    rows.push(Row {
        reader: format!(
            "kafka-wire `FrameCutter<Growable>`, resting size 0 (grows by what a read can bring, at most {GROW_STEP} bytes)"
        ),
        rest,
        held,
        guarded: false,
        note,
    });

    // The tokio codec on the read buffer `Framed` makes.
    let (rest, held, note) = measure(
        || {
            (
                ClientCodec::<16>::new(Some("kafka-wire-bench"), MAX_FRAME),
                BytesMut::with_capacity(FRAMED_INITIAL),
            )
        },
        |(c, b)| decode_prefix(c, b),
        |(_, b), said| describe_decoded::<ClientCodec<16>>(b, said),
    );
    rows.push(Row {
        reader: "kafka-wire `ClientCodec::decode` on an 8 KiB `BytesMut` (as `Framed` makes it), then `Framed`'s `reserve(1)`".into(),
        rest,
        held,
        guarded: true,
        note,
    });
    let (rest, held, note) = measure(
        || {
            FramedRead::new(
                PrefixThenWait { sent: false },
                ClientCodec::<16>::new(Some("kafka-wire-bench"), MAX_FRAME),
            )
        },
        poll_framed,
        describe_framed,
    );
    rows.push(Row {
        reader: "kafka-wire `ClientCodec` in a `FramedRead`".into(),
        rest,
        held,
        guarded: true,
        note,
    });

    // The proxy's pump: reads the prefix, then tries its next read (which would block).
    let (rest, held, note) = measure(
        || {
            Pump::new(
                Direction::Response,
                0,
                Arc::new(Pairing::new()),
                Arc::new(Stats::default()),
            )
        },
        |p| {
            let mut from = PrefixThenWait { sent: false };
            let mut to = io::sink();
            let first = p.step(&mut from, &mut to);
            let second = p.step(&mut from, &mut to);
            to.flush().ok();
            (first, second)
        },
        |p, (first, second)| {
            format!(
                "step: {first:?}, then {}; read buffer {} bytes",
                match second {
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => "would block".to_string(),
                    r => format!("{r:?}"),
                },
                p.buffer_capacity()
            )
        },
    );
    rows.push(Row {
        reader: "kafka-wire-ext `proxy::Pump` (its read buffer a `FrameCutter<Growable>` of 64 KiB at rest; its gathering and rewrite buffers empty until used; the connection's pairing table and the counters)".into(),
        rest,
        held,
        guarded: true,
        note,
    });

    // The anchor.
    let (rest, held, note) = measure(
        || (length_delimited(), BytesMut::with_capacity(FRAMED_INITIAL)),
        |(c, b)| decode_prefix(c, b),
        |(_, b), said| describe_decoded::<LengthDelimitedCodec>(b, said),
    );
    rows.push(Row {
        reader: "tokio_util `LengthDelimitedCodec::decode` (4-byte big-endian length) on an 8 KiB `BytesMut`, then `Framed`'s `reserve(1)`".into(),
        rest,
        held,
        guarded: false,
        note,
    });
    let (rest, held, note) = measure(
        || FramedRead::new(PrefixThenWait { sent: false }, length_delimited()),
        poll_framed,
        describe_framed,
    );
    rows.push(Row {
        reader: "tokio_util `LengthDelimitedCodec` in a `FramedRead`".into(),
        rest,
        held,
        guarded: false,
        note,
    });

    println!("| reader | heap at rest | heap after the 4-byte prefix (100 MiB announced) | growth | | what it did |");
    println!("|---|---:|---:|---:|---|---|");
    for r in &rows {
        let verdict = if !r.guarded {
            ""
        } else if r.held <= r.rest {
            "≤ resting buffer"
        } else {
            bad.push(format!(
                "{}: {} bytes after the prefix, {} at rest",
                r.reader, r.held, r.rest
            ));
            "**exceeds its resting buffer**"
        };
        println!(
            "| {} | {} | {} | {} | {verdict} | {} |",
            r.reader,
            group(r.rest),
            group(r.held),
            group(r.held - r.rest),
            r.note
        );
    }
    // The table's premise: a cutter holding part of a frame reports what it still needs.
    let mut c = FrameCutter::new([0u8; 8], 4);
    c.push(&[0, 0, 0, 4, 1]);
    if c.next_frame() != Ok(Cut::NeedMore(3)) {
        bad.push("a cutter did not report the bytes a frame still needs".into());
    }
    if !bad.is_empty() {
        for b in &bad {
            eprintln!("mem: {b}");
        }
        std::process::exit(1);
    }
    eprintln!("mem: every kafka-wire reader holds no more after the prefix than at rest");
}

/// 1234567 as "1,234,567".
fn group(n: isize) -> String {
    let s = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}
