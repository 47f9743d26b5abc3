//! The Java side: a long-lived JVM running `kwire.conformance.Main` (tests/java/harness) over the
//! jars of one Kafka release, spoken to in JSON lines over stdin/stdout.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

/// One generated message class of the running release.
#[derive(Clone, Debug)]
pub struct JavaMsg {
    pub class: String,
    pub simple: String,
    pub jar: String,
    pub lowest: i16,
    pub highest: i16,
    pub api_key: Option<i16>,
    pub has_json: bool,
}

impl JavaMsg {
    pub fn has_version(&self, v: i16) -> bool {
        v >= self.lowest && v <= self.highest
    }
}

/// What Kafka did with one input of a `read` request.
#[derive(Clone, Debug)]
pub enum JavaRead {
    /// The generated constructor threw.
    Rejected(String),
    /// Kafka read a value; `remaining` bytes were left unread.
    Accepted {
        remaining: usize,
        hex: Result<String, String>,
        json: Option<Result<Value, String>>,
    },
}

pub struct Jvm {
    pub release: String,
    child: Child,
    stdin: BufWriter<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    pub index: Vec<JavaMsg>,
}

impl Jvm {
    /// Starts the harness over `<java_dir>/kafka-<release>/target/classpath.txt`.
    pub fn start(java_dir: &Path, release: &str) -> Result<Jvm, String> {
        let jar = java_dir.join("harness/target/kwire-conformance-harness.jar");
        let cp_file = java_dir.join(format!("kafka-{release}/target/classpath.txt"));
        let cp = std::fs::read_to_string(&cp_file)
            .map_err(|e| format!("{}: {e} (run mvn in {} first)", cp_file.display(), java_dir.display()))?;
        if !jar.exists() {
            return Err(format!(
                "{} is missing (run mvn package in {} first)",
                jar.display(),
                java_dir.display()
            ));
        }
        let classpath = format!("{}:{}", jar.display(), cp.trim());
        let java = std::env::var("JAVA").unwrap_or_else(|_| "java".into());
        let mut child = Command::new(java)
            .args([
                "-Xmx1g",
                "-Xss8m",
                "-XX:+UseSerialGC",
                "-XX:ActiveProcessorCount=1",
                "-Dslf4j.internal.verbosity=WARN",
                "-cp",
            ])
            .arg(classpath)
            .arg("kwire.conformance.Main")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("starting java: {e}"))?;
        let stdin = BufWriter::new(child.stdin.take().expect("stdin"));
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut jvm = Jvm {
            release: release.to_string(),
            child,
            stdin,
            stdout,
            index: Vec::new(),
        };
        let idx = jvm.call(&json!({"op": "index"}))?;
        let got = idx["kafkaVersion"].as_str().unwrap_or("?");
        if got != release {
            return Err(format!("the classpath of kafka-{release} runs Kafka {got}"));
        }
        for m in idx["messages"].as_array().into_iter().flatten() {
            jvm.index.push(JavaMsg {
                class: m["class"].as_str().unwrap_or_default().to_string(),
                simple: m["simple"].as_str().unwrap_or_default().to_string(),
                jar: m["jar"].as_str().unwrap_or_default().to_string(),
                lowest: m["lowest"].as_i64().unwrap_or(0) as i16,
                highest: m["highest"].as_i64().unwrap_or(-1) as i16,
                api_key: m["apiKey"].as_i64().filter(|k| *k >= 0).map(|k| k as i16),
                has_json: m["json"].as_bool().unwrap_or(false),
            });
        }
        Ok(jvm)
    }

    /// One request, one response.
    pub fn call(&mut self, req: &Value) -> Result<Value, String> {
        let line = serde_json::to_string(req).map_err(|e| e.to_string())?;
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|_| self.stdin.write_all(b"\n"))
            .and_then(|_| self.stdin.flush())
            .map_err(|e| format!("JVM {}: write: {e}", self.release))?;
        let mut resp = String::new();
        let n = self
            .stdout
            .read_line(&mut resp)
            .map_err(|e| format!("JVM {}: read: {e}", self.release))?;
        if n == 0 {
            return Err(format!("JVM {} exited", self.release));
        }
        let v: Value = serde_json::from_str(&resp).map_err(|e| format!("JVM {}: bad response: {e}", self.release))?;
        if let Some(e) = v.get("error") {
            return Err(format!("JVM {}: {}", self.release, e.as_str().unwrap_or_default()));
        }
        Ok(v)
    }

    /// Kafka's random values of `class` at `version`: (bytes, Kafka's JSON, Kafka's own problem).
    pub fn gen(
        &mut self,
        class: &str,
        version: i16,
        count: usize,
        seed: u64,
    ) -> Result<(Vec<JavaValue>, Vec<String>), String> {
        let r = self.call(&json!({"op": "gen", "class": class, "version": version, "count": count, "seed": seed}))?;
        let mut out = Vec::new();
        for v in r["values"].as_array().into_iter().flatten() {
            out.push(JavaValue {
                bytes: hex::decode(v["hex"].as_str().unwrap_or_default()).map_err(|e| e.to_string())?,
                json: v.get("json").cloned(),
                json_err: v.get("jsonErr").and_then(Value::as_str).map(str::to_string),
                problem: v.get("javaProblem").and_then(Value::as_str).map(str::to_string),
            });
        }
        let problems = r["problems"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p.as_str().map(str::to_string))
            .collect();
        Ok((out, problems))
    }

    /// Kafka reads each input at `version`.
    pub fn read(
        &mut self,
        class: &str,
        version: i16,
        inputs: &[Vec<u8>],
        want_json: bool,
    ) -> Result<Vec<JavaRead>, String> {
        let hexes: Vec<String> = inputs.iter().map(hex::encode).collect();
        let r =
            self.call(&json!({"op": "read", "class": class, "version": version, "hexes": hexes, "json": want_json}))?;
        let mut out = Vec::new();
        for x in r["results"].as_array().into_iter().flatten() {
            if x["ok"].as_bool() == Some(true) {
                let hex = match (
                    x.get("hex").and_then(Value::as_str),
                    x.get("writeErr").and_then(Value::as_str),
                ) {
                    (Some(h), _) => Ok(h.to_string()),
                    (None, Some(e)) => Err(e.to_string()),
                    (None, None) => Err("no output".into()),
                };
                let json = match (x.get("json"), x.get("jsonErr").and_then(Value::as_str)) {
                    (Some(j), _) => Some(Ok(j.clone())),
                    (None, Some(e)) => Some(Err(e.to_string())),
                    (None, None) => None,
                };
                out.push(JavaRead::Accepted {
                    remaining: x["remaining"].as_u64().unwrap_or(0) as usize,
                    hex,
                    json,
                });
            } else {
                out.push(JavaRead::Rejected(x["err"].as_str().unwrap_or_default().to_string()));
            }
        }
        if out.len() != inputs.len() {
            return Err(format!(
                "JVM {}: {} results for {} inputs",
                self.release,
                out.len(),
                inputs.len()
            ));
        }
        Ok(out)
    }

    /// Kafka's JSON converter reads each JSON value; Kafka's encoding of it.
    pub fn from_json(
        &mut self,
        class: &str,
        version: i16,
        jsons: &[Value],
    ) -> Result<Vec<Result<Vec<u8>, String>>, String> {
        let r = self.call(&json!({"op": "fromJson", "class": class, "version": version, "jsons": jsons}))?;
        Ok(r["results"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|x| {
                if x["ok"].as_bool() == Some(true) {
                    hex::decode(x["hex"].as_str().unwrap_or_default()).map_err(|e| e.to_string())
                } else {
                    Err(x["err"].as_str().unwrap_or_default().to_string())
                }
            })
            .collect())
    }

    pub fn quit(mut self) {
        let _ = self.stdin.write_all(b"{\"op\":\"quit\"}\n");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}

/// One value Kafka generated, as Kafka wrote it after reading it back.
#[derive(Clone, Debug)]
pub struct JavaValue {
    pub bytes: Vec<u8>,
    pub json: Option<Value>,
    pub json_err: Option<String>,
    pub problem: Option<String>,
}
