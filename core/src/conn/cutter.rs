//! Size-prefixed frames cut from a byte stream, in a buffer the caller owns.

use core::fmt;

/// Where a [`FrameCutter`] keeps the bytes it has received.
///
/// A fixed buffer (`[u8; N]`, `&mut [u8]`) never grows: a frame must fit it. With `alloc`, a
/// `Vec<u8>` grows as bytes arrive, never ahead of them, and gives memory back after a frame
/// larger than its resting size.
pub trait Storage {
    /// Whether [`grow_to`](Self::grow_to) can add room.
    const GROWS: bool = false;
    /// The bytes held, all of them (`len` is the capacity the cutter may fill).
    fn bytes(&self) -> &[u8];
    /// The same, writable.
    fn bytes_mut(&mut self) -> &mut [u8];
    /// Makes room for at least `want` bytes in all if the storage can grow; returns the length
    /// it now has. A fixed buffer returns its length unchanged.
    fn grow_to(&mut self, want: usize) -> usize {
        let _ = want;
        self.bytes().len()
    }
    /// Gives memory back once no frame is pending beyond `keep` bytes (a growable storage
    /// shrinks to its resting size).
    fn settle(&mut self, keep: usize) {
        let _ = keep;
    }
}

impl<const N: usize> Storage for [u8; N] {
    #[inline]
    fn bytes(&self) -> &[u8] {
        self
    }
    #[inline]
    fn bytes_mut(&mut self) -> &mut [u8] {
        self
    }
}

impl Storage for &mut [u8] {
    #[inline]
    fn bytes(&self) -> &[u8] {
        self
    }
    #[inline]
    fn bytes_mut(&mut self) -> &mut [u8] {
        self
    }
}

/// A growable storage (feature `alloc`): grows in steps as bytes arrive, by at most the bytes
/// a read can bring (`step`), and shrinks back to `rest` bytes after a larger frame.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Growable {
    buf: alloc::vec::Vec<u8>,
    rest: usize,
}

#[cfg(feature = "alloc")]
impl Growable {
    /// A storage of `rest` bytes that grows as frames larger than it arrive and shrinks back
    /// after them.
    pub fn new(rest: usize) -> Self {
        Growable {
            buf: alloc::vec![0; rest],
            rest,
        }
    }

    /// The bytes it holds now, the memory it commits.
    pub fn capacity(&self) -> usize {
        self.buf.len()
    }
}

#[cfg(feature = "alloc")]
impl Storage for Growable {
    const GROWS: bool = true;
    #[inline]
    fn bytes(&self) -> &[u8] {
        &self.buf
    }
    #[inline]
    fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.buf
    }
    fn grow_to(&mut self, want: usize) -> usize {
        if want > self.buf.len() {
            self.buf.resize(want, 0);
        }
        self.buf.len()
    }
    fn settle(&mut self, keep: usize) {
        if self.buf.len() > self.rest && keep <= self.rest {
            self.buf.truncate(self.rest);
            self.buf.shrink_to_fit();
        }
    }
}

/// Why a stream cannot be cut into frames any further: the connection is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CutError {
    /// A size prefix below zero.
    NegativeSize {
        /// The size read.
        size: i32,
    },
    /// A size prefix above the largest frame allowed.
    TooLarge {
        /// The size read (the bytes after the prefix).
        size: usize,
        /// The largest allowed.
        max: usize,
    },
}

impl fmt::Display for CutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CutError::NegativeSize { size } => write!(f, "negative frame size {size}"),
            CutError::TooLarge { size, max } => write!(f, "frame size {size} exceeds the maximum {max}"),
        }
    }
}

impl core::error::Error for CutError {}

/// What [`FrameCutter::next_frame`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut<'a> {
    /// A whole frame: its 4-byte size and the bytes it announces, as the frame parsers take it.
    Frame(&'a [u8]),
    /// No whole frame yet: at least this many more bytes are needed.
    NeedMore(usize),
}

/// Cuts size-prefixed frames out of the bytes a connection delivers, without copying them out.
///
/// Bytes are read straight into [`space`](Self::space) and committed with
/// [`filled`](Self::filled); [`next_frame`](Self::next_frame) hands out each whole frame as a
/// slice of the buffer, valid until the next call. A size prefix is checked against the
/// maximum before anything more is kept for its frame: a peer that announces 100 MiB and sends
/// nothing else costs no memory beyond the buffer (or, growable, beyond what it sent).
///
/// ```
/// use kafka_wire::conn::{Cut, FrameCutter};
///
/// let mut cut = FrameCutter::new([0u8; 64], 60);
/// let stream = [0, 0, 0, 2, 7, 8, 0, 0, 0, 1, 9];
/// let mut frames = 0;
/// for chunk in stream.chunks(3) {
///     let space = cut.space();
///     space[..chunk.len()].copy_from_slice(chunk);
///     cut.filled(chunk.len());
///     while let Cut::Frame(f) = cut.next_frame().unwrap() {
///         assert!(f == [0, 0, 0, 2, 7, 8] || f == [0, 0, 0, 1, 9]);
///         frames += 1;
///     }
/// }
/// assert_eq!(frames, 2);
/// assert_eq!(cut.next_frame(), Ok(Cut::NeedMore(4)));
/// ```
#[derive(Debug, Clone)]
pub struct FrameCutter<S> {
    store: S,
    /// Start of the bytes not handed out yet.
    start: usize,
    /// End of the bytes received.
    end: usize,
    /// Length of the frame handed out last, released at the next call.
    handed: usize,
    max_frame: usize,
}

/// The bytes a growable storage adds at a time when the bytes in flight call for more.
pub const GROW_STEP: usize = 64 * 1024;

impl<S: Storage> FrameCutter<S> {
    /// A cutter over `store` that refuses frames whose size prefix exceeds `max_frame` bytes
    /// (the bytes after the prefix). With a fixed buffer, the maximum is also capped so that a
    /// whole frame fits the buffer.
    pub fn new(store: S, max_frame: usize) -> Self {
        FrameCutter {
            store,
            start: 0,
            end: 0,
            handed: 0,
            max_frame,
        }
    }

    /// The largest frame accepted (the bytes after the prefix): the maximum given, and for a
    /// storage that cannot grow, what fits it.
    pub fn max_frame(&self) -> usize {
        self.max_frame
    }

    /// The bytes received and not yet handed out as frames.
    pub fn buffered(&self) -> usize {
        self.end - self.start - self.handed
    }

    /// The storage, for its figures (a `Growable`'s capacity).
    pub fn storage(&self) -> &S {
        &self.store
    }

    /// Releases the frame handed out last; moves what is pending to the front when that makes
    /// room.
    fn release(&mut self) {
        self.start += self.handed;
        self.handed = 0;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    /// The next whole frame, or how many more bytes one needs. A size prefix that is negative or
    /// above the maximum is an error, and the stream cannot go on.
    pub fn next_frame(&mut self) -> Result<Cut<'_>, CutError> {
        self.release();
        let pending = self.store.bytes().get(self.start..self.end).unwrap_or_default();
        let Some(&prefix) = pending.first_chunk::<4>() else {
            return Ok(Cut::NeedMore(4 - pending.len()));
        };
        let size = frame_size(prefix, self.cap())?;
        let whole = size + 4;
        if pending.len() < whole {
            return Ok(Cut::NeedMore(whole - pending.len()));
        }
        self.handed = whole;
        Ok(Cut::Frame(pending.get(..whole).unwrap_or_default()))
    }

    /// The frame [`next_frame`](Self::next_frame) handed out last, again (empty when none is
    /// held): for a caller that could not keep the borrow across its read loop.
    pub fn handed(&self) -> &[u8] {
        self.store
            .bytes()
            .get(self.start..self.start + self.handed)
            .unwrap_or_default()
    }

    /// The largest frame a storage that cannot grow holds, or the maximum.
    fn cap(&self) -> usize {
        if S::GROWS {
            self.max_frame
        } else {
            self.max_frame.min(self.store.bytes().len().saturating_sub(4))
        }
    }

    /// Where the next bytes read from the connection go: free space after what is buffered,
    /// never empty while a frame is incomplete (pending bytes are moved to the front when the
    /// frame would not fit otherwise, and a full growable storage grows by what the frame in
    /// progress still needs, at most [`GROW_STEP`] at a time, so that memory follows the bytes
    /// that arrived). Empty only when a whole frame is waiting to be taken.
    pub fn space(&mut self) -> &mut [u8] {
        self.release();
        let pending = self.end - self.start;
        // How many bytes the frame in progress still needs (4 for an unread prefix).
        let need = match self
            .store
            .bytes()
            .get(self.start..self.end)
            .and_then(|p| p.first_chunk::<4>())
        {
            Some(&p) => match frame_size(p, self.cap()) {
                Ok(size) => (size + 4).saturating_sub(pending),
                Err(_) => 0,
            },
            None => 4 - pending,
        };
        let len = self.store.bytes().len();
        if self.start > 0 && self.end + need > len {
            // `start <= end <= len` always holds; tested here so that no panic path is left.
            if let Some(held) = self.store.bytes_mut().get_mut(..self.end) {
                if self.start <= held.len() {
                    held.copy_within(self.start.., 0);
                }
            }
            self.end = pending;
            self.start = 0;
        }
        // Grow only when every byte held is a received one: memory follows what arrived.
        if self.end == len && need > 0 {
            self.store.grow_to(len + need.min(GROW_STEP));
        } else if pending == 0 {
            self.store.settle(0);
        }
        let end = self.end;
        self.store.bytes_mut().get_mut(end..).unwrap_or_default()
    }

    /// Commits `n` bytes read into [`space`](Self::space).
    pub fn filled(&mut self, n: usize) {
        self.end = (self.end + n).min(self.store.bytes().len());
    }

    /// The bytes received and not handed out as frames, from the start of the next frame (or
    /// of what should have been one): for a caller that looks for a frame boundary itself, as
    /// a capture reader does after a size prefix it refused.
    pub fn pending(&mut self) -> &[u8] {
        self.release();
        self.store.bytes().get(self.start..self.end).unwrap_or_default()
    }

    /// Drops the first `n` pending bytes (all of them when fewer are held), after
    /// [`pending`](Self::pending) found where the next frame starts, or to give up on a stream.
    pub fn discard(&mut self, n: usize) {
        self.release();
        self.start = (self.start + n).min(self.end);
        self.release();
    }

    /// Copies `bytes` in (for a caller that does not read in place), as far as they fit; returns
    /// how many were taken. Take frames with [`next_frame`](Self::next_frame) and call again
    /// with the rest.
    pub fn push(&mut self, bytes: &[u8]) -> usize {
        let space = self.space();
        let n = space.len().min(bytes.len());
        if let (Some(dst), Some(src)) = (space.get_mut(..n), bytes.get(..n)) {
            dst.copy_from_slice(src);
        }
        self.filled(n);
        n
    }
}

/// The size a frame's 4-byte prefix announces, checked against `max`.
pub fn frame_size(prefix: [u8; 4], max: usize) -> Result<usize, CutError> {
    let size = i32::from_be_bytes(prefix);
    let Ok(size) = usize::try_from(size) else {
        return Err(CutError::NegativeSize { size });
    };
    if size > max {
        return Err(CutError::TooLarge { size, max });
    }
    Ok(size)
}
