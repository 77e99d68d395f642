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
/// the component cannot be used.
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
        Ok(Totals { differ: 0, .. }) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(error) => {
            eprintln!("error: {error:#}");
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
}

async fn replay(args: &Args) -> anyhow::Result<Totals> {
    let mut totals = Totals::default();
    for dir in sessions(&args.dir)? {
        let (session, entries) = read_session(&dir)?;
        let component = args.component.clone().unwrap_or(session.component.clone());
        let bytes = std::fs::read(&component).with_context(|| {
            format!(
                "cannot read the component {} (pass --component PATH)",
                component.display()
            )
        })?;
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        println!(
            "session {name}: {} calls to {} (recorded by tfwasm {})",
            entries.len(),
            session.provider,
            session.tfwasm
        );
        if hex::encode(sha2::Sha256::digest(&bytes)) != session.component_sha256 {
            println!(
                "  note: replaying {}, not the component recorded (its SHA-256 differs)",
                component.display()
            );
        }
        // A fresh provider per session, as each session was a provider process.
        let (provider, _) =
            super::serve::load_checked(&component, args.cache_dir.clone(), tracing::Level::WARN)?;
        let outcomes = replay_session(&provider, &entries).await;
        for (entry, outcome) in entries.iter().zip(&outcomes) {
            let call = format!("{:06} {} {}", entry.seq, entry.rpc, entry.subject);
            match outcome {
                Outcome::Same => {
                    totals.same += 1;
                    if args.verbose {
                        println!("  same     {call}");
                    }
                }
                Outcome::Skipped(why) => {
                    totals.skipped += 1;
                    println!("  skipped  {call}: {why}");
                }
                Outcome::Differs(changes) => {
                    totals.differ += 1;
                    println!("  differs  {call}");
                    for change in changes.iter().take(MAX_CHANGES_SHOWN) {
                        println!(
                            "      {}: recorded {}, replayed {}",
                            change.path,
                            shown(&change.recorded),
                            shown(&change.replayed)
                        );
                    }
                    if changes.len() > MAX_CHANGES_SHOWN {
                        println!("      ... and {} more", changes.len() - MAX_CHANGES_SHOWN);
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
        totals.skipped
    );
    Ok(totals)
}

const MAX_CHANGES_SHOWN: usize = 10;

/// A value in one line, cut at 120 characters.
fn shown(value: &serde_json::Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(120) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}
