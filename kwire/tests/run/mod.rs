//! Runs the real `kwire` binary.

#![allow(dead_code)] // each test binary uses part of it

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// `kwire ARGS` with `stdin` as its input.
pub fn kwire(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kwire"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run kwire");
    // kwire may exit before reading its input (a usage error): a closed pipe is not a failure.
    match child.stdin.take().expect("stdin").write_all(stdin) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("write stdin: {e}"),
        _ => {}
    }
    child.wait_with_output().expect("wait")
}

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
