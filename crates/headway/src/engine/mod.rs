//! The discrete-event engine: one event queue, ties broken by insertion order, and seeded
//! per-component random streams. The run loop that wires the layers together is
//! [`crate::sim::Simulation`].

mod queue;
mod rng;

pub use queue::{order_key, EventQueue, Scheduled};
pub use rng::RngStreams;
