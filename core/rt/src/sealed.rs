//! The seal on the traits that only this crate implements: [`Struct`](crate::Struct),
//! [`Elem`](crate::Elem) and their owned twins. Their methods work on the crate's cursor and
//! writer, which are not part of the public API, so types outside the crate cannot take part.

/// Implemented by the generated structs and the element types; unnameable outside the crate.
pub trait Sealed {}

macro_rules! sealed {
    ($($t:ty),*) => {$(impl Sealed for $t {})*};
}
sealed!(bool, uuid::Uuid, &str);
macro_rules! sealed_numbers {
    ($($s:ident $k:ident $t:ident $at:ident $w:literal $d:literal,)*) => {
        sealed!($($t),*);
    };
}
crate::prim::numbers!(sealed_numbers);
