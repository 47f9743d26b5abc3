//! Reassembly of size-prefixed Kafka frames from a byte stream.
//!
//! Bytes arrive in arbitrary pieces; complete frames are handed out as slices borrowed from the
//! reassembler's buffer (no copy per frame). A size prefix above the configured maximum, or a
//! negative one, is rejected at once: a hostile peer cannot make the buffer grow past it.

use std::fmt;

/// Why the stream cannot go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameError {
    /// The size prefix is negative.
    NegativeSize(i32),
    /// The size prefix is larger than the configured maximum.
    TooLarge {
        /// The size read.
        size: usize,
        /// The maximum allowed.
        max: usize,
    },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::NegativeSize(s) => write!(f, "negative frame size {s}"),
            FrameError::TooLarge { size, max } => write!(f, "frame size {size} exceeds the maximum {max}"),
        }
    }
}

impl std::error::Error for FrameError {}

/// The size a frame's 4-byte prefix announces, checked against `max`.
pub fn frame_size(prefix: [u8; 4], max: usize) -> Result<usize, FrameError> {
    let size = i32::from_be_bytes(prefix);
    let size = usize::try_from(size).map_err(|_| FrameError::NegativeSize(size))?;
    if size > max {
        return Err(FrameError::TooLarge { size, max });
    }
    Ok(size)
}

/// Collects bytes and hands out whole frames (the bytes after the 4-byte size).
#[derive(Debug)]
pub struct Reassembler {
    buf: Vec<u8>,
    start: usize,
    max_frame: usize,
    consumed: usize,
}

impl Reassembler {
    /// A reassembler that rejects frames larger than `max_frame` bytes.
    pub fn new(max_frame: usize) -> Self {
        Reassembler {
            buf: Vec::new(),
            start: 0,
            max_frame,
            consumed: 0,
        }
    }

    /// Adds received bytes.
    pub fn push(&mut self, bytes: &[u8]) {
        self.release();
        if self.start > 0 && self.start >= self.buf.len() / 2 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    fn release(&mut self) {
        self.start += self.consumed;
        self.consumed = 0;
    }

    /// The next complete frame, if one has arrived. The slice is valid until the next call.
    pub fn next_frame(&mut self) -> Result<Option<&[u8]>, FrameError> {
        self.release();
        let pending = &self.buf[self.start..];
        let Some(&prefix) = pending.first_chunk::<4>() else {
            return Ok(None);
        };
        let size = frame_size(prefix, self.max_frame)?;
        if pending.len() < 4 + size {
            return Ok(None);
        }
        self.consumed = 4 + size;
        Ok(Some(&self.buf[self.start + 4..self.start + 4 + size]))
    }

    /// Bytes received but not yet handed out.
    pub fn buffered(&self) -> usize {
        self.buf.len() - self.start - self.consumed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(payload: &[u8]) -> Vec<u8> {
        let mut f = (payload.len() as i32).to_be_bytes().to_vec();
        f.extend_from_slice(payload);
        f
    }

    #[test]
    fn frames_split_across_pushes_come_out_whole() {
        let mut stream = frame(b"hello");
        stream.extend(frame(b""));
        stream.extend(frame(b"kafka wire"));
        let mut r = Reassembler::new(64);
        let mut got: Vec<Vec<u8>> = Vec::new();
        for chunk in stream.chunks(3) {
            r.push(chunk);
            while let Some(f) = r.next_frame().unwrap() {
                got.push(f.to_vec());
            }
        }
        assert_eq!(got, [b"hello".to_vec(), b"".to_vec(), b"kafka wire".to_vec()]);
        assert_eq!(r.buffered(), 0);
    }

    #[test]
    fn a_partial_frame_waits() {
        let mut r = Reassembler::new(64);
        r.push(&[0, 0, 0, 5, 1, 2]);
        assert_eq!(r.next_frame().unwrap(), None);
        r.push(&[3, 4, 5]);
        assert_eq!(r.next_frame().unwrap(), Some(&[1, 2, 3, 4, 5][..]));
    }

    #[test]
    fn hostile_sizes_are_rejected_before_buffering() {
        let mut r = Reassembler::new(1024);
        r.push(&[0x7f, 0xff, 0xff, 0xff]);
        assert_eq!(
            r.next_frame(),
            Err(FrameError::TooLarge {
                size: 0x7fff_ffff,
                max: 1024
            })
        );
        let mut r = Reassembler::new(1024);
        r.push(&[0xff, 0xff, 0xff, 0xfe]);
        assert_eq!(r.next_frame(), Err(FrameError::NegativeSize(-2)));
    }
}
