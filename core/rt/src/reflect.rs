//! The runtime half of `kafka_wire::reflect` (documented there).

/// The wire type of a field (of its elements, for arrays).
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// `bool`.
    Bool,
    /// `int8`.
    Int8,
    /// `int16`.
    Int16,
    /// `uint16`.
    Uint16,
    /// `int32`.
    Int32,
    /// `uint32`.
    Uint32,
    /// `int64`.
    Int64,
    /// `float64`.
    Float64,
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
