//! `hookshot replay`: a recorded model session through the reference agent
//! loop, with the hooks of the given sources.

use std::io::Write;
use std::path::PathBuf;

use hookshot_replay::{Ending, ReplayError, ReplayOptions};

use crate::fail::Fail;
use crate::load::{Sources, build};

#[derive(clap::Args, Debug)]
pub(crate) struct ReplayArgs {
    /// The `.responses` fixture.
    fixture: PathBuf,
    #[command(flatten)]
    sources: Sources,
    /// The user's prompt.
    #[arg(long, default_value = "")]
    prompt: String,
    /// Write every step as JSON Lines here.
    #[arg(long, value_name = "OUT.jsonl")]
    transcript: Option<PathBuf>,
}

pub(crate) async fn run(args: ReplayArgs) -> Result<u8, Fail> {
    let hooks = build(&args.sources)?;
    let opts = ReplayOptions {
        fixture: args.fixture,
        prompt: args.prompt,
        transcript: args.transcript,
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let ended = hookshot_replay::replay(&hooks, &opts, &mut out).await;
    hooks.shutdown().await;
    match ended {
        Ok(Ending::Completed) | Ok(Ending::Stopped(_)) => Ok(0),
        Err(ReplayError::Fixture(e)) => {
            let _ = out.flush();
            eprintln!("hookshot: {e}");
            Ok(3)
        }
        Err(e) => Err(Fail::Usage(e.to_string())),
    }
}
