//! The real `kwire` binary on sample frames, good and bad.

mod run;
use base64::Engine as _;
use kafka_wire::ApiKey;
use run::{kwire, text};

/// The recorded broker answers `kwire demo` embeds (kwire/src/samples/).
fn sample(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/samples")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The capture the samples were cut from.
fn capture() -> Vec<u8> {
    std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/pcap/clients.pcapng")).unwrap()
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The (min, max) versions an ApiVersionsResponse v3+ frame lists for `key`, read by hand:
/// size, correlation id, response header v0, then error code and the compact array of
/// (key, min, max, tagged fields).
fn broker_range(frame: &[u8], key: i16) -> Option<(i16, i16)> {
    let i16_at = |p: usize| i16::from_be_bytes([frame[p], frame[p + 1]]);
    assert_eq!(i16_at(8), 0, "error code");
    let (mut n, mut p) = (0usize, 10);
    let mut shift = 0;
    loop {
        let b = frame[p];
        p += 1;
        n |= usize::from(b & 0x7f) << shift;
        shift += 7;
        if b < 0x80 {
            break;
        }
    }
    for _ in 0..n - 1 {
        let (k, lo, hi) = (i16_at(p), i16_at(p + 2), i16_at(p + 4));
        assert_eq!(frame[p + 6], 0, "no tagged fields in an ApiVersion");
        p += 7;
        if k == key {
            return Some((lo, hi));
        }
    }
    None
}

#[test]
fn demo_is_the_default_and_succeeds() {
    for args in [&[][..], &["demo"][..]] {
        let o = kwire(args, b"");
        assert!(o.status.success(), "{}", text(&o.stderr));
        let out = text(&o.stdout);
        assert!(out.lines().count() < 150, "{out}");
        let last = out.lines().last().unwrap();
        assert!(
            last.starts_with("kwire demo: 3 recorded broker answers parsed"),
            "{last}"
        );
        assert!(!out.contains("Seed mapping"), "the table is in docs/SEEDS.md");

        // The samples are the capture's bytes.
        let capture = capture();
        let answers = [
            "api_versions_response_v5.bin",
            "metadata_response_v13.bin",
            "produce_response_v13.bin",
        ];
        for name in answers {
            assert!(find(&capture, &sample(name)).is_some(), "{name} is not in the capture");
        }

        // Negotiation: the highest version in the broker's range (read here from the recorded
        // bytes) and the client's (kafka-wire's stable versions).
        let answer = sample("api_versions_response_v5.bin");
        let mut produce = 0;
        for key in [ApiKey::ApiVersions, ApiKey::Metadata, ApiKey::Produce] {
            let (blo, bhi) = broker_range(&answer, key.id()).expect("listed");
            let info = key.request_info();
            let chi = info.max_version - i16::from(info.latest_version_unstable);
            let expected = bhi.min(chi);
            assert!(expected >= blo.max(info.min_version));
            let line = format!(
                "  {}: v{expected} (broker {blo}-{bhi}, this client {}-{chi})",
                key.name(),
                info.min_version
            );
            assert!(out.contains(&line), "{line}\n{out}");
            assert!(last.contains(&format!("{} v{expected}", key.name())), "{last}");
            if key == ApiKey::Produce {
                produce = expected;
            }
        }
        // Kafka's Java producer 4.4.0 agreed the same Produce version with this broker.
        let tsv =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/pcap/clients.tshark.tsv")).unwrap();
        let java: Vec<&str> = tsv
            .lines()
            .map(|l| l.split('\t').collect::<Vec<_>>())
            .filter(|c| c[2] == "request" && c[4] == "0" && c[7] == "kwire-pcap-java-producer")
            .map(|c| c[5])
            .collect();
        assert!(
            !java.is_empty() && java.iter().all(|v| *v == produce.to_string()),
            "{java:?} {produce}"
        );

        // The Metadata answer: the cluster id and the topic id are the recorded bytes'.
        let md = sample("metadata_response_v13.bin");
        assert!(find(&md, b"RVNna5WDT4afSEClE8oTxg").is_some());
        assert!(out.contains("cluster RVNna5WDT4afSEClE8oTxg"), "{out}");
        let topic_id = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode("LuXfJxjrTfaz2Ia_Oh1vpg")
            .unwrap();
        assert!(find(&md, &topic_id).is_some());
        assert!(
            out.contains("topic kwire-pcap (id LuXfJxjrTfaz2Ia_Oh1vpg) partition 0: NONE"),
            "{out}"
        );
        // The Produce answer: after the topic id, one partition: index, error code, base offset.
        let pr = sample("produce_response_v13.bin");
        let at = find(&pr, &topic_id).expect("the topic id") + 16;
        assert_eq!(pr[at], 2, "one partition");
        let error = i16::from_be_bytes([pr[at + 5], pr[at + 6]]);
        let base = i64::from_be_bytes(pr[at + 7..at + 15].try_into().unwrap());
        assert_eq!(error, 0);
        let line = format!("LuXfJxjrTfaz2Ia_Oh1vpg partition 0: NONE, base offset {base}");
        assert!(out.contains(&line), "{line}\n{out}");
        // The owned Metadata answer, through JSON and back, is the broker's bytes.
        assert!(
            out.contains(&format!("encoded: {} bytes, the broker's own", md.len() - 4 - 5)),
            "{out}"
        );

        // The seed KIPs' fields, decoded back to JSON.
        for needle in [
            "CRC valid",
            "\"type\":\"PARTITION_RECORD\",\"version\":2",
            "\"isr\":[1],\"eligibleLeaderReplicas\":[2],\"lastKnownElr\":[3]",
            "\"type\":\"CLEAR_ELR_RECORD\"",
            "AlterPartitionRequest v3",
            "\"newIsrWithEpochs\":[{\"brokerId\":1,\"brokerEpoch\":10}]",
            "\"leaderRecoveryState\":1",
            "\"previousBrokerEpoch\":41",
            "DescribeMirrorsRequest v0",
            "DescribeMirrorsResponse v0",
            "BumpLeaderEpochsRequest v0",
            "BumpLeaderEpochsResponse v0",
            "ReadMirrorStatesRequest v0",
            "ReadMirrorStatesResponse v0",
        ] {
            assert!(out.contains(needle), "{needle}\n{out}");
        }
    }
}

#[test]
fn a_response_given_as_a_request_gets_a_hint() {
    // A real Metadata v13 response (frame 239 of the capture: tests/pcap/clients.tshark.tsv).
    let md = sample("metadata_response_v13.bin");
    let o = kwire(&["decode", "-"], &md);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("hint: this looks like a response (it decodes as MetadataResponse v13)"),
        "{err}"
    );
    assert!(err.contains("try --response --api-key 3 --api-version 13"), "{err}");
    let o = kwire(&["decode", "--response", "--api-key", "3", "--api-version", "13"], &md);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // --api-key alone narrows the search; a key it does not decode as gives no hint.
    let o = kwire(&["decode", "--api-key", "3"], &md);
    assert!(
        text(&o.stderr).contains("--api-key 3 --api-version 13"),
        "{}",
        text(&o.stderr)
    );
    let o = kwire(&["decode", "--api-key", "18"], &md);
    assert!(!text(&o.stderr).contains("hint"), "{}", text(&o.stderr));
    // A real Produce v13 response, as hex.
    let o = kwire(
        &["decode", "--hex"],
        hex::encode(sample("produce_response_v13.bin")).as_bytes(),
    );
    assert!(
        text(&o.stderr).contains("try --response --api-key 0 --api-version 13"),
        "{}",
        text(&o.stderr)
    );
    // A request that fails in its body gets none.
    let bad = "00000016 0003 000c 00000007 0003 636c69 00 80 fe ff ff 07 01 00 00";
    let o = kwire(&["decode", "--hex"], bad.as_bytes());
    assert!(!o.status.success());
    assert!(!text(&o.stderr).contains("hint"), "{}", text(&o.stderr));
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
