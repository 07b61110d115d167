//! What hookshot asks of the operating system where Linux and macOS
//! answer differently, in one room: a process's executable and parent
//! (nesting, the warm server's peer), this process's umask, and glibc's
//! name services in a static build (the one foreign call of the
//! workspace). Linux reads `/proc`; macOS asks libproc (`darwin-libproc`, no SDK needed to build). Everything else
//! forbids `unsafe` and reads no `/proc` itself.

pub mod name_services;
pub mod process;
