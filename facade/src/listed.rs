//! Rows of [`crate::HookSystem::describe_hooks`]: what `hookshot list` and
//! the sidecar's `list` show. Borrowed from the registry and serialized
//! as they are, so listing 10,000 hooks builds no JSON tree.

use hookshot_core::{Dialect, EventKind, FailPolicy, MatcherSpec, SourceKind};

/// One row: a defined hook, or a source that gave none.
#[derive(Debug, serde::Serialize)]
#[serde(untagged)]
pub enum Listed<'a> {
    /// A defined hook.
    Hook(ListedHook<'a>),
    /// A source that gave no hooks (untrusted or broken).
    Source(ListedSource<'a>),
}

/// A defined hook, as listed.
#[derive(Debug, serde::Serialize)]
pub struct ListedHook<'a> {
    /// The event it is registered for.
    pub event: EventKind,
    /// Its name, or its command when it has none.
    pub name: &'a str,
    /// The command line, for command hooks.
    pub command: Option<&'a str>,
    /// Which targets it applies to.
    pub matcher: &'a MatcherSpec,
    /// Where it comes from.
    pub source: SourceKind,
    /// The dialect it was written in.
    pub dialect: Dialect,
    /// Where it is written (`file:line:column`).
    pub at: String,
    /// Its place in the run order; none when it does not run.
    pub precedence: Option<usize>,
    /// Whether its group asked for sequential execution.
    pub sequential: bool,
    /// Its timeout.
    pub timeout_ms: u64,
    /// What its failure means.
    pub fail: FailPolicy,
    /// `active`, `untrusted` or `disabled`.
    pub state: &'static str,
}

/// A source listed for itself: it gave no hooks.
#[derive(Debug, serde::Serialize)]
pub struct ListedSource<'a> {
    /// Always none: the row is a source, not a hook.
    pub event: Option<EventKind>,
    /// Always none.
    pub name: Option<&'a str>,
    /// Which source it is.
    pub source: SourceKind,
    /// Its file.
    pub at: String,
    /// Always none: nothing of it runs.
    pub precedence: Option<usize>,
    /// `untrusted` or `broken`.
    pub state: &'static str,
    /// Why it gave no hooks.
    pub problem: &'a str,
}
