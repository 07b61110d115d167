//! Translation between the model's wire format (Gemini API `contents` /
//! `parts`, as recorded in `.responses` fixtures) and the stable,
//! SDK-independent `llm_request` / `llm_response` shapes hooks see.
//!
//! The hook shapes carry text only. gemini-cli rebuilds the whole request
//! from them, so a hook that merely edits the prompt's text loses tool calls,
//! function responses and history (gemini-cli issue #25558). Here an edit is
//! applied *onto* the wire request: each hook message maps back to the
//! content it came from, and only text parts change. Everything a hook did
//! not touch survives.

use serde_json::{Map, Value, json};

const SAMPLING_KEYS: &[&str] = &[
    "temperature",
    "maxOutputTokens",
    "topP",
    "topK",
    "stopSequences",
    "candidateCount",
    "presencePenalty",
    "frequencyPenalty",
];

fn text_of_parts(parts: &[Value]) -> String {
    parts
        .iter()
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect()
}

fn parts_of(content: &Value) -> &[Value] {
    content
        .get("parts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The indexes of the wire contents that carry text: message `i` of the hook
/// request comes from content `text_contents(..)[i]`.
fn text_contents(contents: &[Value]) -> Vec<usize> {
    contents
        .iter()
        .enumerate()
        .filter(|(_, c)| !text_of_parts(parts_of(c)).is_empty())
        .map(|(i, _)| i)
        .collect()
}

/// The hook view of a wire request.
pub fn to_hook_request(wire: &Value) -> Value {
    let contents = wire
        .get("contents")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let messages: Vec<Value> = text_contents(contents)
        .into_iter()
        .map(|i| {
            let c = &contents[i];
            json!({
                "role": c.get("role").and_then(Value::as_str).unwrap_or("user"),
                "content": text_of_parts(parts_of(c)),
            })
        })
        .collect();
    let mut config = Map::new();
    if let Some(cfg) = wire.get("config").and_then(Value::as_object) {
        for k in SAMPLING_KEYS {
            if let Some(v) = cfg.get(*k) {
                config.insert((*k).into(), v.clone());
            }
        }
    }
    let mut req = json!({
        "model": wire.get("model").cloned().unwrap_or(json!("")),
        "messages": messages,
        "config": config,
    });
    if let Some(fcc) = wire.pointer("/toolConfig/functionCallingConfig") {
        req["toolConfig"] = fcc.clone();
    }
    let tools: Vec<Value> = wire
        .pointer("/config/tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| t.get("functionDeclarations").and_then(Value::as_array))
        .flatten()
        .map(|d| json!({"type": "function", "function": d}))
        .collect();
    if !tools.is_empty() {
        req["tools"] = Value::Array(tools);
    }
    req
}

/// Function declarations from a hook's `tools` list (`{type: "function",
/// function: {...}}` as picoclaw and OpenAI write them, or bare
/// declarations).
fn declarations(tools: &[Value]) -> Vec<Value> {
    tools
        .iter()
        .filter_map(|t| {
            t.get("function")
                .or(Some(t))
                .filter(|d| d.get("name").is_some())
                .cloned()
        })
        .collect()
}

fn message_text(m: &Value) -> String {
    match m.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| i.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        Some(other) if !other.is_null() => other.to_string(),
        _ => String::new(),
    }
}

fn wire_role(m: &Value) -> &str {
    match m.get("role").and_then(Value::as_str) {
        Some("model") | Some("assistant") => "model",
        Some("system") => "system",
        _ => "user",
    }
}

/// Applies a hook's (possibly partial) `llm_request` onto the wire request.
///
/// Messages: when the hook returns as many messages as there were, each
/// replaces the text of the content it came from, keeping that content's
/// other parts (function calls and responses); a different count means the
/// hook rewrote the conversation, and the contents become its messages.
pub fn apply_hook_request(wire: &mut Value, hook: &Value) {
    if !wire.is_object() {
        *wire = json!({});
    }
    if let Some(model) = hook.get("model").and_then(Value::as_str).filter(|m| !m.is_empty()) {
        wire["model"] = json!(model);
    }
    if let Some(messages) = hook.get("messages").and_then(Value::as_array) {
        let contents: Vec<Value> = wire
            .get("contents")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mapping = text_contents(&contents);
        let new_contents = if mapping.len() == messages.len() {
            let mut contents = contents;
            for (m, &i) in messages.iter().zip(&mapping) {
                let keep: Vec<Value> = parts_of(&contents[i])
                    .iter()
                    .filter(|p| p.get("text").is_none())
                    .cloned()
                    .collect();
                let text = message_text(m);
                let mut parts = Vec::with_capacity(keep.len() + 1);
                if !text.is_empty() {
                    parts.push(json!({"text": text}));
                }
                parts.extend(keep);
                contents[i] = json!({"role": wire_role(m), "parts": parts});
            }
            contents
        } else {
            messages
                .iter()
                .map(|m| json!({"role": wire_role(m), "parts": [{"text": message_text(m)}]}))
                .collect()
        };
        wire["contents"] = Value::Array(new_contents);
    }
    // jcli replaces the system prompt outright.
    if let Some(sp) = hook.get("system_prompt").and_then(Value::as_str) {
        let config = config_mut(wire);
        config["systemInstruction"] = json!({"parts": [{"text": sp}]});
    }
    if let Some(tools) = hook.get("tools").and_then(Value::as_array) {
        let config = config_mut(wire);
        config["tools"] = json!([{"functionDeclarations": declarations(tools)}]);
    }
    // `options` is picoclaw's name for the sampling config.
    if let Some(cfg) = hook
        .get("config")
        .or_else(|| hook.get("options"))
        .and_then(Value::as_object)
    {
        let target = config_mut(wire);
        if let Some(t) = target.as_object_mut() {
            for (k, v) in cfg {
                t.insert(k.clone(), v.clone());
            }
        }
    }
    if let Some(tc) = hook.get("toolConfig") {
        apply_tool_config(wire, tc);
    }
}

/// The request's `config` object, created if missing (on an object `wire`).
fn config_mut(wire: &mut Value) -> &mut Value {
    if !wire.is_object() {
        *wire = json!({});
    }
    wire.as_object_mut()
        .expect("made an object above")
        .entry("config")
        .or_insert_with(|| json!({}))
}

/// Appends a hook-shaped message (`{role, content}`) to the request.
pub fn append_message(wire: &mut Value, message: &Value) {
    let content = json!({"role": wire_role(message), "parts": [{"text": message_text(message)}]});
    match wire.get_mut("contents").and_then(Value::as_array_mut) {
        Some(contents) => contents.push(content),
        None => wire["contents"] = json!([content]),
    }
}

/// Appends text to the request's system instruction (creating it).
pub fn append_system_text(wire: &mut Value, text: &str) {
    let config = config_mut(wire);
    let existing = match config.get("systemInstruction") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => text_of_parts(parts_of(other)),
        None => String::new(),
    };
    let joined = if existing.is_empty() {
        text.to_string()
    } else {
        format!("{existing}\n\n{text}")
    };
    config["systemInstruction"] = json!({"parts": [{"text": joined}]});
}

/// Sets the wire request's function-calling config from a hook `toolConfig`
/// (`mode`, `allowedFunctionNames`).
pub fn apply_tool_config(wire: &mut Value, tool_config: &Value) {
    let Some(tc) = tool_config.as_object() else { return };
    let mut fcc = wire
        .pointer("/toolConfig/functionCallingConfig")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for (k, v) in tc {
        fcc.insert(k.clone(), v.clone());
    }
    wire["toolConfig"] = json!({"functionCallingConfig": fcc});
}

/// The hook view of one wire response chunk.
pub fn to_hook_response(chunk: &Value) -> Value {
    let candidates: Vec<Value> = chunk
        .get("candidates")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .map(|c| {
            let content = c.get("content").cloned().unwrap_or(json!({}));
            let parts: Vec<Value> = parts_of(&content)
                .iter()
                .filter_map(|p| p.get("text").cloned())
                .collect();
            let mut out = json!({"content": {"role": "model", "parts": parts}});
            for k in ["finishReason", "index", "safetyRatings"] {
                if let Some(v) = c.get(k) {
                    out[k] = v.clone();
                }
            }
            out
        })
        .collect();
    let text: String = chunk
        .pointer("/candidates/0/content/parts")
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter(|p| p.get("thought") != Some(&Value::Bool(true)))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    let mut out = json!({"text": text, "candidates": candidates});
    if let Some(u) = chunk.get("usageMetadata") {
        out["usageMetadata"] = u.clone();
    }
    out
}

/// A model content whose text parts are `text`, keeping its other parts
/// (function calls) after them.
fn with_text_parts(content: &Value, text: Vec<Value>) -> Value {
    let mut parts = text;
    parts.extend(parts_of(content).iter().filter(|p| p.get("text").is_none()).cloned());
    json!({"role": "model", "parts": parts})
}

/// A streamed response as one chunk: the parts of every chunk's first
/// candidate in order (thoughts left out), the last finish reason.
pub fn merge_chunks(chunks: &[Value]) -> Value {
    let mut parts: Vec<Value> = Vec::new();
    let mut finish = Value::Null;
    for c in chunks {
        for p in parts_of(c.pointer("/candidates/0/content").unwrap_or(&Value::Null)) {
            if p.get("thought") == Some(&Value::Bool(true)) {
                continue;
            }
            // Adjacent text parts become one, as the text was streamed.
            match (parts.last_mut(), p.get("text").and_then(Value::as_str)) {
                (Some(last), Some(t)) if last.get("text").is_some() && last.get("functionCall").is_none() => {
                    let joined = format!("{}{t}", last["text"].as_str().unwrap_or(""));
                    last["text"] = json!(joined);
                }
                _ => parts.push(p.clone()),
            }
        }
        if let Some(f) = c.pointer("/candidates/0/finishReason") {
            finish = f.clone();
        }
    }
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    if !finish.is_null() {
        candidate["finishReason"] = finish;
    }
    json!({"candidates": [candidate]})
}

/// The text a person sees of a streamed response: every text part that is
/// not a thought, across all chunks.
pub fn response_text(chunks: &[Value]) -> String {
    chunks
        .iter()
        .filter_map(|c| c.pointer("/candidates/0/content/parts").and_then(Value::as_array))
        .flatten()
        .filter(|p| p.get("thought") != Some(&Value::Bool(true)))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect()
}

fn hook_part_to_wire(p: &Value) -> Option<Value> {
    match p {
        Value::String(s) => Some(json!({"text": s})),
        Value::Object(o) if o.contains_key("text") => Some(p.clone()),
        _ => None,
    }
}

/// Applies a hook's `llm_response` onto a wire chunk (or builds a chunk from
/// nothing, for a synthetic response): text parts are replaced, function
/// calls kept.
pub fn apply_hook_response(chunk: &mut Value, hook: &Value) {
    if !chunk.is_object() {
        *chunk = json!({});
    }
    let mut candidates: Vec<Value> = chunk
        .get("candidates")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Some(hook_candidates) = hook.get("candidates").and_then(Value::as_array) {
        for (i, hc) in hook_candidates.iter().enumerate() {
            if candidates.len() <= i {
                candidates.push(json!({"content": {"role": "model", "parts": []}, "index": i}));
            }
            let c = &mut candidates[i];
            if let Some(hparts) = hc.pointer("/content/parts").and_then(Value::as_array) {
                c["content"] = with_text_parts(&c["content"], hparts.iter().filter_map(hook_part_to_wire).collect());
            }
            if let Some(fr) = hc.get("finishReason") {
                c["finishReason"] = fr.clone();
            }
        }
    } else if let Some(text) = hook.get("text").and_then(Value::as_str) {
        if candidates.is_empty() {
            candidates.push(json!({"content": {"role": "model", "parts": []}, "index": 0}));
        }
        let c = &mut candidates[0];
        c["content"] = with_text_parts(&c["content"], vec![json!({"text": text})]);
    }
    chunk["candidates"] = Value::Array(candidates);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn history() -> Value {
        json!({"model": "m", "contents": [
            {"role": "user", "parts": [{"text": "write a file"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "write_file", "args": {"file_path": "a"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "write_file", "response": {"output": "ok"}}}]},
            {"role": "model", "parts": [{"text": "done"}]},
        ], "config": {"temperature": 0.5, "tools": []}})
    }

    #[test]
    fn text_edit_keeps_tool_calls_and_responses() {
        let mut wire = history();
        let mut hook = to_hook_request(&wire);
        assert_eq!(hook["messages"].as_array().unwrap().len(), 2);
        hook["messages"][0]["content"] = json!("write a file, carefully");
        apply_hook_request(&mut wire, &hook);
        let contents = wire["contents"].as_array().unwrap();
        assert_eq!(contents.len(), 4);
        assert_eq!(contents[0]["parts"][0]["text"], "write a file, carefully");
        assert_eq!(contents[1]["parts"][0]["functionCall"]["name"], "write_file");
        assert_eq!(contents[2]["parts"][0]["functionResponse"]["response"]["output"], "ok");
    }

    #[test]
    fn config_edit_does_not_touch_messages() {
        let mut wire = history();
        apply_hook_request(&mut wire, &json!({"config": {"temperature": 0.1}}));
        assert_eq!(wire["config"]["temperature"], 0.1);
        assert_eq!(wire["config"]["tools"], json!([]));
        assert_eq!(wire["contents"].as_array().unwrap().len(), 4);
    }

    #[test]
    fn response_edit_keeps_function_calls() {
        let mut chunk = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"text": "calling"}, {"functionCall": {"name": "read_file", "args": {}}}]}, "finishReason": "STOP"}]});
        apply_hook_response(
            &mut chunk,
            &json!({"candidates": [{"content": {"role": "model", "parts": ["[x]"]}}]}),
        );
        let parts = chunk["candidates"][0]["content"]["parts"].as_array().unwrap();
        assert_eq!(parts[0]["text"], "[x]");
        assert_eq!(parts[1]["functionCall"]["name"], "read_file");
        assert_eq!(chunk["candidates"][0]["finishReason"], "STOP");
    }

    #[test]
    fn merged_chunks_join_text_keep_calls_drop_thoughts() {
        let chunks = vec![
            json!({"candidates": [{"content": {"parts": [{"text": "hm", "thought": true}]}}]}),
            json!({"candidates": [{"content": {"parts": [{"text": "Hello "}]}}]}),
            json!({"candidates": [{"content": {"parts": [{"text": "world"}, {"functionCall": {"name": "f", "args": {}}}]},
                   "finishReason": "STOP"}]}),
        ];
        let m = merge_chunks(&chunks);
        let parts = m["candidates"][0]["content"]["parts"].as_array().unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0]["text"], "Hello world");
        assert_eq!(parts[1]["functionCall"]["name"], "f");
        assert_eq!(m["candidates"][0]["finishReason"], "STOP");
    }

    #[test]
    fn tool_config_round_trip() {
        let mut wire = json!({"contents": []});
        apply_tool_config(
            &mut wire,
            &json!({"mode": "ANY", "allowedFunctionNames": ["read_file"]}),
        );
        assert_eq!(
            to_hook_request(&wire)["toolConfig"]["allowedFunctionNames"],
            json!(["read_file"])
        );
    }
}
