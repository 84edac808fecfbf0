//! Every integration test of the headway crate, linked as one test binary (a binary per file
//! linked the crate and its dependencies once per file: most of the suite's build time). One
//! module per subject, the helpers they share in `common`, the files they read in
//! `tests/fixtures/`. A test's name starts with its module: `cargo test -p headway --test
//! integration catalog::` runs one. The tests that need the reference data sit in
//! `shared_data` modules (`cargo test -- --ignored shared_data::`).

mod common;

mod anticipatory;
mod array_cache_device;
mod array_pacing;
mod array_rebuild;
mod arrays;
mod avoid_spinup;
mod bus_overlap;
mod calibrate_all_drives;
mod calibrated_vs_oracle;
mod calibration;
mod catalog;
mod cello;
mod cello_reproduce;
mod composition;
mod ctlr_cache;
mod disksim;
mod disksim_oracle;
mod disksim_reference_files;
mod disksim_seeds;
mod disksim_valid;
mod dual_actuator;
mod dual_actuator_devices;
mod engine;
mod extract_device;
mod firmware;
mod firmware_arrival_bus;
mod firmware_free_blocks;
mod firmware_freeblock;
mod firmware_queue_vs_disksim;
mod firmware_readahead_wait;
mod firmware_writeback_queue;
mod flash_backed;
mod flash_device;
mod freeblock;
mod freeblock_drives;
mod fuzz_regressions;
mod geometry;
mod host_decisions;
mod host_queued_plan;
mod hostile_sizes;
mod hybrid_core;
mod hybrid_device;
mod hybrid_drive_config;
mod imperfections;
mod layout;
mod live;
mod live_summary;
mod mechanics;
mod oracle_queued;
mod plugin_stats;
mod power_states;
mod predict_queued_rules;
mod reproduce_freeblock;
mod reproduce_rotational;
mod rotational;
mod schedulers;
mod seams;
mod serve;
mod shared_bus;
mod smr;
mod trace_bounds;
mod trace_formats;
mod trace_malformed;
mod trace_priority;
mod trace_reference;
mod trace_replay;
mod validation;
mod workload_bursty;
mod workload_closed;
mod workload_config;
mod workload_synthetic;
mod workload_trace;
mod zone_commands;
mod zone_plug_merge;
mod zone_plugging;
mod zoned;
mod zoned_host;
