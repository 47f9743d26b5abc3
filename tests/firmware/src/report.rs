//! Output (semihosting `hprintln`, or defmt with the `defmt` feature) and the check counter.

/// Prints one line: with `hprintln!`, or with `defmt::println!` under the `defmt` feature. The
/// format strings use only `{}`, which means `Display` for one and `defmt::Format` for the
/// other, so both builds print the same text. The measuring builds print nothing.
#[cfg(any(feature = "probe", feature = "parse-path"))]
macro_rules! say {
    ($fmt:literal $(, $arg:expr)* $(,)?) => {{
        $( let _ = &$arg; )*
    }};
}
#[cfg(all(not(any(feature = "probe", feature = "parse-path")), not(feature = "defmt")))]
macro_rules! say {
    ($($t:tt)*) => {
        cortex_m_semihosting::hprintln!($($t)*)
    };
}
#[cfg(all(not(any(feature = "probe", feature = "parse-path")), feature = "defmt"))]
macro_rules! say {
    ($($t:tt)*) => {
        defmt::println!($($t)*)
    };
}

/// Prints a parsed view: `{:?}` (the derived `Debug`) with hprintln, `{}` (the generated
/// `defmt::Format`) with defmt. The two texts must match: the bare-metal script compares the
/// decoded defmt output with the hprintln output line by line.
#[cfg(any(feature = "probe", feature = "parse-path"))]
#[allow(unused_macros)] // the producer firmware prints no view
macro_rules! show {
    ($label:literal, $v:expr) => {{
        let _ = &$v;
    }};
}
#[cfg(all(not(any(feature = "probe", feature = "parse-path")), not(feature = "defmt")))]
#[allow(unused_macros)] // the producer firmware prints no view
macro_rules! show {
    ($label:literal, $v:expr) => {
        cortex_m_semihosting::hprintln!("{}: {:?}", $label, $v)
    };
}
#[cfg(all(not(any(feature = "probe", feature = "parse-path")), feature = "defmt"))]
#[allow(unused_macros)] // the producer firmware prints no view
macro_rules! show {
    ($label:literal, $v:expr) => {
        defmt::println!("{=str}: {}", $label, $v)
    };
}

/// Counts checks; a failed one prints its name at once.
pub struct Checks {
    passed: u32,
    failed: u32,
}

impl Checks {
    pub const fn new() -> Self {
        Checks { passed: 0, failed: 0 }
    }

    /// Records one check; returns `ok`.
    #[inline(never)]
    pub fn check(&mut self, ok: bool, what: &'static str) -> bool {
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
            say!("FAILED: check {}", what);
        }
        ok
    }

    /// Checks `got == want`.
    pub fn eq<T: PartialEq>(&mut self, what: &'static str, got: T, want: T) -> bool {
        self.check(got == want, what)
    }

    /// Checks that an array of fixed-width numbers holds exactly `want`.
    #[allow(dead_code)] // the producer firmware does not use it
    pub fn items<'a, T>(&mut self, what: &'static str, got: kafka_wire::Array<'a, T>, want: &[T]) -> bool
    where
        T: kafka_wire::Elem<'a> + PartialEq,
    {
        self.check(got.len() == want.len() && got.iter().eq(want.iter().copied()), what)
    }

    /// Prints the totals; true when nothing failed.
    pub fn finish(&self) -> bool {
        say!("checks passed: {}, failed: {}", self.passed, self.failed);
        if self.failed == 0 && self.passed > 0 {
            say!("PASS");
            true
        } else {
            say!("FAILED: {} check(s) failed", self.failed);
            false
        }
    }
}
