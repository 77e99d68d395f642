//! `tfwasm replay DIR`: runs a recording's requests against a component and reports every
//! response that differs from the recorded one.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use sha2::Digest as _;

use crate::record::replay::{Outcome, read_session, replay_session, sessions};

/// Arguments of `tfwasm replay`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A recording: the directory `TFWASM_RECORD` named (every session in it, oldest first)
    /// or one session directory in it.
    dir: PathBuf,
    /// The component to run the requests against [default: the one each session recorded].
    #[arg(long, value_name = "PATH")]
    component: Option<PathBuf>,
    /// Directory of the compiled-component cache [default: as for `tfwasm serve`].
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Also list the calls whose responses match.
    #[arg(long, short)]
    verbose: bool,
    /// Run the calls with the grants of the operator's settings (TFWASM_CONFIG, or the
    /// tfwasm.toml beside --component): they then reach the hosts, directories and variables
    /// granted there, and a replayed apply changes what the recorded one changed. Without
    /// it the component runs with no grants: requests are denied, no directory or variable
    /// is there. A component the recording names or carries brings no settings of its own.
    #[arg(long)]
    with_grants: bool,
    /// Instead of replaying, copy into each session the component it recorded (checked
    /// against the SHA-256 the session holds) as `component.wasm`, so the folder replays
    /// elsewhere without `--component`. Only WebAssembly: a session of a package ran its
    /// native `component.cwasm`, which a recording never carries.
    #[arg(long, conflicts_with_all = ["component", "with_grants", "verbose"])]
    pack: bool,
}

/// Exit status: 0 when every response matches, 1 when some differ, 2 when the recording or
/// the component cannot be used, or when the recording kept no values to replay calls with
/// (the default, `values = "redacted"`).
pub fn run(args: Args) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(replay(&args)) {
        Ok(Totals {
            differ: 0,
            unrecorded: 0,
            ..
        }) => ExitCode::SUCCESS,
        Ok(Totals { differ: 0, .. }) => ExitCode::from(2),
        Ok(_) => ExitCode::from(1),
        Err(error) => {
            // Errors quote paths and names the recording chose.
            eprintln!("error: {}", escaped(&format!("{error:#}")));
            ExitCode::from(2)
        }
    }
}

#[derive(Default)]
struct Totals {
    sessions: usize,
    calls: usize,
    same: usize,
    differ: usize,
    skipped: usize,
    /// Calls not replayed because the recording kept no values.
    unrecorded: usize,
    /// Redacted request values replayed as placeholders.
    placeholders: usize,
}

use crate::hclog::escaped;

/// What the replay lets the component reach, said before it runs.
fn grants_note(granted: &crate::config::GrantsConfig, with_grants: bool) -> String {
    let listed = |what: &str, entries: &[String]| {
        (!entries.is_empty()).then(|| format!("{what} {}", escaped(&entries.join(", "))))
    };
    let parts: Vec<String> = [
        listed("HTTP to", &granted.http),
        listed("directories", &granted.dirs),
        listed("environment variables", &granted.env),
    ]
    .into_iter()
    .flatten()
    .collect();
    match (with_grants, parts.is_empty()) {
        (_, true) => "  grants: none in its settings".to_owned(),
        (true, false) => format!(
            "  grants (--with-grants): the calls run for real against {}",
            parts.join("; ")
        ),
        (false, false) => format!(
            "  grants: none (its settings grant {}; --with-grants runs the calls against them)",
            parts.join("; ")
        ),
    }
}

/// Where `--pack` puts a session's component: always WebAssembly, never native code.
fn packed_path(dir: &Path) -> PathBuf {
    dir.join(crate::PACKAGED_SOURCE)
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(sha2::Sha256::digest(bytes))
}

/// Largest component file replay reads: a recording names any path, `/dev/zero` included.
const MAX_COMPONENT_BYTES: u64 = 256 << 20;

/// The bytes of a component file a recording names: a regular file of at most
/// [`MAX_COMPONENT_BYTES`], and WebAssembly. A package's precompiled `.cwasm` is native code,
/// which replay never runs from a recording: it would run outside the sandbox.
fn read_component(path: &Path) -> anyhow::Result<Vec<u8>> {
    use std::io::Read as _;
    let shown = path.display().to_string();
    let shown = escaped(&shown);
    let meta = std::fs::metadata(path)
        .with_context(|| format!("cannot read the component {shown} (pass --component PATH)"))?;
    anyhow::ensure!(
        meta.is_file() && meta.len() <= MAX_COMPONENT_BYTES,
        "the component {shown} is not a regular file of at most {} MiB",
        MAX_COMPONENT_BYTES >> 20
    );
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_COMPONENT_BYTES + 1).read_to_end(&mut bytes))
        .with_context(|| format!("cannot read the component {shown}"))?;
    anyhow::ensure!(
        bytes.len() as u64 <= MAX_COMPONENT_BYTES,
        "the component {shown} is larger than {} MiB",
        MAX_COMPONENT_BYTES >> 20
    );
    anyhow::ensure!(
        bytes.starts_with(b"\0asm"),
        "the session ran {shown}, which is not WebAssembly (a package's precompiled component.cwasm is native code): replay never runs native code from a recording; pass --component PATH to the provider's .wasm"
    );
    Ok(bytes)
}

/// `--pack`: each session gets the component it recorded, if it is still the same file and
/// WebAssembly (a package's session recorded its native code: pack its `.wasm` by hand).
fn pack(args: &Args) -> anyhow::Result<Totals> {
    let mut totals = Totals::default();
    for dir in sessions(&args.dir)? {
        let session = read_session(&dir)?.session;
        let from = &session.component;
        let bytes = read_component(from)?;
        if sha256(&bytes) != session.component_sha256 {
            anyhow::bail!(
                "{} is no longer the component {} recorded (its SHA-256 differs): pack on the machine and build that recorded it",
                escaped(&from.display().to_string()),
                escaped(&dir.display().to_string())
            );
        }
        let to = packed_path(&dir);
        crate::files::replace(&to, &bytes, 0o600)?;
        println!(
            "packed {} into {} ({} bytes, SHA-256 as recorded)",
            escaped(&from.display().to_string()),
            escaped(&to.display().to_string()),
            bytes.len()
        );
        totals.sessions += 1;
    }
    Ok(totals)
}

async fn replay(args: &Args) -> anyhow::Result<Totals> {
    if args.pack {
        return pack(args);
    }
    let mut totals = Totals::default();
    for dir in sessions(&args.dir)? {
        let recording = read_session(&dir)?;
        let (session, entries) = (&recording.session, &recording.entries);
        let packed = Some(packed_path(&dir)).filter(|p| p.is_file());
        // The operator's --component is theirs (with the settings beside it); a component
        // the recording names or carries is compiled here in the sandbox, with no settings.
        let (component, trust) = match (&args.component, &packed) {
            (Some(given), _) => (given.clone(), super::serve::Trust::Operator),
            (None, Some(packed)) => (packed.clone(), super::serve::Trust::Recording),
            (None, None) => (session.component.clone(), super::serve::Trust::Recording),
        };
        let bytes = match trust {
            super::serve::Trust::Operator => std::fs::read(&component)
                .with_context(|| format!("cannot read the component {}", component.display()))?,
            super::serve::Trust::Recording => read_component(&component)?,
        };
        if packed.as_ref() == Some(&component) && sha256(&bytes) != session.component_sha256 {
            anyhow::bail!(
                "{}: its SHA-256 is not the one the session recorded; the recording was changed after it was packed",
                component.display()
            );
        }
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        // A recording is someone else's file (a bug report): what it says is printed with its
        // control characters escaped, so it cannot move the cursor or forge lines.
        println!(
            "session {}: {} calls to {} (recorded by tfwasm {})",
            escaped(&name),
            entries.len(),
            escaped(&session.provider),
            escaped(&session.tfwasm)
        );
        if sha256(&bytes) != session.component_sha256 {
            println!(
                "  note: replaying {}, not the component recorded (its SHA-256 differs)",
                escaped(&component.display().to_string())
            );
        }
        if session.values == crate::record::Values::Redacted {
            println!(
                "  note: recorded with values = \"redacted\" (the default): calls that carry values cannot be replayed"
            );
        }
        // A fresh provider per session, as each session was a provider process. A recording
        // is often someone else's: replaying an API provider's apply with its grants would
        // change the real API, so grants come only when asked for, and are then listed.
        let mut granted = crate::config::GrantsConfig::default();
        let (provider, _) = super::serve::load_checked_from(
            &component,
            trust,
            args.cache_dir.clone(),
            tracing::Level::WARN,
            |config| {
                granted = std::mem::take(&mut config.grants);
                if args.with_grants {
                    config.grants = granted.clone();
                }
            },
        )?;
        println!("{}", grants_note(&granted, args.with_grants));
        let outcomes = replay_session(&provider, &recording).await;
        for (entry, outcome) in entries.iter().zip(&outcomes) {
            let call = format!(
                "{:06} {} {}",
                entry.seq,
                escaped(&entry.rpc),
                escaped(&entry.subject)
            );
            match outcome {
                Outcome::Same { placeholders } => {
                    totals.same += 1;
                    totals.placeholders += placeholders;
                    if args.verbose {
                        println!("  same     {call}{}", with_placeholders(*placeholders));
                    }
                }
                Outcome::Unrecorded => {
                    totals.unrecorded += 1;
                    println!("  skipped  {call}: its values were not recorded");
                }
                Outcome::Skipped(why) => {
                    totals.skipped += 1;
                    println!("  skipped  {call}: {}", escaped(why));
                }
                Outcome::Differs {
                    changes,
                    more,
                    placeholders,
                } => {
                    totals.differ += 1;
                    totals.placeholders += placeholders;
                    println!("  differs  {call}{}", with_placeholders(*placeholders));
                    for change in changes {
                        println!(
                            "      {}: recorded {}, replayed {}",
                            escaped(&change.path),
                            shown(&change.recorded),
                            shown(&change.replayed)
                        );
                    }
                    if *more > 0 {
                        println!("      ... and {more} more");
                    }
                }
            }
        }
        totals.sessions += 1;
        totals.calls += entries.len();
    }
    println!(
        "replayed {} calls in {} session{}: {} same, {} differ, {} skipped",
        totals.calls,
        totals.sessions,
        if totals.sessions == 1 { "" } else { "s" },
        totals.same,
        totals.differ,
        totals.skipped + totals.unrecorded
    );
    if totals.placeholders > 0 {
        println!(
            "{} redacted request values were replayed as placeholders; values redacted in the recording are not compared",
            totals.placeholders
        );
    }
    if totals.unrecorded > 0 {
        eprintln!(
            "error: {} calls could not be replayed: the recording kept no values (values = \"redacted\", the default, so that a recording holds no secret). To replay, record again with {}=non-sensitive (or [record] values = \"non-sensitive\" in tfwasm.toml), which keeps every value but those marked sensitive or write-only.",
            totals.unrecorded,
            crate::record::VALUES_ENV
        );
    }
    Ok(totals)
}

/// What a call's line says about placeholders in its request.
fn with_placeholders(count: usize) -> String {
    match count {
        0 => String::new(),
        1 => " (1 redacted value replayed as a placeholder)".into(),
        n => format!(" ({n} redacted values replayed as placeholders)"),
    }
}

/// A value in one line, cut at 120 characters.
fn shown(value: &serde_json::Value) -> String {
    // JSON escapes C0 controls only.
    let text = escaped(&value.to_string()).into_owned();
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The twenty-third hostile pass: a recording named `/dev/zero` (read without bound) and
    /// a package's native `component.cwasm` (run outside the sandbox) as its component.
    #[test]
    fn a_component_from_a_recording_is_a_bounded_regular_webassembly_file() {
        let error = read_component(Path::new("/dev/zero"))
            .unwrap_err()
            .to_string();
        assert!(error.contains("not a regular file"), "{error}");
        let dir = tempfile::tempdir().unwrap();
        let native = dir.path().join("component.cwasm");
        std::fs::write(&native, b"\x7fELF\x02\x01\x01").unwrap();
        let error = read_component(&native).unwrap_err().to_string();
        assert!(error.contains("never runs native code"), "{error}");
        let wasm = dir.path().join("component.wasm");
        std::fs::write(&wasm, b"\0asm\x0d\x00\x01\x00").unwrap();
        assert_eq!(read_component(&wasm).unwrap().len(), 8);
    }
}
