//! `hookshot serve`: the sidecar, JSON-RPC 2.0 on stdio and a Unix socket.

use std::path::PathBuf;

use crate::fail::Fail;
use crate::load::{Sources, build, print_load_warnings};

#[derive(clap::Args, Debug)]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    sources: Sources,
    /// Also listen on this Unix socket (created 0600; an existing file
    /// that is not a socket, or a live server's socket, is refused).
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Close a connection that sends nothing for this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=86400))]
    idle_timeout: u64,
    /// Socket connections served at once.
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65536))]
    max_connections: u64,
    /// Also save each event's input and answer as a `hookshot test` case
    /// in this directory (one file per event), as `fire --record` does.
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
}

pub(crate) async fn run(args: ServeArgs) -> Result<u8, Fail> {
    let hooks = build(&args.sources)?;
    print_load_warnings(&hooks);
    let limits = hookshot::serve::Limits {
        idle_timeout: std::time::Duration::from_secs(args.idle_timeout),
        max_connections: args.max_connections as usize,
        ..Default::default()
    };
    let observer = (args.record.is_some() || crate::telemetry::counting()).then(|| {
        let (sources, record) = (args.sources.clone(), args.record.clone());
        hookshot::serve::Observer {
            with_input: record.is_some(),
            on_fire: std::sync::Arc::new(move |fired: hookshot::serve::Fired<'_>| {
                crate::telemetry::record(fired.outcome);
                if let (Some(dir), Some(input)) = (&record, fired.input) {
                    let code = if fired.outcome.is_blocked() { 2 } else { 0 };
                    let case = crate::case::Case::recorded(
                        dir,
                        fired.event,
                        input,
                        None,
                        &sources,
                        &fired.output.to_string(),
                        code,
                    );
                    crate::case::record(dir, &case);
                }
            }),
        }
    });
    hookshot::serve::serve_with(hooks, args.socket, limits, observer)
        .await
        .map_err(|e| Fail::Usage(format!("serve: {e}")))?;
    Ok(0)
}
