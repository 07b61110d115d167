//! YAML front end (jcli `hooks.yaml`): the same JSON value and position index
//! the JSON front end produces, so one validator serves both.
//!
//! yaml-rust2's event parser reports a marker for every node; building the
//! value from events lets each value keep the line it was written on.

use std::path::Path;

use serde_json::{Map, Value};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use crate::error::Error;
use crate::position::{Positions, escape_token};

/// The most values a file may expand to, aliases included: a few
/// kilobytes of "billion laughs" aliases must not become gigabytes.
const MAX_NODES: usize = 100_000;
/// The most aliases a file may use.
const MAX_ALIASES: usize = 1_000;
/// The deepest nesting accepted (as serde_json's limit for JSON).
const MAX_DEPTH: usize = 128;

/// A list or map being built: its items, pointer, anchor, and the node
/// count when it started.
enum Frame {
    Seq(Vec<Value>, String, usize, usize),
    Map(Map<String, Value>, String, Option<String>, usize, usize),
}

struct Builder {
    stack: Vec<Frame>,
    root: Option<Value>,
    positions: Positions,
    /// Anchored values with the number of nodes each stands for.
    anchors: Vec<(usize, Value, usize)>,
    nodes: usize,
    aliases: usize,
    error: Option<String>,
}

impl Builder {
    /// The pointer of the next value: the parent's pointer plus the index or
    /// pending key.
    fn next_pointer(&self) -> String {
        match self.stack.last() {
            None => String::new(),
            Some(Frame::Seq(items, p, ..)) => format!("{p}/{}", items.len()),
            Some(Frame::Map(_, p, Some(k), ..)) => format!("{p}/{}", escape_token(k)),
            Some(Frame::Map(_, p, None, ..)) => p.clone(),
        }
    }

    fn expecting_key(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Map(_, _, None, ..)))
    }

    fn fail(&mut self, line: usize, msg: impl FnOnce() -> String) {
        self.error.get_or_insert_with(|| format!("line {line}: {}", msg()));
    }

    /// Adds a finished value that stands for `nodes` nodes.
    fn push_value(&mut self, v: Value, anchor: usize, nodes: usize) {
        if anchor > 0 {
            self.anchors.push((anchor, v.clone(), nodes));
        }
        match self.stack.last_mut() {
            None => self.root = Some(v),
            Some(Frame::Seq(items, ..)) => items.push(v),
            Some(Frame::Map(m, _, key, ..)) => {
                if let Some(k) = key.take() {
                    m.insert(k, v);
                }
            }
        }
    }
}

fn scalar(s: String, style: TScalarStyle) -> Value {
    if style != TScalarStyle::Plain {
        return Value::String(s);
    }
    match s.as_str() {
        "~" | "null" | "Null" | "NULL" | "" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        _ => {
            if let Ok(i) = s.parse::<i64>() {
                Value::from(i)
            } else if let Some(f) = s.parse::<f64>().ok().filter(|f| f.is_finite()) {
                Value::from(f)
            } else {
                Value::String(s)
            }
        }
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, ev: Event, mark: Marker) {
        let (line, col) = (mark.line(), mark.col() + 1);
        if self.error.is_some() {
            return;
        }
        match ev {
            Event::Scalar(s, style, anchor, _) => {
                if self.expecting_key() {
                    let p = self.next_pointer();
                    let key_ptr = format!("{p}/{}", escape_token(&s));
                    self.positions.insert_key(key_ptr, line, col);
                    if let Some(Frame::Map(_, _, key, ..)) = self.stack.last_mut() {
                        *key = Some(s);
                    }
                } else {
                    let p = self.next_pointer();
                    self.positions.insert_value(p, line, col);
                    self.nodes += 1;
                    self.push_value(scalar(s, style), anchor, 1);
                }
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if self.expecting_key() {
                    self.fail(line, || "complex mapping keys are not supported".into());
                    return;
                }
                if self.stack.len() >= MAX_DEPTH {
                    self.fail(line, || format!("nested more than {MAX_DEPTH} levels deep"));
                    return;
                }
                let p = self.next_pointer();
                self.positions.insert_value(p.clone(), line, col);
                self.nodes += 1;
                let start = self.nodes;
                if matches!(ev, Event::SequenceStart(..)) {
                    self.stack.push(Frame::Seq(Vec::new(), p, anchor, start));
                } else {
                    self.stack.push(Frame::Map(Map::new(), p, None, anchor, start));
                }
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (v, anchor, start) = match self.stack.pop() {
                    Some(Frame::Seq(items, _, a, n)) => (Value::Array(items), a, n),
                    Some(Frame::Map(m, _, _, a, n)) => (Value::Object(m), a, n),
                    None => return,
                };
                let nodes = self.nodes - start + 1;
                self.push_value(v, anchor, nodes);
            }
            Event::Alias(id) => {
                let Some((_, v, nodes)) = self.anchors.iter().rev().find(|(a, ..)| *a == id).cloned() else {
                    self.fail(line, || "alias to an unknown anchor".into());
                    return;
                };
                self.aliases += 1;
                self.nodes += nodes;
                if self.aliases > MAX_ALIASES {
                    self.fail(line, || format!("more than {MAX_ALIASES} aliases"));
                    return;
                }
                if self.nodes > MAX_NODES {
                    self.fail(line, || format!("aliases expand to more than {MAX_NODES} values"));
                    return;
                }
                let p = self.next_pointer();
                self.positions.insert_value(p, line, col);
                self.push_value(v, 0, nodes);
            }
            _ => {}
        }
        if self.nodes > MAX_NODES {
            self.fail(line, || format!("more than {MAX_NODES} values"));
        }
    }
}

/// Parses YAML text into a JSON value and its position index.
pub fn parse(path: &Path, text: &str) -> Result<(Value, Positions), Error> {
    let mut b = Builder {
        stack: Vec::new(),
        root: None,
        positions: Positions::default(),
        anchors: Vec::new(),
        nodes: 0,
        aliases: 0,
        error: None,
    };
    let syntax = |line: usize, column: usize, message: String| Error::syntax(path, line, column, message);
    Parser::new_from_str(text).load(&mut b, false).map_err(|e| {
        let m = e.marker();
        syntax(m.line(), m.col() + 1, format!("invalid YAML: {}", e.info()))
    })?;
    if let Some(msg) = b.error {
        let line = msg
            .strip_prefix("line ")
            .and_then(|r| r.split(':').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(1);
        return Err(syntax(line, 1, format!("invalid YAML: {msg}")));
    }
    Ok((b.root.unwrap_or(Value::Object(Map::new())), b.positions))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_positions() {
        let text =
            "pre_tool_execution:\n  - command: \"echo hi\"\n    timeout: 5\n    filter:\n      tool_name: Bash\n";
        let (v, p) = parse(Path::new("h.yaml"), text).unwrap();
        assert_eq!(v["pre_tool_execution"][0]["timeout"], 5);
        assert_eq!(v["pre_tool_execution"][0]["filter"]["tool_name"], "Bash");
        assert_eq!(p.value("/pre_tool_execution/0/timeout"), (3, 14));
        assert_eq!(p.key("/pre_tool_execution"), (1, 1));
    }

    #[test]
    fn anchors_on_maps_and_lists_work() {
        let text = "base: &b\n  command: echo hi\n  timeout: 5\nlist: &l [1, 2]\nuse: *b\nuse_list: *l\n";
        let (v, _) = parse(Path::new("h.yaml"), text).unwrap();
        assert_eq!(v["use"]["command"], "echo hi");
        assert_eq!(v["use_list"][1], 2);
    }

    #[test]
    fn alias_bombs_are_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let prev = format!("*a{}", i - 1);
            text.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; 10].join(", ")));
        }
        let err = parse(Path::new("h.yaml"), &text).unwrap_err();
        assert!(err.to_string().contains("aliases expand to more than"), "{err}");
    }

    #[test]
    fn syntax_error_names_the_line() {
        let err = parse(Path::new("h.yaml"), "a:\n  - b\n c: [\n").unwrap_err();
        let d = &err.diagnostics()[0];
        assert!(d.at.line >= 2, "{d}");
    }
}
