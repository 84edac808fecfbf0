//! `disksim_logorg` logical organisations -> `[[arrays]]` volumes.
//!
//! An organisation over one disk with no redundancy and no striping is that disk itself (no
//! volume); one over several disks `Asis` with `Parts` addressing leaves each disk addressed
//! on its own. Striped, shadowed and parity organisations become volumes.

use super::values::{names, num_or, word};
use super::Notes;
use crate::config::{ArrayConfig, ArrayLevel, MirrorRead, ParityRotation, SmallWrite};
use crate::device::disksim::parse::Block;
use crate::error::Result;

/// What one logical organisation becomes.
pub(super) enum Org {
    /// Its disks are addressed directly.
    Plain,
    Volume(Box<ArrayConfig>),
}

/// The organisation named `name`, its disks given by `devices` (checked against the
/// topology by the caller).
pub(super) fn logorg(block: &Block, name: &str, notes: &mut Notes) -> Result<(Org, Vec<String>)> {
    let members = names(block, "devices")?;
    let redundancy = word(block, "Redundancy scheme").unwrap_or("Noredun");
    let distribution = word(block, "Distribution scheme").unwrap_or("Asis");
    let level = match (redundancy, distribution) {
        ("Noredun", "Asis") => return Ok((Org::Plain, members)),
        ("Noredun", _) => ArrayLevel::Raid0,
        ("Shadowed", _) => {
            let copies = num_or(block, "Number of copies", 2.0)? as usize;
            if members.len() > copies.max(1) {
                ArrayLevel::Raid10
            } else {
                ArrayLevel::Raid1
            }
        }
        ("Parity_disk", _) => ArrayLevel::Raid4,
        ("Parity_rotated", _) => ArrayLevel::Raid5,
        (other, _) => {
            let p = block.get("Redundancy scheme").expect("a word was read");
            return Err(p.loc.error(
                Some("Redundancy scheme"),
                format!(
                    "`{other}` is not a redundancy scheme headway maps (Noredun, Shadowed, \
                     Parity_disk, Parity_rotated)"
                ),
            ));
        }
    };
    if !matches!(distribution, "Striped" | "Asis") {
        notes.warn(
            block,
            "Distribution scheme",
            format!("`{distribution}` is laid out as `Striped`"),
        );
    }
    let stripe = num_or(block, "Stripe unit", 128.0)?.max(1.0) as u64;
    let parity_unit = num_or(block, "Parity stripe unit", stripe as f64)? as u64;
    if level.parity_units() > 0 && parity_unit != stripe {
        notes.warn(
            block,
            "Parity stripe unit",
            format!("{parity_unit} differs from the stripe unit; parity rotates per stripe unit ({stripe})"),
        );
    }
    let rotation = match num_or(block, "Parity rotation type", 1.0)? as i64 {
        2 => ParityRotation::LeftAsymmetric,
        3 => ParityRotation::RightAsymmetric,
        4 => ParityRotation::RightSymmetric,
        _ => ParityRotation::LeftSymmetric,
    };
    let mirror_read = match num_or(block, "Copy choice on read", 1.0)? as i64 {
        1 => MirrorRead::Primary,
        3 => MirrorRead::RoundRobin,
        5 => MirrorRead::ShortestQueue,
        other => {
            if matches!(level, ArrayLevel::Raid1 | ArrayLevel::Raid10) {
                notes.warn(
                    block,
                    "Copy choice on read",
                    format!("{other} is served by the copy expected to finish first"),
                );
            }
            MirrorRead::Fastest
        }
    };
    let copies = matches!(level, ArrayLevel::Raid10)
        .then(|| num_or(block, "Number of copies", 2.0).map(|c| c as u32))
        .transpose()?;
    let rmw_fraction = (level.parity_units() > 0)
        .then(|| num_or(block, "RMW vs. reconstruct", 0.5))
        .transpose()?;
    let cfg = ArrayConfig {
        name: name.to_string(),
        level,
        members: members.clone(),
        stripe_unit_sectors: stripe,
        parity_stripe_unit_sectors: None,
        parity_rotation: rotation,
        small_write: SmallWrite::default(),
        rmw_fraction,
        // DiskSim's own planning of the small writes a parity organisation splits and joins
        // (docs/disksim-params.md).
        disksim_small_writes: rmw_fraction.is_some(),
        sync_writes: num_or(block, "Synch writes for safety", 0.0)? != 0.0,
        copies,
        mirror_read,
        spare: None,
        failure: None,
        rebuild: None,
        scrub: None,
        member_sectors: None,
        cache: None,
    };
    Ok((Org::Volume(Box::new(cfg)), members))
}
