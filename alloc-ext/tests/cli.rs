//! The real `kwire` binary on sample frames, good and bad.

mod run;
use run::{kwire, text};

#[test]
fn demo_is_the_default_and_succeeds() {
    for args in [&[][..], &["demo"][..]] {
        let o = kwire(args, b"");
        assert!(o.status.success(), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        assert!(
            out.contains("23 seed message versions built, encoded, decoded and printed"),
            "{out}"
        );
        assert!(out.contains("AlterPartitionRequest v3"));
        assert!(
            out.contains("\"newIsrWithEpochs\":[{\"brokerId\":1,\"brokerEpoch\":10}]"),
            "{out}"
        );
        assert!(out.contains("Seed mapping"));
    }
}

/// A Metadata v12 request frame: header v2 (correlation 7, client "cli"), topics null.
const METADATA_V12: &str = "00000012 0003 000c 00000007 0003 636c69 00 00 01 00 00";

#[test]
fn decode_request_frame_from_hex() {
    let o = kwire(&["decode", "--hex"], METADATA_V12.as_bytes());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["header"]["requestApiKey"], 3);
    assert_eq!(v["header"]["requestApiVersion"], 12);
    assert_eq!(v["header"]["correlationId"], 7);
    assert_eq!(v["header"]["clientId"], "cli");
    assert_eq!(v["body"]["topics"], serde_json::Value::Null);
    assert_eq!(v["body"]["allowAutoTopicCreation"], true);
}

#[test]
fn decode_from_a_file_in_binary() {
    let dir = std::env::temp_dir().join(format!("kwire-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("frame.bin");
    std::fs::write(&f, hex::decode(METADATA_V12.replace(' ', "")).unwrap()).unwrap();
    let o = kwire(&["decode", f.to_str().unwrap()], b"");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("\"clientId\": \"cli\""));
}

#[test]
fn bad_input_fails_with_offset_and_field() {
    // The topics count claims 0x7fffff00 entries in a compact varint.
    let bad = "00000016 0003 000c 00000007 0003 636c69 00 80 fe ff ff 07 01 00 00";
    let o = kwire(&["decode", "--hex"], bad.as_bytes());
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("exceeds the remaining input at byte 18 in MetadataRequest v12 topics"),
        "{err}"
    );
    // Not hex at all.
    let o = kwire(&["decode", "--hex"], b"zz");
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("invalid hex"));
}

#[test]
fn lenient_reports_trailing_bytes() {
    let with_extra = "00000015 0003 000d 00000007 0003 636c69 00 00 01 00 00 00 00 00";
    let strict = kwire(&["decode", "--hex"], with_extra.as_bytes());
    assert!(!strict.status.success());
    assert!(
        text(&strict.stderr).contains("3 trailing byte(s)"),
        "{}",
        text(&strict.stderr)
    );
    let lenient = kwire(&["decode", "--hex", "--lenient"], with_extra.as_bytes());
    assert!(lenient.status.success(), "{}", text(&lenient.stderr));
    assert!(text(&lenient.stderr).contains("3 byte(s) after the body"));
}

#[test]
fn encode_is_the_inverse_of_decode() {
    let o = kwire(&["decode", "--hex"], METADATA_V12.as_bytes());
    let e = kwire(&["encode", "--hex"], &o.stdout);
    assert!(e.status.success(), "{}", text(&e.stderr));
    assert_eq!(text(&e.stdout).trim(), METADATA_V12.replace(' ', ""));
    // Binary output too.
    let b = kwire(&["encode"], &o.stdout);
    assert_eq!(b.stdout, hex::decode(METADATA_V12.replace(' ', "")).unwrap());
    // A missing mandatory field is a clear error.
    let e = kwire(
        &["encode"],
        br#"{"header":{"requestApiKey":3,"requestApiVersion":12,"correlationId":1,"clientId":null},"body":{}}"#,
    );
    assert!(!e.status.success());
    assert!(
        text(&e.stderr).contains("unable to locate field 'topics'"),
        "{}",
        text(&e.stderr)
    );
}

#[test]
fn responses_need_their_key_and_version() {
    // ApiVersionsResponse v3 uses response header v0.
    let json = r#"{"header":{"correlationId":9},"body":{"errorCode":0,"apiKeys":[{"apiKey":18,"minVersion":0,"maxVersion":4}],"throttleTimeMs":0}}"#;
    let e = kwire(
        &["encode", "--hex", "--response", "--api-key", "18", "--api-version", "3"],
        json.as_bytes(),
    );
    assert!(e.status.success(), "{}", text(&e.stderr));
    let hexed = text(&e.stdout);
    let d = kwire(
        &["decode", "--hex", "--response", "--api-key", "18", "--api-version", "3"],
        hexed.as_bytes(),
    );
    assert!(d.status.success(), "{}", text(&d.stderr));
    let v: serde_json::Value = serde_json::from_slice(&d.stdout).unwrap();
    assert_eq!(v["header"]["correlationId"], 9);
    assert_eq!(v["body"]["apiKeys"][0]["maxVersion"], 4);
    let missing = kwire(&["decode", "--response", "--hex"], hexed.as_bytes());
    assert!(!missing.status.success());
}

#[test]
fn metadata_records() {
    let json = r#"{"type":"TOPIC_RECORD","version":0,"data":{"name":"orders","topicId":"AAAAAAAAAAAAAAAAAAAAAQ"}}"#;
    let e = kwire(&["encode", "--hex", "--metadata-record"], json.as_bytes());
    assert!(e.status.success(), "{}", text(&e.stderr));
    let hexed = text(&e.stdout);
    assert!(
        hexed.starts_with("010200"),
        "frame version 1, type 2, version 0: {hexed}"
    );
    let d = kwire(&["decode", "--hex", "--metadata-record"], hexed.as_bytes());
    assert!(d.status.success(), "{}", text(&d.stderr));
    let v: serde_json::Value = serde_json::from_slice(&d.stdout).unwrap();
    assert_eq!(v, serde_json::from_str::<serde_json::Value>(json).unwrap());
    // Frame version 0 is rejected.
    let bad = format!("00{}", &hexed.trim()[2..]);
    let d = kwire(&["decode", "--hex", "--metadata-record"], bad.as_bytes());
    assert!(!d.status.success());
    assert!(text(&d.stderr).contains("frame_version"), "{}", text(&d.stderr));
}

#[test]
fn help_documents_options_with_examples() {
    for args in [
        &["--help"][..],
        &["decode", "--help"][..],
        &["encode", "--help"][..],
        &["demo", "--help"][..],
    ] {
        let o = kwire(args, b"");
        assert!(o.status.success());
        assert!(text(&o.stdout).contains("Example"), "{args:?}");
    }
    let o = kwire(&["decode", "--help"], b"");
    for opt in [
        "--hex",
        "--lenient",
        "--response",
        "--api-key",
        "--api-version",
        "--metadata-record",
    ] {
        assert!(text(&o.stdout).contains(opt), "{opt}");
    }
}
