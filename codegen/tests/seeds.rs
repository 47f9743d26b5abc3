//! The project's seed documents are KIP wiki snapshots whose schema drafts have defects; the
//! drafts are copied byte for byte into `tests/seed-drafts/`, one file per seed document. Loading them must fail with a clear, located error for every defect: one test per
//! defect. Each test takes a draft exactly as the seed gives it, repairs the defects before the one
//! it checks (the loader stops at the first), and checks the error names the right line and rule.

use kafka_wire_codegen::schema::{load_str_with, SchemaError};

fn seed(name: &str) -> String {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/seed-drafts");
    let path = std::fs::read_dir(&dir)
        .expect("seed drafts folder")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().is_some_and(|f| f.to_string_lossy().starts_with(name)))
        .unwrap_or_else(|| panic!("seed {name} not found"));
    std::fs::read_to_string(path).expect("read seed")
}

/// The schema drafts in a seed: each JSON object that starts a line, with its first line number
/// in the seed (1-based).
fn blocks(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() == "{" {
            let start = i;
            let mut depth = 0i32;
            let mut block = String::new();
            while i < lines.len() {
                for ch in lines[i].chars() {
                    match ch {
                        '{' | '[' => depth += 1,
                        '}' | ']' => depth -= 1,
                        _ => {}
                    }
                }
                block.push_str(lines[i]);
                block.push('\n');
                i += 1;
                if depth <= 0 {
                    break;
                }
            }
            out.push((start + 1, block));
        } else {
            i += 1;
        }
    }
    out
}

fn load(block: &str, draft: bool) -> Result<(), SchemaError> {
    load_str_with("seed", block, !draft).map(|_| ())
}

/// Line (1-based, within `block`) of the first line containing `needle`.
fn line_of(block: &str, needle: &str) -> usize {
    block
        .lines()
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
        .unwrap_or_else(|| panic!("{needle:?} not in block"))
}

fn expect_err(block: &str, draft: bool, line: usize, rule: &str) -> SchemaError {
    let e = load(block, draft).expect_err("the defect must be rejected");
    assert_eq!(e.line, line, "wrong line for {rule:?}: {e}");
    assert!(e.rule.contains(rule), "error {e} should say {rule:?}");
    assert!(e.to_string().starts_with("seed:"), "error names the file: {e}");
    e
}

fn block_named(seed_name: &str, schema_name: &str) -> String {
    let text = seed(seed_name);
    blocks(&text)
        .into_iter()
        .map(|(_, b)| b)
        .find(|b| nbsp(b).contains(&format!("\"name\": \"{schema_name}\"")))
        .unwrap_or_else(|| panic!("{schema_name} not in seed {seed_name}"))
}

/// Wiki copies put non-breaking spaces (U+00A0) where JSON needs plain white space.
fn nbsp(b: &str) -> String {
    b.replace('\u{a0}', " ")
}

/// One defect: where the loader must stop (a line given by a needle and an offset from its line),
/// what the rule must say, and the repair that lets the next defect show.
struct Defect {
    at: &'static str,
    line_offset: isize,
    rule: &'static str,
    fix: fn(&str) -> String,
}

/// Applies the repairs of the defects before `n`, then checks defect `n`. After the last
/// defect's repair the draft must load.
fn check(seed_name: &str, schema: &str, draft: bool, defects: &[Defect], n: usize) {
    let mut b = block_named(seed_name, schema);
    for d in &defects[..n] {
        let fixed = (d.fix)(&b);
        assert_ne!(fixed, b, "the repair of {:?} changed nothing", d.rule);
        b = fixed;
    }
    let d = &defects[n];
    let line = (line_of(&b, d.at) as isize + d.line_offset) as usize;
    expect_err(&b, draft, line, d.rule);
    if n + 1 == defects.len() {
        let fixed = (d.fix)(&b);
        load(&fixed, draft).unwrap_or_else(|e| panic!("{schema} still fails after every repair: {e}"));
    }
}

const NBSP: &str = "\u{a0}";
const NOT_WS: &str = "character U+00A0 outside a string";
const NO_TAG: &str = "\"taggedVersions\" but no \"tag\"";

fn add_comma_after_elr(b: &str) -> String {
    b.replace(
        "the new eligible leader replicas otherwise.\" }",
        "the new eligible leader replicas otherwise.\" },",
    )
    .replace(
        "\"The eligible leader replicas of this partition.\" }",
        "\"The eligible leader replicas of this partition.\" },",
    )
}
fn drop_tbd(b: &str) -> String {
    b.replace("\"apiKey\": TBD,\n", "")
}

#[test]
fn seed_draft_files_as_given_are_not_schemas() {
    // Each seed's file of drafts as a whole is not one schema: the loader says where it stops.
    for name in ["000", "001", "002", "003", "004"] {
        let text = seed(name);
        let e = load_str_with("seed", &text, true).expect_err("a wiki page is not a schema");
        assert!(e.line >= 1 && e.column >= 1, "{e}");
    }
}

// --- 000: PartitionChangeRecord (KIP-966) ---
const S000_PCR: &[Defect] = &[Defect {
    at: "\"name\": \"LastKnownELR\"",
    line_offset: -1,
    rule: "Expected comma",
    fix: add_comma_after_elr,
}];
#[test]
fn seed000_partition_change_record_missing_comma() {
    check("000", "PartitionChangeRecord", false, S000_PCR, 0);
}

// --- 001: PartitionChangeRecord, PartitionRecord, BrokerRegistrationRequest (KIP-966) ---
const S001_PCR: &[Defect] = &[
    Defect {
        at: NBSP,
        line_offset: 0,
        rule: NOT_WS,
        fix: nbsp,
    },
    Defect {
        at: "\"name\": \"LastKnownELR\"",
        line_offset: -1,
        rule: "Expected comma",
        fix: add_comma_after_elr,
    },
];
#[test]
fn seed001_partition_change_record_non_breaking_spaces() {
    check("001", "PartitionChangeRecord", false, S001_PCR, 0);
}
#[test]
fn seed001_partition_change_record_missing_comma() {
    check("001", "PartitionChangeRecord", false, S001_PCR, 1);
}

fn tag_elr(b: &str) -> String {
    b.replacen(
        "\"taggedVersions\": \"1+\",\n",
        "\"taggedVersions\": \"1+\", \"tag\": 1,\n",
        1,
    )
}
fn tag_last_known_elr(b: &str) -> String {
    b.replacen(
        "\"taggedVersions\": \"1+\",\n",
        "\"taggedVersions\": \"1+\", \"tag\": 2,\n",
        1,
    )
}
const S001_PR: &[Defect] = &[
    Defect {
        at: NBSP,
        line_offset: 0,
        rule: NOT_WS,
        fix: nbsp,
    },
    Defect {
        at: "\"name\": \"LastKnownELR\"",
        line_offset: -1,
        rule: "Expected comma",
        fix: add_comma_after_elr,
    },
    Defect {
        at: "\"name\": \"EligibleLeaderReplicas\"",
        line_offset: 0,
        rule: NO_TAG,
        fix: tag_elr,
    },
    Defect {
        at: "\"name\": \"LastKnownELR\"",
        line_offset: 0,
        rule: NO_TAG,
        fix: tag_last_known_elr,
    },
];
#[test]
fn seed001_partition_record_non_breaking_spaces() {
    check("001", "PartitionRecord", false, S001_PR, 0);
}
#[test]
fn seed001_partition_record_missing_comma() {
    check("001", "PartitionRecord", false, S001_PR, 1);
}
#[test]
fn seed001_partition_record_eligible_leader_replicas_tagged_without_tag() {
    check("001", "PartitionRecord", false, S001_PR, 2);
}
#[test]
fn seed001_partition_record_last_known_elr_tagged_without_tag() {
    check("001", "PartitionRecord", false, S001_PR, 3);
}

const S001_BR: &[Defect] = &[Defect {
    at: NBSP,
    line_offset: 0,
    rule: NOT_WS,
    fix: nbsp,
}];
#[test]
fn seed001_broker_registration_request_non_breaking_spaces() {
    // Its only defect; repaired, it loads (BrokerEpoch at v2 later shipped as PreviousBrokerEpoch at v3).
    check("001", "BrokerRegistrationRequest", false, S001_BR, 0);
}

// --- 002: AlterPartitionRequest (KIP-903) ---
fn drop_trailing_comma(b: &str) -> String {
    b.replace(
        "epoch check is not supported.\" },",
        "epoch check is not supported.\" }",
    )
}
fn valid_versions_0_3(b: &str) -> String {
    b.replace("\"validVersions\": \"0-2\"", "\"validVersions\": \"0-3\"")
}
const S002_AP: &[Defect] = &[
    Defect {
        at: NBSP,
        line_offset: 0,
        rule: NOT_WS,
        fix: nbsp,
    },
    Defect {
        at: "epoch check is not supported.\" },",
        line_offset: 0,
        rule: "Trailing commas are not allowed",
        fix: drop_trailing_comma,
    },
    Defect {
        at: "\"name\": \"NewIsrWithEpochs\"",
        line_offset: 0,
        rule: "versions 3+ are outside validVersions 0-2",
        fix: valid_versions_0_3,
    },
];
#[test]
fn seed002_alter_partition_request_non_breaking_spaces() {
    check("002", "AlterPartitionRequest", false, S002_AP, 0);
}
#[test]
fn seed002_alter_partition_request_trailing_comma() {
    check("002", "AlterPartitionRequest", false, S002_AP, 1);
}
#[test]
fn seed002_alter_partition_request_versions_beyond_valid_versions() {
    check("002", "AlterPartitionRequest", false, S002_AP, 2);
}

// --- 003: AlterPartitionResponse (KIP-704) ---
const S003_APR: &[Defect] = &[Defect {
    at: NBSP,
    line_offset: 0,
    rule: NOT_WS,
    fix: nbsp,
}];
#[test]
fn seed003_alter_partition_response_non_breaking_space() {
    // Its only defect: one non-breaking space before a comment. Repaired, it loads.
    check("003", "AlterPartitionResponse", false, S003_APR, 0);
}

// --- 004: KIP-1279 mirror RPCs (apiKey TBD) ---
const TBD: Defect = Defect {
    at: "TBD",
    line_offset: 0,
    rule: "not valid JSON",
    fix: drop_tbd,
};
const S004_DMREQ: &[Defect] = &[TBD];
const S004_BLEREQ: &[Defect] = &[TBD];
const S004_BLERESP: &[Defect] = &[TBD];
const S004_RMSREQ: &[Defect] = &[TBD];
fn name_last_mirror_epoch(b: &str) -> String {
    b.replace("\"name\": \"\",", "\"name\": \"LastMirrorEpoch\",")
}
const S004_DMRESP: &[Defect] = &[
    TBD,
    Defect {
        at: NBSP,
        line_offset: 0,
        rule: NOT_WS,
        fix: nbsp,
    },
    Defect {
        at: "\"name\": \"\"",
        line_offset: 0,
        rule: "empty field name",
        fix: name_last_mirror_epoch,
    },
];
fn restore_quote(b: &str) -> String {
    b.replace("\"versions\": \"0\", default\"", "\"versions\": \"0\", \"default\"")
}
const S004_RMSRESP: &[Defect] = &[
    TBD,
    Defect {
        at: NBSP,
        line_offset: 0,
        rule: NOT_WS,
        fix: nbsp,
    },
    Defect {
        at: "default\": \"-1\",",
        line_offset: 0,
        rule: "not valid JSON",
        fix: restore_quote,
    },
];
#[test]
fn seed004_describe_mirrors_request_api_key_tbd() {
    check("004", "DescribeMirrorsRequest", true, S004_DMREQ, 0);
}
#[test]
fn seed004_describe_mirrors_response_api_key_tbd() {
    check("004", "DescribeMirrorsResponse", true, S004_DMRESP, 0);
}
#[test]
fn seed004_describe_mirrors_response_non_breaking_spaces() {
    check("004", "DescribeMirrorsResponse", true, S004_DMRESP, 1);
}
#[test]
fn seed004_describe_mirrors_response_empty_field_name() {
    check("004", "DescribeMirrorsResponse", true, S004_DMRESP, 2);
}
#[test]
fn seed004_bump_leader_epochs_request_api_key_tbd() {
    check("004", "BumpLeaderEpochsRequest", true, S004_BLEREQ, 0);
}
#[test]
fn seed004_bump_leader_epochs_response_api_key_tbd() {
    check("004", "BumpLeaderEpochsResponse", true, S004_BLERESP, 0);
}
#[test]
fn seed004_read_mirror_states_request_api_key_tbd() {
    check("004", "ReadMirrorStatesRequest", true, S004_RMSREQ, 0);
}
#[test]
fn seed004_read_mirror_states_response_api_key_tbd() {
    check("004", "ReadMirrorStatesResponse", true, S004_RMSRESP, 0);
}
#[test]
fn seed004_read_mirror_states_response_non_breaking_spaces() {
    check("004", "ReadMirrorStatesResponse", true, S004_RMSRESP, 1);
}
#[test]
fn seed004_read_mirror_states_response_missing_quote() {
    check("004", "ReadMirrorStatesResponse", true, S004_RMSRESP, 2);
}

#[test]
fn every_seed_draft_is_covered() {
    // Guards the list above: the seeds hold exactly these drafts.
    let mut names = Vec::new();
    for s in ["000", "001", "002", "003", "004"] {
        for (_, b) in blocks(&seed(s)) {
            let b = nbsp(&b);
            let n = b
                .split("\"name\": \"")
                .nth(1)
                .and_then(|r| r.split('"').next())
                .unwrap_or("")
                .to_string();
            names.push(format!("{s}:{n}"));
        }
    }
    assert_eq!(
        names,
        [
            "000:PartitionChangeRecord",
            "001:PartitionChangeRecord",
            "001:PartitionRecord",
            "001:BrokerRegistrationRequest",
            "002:AlterPartitionRequest",
            "003:AlterPartitionResponse",
            "004:DescribeMirrorsRequest",
            "004:DescribeMirrorsResponse",
            "004:BumpLeaderEpochsRequest",
            "004:BumpLeaderEpochsResponse",
            "004:ReadMirrorStatesRequest",
            "004:ReadMirrorStatesResponse",
        ]
    );
}
