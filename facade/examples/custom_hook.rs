//! A custom in-process hook, registered for the session at run time: it
//! rewrites tool input (redirects writes into a sandbox folder) and adds
//! context for the model.
//!
//!     cargo run -p hookshot --example custom_hook

use std::sync::Arc;

use hookshot::{EventKind, Hook, HookOutput, HookSystem};
use serde_json::{Map, Value, json};

#[derive(Debug)]
struct Sandbox {
    dir: &'static str,
}

impl Hook for Sandbox {
    fn call(&self, _event: EventKind, input: &Map<String, Value>) -> HookOutput {
        let Some(path) = input["tool_input"]["file_path"].as_str() else {
            return HookOutput::default();
        };
        if path.starts_with(self.dir) {
            return HookOutput::default();
        }
        let mut overlay = Map::new();
        overlay.insert("file_path".into(), json!(format!("{}/{path}", self.dir)));
        HookOutput {
            tool_input: Some(overlay),
            additional_context: Some(format!("writes are redirected into {}/", self.dir)),
            ..HookOutput::default()
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), hookshot::Error> {
    let mut hooks = HookSystem::builder().build()?;
    hooks.register(EventKind::BeforeTool, "sandbox", Arc::new(Sandbox { dir: "sandbox" }))?;
    let input = json!({"tool_name": "write_file", "tool_input": {"file_path": "report.md", "content": "# Report"}});
    let outcome = hooks
        .fire(EventKind::BeforeTool, input.as_object().cloned().unwrap_or_default())
        .await;
    let args = outcome.output.tool_input.unwrap_or_default();
    println!("write_file runs with file_path = {}", args["file_path"]);
    println!(
        "the model is told: {}",
        outcome.output.additional_context.unwrap_or_default()
    );
    Ok(())
}
