//! Versions fixed at build time: `KAFKA_WIRE_PIN`.
//!
//! A build that sets the environment variable `KAFKA_WIRE_PIN` to a list such as
//! `api-produce=9,api-metadata=12` fixes each named API (request and response, keyed by its
//! Cargo feature) to one version; any other schema (a record, a header) is keyed by its schema
//! name, as in `PartitionChangeRecord=2`. The generated code of a pinned API reads its version from a
//! constant instead of from its argument, so the compiler drops every branch and field of the
//! other versions; the message's [`MessageInfo`](crate::MessageInfo) then lists that version only,
//! and parsing or encoding it at any other version is an `UnsupportedVersion` error.
//!
//! The list is read when the crate is compiled (`option_env!`, which Cargo tracks: changing it
//! rebuilds). A key that names no API of this build is ignored; a value that is not a version of
//! the API, or a list that does not parse, stops the build with an error naming the key.

// Everything here runs in `const` evaluation, where a panic is a build error: that is how a bad
// `KAFKA_WIRE_PIN` stops the build, and an index out of bounds would stop it the same way.
#![allow(
    clippy::panic,
    clippy::indexing_slicing,
    reason = "evaluated in a `const`: a panic is a build error, by design"
)]

/// The version a generated function works at: the pinned one (`PIN`, from [`version`]) if the
/// build pins one, else the `v` it was called with. A constant `pin` folds it away.
#[inline(always)]
pub const fn or(pin: Option<i16>, v: i16) -> i16 {
    match pin {
        Some(p) => p,
        None => v,
    }
}

/// The version `list` fixes for the API whose feature is `key`, if any: `list` is the value of
/// `KAFKA_WIRE_PIN` (comma-separated `feature=version` pairs, spaces allowed around each), and
/// `min..=max` are the API's valid versions. Evaluated in a `const`, so its panics are build
/// errors.
pub const fn version(list: Option<&str>, key: &str, min: i16, max: i16) -> Option<i16> {
    let Some(list) = list else {
        return None;
    };
    let b = list.as_bytes();
    let k = key.as_bytes();
    let mut i = 0;
    let mut found: Option<i16> = None;
    while i < b.len() {
        // One `name=value` entry, from `i` to the next comma.
        let mut end = i;
        while end < b.len() && b[end] != b',' {
            end += 1;
        }
        let (s, e) = trim(b, i, end);
        if s < e {
            let mut eq = s;
            while eq < e && b[eq] != b'=' {
                eq += 1;
            }
            if eq == e {
                panic!("KAFKA_WIRE_PIN: an entry without `=` (expected `feature=version`)");
            }
            let (ns, ne) = trim(b, s, eq);
            if same(b, ns, ne, k) {
                let (vs, ve) = trim(b, eq + 1, e);
                let v = number(b, vs, ve);
                if v < min as i32 || v > max as i32 {
                    panic!("KAFKA_WIRE_PIN: a version outside the API's valid versions");
                }
                if found.is_some() {
                    panic!("KAFKA_WIRE_PIN: an API named twice");
                }
                #[allow(
                    clippy::cast_possible_truncation,
                    reason = "min <= v <= max, two i16s, is checked above"
                )]
                let pinned = v as i16;
                found = Some(pinned);
            }
        }
        i = end + 1;
    }
    found
}

/// `b[s..e]` without the spaces at either end, as a range.
const fn trim(b: &[u8], mut s: usize, mut e: usize) -> (usize, usize) {
    while s < e && b[s] == b' ' {
        s += 1;
    }
    while e > s && b[e - 1] == b' ' {
        e -= 1;
    }
    (s, e)
}

/// Whether `b[s..e]` is `k`.
const fn same(b: &[u8], s: usize, e: usize, k: &[u8]) -> bool {
    if e - s != k.len() {
        return false;
    }
    let mut j = 0;
    while j < k.len() {
        if b[s + j] != k[j] {
            return false;
        }
        j += 1;
    }
    true
}

/// The decimal number `b[s..e]` (at most five digits).
const fn number(b: &[u8], s: usize, e: usize) -> i32 {
    if s == e || e - s > 5 {
        panic!("KAFKA_WIRE_PIN: a version that is not a number of at most five digits");
    }
    let mut v: i32 = 0;
    let mut j = s;
    while j < e {
        let d = b[j];
        if d < b'0' || d > b'9' {
            panic!("KAFKA_WIRE_PIN: a version that is not a number");
        }
        v = v * 10 + (d - b'0') as i32;
        j += 1;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::version;
    use std::panic;

    #[test]
    fn finds_the_key_among_others() {
        let l = Some("api-metadata=12, api-produce = 9 ,api-fetch=4");
        assert_eq!(version(l, "api-produce", 3, 13), Some(9));
        assert_eq!(version(l, "api-metadata", 0, 13), Some(12));
        assert_eq!(version(l, "api-fetch", 4, 18), Some(4));
        // A key is matched whole, not as a prefix or suffix of another.
        assert_eq!(version(l, "api-produc", 3, 13), None);
        assert_eq!(version(l, "produce", 3, 13), None);
        assert_eq!(version(None, "api-produce", 3, 13), None);
        assert_eq!(version(Some(""), "api-produce", 3, 13), None);
        assert_eq!(version(Some(",,api-produce=3,"), "api-produce", 3, 13), Some(3));
    }

    #[test]
    fn rejects_what_does_not_parse() {
        for (list, min, max) in [
            ("api-produce=14", 3, 13),
            ("api-produce=2", 3, 13),
            ("api-produce=", 3, 13),
            ("api-produce=x", 3, 13),
            ("api-produce=-1", 0, 13),
            ("api-produce=9,api-produce=10", 3, 13),
            ("api-produce", 3, 13),
            ("api-produce=123456", 3, 13),
        ] {
            let r = panic::catch_unwind(|| version(Some(list), "api-produce", min, max));
            assert!(r.is_err(), "{list} was accepted");
        }
    }

    #[test]
    fn a_bad_entry_for_another_key_stops_every_key() {
        // An entry without `=` is a mistake whatever it names.
        let r = panic::catch_unwind(|| version(Some("api-fetch,api-produce=9"), "api-produce", 3, 13));
        assert!(r.is_err());
    }
}
