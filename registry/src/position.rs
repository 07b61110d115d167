//! Where each value of a JSON document starts: JSON pointer -> line, column.
//!
//! serde_json reports positions only for syntax errors. Validation happens on
//! the parsed `Value`, so to name the line of a bad value we index the source
//! once: one linear pass that records where every value and every object key
//! starts. The document has already parsed, so the scanner may assume it is
//! well formed.

/// Seeded per process like std's, at a fraction of SipHash's cost: every
/// value of every settings file is indexed, and hashing the pointers was
/// the largest single cost of loading 10,000 hooks.
type HashMap<K, V> = foldhash::HashMap<K, V>;

/// Positions of values (and object keys) by JSON pointer.
#[derive(Debug, Default, Clone)]
pub struct Positions {
    values: HashMap<String, (usize, usize)>,
    keys: HashMap<String, (usize, usize)>,
}

impl Positions {
    /// Line and column (1-based) where the value at `pointer` starts; for a
    /// pointer that does not exist, the nearest existing ancestor's.
    pub fn value(&self, pointer: &str) -> (usize, usize) {
        let mut p = pointer;
        loop {
            if let Some(&pos) = self.values.get(p) {
                return pos;
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return (1, 1),
            }
        }
    }

    /// Where the key of the member at `pointer` is written (falls back to
    /// the value's position).
    pub fn key(&self, pointer: &str) -> (usize, usize) {
        self.keys.get(pointer).copied().unwrap_or_else(|| self.value(pointer))
    }

    /// Records a value's position (used by non-JSON front ends such as YAML).
    pub fn insert_value(&mut self, pointer: String, line: usize, column: usize) {
        self.values.insert(pointer, (line, column));
    }

    /// Records a key's position.
    pub fn insert_key(&mut self, pointer: String, line: usize, column: usize) {
        self.keys.insert(pointer, (line, column));
    }

    /// Indexes a JSON text that is known to parse.
    pub fn of_json(text: &str) -> Positions {
        let mut s = Scanner {
            bytes: text.as_bytes(),
            i: 0,
            line: 1,
            col: 1,
            out: Positions::default(),
        };
        s.value(String::new());
        s.out
    }
}

/// Escapes one reference token of a JSON pointer (RFC 6901).
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

struct Scanner<'a> {
    bytes: &'a [u8],
    i: usize,
    line: usize,
    col: usize,
    out: Positions,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn bump(&mut self) {
        if let Some(b) = self.peek() {
            self.i += 1;
            if b == b'\n' {
                self.line += 1;
                self.col = 1;
            } else if b & 0xC0 != 0x80 {
                // Count characters, not UTF-8 continuation bytes.
                self.col += 1;
            }
        }
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.bump();
        }
    }

    /// Skips a string literal and returns its raw text (quotes included).
    fn string(&mut self) -> &str {
        let start = self.i;
        self.bump();
        while let Some(b) = self.peek() {
            match b {
                b'\\' => {
                    self.bump();
                    self.bump();
                }
                b'"' => {
                    self.bump();
                    break;
                }
                _ => self.bump(),
            }
        }
        std::str::from_utf8(&self.bytes[start..self.i]).unwrap_or("\"\"")
    }

    fn value(&mut self, ptr: String) {
        self.ws();
        self.out.values.insert(ptr.clone(), (self.line, self.col));
        match self.peek() {
            Some(b'{') => {
                self.bump();
                loop {
                    self.ws();
                    match self.peek() {
                        Some(b'}') | None => {
                            self.bump();
                            return;
                        }
                        Some(b',') => {
                            self.bump();
                            continue;
                        }
                        _ => {}
                    }
                    let pos = (self.line, self.col);
                    let raw = self.string().to_string();
                    let key: String = serde_json::from_str(&raw).unwrap_or_default();
                    let child = format!("{ptr}/{}", escape_token(&key));
                    self.out.keys.insert(child.clone(), pos);
                    self.ws();
                    if self.peek() == Some(b':') {
                        self.bump();
                    }
                    self.value(child);
                }
            }
            Some(b'[') => {
                self.bump();
                let mut idx = 0usize;
                loop {
                    self.ws();
                    match self.peek() {
                        Some(b']') | None => {
                            self.bump();
                            return;
                        }
                        Some(b',') => {
                            self.bump();
                            continue;
                        }
                        _ => {}
                    }
                    self.value(format!("{ptr}/{idx}"));
                    idx += 1;
                }
            }
            Some(b'"') => {
                self.string();
            }
            _ => {
                while let Some(b) = self.peek() {
                    if matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.bump();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_nested_values_and_keys() {
        let text = "{\n  \"hooks\": {\n    \"BeforeTool\": [\n      {\"matcher\": \"a/b\", \"x~\": 1}\n    ]\n  }\n}";
        let p = Positions::of_json(text);
        assert_eq!(p.value("/hooks/BeforeTool/0"), (4, 7));
        assert_eq!(p.value("/hooks/BeforeTool/0/matcher"), (4, 19));
        assert_eq!(p.key("/hooks/BeforeTool"), (3, 5));
        assert_eq!(p.key("/hooks/BeforeTool/0/x~0"), (4, 26));
        assert_eq!(p.value("/hooks/BeforeTool/0/missing"), (4, 7));
    }

    #[test]
    fn columns_count_characters() {
        let p = Positions::of_json("{\"é\": \"ü\", \"k\": 1}");
        assert_eq!(p.value("/k"), (1, 17));
    }
}
