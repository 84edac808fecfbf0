//! The zones of a zoned drive: their types, conditions and write pointers, and the ZBC rules
//! a command must keep.

use serde::Serialize;

use super::spec::{ZonedKind, ZonedSpec};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZoneType {
    Conventional,
    SequentialWriteRequired,
    SequentialWritePreferred,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ZoneCondition {
    /// A conventional zone: no write pointer.
    NotWritePointer,
    Empty,
    ImplicitlyOpen,
    ExplicitlyOpen,
    Closed,
    Full,
}

/// One zone as a zone report gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Zone {
    pub start_lbn: u64,
    pub size_sectors: u64,
    pub zone_type: ZoneType,
    pub condition: ZoneCondition,
    /// The next LBN a sequential write must start at (the zone's end when full).
    pub write_pointer_lbn: u64,
}

pub use crate::request_marks::ZoneError;

pub(crate) struct Zones {
    size_sectors: u64,
    max_open: Option<u64>,
    zones: Vec<Zone>,
    /// Order of the last write to each zone (the least recent implicitly open zone is the
    /// one closed to open another).
    last_write: Vec<u64>,
    writes: u64,
    pub(crate) implicit_closes: u64,
}

impl Zones {
    pub(crate) fn new(spec: &ZonedSpec, capacity_sectors: u64) -> Self {
        let n = capacity_sectors / spec.zone_size_sectors;
        let sequential = match spec.kind {
            ZonedKind::HostManaged => ZoneType::SequentialWriteRequired,
            ZonedKind::HostAware => ZoneType::SequentialWritePreferred,
        };
        let zones = (0..n)
            .map(|i| {
                let start = i * spec.zone_size_sectors;
                let conventional = i < spec.conventional_zones;
                Zone {
                    start_lbn: start,
                    size_sectors: spec.zone_size_sectors,
                    zone_type: if conventional {
                        ZoneType::Conventional
                    } else {
                        sequential
                    },
                    condition: if conventional {
                        ZoneCondition::NotWritePointer
                    } else {
                        ZoneCondition::Empty
                    },
                    write_pointer_lbn: start,
                }
            })
            .collect();
        Zones {
            size_sectors: spec.zone_size_sectors,
            max_open: spec.max_open_zones,
            zones,
            last_write: vec![0; n as usize],
            writes: 0,
            implicit_closes: 0,
        }
    }

    pub(crate) fn report(&self) -> &[Zone] {
        &self.zones
    }

    fn index(&self, lbn: u64) -> usize {
        (lbn / self.size_sectors) as usize
    }

    fn open_count(&self) -> (u64, u64) {
        let mut implicit = 0;
        let mut explicit = 0;
        for z in &self.zones {
            match z.condition {
                ZoneCondition::ImplicitlyOpen => implicit += 1,
                ZoneCondition::ExplicitlyOpen => explicit += 1,
                _ => {}
            }
        }
        (implicit, explicit)
    }

    /// Make room for one more open zone by closing the least recently written implicitly
    /// open one; false when every open zone is explicitly open.
    fn make_room(&mut self) -> bool {
        let Some(max) = self.max_open else {
            return true;
        };
        let (implicit, explicit) = self.open_count();
        if implicit + explicit < max {
            return true;
        }
        let victim = (0..self.zones.len())
            .filter(|&i| self.zones[i].condition == ZoneCondition::ImplicitlyOpen)
            .min_by_key(|&i| self.last_write[i]);
        match victim {
            Some(i) => {
                self.zones[i].condition = ZoneCondition::Closed;
                self.implicit_closes += 1;
                true
            }
            None => false,
        }
    }

    /// Check a read of `lbn..lbn + sectors`.
    pub(crate) fn read(&self, lbn: u64, sectors: u64) -> Result<(), ZoneError> {
        let end = lbn + sectors;
        let mut at = lbn;
        while at < end {
            let z = &self.zones[self.index(at)];
            let zone_end = z.start_lbn + z.size_sectors;
            if z.zone_type == ZoneType::SequentialWriteRequired
                && end.min(zone_end) > z.write_pointer_lbn
            {
                return Err(ZoneError::ReadBeyondWritePointer);
            }
            at = zone_end;
        }
        Ok(())
    }

    /// Check a write of `lbn..lbn + sectors` and, when it is allowed, move the write pointer
    /// and open the zone as the drive will.
    pub(crate) fn write(&mut self, lbn: u64, sectors: u64) -> Result<(), ZoneError> {
        let i = self.index(lbn);
        let z = self.zones[i];
        let zone_end = z.start_lbn + z.size_sectors;
        let end = lbn + sectors;
        if z.zone_type == ZoneType::Conventional {
            // Conventional zones take writes anywhere, but not into a sequential zone.
            let last = self.index(end - 1);
            if (i..=last).any(|k| self.zones[k].zone_type != ZoneType::Conventional) {
                return Err(ZoneError::CrossesZoneBoundary);
            }
            return Ok(());
        }
        if end > zone_end {
            return Err(ZoneError::CrossesZoneBoundary);
        }
        let required = z.zone_type == ZoneType::SequentialWriteRequired;
        if required && z.condition == ZoneCondition::Full {
            return Err(ZoneError::ZoneFull);
        }
        if required && lbn != z.write_pointer_lbn {
            return Err(ZoneError::UnalignedWrite);
        }
        if matches!(z.condition, ZoneCondition::Empty | ZoneCondition::Closed) && !self.make_room()
        {
            return Err(ZoneError::TooManyOpenZones);
        }
        self.writes += 1;
        self.last_write[i] = self.writes;
        let z = &mut self.zones[i];
        z.write_pointer_lbn = z.write_pointer_lbn.max(end);
        z.condition = if z.write_pointer_lbn == zone_end {
            ZoneCondition::Full
        } else if z.condition == ZoneCondition::ExplicitlyOpen {
            ZoneCondition::ExplicitlyOpen
        } else {
            ZoneCondition::ImplicitlyOpen
        };
        Ok(())
    }

    /// The zone a zone-append to zone `i` of `sectors` writes at; the write pointer moves.
    pub(crate) fn append(&mut self, i: usize, sectors: u64) -> Result<u64, ZoneError> {
        let z = &self.zones[i];
        if z.zone_type != ZoneType::Conventional && z.condition == ZoneCondition::Full {
            return Err(ZoneError::ZoneFull);
        }
        let lbn = z.write_pointer_lbn;
        self.write(lbn, sectors).map(|()| lbn)
    }

    fn sequential(&self, i: usize) -> bool {
        self.zones[i].zone_type != ZoneType::Conventional
    }

    /// RESET WRITE POINTER: the zone is empty again.
    pub(crate) fn reset(&mut self, i: usize) {
        if self.sequential(i) {
            let z = &mut self.zones[i];
            z.write_pointer_lbn = z.start_lbn;
            z.condition = ZoneCondition::Empty;
        }
    }

    /// OPEN ZONE (explicit).
    pub(crate) fn open(&mut self, i: usize) -> Result<(), ZoneError> {
        if !self.sequential(i) {
            return Ok(());
        }
        let condition = self.zones[i].condition;
        match condition {
            ZoneCondition::ExplicitlyOpen | ZoneCondition::Full => return Ok(()),
            ZoneCondition::ImplicitlyOpen => {}
            _ if !self.make_room() => return Err(ZoneError::TooManyOpenZones),
            _ => {}
        }
        self.zones[i].condition = ZoneCondition::ExplicitlyOpen;
        Ok(())
    }

    /// CLOSE ZONE: an open zone becomes closed (empty if nothing was written).
    pub(crate) fn close(&mut self, i: usize) {
        let z = &mut self.zones[i];
        if matches!(
            z.condition,
            ZoneCondition::ImplicitlyOpen | ZoneCondition::ExplicitlyOpen
        ) {
            z.condition = if z.write_pointer_lbn == z.start_lbn {
                ZoneCondition::Empty
            } else {
                ZoneCondition::Closed
            };
        }
    }

    /// FINISH ZONE: the write pointer moves to the zone's end.
    pub(crate) fn finish(&mut self, i: usize) {
        if self.sequential(i) {
            let z = &mut self.zones[i];
            z.write_pointer_lbn = z.start_lbn + z.size_sectors;
            z.condition = ZoneCondition::Full;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zones(max_open: Option<u64>) -> Zones {
        let spec = ZonedSpec {
            zone_size_sectors: 100,
            conventional_zones: 1,
            kind: ZonedKind::HostManaged,
            max_open_zones: max_open,
            zone_reset_ms: 0.0,
        };
        Zones::new(&spec, 1000)
    }

    #[test]
    fn a_sequential_write_advances_the_write_pointer_and_an_unaligned_one_is_refused() {
        let mut z = zones(None);
        assert_eq!(z.write(5, 10), Ok(()), "conventional: anywhere");
        assert_eq!(z.write(100, 8), Ok(()));
        assert_eq!(z.report()[1].write_pointer_lbn, 108);
        assert_eq!(z.report()[1].condition, ZoneCondition::ImplicitlyOpen);
        assert_eq!(z.write(100, 8), Err(ZoneError::UnalignedWrite));
        assert_eq!(z.write(116, 8), Err(ZoneError::UnalignedWrite));
        assert_eq!(z.write(108, 100), Err(ZoneError::CrossesZoneBoundary));
        assert_eq!(z.write(95, 10), Err(ZoneError::CrossesZoneBoundary));
        assert_eq!(z.read(100, 8), Ok(()));
        assert_eq!(z.read(104, 8), Err(ZoneError::ReadBeyondWritePointer));
        assert_eq!(z.write(108, 92), Ok(()));
        assert_eq!(z.report()[1].condition, ZoneCondition::Full);
        assert_eq!(z.write(200, 1), Ok(()), "the next zone");
        z.reset(1);
        assert_eq!(z.report()[1].condition, ZoneCondition::Empty);
        assert_eq!(z.report()[1].write_pointer_lbn, 100);
        assert_eq!(z.append(1, 4), Ok(100));
        assert_eq!(z.append(1, 4), Ok(104));
        z.finish(1);
        assert_eq!(z.write(108, 1), Err(ZoneError::ZoneFull));
    }

    #[test]
    fn the_open_limit_closes_the_least_recently_written_implicit_zone() {
        let mut z = zones(Some(2));
        z.write(100, 1).unwrap();
        z.write(200, 1).unwrap();
        z.write(101, 1).unwrap();
        z.write(300, 1).unwrap(); // closes zone 2, written before zone 1's last write
        assert_eq!(z.report()[2].condition, ZoneCondition::Closed);
        assert_eq!(z.implicit_closes, 1);
        z.open(4).unwrap(); // closes zone 1
        z.open(5).unwrap(); // closes zone 3
        assert_eq!(z.open(6), Err(ZoneError::TooManyOpenZones));
        assert_eq!(z.write(201, 1), Err(ZoneError::TooManyOpenZones));
        z.close(4);
        assert_eq!(z.report()[4].condition, ZoneCondition::Empty);
        assert_eq!(z.write(201, 1), Ok(()));
    }
}
