//! YAML front end (jcli `hooks.yaml`): the same JSON value and position index
//! the JSON front end produces, so one validator serves both.
//!
//! yaml-rust2's event parser reports a marker for every node; building the
//! value from events lets each value keep the line it was written on.

use std::path::Path;

use hookshot_core::Provenance;
use serde_json::{Map, Value};
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use crate::error::{Diagnostic, Error};
use crate::position::{Positions, escape_token};

enum Frame {
    Seq(Vec<Value>, String),
    Map(Map<String, Value>, String, Option<String>),
}

struct Builder {
    stack: Vec<Frame>,
    root: Option<Value>,
    positions: Positions,
    anchors: Vec<(usize, Value)>,
    error: Option<String>,
}

impl Builder {
    /// The pointer of the next value: the parent's pointer plus the index or
    /// pending key.
    fn next_pointer(&self) -> String {
        match self.stack.last() {
            None => String::new(),
            Some(Frame::Seq(items, p)) => format!("{p}/{}", items.len()),
            Some(Frame::Map(_, p, Some(k))) => format!("{p}/{}", escape_token(k)),
            Some(Frame::Map(_, p, None)) => p.clone(),
        }
    }

    fn expecting_key(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Map(_, _, None)))
    }

    fn push_value(&mut self, v: Value, anchor: usize) {
        if anchor > 0 {
            self.anchors.push((anchor, v.clone()));
        }
        match self.stack.last_mut() {
            None => self.root = Some(v),
            Some(Frame::Seq(items, _)) => items.push(v),
            Some(Frame::Map(m, _, key)) => {
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
        match ev {
            Event::Scalar(s, style, anchor, _) => {
                if self.expecting_key() {
                    let p = self.next_pointer();
                    let key_ptr = format!("{p}/{}", escape_token(&s));
                    self.positions.insert_key(key_ptr, line, col);
                    if let Some(Frame::Map(_, _, key)) = self.stack.last_mut() {
                        *key = Some(s);
                    }
                } else {
                    let p = self.next_pointer();
                    self.positions.insert_value(p, line, col);
                    self.push_value(scalar(s, style), anchor);
                }
            }
            Event::SequenceStart(_, _) | Event::MappingStart(_, _) => {
                if self.expecting_key() {
                    self.error
                        .get_or_insert_with(|| format!("line {line}: complex mapping keys are not supported"));
                }
                let p = self.next_pointer();
                self.positions.insert_value(p.clone(), line, col);
                if matches!(ev, Event::SequenceStart(..)) {
                    self.stack.push(Frame::Seq(Vec::new(), p));
                } else {
                    self.stack.push(Frame::Map(Map::new(), p, None));
                }
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let v = match self.stack.pop() {
                    Some(Frame::Seq(items, _)) => Value::Array(items),
                    Some(Frame::Map(m, _, _)) => Value::Object(m),
                    None => return,
                };
                self.push_value(v, 0);
            }
            Event::Alias(id) => {
                let v = self
                    .anchors
                    .iter()
                    .rev()
                    .find(|(a, _)| *a == id)
                    .map(|(_, v)| v.clone())
                    .unwrap_or(Value::Null);
                let p = self.next_pointer();
                self.positions.insert_value(p, line, col);
                self.push_value(v, 0);
            }
            _ => {}
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
        error: None,
    };
    let syntax = |line: usize, column: usize, message: String| {
        Error::Syntax(Diagnostic {
            at: Provenance {
                file: Some(path.to_path_buf()),
                line,
                column,
                pointer: String::new(),
            },
            message,
        })
    };
    Parser::new_from_str(text).load(&mut b, false).map_err(|e| {
        let m = e.marker();
        syntax(m.line(), m.col() + 1, format!("invalid YAML: {}", e.info()))
    })?;
    if let Some(msg) = b.error {
        return Err(syntax(1, 1, format!("invalid YAML: {msg}")));
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
    fn syntax_error_names_the_line() {
        let err = parse(Path::new("h.yaml"), "a:\n  - b\n c: [\n").unwrap_err();
        let d = &err.diagnostics()[0];
        assert!(d.at.line >= 2, "{d}");
    }
}
