//! The wire vectors that Kafka's own classes write and read (`tests/vectors/primitives.tsv`,
//! made by `tests/java/vectors.sh`), and the checks that the unit tests of the runtime modules run
//! over them: a reader must decode each input to Kafka's value, consume exactly its bytes, and
//! fail where Kafka throws; a writer must write for each value the bytes Kafka writes.
//!
//! A line is `kind`, `value`, `hex`, `outcome` and `note`, tab-separated. Values are written as
//! Kafka's program prints them: integers in decimal, `float64` as the hex digits of its bits,
//! `uuid` as 32 hex digits, strings and bytes as `x` and their bytes in hex, arrays and lists of
//! tagged fields (`tag:xdata`) in brackets, and `null`.

use std::string::{String, ToString};
use std::vec::Vec;
use std::{format, vec};

use crate::error::{DecodeErrorKind as K, Fail};
use crate::read::Cursor;
use crate::reflect::{Number, NUMBERS};
use crate::write::Writer;

const FILE: &str = include_str!("../tests/vectors/primitives.tsv");

/// What Kafka does with a vector's bytes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Outcome {
    /// Reads the value and writes the same bytes for it.
    Ok,
    /// Reads the value, but writes these other bytes for it.
    Reencodes(Vec<u8>),
    /// Reads the value, but its writer refuses it.
    Unwritable,
    /// Its reader throws this exception class.
    Error(&'static str),
}

/// One vector.
#[derive(Clone, Debug)]
pub(crate) struct Vector {
    pub line: usize,
    pub kind: &'static str,
    pub value: &'static str,
    pub bytes: Vec<u8>,
    pub outcome: Outcome,
    /// The message of Kafka's exception, for `Error`.
    pub note: &'static str,
}

impl Vector {
    /// The bytes Kafka writes for the value it read; `None` where it reads none or writes none.
    pub fn written(&self) -> Option<&[u8]> {
        match &self.outcome {
            Outcome::Ok => Some(&self.bytes),
            Outcome::Reencodes(b) => Some(b),
            Outcome::Unwritable | Outcome::Error(_) => None,
        }
    }
}

/// What the runtime does instead, where it reads an input otherwise than Kafka's `Type` readers.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Rt {
    /// Refuses the input with this error at this offset.
    Refuses(K, usize),
    /// Reads this value.
    Reads(&'static str),
}

/// The inputs the runtime reads otherwise than Kafka's `Type` readers, on purpose:
/// - invalid UTF-8, which Kafka replaces with U+FFFD and the runtime refuses, at the string's
///   first byte;
/// - a compact nullable array of length -2 (count 2^32 - 1), where `CompactArrayOf` fails to
///   allocate -2 elements, and Kafka's generated message classes (which the runtime follows)
///   read any negative length as null.
pub(crate) const DIFFERENCES: &[(&str, &str, Rt)] = &[
    ("string", "0002c328", Rt::Refuses(K::InvalidUtf8, 2)),
    ("compact_string", "03c328", Rt::Refuses(K::InvalidUtf8, 1)),
    ("compact_array_string", "0203c328", Rt::Refuses(K::InvalidUtf8, 2)),
    ("compact_nullable_array_int32", "ffffffff0f", Rt::Reads("null")),
];

/// Every kind in the file besides the numbers of `reflect::NUMBERS`, each read by one of the
/// runtime's unit tests (the numbers' tests walk the table).
const KINDS: &[&str] = &[
    "bool",
    "uuid",
    "uvarint",
    "varint",
    "varlong",
    "string",
    "compact_string",
    "nullable_string",
    "compact_nullable_string",
    "bytes",
    "compact_bytes",
    "nullable_bytes",
    "compact_nullable_bytes",
    "records",
    "compact_records",
    "nullable_records",
    "compact_nullable_records",
    "array_int32",
    "nullable_array_int32",
    "compact_array_int32",
    "compact_nullable_array_int32",
    "array_string",
    "compact_array_string",
    "tags",
];

/// The kinds of the file that the unit tests read: [`KINDS`] and the numbers.
fn tested_kinds() -> Vec<&'static str> {
    NUMBERS.iter().map(|n| n.schema).chain(KINDS.iter().copied()).collect()
}

/// A number as the file writes it, from its big-endian bytes: an integer in decimal, a float as
/// the hex digits of its bits.
pub(crate) fn show_number(schema: &str, be: &[u8]) -> String {
    let n = number(schema);
    if n.float {
        to_hex(be)
    } else {
        n.int_from_be(be).to_string()
    }
}

/// The big-endian bytes of a number as the file writes it ([`show_number`]).
pub(crate) fn number_bytes(schema: &str, value: &str) -> Vec<u8> {
    let n = number(schema);
    if n.float {
        let bits = u64::from_str_radix(value, 16).unwrap_or_else(|_| panic!("not float bits: {value}"));
        return bits.to_be_bytes().to_vec();
    }
    let i: i64 = value.parse().unwrap_or_else(|_| panic!("not an integer: {value}"));
    let (b, at) = n.int_bytes(i).unwrap_or_else(|| panic!("{value} is not an {schema}"));
    b[at..].to_vec()
}

fn number(schema: &str) -> &'static Number {
    NUMBERS
        .iter()
        .find(|n| n.schema == schema)
        .unwrap_or_else(|| panic!("{schema} is no number"))
}

/// Bytes from hex digits.
pub(crate) fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or_else(|_| panic!("bad hex {s:?}")))
        .collect()
}

/// Hex digits of bytes.
pub(crate) fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Every vector in the file.
pub(crate) fn all() -> Vec<Vector> {
    FILE.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.is_empty())
        .map(|(i, l)| {
            let cols: Vec<&'static str> = l.split('\t').collect();
            assert_eq!(cols.len(), 5, "line {}: {l:?}", i + 1);
            let outcome = match cols[3] {
                "ok" => Outcome::Ok,
                o if o.starts_with("reencodes:") => Outcome::Reencodes(hex(&o["reencodes:".len()..])),
                o if o.starts_with("unwritable:") => Outcome::Unwritable,
                o if o.starts_with("error:") => Outcome::Error(&o["error:".len()..]),
                o => panic!("line {}: outcome {o:?}", i + 1),
            };
            Vector {
                line: i + 1,
                kind: cols[0],
                value: cols[1],
                bytes: hex(cols[2]),
                outcome,
                note: cols[4],
            }
        })
        .collect()
}

/// The vectors of `kind`; fails when there are none, so that a kind the file lost fails its test.
pub(crate) fn of(kind: &str) -> Vec<Vector> {
    let v: Vec<Vector> = all().into_iter().filter(|v| v.kind == kind).collect();
    assert!(!v.is_empty(), "no vectors of kind {kind}");
    v
}

/// A string, bytes or records value: `None` for null.
pub(crate) fn blob(value: &str) -> Option<Vec<u8>> {
    match value {
        "null" => None,
        v => Some(hex(v.strip_prefix('x').unwrap_or_else(|| panic!("not a blob: {v:?}")))),
    }
}

/// A string value: `None` for null.
pub(crate) fn text(value: &str) -> Option<String> {
    blob(value).map(|b| String::from_utf8(b).expect("Kafka writes UTF-8"))
}

/// The items of an array or tag-list value: `None` for null.
pub(crate) fn list(value: &str) -> Option<Vec<&str>> {
    match value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        _ if value == "null" => None,
        Some("") => Some(vec![]),
        Some(inner) => Some(inner.split(',').collect()),
        None => panic!("not a list: {value:?}"),
    }
}

/// A string or bytes value written as the vectors write it.
pub(crate) fn show_blob(b: Option<&[u8]>) -> String {
    b.map_or_else(|| "null".to_string(), |b| format!("x{}", to_hex(b)))
}

/// Items written as a list value.
pub(crate) fn show_list<I: IntoIterator<Item = String>>(items: Option<I>) -> String {
    match items {
        None => "null".to_string(),
        Some(i) => format!("[{}]", i.into_iter().collect::<Vec<_>>().join(",")),
    }
}

/// Whether a runtime error of `kind` is the failure Kafka reports with this exception and message.
/// Where Kafka's message gives the length it read, the runtime's error must carry the same one.
pub(crate) fn same_failure(class: &str, note: &str, kind: K) -> bool {
    // The numbers in messages like "... of length 5, only 4 bytes available".
    let after = |word: &str| -> Option<i64> {
        let rest = &note[note.find(word)? + word.len()..];
        let end = rest
            .find(|c: char| c != '-' && !c.is_ascii_digit())
            .unwrap_or(rest.len());
        rest[..end].parse().ok()
    };
    let wanted = after("of length ")
        .or_else(|| after("of size "))
        .or_else(|| after("byte array of "));
    match kind {
        K::UnexpectedEof { needed } => {
            class == "BufferUnderflowException"
                || note.starts_with("Tried to read")
                || matches!((wanted, after("only ")), (Some(w), Some(o)) if w - o == needed as i64)
        }
        K::LengthExceedsInput { length } => {
            // A negative size (Java's `int`) is the runtime's unsigned size past 2^31.
            wanted == Some(length)
                || class == "NegativeArraySizeException"
                    && note.parse::<i32>().is_ok_and(|n| i64::from(n as u32) == length)
        }
        K::NullNotAllowed => note.contains("cannot be negative") || note.contains("not nullable"),
        K::StringTooLong { length } => note.contains("larger than the maximum") && after("length ") == Some(length),
        K::InvalidVarint => note.starts_with("Varint is too long") || note.starts_with("Varlong is too long"),
        K::TooManyTaggedFields { .. } => note.starts_with("Invalid negative number of tagged fields"),
        _ => false,
    }
}

/// Checks a reader against every vector of `kind`. `read` decodes from a cursor and writes what
/// it read as the vectors write values. With `noted`, the cursor must flag as non-canonical
/// exactly the inputs that Kafka writes back otherwise.
pub(crate) fn reads(kind: &str, noted: bool, read: impl Fn(&mut Cursor<'_>) -> Result<String, Fail>) {
    for v in of(kind) {
        let at = format!("line {} ({kind} {})", v.line, to_hex(&v.bytes));
        let mut c = Cursor::new(&v.bytes);
        let r = read(&mut c);
        let diff = DIFFERENCES
            .iter()
            .find(|(k, h, _)| *k == kind && hex(h) == v.bytes)
            .map(|d| d.2);
        match (r, &v.outcome, diff) {
            (Ok(got), _, Some(Rt::Reads(want))) => assert_eq!(got, want, "{at}"),
            (Err(e), _, Some(Rt::Refuses(k, offset))) => {
                let e = c.error(e).finish(v.bytes.len(), "", -1);
                assert_eq!((e.kind(), e.offset()), (k, offset), "{at}");
            }
            (Ok(got), Outcome::Ok | Outcome::Reencodes(_) | Outcome::Unwritable, None) => {
                assert_eq!(got, v.value, "{at}");
                assert!(c.rest().is_empty(), "{at}: {} byte(s) left", c.rest().len());
                match &v.outcome {
                    Outcome::Ok if noted => assert!(!c.is_odd(), "{at}: flagged non-canonical"),
                    Outcome::Reencodes(_) if noted => assert!(c.is_odd(), "{at}: not flagged non-canonical"),
                    _ => {}
                }
            }
            (Err(e), Outcome::Error(class), None) => {
                let e = c.error(e).finish(v.bytes.len(), "", -1);
                assert!(
                    same_failure(class, v.note, e.kind()),
                    "{at}: {e} where Kafka: {class} {}",
                    v.note
                );
                assert!(e.offset() <= v.bytes.len(), "{at}: {e}");
            }
            (Ok(got), o, d) => panic!("{at}: read {got} where Kafka {o:?} {} ({d:?})", v.note),
            (Err(e), o, d) => panic!("{at}: {} where Kafka reads {} ({o:?}, {d:?})", c.error(e), v.value),
        }
    }
}

/// Checks a writer against every vector of `kind` that Kafka writes a value for: `write` writes
/// the value (given as the vectors write it) and returns the size the runtime's size function
/// gives it; the bytes must be Kafka's and fill exactly that size.
pub(crate) fn writes(kind: &str, write: impl Fn(&'static str, &mut Writer<'_>) -> usize) {
    let mut checked = 0;
    for v in of(kind) {
        let Some(want) = v.written() else { continue };
        let at = format!("line {} ({kind} {})", v.line, v.value);
        let mut buf = vec![0u8; want.len() + 8];
        let mut w = Writer::new(&mut buf);
        let size = write(v.value, &mut w);
        let n = w.finish().unwrap_or_else(|e| panic!("{at}: {e}"));
        assert_eq!(to_hex(&buf[..n]), to_hex(want), "{at}");
        assert_eq!(size, n, "{at}: size");
        checked += 1;
    }
    assert!(checked > 0, "no value of kind {kind} to write");
}

#[test]
fn every_kind_is_tested() {
    let vectors = all();
    assert!(vectors.len() > 200, "{} vectors", vectors.len());
    for v in &vectors {
        assert!(
            tested_kinds().contains(&v.kind),
            "line {}: kind {} is read by no test",
            v.line,
            v.kind
        );
    }
    for k in tested_kinds() {
        of(k);
    }
    for (k, h, _) in DIFFERENCES {
        assert!(
            of(k).iter().any(|v| v.bytes == hex(h)),
            "difference {k} {h} is no vector"
        );
    }
}
