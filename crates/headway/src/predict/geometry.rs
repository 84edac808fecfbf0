//! A predictor's track geometry, asked for once when the run is built.

use super::{no_geometry, Geometry, Predictor};
use crate::error::Result;

/// `p`'s geometry, or the error naming it as a predictor without one.
pub fn require_geometry<P: Predictor + ?Sized>(p: &P) -> Result<&dyn Geometry> {
    p.geometry().ok_or_else(|| no_geometry(p.name()))
}
