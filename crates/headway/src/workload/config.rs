//! Workload configuration as written in experiment files.
//!
//! PLACEHOLDER: a uniform open workload only; the full synthetic/closed/trace configuration
//! replaces this file.

use serde::Deserialize;

use super::synthetic::OpenUniform;
use super::Workload;
use crate::engine::RngStreams;
use crate::error::Result;

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WorkloadConfig {
    pub requests: u64,
    #[serde(default = "default_ia")]
    pub interarrival_ms: f64,
    #[serde(default = "default_size")]
    pub size_sectors: u32,
    #[serde(default = "default_rf")]
    pub read_fraction: f64,
}

fn default_ia() -> f64 {
    10.0
}
fn default_size() -> u32 {
    8
}
fn default_rf() -> f64 {
    1.0
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        WorkloadConfig {
            requests: 10_000,
            interarrival_ms: default_ia(),
            size_sectors: default_size(),
            read_fraction: default_rf(),
        }
    }
}

impl WorkloadConfig {
    pub fn build(
        &self,
        capacity_sectors: u64,
        rng: &RngStreams,
        _base_dir: Option<&std::path::Path>,
    ) -> Result<Box<dyn Workload>> {
        Ok(Box::new(OpenUniform::new(
            self,
            capacity_sectors,
            rng.stream("workload"),
        )))
    }
}
