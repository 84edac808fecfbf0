use crate::named::named_kind;

named_kind! {
    /// The host's model of a rotating drive (`host.predictor`, `devices[i].predictor`).
    pub enum PredictorKind ("predictor") {
        /// The drive's own description, exact.
        Oracle = "oracle",
        /// The paper's software head prediction, from what timing a fresh copy of the drive
        /// reveals.
        Calibrated = "calibrated",
        /// Positioning as a measured function of LBN distance (no cylinders, no rotation).
        LbnCurve = "lbn-curve",
    }
}

#[cfg(test)]
mod tests {
    use serde::de::value::{Error, StrDeserializer};
    use serde::de::IntoDeserializer;
    use serde::Deserialize;

    use super::*;

    #[test]
    fn each_name_parses_as_serde_reads_it_and_an_unknown_one_lists_the_known() {
        for &k in PredictorKind::ALL {
            let name: StrDeserializer<'_, Error> = k.name().into_deserializer();
            assert_eq!(PredictorKind::deserialize(name).unwrap(), k);
            assert_eq!(PredictorKind::parse(k.name()).unwrap(), k);
        }
        let e = PredictorKind::parse("psychic").unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown predictor `psychic`; known: oracle, calibrated, lbn-curve"
        );
    }
}
