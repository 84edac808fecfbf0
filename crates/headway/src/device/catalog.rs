//! The built-in drive catalog.
//!
//! PLACEHOLDER: only `elite3` for now; the full catalog (every DiskSim drive shipped with the
//! project, the ST41601N from the rotational-scheduling paper) replaces this file.

use super::hdd::HddSpec;
use crate::error::{HeadwayError, Result};

const ELITE3: &str = include_str!("../../catalog/elite3.toml");

/// Names of the built-in drives.
pub fn names() -> Vec<String> {
    vec!["elite3".to_string()]
}

/// The built-in drive called `name`.
pub fn lookup(name: &str) -> Result<HddSpec> {
    match name {
        "elite3" => parse_toml_spec(ELITE3, "catalog/elite3.toml"),
        _ => Err(HeadwayError::Unknown {
            kind: "drive",
            name: name.into(),
            known: names(),
        }),
    }
}

/// Parse a drive described in headway's own TOML form.
pub fn parse_toml_spec(text: &str, origin: &str) -> Result<HddSpec> {
    toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| text[..s.start].lines().count().max(1));
        HeadwayError::params(Some(origin.into()), line, None, e.message().to_string())
    })
}

/// A drive from a file: headway TOML, or DiskSim `.parv`/`.diskspecs` (not yet).
pub fn load_file(path: &std::path::Path) -> Result<HddSpec> {
    let text = std::fs::read_to_string(path).map_err(|e| HeadwayError::io(path, e))?;
    parse_toml_spec(&text, &path.display().to_string())
}
