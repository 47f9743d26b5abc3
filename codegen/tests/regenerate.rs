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
    assert!(
        missing.is_empty(),
        "seeds missing or stale (run `cargo run -p kafka-wire-codegen -- --fuzz-corpus fuzz/corpus`): {missing:?}"
    );
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

fn repo_inputs() -> (std::path::PathBuf, Inputs) {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let inputs = Inputs::repository(&root).expect("schemas/inputs.txt");
    (root, inputs)
}

#[test]
fn a_missing_or_empty_schema_folder_is_an_error_naming_it() {
    let (_, mut inputs) = repo_inputs();
    let tmp = std::env::temp_dir().join(format!("kw-empty-{}", std::process::id()));
    std::fs::create_dir_all(tmp.join("clients")).unwrap();
    inputs.older = tmp.clone();
    let e = model::load(&inputs).expect_err("an empty release folder must not load");
    assert!(e.file.contains(&tmp.display().to_string()), "{e}");
    assert!(e.rule.contains("no .json schema"), "{e}");
    inputs.older = tmp.join("nowhere");
    let e = model::load(&inputs).expect_err("a missing release folder must not load");
    assert!(e.file.contains("nowhere") && e.rule.contains("missing"), "{e}");
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn provisional_keys_stay_clear_of_kafkas_and_the_forks_keys() {
    let (_, mut inputs) = repo_inputs();
    let tmp = std::env::temp_dir().join(format!("kw-drafts-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for e in std::fs::read_dir(&inputs.drafts).unwrap().flatten() {
        std::fs::copy(e.path(), tmp.join(e.file_name())).unwrap();
    }
    let keys = tmp.join("provisional-api-keys.json");
    let text = std::fs::read_to_string(&keys).unwrap();
    inputs.drafts = tmp.clone();
    std::fs::write(&keys, text.replace("32001", "100")).unwrap();
    let e = model::load(&inputs).expect_err("a fork's key must be refused");
    assert!(e.rule.contains("draft forks"), "{e}");
    std::fs::write(&keys, text.replace("32001", "3")).unwrap();
    let e = model::load(&inputs).expect_err("a key Kafka uses must be refused");
    assert!(e.rule.contains("API key 3"), "{e}");
    std::fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn the_two_message_crates_hold_halves_of_about_the_same_size() {
    let (_, inputs) = repo_inputs();
    let msgs = model::load(&inputs).expect("schemas load");
    let modules: std::collections::BTreeMap<String, String> = msgs
        .iter()
        .map(|m| (m.name.clone(), kafka_wire_codegen::emit::message_module(m)))
        .collect();
    let part = kafka_wire_codegen::split(&msgs, &modules);
    assert_eq!(part.len(), msgs.len(), "every message goes to one part");
    let mut bytes = [0usize; 2];
    for m in &msgs {
        bytes[part[&m.name]] += modules[&m.name].len();
    }
    let total = bytes[0] + bytes[1];
    for (i, b) in bytes.iter().enumerate() {
        assert!(
            *b * 100 >= total * 45 && *b * 100 <= total * 55,
            "part {i} holds {b} of {total} bytes of module source"
        );
    }
}
