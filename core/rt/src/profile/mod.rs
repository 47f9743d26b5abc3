//! The one place where the default build and feature `small-code` differ.
//!
//! The default build is tuned for instructions: the readers and writers that every generated
//! struct calls are inlined into it, and each has its own fast path. `small-code` is tuned for
//! flash: each of them is one out-of-line function that every struct calls, and some take a
//! smaller, slower path (docs/MAINTAINING.md, "Feature `small-code`"). Both builds read and write
//! the same bytes, with the same values, errors and offsets.
//!
//! Everything that differs is here:
//! - [`shared!`] and [`shared_cold!`], the inlining of the runtime's readers and writers;
//! - `fast.rs` (the default) and `small.rs` (`small-code`): the same functions, each a complete
//!   implementation, one of them compiled. The rest of the runtime calls them through this
//!   module and never names the feature.
//!
//! The generated code is the same text in both builds, and the trait shapes are the same: a
//! view struct has its `check`, `skip` and `size` in both, and `small-code` does not call them
//! (its array readers check and skip an element by reading it, and its sizes are a writer run
//! into a counter), so they cost it no flash.

#[cfg(not(feature = "small-code"))]
#[path = "fast.rs"]
mod imp;
#[cfg(feature = "small-code")]
#[path = "small.rs"]
mod imp;

pub use imp::*;

/// Marks a reader or writer that generated structs call for a field: `#[inline(always)]` by
/// default, so that each struct gets it specialised for its field; `#[inline(never)]` with
/// `small-code`, so that every struct calls one body.
macro_rules! shared {
    ($(#[$m:meta])* $v:vis fn $($rest:tt)*) => {
        #[cfg_attr(not(feature = "small-code"), inline(always))]
        #[cfg_attr(feature = "small-code", inline(never))]
        $(#[$m])*
        $v fn $($rest)*
    };
}

/// [`shared!`] for an error path: inlined by default (it builds the error where the caller
/// keeps its state in registers), cold and out of line with `small-code`.
macro_rules! shared_cold {
    ($(#[$m:meta])* $v:vis fn $($rest:tt)*) => {
        #[cfg_attr(not(feature = "small-code"), inline(always))]
        #[cfg_attr(feature = "small-code", cold, inline(never))]
        $(#[$m])*
        $v fn $($rest)*
    };
}

pub(crate) use {shared, shared_cold};
