//! `[host.options]`: the knobs of the configured scheduler, as one small table.
//!
//! Each scheduler reads the keys it takes through an [`OptionReader`]; whatever is left
//! unread is an error naming the key and listing the keys that scheduler does take, so a
//! typo (`group_cylinder = 700`) or an option meant for another scheduler never passes
//! silently.

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::error::{HeadwayError, Result};

/// Option values by key, as written in the experiment file.
pub type SchedOptions = BTreeMap<String, toml::Value>;

/// Reads typed options for one scheduler, remembering which keys it asked about.
pub struct OptionReader<'a> {
    scheduler: &'a str,
    opts: &'a SchedOptions,
    known: RefCell<Vec<&'static str>>,
    /// The table the scheduler sits in: `host`, or `host.inner` for a wrapped one.
    table: String,
}

impl<'a> OptionReader<'a> {
    pub fn new(scheduler: &'a str, opts: &'a SchedOptions) -> Self {
        Self::at("host", scheduler, opts)
    }

    /// Options of a scheduler configured in `table` (`host.inner`, `host.inner.inner`).
    pub fn at(table: &str, scheduler: &'a str, opts: &'a SchedOptions) -> Self {
        OptionReader {
            scheduler,
            opts,
            known: RefCell::new(Vec::new()),
            table: table.to_string(),
        }
    }

    fn key(&self, k: &str) -> String {
        format!("{}.options.{k}", self.table)
    }

    fn get(&self, k: &'static str) -> Option<&toml::Value> {
        self.known.borrow_mut().push(k);
        self.opts.get(k)
    }

    fn bad(&self, k: &str, expected: &str, v: &toml::Value) -> HeadwayError {
        HeadwayError::config(
            self.key(k),
            format!("scheduler `{}` expects {expected}, got {v}", self.scheduler),
        )
    }

    /// An error about option `k` that the reader's own range checks cannot express (a
    /// relation between two options), keyed like theirs.
    pub(crate) fn error(&self, k: &str, msg: impl Into<String>) -> HeadwayError {
        HeadwayError::config(self.key(k), msg)
    }

    /// Whether `k` was given at all.
    pub(crate) fn has(&self, k: &'static str) -> bool {
        self.get(k).is_some()
    }

    /// A number (integers accepted) within `[lo, hi]`.
    pub(crate) fn f64(&self, k: &'static str, default: f64, lo: f64, hi: f64) -> Result<f64> {
        let Some(v) = self.get(k) else {
            return Ok(default);
        };
        let x = match v {
            toml::Value::Float(f) => *f,
            toml::Value::Integer(i) => *i as f64,
            _ => return Err(self.bad(k, "a number", v)),
        };
        if !(x.is_finite() && (lo..=hi).contains(&x)) {
            return Err(self.bad(k, &format!("a number between {lo} and {hi}"), v));
        }
        Ok(x)
    }

    /// A whole number within `[lo, hi]`.
    pub(crate) fn u64(&self, k: &'static str, default: u64, lo: u64, hi: u64) -> Result<u64> {
        let Some(v) = self.get(k) else {
            return Ok(default);
        };
        match v {
            toml::Value::Integer(i) if *i >= lo as i64 && (*i as u64) <= hi => Ok(*i as u64),
            _ => Err(self.bad(k, &format!("a whole number between {lo} and {hi}"), v)),
        }
    }

    pub(crate) fn bool(&self, k: &'static str, default: bool) -> Result<bool> {
        match self.get(k) {
            None => Ok(default),
            Some(toml::Value::Boolean(b)) => Ok(*b),
            Some(v) => Err(self.bad(k, "true or false", v)),
        }
    }

    /// One of `choices` (the first is the default).
    pub(crate) fn choice(&self, k: &'static str, choices: &[&'static str]) -> Result<&'static str> {
        match self.get(k) {
            None => Ok(choices[0]),
            Some(toml::Value::String(s)) => choices
                .iter()
                .find(|c| **c == s.as_str())
                .copied()
                .ok_or_else(|| {
                    self.bad(
                        k,
                        &format!(
                            "one of {}",
                            choices
                                .iter()
                                .map(|c| format!("\"{c}\""))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        &toml::Value::String(s.clone()),
                    )
                }),
            Some(v) => Err(self.bad(k, "a string", v)),
        }
    }

    /// A list of strings (absent: `None`).
    pub(crate) fn str_list(&self, k: &'static str) -> Result<Option<Vec<String>>> {
        let Some(v) = self.get(k) else {
            return Ok(None);
        };
        match v {
            toml::Value::Array(a) => a
                .iter()
                .map(|x| match x {
                    toml::Value::String(s) => Ok(s.clone()),
                    _ => Err(self.bad(k, "a list of names", v)),
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            _ => Err(self.bad(k, "a list of names", v)),
        }
    }

    /// A list of numbers (integers accepted; absent: `None`).
    pub(crate) fn f64_list(&self, k: &'static str) -> Result<Option<Vec<f64>>> {
        let Some(v) = self.get(k) else {
            return Ok(None);
        };
        match v {
            toml::Value::Array(a) => a
                .iter()
                .map(|x| match x {
                    toml::Value::Float(f) => Ok(*f),
                    toml::Value::Integer(i) => Ok(*i as f64),
                    _ => Err(self.bad(k, "a list of numbers", v)),
                })
                .collect::<Result<Vec<_>>>()
                .map(Some),
            _ => Err(self.bad(k, "a list of numbers", v)),
        }
    }

    /// The key as errors name it (`host.options.weights`).
    pub(crate) fn key_name(&self, k: &str) -> String {
        self.key(k)
    }

    /// Fail on any key the scheduler did not ask about.
    /// The keys asked about so far, sorted, each once.
    #[cfg(test)]
    pub(crate) fn asked(&self) -> Vec<&'static str> {
        let mut names = self.known.borrow().clone();
        names.sort_unstable();
        names.dedup();
        names
    }

    pub fn finish(self) -> Result<()> {
        let table = self.table.clone();
        let known = self.known.into_inner();
        if let Some(k) = self.opts.keys().find(|k| !known.contains(&k.as_str())) {
            let takes = if known.is_empty() {
                "takes no options".to_string()
            } else {
                let mut names = known.clone();
                names.sort_unstable();
                names.dedup();
                format!("takes {}", names.join(", "))
            };
            return Err(HeadwayError::config(
                format!("{table}.options.{k}"),
                format!(
                    "not an option of scheduler `{}`, which {takes}",
                    self.scheduler
                ),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(text: &str) -> SchedOptions {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn unknown_keys_and_bad_values_name_the_key() {
        let o = opts("group_cylinder = 700");
        let r = OptionReader::new("gstf", &o);
        assert_eq!(r.u64("group_cylinders", 700, 1, 1000).unwrap(), 700);
        let e = r.finish().unwrap_err().to_string();
        assert!(e.contains("host.options.group_cylinder"), "{e}");
        assert!(e.contains("group_cylinders"), "{e}");

        let o = opts("r = 2.5");
        let r = OptionReader::new("vscan", &o);
        let e = r.f64("r", 0.2, 0.0, 1.0).unwrap_err().to_string();
        assert!(
            e.contains("host.options.r") && e.contains("between 0 and 1"),
            "{e}"
        );

        let o = opts("objective = \"fastest\"");
        let r = OptionReader::new("stf", &o);
        let e = r
            .choice("objective", &["positioning", "service"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"positioning\", \"service\""), "{e}");
    }

    #[test]
    fn a_scheduler_without_options_says_so() {
        let o = opts("x = 1");
        let e = OptionReader::new("fcfs", &o)
            .finish()
            .unwrap_err()
            .to_string();
        assert!(e.contains("takes no options"), "{e}");
    }
}
