//! Text read off the wire. Kafka's strings (topic, host, group, member and client names) are
//! almost always ASCII and short; `core::str::from_utf8` walks a short unaligned string a byte at
//! a time, so the common case is checked here a word at a time first, and only text with a byte
//! above 0x7f goes through the full UTF-8 validation.
//!
//! This module holds the runtime's one `unsafe` block (docs/MAINTAINING.md, "Unsafe code").
//! The default build reads strings through it; `small-code` calls `from_utf8` alone
//! (`crate::profile`).

/// `bytes` as a `str`, or `None` where they are not valid UTF-8.
#[inline(always)]
pub(crate) fn ascii_or_utf8(bytes: &[u8]) -> Option<&str> {
    if is_ascii(bytes) {
        #[allow(unsafe_code)]
        // SAFETY: `is_ascii` saw no byte above 0x7f, and every sequence of bytes below 0x80 is
        // valid UTF-8 (each is a one-byte code point).
        let s = unsafe { core::str::from_utf8_unchecked(bytes) };
        Some(s)
    } else {
        core::str::from_utf8(bytes).ok()
    }
}

/// Whether every byte is below 0x80: the high bits of all bytes OR-ed together, eight bytes at a
/// time, with overlapping reads for the part of a word left over.
#[inline(always)]
fn is_ascii(bytes: &[u8]) -> bool {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let high = if let Some(last) = bytes.last_chunk::<8>() {
        let (words, _) = bytes.as_chunks::<8>();
        let mut h = u64::from_ne_bytes(*last);
        for w in words {
            h |= u64::from_ne_bytes(*w);
        }
        h
    } else if let (Some(first), Some(last)) = (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
        u64::from(u32::from_ne_bytes(*first) | u32::from_ne_bytes(*last))
    } else {
        bytes.iter().fold(0, |h, &b| h | u64::from(b))
    };
    high & HIGH == 0
}

#[cfg(test)]
mod tests {
    use super::{ascii_or_utf8 as str_of, is_ascii};

    /// Every string of up to 2 bytes, and every placement of one byte above 0x7f in ASCII text of
    /// every length up to 40: the answer is `core::str::from_utf8`'s.
    #[test]
    fn agrees_with_core() {
        let mut buf = [0u8; 2];
        for n in 0..=2usize {
            let count = 1usize << (8 * n);
            for i in 0..count {
                for (k, b) in buf[..n].iter_mut().enumerate() {
                    *b = (i >> (8 * k)) as u8;
                }
                let b = &buf[..n];
                assert_eq!(str_of(b), core::str::from_utf8(b).ok(), "{b:?}");
            }
        }
        for n in 0..=40usize {
            let text: std::vec::Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(is_ascii(&text));
            assert_eq!(str_of(&text), core::str::from_utf8(&text).ok());
            for at in 0..n {
                for high in [0x80u8, 0xc3, 0xff] {
                    let mut t = text.clone();
                    t[at] = high;
                    assert!(!is_ascii(&t), "{n} {at} {high:#x}");
                    assert_eq!(str_of(&t), core::str::from_utf8(&t).ok());
                }
                // A two-byte code point placed at `at`.
                if at + 1 < n {
                    let mut t = text.clone();
                    t[at] = 0xc3;
                    t[at + 1] = 0xa9;
                    assert_eq!(str_of(&t), core::str::from_utf8(&t).ok());
                    assert!(str_of(&t).is_some());
                }
            }
        }
    }
}
