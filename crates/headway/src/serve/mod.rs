//! `headway serve`: the live simulation behind a Network Block Device server, so that real
//! programs do their I/O on the modelled drive. Each request enters the model at its
//! wall-clock arrival (scaled by the speed) and its reply leaves when the model completes
//! it; the data lives in a backing file or memory.

mod backing;
mod connection;
mod engine;
mod live_model;
pub mod model;
pub(crate) mod nbd;
mod pacing;
mod reply_port;
mod server;
mod shared;
mod stream;
mod writer;

pub use live_model::LiveModel;
pub use model::{Arrival, Done, FixedLatency, ModelDevice, ServeModel};
pub use server::{Listen, Progress, ServeOptions, Server, Stopped};

/// A line about one connection's trouble; the server carries on.
fn log(msg: &str) {
    eprintln!("headway serve: {msg}");
}
