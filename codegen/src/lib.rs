//! kafka-wire's generator: reads Apache Kafka's JSON message schemas and writes the Rust
//! modules of the `kafka-wire` crate.

pub mod corpus;
pub mod emit;
pub mod features;
pub mod model;
pub mod schema;
pub mod tables;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// The repository's rustfmt settings, shared by `cargo fmt` and the generator.
pub const RUSTFMT_TOML: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../rustfmt.toml");

/// Formats Rust source with rustfmt and the repository's `rustfmt.toml`, so generated code is
/// what `cargo fmt` leaves it.
pub fn rustfmt(src: &str) -> Result<String, String> {
    let mut child = Command::new(std::env::var("RUSTFMT").unwrap_or_else(|_| "rustfmt".into()))
        .args(["--config-path", RUSTFMT_TOML])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run rustfmt: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let input = src.to_string();
    let t = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = t.join();
    if !out.status.success() {
        return Err(format!("rustfmt failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string())
}

/// Where generated files go, relative to the repository root; `write_tree` removes stale files
/// below these.
pub const GENERATED_DIRS: &[&str] = &[
    "core/src/generated",
    "core/msgs-a/src",
    "core/msgs-b/src",
    "fuzz/fuzz_targets",
];

/// The crates that hold the generated message modules: (package, folder). The generator splits
/// the modules between them by size ([`split`]), so that a build compiles the two halves at the
/// same time, one per core; `kafka-wire` puts them back together.
pub const PARTS: [(&str, &str); 2] = [
    ("kafka-wire-msgs-a", "core/msgs-a"),
    ("kafka-wire-msgs-b", "core/msgs-b"),
];

/// Which part ([`PARTS`]) holds each message, by name: the modules (`modules`, each message's
/// source by name) in group order, `messages` first, counted in bytes; the first part takes them
/// while the middle of the module falls in the first half of the total.
pub fn split(msgs: &[model::Message], modules: &BTreeMap<String, String>) -> BTreeMap<String, usize> {
    let groups = emit::groups(msgs);
    let mut order: Vec<&model::Message> = groups.get("messages").cloned().unwrap_or_default();
    for (g, ms) in &groups {
        if g != "messages" {
            order.extend(ms.iter().copied());
        }
    }
    let sizes: Vec<usize> = order.iter().map(|m| modules[&m.name].len()).collect();
    let total: usize = sizes.iter().sum();
    let mut done = 0;
    let mut out = BTreeMap::new();
    for (m, n) in order.iter().zip(&sizes) {
        out.insert(m.name.clone(), usize::from(2 * done + n > total));
        done += n;
    }
    out
}

/// Loads every input: the merged messages and the tables.
pub fn load(inputs: &model::Inputs) -> Result<(Vec<model::Message>, tables::Tables), schema::SchemaError> {
    let msgs = model::load(inputs)?;
    let t = tables::load(&inputs.errors, &inputs.releases, &msgs)?;
    Ok((msgs, t))
}

/// Every generated file, path relative to the repository root, formatted.
pub fn render(msgs: &[model::Message], t: &tables::Tables) -> Result<BTreeMap<String, String>, String> {
    let modules: BTreeMap<String, String> = msgs.iter().map(|m| (m.name.clone(), emit::message_module(m))).collect();
    let part = split(msgs, &modules);
    let mut out = format_all(render_core(msgs, t, &modules, &part))?;
    out.insert("core/src/generated/front.md".into(), features::front_page(msgs)?);
    // A block of a hand-written file: `file#block` (see `splice`).
    out.insert(
        "core/Cargo.toml#features".into(),
        features::manifest_block(msgs, &part)?,
    );
    for (i, (_, dir)) in PARTS.iter().enumerate() {
        let mine: Vec<model::Message> = msgs.iter().filter(|m| part[&m.name] == i).cloned().collect();
        out.insert(format!("{dir}/Cargo.toml#features"), features::part_block(&mine));
    }
    for (p, c) in emit::fuzz(msgs) {
        let c = if p.ends_with(".rs") { rustfmt(&c)? } else { c };
        let path = match p.strip_prefix("../") {
            Some(rest) => rest.to_string(),
            None => format!("fuzz/{p}"),
        };
        out.insert(path, c);
    }
    Ok(out)
}

/// The Rust files: each message's module in its part's crate, with the crate's root and group
/// modules; `kafka-wire`'s generated modules (dispatch, catalog, tables) and the root that puts
/// the groups of both parts together.
fn render_core(
    msgs: &[model::Message],
    t: &tables::Tables,
    modules: &BTreeMap<String, String>,
    part: &BTreeMap<String, usize>,
) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let groups = emit::groups(msgs);
    // Per part: the groups it holds some of.
    let mut held: Vec<BTreeMap<&str, Vec<&model::Message>>> = vec![BTreeMap::new(); PARTS.len()];
    for (g, ms) in &groups {
        for m in ms {
            held[part[&m.name]].entry(g.as_str()).or_default().push(m);
        }
    }
    for (i, (name, dir)) in PARTS.iter().enumerate() {
        for (g, ms) in &held[i] {
            for m in ms {
                files.insert(
                    format!("{dir}/src/{g}/{}.rs", model::snake(&m.name)),
                    modules[&m.name].clone(),
                );
            }
            files.insert(format!("{dir}/src/{g}/mod.rs"), emit::group_mod(g, ms));
        }
        let all: Vec<&model::Message> = held[i].values().flatten().copied().collect();
        files.insert(
            format!("{dir}/src/lib.rs"),
            emit::part_root(name, &all, held[i].keys().copied()),
        );
    }
    let g = "core/src/generated";
    files.insert(format!("{g}/catalog.rs"), emit::catalog(msgs));
    files.insert(format!("{g}/api.rs"), emit::api(msgs));
    files.insert(format!("{g}/errors.rs"), tables::errors_module(t));
    files.insert(format!("{g}/releases.rs"), tables::releases_module(t));
    let mut root = emit::header(&emit::sources(msgs));
    root.push_str("//! Every generated module, grouped by where its schema comes from.\n\n");
    root.push_str("pub mod api;\npub mod catalog;\npub mod errors;\npub mod releases;\n");
    for (grp, ms) in &groups {
        let crates: Vec<&str> = PARTS
            .iter()
            .enumerate()
            .filter(|(i, _)| held[*i].contains_key(grp.as_str()))
            .map(|(_, (n, _))| *n)
            .collect();
        root.push_str(&emit::group_reexport(grp, ms, &crates));
    }
    files.insert(format!("{g}/mod.rs"), root);
    files
}

/// Formats every Rust file, in parallel: rustfmt is the slow part.
fn format_all(files: BTreeMap<String, String>) -> Result<BTreeMap<String, String>, String> {
    let items: Vec<(String, String)> = files.into_iter().collect();
    let n = std::thread::available_parallelism().map_or(2, |n| n.get()).max(1);
    let chunks: Vec<Vec<(String, String)>> = (0..n)
        .map(|i| items.iter().skip(i).step_by(n).cloned().collect())
        .collect();
    let mut out = BTreeMap::new();
    let results: Vec<Result<Vec<(String, String)>, String>> = std::thread::scope(|s| {
        let hs: Vec<_> = chunks
            .into_iter()
            .map(|c| s.spawn(move || c.into_iter().map(|(p, src)| rustfmt(&src).map(|f| (p, f))).collect()))
            .collect();
        hs.into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("formatter thread panicked".into())))
            .collect()
    });
    for r in results {
        for (p, f) in r? {
            out.insert(p, f);
        }
    }
    Ok(out)
}

/// `old` with the lines between `# BEGIN generated: {block}` and `# END generated: {block}`
/// replaced by `content`.
pub fn splice(old: &str, block: &str, content: &str) -> Result<String, String> {
    let begin = format!("# BEGIN generated: {block}\n");
    let end = format!("# END generated: {block}\n");
    let a = old
        .find(&begin)
        .ok_or_else(|| format!("no `{}` line", begin.trim_end()))?
        + begin.len();
    let b = old[a..]
        .find(&end)
        .ok_or_else(|| format!("no `{}` line", end.trim_end()))?
        + a;
    Ok(format!("{}{content}{}", &old[..a], &old[b..]))
}

/// Writes `files` under the repository root `out` (or, with `check`, compares). Removes stale
/// `.rs` files below [`GENERATED_DIRS`]. Returns the paths that differ.
pub fn write_tree(out: &Path, files: &BTreeMap<String, String>, check: bool) -> std::io::Result<Vec<String>> {
    let mut diffs = Vec::new();
    for (p, content) in files {
        let (p, content) = match p.split_once('#') {
            Some((file, block)) => {
                let old = std::fs::read_to_string(out.join(file)).unwrap_or_default();
                let spliced =
                    splice(&old, block, content).map_err(|e| std::io::Error::other(format!("{file}: {e}")))?;
                (file.to_string(), spliced)
            }
            None => (p.clone(), content.clone()),
        };
        let path = out.join(&p);
        let old = std::fs::read_to_string(&path).ok();
        if old.as_deref() != Some(content.as_str()) {
            diffs.push(p.clone());
            if !check {
                if let Some(d) = path.parent() {
                    std::fs::create_dir_all(d)?;
                }
                std::fs::write(&path, content)?;
            }
        }
    }
    // Stale files.
    let mut stack: Vec<std::path::PathBuf> = GENERATED_DIRS.iter().map(|d| out.join(d)).collect();
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(out).unwrap_or(&p).to_string_lossy().replace('\\', "/");
                if !files.contains_key(&rel) {
                    diffs.push(rel);
                    if !check {
                        std::fs::remove_file(&p)?;
                    }
                }
            }
        }
    }
    Ok(diffs)
}
pub mod sample;
