//! The runtime half of `kafka_wire::reflect` (documented there).

macro_rules! kind {
    ($($s:ident $k:ident $t:ident $at:ident $w:literal $d:literal,)*) => {
        /// The wire type of a field (of its elements, for arrays).
        #[derive(Clone, Copy, Debug)]
        pub enum Kind {
            /// `bool`.
            Bool,
            $(#[doc = concat!("`", stringify!($s), "`.")] $k,)*
            /// `string`.
            String,
            /// `bytes`.
            Bytes,
            /// `records`.
            Records,
            /// `uuid`.
            Uuid,
            /// A struct.
            Struct(&'static StructDesc),
        }
    };
}
crate::prim::numbers!(kind);

/// One fixed-width number type of Kafka's schemas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Number {
    /// Its name in the schemas, e.g. `"uint16"`.
    pub schema: &'static str,
    /// Its [`Kind`] variant's name, e.g. `"Uint16"`.
    pub kind: &'static str,
    /// The Rust type, e.g. `"u16"`; also the name of its reader, writer and visitor method.
    pub rust: &'static str,
    /// Bytes on the wire, big-endian.
    pub width: usize,
    /// True for `float64` (IEEE 754 bits); false for the integers.
    pub float: bool,
    /// The smallest value (integers).
    pub min: i64,
    /// The largest value (integers).
    pub max: i64,
}

impl Number {
    /// The `width` big-endian bytes of integer `i`, or `None` when `i` is out of range.
    pub fn int_bytes(&self, i: i64) -> Option<([u8; 8], usize)> {
        if self.float || i < self.min || i > self.max {
            return None;
        }
        Some((i.to_be_bytes(), 8usize.saturating_sub(self.width)))
    }
    /// The integer held by the `width` big-endian bytes at the start of `b` (missing bytes read
    /// as zero), sign-extended for the signed types.
    pub fn int_from_be(&self, b: &[u8]) -> i64 {
        let mut a = [0u8; 8];
        let w = self.width.min(8);
        for (d, s) in a.iter_mut().skip(8 - w).zip(b) {
            *d = *s;
        }
        let u = u64::from_be_bytes(a);
        let shift = 64 - 8 * u32::try_from(w).unwrap_or(8);
        if self.min < 0 && shift < 64 {
            (u << shift).cast_signed() >> shift
        } else {
            u.cast_signed()
        }
    }
}

macro_rules! table {
    ($($s:ident $k:ident $t:ident $at:ident $w:literal $d:literal,)*) => {
        /// Every fixed-width number type, in the order of [`Kind`]'s variants.
        #[allow(trivial_numeric_casts, clippy::cast_lossless, clippy::cast_possible_truncation, reason = "each integer type's range as i64; floats do not use it")]
        pub const NUMBERS: &[Number] = &[$(row!($s $k $t $w),)*];

        impl Kind {
            /// The row of [`NUMBERS`] for a fixed-width number kind; `None` for the others.
            #[allow(trivial_numeric_casts, clippy::cast_lossless, clippy::cast_possible_truncation, reason = "each integer type's range as i64; floats do not use it")]
            pub const fn number(self) -> Option<&'static Number> {
                match self {
                    $(Kind::$k => Some(const { &row!($s $k $t $w) }),)*
                    _ => None,
                }
            }
        }
    };
}

/// One row as a [`Number`].
macro_rules! row {
    ($s:ident $k:ident $t:ident $w:literal) => {
        Number {
            schema: stringify!($s),
            kind: stringify!($k),
            rust: stringify!($t),
            width: $w,
            float: starts_with_f(stringify!($t)),
            min: <$t>::MIN as i64,
            max: <$t>::MAX as i64,
        }
    };
}

const fn starts_with_f(rust: &str) -> bool {
    matches!(rust.as_bytes(), [b'f', ..])
}

crate::prim::numbers!(table);

/// A field's default value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DefaultValue {
    /// Zero, false, empty string, empty array, nil UUID, or the default struct.
    Zero,
    /// An integer.
    Int(i64),
    /// A float, as bits.
    Float(u64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(&'static str),
    /// A UUID.
    Uuid(u128),
    /// Null.
    Null,
}

/// One field of a struct.
#[derive(Clone, Copy, Debug)]
pub struct FieldDesc {
    /// The schema name, e.g. `"BrokerId"`.
    pub name: &'static str,
    /// The name Kafka's JSON converter uses, e.g. `"brokerId"`.
    pub json: &'static str,
    /// The wire type (of the elements, for arrays).
    pub kind: Kind,
    /// True for arrays.
    pub array: bool,
    /// Versions that have the field (regular or tagged).
    pub versions: u64,
    /// Versions where it may be null.
    pub nullable: u64,
    /// Versions where it is a tagged field.
    pub tagged: u64,
    /// Its tag, where tagged.
    pub tag: u32,
    /// Versions that use the compact encoding for it.
    pub compact: u64,
    /// True when a non-default value may be dropped at versions without the field.
    pub ignorable: bool,
    /// The default.
    pub default: DefaultValue,
    /// The field's id in [`crate::visit`] events.
    pub id: u16,
}

impl FieldDesc {
    /// True when version `v` has the field.
    pub const fn in_version(&self, v: i16) -> bool {
        bit(self.versions, v)
    }
    /// True when the field is tagged at `v`.
    pub const fn tagged_at(&self, v: i16) -> bool {
        bit(self.tagged, v)
    }
    /// True when the field may be null at `v`.
    pub const fn nullable_at(&self, v: i16) -> bool {
        bit(self.nullable, v)
    }
    /// True when the field uses the compact encoding at `v`.
    pub const fn compact_at(&self, v: i16) -> bool {
        bit(self.compact, v)
    }
}

/// One struct: its fields in wire order, and the versions where it has a tagged-field section.
#[derive(Debug)]
pub struct StructDesc {
    /// The struct's name.
    pub name: &'static str,
    /// Fields in wire order.
    pub fields: &'static [FieldDesc],
    /// Flexible versions (with a tagged-field section).
    pub flexible: u64,
    /// The id of its tagged-field section in [`crate::visit`] events (unknown tagged fields).
    pub tags_id: u16,
}

impl StructDesc {
    /// True when `v` is flexible.
    pub const fn flexible_at(&self, v: i16) -> bool {
        bit(self.flexible, v)
    }
}

const fn bit(mask: u64, v: i16) -> bool {
    v >= 0 && v < 64 && mask & (1u64 << v) != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_match_the_rust_types() {
        // Widths and ranges from the Rust types themselves, not from the table.
        let want: &[(&str, usize, i64, i64)] = &[
            ("int8", 1, i8::MIN.into(), i8::MAX.into()),
            ("int16", 2, i16::MIN.into(), i16::MAX.into()),
            ("uint16", 2, 0, u16::MAX.into()),
            ("int32", 4, i32::MIN.into(), i32::MAX.into()),
            ("uint32", 4, 0, u32::MAX.into()),
            ("int64", 8, i64::MIN, i64::MAX),
        ];
        for &(s, w, lo, hi) in want {
            let n = NUMBERS.iter().find(|n| n.schema == s).expect(s);
            assert_eq!((n.width, n.min, n.max, n.float), (w, lo, hi, false), "{s}");
        }
        let f = NUMBERS.iter().find(|n| n.schema == "float64").expect("float64");
        assert!(f.float && f.width == 8);
        assert_eq!(Kind::Uint32.number().map(|n| n.schema), Some("uint32"));
        assert_eq!(Kind::Bool.number(), None);
    }

    #[test]
    fn int_bytes_round_trip() {
        for n in NUMBERS.iter().filter(|n| !n.float) {
            for i in [n.min, n.max, 0, -1, 1, n.max.wrapping_add(1), n.min.wrapping_sub(1)] {
                match n.int_bytes(i) {
                    Some((b, at)) => {
                        assert!(i >= n.min && i <= n.max);
                        assert_eq!(b.len() - at, n.width);
                        assert_eq!(n.int_from_be(&b[at..]), i, "{} {i}", n.schema);
                    }
                    None => assert!(i < n.min || i > n.max, "{} {i}", n.schema),
                }
            }
        }
        let i16row = Kind::Int16.number().expect("int16");
        assert_eq!(i16row.int_from_be(&[0xff, 0xfe]), -2);
        assert_eq!(Kind::Uint16.number().expect("uint16").int_from_be(&[0xff, 0xfe]), 65534);
    }
}
