//! Seed corpora for the fuzz targets: valid inputs for every (API key, version, direction) and
//! every metadata record version, written by the schema interpreter ([`crate::sample`]).

use std::collections::BTreeMap;

use crate::model::{snake, Message};
use crate::sample::{sample, Options, Rng};

fn strip<'a>(name: &'a str, suffix: &str) -> &'a str {
    name.strip_suffix(suffix).unwrap_or(name)
}

/// `(path relative to fuzz/corpus, bytes)` for every seed.
pub fn seeds(msgs: &[Message]) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let opt = Options {
        max_len: 2,
        unknown_tags: true,
        null_one_in: 4,
    };
    let by_name = |n: &str| msgs.iter().find(|m| m.group == "messages" && m.name == n);
    for m in msgs.iter().filter(|m| m.kind == "request" && m.group == "messages") {
        let base = strip(&m.name, "Request");
        let target = format!("api_{}", snake(base));
        for (dir, mm) in [(0u8, Some(m)), (1u8, by_name(&format!("{base}Response")))] {
            let Some(mm) = mm else { continue };
            let min = mm.valid.min().unwrap_or(0);
            for v in mm.valid.iter() {
                let mut rng = Rng::new(u64::from(v) * 977 + u64::from(dir));
                let mut bytes = vec![(dir << 7) | (v - min)];
                bytes.extend(sample(mm, v, &mut rng, opt));
                out.insert(
                    format!("{target}/{}-v{v}", if dir == 0 { "request" } else { "response" }),
                    bytes,
                );
                if dir == 0 {
                    out.insert(
                        format!("request_frames/{}-v{v}", snake(base)),
                        request_frame(m, v, &mut rng, opt),
                    );
                }
            }
        }
    }
    for m in msgs.iter().filter(|m| m.kind == "metadata" && m.group == "metadata") {
        let target = format!("metadata_{}", snake(strip(&m.name, "Record")));
        let min = m.valid.min().unwrap_or(0);
        for v in m.valid.iter() {
            let mut rng = Rng::new(u64::from(v) * 131);
            let body = sample(m, v, &mut rng, opt);
            let mut bytes = vec![v - min];
            bytes.extend(&body);
            out.insert(format!("{target}/v{v}"), bytes);
            // The same record, framed, for the frames target.
            let mut framed = Vec::new();
            for x in [1u32, m.api_key.unwrap_or(0) as u32, u32::from(v)] {
                uvarint(&mut framed, x);
            }
            framed.extend(body);
            out.insert(format!("request_frames/metadata-{}-v{v}", snake(&m.name)), framed);
        }
    }
    for (i, (folder, sel)) in [
        ("group-coordinator", 0u8),
        ("share-coordinator", 1),
        ("transaction-coordinator", 2),
    ]
    .iter()
    .enumerate()
    {
        for k in msgs
            .iter()
            .filter(|m| m.folder == *folder && m.kind == "coordinator-key")
        {
            let Some(val) = msgs
                .iter()
                .find(|m| m.folder == *folder && m.kind == "coordinator-value" && m.api_key == k.api_key)
            else {
                continue;
            };
            let mut rng = Rng::new(i as u64 * 7 + k.api_key.unwrap_or(0) as u64);
            let mut key = k.api_key.unwrap_or(0).to_be_bytes().to_vec();
            key.extend(sample(k, 0, &mut rng, opt));
            for v in val.valid.iter() {
                let mut value = i16::from(v).to_be_bytes().to_vec();
                value.extend(sample(val, v, &mut rng, opt));
                if key.len() > 255 {
                    continue;
                }
                let mut bytes = vec![*sel, key.len() as u8];
                bytes.extend(&key);
                bytes.extend(&value);
                out.insert(format!("coordinator_records/{}-v{v}", snake(&val.name)), bytes);
            }
        }
    }
    for i in 0..16u64 {
        let mut rng = Rng::new(i + 1);
        out.insert(
            format!("structured/seed-{i}"),
            (0..256).map(|_| rng.next_u64() as u8).collect(),
        );
    }
    out
}

fn uvarint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A whole request frame: size, header (v0, v1 or v2 as Kafka picks it), body.
fn request_frame(m: &Message, v: u8, rng: &mut Rng, opt: Options) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&m.api_key.unwrap_or(0).to_be_bytes());
    p.extend_from_slice(&i16::from(v).to_be_bytes());
    p.extend_from_slice(&(rng.next_u64() as i32).to_be_bytes());
    let header_v0 = m.name == "ControlledShutdownRequest" && v == 0;
    if !header_v0 {
        p.extend_from_slice(&4i16.to_be_bytes());
        p.extend_from_slice(b"fuzz");
        if m.flexible.contains(v) {
            p.push(0);
        }
    }
    p.extend(sample(m, v, rng, opt));
    let mut f = (p.len() as i32).to_be_bytes().to_vec();
    f.extend(p);
    f
}
