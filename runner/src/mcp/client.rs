//! The MCP client: servers started on first call, kept per definition.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use hookshot_core::{Failure, FailureKind, McpStdio};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use serde_json::{Map, Value};
use tokio::io::AsyncReadExt;
use tokio::process::{Child, Command};
use tokio::sync::Mutex;
use tokio::time::Instant;

use super::ToolAnswer;
use crate::RunEnv;
use crate::groups::OwnedGroup;

/// Bytes of a server's stderr kept for messages.
pub const STDERR_TAIL: usize = 4096;

/// A running server.
struct Server {
    client: RunningService<RoleClient, ()>,
    child: Child,
    // Dropped with the server: kills what is left of its group.
    _group: OwnedGroup,
    stderr: Arc<StdMutex<String>>,
}

impl Server {
    fn stderr(&self) -> String {
        tail(&self.stderr)
    }
}

fn tail(buf: &StdMutex<String>) -> String {
    buf.lock().map(|s| s.trim().to_string()).unwrap_or_default()
}

type Slot = Arc<Mutex<Option<Server>>>;

/// The MCP servers hooks have called, by definition.
#[derive(Default)]
pub struct McpPool {
    servers: StdMutex<HashMap<McpStdio, Slot>>,
}

impl std::fmt::Debug for McpPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.servers.lock().map(|s| s.len()).unwrap_or(0);
        f.debug_struct("McpPool").field("servers", &n).finish()
    }
}

fn with_stderr(message: String, stderr: &str) -> String {
    if stderr.is_empty() {
        message
    } else {
        format!("{message}; it said: {stderr}")
    }
}

impl McpPool {
    /// Calls `tool` with `arguments` on the server `name` (started with
    /// `spec` if it is not running), all by `deadline`.
    pub async fn call(
        &self,
        name: &str,
        spec: &McpStdio,
        tool: &str,
        arguments: Option<Map<String, Value>>,
        env: &RunEnv,
        deadline: Instant,
    ) -> Result<ToolAnswer, Failure> {
        let slot = {
            let mut servers = self.servers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            Arc::clone(servers.entry(spec.clone()).or_default())
        };
        let late = || {
            Failure::new(
                FailureKind::Timeout,
                format!("the MCP server \"{name}\" did not answer in time"),
            )
        };
        let peer = {
            let mut guard = tokio::time::timeout_at(deadline, slot.lock())
                .await
                .map_err(|_| late())?;
            let server = match guard.take().filter(|s| !s.client.is_closed()) {
                Some(running) => guard.insert(running),
                None => guard.insert(start(name, spec, env, deadline).await?),
            };
            server.client.peer().clone()
        };
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = arguments;
        match tokio::time::timeout_at(deadline, peer.call_tool(params)).await {
            Ok(Ok(result)) => Ok(ToolAnswer {
                text: text_of(&result),
                is_error: result.is_error == Some(true),
            }),
            Ok(Err(ServiceError::McpError(e))) => Err(Failure::new(
                FailureKind::Protocol,
                format!("the MCP server \"{name}\" refused to call {tool}: {}", e.message),
            )),
            Ok(Err(e)) => {
                // The connection is broken: the next call starts it again.
                let said = slot.lock().await.take().map(|s| s.stderr()).unwrap_or_default();
                Err(Failure::new(
                    FailureKind::Crash,
                    with_stderr(
                        format!("the MCP server \"{name}\" failed while calling {tool}: {e}"),
                        &said,
                    ),
                ))
            }
            Err(_) => Err(Failure::new(
                FailureKind::Timeout,
                format!("the MCP server \"{name}\" did not answer {tool} in time"),
            )),
        }
    }

    /// Ends every server: its input is closed, it has `grace` to go, then
    /// its group is killed.
    pub async fn shutdown(&self, grace: Duration) {
        let slots: Vec<Slot> = self
            .servers
            .lock()
            .map(|mut s| s.drain().map(|(_, slot)| slot).collect())
            .unwrap_or_default();
        let deadline = Instant::now() + grace;
        for slot in slots {
            if let Some(mut server) = slot.lock().await.take() {
                let _ = tokio::time::timeout_at(deadline, server.client.close()).await;
                if tokio::time::timeout_at(deadline, server.child.wait()).await.is_err() {
                    // Killed and reaped here, not left to exit after
                    // hookshot: no zombie outlives the session.
                    let _ = server.child.kill().await;
                }
            }
        }
    }
}

/// Starts the server and completes MCP's handshake, by `deadline`.
async fn start(name: &str, spec: &McpStdio, env: &RunEnv, deadline: Instant) -> Result<Server, Failure> {
    let mut cmd = Command::new(&spec.command);
    cmd.args(&spec.args)
        .current_dir(spec.cwd.as_ref().unwrap_or(&env.cwd))
        .envs(env.vars.iter().map(|(k, v)| (k, v)))
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(|e| {
        Failure::new(
            FailureKind::Spawn,
            format!(
                "could not start the MCP server \"{name}\" ({}, defined in {}): {e}",
                spec.command,
                spec.defined_in.display()
            ),
        )
    })?;
    let group = OwnedGroup::new(child.id());
    let stderr: Arc<StdMutex<String>> = Arc::default();
    if let Some(mut err) = child.stderr.take() {
        let keep = Arc::clone(&stderr);
        tokio::spawn(async move {
            let mut buf = [0u8; 2048];
            while let Ok(n) = err.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                if let Ok(mut s) = keep.lock() {
                    s.push_str(&String::from_utf8_lossy(&buf[..n]));
                    if s.len() > STDERR_TAIL {
                        let mut cut = s.len() - STDERR_TAIL;
                        while !s.is_char_boundary(cut) {
                            cut += 1;
                        }
                        s.drain(..cut);
                    }
                }
            }
        });
    }
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(Failure::new(
            FailureKind::Spawn,
            format!("the MCP server \"{name}\" has no pipes"),
        ));
    };
    let handshake = tokio::time::timeout_at(deadline, ().serve((stdout, stdin))).await;
    let client = match handshake {
        Ok(Ok(client)) => client,
        Ok(Err(e)) => {
            // Give a dying server a moment to say why.
            let _ = tokio::time::timeout(Duration::from_millis(200), child.wait()).await;
            return Err(Failure::new(
                FailureKind::Protocol,
                with_stderr(
                    format!("the MCP server \"{name}\" did not complete MCP's handshake: {e}"),
                    &tail(&stderr),
                ),
            ));
        }
        Err(_) => {
            return Err(Failure::new(
                FailureKind::Timeout,
                with_stderr(
                    format!("the MCP server \"{name}\" did not complete MCP's handshake in time"),
                    &tail(&stderr),
                ),
            ));
        }
    };
    Ok(Server {
        client,
        child,
        _group: group,
        stderr,
    })
}

/// The text a tool answered, as a command's stdout: its text blocks, one
/// per line.
fn text_of(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}
