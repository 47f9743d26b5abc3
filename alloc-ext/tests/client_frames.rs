//! Request frames captured from real Kafka clients (librdkafka, kafka-python, kafkajs, Kafka's
//! Java client) talking to the stub server in tests/clients: every committed frame decodes with
//! our codec, and re-encoding the parsed header and body at the same version gives back the
//! same bytes.
//!
//! Each frame is listed in `tests/clients/frames/MANIFEST.tsv` with its client, client
//! version, action, API key and version, and a mode: `strict` (decoded in strict mode),
//! `lenient` (the client is at fault; the note says how: strict mode must fail and lenient mode
//! succeed), or `known-failure` (a codec bug written up in tests/clients/README.md: the test
//! prints it as a KNOWN FAILURE and fails once the frame decodes, so the mark gets removed).
//!
//! The record batches inside Produce requests are read too: every batch's CRC must match, and its
//! records (decompressed with `kafka_wire_ext::compression` when the client compressed them)
//! must decode.
//!
//! `KWIRE_CLIENT_FRAMES=DIR` checks another capture (CI checks a fresh one this way).
//! Each frame prints a `PASS:`/`FAILED:`/`KNOWN FAILURE:` line (shown with `--nocapture`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use kafka_wire::frame::{parse_request, Mode, RequestFrame};
use kafka_wire::records::{Batch, Batches};
use kafka_wire::{Message, RequestBody};
use kafka_wire_ext::compression::{batch_records, legacy_inner, DEFAULT_LIMIT};

fn frames_dir() -> PathBuf {
    match std::env::var_os("KWIRE_CLIENT_FRAMES") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/clients/frames"),
    }
}

struct Entry {
    file: String,
    client: String,
    client_version: String,
    action: String,
    api_key: i16,
    api_version: i16,
    mode: String,
    note: String,
}

fn manifest(dir: &Path) -> Vec<Entry> {
    let path = dir.join("MANIFEST.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("file\tclient\tclient_version\taction\tapi_key\tapi\tapi_version\tmode\tnote"),
        "{}: unexpected header",
        path.display()
    );
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            assert!(c.len() == 9, "{}: not 9 columns: {l}", path.display());
            Entry {
                file: c[0].to_string(),
                client: c[1].to_string(),
                client_version: c[2].to_string(),
                action: c[3].to_string(),
                api_key: c[4].parse().unwrap_or_else(|_| panic!("bad api_key in {l}")),
                api_version: c[6].parse().unwrap_or_else(|_| panic!("bad api_version in {l}")),
                mode: c[7].to_string(),
                note: c[8].to_string(),
            }
        })
        .collect()
}

/// Every `.bin` file under `dir`, relative to it.
fn frame_files(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for client in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let client = client.unwrap().path();
        if !client.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&client).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "bin") {
                out.insert(f.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out
}

/// Header and body encoded again from the parsed view, at the frame's versions.
fn reencode(f: &RequestFrame<'_>) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    f.header
        .encode(&mut out, f.header_version)
        .map_err(|e| format!("header: {e}"))?;
    let body: &RequestBody<'_> = &f.body;
    body.encode(&mut out, f.api_version).map_err(|e| format!("body: {e}"))?;
    Ok(out)
}

/// The client scripts produce keys `key-N` and values `value-N from <client> (<codec>)`: a
/// record that decodes to anything else was not read right.
fn check_record(key: Option<&[u8]>, value: Option<&[u8]>) -> Result<(), String> {
    let (Some(k), Some(v)) = (key, value) else {
        return Err(format!("record with key {key:?}, value {value:?}"));
    };
    if !k.starts_with(b"key-") || !v.starts_with(b"value-") {
        return Err(format!(
            "record {:?} = {:?}: not what the client scripts produce",
            String::from_utf8_lossy(k),
            String::from_utf8_lossy(v)
        ));
    }
    Ok(())
}

/// Reads every record batch (or legacy message) of a Produce request: CRC, decompression,
/// records.
fn produce_records(p: &kafka_wire::messages::ProduceRequest<'_>) -> Result<String, String> {
    let (mut batches, mut records, mut codecs) = (0, 0, BTreeSet::new());
    for t in p.topic_data.iter() {
        for part in t.partition_data.iter() {
            let Some(bytes) = part.records else { continue };
            for b in Batches::strict(bytes) {
                match b.map_err(|e| format!("records: {e}"))? {
                    Batch::V2(b) => {
                        if !b.is_crc_valid() {
                            return Err(format!(
                                "batch {batches}: CRC {:08x} in the batch, {:08x} computed",
                                b.crc,
                                b.computed_crc()
                            ));
                        }
                        let mut buf = Vec::new();
                        let rs = batch_records(&b, &mut buf, DEFAULT_LIMIT)
                            .map_err(|e| format!("batch {batches} records: {e}"))?;
                        codecs.insert(format!("{:?}", b.compression()));
                        batches += 1;
                        for r in rs.iter() {
                            check_record(r.key, r.value)?;
                            records += 1;
                        }
                    }
                    Batch::Legacy(m) => {
                        if m.crc != m.computed_crc() {
                            return Err(format!(
                                "legacy message {batches}: CRC {:08x} in the message, {:08x} computed",
                                m.crc,
                                m.computed_crc()
                            ));
                        }
                        codecs.insert(format!("magic {} {:?}", m.magic, m.compression()));
                        batches += 1;
                        match legacy_inner(&m, DEFAULT_LIMIT).map_err(|e| format!("legacy message {batches}: {e}"))? {
                            None => {
                                check_record(m.key, m.value)?;
                                records += 1;
                            }
                            Some(inner) => {
                                for im in Batches::strict(&inner) {
                                    match im.map_err(|e| format!("legacy inner message: {e}"))? {
                                        Batch::Legacy(im) => {
                                            check_record(im.key, im.value)?;
                                            records += 1;
                                        }
                                        other => return Err(format!("inside a legacy wrapper: {other:?}")),
                                    }
                                }
                            }
                        }
                    }
                    Batch::Truncated(t) => return Err(format!("truncated batch: {t:?}")),
                }
            }
        }
    }
    let codecs: Vec<String> = codecs.into_iter().collect();
    Ok(format!(
        "; {batches} record batch(es) ({}), {records} records",
        codecs.join(", ")
    ))
}

/// Checks one frame; `Ok` describes what passed.
fn check(e: &Entry, bytes: &[u8]) -> Result<String, String> {
    let strict = parse_request(bytes, Mode::Strict);
    let f = match e.mode.as_str() {
        "strict" | "known-failure" => strict.map_err(|err| format!("strict decode failed: {err}"))?,
        "lenient" => {
            if strict.is_ok() {
                return Err("marked lenient, but strict mode decodes it: mark it strict".into());
            }
            parse_request(bytes, Mode::Lenient).map_err(|err| format!("lenient decode failed: {err}"))?
        }
        m => return Err(format!("unknown mode {m:?}")),
    };
    if (f.api_key.id(), f.api_version) != (e.api_key, e.api_version) {
        return Err(format!(
            "frame is api {} v{}, manifest says {} v{}",
            f.api_key.id(),
            f.api_version,
            e.api_key,
            e.api_version
        ));
    }
    let again = reencode(&f)?;
    let decoded = &bytes[..bytes.len() - f.trailing.len()];
    if again != decoded {
        let at = again
            .iter()
            .zip(decoded)
            .position(|(a, b)| a != b)
            .unwrap_or(again.len().min(decoded.len()));
        return Err(format!(
            "re-encoding differs at byte {at} ({} bytes re-encoded, {} decoded): expected {}, got {}",
            again.len(),
            decoded.len(),
            hex::encode(&decoded[at..decoded.len().min(at + 16)]),
            hex::encode(&again[at..again.len().min(at + 16)])
        ));
    }
    let mut what = format!(
        "{:?} v{} ({} bytes), re-encoded byte for byte",
        f.api_key,
        f.api_version,
        bytes.len()
    );
    if let RequestBody::Produce(p) = &f.body {
        what += &produce_records(p)?;
    }
    if !f.trailing.is_empty() {
        what += &format!("; {} trailing bytes", f.trailing.len());
    }
    Ok(what)
}

#[test]
fn every_captured_client_frame_decodes_and_reencodes() {
    let dir = frames_dir();
    let entries = manifest(&dir);
    let files = frame_files(&dir);
    assert!(!files.is_empty(), "no frames under {}", dir.display());
    assert!(!entries.is_empty(), "{}/MANIFEST.tsv lists no frames", dir.display());

    let listed: BTreeSet<String> = entries.iter().map(|e| e.file.clone()).collect();
    let unlisted: Vec<&String> = files.difference(&listed).collect();
    let missing: Vec<&String> = listed.difference(&files).collect();
    assert!(unlisted.is_empty(), "frames without a MANIFEST.tsv entry: {unlisted:?}");
    assert!(
        missing.is_empty(),
        "MANIFEST.tsv entries without a frame file: {missing:?}"
    );
    assert_eq!(listed.len(), entries.len(), "MANIFEST.tsv lists a frame twice");

    let (mut passed, mut failed, mut known) = (0, Vec::new(), 0);
    let mut clients = BTreeSet::new();
    for e in &entries {
        clients.insert(e.client.clone());
        assert!(
            !e.client_version.is_empty() && !e.action.is_empty(),
            "{}: client version and action are required",
            e.file
        );
        if e.mode != "strict" {
            assert!(
                !e.note.trim().is_empty(),
                "{}: a {} frame needs a note naming the fault",
                e.file,
                e.mode
            );
        }
        let bytes = std::fs::read(dir.join(&e.file)).unwrap();
        let label = format!("{} [{} {}, {}]", e.file, e.client, e.client_version, e.action);
        match (check(e, &bytes), e.mode.as_str()) {
            (Ok(what), "known-failure") => {
                println!(
                    "FAILED: {label}: marked known-failure ({}) but now passes: {what}; remove the mark",
                    e.note
                );
                failed.push(e.file.clone());
            }
            (Err(why), "known-failure") => {
                println!(
                    "KNOWN FAILURE: {label}: {why} (codec bug, tests/clients/README.md: {})",
                    e.note
                );
                known += 1;
            }
            (Ok(what), "lenient") => {
                println!("PASS: {label}: lenient, client at fault ({}): {what}", e.note);
                passed += 1;
            }
            (Ok(what), _) => {
                println!("PASS: {label}: {what}");
                passed += 1;
            }
            (Err(why), _) => {
                println!("FAILED: {label}: {why}");
                failed.push(e.file.clone());
            }
        }
    }
    println!(
        "client frames: {passed} passed, {} failed, {known} known failures, from {} clients ({})",
        failed.len(),
        clients.len(),
        dir.display()
    );
    assert!(
        failed.is_empty(),
        "{} captured client frames failed: {failed:?}",
        failed.len()
    );
}

/// Kafka's Java client 4.4 asks ApiVersions at v5 (KIP-1242; its first request on every
/// connection), and names the cluster and node it means to reach once it knows them from
/// metadata: the new fields decode to what the client sent (the stub's cluster id and node 1;
/// null and -1 before).
#[test]
fn java_4_4_sends_api_versions_v5_naming_the_cluster() {
    use kafka_wire::messages::ApiVersionsRequest;
    let dir = frames_dir();
    let entries: Vec<Entry> = manifest(&dir)
        .into_iter()
        .filter(|e| e.client == "java-4.4.0")
        .collect();
    if entries.is_empty() && std::env::var_os("KWIRE_CLIENT_FRAMES").is_some() {
        return; // a capture without Kafka's 4.4 client
    }
    assert!(
        entries.iter().any(|e| e.api_key == 18),
        "no java-4.4.0 ApiVersions frame in the manifest"
    );
    let mut named = Vec::new();
    for e in entries.iter().filter(|e| e.api_key == 18) {
        let bytes = std::fs::read(dir.join(&e.file)).unwrap();
        let f = parse_request(&bytes, Mode::Strict).unwrap_or_else(|err| panic!("{}: {err}", e.file));
        let RequestBody::ApiVersions(r) = f.body else {
            panic!("{}: not ApiVersions", e.file)
        };
        assert_eq!(
            f.api_version, 5,
            "{}: Kafka's 4.4 client asks ApiVersions at v5",
            e.file
        );
        let r: ApiVersionsRequest<'_> = r;
        assert_eq!(
            (r.client_software_name, r.client_software_version),
            ("apache-kafka-java", "4.4.0"),
            "{}",
            e.file
        );
        match r.cluster_id {
            None => assert_eq!(r.node_id, -1, "{}: no cluster named, so no node either", e.file),
            Some(c) => {
                assert_eq!((c, r.node_id), ("kwire-stub-cluster-0001", 1), "{}", e.file);
                named.push(e.file.clone());
            }
        }
    }
    assert!(
        !named.is_empty(),
        "no java-4.4.0 ApiVersions frame names the cluster and node"
    );
}

/// The checks can fail: one committed frame with a byte appended fails as `strict` and passes
/// as `lenient` (with the byte reported); cut short, it fails in both modes; a wrong version in
/// the manifest is caught.
#[test]
fn the_checks_catch_bad_frames() {
    let dir = frames_dir();
    let e = manifest(&dir)
        .into_iter()
        .find(|e| e.mode == "strict")
        .expect("a strict frame");
    let mut bytes = std::fs::read(dir.join(&e.file)).unwrap();
    assert!(check(&e, &bytes).is_ok());
    bytes.push(0);
    assert!(check(&e, &bytes).unwrap_err().contains("strict decode failed"));
    let lenient = Entry {
        mode: "lenient".into(),
        note: "test".into(),
        ..e
    };
    assert!(check(&lenient, &bytes).unwrap().contains("1 trailing bytes"));
    bytes.truncate(bytes.len() - 2);
    assert!(check(&lenient, &bytes).is_err());
    bytes.push(0);
    let wrong = Entry {
        mode: "strict".into(),
        api_version: lenient.api_version + 1,
        ..lenient
    };
    assert!(check(&wrong, &bytes).unwrap_err().contains("manifest says"));
}
