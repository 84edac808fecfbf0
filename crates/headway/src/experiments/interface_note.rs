//! Which host interface a reproduction's headline is measured on, and why, carried in its
//! headline (`interface`, `paper_interface`, `interface_why`) so that the printed report
//! and `headline.json` say it.

use serde::Serialize;

/// A reproduction's interface (a profile name of `device::hdd::interface`).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct InterfaceNote {
    /// The profile the headline is measured on.
    pub interface: &'static str,
    /// The profile of the paper's own hardware, where known (else the same).
    pub paper_interface: &'static str,
    /// Why that choice, and where the paper's interface comes from.
    pub interface_why: &'static str,
}
