//! hookshot core: the vocabulary every stage shares.
//!
//! Events and their names in each dialect ([`event`]), hook definitions as the
//! registry resolves them ([`hook`]), what a hook answers ([`output`]), what a
//! run left behind ([`record`]), the merged answer to an event ([`outcome`]),
//! event inputs ([`input`]), the model wire translation (`llm`) and the
//! table of agents ([`agent`]: what each does its own way).
//! This crate depends on nothing else of hookshot's.

pub mod agent;
pub mod atomic;
pub mod display;
pub mod event;
pub mod hook;
pub mod input;
pub mod judge;
pub mod outcome;
pub mod output;
pub mod paths;
pub mod record;
pub mod regex_parse;
pub mod regex_size;
pub mod subst;
pub mod suggest;
pub mod tools;

pub use agent::{Agent, RegexFlavour};
pub use event::{Dialect, EventKind, MatchTarget};
pub use hook::{
    BACKGROUND_CEILING, Background, FailPolicy, HookAction, HookDef, HookOptions, MatcherSpec, McpStdio, ProcessSpec,
    Provenance, SourceKind, ToolRule, literal_alternatives, main_argument,
};
pub use outcome::Outcome;
pub use output::{Decision, Hook, HookOutput, TailToolCall};
pub use record::{Captured, Exit, Failure, FailureKind, HookRecord};
