//! `hookshot serve`: a JSON-RPC 2.0 sidecar, one message per line, so agents
//! written in any language can fire events without linking Rust.
//!
//! Methods: `fire {"event", "input"}` -> `{"blocked", "output"}` (output in
//! the event name's dialect, plus `reason` when blocked and `warnings`);
//! `list` -> the effective hooks; `stats` -> per-hook metrics of this
//! process; `shutdown` -> answers, then the server ends. Requests are handled concurrently (answers carry their ids); a bad
//! line gets a JSON-RPC error and never ends the server; notifications (no
//! id) get no answer.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, watch};

use crate::{EventKind, HookSystem};

/// Longest line accepted; longer lines are refused without being kept.
const MAX_LINE: usize = 16 << 20;

fn error(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

fn ok(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// Answers one request line; `None` for notifications. The flag is set
/// when the request was `shutdown`.
pub async fn handle(hooks: &HookSystem, line: &str) -> (Option<Value>, bool) {
    let msg: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return (Some(error(Value::Null, -32700, format!("parse error: {e}"))), false),
    };
    let Some(obj) = msg.as_object() else {
        return (
            Some(error(Value::Null, -32600, "invalid request: expected a JSON object")),
            false,
        );
    };
    let id = obj.get("id").cloned();
    let reply = |v: Value| id.as_ref().map(|_| v);
    let rid = id.clone().unwrap_or(Value::Null);
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return (
            reply(error(rid, -32600, "invalid request: \"jsonrpc\" must be \"2.0\"")),
            false,
        );
    }
    let Some(method) = obj.get("method").and_then(Value::as_str) else {
        return (reply(error(rid, -32600, "invalid request: missing \"method\"")), false);
    };
    let params = obj.get("params").cloned().unwrap_or(Value::Null);
    match method {
        "fire" => {
            let Some(name) = params.get("event").and_then(Value::as_str) else {
                return (
                    reply(error(
                        rid,
                        -32602,
                        "invalid params: \"event\" (an event name) is required",
                    )),
                    false,
                );
            };
            let Some((event, dialect)) = EventKind::parse(name) else {
                let hint = hookshot_core::suggest::did_you_mean(name, EventKind::all_names())
                    .map(|s| format!("; did you mean \"{s}\"?"))
                    .unwrap_or_default();
                return (
                    reply(error(rid, -32602, format!("unknown event \"{name}\"{hint}"))),
                    false,
                );
            };
            let input: Map<String, Value> = match params.get("input") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(m)) => m.clone(),
                Some(_) => {
                    return (
                        reply(error(rid, -32602, "invalid params: \"input\" must be an object")),
                        false,
                    );
                }
            };
            let outcome = hooks.fire(event, input).await;
            let mut result = json!({"blocked": outcome.is_blocked(), "output": outcome.render(dialect)});
            if outcome.is_blocked() {
                result["reason"] = json!(outcome.block_reason());
            }
            if !outcome.warnings.is_empty() {
                result["warnings"] = json!(outcome.warnings);
            }
            (reply(ok(rid, result)), false)
        }
        "list" => (reply(ok(rid, hooks.describe_hooks())), false),
        "stats" => (
            reply(ok(rid, serde_json::to_value(hooks.metrics()).unwrap_or_default())),
            false,
        ),
        "shutdown" => (reply(ok(rid, Value::Null)), true),
        other => (reply(error(rid, -32601, format!("method not found: {other}"))), false),
    }
}

/// Serves one connection until it closes or `shutdown` is asked (which also
/// tells every other connection, through `stop`).
pub async fn serve_connection<R, W>(hooks: Arc<HookSystem>, reader: R, writer: W, stop: watch::Sender<bool>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let writer = Arc::new(Mutex::new(writer));
    let mut lines = BufReader::new(reader);
    let mut stopped = stop.subscribe();
    let mut tasks = tokio::task::JoinSet::new();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = tokio::select! {
            r = hookshot_runner::read_capped_line(&mut lines, &mut buf, MAX_LINE) => r,
            _ = stopped.changed() => break,
        };
        match read {
            Ok(None) => break,
            Ok(Some(false)) => {
                let e = error(
                    Value::Null,
                    -32600,
                    format!("invalid request: line longer than {MAX_LINE} bytes"),
                );
                write_line(&writer, &e).await;
                continue;
            }
            Ok(Some(true)) => {}
            Err(_) => break,
        }
        let line = String::from_utf8_lossy(&buf).trim().to_string();
        if line.is_empty() {
            continue;
        }
        let hooks = Arc::clone(&hooks);
        let writer = Arc::clone(&writer);
        let stop = stop.clone();
        tasks.spawn(async move {
            let (answer, shutdown) = handle(&hooks, &line).await;
            if let Some(a) = answer {
                write_line(&writer, &a).await;
            }
            if shutdown {
                let _ = stop.send(true);
            }
        });
    }
    while tasks.join_next().await.is_some() {}
}

async fn write_line<W: AsyncWrite + Unpin>(writer: &Mutex<W>, v: &Value) {
    let mut w = writer.lock().await;
    let mut line = v.to_string();
    line.push('\n');
    let _ = w.write_all(line.as_bytes()).await;
    let _ = w.flush().await;
}

/// Serves stdin/stdout, and a Unix socket at `socket` if given, until
/// `shutdown` (or until stdin closes when there is no socket).
pub async fn serve(hooks: HookSystem, socket: Option<std::path::PathBuf>) -> std::io::Result<()> {
    let hooks = Arc::new(hooks);
    let (stop, _) = watch::channel(false);
    let stdio = serve_connection(
        Arc::clone(&hooks),
        tokio::io::stdin(),
        tokio::io::stdout(),
        stop.clone(),
    );
    let Some(path) = socket else {
        stdio.await;
        hooks.shutdown().await;
        return Ok(());
    };
    let _ = std::fs::remove_file(&path);
    let listener = tokio::net::UnixListener::bind(&path)?;
    let mut stopped = stop.subscribe();
    let accept = async {
        loop {
            tokio::select! {
                conn = listener.accept() => {
                    let Ok((stream, _)) = conn else { continue };
                    let (r, w) = stream.into_split();
                    tokio::spawn(serve_connection(Arc::clone(&hooks), r, w, stop.clone()));
                }
                _ = stopped.changed() => break,
            }
        }
    };
    // With a socket, the server lives until shutdown even if stdin closes.
    tokio::join!(stdio, accept);
    let _ = std::fs::remove_file(&path);
    hooks.shutdown().await;
    Ok(())
}
