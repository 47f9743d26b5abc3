//! `kafka-wire-codegen`: regenerates kafka-wire's message modules.
//!
//! ```text
//! kafka-wire-codegen [--kafka DIR_4_1_1] [--kafka-old DIR_3_9_1] [--drafts DIR] [--out DIR] [--check]
//! ```
//! Defaults are relative to the workspace root: `../shared/kafka-schemas/4.1.1`,
//! `../shared/kafka-schemas/3.9.1`, `codegen/schemas/kip-1279`, `core/src/generated`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut inputs = kafka_wire_codegen::model::Inputs {
        newer: root.join("../shared/kafka-schemas/4.1.1"),
        older: root.join("../shared/kafka-schemas/3.9.1"),
        drafts: root.join("codegen/schemas/kip-1279"),
    };
    let mut out = root.join("core/src/generated");
    let mut check = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().map(PathBuf::from).ok_or_else(|| format!("{a} needs a value"));
        let r = match a.as_str() {
            "--kafka" => val().map(|v| inputs.newer = v),
            "--kafka-old" => val().map(|v| inputs.older = v),
            "--drafts" => val().map(|v| inputs.drafts = v),
            "--out" => val().map(|v| out = v),
            "--check" => {
                check = true;
                Ok(())
            }
            "-h" | "--help" => {
                println!("usage: kafka-wire-codegen [--kafka DIR] [--kafka-old DIR] [--drafts DIR] [--out DIR] [--check]");
                return ExitCode::SUCCESS;
            }
            _ => Err(format!("unknown argument {a}")),
        };
        if let Err(e) = r {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    let msgs = match kafka_wire_codegen::model::load(&inputs) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let files = match kafka_wire_codegen::render(&msgs) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    match kafka_wire_codegen::write_tree(&out, &files, check) {
        Ok(diffs) if check && !diffs.is_empty() => {
            for d in &diffs {
                eprintln!("out of date: {d}");
            }
            eprintln!("{} generated file(s) differ; run `cargo run -p kafka-wire-codegen`", diffs.len());
            ExitCode::FAILURE
        }
        Ok(_) => {
            eprintln!("{} messages, {} files {}", msgs.len(), files.len(), if check { "up to date" } else { "written" });
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
