//! One module per command: its arguments and what it does. A command never
//! imports another: what two commands share (the agent files `install`
//! and `doctor` read, the warm server `fire --warm` talks to, the case
//! format `test` runs and `fire --record` writes) is a module beside
//! `cmd`, not inside it.

pub(crate) mod bench;
pub(crate) mod check;
pub(crate) mod doctor;
pub(crate) mod explain;
pub(crate) mod fire;
pub(crate) mod list;
pub(crate) mod log;
pub(crate) mod replay;
pub(crate) mod serve;
pub(crate) mod stats;
pub(crate) mod test;
pub(crate) mod trust;
pub(crate) mod validate;
