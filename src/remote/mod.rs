//! rfio across machines, in fio's client/server protocol ([`crate::wire`]):
//! [`server`] (`--server`: the listener, one session process per
//! connection, its safety rules) runs the jobs a client sends and reports
//! back; [`client`] (`--client`) sends job files to servers and prints what
//! they report with the same printers as a local run. Both read their
//! command lines with `cli::args` and show `cli::eta`'s status line.

pub(crate) mod client;
mod error;
pub(crate) mod server;

pub(crate) use error::Error;
