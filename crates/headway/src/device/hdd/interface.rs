//! Named host interfaces a drive can be put behind (`[drive] interface = "ultra160"`): each
//! sets the drive's bus time per sector from the interface's payload rate, with the
//! standard that defines it.
//!
//! The time per 512-byte sector is the sector over the interface's peak payload rate
//! (MB = 10^6 bytes, as the standards quote them). Framing, arbitration and command phases
//! are not added: the drive's parameters already charge its controller overheads per
//! command (DiskSim's "Read/Write command overhead"), and the interfaces' own protocol cost
//! per command is a few microseconds against those tenths of a millisecond, so the
//! profiles are the interfaces' best case. DiskSim's validated drives carry the time their
//! validation measured (`validated`, the default): about 0.1 ms per sector on the Atlas
//! 10K, IBM 18ES and Cheetah 9LP, which is 5 MB/s, far below their Ultra or Ultra2 SCSI
//! links: the figure that fits the traces measured on the validation's test systems.

use serde::de::{self, Deserialize, Deserializer};

/// One named interface.
#[derive(Debug, PartialEq)]
pub struct Interface {
    /// The name the TOML key and the Python API take.
    pub name: &'static str,
    /// What it is called.
    pub title: &'static str,
    /// Peak payload rate (MB/s, 10^6 bytes); `None`: the drive's own parameters.
    pub payload_mb_s: Option<f64>,
    /// The standard or datasheet the rate is from.
    pub source: &'static str,
}

const SECTOR_BYTES: f64 = 512.0;

impl Interface {
    /// The bus time per sector this interface gives (ms); `None`: the drive's own.
    pub fn sector_transfer_ms(&self) -> Option<f64> {
        // Bytes over bytes per ms, one division: 0.0064 for 80 MB/s, not an ulp off it.
        self.payload_mb_s.map(|mb_s| SECTOR_BYTES / (mb_s * 1e3))
    }
}

/// Every named interface, the default first.
pub const INTERFACES: &[Interface] = &[
    Interface {
        name: "validated",
        title: "the drive file's own bus (DiskSim's validated value, the default)",
        payload_mb_s: None,
        source: "the drive's parameters: DiskSim 4.0 \"Bulk sector transfer time\" and its \
                 bus's block transfer time, as validated against the real drive",
    },
    Interface {
        name: "ultra2",
        title: "Ultra2 Wide SCSI (Fast-40, 16 bit)",
        payload_mb_s: Some(80.0),
        source: "SCSI Parallel Interface-2 (SPI-2), ANSI X3.302-1998",
    },
    Interface {
        name: "ultra160",
        title: "Ultra160 SCSI (Fast-80 DT, 16 bit)",
        payload_mb_s: Some(160.0),
        source: "SCSI Parallel Interface-3 (SPI-3), ANSI NCITS 336-2000",
    },
    Interface {
        name: "ultra320",
        title: "Ultra320 SCSI (Fast-160 DT, 16 bit)",
        payload_mb_s: Some(320.0),
        source: "SCSI Parallel Interface-4 (SPI-4), ANSI INCITS 362-2002",
    },
    Interface {
        name: "ata66",
        title: "ATA-66 (Ultra DMA mode 4)",
        payload_mb_s: Some(66.7),
        source: "AT Attachment with Packet Interface-5 (ATA/ATAPI-5), ANSI NCITS 340-2000",
    },
    Interface {
        name: "ata100",
        title: "ATA-100 (Ultra DMA mode 5)",
        payload_mb_s: Some(100.0),
        source: "AT Attachment with Packet Interface-6 (ATA/ATAPI-6), ANSI INCITS 361-2002",
    },
    Interface {
        name: "sata6g",
        title: "Serial ATA 6 Gb/s (8b/10b coded: 600 MB/s payload)",
        payload_mb_s: Some(600.0),
        source: "Serial ATA Revision 3.0 (SATA-IO, 2009)",
    },
    Interface {
        name: "fast_scsi2",
        title: "Fast SCSI-2 (Fast-10, 8 bit)",
        payload_mb_s: Some(10.0),
        source: "Small Computer System Interface-2 (SCSI-2), ANSI X3.131-1994",
    },
];

/// The interface named `name`, or an error listing the names known.
pub fn interface(name: &str) -> Result<&'static Interface, String> {
    INTERFACES.iter().find(|i| i.name == name).ok_or_else(|| {
        let known: Vec<&str> = INTERFACES.iter().map(|i| i.name).collect();
        format!("unknown interface `{name}`; known: {}", known.join(", "))
    })
}

/// An interface named in a table: an unknown name is refused as it is read, so the error
/// points at its line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InterfaceChoice(pub &'static Interface);

impl<'de> Deserialize<'de> for InterfaceChoice {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        interface(&name)
            .map(InterfaceChoice)
            .map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sector_takes_its_bytes_over_the_payload_rate() {
        let ms = |n| interface(n).unwrap().sector_transfer_ms().unwrap();
        assert_eq!(ms("ultra2"), 0.0064);
        assert!((ms("fast_scsi2") - 0.0512).abs() < 1e-12);
        assert!((ms("ultra160") - 0.0032).abs() < 1e-12);
        assert!((ms("ultra320") - 0.0016).abs() < 1e-12);
        assert!((ms("ata100") - 0.00512).abs() < 1e-12);
        assert!((ms("sata6g") - 512.0 / 600e3).abs() < 1e-12);
        assert_eq!(interface("validated").unwrap().sector_transfer_ms(), None);
    }

    #[test]
    fn an_unknown_name_lists_the_known_ones() {
        let e = interface("scsi9").unwrap_err();
        for i in INTERFACES {
            assert!(e.contains(i.name), "{e}");
        }
    }

    #[test]
    fn every_profile_names_its_source() {
        for i in INTERFACES {
            assert!(!i.source.is_empty() && !i.title.is_empty(), "{}", i.name);
        }
    }
}
