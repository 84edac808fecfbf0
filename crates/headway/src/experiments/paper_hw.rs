//! The hardware a paper ran on, as a catalog drive behind a named interface: each
//! reproduction runs its headline points on it too and reports them under `_paper_hw` keys
//! beside the validated DiskSim drive's, with `paper_hw` naming what was used.

/// A catalog drive (`device::catalog`) behind an interface profile
/// (`device::hdd::interface`).
#[derive(Clone, Copy, Debug)]
pub struct PaperHw {
    pub drive: &'static str,
    pub interface: &'static str,
}

impl PaperHw {
    /// `drive on interface`, as the headline's `paper_hw` names it.
    pub fn label(&self) -> String {
        format!("{} on {}", self.drive, self.interface)
    }

    /// The `[[devices]]` (or `[drive]`) key lines that put a run on this hardware.
    pub fn device_lines(&self) -> String {
        format!(
            "drive = \"{}\"\ninterface = \"{}\"",
            self.drive, self.interface
        )
    }
}
