//! LLM prompt hooks (jcli `type: llm`): a prompt template rendered with the
//! event's fields is sent through a [`ModelClient`]; the JSON object in the
//! answer (from the first `{` to the last `}`) is the hook's output.

use std::future::Future;
use std::pin::Pin;

use hookshot_core::{Dialect, EventKind, input::for_dialect};
use serde_json::{Map, Value};

/// What the model answers: its text, or why there is none.
pub type Completion<'a> = Pin<Box<dyn Future<Output = Result<String, String>> + Send + 'a>>;

/// One model turn: its content (`{"role": "model", "parts": [...]}`), or
/// why there is none.
pub type Turn<'a> = Pin<Box<dyn Future<Output = Result<Value, String>> + Send + 'a>>;

/// A model that answers prompts. Embedders plug in their provider; the
/// replay crate's `HookModel` answers from a recorded `.responses` file.
pub trait ModelClient: Send + Sync + std::fmt::Debug {
    /// Completes `prompt`, with `model` overriding the client's default.
    fn complete<'a>(&'a self, prompt: &'a str, model: Option<&'a str>) -> Completion<'a>;

    /// One turn of a conversation that may call tools (agent hooks):
    /// `contents` and `tools` in the Gemini API's shape; the answer holds
    /// text and `functionCall` parts. By default the conversation's text
    /// is completed, so a text-only client answers without tools.
    fn turn<'a>(&'a self, contents: &'a [Value], _tools: &'a [Value], model: Option<&'a str>) -> Turn<'a> {
        let text: String = contents
            .iter()
            .flat_map(|c| c.get("parts").and_then(Value::as_array).into_iter().flatten())
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n\n");
        Box::pin(async move {
            let answer = self.complete(&text, model).await?;
            Ok(serde_json::json!({"role": "model", "parts": [{"text": answer}]}))
        })
    }
}

/// Appended to every prompt, as jcli does: the answer must be a HookResult.
const FORMAT: &str = "\n\nAnswer with one JSON object only (a hook result), for example {} to change nothing, \
{\"action\": \"stop\", \"retry_feedback\": \"why\"} to stop with feedback, or {\"decision\": \"block\", \"reason\": \"why\"}.";

/// Renders `{{name}}` placeholders from the event's fields as jcli names
/// them (`event`, `user_input`, `assistant_output`, `tool_name`,
/// `tool_arguments`, `tool_result`, `model`, `cwd`, ...); strings as they
/// are, other values as JSON, unknown names as nothing.
pub fn render(template: &str, event: EventKind, canonical: &Map<String, Value>) -> String {
    let fields = for_dialect(event, Dialect::Jcli, canonical);
    let filled = hookshot_core::subst::delimited(template, "{{", "}}", |name| {
        Ok::<_, std::convert::Infallible>(match fields.get(name.trim()) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(v) => v.to_string(),
        })
    });
    let mut out = filled.unwrap_or_else(|never| match never {});
    out.push_str(FORMAT);
    out
}

/// The JSON object in a model's answer: from the first `{` to the last `}`.
pub fn extract_json(answer: &str) -> Result<Map<String, Value>, String> {
    let (Some(a), Some(b)) = (answer.find('{'), answer.rfind('}')) else {
        return Err("the model's answer holds no JSON object".into());
    };
    if b < a {
        return Err("the model's answer holds no JSON object".into());
    }
    match serde_json::from_str::<Value>(&answer[a..=b]) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err("the model's answer is not a JSON object".into()),
        Err(e) => Err(format!("the model's answer is not valid JSON: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_jcli_names() {
        let input = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "prompt": "hi"});
        let r = render(
            "tool={{tool_name}} args={{ tool_arguments }} in={{user_input}} none={{nope}} {{unclosed",
            EventKind::BeforeTool,
            input.as_object().unwrap(),
        );
        assert!(
            r.starts_with("tool=Bash args={\"command\":\"ls\"} in=hi none= {{unclosed"),
            "{r}"
        );
        assert!(r.contains("Answer with one JSON object"));
    }

    #[test]
    fn extracts_the_outermost_object() {
        let m =
            extract_json("Sure! Here it is:\n```json\n{\"action\": \"skip\", \"x\": {\"y\": 1}}\n``` done").unwrap();
        assert_eq!(m["action"], "skip");
        assert!(extract_json("no json here").is_err());
        assert!(extract_json("} backwards {").is_err());
        assert!(extract_json("{not json}").is_err());
    }
}
