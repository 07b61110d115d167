//! `hookshot schema` and the parser agree: every settings document the
//! project ships or replays (examples, scenarios, gemini-cli's acceptance
//! scenarios when present) and a corpus written from the agents' reference
//! docs gets the same verdict from `hookshot validate` and from the
//! reference JSON Schema implementation (Python's `jsonschema`).

mod common;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `(name, document, expected verdict)`; `None` where only the parser's
/// verdict counts (shipped settings must be valid, and are checked so).
fn documents() -> Vec<(String, Value, Option<bool>)> {
    let read = |p: &Path| -> Value { serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap() };
    let mut docs = Vec::new();
    let corpus = read(&root().join("tests/schema/reference.json"));
    for d in corpus.as_array().unwrap() {
        docs.push((
            d["name"].as_str().unwrap().to_string(),
            d["doc"].clone(),
            d["valid"].as_bool(),
        ));
    }
    for ex in ["examples/gemini/settings.json", "examples/session/settings.json"] {
        docs.push((ex.to_string(), read(&root().join(ex)), Some(true)));
    }
    let acceptance = std::env::var_os("HOOKSHOT_ACCEPTANCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/acceptance"));
    for dir in [root().join("integration-tests/scenarios"), acceptance.join("gemini")] {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let file = e.path().join("scenario.json");
            let Ok(bytes) = std::fs::read(&file) else { continue };
            let scenario: Value = serde_json::from_slice(&bytes).unwrap();
            for (i, s) in scenario["settings"].as_array().into_iter().flatten().enumerate() {
                // jcli's hooks.yaml is YAML, outside a JSON Schema.
                if s.is_object() {
                    docs.push((format!("{}#{i}", file.display()), s.clone(), Some(true)));
                }
            }
        }
    }
    docs
}

#[test]
fn the_schema_accepts_exactly_what_the_parser_accepts() {
    let dir = tempfile::tempdir().unwrap();
    let mut judged = Vec::new();
    for (i, (name, doc, expected)) in documents().into_iter().enumerate() {
        let file = dir.path().join(format!("{i}/settings.json"));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, doc.to_string()).unwrap();
        let o = common::hookshot().arg("validate").arg(&file).output().unwrap();
        let valid = o.status.success();
        if let Some(expected) = expected {
            assert_eq!(
                valid,
                expected,
                "{name}: hookshot validate says {}",
                String::from_utf8_lossy(&o.stderr)
            );
        }
        judged.push(json!({"name": name, "doc": doc, "valid": valid}));
    }
    assert!(judged.len() > 30, "too few documents: {}", judged.len());
    let schema = common::hookshot().arg("schema").output().unwrap();
    assert!(schema.status.success());
    std::fs::write(dir.path().join("schema.json"), &schema.stdout).unwrap();
    std::fs::write(dir.path().join("docs.json"), Value::Array(judged).to_string()).unwrap();
    let o = std::process::Command::new(common::mcp_python())
        .arg(root().join("tests/schema/check.py"))
        .arg(dir.path().join("schema.json"))
        .arg(dir.path().join("docs.json"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}
