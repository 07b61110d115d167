//! Where each value of a JSON document starts: JSON pointer -> line, column.
//!
//! serde_json reports positions only for syntax errors. Validation happens on
//! the parsed `Value`, so to name the line of a bad value we index the source
//! once: one linear pass that records where every value and every object key
//! starts. The document has already parsed, so the scanner may assume it is
//! well formed.

/// Seeded per process like std's, at a fraction of SipHash's cost.
type HashMap<K, V> = foldhash::HashMap<K, V>;

/// Positions of values (and object keys) by JSON pointer.
///
/// A JSON text is indexed as a tree walked by pointer segments: one node
/// per value, no string per pointer. Building a pointer string and hashing
/// it for every value of every file was 45% of loading 10,000 hooks, while
/// only the few pointers that name a hook or an error are ever asked for.
/// Front ends that produce pointers themselves (YAML, TOML) insert them.
#[derive(Debug, Default, Clone)]
pub struct Positions {
    tree: Tree,
    values: HashMap<String, (usize, usize)>,
    keys: HashMap<String, (usize, usize)>,
    duplicates: Vec<Duplicate>,
}

/// A key written twice in one object: serde_json keeps the last value, so
/// whatever the first one held is silently gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// The key.
    pub key: String,
    /// Where it is first written (line, column).
    pub first: (usize, usize),
    /// Where it is written again: the value kept.
    pub again: (usize, usize),
}

impl Positions {
    /// Line and column (1-based) where the value at `pointer` starts; for a
    /// pointer that does not exist, the nearest existing ancestor's.
    pub fn value(&self, pointer: &str) -> (usize, usize) {
        if !self.tree.nodes.is_empty() {
            return self.tree.value(pointer);
        }
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
        if !self.tree.nodes.is_empty() {
            return self.tree.key(pointer).unwrap_or_else(|| self.tree.value(pointer));
        }
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
            tree: Tree::default(),
            pending: Vec::new(),
            duplicates: Vec::new(),
        };
        s.value();
        s.duplicates.sort_by_key(|d| d.again);
        Positions {
            tree: s.tree,
            duplicates: s.duplicates,
            ..Positions::default()
        }
    }

    /// Keys written twice in one object, in the order of the text.
    pub fn duplicates(&self) -> &[Duplicate] {
        &self.duplicates
    }
}

/// Escapes one reference token of a JSON pointer (RFC 6901).
pub fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Nodes in document order (the root is node 0); each container's children
/// are one contiguous run of `members`, an object's sorted by key.
#[derive(Debug, Default, Clone)]
struct Tree {
    nodes: Vec<Node>,
    members: Vec<Member>,
    /// Every object key, decoded, one after the other.
    keys: String,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    line: u32,
    col: u32,
    object: bool,
    first: u32,
    len: u32,
}

#[derive(Debug, Clone, Copy)]
struct Member {
    /// Byte range of the key in `Tree::keys` (empty for array elements).
    key: (u32, u32),
    line: u32,
    col: u32,
    node: u32,
}

impl Tree {
    fn key_of(&self, m: &Member) -> &str {
        &self.keys[m.key.0 as usize..m.key.1 as usize]
    }

    /// The member named by one pointer token in `node`, if any.
    fn child(&self, node: &Node, token: &str) -> Option<&Member> {
        let run = &self.members[node.first as usize..(node.first + node.len) as usize];
        if !node.object {
            return token.parse::<usize>().ok().and_then(|i| run.get(i));
        }
        let token = unescape_token(token);
        // Sorted stably: of duplicate keys the last one written is the one
        // serde_json keeps.
        let end = run.partition_point(|m| self.key_of(m) <= token.as_ref());
        run[..end].last().filter(|m| self.key_of(m) == token.as_ref())
    }

    fn pos(&self, node: u32) -> (usize, usize) {
        let n = &self.nodes[node as usize];
        (n.line as usize, n.col as usize)
    }

    fn value(&self, pointer: &str) -> (usize, usize) {
        let mut at = 0u32;
        for token in pointer.split('/').skip(1) {
            match self.child(&self.nodes[at as usize], token) {
                Some(m) => at = m.node,
                None => break,
            }
        }
        self.pos(at)
    }

    fn key(&self, pointer: &str) -> Option<(usize, usize)> {
        let (parent, last) = pointer.rsplit_once('/')?;
        let mut at = 0u32;
        for token in parent.split('/').skip(1) {
            at = self.child(&self.nodes[at as usize], token)?.node;
        }
        let node = &self.nodes[at as usize];
        let m = self.child(node, last).filter(|_| node.object)?;
        Some((m.line as usize, m.col as usize))
    }
}

fn unescape_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains('~') {
        token.replace("~1", "/").replace("~0", "~").into()
    } else {
        token.into()
    }
}

fn narrow(n: usize) -> u32 {
    // Settings files are capped at 4 MiB, far below u32::MAX lines or values.
    u32::try_from(n).unwrap_or(u32::MAX)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    i: usize,
    line: usize,
    col: usize,
    tree: Tree,
    /// Children of the containers being scanned, innermost last.
    pending: Vec<Member>,
    duplicates: Vec<Duplicate>,
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

    /// Skips a string literal and returns the byte range of its raw text
    /// (quotes included) and whether it holds an escape.
    fn string(&mut self) -> (usize, usize, bool) {
        let start = self.i;
        let mut escaped = false;
        self.bump();
        while let Some(b) = self.peek() {
            match b {
                b'\\' => {
                    escaped = true;
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
        (start, self.i, escaped)
    }

    /// Appends an object key, decoded, to the key buffer.
    fn key(&mut self) -> (u32, u32) {
        let (start, end, escaped) = self.string();
        let raw = std::str::from_utf8(&self.bytes[start..end]).unwrap_or("\"\"");
        let from = self.tree.keys.len();
        if escaped {
            let key: String = serde_json::from_str(raw).unwrap_or_default();
            self.tree.keys.push_str(&key);
        } else if raw.len() >= 2 {
            self.tree.keys.push_str(&raw[1..raw.len() - 1]);
        }
        (narrow(from), narrow(self.tree.keys.len()))
    }

    /// Scans one value and returns its node.
    fn value(&mut self) -> u32 {
        self.ws();
        let me = narrow(self.tree.nodes.len());
        self.tree.nodes.push(Node {
            line: narrow(self.line),
            col: narrow(self.col),
            object: false,
            first: 0,
            len: 0,
        });
        match self.peek() {
            Some(open @ (b'{' | b'[')) => {
                let object = open == b'{';
                let close = if object { b'}' } else { b']' };
                let base = self.pending.len();
                self.bump();
                loop {
                    self.ws();
                    match self.peek() {
                        Some(b) if b == close => {
                            self.bump();
                            break;
                        }
                        None => break,
                        Some(b',') => {
                            self.bump();
                            continue;
                        }
                        _ => {}
                    }
                    let (line, col) = (narrow(self.line), narrow(self.col));
                    let key = if object {
                        let key = self.key();
                        self.ws();
                        if self.peek() == Some(b':') {
                            self.bump();
                        }
                        key
                    } else {
                        (0, 0)
                    };
                    let node = self.value();
                    self.pending.push(Member { key, line, col, node });
                }
                let run = &mut self.pending[base..];
                if object {
                    let keys = &self.tree.keys;
                    run.sort_by(|a, b| {
                        keys[a.key.0 as usize..a.key.1 as usize].cmp(&keys[b.key.0 as usize..b.key.1 as usize])
                    });
                    // Sorted stably: equal keys are neighbours, in text order.
                    for pair in run.windows(2) {
                        let key = &keys[pair[0].key.0 as usize..pair[0].key.1 as usize];
                        if key == &keys[pair[1].key.0 as usize..pair[1].key.1 as usize] {
                            self.duplicates.push(Duplicate {
                                key: key.to_string(),
                                first: (pair[0].line as usize, pair[0].col as usize),
                                again: (pair[1].line as usize, pair[1].col as usize),
                            });
                        }
                    }
                }
                let first = narrow(self.tree.members.len());
                self.tree.members.extend(self.pending.drain(base..));
                let len = narrow(self.tree.members.len()) - first;
                self.tree.nodes[me as usize] = Node {
                    object,
                    first,
                    len,
                    ..self.tree.nodes[me as usize]
                };
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
        me
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

    #[test]
    fn duplicate_and_escaped_keys() {
        let text = "{\"a/b\": 1, \"t~\": 2, \"\\u0078\": 3, \"d\": 4, \"d\": 5}";
        let p = Positions::of_json(text);
        assert_eq!(p.value("/a~1b"), (1, 9));
        assert_eq!(p.key("/t~0"), (1, 12));
        assert_eq!(p.value("/x"), (1, 31));
        // serde_json keeps the last of duplicate keys, so positions do too.
        assert_eq!(p.value("/d"), (1, 47));
        assert_eq!(p.key("/d"), (1, 42));
        assert_eq!(p.key("/d/0"), (1, 47));
        assert_eq!(p.value("/nothing/deeper"), (1, 1));
        assert_eq!(
            p.duplicates(),
            [Duplicate {
                key: "d".into(),
                first: (1, 34),
                again: (1, 42)
            }]
        );
        assert!(
            Positions::of_json(text.replace("\"d\": 5", "\"e\": 5").as_str())
                .duplicates()
                .is_empty()
        );
    }

    /// Byte offset of a 1-based line and character column.
    fn offset(text: &str, (line, col): (usize, usize)) -> usize {
        let start: usize = text.split_inclusive('\n').take(line - 1).map(str::len).sum();
        start + text[start..].chars().take(col - 1).map(char::len_utf8).sum::<usize>()
    }

    fn pointers(v: &serde_json::Value, at: String, out: &mut Vec<(String, bool)>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, c) in m {
                    let p = format!("{at}/{}", escape_token(k));
                    out.push((p.clone(), true));
                    pointers(c, p, out);
                }
            }
            serde_json::Value::Array(a) => {
                for (i, c) in a.iter().enumerate() {
                    let p = format!("{at}/{i}");
                    out.push((p.clone(), false));
                    pointers(c, p, out);
                }
            }
            _ => {}
        }
    }

    fn json() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i32>().prop_map(serde_json::Value::from),
            "[a-z/~\"\\\\é\n ]{0,6}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::from),
                proptest::collection::btree_map("[a-c/~\"é]{0,3}", inner, 0..5)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// Whatever the layout, the position of every pointer is where its
        /// value's text starts, and a key's is where the key is written.
        #[test]
        fn every_pointer_points_at_its_text(v in json(), pretty in proptest::bool::ANY) {
            let text = if pretty { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) }.unwrap();
            let p = Positions::of_json(&text);
            let mut all = vec![(String::new(), false)];
            pointers(&v, String::new(), &mut all);
            for (ptr, is_member) in all {
                let at = offset(&text, p.value(&ptr));
                let mut de = serde_json::Deserializer::from_str(&text[at..]).into_iter::<serde_json::Value>();
                let found = de.next().and_then(Result::ok);
                proptest::prop_assert_eq!(found.as_ref(), v.pointer(&ptr), "pointer {}", ptr);
                if is_member {
                    let key = ptr.rsplit('/').next().unwrap().replace("~1", "/").replace("~0", "~");
                    let at = offset(&text, p.key(&ptr));
                    let written = serde_json::to_string(&key).unwrap();
                    proptest::prop_assert!(text[at..].starts_with(&written), "key of {}", ptr);
                }
            }
        }
    }
}
