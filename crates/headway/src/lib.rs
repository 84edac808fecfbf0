//! headway: a fast, validated disk-drive simulator and I/O-scheduling framework.
//!
//! Requests flow from a [`workload`] through a [`host`] (a [`sched`]uler and its
//! [`predict`]or) over a [`link`] to a [`device`]; completions flow back; [`stats`] observe
//! everything; the [`engine`] moves simulated time (integer nanoseconds). [`live`] drives a
//! run from outside, a request and a step at a time (co-simulation).
//!
//! ```
//! use headway::config::{ExperimentConfig, build_simulation};
//! let cfg = ExperimentConfig::from_toml_str(r#"
//!     seed = 7
//!     [drive]
//!     name = "elite3"
//!     [host]
//!     scheduler = "sptf"
//!     [workload]
//!     requests = 200
//! "#, None).unwrap();
//! let result = build_simulation(&cfg, None).unwrap().simulation.run().unwrap();
//! assert_eq!(result.summary.requests, 200);
//! ```

pub mod calibrate;
pub mod config;
pub mod device;
pub mod engine;
pub mod error;
pub mod experiments;
#[doc(hidden)]
pub mod fuzzing;
pub mod host;
pub mod limits;
pub mod link;
pub mod live;
mod named;
pub(crate) mod order;
pub mod predict;
pub mod request;
pub mod request_marks;
pub mod sched;
pub mod serve;
pub mod sim;
pub mod stats;
mod table_keys;
pub mod time;
pub mod validate;
pub mod workload;

pub use error::{HeadwayError, Result};
pub use request::{Command, Completion, Op, Request};
pub use time::SimTime;
