//! An agent loop embedding hookshot: before and after each tool call the
//! agent fires the event, and obeys what the hooks decide.
//!
//!     cargo run -p hookshot --example embed

use hookshot::{EventKind, HookSystem};
use serde_json::{Map, Value, json};

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), hookshot::Error> {
    // The user's settings, in any dialect (gemini, Claude Code, jcli).
    let hooks = HookSystem::builder()
        .settings("examples/gemini/settings.json")
        .build()?;

    // The tool calls a model might ask for.
    let calls = [
        ("write_file", json!({"file_path": "notes.txt", "content": "hi"})),
        ("write_file", json!({"file_path": "app/.env", "content": "TOKEN=1"})),
        ("run_shell_command", json!({"command": "git push --force"})),
    ];
    for (tool, mut args) in calls {
        let before = hooks
            .fire(
                EventKind::BeforeTool,
                obj(json!({"tool_name": tool, "tool_input": args})),
            )
            .await;
        if before.is_blocked() {
            println!("{tool}: refused: {}", before.block_reason());
            continue;
        }
        // Hooks may rewrite the input; run the tool with what they left.
        if let (Some(overlay), Some(a)) = (before.output.tool_input, args.as_object_mut()) {
            a.extend(overlay);
        }
        let result = format!("ran {tool} with {args}");
        let input = obj(json!({"tool_name": tool, "tool_input": args, "tool_response": result}));
        let after = hooks.fire(EventKind::AfterTool, input).await;
        let context = after.output.additional_context.unwrap_or_default();
        println!("{tool}: {result} {context}");
    }
    for s in hooks.metrics() {
        println!(
            "hook {}: {} runs, {} blocked, p99 {} ms",
            s.hook, s.runs, s.blocks, s.p99_ms
        );
    }
    Ok(())
}
