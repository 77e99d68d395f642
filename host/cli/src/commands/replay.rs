//! `tfwasm replay DIR`: runs a recording's requests against a component and reports every
//! response that differs from the recorded one.

use std::path::PathBuf;
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

async fn replay(args: &Args) -> anyhow::Result<Totals> {
    let mut totals = Totals::default();
    for dir in sessions(&args.dir)? {
        let recording = read_session(&dir)?;
        let (session, entries) = (&recording.session, &recording.entries);
        let component = args.component.clone().unwrap_or(session.component.clone());
        let bytes = std::fs::read(&component).with_context(|| {
            format!(
                "cannot read the component {} (pass --component PATH)",
                component.display()
            )
        })?;
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
        if hex::encode(sha2::Sha256::digest(&bytes)) != session.component_sha256 {
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
        // A fresh provider per session, as each session was a provider process.
        let (provider, _) =
            super::serve::load_checked(&component, args.cache_dir.clone(), tracing::Level::WARN)?;
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
