//! The queue-ordering pieces both the drive's firmware and the host's schedulers use: what
//! a search asks of a model of the drive ([`PositionCost`], with the [`Access`], [`Moment`],
//! [`Target`] and [`Estimate`] it speaks in), the cylinder-ordered queues, the pruned
//! shortest-positioning search, the elevator picks, and the freeblock planner with its
//! wanted-block bitmap. Below both the device and the
//! predictors: it imports only requests, time and errors.

pub(crate) mod access;
pub(crate) mod cost;
pub(crate) mod cyl_index;
pub mod freeblock;
pub(crate) mod geometry;
pub(crate) mod release;
pub(crate) mod search;
pub(crate) mod stf_queue;
pub(crate) mod sweep;

pub use access::{Access, Moment};
pub(crate) use cost::PositionCost;
pub use cost::{Estimate, Needs, Target};
pub use geometry::{no_geometry, Geometry, LbnRun, TrackInfo};
pub use release::Release;
