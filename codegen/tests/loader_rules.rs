//! The schema loader is strict: each rule broken is an error naming the file, line, column and
//! rule. One small schema per rule.

use kafka_wire_codegen::schema::load_str;

fn schema(fields: &str) -> String {
    format!(
        "{{\n  \"apiKey\": 1,\n  \"type\": \"request\",\n  \"name\": \"TestRequest\",\n  \"validVersions\": \"0-3\",\n  \"flexibleVersions\": \"2+\",\n  \"fields\": [\n{fields}\n  ]\n}}\n"
    )
}

/// Loads `text` and checks the error's line and that its rule mentions `rule`.
fn rejects(text: &str, line: usize, rule: &str) {
    let e = load_str("t.json", text).expect_err("must be rejected");
    assert_eq!(e.file, "t.json");
    assert_eq!(e.line, line, "{e}");
    assert!(e.column >= 1, "{e}");
    assert!(e.rule.contains(rule), "{e} should mention {rule:?}");
}

#[test]
fn a_valid_schema_loads() {
    let s = load_str(
        "t.json",
        &schema(
            r#"    { "name": "A", "type": "int32", "versions": "0+" }, // a comment
    /* a block comment */ { "name": "B", "type": "[]C", "versions": "1+", "nullableVersions": "1+", "fields": [
      { "name": "D", "type": "string", "versions": "1+" } ]}"#,
        ),
    )
    .expect("loads");
    assert_eq!(s.fields.len(), 2);
}

#[test]
fn unknown_key() {
    rejects(
        &schema(r#"    { "name": "A", "type": "int32", "versions": "0+", "color": "red" }"#),
        8,
        "unknown key \"color\"",
    );
    rejects(
        &schema(r#"    { "name": "A", "type": "int32", "versions": "0+" }"#).replace("\"apiKey\"", "\"apiKee\""),
        2,
        "unknown key",
    );
}

#[test]
fn malformed_version_range() {
    rejects(
        &schema(r#"    { "name": "A", "type": "int32", "versions": "0++" }"#),
        8,
        "malformed version range",
    );
    rejects(
        &schema(r#"    { "name": "A", "type": "int32", "versions": "one" }"#),
        8,
        "malformed version range",
    );
}

#[test]
fn inverted_version_range() {
    rejects(
        &schema(r#"    { "name": "A", "type": "int32", "versions": "3-1" }"#),
        8,
        "inverted version range",
    );
}

#[test]
fn versions_outside_valid_versions() {
    rejects(
        &schema(r#"    { "name": "A", "type": "int32", "versions": "4+" }"#),
        8,
        "outside validVersions",
    );
    rejects(
        &schema(r#"    { "name": "A", "type": "int32", "versions": "1-5" }"#),
        8,
        "outside validVersions",
    );
}

#[test]
fn duplicate_tags() {
    rejects(
        &schema(
            r#"    { "name": "A", "type": "int32", "versions": "2+", "taggedVersions": "2+", "tag": 0 },
    { "name": "B", "type": "int32", "versions": "2+", "taggedVersions": "2+", "tag": 0 }"#,
        ),
        9,
        "duplicate tag 0",
    );
}

#[test]
fn tagged_fields_outside_flexible_versions() {
    rejects(
        &schema(r#"    { "name": "A", "type": "int32", "versions": "1+", "taggedVersions": "1+", "tag": 0 }"#),
        8,
        "outside the flexible versions",
    );
}

#[test]
fn tag_without_tagged_versions_and_the_reverse() {
    rejects(
        &schema(r#"    { "name": "A", "type": "int32", "versions": "2+", "tag": 0 }"#),
        8,
        "a \"tag\" but no \"taggedVersions\"",
    );
    rejects(
        &schema(r#"    { "name": "A", "type": "int32", "versions": "2+", "taggedVersions": "2+" }"#),
        8,
        "no \"tag\"",
    );
}

#[test]
fn nullable_versions_outside_versions() {
    rejects(
        &schema(r#"    { "name": "A", "type": "string", "versions": "0-1", "nullableVersions": "2+" }"#),
        8,
        "outside its versions",
    );
    rejects(
        &schema(r#"    { "name": "A", "type": "int32", "versions": "0+", "nullableVersions": "0+" }"#),
        8,
        "cannot be nullable",
    );
}

#[test]
fn defaults_that_do_not_parse() {
    rejects(
        &schema(r#"    { "name": "A", "type": "int8", "versions": "0+", "default": "300" }"#),
        8,
        "not a valid int8",
    );
    rejects(
        &schema(r#"    { "name": "A", "type": "bool", "versions": "0+", "default": "yes" }"#),
        8,
        "not a valid bool",
    );
    rejects(
        &schema(r#"    { "name": "A", "type": "uuid", "versions": "0+", "default": "xyz" }"#),
        8,
        "not a valid uuid",
    );
    rejects(
        &schema(r#"    { "name": "A", "type": "string", "versions": "0+", "default": "null" }"#),
        8,
        "never nullable",
    );
    rejects(
        &schema(r#"    { "name": "A", "type": "[]int32", "versions": "0+", "default": "[1]" }"#),
        8,
        "only \"null\"",
    );
}

#[test]
fn empty_or_duplicate_names() {
    rejects(
        &schema(r#"    { "name": "", "type": "int32", "versions": "0+" }"#),
        8,
        "empty field name",
    );
    rejects(
        &schema(
            r#"    { "name": "A", "type": "int32", "versions": "0+" },
    { "name": "A", "type": "int64", "versions": "0+" }"#,
        ),
        9,
        "duplicate field name",
    );
}

#[test]
fn struct_type_without_fields() {
    rejects(
        &schema(r#"    { "name": "A", "type": "[]Missing", "versions": "0+" }"#),
        8,
        "without fields",
    );
    rejects(
        &schema(r#"    { "name": "A", "type": "[]Empty", "versions": "0+", "fields": [] }"#),
        8,
        "has no fields",
    );
}

#[test]
fn unknown_type() {
    rejects(
        &schema(r#"    { "name": "A", "type": "int128", "versions": "0+" }"#),
        8,
        "unknown type",
    );
}

#[test]
fn json_syntax_errors_are_located() {
    rejects(
        &schema(
            r#"    { "name": "A", "type": "int32", "versions": "0+" }
    { "name": "B", "type": "int32", "versions": "0+" }"#,
        ),
        8,
        "Expected comma",
    );
    rejects(
        &schema(r#"    { "name": "A", "type": "int32", "versions": "0+", }"#),
        8,
        "Trailing commas",
    );
    rejects(
        &schema("    { \"name\":\u{a0}\"A\", \"type\": \"int32\", \"versions\": \"0+\" }"),
        8,
        "U+00A0",
    );
}
