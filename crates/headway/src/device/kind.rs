use serde::de::value::{Error, StrDeserializer};
use serde::de::IntoDeserializer;
use serde::Deserialize;

/// What a device entry builds from its `drive` name: the flash device, a hybrid drive, or a
/// rotating drive (any other name: a catalog drive or a drive file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DeviceKind {
    Flash,
    Hybrid,
    #[serde(other)]
    Rotating,
}

impl DeviceKind {
    /// The kind of device `drive = "<drive>"` builds (the names are serde's, written once).
    pub fn of(drive: &str) -> DeviceKind {
        let name: StrDeserializer<'_, Error> = drive.into_deserializer();
        DeviceKind::deserialize(name).unwrap_or(DeviceKind::Rotating)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_pick_the_kind_and_any_other_is_a_rotating_drive() {
        assert_eq!(DeviceKind::of("flash"), DeviceKind::Flash);
        assert_eq!(DeviceKind::of("hybrid"), DeviceKind::Hybrid);
        for other in ["atlas10k", "drives/x.toml", "Flash", ""] {
            assert_eq!(DeviceKind::of(other), DeviceKind::Rotating, "{other}");
        }
    }
}
