//! # kafka-wire-rt
//!
//! The runtime of [kafka-wire](https://example.invalid/kafka-wire): wire primitives, cursors and
//! writers, arrays and tagged fields, errors, the `Message` and `Struct` traits, owned values,
//! the visitor and the reflection tables. The generated message crates (`kafka-wire-msgs-a`,
//! `kafka-wire-msgs-b`) are built on it, and `kafka-wire` re-exports what users need: depend on
//! `kafka-wire`, not on this crate.
//!
//! The modules are public for those crates only (`#[doc(hidden)]`): they are not a stable API.

#![no_std]
// One reviewed exception, `text::ascii`: `from_utf8_unchecked` on bytes just checked to be ASCII
// (docs/MAINTAINING.md, "Unsafe code"). Everything else stays safe.
#![deny(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]
// The runtime decodes untrusted input: outside tests it neither panics nor truncates silently.
// Each exception is a narrow `allow` with the reason that makes it safe.
#![cfg_attr(
    not(test),
    warn(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::panic_in_result_fn,
        clippy::indexing_slicing,
        clippy::cast_possible_truncation,
        clippy::cast_possible_wrap,
        clippy::cast_sign_loss,
        clippy::cast_lossless,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]
// With `small-code`, the helpers that only the default build's readers call go unused
// (`profile`).
#![cfg_attr(feature = "small-code", allow(dead_code))]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(test)]
extern crate std;

#[cfg(feature = "arbitrary")]
#[doc(hidden)]
pub mod arbitrary_impl;
#[doc(hidden)]
pub mod codec;
#[doc(hidden)]
pub mod compound;
#[cfg(feature = "defmt")]
#[doc(hidden)]
pub mod defmt_impls;
#[cfg(feature = "alloc")]
#[doc(hidden)]
pub mod dynamic;
#[doc(hidden)]
pub mod error;
#[cfg(feature = "alloc")]
#[doc(hidden)]
pub mod owned;
pub mod pin;
mod prim;
mod profile;
#[doc(hidden)]
pub mod read;
#[doc(hidden)]
pub mod reflect;
#[doc(hidden)]
pub mod sealed;
#[doc(hidden)]
pub mod structs;
mod text;
#[doc(hidden)]
pub mod types;
#[doc(hidden)]
pub mod visit;
#[doc(hidden)]
pub mod write;

#[cfg(feature = "arbitrary")]
pub use arbitrary_impl::{arbitrary_bytes, ArbitraryAt};
#[cfg(feature = "bytes")]
pub use bytes;
pub use codec::{parse_mode, transcode, CodecError, Message, MessageInfo, MessageKind, Mode, Struct};
#[cfg(feature = "defmt")]
pub use defmt_impls::FormatElem;
pub use error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, Fail, UnknownKey};
#[cfg(feature = "alloc")]
pub use owned::{
    owned_transcode, CompactString, OwnedBytes, OwnedElem, OwnedMessage, OwnedRawTaggedField, OwnedStr, OwnedStruct,
    OwnedTaggedFields, SmallVec,
};
pub use types::{Array, ArrayIter, Elem, RawTaggedField, TaggedFields, TaggedIter};
pub use visit::{FieldId, Visitor};
pub use write::Sink;

pub use uuid;
pub use uuid::Uuid;

/// What generated code refers to, in one place (`crate::rt` in every generated module).
#[doc(hidden)]
#[allow(unused_imports)] // a build with few features leaves some unused
pub mod rt {
    pub use crate::codec::{
        not_enabled, outline, outline_small, parse_mode, transcode, CodecError, Message, MessageInfo, MessageKind,
        Mode, Struct, Uninhabited,
    };
    #[cfg(feature = "defmt")]
    pub use crate::defmt_impls as defmt_fmt;
    pub use crate::error::{DecodeError, EncodeError, Fail, UnknownKey};
    #[cfg(feature = "alloc")]
    pub use crate::owned::{
        self, owned_transcode, OwnedBytes, OwnedMessage, OwnedStr, OwnedStruct, OwnedTaggedFields, SmallVec,
    };
    /// The wire primitives and the compound readers, as one module for the generated code.
    pub mod read {
        pub use crate::compound::read::*;
        pub use crate::read::*;
    }
    pub use crate::pin;
    pub use crate::read::Cursor;
    pub use crate::reflect;
    pub use crate::sealed::Sealed;
    pub use crate::structs::Alias;
    pub use crate::types::{Array, TaggedFields};
    pub use crate::visit::{Renumbered, Visitor};
    /// The visitor trait and the compound visits, as one module for the generated code.
    pub mod visit {
        pub use crate::compound::visit::*;
    }
    /// The wire primitives and the compound writers and sizes, as one module for the generated
    /// code.
    pub mod write {
        pub use crate::compound::write::*;
        pub use crate::write::*;
    }
    pub use crate::write::{Sink, Writer};
    pub use uuid::Uuid;
}

#[cfg(test)]
mod vectors;
