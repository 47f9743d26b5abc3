//! The committed generated code must be exactly what the generator writes from the schemas:
//! this fails when regeneration would change, add or remove any file under core/src/generated
//! or any generated fuzz target.

use kafka_wire_codegen::model::{self, Inputs};

#[test]
fn committed_generated_code_is_up_to_date() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let inputs = Inputs::repository(&root).expect("schemas/inputs.txt");
    let (msgs, tables) = kafka_wire_codegen::load(&inputs).expect("schemas load");
    let files = kafka_wire_codegen::render(&msgs, &tables).expect("render");
    let diffs = kafka_wire_codegen::write_tree(&root, &files, true).expect("compare");
    assert!(
        diffs.is_empty(),
        "generated files out of date (run `cargo run -p kafka-wire-codegen`): {diffs:?}"
    );
    assert!(files.len() > 290, "only {} files rendered", files.len());
}

#[test]
fn committed_fuzz_seeds_cover_every_key_version_and_direction() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let inputs = Inputs::repository(&root).expect("schemas/inputs.txt");
    let msgs = model::load(&inputs).expect("schemas load");
    let seeds = kafka_wire_codegen::corpus::seeds(&msgs);
    let mut missing = Vec::new();
    for (p, bytes) in &seeds {
        match std::fs::read(root.join("fuzz/corpus").join(p)) {
            Ok(b) if &b == bytes => {}
            _ => missing.push(p.clone()),
        }
    }
    assert!(missing.is_empty(), "seeds missing or stale (run `cargo run -p kafka-wire-codegen -- --fuzz-corpus fuzz/corpus`): {missing:?}");
    // Every request and response version of every API key has a seed.
    let mut pairs = 0;
    for m in msgs
        .iter()
        .filter(|m| m.group == "messages" && (m.kind == "request" || m.kind == "response"))
    {
        pairs += m.valid.iter().count();
    }
    let api_seeds = seeds.keys().filter(|k| k.starts_with("api_")).count();
    assert_eq!(api_seeds, pairs);
}
