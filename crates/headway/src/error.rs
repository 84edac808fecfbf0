//! One error type for the whole core. Every variant names where the bad input was (file,
//! line, key) so that users see "atlas10k.diskspecs:12: key `Foo`: expected a number" rather
//! than a panic. The Python binding maps these to exception classes in one place.

use std::path::PathBuf;

pub type Result<T, E = HeadwayError> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum HeadwayError {
    /// An experiment/config problem: a wrong, missing or impossible key.
    #[error("{}", fmt_loc("config", file, *line, key, msg))]
    Config {
        file: Option<PathBuf>,
        line: Option<usize>,
        key: Option<String>,
        msg: String,
    },

    /// A drive parameter file (DiskSim `.diskspecs`/`.model`/`.seek`/`.parv`, catalog TOML).
    #[error("{}", fmt_loc("drive parameters", file, *line, key, msg))]
    Params {
        file: Option<PathBuf>,
        line: Option<usize>,
        key: Option<String>,
        msg: String,
    },

    /// A malformed trace record.
    #[error("{}", fmt_loc("trace", file, *line, &None, msg))]
    Trace {
        file: Option<PathBuf>,
        line: Option<usize>,
        msg: String,
    },

    /// A name that is not in a registry (drive, scheduler, predictor, trace format).
    #[error("unknown {kind} `{name}`; known: {}", known.join(", "))]
    Unknown {
        kind: &'static str,
        name: String,
        known: Vec<String>,
    },

    /// An unknown name or an unreadable file named in an experiment file, placed at the key
    /// that names it; it stays the kind of error it is (`source`).
    #[error("{}:{}: key `{}`: {}", file.display(), line, key, source)]
    At {
        file: PathBuf,
        line: usize,
        key: String,
        #[source]
        source: Box<HeadwayError>,
    },

    /// A file that could not be read or written.
    #[error("{}: {}", path.display(), io_reason(source))]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A failure inside a user plug-in (e.g. a scheduler written in Python).
    #[error("plug-in {name}: {msg}")]
    Plugin { name: String, msg: String },

    /// A scheduler or device broke an invariant (e.g. dispatched a request it was never given).
    #[error("invariant violated: {0}")]
    Invariant(String),
}

fn fmt_loc(
    what: &str,
    file: &Option<PathBuf>,
    line: Option<usize>,
    key: &Option<String>,
    msg: &str,
) -> String {
    let mut s = String::new();
    match (file, line) {
        (Some(f), Some(l)) => s.push_str(&format!("{}:{}: ", f.display(), l)),
        (Some(f), None) => s.push_str(&format!("{}: ", f.display())),
        (None, Some(l)) => s.push_str(&format!("{what} line {l}: ")),
        (None, None) => s.push_str(&format!("{what}: ")),
    }
    if let Some(k) = key {
        s.push_str(&format!("key `{k}`: "));
    }
    s.push_str(msg);
    s
}

impl HeadwayError {
    /// The error itself, under any placing in a file ([`HeadwayError::At`]).
    pub fn kind(&self) -> &HeadwayError {
        match self {
            HeadwayError::At { source, .. } => source.kind(),
            e => e,
        }
    }

    pub fn config(key: impl Into<String>, msg: impl Into<String>) -> Self {
        HeadwayError::Config {
            file: None,
            line: None,
            key: Some(key.into()),
            msg: msg.into(),
        }
    }
    pub(crate) fn params(
        file: Option<PathBuf>,
        line: Option<usize>,
        key: Option<String>,
        msg: impl Into<String>,
    ) -> Self {
        HeadwayError::Params {
            file,
            line,
            key,
            msg: msg.into(),
        }
    }
    pub(crate) fn trace(
        file: Option<PathBuf>,
        line: Option<usize>,
        msg: impl Into<String>,
    ) -> Self {
        HeadwayError::Trace {
            file,
            line,
            msg: msg.into(),
        }
    }
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        HeadwayError::Io {
            path: path.into(),
            source,
        }
    }
    /// A plug-in's failure with the simulated time it happened at (other errors unchanged).
    pub(crate) fn at_time(self, now_ns: u64) -> Self {
        match self {
            HeadwayError::Plugin { name, msg } => HeadwayError::Plugin {
                name,
                msg: format!("{msg} (at simulated time {:.3} ms)", now_ns as f64 / 1e6),
            },
            other => other,
        }
    }

    /// The same error for the copy of a table at `table` (`workloads[2]`): a key
    /// `workload.x` becomes `workloads[2].x`.
    pub(crate) fn under(self, table: &str) -> Self {
        match self {
            HeadwayError::Config {
                file,
                line,
                key,
                msg,
            } => HeadwayError::Config {
                file,
                line,
                key: key.map(|k| match k.strip_prefix("workload.") {
                    Some(rest) => format!("{table}.{rest}"),
                    None if k == "workload" => table.to_string(),
                    None => format!("{table}.{k}"),
                }),
                msg,
            },
            other => other,
        }
    }

    pub(crate) fn in_file(self, path: impl Into<PathBuf>) -> Self {
        match self {
            HeadwayError::Config {
                file: None,
                line,
                key,
                msg,
            } => HeadwayError::Config {
                file: Some(path.into()),
                line,
                key,
                msg,
            },
            HeadwayError::Params {
                file: None,
                line,
                key,
                msg,
            } => HeadwayError::Params {
                file: Some(path.into()),
                line,
                key,
                msg,
            },
            HeadwayError::Trace {
                file: None,
                line,
                msg,
            } => HeadwayError::Trace {
                file: Some(path.into()),
                line,
                msg,
            },
            other => other,
        }
    }
}

/// The system's reason without the errno suffix ("No such file or directory", not "... (os
/// error 2)"): the number means nothing to a user and the words already say it.
fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.rfind(" (os error ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_names_the_path_and_the_reason_without_the_errno() {
        let e = std::fs::File::open("/nonexistent/headway-test").unwrap_err();
        let msg = HeadwayError::io("/nonexistent/headway-test", e).to_string();
        assert_eq!(msg, "/nonexistent/headway-test: No such file or directory");
    }
}
