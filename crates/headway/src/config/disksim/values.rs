//! Reading typed values out of DiskSim blocks, each error naming file, line and key.

use crate::device::disksim::parse::{Block, Param, Value};
use crate::device::disksim::ranges;
use crate::error::Result;

pub(super) fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// `key` of `block` as a number, `default` when absent.
pub(super) fn num_or(block: &Block, key: &str, default: f64) -> Result<f64> {
    match block.get(key) {
        None => Ok(default),
        Some(p) => num_param(p),
    }
}

pub(super) fn num_param(p: &Param) -> Result<f64> {
    number(&p.value).ok_or_else(|| {
        p.loc.error(
            Some(&p.key),
            format!("expected a number, got {}", p.value.kind()),
        )
    })
}

/// `key` of `block` as a list of words (component names).
pub(super) fn names(block: &Block, key: &str) -> Result<Vec<String>> {
    let Some(p) = block.get(key) else {
        return Err(block
            .loc
            .error(Some(key), "missing (a list of component names)"));
    };
    let Value::List(items) = &p.value else {
        return Err(p.loc.error(
            Some(key),
            format!("expected a list of names, got {}", p.value.kind()),
        ));
    };
    let words = items
        .iter()
        .map(|i| match &i.value {
            Value::Word(w) => Ok(w.clone()),
            other => Err(i.loc.error(
                Some(key),
                format!("expected a component name, got {}", other.kind()),
            )),
        })
        .collect::<Result<Vec<_>>>()?;
    ranges::expand(&words).map_err(|e| p.loc.error(Some(key), e))
}

/// `key` of `block` as a word.
pub(super) fn word<'a>(block: &'a Block, key: &str) -> Option<&'a str> {
    match block.get(key).map(|p| &p.value) {
        Some(Value::Word(w)) => Some(w),
        _ => None,
    }
}

/// `key` of `block` as an anonymous block.
pub(super) fn sub_block<'a>(block: &'a Block, key: &str) -> Option<&'a Block> {
    match block.get(key).map(|p| &p.value) {
        Some(Value::Block(b)) => Some(b),
        _ => None,
    }
}
