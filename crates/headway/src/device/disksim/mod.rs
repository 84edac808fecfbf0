//! Readers for DiskSim 4.0's parameter files (`.parv`, `.diskspecs`, `.model`, `.seek`).
//!
//! PLACEHOLDER: filled by the DiskSim-reader work.
