//! The committed generated code must be exactly what the generator writes from the schemas:
//! this fails when regeneration would change, add or remove any file under core/src/generated.

use kafka_wire_codegen::model::{self, Inputs};

#[test]
fn committed_generated_code_is_up_to_date() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let inputs = Inputs {
        newer: root.join("../shared/kafka-schemas/4.1.1"),
        older: root.join("../shared/kafka-schemas/3.9.1"),
        drafts: root.join("codegen/schemas/kip-1279"),
    };
    let msgs = model::load(&inputs).expect("schemas load");
    let files = kafka_wire_codegen::render(&msgs).expect("render");
    let diffs = kafka_wire_codegen::write_tree(&root.join("core/src/generated"), &files, true).expect("compare");
    assert!(
        diffs.is_empty(),
        "generated files out of date (run `cargo run -p kafka-wire-codegen`): {diffs:?}"
    );
    assert!(files.len() > 290, "only {} files rendered", files.len());
}
