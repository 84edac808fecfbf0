//! Years until a flash wears out, the paper's way (spec `flash_backed.md` section 3.6):
//! erases counted over a run, extrapolated to the blocks' endurance assuming optimal wear
//! levelling (every block erased equally often).

/// `blocks * cycles / (erases_per_day * 365)`; infinite when nothing was erased.
pub fn years_to_wear_out(blocks: f64, cycles: u64, erases: u64, run_days: f64) -> f64 {
    if erases == 0 || run_days <= 0.0 {
        return f64::INFINITY;
    }
    let per_day = erases as f64 / run_days;
    (blocks * cycles as f64) / (per_day * 365.0)
}

/// The spec's erase count: one erase per erase block of data written to flash.
pub fn erases_for_bytes(bytes_written: u64, erase_block_bytes: u64) -> u64 {
    bytes_written / erase_block_bytes
}
