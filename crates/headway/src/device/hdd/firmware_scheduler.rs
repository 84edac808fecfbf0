use crate::named::named_kind;

named_kind! {
    /// The schedulers a drive's firmware queue can use (`firmware_scheduler`): the host's,
    /// minus SCAN and C-SCAN, whose pure seeks to the edge carry no command a drive could
    /// execute.
    pub enum FirmwareScheduler ("firmware scheduler") {
        Fcfs = "fcfs",
        Sstf = "sstf",
        Look = "look",
        Clook = "clook",
        Sptf = "sptf",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_firmware_scheduler_lists_the_known() {
        assert_eq!(
            FirmwareScheduler::parse("clook").unwrap(),
            FirmwareScheduler::Clook
        );
        let e = FirmwareScheduler::parse("scan").unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown firmware scheduler `scan`; known: fcfs, sstf, look, clook, sptf"
        );
    }
}
