//! Strict loader for Kafka's JSON message schemas (JSON with `//` and `/* */` comments).
//!
//! Every rule broken is reported as a [`SchemaError`] naming the file, the line and column,
//! and the rule.

use std::collections::{BTreeSet, HashSet};
use std::fmt;
use std::path::Path;

use jsonc_parser::ast::{Object, ObjectProp, Value};
use jsonc_parser::common::Ranged;
use kafka_wire_rt::reflect::{Number, NUMBERS};

/// The highest version the generator can represent (a bit each in a `u64`).
pub const MAX_VERSION: u8 = 63;

/// A set of versions, a bit each.
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Versions(pub u64);

impl Versions {
    pub const NONE: Versions = Versions(0);
    pub fn range(lo: u8, hi: u8) -> Versions {
        if lo > hi || lo > MAX_VERSION {
            return Versions(0);
        }
        let hi = hi.min(MAX_VERSION);
        let upper = if hi == 63 { u64::MAX } else { (1u64 << (hi + 1)) - 1 };
        Versions(upper & !((1u64 << lo) - 1))
    }
    pub fn from(lo: u8) -> Versions {
        Versions::range(lo, MAX_VERSION)
    }
    pub fn contains(self, v: u8) -> bool {
        v <= MAX_VERSION && self.0 & (1u64 << v) != 0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn and(self, o: Versions) -> Versions {
        Versions(self.0 & o.0)
    }
    pub fn or(self, o: Versions) -> Versions {
        Versions(self.0 | o.0)
    }
    pub fn minus(self, o: Versions) -> Versions {
        Versions(self.0 & !o.0)
    }
    pub fn is_subset(self, o: Versions) -> bool {
        self.0 & !o.0 == 0
    }
    pub fn min(self) -> Option<u8> {
        (self.0 != 0).then(|| self.0.trailing_zeros() as u8)
    }
    pub fn max(self) -> Option<u8> {
        (self.0 != 0).then(|| 63 - self.0.leading_zeros() as u8)
    }
    pub fn iter(self) -> impl Iterator<Item = u8> {
        (0..=MAX_VERSION).filter(move |v| self.contains(*v))
    }
    /// Maximal runs `(lo, hi)`.
    pub fn runs(self) -> Vec<(u8, u8)> {
        let mut out = Vec::new();
        let mut v = 0u8;
        while v <= MAX_VERSION {
            if self.contains(v) {
                let lo = v;
                while v < MAX_VERSION && self.contains(v + 1) {
                    v += 1;
                }
                out.push((lo, v));
            }
            v += 1;
        }
        out
    }
}

impl fmt::Display for Versions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let runs = self.runs();
        if runs.is_empty() {
            return f.write_str("none");
        }
        for (i, (lo, hi)) in runs.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if *hi == MAX_VERSION {
                write!(f, "{lo}+")?;
            } else if lo == hi {
                write!(f, "{lo}")?;
            } else {
                write!(f, "{lo}-{hi}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Versions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A broken rule, with its place in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub rule: String,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.column, self.rule)
    }
}

impl std::error::Error for SchemaError {}

/// A place in a schema file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loc {
    pub line: usize,
    pub column: usize,
}

/// The kinds of type a field can have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    Bool,
    /// A fixed-width number: its row of the runtime's table.
    Num(&'static Number),
    String,
    Bytes,
    Records,
    Uuid,
    Struct(String),
    Array(Box<Type>),
}

impl Type {
    pub fn parse(s: &str) -> Option<Type> {
        Some(match s {
            "bool" => Type::Bool,
            "string" => Type::String,
            "bytes" => Type::Bytes,
            "records" => Type::Records,
            "uuid" => Type::Uuid,
            _ => {
                if let Some(n) = NUMBERS.iter().find(|n| n.schema == s) {
                    return Some(Type::Num(n));
                }
                if let Some(inner) = s.strip_prefix("[]") {
                    let t = Type::parse(inner)?;
                    if matches!(t, Type::Array(_) | Type::Bytes | Type::Records) {
                        return None;
                    }
                    return Some(Type::Array(Box::new(t)));
                }
                let first = s.chars().next()?;
                if !first.is_ascii_uppercase() || !s.chars().all(|c| c.is_ascii_alphanumeric()) {
                    return None;
                }
                Type::Struct(s.to_string())
            }
        })
    }
    pub fn struct_name(&self) -> Option<&str> {
        match self {
            Type::Struct(n) => Some(n),
            Type::Array(t) => t.struct_name(),
            _ => None,
        }
    }
    pub fn is_array(&self) -> bool {
        matches!(self, Type::Array(_))
    }
    /// Types that can be null on the wire.
    pub fn can_be_nullable(&self) -> bool {
        matches!(
            self,
            Type::String | Type::Bytes | Type::Records | Type::Array(_) | Type::Struct(_)
        )
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Bool => f.write_str("bool"),
            Type::Num(n) => f.write_str(n.schema),
            Type::String => f.write_str("string"),
            Type::Bytes => f.write_str("bytes"),
            Type::Records => f.write_str("records"),
            Type::Uuid => f.write_str("uuid"),
            Type::Struct(n) => f.write_str(n),
            Type::Array(t) => write!(f, "[]{t}"),
        }
    }
}

/// One field as the file gives it.
#[derive(Clone, Debug)]
pub struct Field {
    pub name: String,
    pub ty: Type,
    pub versions: Versions,
    pub nullable: Versions,
    pub tagged: Versions,
    pub tag: Option<u32>,
    /// A field-level `flexibleVersions` override (only "none" is used by Kafka).
    pub flexible: Option<Versions>,
    pub default: Option<String>,
    pub ignorable: bool,
    pub entity_type: Option<String>,
    pub map_key: bool,
    pub zero_copy: bool,
    /// Inline struct definition.
    pub fields: Option<Vec<Field>>,
    pub loc: Loc,
}

/// A named struct from `commonStructs`.
#[derive(Clone, Debug)]
pub struct CommonStruct {
    pub name: String,
    pub versions: Versions,
    pub fields: Vec<Field>,
    pub loc: Loc,
}

/// One schema file.
#[derive(Clone, Debug)]
pub struct Schema {
    pub file: String,
    pub kind: String,
    pub name: String,
    pub api_key: Option<i16>,
    pub valid: Versions,
    pub flexible: Versions,
    pub latest_unstable: bool,
    pub listeners: Vec<String>,
    pub fields: Vec<Field>,
    pub common: Vec<CommonStruct>,
}

const KINDS: &[&str] = &[
    "request",
    "response",
    "header",
    "metadata",
    "data",
    "coordinator-key",
    "coordinator-value",
];

struct Ctx<'t> {
    file: String,
    text: &'t str,
}

impl Ctx<'_> {
    fn loc(&self, pos: usize) -> Loc {
        let before = &self.text[..pos.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        Loc { line, column }
    }
    fn err(&self, pos: usize, rule: impl Into<String>) -> SchemaError {
        let l = self.loc(pos);
        SchemaError {
            file: self.file.clone(),
            line: l.line,
            column: l.column,
            rule: rule.into(),
        }
    }
}

/// Reads and checks one schema file.
pub fn load_file(path: &Path) -> Result<Schema, SchemaError> {
    load_file_with(path, true)
}

/// Reads one schema file; `need_api_key` is false for drafts whose key is assigned elsewhere.
pub fn load_file_with(path: &Path, need_api_key: bool) -> Result<Schema, SchemaError> {
    let text = std::fs::read_to_string(path).map_err(|e| SchemaError {
        file: path.display().to_string(),
        line: 0,
        column: 0,
        rule: format!("cannot read the file: {e}"),
    })?;
    load_str_with(&path.display().to_string(), &text, need_api_key)
}

/// Reads and checks schema text; `file` names it in errors.
pub fn load_str(file: &str, text: &str) -> Result<Schema, SchemaError> {
    load_str_with(file, text, true)
}

/// [`load_str`], with the apiKey requirement switchable.
pub fn load_str_with(file: &str, text: &str, need_api_key: bool) -> Result<Schema, SchemaError> {
    let cx = Ctx {
        file: file.to_string(),
        text,
    };
    let opts = jsonc_parser::ParseOptions {
        allow_comments: true,
        allow_loose_object_property_names: false,
        allow_trailing_commas: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    // JSON allows only space, tab, CR and LF between tokens; wiki copies bring non-breaking
    // spaces (U+00A0) that Kafka's loader rejects. Report whichever problem comes first.
    let stray = stray_whitespace(text);
    let parsed = match jsonc_parser::parse_to_ast(text, &Default::default(), &opts) {
        Ok(p) => p,
        Err(e) => {
            let r = e.range();
            if let Some((pos, ch)) = stray.filter(|(pos, _)| *pos < r.start) {
                return Err(cx.err(
                    pos,
                    format!("not valid JSON: character U+{:04X} outside a string", ch as u32),
                ));
            }
            return Err(cx.err(r.start, format!("not valid JSON: {}", e.kind())));
        }
    };
    if let Some((pos, ch)) = stray {
        return Err(cx.err(
            pos,
            format!("not valid JSON: character U+{:04X} outside a string", ch as u32),
        ));
    }
    let Some(Value::Object(root)) = parsed.value else {
        return Err(cx.err(0, "the file must hold one JSON object"));
    };
    schema(&cx, &root, need_api_key)
}

/// The first non-ASCII character outside strings and comments, if any.
fn stray_whitespace(text: &str) -> Option<(usize, char)> {
    #[derive(PartialEq)]
    enum St {
        Code,
        Str,
        Esc,
        Line,
        Block,
    }
    let mut st = St::Code;
    let mut prev = '\0';
    for (i, ch) in text.char_indices() {
        st = match st {
            St::Code if ch == '"' => St::Str,
            St::Code if prev == '/' && ch == '/' => St::Line,
            St::Code if prev == '/' && ch == '*' => St::Block,
            St::Code if !ch.is_ascii() => return Some((i, ch)),
            St::Str if ch == '\\' => St::Esc,
            St::Str if ch == '"' => St::Code,
            St::Esc => St::Str,
            St::Line if ch == '\n' => St::Code,
            St::Block if prev == '*' && ch == '/' => {
                prev = '\0';
                st = St::Code;
                continue;
            }
            s => s,
        };
        prev = ch;
    }
    None
}

fn keys<'a>(cx: &Ctx, o: &'a Object<'a>, allowed: &[&str], what: &str) -> Result<(), SchemaError> {
    let mut seen: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for p in &o.properties {
        let k = p.name.as_str();
        if !allowed.contains(&k) {
            return Err(cx.err(p.range.start, format!("unknown key \"{k}\" in {what}")));
        }
        // Kafka's loader keeps the last of duplicate keys; a repeat with the same value is
        // harmless (Kafka 3.9.1 has one), a repeat with another value is ambiguous.
        let r = p.value.range();
        let text = &cx.text[r.start..r.end];
        if let Some(prev) = seen.insert(k, text) {
            if prev != text {
                return Err(cx.err(
                    p.range.start,
                    format!("duplicate key \"{k}\" with a different value in {what}"),
                ));
            }
        }
    }
    Ok(())
}

fn prop<'a>(o: &'a Object<'a>, k: &str) -> Option<&'a ObjectProp<'a>> {
    o.properties.iter().find(|p| p.name.as_str() == k)
}

fn string<'a>(cx: &Ctx, o: &'a Object<'a>, k: &str) -> Result<Option<(String, usize)>, SchemaError> {
    match prop(o, k) {
        None => Ok(None),
        Some(p) => match &p.value {
            Value::StringLit(s) => Ok(Some((s.value.to_string(), p.value.range().start))),
            v => Err(cx.err(v.range().start, format!("\"{k}\" must be a string"))),
        },
    }
}

fn boolean(cx: &Ctx, o: &Object, k: &str) -> Result<bool, SchemaError> {
    match prop(o, k) {
        None => Ok(false),
        Some(p) => match &p.value {
            Value::BooleanLit(b) => Ok(b.value),
            // Jackson coerces the strings "true" and "false".
            Value::StringLit(sl) if sl.value == "true" || sl.value == "false" => Ok(sl.value == "true"),
            v => Err(cx.err(v.range().start, format!("\"{k}\" must be true or false"))),
        },
    }
}

fn integer(cx: &Ctx, o: &Object, k: &str, lo: i64, hi: i64) -> Result<Option<i64>, SchemaError> {
    match prop(o, k) {
        None => Ok(None),
        Some(p) => match &p.value {
            Value::NumberLit(n) => match n.value.parse::<i64>() {
                Ok(v) if (lo..=hi).contains(&v) => Ok(Some(v)),
                _ => Err(cx.err(
                    n.range.start,
                    format!("\"{k}\" must be an integer from {lo} to {hi}, not {}", n.value),
                )),
            },
            // Jackson coerces a string holding an integer.
            Value::StringLit(sl) => match sl.value.parse::<i64>() {
                Ok(v) if (lo..=hi).contains(&v) => Ok(Some(v)),
                _ => Err(cx.err(
                    sl.range.start,
                    format!("\"{k}\" must be an integer from {lo} to {hi}, not \"{}\"", sl.value),
                )),
            },
            v => Err(cx.err(v.range().start, format!("\"{k}\" must be a number"))),
        },
    }
}

/// Parses a version range: `"none"`, `"N"`, `"N+"`, `"N-M"`.
pub fn parse_versions(s: &str) -> Result<Versions, String> {
    let num = |t: &str| -> Result<u8, String> {
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) || (t.len() > 1 && t.starts_with('0')) {
            return Err(format!("malformed version range \"{s}\""));
        }
        t.parse::<u8>()
            .ok()
            .filter(|v| *v <= MAX_VERSION)
            .ok_or_else(|| format!("version in \"{s}\" is above {MAX_VERSION}"))
    };
    if s == "none" {
        return Ok(Versions::NONE);
    }
    if let Some(lo) = s.strip_suffix('+') {
        return Ok(Versions::from(num(lo)?));
    }
    if let Some((lo, hi)) = s.split_once('-') {
        let (lo, hi) = (num(lo)?, num(hi)?);
        if hi < lo {
            return Err(format!("inverted version range \"{s}\""));
        }
        return Ok(Versions::range(lo, hi));
    }
    let v = num(s)?;
    Ok(Versions::range(v, v))
}

fn versions(cx: &Ctx, o: &Object, k: &str) -> Result<Option<Versions>, SchemaError> {
    match string(cx, o, k)? {
        None => Ok(None),
        Some((s, pos)) => parse_versions(&s)
            .map(Some)
            .map_err(|e| cx.err(pos, format!("\"{k}\": {e}"))),
    }
}

fn schema(cx: &Ctx, o: &Object, need_api_key: bool) -> Result<Schema, SchemaError> {
    keys(
        cx,
        o,
        &[
            "apiKey",
            "type",
            "name",
            "validVersions",
            "flexibleVersions",
            "fields",
            "commonStructs",
            "listeners",
            "latestVersionUnstable",
            "deprecatedVersions",
        ],
        "the schema",
    )?;
    let (kind, kpos) = string(cx, o, "type")?.ok_or_else(|| cx.err(o.range.start, "missing \"type\""))?;
    if !KINDS.contains(&kind.as_str()) {
        return Err(cx.err(kpos, format!("unknown schema type \"{kind}\"")));
    }
    let (name, npos) = string(cx, o, "name")?.ok_or_else(|| cx.err(o.range.start, "missing \"name\""))?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
        return Err(cx.err(npos, format!("invalid message name \"{name}\"")));
    }
    let api_key = integer(cx, o, "apiKey", 0, i64::from(i16::MAX))?.map(|v| v as i16);
    if matches!(
        kind.as_str(),
        "request" | "response" | "metadata" | "coordinator-key" | "coordinator-value"
    ) && api_key.is_none()
        && need_api_key
        && !(kind == "metadata" && name.starts_with("RemoteLog"))
    {
        return Err(cx.err(npos, format!("a {kind} schema needs an \"apiKey\"")));
    }
    let valid = versions(cx, o, "validVersions")?.ok_or_else(|| cx.err(o.range.start, "missing \"validVersions\""))?;
    if valid.max() == Some(MAX_VERSION) {
        return Err(cx.err(o.range.start, "\"validVersions\" must be bounded"));
    }
    let flexible = versions(cx, o, "flexibleVersions")?.unwrap_or(Versions::NONE);
    let latest_unstable = boolean(cx, o, "latestVersionUnstable")?;
    if let Some(d) = versions(cx, o, "deprecatedVersions")? {
        if !d.is_subset(valid) && !valid.is_empty() {
            let p = prop(o, "deprecatedVersions").map_or(0, |p| p.range.start);
            return Err(cx.err(p, format!("deprecatedVersions {d} outside validVersions {valid}")));
        }
    }
    let mut listeners = Vec::new();
    if let Some(p) = prop(o, "listeners") {
        let Value::Array(a) = &p.value else {
            return Err(cx.err(p.range.start, "\"listeners\" must be an array of strings"));
        };
        for e in &a.elements {
            match e {
                Value::StringLit(s) => listeners.push(s.value.to_string()),
                v => return Err(cx.err(v.range().start, "\"listeners\" must be an array of strings")),
            }
        }
    }
    let sc = StructCx { flexible, valid };
    let mut common = Vec::new();
    if let Some(p) = prop(o, "commonStructs") {
        let Value::Array(a) = &p.value else {
            return Err(cx.err(p.range.start, "\"commonStructs\" must be an array"));
        };
        for e in &a.elements {
            let Value::Object(so) = e else {
                return Err(cx.err(e.range().start, "a common struct must be an object"));
            };
            keys(cx, so, &["name", "versions", "fields"], "a common struct")?;
            let (sname, spos) =
                string(cx, so, "name")?.ok_or_else(|| cx.err(so.range.start, "common struct without \"name\""))?;
            if Type::parse(&sname)
                .and_then(|t| t.struct_name().map(str::to_string))
                .as_deref()
                != Some(&sname)
            {
                return Err(cx.err(spos, format!("invalid struct name \"{sname}\"")));
            }
            let sv = versions(cx, so, "versions")?.unwrap_or(valid);
            let fields = field_list(cx, so, &sc, sv)?
                .ok_or_else(|| cx.err(spos, format!("common struct \"{sname}\" has no fields")))?;
            if fields.is_empty() {
                return Err(cx.err(spos, format!("common struct \"{sname}\" has no fields")));
            }
            common.push(CommonStruct {
                name: sname,
                versions: sv,
                fields,
                loc: cx.loc(so.range.start),
            });
        }
    }
    let fields = field_list(cx, o, &sc, valid)?.unwrap_or_default();
    let s = Schema {
        file: cx.file.clone(),
        kind,
        name,
        api_key,
        valid,
        flexible,
        latest_unstable,
        listeners,
        fields,
        common,
    };
    check_structs(cx, &s)?;
    Ok(s)
}

struct StructCx {
    flexible: Versions,
    valid: Versions,
}

fn field_list(cx: &Ctx, o: &Object, sc: &StructCx, parent: Versions) -> Result<Option<Vec<Field>>, SchemaError> {
    let Some(p) = prop(o, "fields") else {
        return Ok(None);
    };
    let Value::Array(a) = &p.value else {
        return Err(cx.err(p.range.start, "\"fields\" must be an array"));
    };
    let mut out: Vec<Field> = Vec::new();
    let mut names = HashSet::new();
    let mut tags = HashSet::new();
    for e in &a.elements {
        let Value::Object(fo) = e else {
            return Err(cx.err(e.range().start, "a field must be an object"));
        };
        let f = field(cx, fo, sc, parent)?;
        if !names.insert(f.name.to_ascii_lowercase()) {
            return Err(cx.err(fo.range.start, format!("duplicate field name \"{}\"", f.name)));
        }
        if let Some(t) = f.tag {
            if !tags.insert(t) {
                return Err(cx.err(fo.range.start, format!("duplicate tag {t} (field \"{}\")", f.name)));
            }
        }
        out.push(f);
    }
    Ok(Some(out))
}

fn field(cx: &Ctx, o: &Object, sc: &StructCx, _parent: Versions) -> Result<Field, SchemaError> {
    keys(
        cx,
        o,
        &[
            "name",
            "type",
            "versions",
            "nullableVersions",
            "taggedVersions",
            "tag",
            "default",
            "ignorable",
            "entityType",
            "about",
            "mapKey",
            "zeroCopy",
            "fields",
            "flexibleVersions",
        ],
        "a field",
    )?;
    let at = o.range.start;
    let (name, npos) = string(cx, o, "name")?.ok_or_else(|| cx.err(at, "field without \"name\""))?;
    if name.is_empty() {
        return Err(cx.err(npos, "empty field name"));
    }
    if !name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) || !name.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return Err(cx.err(npos, format!("invalid field name \"{name}\"")));
    }
    let (tys, tpos) = string(cx, o, "type")?.ok_or_else(|| cx.err(at, format!("field \"{name}\" has no \"type\"")))?;
    let ty = Type::parse(&tys).ok_or_else(|| cx.err(tpos, format!("field \"{name}\" has unknown type \"{tys}\"")))?;
    let tagged = versions(cx, o, "taggedVersions")?;
    let tag = integer(cx, o, "tag", 0, i64::from(i32::MAX))?.map(|t| t as u32);
    let vers = match versions(cx, o, "versions")? {
        Some(v) => v,
        None => match tagged {
            Some(t) => t,
            None => return Err(cx.err(at, format!("field \"{name}\" has no \"versions\""))),
        },
    };
    let vpos = prop(o, "versions").map_or(at, |p| p.value.range().start);
    if vers.is_empty() {
        return Err(cx.err(vpos, format!("field \"{name}\" has no versions")));
    }
    if let (Some(lo), Some(vmax)) = (vers.min(), sc.valid.max()) {
        if lo > vmax || vers.max().is_some_and(|hi| hi != MAX_VERSION && hi > vmax) {
            return Err(cx.err(
                vpos,
                format!(
                    "field \"{name}\" versions {vers} are outside validVersions {}",
                    sc.valid
                ),
            ));
        }
    }
    let nullable_given = versions(cx, o, "nullableVersions")?.unwrap_or(Versions::NONE);
    let nullable = nullable_given;
    if !nullable.is_empty() {
        let p = prop(o, "nullableVersions").map_or(at, |p| p.value.range().start);
        if !ty.can_be_nullable() {
            return Err(cx.err(p, format!("field \"{name}\" of type {ty} cannot be nullable")));
        }
        if nullable.and(vers).is_empty() {
            return Err(cx.err(
                p,
                format!("field \"{name}\" nullableVersions {nullable} are outside its versions {vers}"),
            ));
        }
    }
    match (tagged, tag) {
        (Some(_), None) => return Err(cx.err(at, format!("field \"{name}\" has \"taggedVersions\" but no \"tag\""))),
        (None, Some(_)) => return Err(cx.err(at, format!("field \"{name}\" has a \"tag\" but no \"taggedVersions\""))),
        _ => {}
    }
    let tagged_v = tagged.unwrap_or(Versions::NONE);
    if let Some(t) = tagged {
        let p = prop(o, "taggedVersions").map_or(at, |p| p.value.range().start);
        if !t.is_subset(sc.flexible) {
            return Err(cx.err(
                p,
                format!(
                    "field \"{name}\" taggedVersions {t} are outside the flexible versions {}",
                    sc.flexible
                ),
            ));
        }
        if !t.is_subset(vers) {
            return Err(cx.err(
                p,
                format!("field \"{name}\" taggedVersions {t} are outside its versions {vers}"),
            ));
        }
        if tag.is_some_and(|t| t >= 64) {
            return Err(cx.err(
                p,
                format!("field \"{name}\": tags from 64 up are not supported by this generator"),
            ));
        }
    }
    let flexible = versions(cx, o, "flexibleVersions")?;
    if let Some(fv) = flexible {
        if !fv.is_empty() || !matches!(ty, Type::String | Type::Bytes) {
            let p = prop(o, "flexibleVersions").map_or(at, |p| p.value.range().start);
            if !matches!(ty, Type::String | Type::Bytes) {
                return Err(cx.err(
                    p,
                    format!("field \"{name}\": a field-level flexibleVersions needs a string or bytes type"),
                ));
            }
        }
    }
    let default = match prop(o, "default") {
        None => None,
        Some(p) => match &p.value {
            Value::StringLit(s) => Some(s.value.to_string()),
            // Kafka's loader (Jackson) coerces JSON booleans and numbers to the string form.
            Value::BooleanLit(b) => Some(b.value.to_string()),
            Value::NumberLit(n) => Some(n.value.to_string()),
            // Kafka's loader reads a JSON null as "no default".
            Value::NullKeyword(_) => None,
            v => {
                return Err(cx.err(
                    v.range().start,
                    format!("field \"{name}\": \"default\" must be a string, number or boolean"),
                ))
            }
        },
    };
    if let Some(d) = &default {
        let p = prop(o, "default").map_or(at, |p| p.value.range().start);
        check_default(&ty, d, !nullable.is_empty()).map_err(|e| cx.err(p, format!("field \"{name}\": {e}")))?;
    }
    let fields = field_list(cx, o, sc, vers)?;
    if let Some(fs) = &fields {
        if ty.struct_name().is_none() {
            return Err(cx.err(at, format!("field \"{name}\" of type {ty} cannot have \"fields\"")));
        }
        if fs.is_empty() {
            return Err(cx.err(at, format!("struct type {ty} of field \"{name}\" has no fields")));
        }
    }
    let entity_type = string(cx, o, "entityType")?.map(|(s, _)| s);
    let _ = string(cx, o, "about")?;
    Ok(Field {
        name,
        ty,
        versions: vers,
        nullable: nullable.and(vers),
        tagged: tagged_v,
        tag,
        flexible,
        default,
        ignorable: boolean(cx, o, "ignorable")?,
        entity_type,
        map_key: boolean(cx, o, "mapKey")?,
        zero_copy: boolean(cx, o, "zeroCopy")?,
        fields,
        loc: cx.loc(at),
    })
}

/// Parses an integer default the way Kafka's generator accepts them: decimal or `0x` hex.
pub fn parse_int(d: &str) -> Option<i128> {
    let (neg, body) = match d.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, d),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else {
        if body.is_empty() || !body.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        body.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

/// Decodes Kafka's text form of a UUID (URL-safe base64 of 16 bytes, no padding).
pub fn parse_uuid(d: &str) -> Option<u128> {
    if d.len() != 22 {
        return None;
    }
    let mut bits: u128 = 0;
    let mut acc: u32 = 0;
    let mut n = 0;
    let mut out = Vec::new();
    for c in d.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((acc >> n) as u8);
            acc &= (1 << n) - 1;
        }
    }
    if out.len() != 16 || acc != 0 {
        return None;
    }
    for b in out {
        bits = (bits << 8) | u128::from(b);
    }
    Some(bits)
}

fn check_default(ty: &Type, d: &str, nullable: bool) -> Result<(), String> {
    let int = |lo: i128, hi: i128| match parse_int(d) {
        Some(v) if (lo..=hi).contains(&v) => Ok(()),
        _ => Err(format!("default \"{d}\" is not a valid {ty}")),
    };
    if d == "null" {
        return if nullable {
            Ok(())
        } else {
            Err(format!(
                "default \"null\" on a field of type {ty} that is never nullable"
            ))
        };
    }
    match ty {
        Type::Bool => match d {
            "true" | "false" => Ok(()),
            _ => Err(format!("default \"{d}\" is not a valid bool")),
        },
        Type::Num(n) if !n.float => int(n.min.into(), n.max.into()),
        Type::Num(n) => d
            .parse::<f64>()
            .map(|_| ())
            .map_err(|_| format!("default \"{d}\" is not a valid {}", n.schema)),
        Type::String => Ok(()),
        Type::Uuid => parse_uuid(d)
            .map(|_| ())
            .ok_or_else(|| format!("default \"{d}\" is not a valid uuid")),
        Type::Bytes | Type::Records | Type::Array(_) | Type::Struct(_) => {
            if d.is_empty() {
                Ok(())
            } else {
                Err(format!("default \"{d}\" is not allowed for type {ty} (only \"null\")"))
            }
        }
    }
}

/// Every struct type must be defined exactly once: inline or in `commonStructs`.
fn check_structs(cx: &Ctx, s: &Schema) -> Result<(), SchemaError> {
    let common: BTreeSet<&str> = s.common.iter().map(|c| c.name.as_str()).collect();
    if common.len() != s.common.len() {
        return Err(cx.err(0, "duplicate common struct name"));
    }
    let mut inline: HashSet<String> = HashSet::new();
    fn walk(
        cx: &Ctx,
        fs: &[Field],
        common: &BTreeSet<&str>,
        inline: &mut HashSet<String>,
        file_name: &str,
    ) -> Result<(), SchemaError> {
        for f in fs {
            let Some(sn) = f.ty.struct_name() else {
                continue;
            };
            match &f.fields {
                Some(sub) => {
                    if common.contains(sn) {
                        return Err(SchemaError {
                            file: cx.file.clone(),
                            line: f.loc.line,
                            column: f.loc.column,
                            rule: format!("struct {sn} is defined both inline and in commonStructs"),
                        });
                    }
                    if !inline.insert(sn.to_string()) || sn == file_name {
                        return Err(SchemaError {
                            file: cx.file.clone(),
                            line: f.loc.line,
                            column: f.loc.column,
                            rule: format!("struct {sn} is defined more than once"),
                        });
                    }
                    walk(cx, sub, common, inline, file_name)?;
                }
                None => {
                    if !common.contains(sn) {
                        return Err(SchemaError {
                            file: cx.file.clone(),
                            line: f.loc.line,
                            column: f.loc.column,
                            rule: format!("field \"{}\" has struct type {} without fields", f.name, f.ty),
                        });
                    }
                }
            }
        }
        Ok(())
    }
    walk(cx, &s.fields, &common, &mut inline, &s.name)?;
    for c in &s.common {
        walk(cx, &c.fields, &common, &mut inline, &s.name)?;
    }
    Ok(())
}
