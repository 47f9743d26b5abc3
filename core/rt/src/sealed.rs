//! The seal on the traits that only this crate implements: [`Struct`](crate::Struct),
//! [`Elem`](crate::Elem) and their owned twins. Their methods work on the crate's cursor and
//! writer, which are not part of the public API, so types outside the crate cannot take part.

/// Implemented by the generated structs and the element types; unnameable outside the crate.
pub trait Sealed {}

macro_rules! sealed {
    ($($t:ty),*) => {$(impl Sealed for $t {})*};
}
sealed!(bool, i8, i16, u16, i32, u32, i64, f64, uuid::Uuid, &str);
