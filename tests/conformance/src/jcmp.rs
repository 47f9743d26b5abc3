//! Comparing our JSON with Kafka's `XxxDataJsonConverter.write`.
//!
//! Before comparing, our JSON gets the documented normalizations (and nothing else):
//! - `records` fields: Kafka writes `""` for any non-null records; we write their bytes in base64.
//! - `_unknownTaggedFields`: we add it when a struct has unknown tags; Kafka's JSON never has it.
//!
//! Numbers compare by value: integers exactly, floats by their bits (so `-0.0` differs from
//! `0.0`); NaN is the string `"NaN"` on both sides (JSON has no NaN), so NaN payloads are not
//! compared here (the bytes are).

use kafka_wire::reflect::{Kind, StructDesc};
use serde_json::Value;

/// Applies the documented normalizations to our JSON of `desc` at `version`, in place.
pub fn normalize(desc: &StructDesc, v: i16, json: &mut Value) {
    let Value::Object(map) = json else { return };
    map.shift_remove("_unknownTaggedFields");
    for f in desc.fields {
        if !f.in_version(v) {
            continue;
        }
        let Some(val) = map.get_mut(f.json) else { continue };
        match f.kind {
            Kind::Records => {
                if val.is_string() {
                    *val = Value::from("");
                }
            }
            Kind::Struct(d) => {
                if f.array {
                    if let Value::Array(items) = val {
                        for it in items {
                            normalize(d, v, it);
                        }
                    }
                } else {
                    normalize(d, v, val);
                }
            }
            _ => {}
        }
    }
}

/// True when our JSON of `desc` at `version` has a records field with bytes in it (which Kafka's
/// JSON writes as `""`, losing them).
pub fn has_nonempty_records(desc: &StructDesc, v: i16, json: &Value) -> bool {
    let Value::Object(map) = json else { return false };
    desc.fields
        .iter()
        .filter(|f| f.in_version(v))
        .any(|f| match (map.get(f.json), f.kind) {
            (Some(Value::String(s)), Kind::Records) => !s.is_empty(),
            (Some(Value::Array(items)), Kind::Struct(d)) => items.iter().any(|it| has_nonempty_records(d, v, it)),
            (Some(val), Kind::Struct(d)) => has_nonempty_records(d, v, val),
            _ => false,
        })
}

/// The first difference between Kafka's JSON and ours, as "path: kafka X, ours Y".
pub fn diff(kafka: &Value, ours: &Value) -> Option<String> {
    let mut path = String::new();
    diff_at(kafka, ours, &mut path)
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 160 {
        let mut end = 160;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    } else {
        s
    }
}

fn diff_at(k: &Value, o: &Value, path: &mut String) -> Option<String> {
    match (k, o) {
        (Value::Object(a), Value::Object(b)) => {
            for (key, av) in a {
                let len = path.len();
                path.push('.');
                path.push_str(key);
                let r = match b.get(key) {
                    Some(bv) => diff_at(av, bv, path),
                    None => Some(format!("{path}: kafka has {}, ours lacks it", short(av))),
                };
                path.truncate(len);
                if r.is_some() {
                    return r;
                }
            }
            for (key, bv) in b {
                if !a.contains_key(key) {
                    return Some(format!("{path}.{key}: ours has {}, kafka lacks it", short(bv)));
                }
            }
            None
        }
        (Value::Array(a), Value::Array(b)) => {
            if a.len() != b.len() {
                return Some(format!("{path}: kafka has {} element(s), ours {}", a.len(), b.len()));
            }
            for (i, (av, bv)) in a.iter().zip(b).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                let r = diff_at(av, bv, path);
                path.truncate(len);
                if r.is_some() {
                    return r;
                }
            }
            None
        }
        (Value::Number(a), Value::Number(b)) => {
            let same = match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
                (Some(x), Some(y), _, _) => x == y,
                (_, _, Some(x), Some(y)) => x == y,
                _ if a.is_f64() || b.is_f64() => a.as_f64().map(f64::to_bits) == b.as_f64().map(f64::to_bits),
                _ => false,
            };
            if same {
                None
            } else {
                Some(format!("{path}: kafka {a}, ours {b}"))
            }
        }
        _ if k == o => None,
        _ => Some(format!("{path}: kafka {}, ours {}", short(k), short(o))),
    }
}
