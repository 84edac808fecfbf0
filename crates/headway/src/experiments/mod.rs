//! The papers' evaluations as functions: each builds the experiment configurations, runs
//! them, and returns the tables its figures are drawn from. Front ends (the Python CLI's
//! `headway reproduce`) write the tables and plots.

pub mod anticipatory;
pub mod calibrated_table;
pub mod cello;
pub mod flash_backed;
pub mod freeblock;
pub mod interface_note;
pub mod paper_hw;
pub mod rotational;
