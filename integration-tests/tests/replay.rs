//! The reference agent loop end to end, with real hook processes.

use hookshot_integration_tests::{Project, calls, gemini, says};
use hookshot_replay::Ending;
use serde_json::json;

#[tokio::test]
async fn transcript_records_every_step_in_order() {
    let p = Project::new(&gemini(&[("BeforeTool", "cat >/dev/null; echo '{}'")]));
    let run = p
        .replay(
            &[
                calls("write_file", json!({"file_path": "a.txt", "content": "A"})),
                says("done"),
            ],
            "write a",
        )
        .await;
    assert_eq!(run.ending, Ok(Ending::Completed));
    assert_eq!(std::fs::read_to_string(p.path().join("a.txt")).unwrap(), "A");
    let kinds: Vec<&str> = run.transcript.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"hook_event"));
    assert_eq!(kinds.last(), Some(&"stop"));
    assert_eq!(kinds.iter().filter(|k| **k == "model_request").count(), 2);
    assert_eq!(
        run.events(),
        [
            "SessionStart",
            "BeforeAgent",
            "BeforeModel",
            "BeforeToolSelection",
            "AfterModel",
            "BeforeTool",
            "PermissionRequest",
            "AfterTool",
            "BeforeModel",
            "BeforeToolSelection",
            "AfterModel",
            "AfterAgent",
            "SessionEnd"
        ]
    );
    let tool = run.records("tool_call")[0];
    assert_eq!(tool["status"], "executed");
    assert_eq!(tool["args"], json!({"file_path": "a.txt", "content": "A"}));
    let hooks = &run.records("hook_event")[5]["hooks"];
    assert_eq!(hooks[0]["exit_code"], 0);
}

#[tokio::test]
async fn before_model_text_edit_keeps_tool_calls_and_responses() {
    // The hook rewrites the first message's text on every call; the second
    // request must still carry the function call and its response
    // (gemini-cli loses them: its issue #25558).
    let p = Project::new(&gemini(&[]));
    p.file(
        "edit.py",
        r#"import json, sys
e = json.load(sys.stdin)
msgs = e["llm_request"]["messages"]
msgs[0]["content"] = "EDITED: " + msgs[0]["content"]
print(json.dumps({"hookSpecificOutput": {"llm_request": {"messages": msgs}}}))
"#,
    );
    std::fs::write(
        p.path().join("settings.json"),
        gemini(&[("BeforeModel", "python3 edit.py")]).to_string(),
    )
    .unwrap();
    let run = p
        .replay(
            &[calls("read_file", json!({"file_path": "settings.json"})), says("ok")],
            "read it",
        )
        .await;
    let requests = run.records("model_request");
    assert_eq!(requests.len(), 2);
    let second = &requests[1]["request"]["contents"];
    assert_eq!(second[0]["parts"][0]["text"], "EDITED: read it");
    assert_eq!(second[1]["parts"][0]["functionCall"]["name"], "read_file");
    assert!(
        second[2]["parts"][0]["functionResponse"]["response"]["output"]
            .as_str()
            .unwrap()
            .contains("hooksConfig")
    );
}

#[tokio::test]
async fn after_agent_that_always_blocks_is_cut_off() {
    let p = Project::new(&gemini(&[(
        "AfterAgent",
        "cat >/dev/null; echo '{\"decision\": \"block\", \"reason\": \"again\"}'",
    )]));
    let answers: Vec<_> = (0..6).map(|i| says(&format!("answer {i}"))).collect();
    let run = p.replay(&answers, "go").await;
    assert_eq!(run.ending, Ok(Ending::Completed));
    assert_eq!(
        run.records("model_request").len(),
        4,
        "one answer plus three continuations"
    );
    assert!(run.stdout.contains("AfterAgent blocked 3 times"), "{}", run.stdout);
}

#[tokio::test]
async fn empty_answers_are_retried_twice_then_accepted() {
    let empty = json!({"method": "generateContentStream", "response": [
        {"candidates": [{"content": {"role": "model"}, "finishReason": "STOP", "index": 0}]}]});
    let p = Project::new(&gemini(&[]));
    let run = p
        .replay(&[empty.clone(), empty.clone(), empty, says("late")], "hi")
        .await;
    assert_eq!(run.records("model_request").len(), 3);
    assert!(!run.stdout.contains("late"));
}

#[tokio::test]
async fn failing_hook_warns_by_name_and_fails_open() {
    let settings = json!({"hooks": {"BeforeTool": [{"hooks": [
        {"type": "command", "name": "flaky", "command": "cat >/dev/null; echo oops >&2; exit 1", "timeout": 5000}]}]}});
    let p = Project::new(&settings);
    let run = p
        .replay(
            &[
                calls("write_file", json!({"file_path": "b.txt", "content": "B"})),
                says("ok"),
            ],
            "write b",
        )
        .await;
    assert!(
        run.stdout.contains("warning: hook flaky exited with code 1: oops"),
        "{}",
        run.stdout
    );
    assert_eq!(run.records("tool_call")[0]["status"], "executed");
}

#[tokio::test]
async fn fail_closed_policy_blocks_on_failure() {
    let settings = json!({"hooks": {"BeforeTool": [{"hooks": [
        {"type": "command", "name": "strict", "command": "exit 7", "timeout": 5000, "fail": "closed"}]}]}});
    let p = Project::new(&settings);
    let run = p
        .replay(
            &[
                calls("write_file", json!({"file_path": "c.txt", "content": "C"})),
                says("ok"),
            ],
            "write c",
        )
        .await;
    assert_eq!(run.records("tool_call")[0]["status"], "blocked");
    assert!(!p.path().join("c.txt").exists());
}

#[tokio::test]
async fn other_recorded_calls_are_skipped_and_call_ids_echoed() {
    let p = Project::new(&gemini(&[]));
    let count_tokens = json!({"method": "countTokens", "response": {"totalTokens": 42}});
    let with_id = json!({"method": "generateContentStream", "response": [{"candidates": [{"content": {"role": "model",
        "parts": [{"functionCall": {"id": "call-7", "name": "list_directory", "args": {"path": "."}}}]}, "finishReason": "STOP"}]}]});
    let run = p
        .replay(&[count_tokens.clone(), with_id, count_tokens, says("listed")], "list")
        .await;
    assert_eq!(run.ending, Ok(Ending::Completed));
    assert!(run.stdout.contains("listed"), "{}", run.stdout);
    let second = &run.records("model_request")[1]["request"]["contents"];
    assert_eq!(second[2]["parts"][0]["functionResponse"]["id"], "call-7");
}
