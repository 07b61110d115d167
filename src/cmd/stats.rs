//! `hookshot stats`: per-hook figures from an audit log or a live sidecar.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::audit_file::{configured_audit_log, located};
use crate::fail::Fail;

#[derive(clap::Args, Debug)]
pub(crate) struct StatsArgs {
    /// The audit log (JSON Lines written by the audit_log built-in);
    /// rotated files beside it (`.1`, `.2`, ...) are read too. Default:
    /// the one your settings configure. A relative name not found here is
    /// looked for where the built-in puts it ($XDG_STATE_HOME/hookshot/).
    #[arg(long, value_name = "FILE")]
    audit: Option<PathBuf>,
    /// Ask a running `hookshot serve --socket PATH` instead.
    #[arg(long, value_name = "PATH", conflicts_with = "audit")]
    socket: Option<PathBuf>,
    /// As JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: StatsArgs) -> Result<u8, Fail> {
    let StatsArgs { audit, socket, json } = args;
    let stats = match (audit, socket) {
        (_, Some(socket)) => live_stats(&socket)?,
        (audit, None) => {
            let audit = match audit {
                Some(named) => located(named),
                None => configured_audit_log()?,
            };
            let (rows, lost) = audit_stats(&audit)?;
            if lost.total() > 0 {
                // Not a row: the JSON rows stay one per hook.
                let line = format!(
                    "audit records lost: {} ({} dropped while the writer was behind, {} not written{})",
                    lost.total(),
                    lost.dropped,
                    lost.failed,
                    lost.error.map(|e| format!(": {e}")).unwrap_or_default()
                );
                if json {
                    eprintln!("hookshot: {line}");
                } else {
                    print_stats(&rows, false);
                    println!("{line}");
                    return Ok(0);
                }
            }
            rows
        }
    };
    print_stats(&stats, json);
    Ok(0)
}

fn audit_stats(audit: &Path) -> Result<(Vec<Value>, hookshot::metrics::Lost), Fail> {
    let mut text = std::fs::read_to_string(audit).map_err(|e| Fail::Usage(format!("{}: {e}", audit.display())))?;
    for i in 1.. {
        let mut rotated = audit.as_os_str().to_owned();
        rotated.push(format!(".{i}"));
        match std::fs::read_to_string(PathBuf::from(rotated)) {
            Ok(t) => text.push_str(&t),
            Err(_) => break,
        }
    }
    let rows = hookshot::metrics::Metrics::from_audit(&text)
        .snapshot()
        .iter()
        .filter_map(|s| serde_json::to_value(s).ok())
        .collect();
    Ok((rows, hookshot::metrics::Lost::in_audit(&text)))
}

/// Asks a running sidecar for its metrics (the `stats` method).
fn live_stats(socket: &Path) -> Result<Vec<Value>, Fail> {
    use std::io::BufRead;
    let fail = |e: std::io::Error| Fail::Usage(format!("{}: {e}", socket.display()));
    let mut stream = std::os::unix::net::UnixStream::connect(socket).map_err(fail)?;
    writeln!(stream, "{}", json!({"jsonrpc": "2.0", "id": 1, "method": "stats"})).map_err(fail)?;
    let mut line = String::new();
    std::io::BufReader::new(&stream).read_line(&mut line).map_err(fail)?;
    let answer: Value =
        serde_json::from_str(&line).map_err(|e| Fail::Usage(format!("{}: bad answer: {e}", socket.display())))?;
    Ok(answer["result"].as_array().cloned().unwrap_or_default())
}

fn print_stats(rows: &[Value], as_json: bool) {
    if as_json {
        println!("{}", Value::Array(rows.to_vec()));
        return;
    }
    println!(
        "{:<40} {:>8} {:>8} {:>8} {:>8} {:>10} {:>10} {:>10}",
        "hook", "runs", "failed", "timeout", "blocked", "mean ms", "p50 ms", "p99 ms"
    );
    for r in rows {
        let n = |k: &str| r[k].as_f64().unwrap_or(0.0);
        println!(
            "{:<40} {:>8} {:>8} {:>8} {:>8} {:>10.2} {:>10.2} {:>10.2}",
            r["hook"].as_str().unwrap_or(""),
            n("runs"),
            n("failures"),
            n("timeouts"),
            n("blocks"),
            n("mean_ms"),
            n("p50_ms"),
            n("p99_ms")
        );
    }
}
