//! A reader that hands out its bytes in pieces, so that frames end up split across reads.

use std::io::{self, Read};

pub struct Chunked<'a> {
    pub bytes: &'a [u8],
    pub chunk: usize,
}

impl Read for Chunked<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.chunk.min(out.len()).min(self.bytes.len());
        out[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}
