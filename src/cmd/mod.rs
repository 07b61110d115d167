//! One module per command: its arguments and what it does.

pub(crate) mod bench;
pub(crate) mod doctor;
pub(crate) mod explain;
pub(crate) mod fire;
pub(crate) mod install;
pub(crate) mod list;
pub(crate) mod replay;
pub(crate) mod serve;
pub(crate) mod stats;
pub(crate) mod test;
pub(crate) mod trust;
pub(crate) mod validate;
pub(crate) mod warm;
