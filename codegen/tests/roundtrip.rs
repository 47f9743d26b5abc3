//! Every message at every version: random valid messages written by the schema interpreter
//! (`kafka_wire_codegen::sample`, which shares no code with the generated codec) must parse
//! strictly with the generated code and re-encode to the same bytes, with the size pass exact,
//! both as views and as owned values, and through Kafka-shaped JSON and back.

use kafka_wire::catalog;
use kafka_wire_codegen::model::{self, Inputs};
use kafka_wire_codegen::sample::{sample, Options, Rng};

fn inputs() -> Inputs {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    Inputs::repository(&root).expect("schemas/inputs.txt")
}

const SAMPLES_PER_VERSION: u64 = 40;

#[test]
fn every_message_every_version_round_trips() {
    let msgs = model::load(&inputs()).expect("schemas load");
    let mut cases = 0usize;
    let mut failures = Vec::new();
    let mut out = vec![0u8; 1 << 20];
    for m in &msgs {
        let entry = catalog::ALL
            .iter()
            .find(|e| e.group == m.group && e.info.name == m.name)
            .unwrap_or_else(|| panic!("{} missing from the catalog", m.name));
        for v in m.valid.iter() {
            for seed in 0..SAMPLES_PER_VERSION {
                let mut rng = Rng::new(seed * 7919 + u64::from(v) * 31 + m.name.len() as u64);
                let bytes = sample(m, v, &mut rng, Options::default());
                cases += 1;
                // JSON: bytes -> Kafka-shaped JSON -> bytes, through text.
                match kafka_wire_ext::json::wire_to_json(entry, &bytes, i16::from(v)) {
                    Ok(j) => {
                        let text = serde_json::to_string(&j).expect("serialize");
                        let back: serde_json::Value = serde_json::from_str(&text).expect("reparse");
                        match kafka_wire_ext::json::json_to_wire(entry, &back, i16::from(v)) {
                            Ok(b) if b == bytes => {}
                            Ok(b) => failures.push(format!("{} v{v} seed {seed}: JSON round trip differs\n  json: {text}\n  in:  {bytes:02x?}\n  out: {b:02x?}", m.name)),
                            Err(e) => failures.push(format!("{} v{v} seed {seed}: from JSON: {e}\n  json: {text}", m.name)),
                        }
                    }
                    Err(e) => failures.push(format!("{} v{v} seed {seed}: to JSON: {e}", m.name)),
                }
                // Owned: parse into the owned type, encode it back.
                match (entry.owned_transcode)(&bytes, i16::from(v), i16::from(v)) {
                    Ok(o) if o == bytes => {}
                    Ok(o) => failures.push(format!(
                        "{} v{v} seed {seed}: owned re-encoding differs\n  in:  {bytes:02x?}\n  out: {o:02x?}",
                        m.name
                    )),
                    Err(e) => failures.push(format!("{} v{v} seed {seed}: owned: {e}", m.name)),
                }
                match (entry.transcode)(&bytes, i16::from(v), &mut out, i16::from(v)) {
                    Ok(n) if out[..n] == bytes[..] => {
                        // One byte short: the error reports the size pass's result (the
                        // generated `size`, or with `small-code` the write into a counter),
                        // which must be exact.
                        if let Some(short) = n.checked_sub(1) {
                            let got = (entry.transcode)(&bytes, i16::from(v), &mut out[..short], i16::from(v));
                            let needed = match got {
                                Err(kafka_wire::CodecError::Encode(e)) => match e.kind() {
                                    kafka_wire::EncodeErrorKind::BufferTooShort { needed } => Some(needed),
                                    _ => None,
                                },
                                _ => None,
                            };
                            if needed != Some(n) {
                                failures.push(format!(
                                    "{} v{v} seed {seed}: into {short} bytes of {n}: {got:?}",
                                    m.name
                                ));
                            }
                        }
                    }
                    Ok(n) => failures.push(format!(
                        "{} v{v} seed {seed}: re-encoded bytes differ\n  in:  {:02x?}\n  out: {:02x?}",
                        m.name,
                        bytes,
                        &out[..n]
                    )),
                    Err(e) => failures.push(format!("{} v{v} seed {seed}: {e}\n  in: {:02x?}", m.name, bytes)),
                }
            }
        }
    }
    eprintln!("{cases} cases, {} failures", failures.len());
    let shown: Vec<&String> = failures.iter().take(15).collect();
    assert!(
        failures.is_empty(),
        "{} of {cases} cases failed:\n{}",
        failures.len(),
        shown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
    );
    assert!(cases > 10_000, "only {cases} cases");
}
