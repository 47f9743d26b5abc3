//! `kafka-wire-codegen`: regenerates kafka-wire's message modules.
//!
//! ```text
//! kafka-wire-codegen [--kafka DIR] [--kafka-old DIR] [--kafka-test DIR] [--drafts DIR] [--out DIR] [--check]
//! ```
//! The inputs default to the folders that `schemas/inputs.txt` names (the vendored Kafka
//! releases and kafka-wire's drafts); the output defaults to the repository root (files go to
//! `core/src/generated/` and `fuzz/`).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut inputs = match kafka_wire_codegen::model::Inputs::repository(&root) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = root.clone();
    let mut check = false;
    let mut corpus: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || {
            args.next()
                .map(PathBuf::from)
                .ok_or_else(|| format!("{a} needs a value"))
        };
        let r = match a.as_str() {
            "--kafka" => val().map(|v| inputs.newer = v),
            "--kafka-old" => val().map(|v| inputs.older = v),
            "--kafka-test" => val().map(|v| inputs.test = v),
            "--drafts" => val().map(|v| inputs.drafts = v),
            "--out" => val().map(|v| out = v),
            "--fuzz-corpus" => val().map(|v| corpus = Some(v)),
            "--check" => {
                check = true;
                Ok(())
            }
            "-h" | "--help" => {
                println!("usage: kafka-wire-codegen [--kafka DIR] [--kafka-old DIR] [--kafka-test DIR] [--drafts DIR] [--out DIR] [--check] [--fuzz-corpus DIR]");
                return ExitCode::SUCCESS;
            }
            _ => Err(format!("unknown argument {a}")),
        };
        if let Err(e) = r {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    }
    let (msgs, tables) = match kafka_wire_codegen::load(&inputs) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(dir) = corpus {
        let seeds = kafka_wire_codegen::corpus::seeds(&msgs);
        for (p, bytes) in &seeds {
            let path = dir.join(p);
            if let Err(e) =
                std::fs::create_dir_all(path.parent().unwrap_or(&dir)).and_then(|_| std::fs::write(&path, bytes))
            {
                eprintln!("error: {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
        eprintln!("{} seed inputs written under {}", seeds.len(), dir.display());
        return ExitCode::SUCCESS;
    }
    let files = match kafka_wire_codegen::render(&msgs, &tables) {
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
            eprintln!(
                "{} generated file(s) differ; run `cargo run -p kafka-wire-codegen`",
                diffs.len()
            );
            ExitCode::FAILURE
        }
        Ok(_) => {
            eprintln!(
                "{} messages, {} files {}",
                msgs.len(),
                files.len(),
                if check { "up to date" } else { "written" }
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
