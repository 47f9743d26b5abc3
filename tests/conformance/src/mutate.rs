//! Hostile inputs: valid encodings truncated and mutated, and a small deterministic RNG.

/// xorshift64*: deterministic, seedable, good enough for choosing mutations.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03 | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
}

/// The mutation operators, named for the report.
pub const OPS: &[&str] = &[
    "truncate",
    "set-byte",
    "set-byte-edge",
    "insert-byte",
    "delete-byte",
    "append-trailing",
    "set-4-bytes-edge",
    "bump-byte",
    "duplicate-span",
    "varint-edge",
];

/// One mutant of `input` (which must not be empty for most operators); returns the operator name.
pub fn mutate(input: &[u8], rng: &mut Rng) -> (Vec<u8>, &'static str) {
    let mut b = input.to_vec();
    let n = b.len();
    let op = if n == 0 { 5 } else { rng.below(OPS.len()) };
    match op {
        0 => {
            b.truncate(rng.below(n));
        }
        1 => {
            let i = rng.below(n);
            b[i] = rng.next() as u8;
        }
        2 => {
            let i = rng.below(n);
            b[i] = [0x00, 0x01, 0x02, 0x7f, 0x80, 0xfe, 0xff][rng.below(7)];
        }
        3 => {
            let i = rng.below(n + 1);
            b.insert(i, [0x00, 0x01, 0x7f, 0x80, 0xff][rng.below(5)]);
        }
        4 => {
            b.remove(rng.below(n));
        }
        5 => {
            let k = 1 + rng.below(3);
            b.extend(rng.bytes(k));
        }
        6 => {
            let i = rng.below(n);
            let pat: [u8; 4] = [
                [0xff; 4],
                [0x7f, 0xff, 0xff, 0xff],
                [0x80, 0, 0, 0],
                [0, 0, 0, 0],
                [0, 0, 0x7f, 0xff],
            ][rng.below(5)];
            for (j, p) in pat.iter().enumerate() {
                if let Some(x) = b.get_mut(i + j) {
                    *x = *p;
                }
            }
        }
        7 => {
            let i = rng.below(n);
            b[i] = b[i].wrapping_add(if rng.below(2) == 0 { 1 } else { 0xff });
        }
        8 => {
            let i = rng.below(n);
            let len = 1 + rng.below((n - i).min(8));
            let span = b[i..i + len].to_vec();
            let at = rng.below(n + 1);
            b.splice(at..at, span);
        }
        _ => {
            // Overlong or maximal varints where a compact length or a tag header may be.
            let i = rng.below(n);
            let pat: &[u8] = [
                &[0x80, 0x00][..],
                &[0xff, 0xff, 0xff, 0xff, 0x0f],
                &[0xff, 0xff, 0xff, 0xff, 0xff],
                &[0x81, 0x80, 0x80, 0x80, 0x00],
            ][rng.below(4)];
            b.splice(i..(i + 1).min(n), pat.iter().copied());
        }
    }
    (b, OPS[op])
}
