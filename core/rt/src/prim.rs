//! The table of Kafka's fixed-width numbers: `int8` to `int64`, `uint16`, `uint32` and `float64`.
//!
//! [`numbers!`] holds one row per type. Every per-type item of the runtime is made from it: the
//! readers of both builds, the writers, the `Elem` impls of views and owned values, the
//! [`Visitor`](crate::Visitor) methods, the `Kind` variants, the seal and the `defmt` impls.
//! `reflect::NUMBERS` is the same table as data: the generator reads it for the Rust type, width
//! and range of a schema type, and `dynamic`, `arbitrary` and ext's JSON read it through
//! `Kind::number`.
//!
//! The other primitives (`bool`, `uuid`, `string`, `bytes`, `records`) each have a rule of their
//! own (a canonical byte, a length prefix, null) and are written out where they are used.

/// Calls macro `$m` with the rows of the table, `schema_name KindVariant rust_type reader_at
/// width "defmt format",` each. The Rust type names the runtime's reader, writer and visitor
/// method for the type too (`read::i16`, `Writer::i16`, `Visitor::i16`); `reader_at` reads it at
/// a constant offset in a run of fixed-width fields (`read::i16_at`).
macro_rules! numbers {
    ($m:ident) => {
        $m! {
            int8 Int8 i8 i8_at 1 "{=i8}",
            int16 Int16 i16 i16_at 2 "{=i16}",
            uint16 Uint16 u16 u16_at 2 "{=u16}",
            int32 Int32 i32 i32_at 4 "{=i32}",
            uint32 Uint32 u32 u32_at 4 "{=u32}",
            int64 Int64 i64 i64_at 8 "{=i64}",
            float64 Float64 f64 f64_at 8 "{=f64}",
        }
    };
}
pub(crate) use numbers;
