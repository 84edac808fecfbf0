//! The discrete-event engine: one event queue, ties broken by insertion order, and seeded
//! per-component random streams. The engine knows nothing of the layers: the run loop above
//! it pops events and hands each to the component it names.

mod queue;
mod rng;

pub(crate) use queue::order_key;
pub use queue::{EventQueue, Scheduled};
pub use rng::RngStreams;
