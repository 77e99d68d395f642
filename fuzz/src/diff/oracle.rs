//! The reference side of the differential tests: `tfwasm-oracle` (`fuzz/oracle/main.go`,
//! built by `scripts/build-oracle.sh` against go-cty and OpenTofu's objchange), spoken to
//! one JSON line per request.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use base64::Engine;
use serde::{Deserialize, Serialize};

/// One question for the oracle; see `fuzz/oracle/main.go` for the operations.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Request {
    pub op: &'static str,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none", with = "b64")]
    pub msgpack: Option<Vec<u8>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", with = "b64")]
    pub a: Option<Vec<u8>>,
    #[serde(skip_serializing_if = "Option::is_none", with = "b64")]
    pub b: Option<Vec<u8>>,
    #[serde(skip_serializing_if = "Option::is_none", with = "b64")]
    pub prior: Option<Vec<u8>>,
    #[serde(skip_serializing_if = "Option::is_none", with = "b64")]
    pub config: Option<Vec<u8>>,
    #[serde(skip_serializing_if = "Option::is_none", with = "b64")]
    pub planned: Option<Vec<u8>>,
    #[serde(skip_serializing_if = "Option::is_none", with = "b64")]
    pub actual: Option<Vec<u8>>,
}

/// The oracle's answer.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Answer {
    /// go-cty refused the input, with its message.
    #[serde(default)]
    pub error: Option<String>,
    /// The reference code panicked.
    #[serde(default)]
    pub panic: Option<String>,
    /// The decoded value re-encoded.
    #[serde(default, with = "b64")]
    pub msgpack: Option<Vec<u8>>,
    /// The decoded value as cty JSON, when wholly known.
    #[serde(default)]
    pub json: Option<String>,
    /// Why it has no JSON form.
    #[serde(default)]
    pub json_error: Option<String>,
    /// `RawEquals`.
    #[serde(default)]
    pub raw_equals: Option<bool>,
    /// `Equals(...).True()`: one element of a set.
    #[serde(default)]
    pub equals: Option<bool>,
    /// What objchange reported.
    #[serde(default)]
    pub errors: Option<Vec<String>>,
    /// Whether the new state is wholly known.
    #[serde(default)]
    pub wholly_known: Option<bool>,
}

mod b64 {
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match bytes {
            Some(b) => s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(b)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        let text: Option<String> = Option::deserialize(d)?;
        text.map(|t| {
            base64::engine::general_purpose::STANDARD
                .decode(t)
                .map_err(serde::de::Error::custom)
        })
        .transpose()
    }
}

/// A running oracle process.
pub struct Oracle {
    child: Child,
    stdin: Option<BufWriter<ChildStdin>>,
    stdout: BufReader<ChildStdout>,
}

impl Oracle {
    /// Starts the oracle binary at `path`.
    ///
    /// # Errors
    /// When it cannot be started.
    pub fn start(path: &Path) -> std::io::Result<Oracle> {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let stdin = child.stdin.take().map(BufWriter::new);
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Ok(Oracle {
            child,
            stdin,
            stdout,
        })
    }

    /// Asks every request and returns the answers in order. Requests are written by a
    /// second thread while answers are read, so neither pipe fills up.
    ///
    /// # Errors
    /// When the oracle dies or answers something that is not an answer.
    pub fn ask(&mut self, requests: &[Request]) -> std::io::Result<Vec<Answer>> {
        let stdin = self.stdin.as_mut().expect("the oracle's stdin is open");
        let stdout = &mut self.stdout;
        std::thread::scope(|scope| {
            let writer = scope.spawn(move || -> std::io::Result<()> {
                for request in requests {
                    serde_json::to_writer(&mut *stdin, request)?;
                    stdin.write_all(b"\n")?;
                }
                stdin.flush()
            });
            let mut answers = Vec::with_capacity(requests.len());
            let mut line = String::new();
            for _ in requests {
                line.clear();
                if stdout.read_line(&mut line)? == 0 {
                    return Err(std::io::Error::other("the oracle exited early"));
                }
                answers.push(
                    serde_json::from_str(&line).map_err(|e| {
                        std::io::Error::other(format!("oracle answer {line:?}: {e}"))
                    })?,
                );
            }
            writer.join().expect("writer thread")?;
            Ok(answers)
        })
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// The oracle binary: `scripts/build-oracle.sh` builds it once (Go and the Go module proxy
/// needed) and prints its path.
///
/// # Errors
/// What the script printed when it failed.
pub fn build(workspace_root: &Path) -> Result<PathBuf, String> {
    let out = Command::new("bash")
        .arg(workspace_root.join("scripts/build-oracle.sh"))
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("run scripts/build-oracle.sh: {e}"))?;
    if !out.status.success() {
        return Err("scripts/build-oracle.sh failed (its message is above)".into());
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// Bytes as base64, for reproducers.
pub fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
