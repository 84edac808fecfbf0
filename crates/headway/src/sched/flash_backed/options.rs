//! Options of flash-backed I/O, one for each choice the paper left open (spec
//! `flash_backed.md` sections 3-4 and 8). Errors name the key as `host.options.<key>`.

use serde::{Deserialize, Serialize};

use crate::error::{HeadwayError, Result};

/// MiB, the unit of the FQueue and NVCache sizes.
pub const MIB: f64 = 1048576.0;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FlashBackedOptions {
    /// FQueue size F, the same for the DRAM copy and the NVCache copy (MiB).
    pub fqueue_mib: f64,
    /// The drive's NVCache; F must fit in it. `None`: exactly F.
    pub nvcache_mib: Option<f64>,
    /// Start flushing at this fraction of F. [TEAM CHOICE] 1.0 (full); a redirect that does
    /// not fit also starts a flush.
    pub high_watermark: f64,
    /// Stop flushing at this fraction of F. [TEAM CHOICE] 0.9 (flush 1/10 of F).
    pub low_watermark: f64,
    /// Divides the flash write time (the paper's Fig. 11 factor).
    pub flash_write_factor: f64,
    /// Cost of one pin or unpin command, µs. [TEAM CHOICE] 10.
    pub pin_us: f64,
    /// Redirect at all (`false` is the paired baseline).
    pub redirect: bool,
    /// Use the next pick's term in the redirect test (off: `h_n > f_n` alone, the polluting
    /// variant the paper warns about).
    pub look_ahead: bool,
    /// Serve reads wholly covered by the FQueue from host memory.
    pub serve_reads: bool,
    /// Write FQueue entries back whenever the request queue is empty.
    pub idle_writeback: bool,
    /// Idle write-back starts only after the request queue has been empty this long (ms),
    /// so entries outlive short gaps and the FQueue size matters. Paper model only (the core
    /// wrapper has no timer). [TEAM CHOICE] 0: the spec's immediate start.
    pub idle_delay_ms: f64,
    /// Beyond the paper: redirect every write that arrives while the platter is spun down
    /// (or spinning up), when it fits, to avoid the spin-up.
    pub avoid_spinup: bool,
    /// A write overlapping FQueue data that the redirect test sends to flash replaces that
    /// data in memory (an absorbed overwrite; the older entry never reaches the platter).
    /// `false`: the spec's Fig. 6 order, coalescing first, so every overlapping write goes
    /// to the platter with the entry. [TEAM CHOICE] `true`: the paper counts overwrites in
    /// the FQueue (Fig. 12), which coalescing-first would never produce.
    pub absorb_overwrites: bool,
}

impl Default for FlashBackedOptions {
    fn default() -> Self {
        FlashBackedOptions {
            fqueue_mib: 100.0,
            nvcache_mib: None,
            high_watermark: 1.0,
            low_watermark: 0.9,
            flash_write_factor: 1.0,
            pin_us: 10.0,
            redirect: true,
            look_ahead: true,
            serve_reads: true,
            idle_writeback: true,
            idle_delay_ms: 0.0,
            avoid_spinup: false,
            absorb_overwrites: true,
        }
    }
}

fn err(key: &str, msg: String) -> HeadwayError {
    HeadwayError::config(format!("host.options.{key}"), msg)
}

impl FlashBackedOptions {
    pub fn validate(&self) -> Result<()> {
        if !(self.fqueue_mib.is_finite() && self.fqueue_mib >= 0.0) {
            return Err(err(
                "fqueue_mib",
                format!("{} is not a size >= 0", self.fqueue_mib),
            ));
        }
        if let Some(nv) = self.nvcache_mib {
            if !(nv.is_finite() && nv >= 0.0) {
                return Err(err("nvcache_mib", format!("{nv} is not a size >= 0")));
            }
            if self.fqueue_mib > nv {
                return Err(err(
                    "fqueue_mib",
                    format!(
                        "the FQueue ({} MiB) is larger than the NVCache ({nv} MiB): the DRAM \
                         copy would not be backed by flash",
                        self.fqueue_mib
                    ),
                ));
            }
        }
        for (key, v) in [
            ("high_watermark", self.high_watermark),
            ("low_watermark", self.low_watermark),
        ] {
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return Err(err(key, format!("{v} is not a fraction in 0..=1")));
            }
        }
        if self.low_watermark > self.high_watermark {
            return Err(err(
                "low_watermark",
                format!(
                    "{} is above high_watermark ({}): watermarks out of order",
                    self.low_watermark, self.high_watermark
                ),
            ));
        }
        if !(self.flash_write_factor.is_finite() && self.flash_write_factor > 0.0) {
            return Err(err(
                "flash_write_factor",
                format!("{} is not > 0", self.flash_write_factor),
            ));
        }
        if !(self.pin_us.is_finite() && self.pin_us >= 0.0) {
            return Err(err("pin_us", format!("{} is not a time >= 0", self.pin_us)));
        }
        if !(self.idle_delay_ms.is_finite() && self.idle_delay_ms >= 0.0) {
            return Err(err(
                "idle_delay_ms",
                format!("{} is not a time >= 0", self.idle_delay_ms),
            ));
        }
        Ok(())
    }

    pub(crate) fn fqueue_sectors(&self) -> u64 {
        (self.fqueue_mib * MIB / 512.0).floor() as u64
    }
}
