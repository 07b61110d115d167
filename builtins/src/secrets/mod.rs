//! `security_scan`: finds secrets in tool inputs (BeforeTool), tool results
//! (AfterTool), model requests (BeforeModel) and prompts (UserPromptSubmit)
//! and redacts them as
//! `***REDACTED:kind***` through each event's replacement path, or blocks.
//!
//! The rules (see `rules.rs`) cover provider tokens by their documented
//! prefixes, private key blocks (PEM and PGP, with or without their END
//! line), `Authorization` headers, passwords in URLs, JWTs, and assignments
//! to secret-sounding names whose value looks random. A secret is also
//! found base64-, hex- or URL-encoded, and in object keys as well as
//! values.
//!
//! A redaction is only claimed where it happens: a tool result keeps its
//! shape (Claude Code ignores an `updatedToolOutput` of another shape),
//! and each dialect's renderer uses that agent's own replacement field.

mod rules;

use hookshot_core::{Decision, EventKind, Hook, HookOutput};
use hookshot_registry::gitleaks::{SecretRule, Target};
use regex::Regex;
use serde_json::{Map, Value, json};

pub use rules::entropy;

/// Block instead of redacting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Replace each secret with `***REDACTED:kind***`.
    Redact,
    /// Refuse the action.
    Block,
}

/// The hook.
#[derive(Debug)]
pub struct SecurityScan {
    mode: Mode,
    encoded: Regex,
    wrapped: Regex,
    /// The user's own rules (`rules_file`), after the built-in ones.
    extra: Vec<SecretRule>,
}

/// Decodes base64 (standard or URL-safe, padding optional).
fn base64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.trim_end_matches('=').bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

fn hex(text: &str) -> Option<Vec<u8>> {
    (0..text.len())
        .step_by(2)
        .map(|i| text.get(i..i + 2).and_then(|b| u8::from_str_radix(b, 16).ok()))
        .collect()
}

fn percent(text: &str) -> Option<Vec<u8>> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            out.push(u8::from_str_radix(text.get(i + 1..i + 3)?, 16).ok()?);
            i += 3;
        } else {
            out.push(if b[i] == b'+' { b' ' } else { b[i] });
            i += 1;
        }
    }
    Some(out)
}

/// Decoded bytes worth scanning: text, mostly printable.
fn readable(bytes: Vec<u8>) -> Option<String> {
    let s = String::from_utf8(bytes).ok()?;
    let printable = s.chars().filter(|c| !c.is_control() || c.is_whitespace()).count();
    (s.len() >= 8 && printable * 10 >= s.chars().count() * 9).then_some(s)
}

/// Whether one of `rule`'s allowlists clears the finding `secret` (whose
/// whole match is `whole`, in `text`).
fn allowed(rule: &SecretRule, text: &str, secret: &str, whole: regex::Match<'_>) -> bool {
    let line = || {
        let start = text[..whole.start()].rfind('\n').map_or(0, |i| i + 1);
        let end = text[whole.end()..].find('\n').map_or(text.len(), |i| whole.end() + i);
        &text[start..end]
    };
    let lower = secret.to_lowercase();
    rule.allow.iter().any(|a| {
        let target = match a.target {
            Target::Secret => secret,
            Target::Match => whole.as_str(),
            Target::Line => line(),
        };
        a.regexes.iter().any(|r| r.is_match(target)) || a.stopwords.iter().any(|w| lower.contains(w.as_str()))
    })
}

impl SecurityScan {
    /// The scanner.
    pub fn new(mode: Mode) -> SecurityScan {
        SecurityScan {
            mode,
            // Runs that may be an encoded secret: percent-encoding, hex,
            // base64 (in that order of preference at one place).
            encoded: Regex::new(
                r"(?:[A-Za-z0-9._~+\-]*%[0-9A-Fa-f]{2}){2,}[A-Za-z0-9._~+\-]*|\b(?:[0-9a-fA-F]{2}){12,}\b|[A-Za-z0-9+/_\-]{16,}={0,2}",
            )
            .expect("encoded-run pattern compiles"),
            // base64 wrapped as `base64` (76 columns) and PEM or openssl
            // (64) wrap it: a secret may straddle a line break.
            wrapped: Regex::new(
                r"(?:[A-Za-z0-9+/]{76}\r?\n)+[A-Za-z0-9+/]{0,76}={0,2}|(?:[A-Za-z0-9+/]{64}\r?\n)+[A-Za-z0-9+/]{0,64}={0,2}",
            )
            .expect("wrapped-run pattern compiles"),
            extra: Vec::new(),
        }
    }

    /// The scanner with the user's own rules added.
    pub fn with_rules(mut self, rules: Vec<SecretRule>) -> SecurityScan {
        self.extra = rules;
        self
    }

    /// The secrets of `text` by the built-in rules, then the user's.
    fn scan(&self, text: &str) -> Vec<(usize, usize, String)> {
        let mut found: Vec<(usize, usize, String)> = rules::scan(text)
            .into_iter()
            .map(|f| (f.start, f.end, f.id.to_string()))
            .collect();
        if self.extra.is_empty() {
            return found;
        }
        let mut taken = rules::Taken::default();
        for (s, e, _) in &found {
            taken.take(*s, *e);
        }
        let lower = text.to_lowercase();
        for rule in &self.extra {
            if !rule.keywords.is_empty() && !rule.keywords.iter().any(|k| lower.contains(k.as_str())) {
                continue;
            }
            for caps in rule.regex.captures_iter(text) {
                let Some(whole) = caps.get(0) else { continue };
                let m = match rule.secret_group {
                    Some(g) => caps.get(g),
                    None => caps.iter().skip(1).flatten().next().or(Some(whole)),
                };
                let Some(m) = m.filter(|m| !m.is_empty()) else { continue };
                if rule.entropy > 0.0 && rules::entropy(m.as_str()) < rule.entropy {
                    continue;
                }
                if allowed(rule, text, m.as_str(), whole) {
                    continue;
                }
                if !taken.take(m.start(), m.end()) {
                    continue;
                }
                found.push((m.start(), m.end(), rule.id.clone()));
            }
        }
        found.sort_by_key(|f| f.0);
        found
    }

    /// Every secret in `text`: byte range and kind, in order.
    fn find(&self, text: &str) -> Vec<(usize, usize, String)> {
        let mut found = self.scan(text);
        let mut taken = rules::Taken::default();
        for (s, e, _) in &found {
            taken.take(*s, *e);
        }
        for m in self.wrapped.find_iter(text) {
            if taken.overlaps(m.start(), m.end()) {
                continue;
            }
            let joined: String = m.as_str().split_whitespace().collect();
            let Some(decoded) = base64(&joined).and_then(readable) else {
                continue;
            };
            if let Some((_, _, inner)) = self.scan(&decoded).first() {
                taken.take(m.start(), m.end());
                found.push((m.start(), m.end(), format!("{inner}_base64")));
            }
        }
        for m in self.encoded.find_iter(text) {
            if taken.overlaps(m.start(), m.end()) {
                continue;
            }
            let run = m.as_str();
            let decoded = if run.contains('%') {
                percent(run).map(|b| (b, "url-encoded"))
            } else if run.len() % 2 == 0 && run.bytes().all(|b| b.is_ascii_hexdigit()) {
                hex(run).map(|b| (b, "hex"))
            } else {
                base64(run).map(|b| (b, "base64"))
            };
            let Some((text, how)) = decoded.and_then(|(b, how)| readable(b).map(|t| (t, how))) else {
                continue;
            };
            if let Some((_, _, inner)) = self.scan(&text).first() {
                taken.take(m.start(), m.end());
                found.push((m.start(), m.end(), format!("{inner}_{}", how.replace('-', "_"))));
            }
        }
        found.sort_by_key(|f| f.0);
        found
    }

    /// Redacts every secret in `text`; returns the kinds found.
    pub fn redact(&self, text: &str) -> (String, Vec<String>) {
        let found = self.find(text);
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        let mut kinds: Vec<String> = Vec::new();
        for (start, end, kind) in found {
            out.push_str(&text[at..start]);
            out.push_str(&format!("***REDACTED:{kind}***"));
            at = end;
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        out.push_str(&text[at..]);
        (out, kinds)
    }

    fn redact_str(&self, s: &str, kinds: &mut Vec<String>) -> String {
        let (r, k) = self.redact(s);
        for kind in k {
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        r
    }

    /// Redacts every string inside a JSON value, keys included; the shape
    /// stays as it was.
    fn redact_value(&self, v: &Value, kinds: &mut Vec<String>) -> Value {
        match v {
            Value::String(s) => Value::String(self.redact_str(s, kinds)),
            Value::Array(items) => Value::Array(items.iter().map(|i| self.redact_value(i, kinds)).collect()),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (self.redact_str(k, kinds), self.redact_value(v, kinds)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn answer(&self, kinds: &[String], place: &str, apply: impl FnOnce(&mut HookOutput)) -> HookOutput {
        let list = kinds.join(", ");
        let mut out = HookOutput::default();
        match self.mode {
            Mode::Block => {
                out.decision = Decision::Block;
                out.reason = Some(format!("security_scan: secrets ({list}) in {place}"));
            }
            Mode::Redact => {
                out.system_message = Some(format!("security_scan redacted secrets ({list}) in {place}"));
                apply(&mut out);
            }
        }
        out
    }
}

impl Hook for SecurityScan {
    fn call(&self, event: EventKind, input: &Map<String, Value>) -> HookOutput {
        let mut kinds = Vec::new();
        match event {
            EventKind::BeforeTool => {
                // The file a read is about to give the model, when the
                // agent shows it first (Cursor's beforeReadFile `content`):
                // what is read cannot be redacted, so in either mode the
                // read is denied.
                if let Some(content) = input.get("content").and_then(Value::as_str) {
                    let _ = self.redact_str(content, &mut kinds);
                    if !kinds.is_empty() {
                        let file = input.get("file_path").and_then(Value::as_str).unwrap_or("the file");
                        return HookOutput {
                            decision: Decision::Block,
                            reason: Some(format!(
                                "security_scan: {file} holds secrets ({}); the model would read them, so the read is denied",
                                kinds.join(", ")
                            )),
                            ..HookOutput::default()
                        };
                    }
                }
                let Some(args) = input.get("tool_input") else {
                    return HookOutput::default();
                };
                let redacted = self.redact_value(args, &mut kinds);
                if kinds.is_empty() {
                    return HookOutput::default();
                }
                self.answer(&kinds, "the tool input", |o| {
                    o.tool_input = redacted.as_object().cloned()
                })
            }
            EventKind::AfterTool => {
                let Some(resp) = input.get("tool_response") else {
                    return HookOutput::default();
                };
                let redacted = self.redact_value(resp, &mut kinds);
                if kinds.is_empty() {
                    return HookOutput::default();
                }
                self.answer(&kinds, "the tool result", |o| o.tool_result = Some(redacted))
            }
            // A prompt as Claude Code and Codex send it (UserPromptSubmit).
            // Neither fires a model-request event hookshot answers (gemini's
            // BeforeModel, where a secret is redacted), so the prompt is the
            // last place a secret typed into it can be stopped, and a block
            // is the one answer both apply (neither rewrites a prompt): in
            // either mode the prompt is not sent, and Claude leaves it out
            // of the block message.
            EventKind::BeforeAgent => {
                // Claude Code's, Codex's and Cursor's prompt events (Cursor's
                // beforeSubmitPrompt blocks with `continue: false`).
                let name = input.get("hook_event_name").and_then(Value::as_str);
                if !matches!(name, Some("UserPromptSubmit" | "beforeSubmitPrompt")) {
                    return HookOutput::default();
                }
                let Some(prompt) = input.get("prompt").and_then(Value::as_str) else {
                    return HookOutput::default();
                };
                let _ = self.redact_str(prompt, &mut kinds);
                if kinds.is_empty() {
                    return HookOutput::default();
                }
                let mut out = HookOutput {
                    decision: Decision::Block,
                    reason: Some(format!(
                        "security_scan: your prompt holds secrets ({}), so it was not sent to the model; \
                         send it again without them (a secret the model reads through a tool is redacted)",
                        kinds.join(", ")
                    )),
                    ..HookOutput::default()
                };
                out.extra.insert("suppressOriginalPrompt".into(), Value::Bool(true));
                out
            }
            EventKind::BeforeModel => {
                let Some(messages) = input.get("llm_request").and_then(|r| r.get("messages")) else {
                    return HookOutput::default();
                };
                let redacted = self.redact_value(messages, &mut kinds);
                if kinds.is_empty() {
                    return HookOutput::default();
                }
                self.answer(&kinds, "the model request", |o| {
                    o.llm_request = Some(json!({"messages": redacted}))
                })
            }
            _ => HookOutput::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Vec<(Option<String>, String)> {
        include_str!("secrets.txt")
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| {
                let (kind, text) = l.split_once(' ').expect("kind and text");
                let kind = (kind != "ok").then(|| kind.to_string());
                (kind, text.trim_start().replace('⏎', "\n"))
            })
            .collect()
    }

    #[test]
    fn a_secret_typed_into_a_claude_or_codex_prompt_is_never_sent() {
        for mode in [Mode::Redact, Mode::Block] {
            let s = SecurityScan::new(mode);
            let prompt = |name: &str, text: &str| {
                json!({"hook_event_name": name, "prompt": text})
                    .as_object()
                    .unwrap()
                    .clone()
            };
            let o = s.call(
                EventKind::BeforeAgent,
                &prompt("UserPromptSubmit", "deploy with AKIAIOSFODNN7EXAMPLE"),
            );
            assert_eq!(o.decision, Decision::Block);
            assert!(o.reason.as_deref().unwrap().contains("aws_access_key"), "{o:?}");
            // The secret is not repeated, and Claude leaves the prompt out.
            assert!(!o.reason.as_deref().unwrap().contains("AKIA"), "{o:?}");
            assert_eq!(o.extra["suppressOriginalPrompt"], true);
            let o = s.call(EventKind::BeforeAgent, &prompt("UserPromptSubmit", "deploy the app"));
            assert_eq!(o.decision, Decision::Undecided);
            // gemini-cli's model request is scanned (and redacted) at BeforeModel.
            let o = s.call(
                EventKind::BeforeAgent,
                &prompt("BeforeAgent", "deploy with AKIAIOSFODNN7EXAMPLE"),
            );
            assert_eq!(o.decision, Decision::Undecided);
        }
    }

    /// Measured against a maintained catalogue: a secret in the format of
    /// each of gitleaks' default rules is found.
    #[test]
    fn every_format_of_the_gitleaks_catalogue_is_found() {
        let s = SecurityScan::new(Mode::Redact);
        let mut missed = Vec::new();
        let mut n = 0;
        for line in include_str!("gitleaks-catalogue.txt").lines() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let (id, text) = line.split_once(' ').expect("id and text");
            let (out, kinds) = s.redact(&text.replace('⏎', "\n"));
            n += 1;
            if kinds.is_empty() || out.contains(text) {
                missed.push(id);
            }
        }
        assert!(n > 190, "{n} rows");
        assert!(missed.is_empty(), "not found: {missed:?}");
    }

    #[test]
    fn every_rule_finds_its_secret_and_leaves_its_near_miss() {
        let s = SecurityScan::new(Mode::Redact);
        let table = table();
        let mut wrong = Vec::new();
        for (kind, text) in &table {
            let (out, kinds) = s.redact(text);
            match kind {
                Some(k) if !kinds.contains(k) || !out.contains(&format!("***REDACTED:{k}***")) => {
                    wrong.push(format!("missed {k} in {text:?}: {kinds:?} -> {out:?}"));
                }
                None if !kinds.is_empty() => wrong.push(format!("false alarm {kinds:?} in {text:?} -> {out:?}")),
                _ => {}
            }
        }
        assert!(wrong.is_empty(), "{} wrong:\n{}", wrong.len(), wrong.join("\n"));
        // Every rule is in the table, found at least once.
        for r in rules::rules() {
            assert!(
                table.iter().any(|(k, _)| k.as_deref() == Some(r.id)),
                "rule {} has no case",
                r.id
            );
        }
    }

    #[test]
    fn the_users_rules_add_kinds_and_their_allowlists_clear_only_their_own() {
        let text = "[[rules]]\nid = \"acme\"\nregex = '''acme_[a-z0-9]{24}'''\nentropy = 3.0\n\
                    [[rules.allowlists]]\nregexTarget = \"line\"\nregexes = ['''^#''']\n\
                    [allowlist]\nstopwords = [\"ghp_\"]\n";
        let loaded = hookshot_registry::gitleaks::parse(std::path::Path::new("r.toml"), text).unwrap();
        let s = SecurityScan::new(Mode::Redact).with_rules(loaded.rules);
        let token = "acme_k3mz8pl2xv7nb4cr9ty6wf1h";
        assert_eq!(s.redact(&format!("x={token}")).0, "x=***REDACTED:acme***");
        // Below the entropy floor, on an allowed line: no finding.
        assert!(s.redact("x=acme_aaaaaaaaaaaaaaaaaaaaaaaa").1.is_empty());
        assert!(s.redact(&format!("# {token}")).1.is_empty());
        // The file's stopword does not clear a built-in finding.
        let (out, _) = s.redact("ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789");
        assert_eq!(out, "***REDACTED:github_token***");
        // Encoded, the user's kind is found like the built-in ones.
        let encoded = "YWNtZV9rM216OHBsMnh2N25iNGNyOXR5NndmMWg=";
        assert_eq!(s.redact(encoded).0, "***REDACTED:acme_base64***");
    }

    #[test]
    fn a_truncated_key_is_redacted_to_its_end() {
        let (out, _) = SecurityScan::new(Mode::Redact)
            .redact("key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\nAAAAEbm9uZQ");
        assert_eq!(out, "key:\n***REDACTED:private_key***");
    }

    #[test]
    fn a_tool_result_keeps_its_shape_and_keys_are_redacted() {
        let s = SecurityScan::new(Mode::Redact);
        let input = json!({"tool_name": "Bash", "tool_input": {"command": "cat .env"},
            "tool_response": {"stdout": "GITHUB=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n",
                "stderr": "", "interrupted": false, "isImage": false}});
        let out = s.call(EventKind::AfterTool, input.as_object().unwrap());
        assert_eq!(
            out.tool_result.unwrap(),
            json!({"stdout": "GITHUB=***REDACTED:github_token***\n", "stderr": "", "interrupted": false, "isImage": false})
        );
        assert!(
            out.system_message
                .unwrap()
                .contains("redacted secrets (github_token) in the tool result")
        );
        let input = json!({"tool_name": "write_file", "tool_input": {"content": {"ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789": true}}});
        let out = s.call(EventKind::BeforeTool, input.as_object().unwrap());
        assert_eq!(
            out.tool_input.unwrap()["content"],
            json!({"***REDACTED:github_token***": true})
        );
    }

    #[test]
    fn block_mode_blocks_and_claims_no_redaction() {
        let input = json!({"tool_name": "write_file", "tool_input": {"file_path": ".env",
            "content": "GITHUB=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n"}});
        let out = SecurityScan::new(Mode::Block).call(EventKind::BeforeTool, input.as_object().unwrap());
        assert_eq!(out.decision, Decision::Block);
        assert!(out.tool_input.is_none() && out.system_message.is_none());
        assert!(out.reason.unwrap().contains("github_token"));
    }
}
