//! Lines for the errors found after parsing (ranges and combinations serde cannot check,
//! such as a negative `interarrival_ms`): they name their dotted key, and this finds where
//! the file sets it, so they read `exp.toml:7: key ...` like the parse errors do.

use std::path::Path;

use crate::error::HeadwayError;

/// `e`, found while reading or building the experiment in `file` (whose text is `text`),
/// placed in that file: a config error at the line of its key; an unknown name (drive,
/// scheduler, predictor) or a file that cannot be read (a trace, a drive file) at the key
/// whose value names it, keeping its kind. Errors the file does not name stay as they are.
pub(crate) fn in_experiment(e: HeadwayError, text: &str, file: &Path) -> HeadwayError {
    let named = match &e {
        HeadwayError::Config { .. } => return with_key_line(e, text).in_file(file),
        HeadwayError::Unknown { name, .. } => assignment_of(text, |v| v == name),
        HeadwayError::Io { path, .. } => {
            assignment_of(text, |v| !v.is_empty() && path.ends_with(Path::new(v)))
        }
        _ => None,
    };
    match named {
        Some((key, line)) => HeadwayError::At {
            file: file.to_path_buf(),
            line,
            key,
            source: Box::new(e),
        },
        None => e,
    }
}

/// The dotted key and 1-based line of the first assignment whose string value passes `is`.
fn assignment_of(text: &str, is: impl Fn(&str) -> bool) -> Option<(String, usize)> {
    let mut table = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') {
            table = normalise(
                line.split('#')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .trim_matches(|c| c == '[' || c == ']'),
            );
            continue;
        }
        let Some((lhs, rhs)) = line.split_once('=') else {
            continue;
        };
        let value = rhs.trim();
        let quoted = ['"', '\''].into_iter().find_map(|q| {
            let inner = value.strip_prefix(q)?;
            Some(&inner[..inner.find(q)?])
        });
        if quoted.is_some_and(&is) {
            let lhs = normalise(lhs);
            let key = if table.is_empty() {
                lhs
            } else {
                format!("{table}.{lhs}")
            };
            return Some((key, i + 1));
        }
    }
    None
}

/// `e` with the line its key is set on in `text`, when it is a config error with a key
/// and no line yet; anything else unchanged.
pub(crate) fn with_key_line(e: HeadwayError, text: &str) -> HeadwayError {
    match e {
        HeadwayError::Config {
            file,
            line: None,
            key: Some(key),
            msg,
        } => HeadwayError::Config {
            file,
            line: line_of_key(text, &key),
            key: Some(key),
            msg,
        },
        e => e,
    }
}

/// The 1-based line that assigns the dotted key `key` (`workload.interarrival_ms`): an
/// assignment `interarrival_ms = ...` under `[workload]`, or a dotted one
/// (`workload.interarrival_ms = ...`) in an enclosing table.
fn line_of_key(text: &str, key: &str) -> Option<usize> {
    let mut table = String::new();
    // Entries of each array of tables seen so far: `[[arrays]]`'s second entry is
    // `arrays[1]`, as validation names its keys.
    let mut entries: Vec<(String, usize)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.starts_with("[[") {
            let name = normalise(line.trim_matches(|c| c == '[' || c == ']'));
            let n = match entries.iter_mut().find(|(t, _)| *t == name) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    entries.push((name.clone(), 0));
                    0
                }
            };
            if key.starts_with(&format!("{name}[{n}].")) {
                table = format!("{name}[{n}]");
            } else {
                table = name;
            }
            continue;
        }
        if line.starts_with('[') {
            table = normalise(line.trim_matches(|c| c == '[' || c == ']'));
            continue;
        }
        let Some((lhs, _)) = line.split_once('=') else {
            continue;
        };
        let lhs = normalise(lhs);
        let full = if table.is_empty() {
            lhs
        } else {
            format!("{table}.{lhs}")
        };
        if full == key {
            return Some(i + 1);
        }
    }
    None
}

/// `a . "b"` -> `a.b`.
fn normalise(dotted: &str) -> String {
    dotted
        .split('.')
        .map(|part| part.trim().trim_matches('"').trim_matches('\''))
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    use super::line_of_key;

    #[test]
    fn unknown_names_and_unreadable_files_are_placed_at_the_key_naming_them() {
        use crate::error::HeadwayError;
        use std::path::Path;

        let text = "[drive]\nname = \"atlas\"  # a typo\n[workload]\nkind = \"trace\"\n\
                    path = 'traces/nothere.trace'\n[host.inner]\nscheduler = \"sptff\"\n";
        let file = Path::new("exp.toml");
        let unknown = |name: &str| HeadwayError::Unknown {
            kind: "drive",
            name: name.into(),
            known: vec!["atlas10k".into()],
        };
        let e = super::in_experiment(unknown("atlas"), text, file);
        assert_eq!(
            e.to_string(),
            "exp.toml:2: key `drive.name`: unknown drive `atlas`; known: atlas10k"
        );
        assert!(matches!(e.kind(), HeadwayError::Unknown { .. }));
        let e = super::in_experiment(unknown("sptff"), text, file);
        assert!(
            e.to_string()
                .starts_with("exp.toml:7: key `host.inner.scheduler`: "),
            "{e}"
        );
        let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
        let e = super::in_experiment(
            HeadwayError::io("/data/traces/nothere.trace", missing),
            text,
            file,
        );
        assert_eq!(
            e.to_string(),
            "exp.toml:5: key `workload.path`: /data/traces/nothere.trace: entity not found"
        );
        // A name the file does not hold (a plug-in's, a default) is left as it is.
        let e = super::in_experiment(unknown("other"), text, file);
        assert!(matches!(e, HeadwayError::Unknown { .. }));
    }

    #[test]
    fn finds_keys_in_tables_and_dotted_assignments() {
        let text = "seed = 1\n[drive]\nname = \"x\" # a comment\n\n[workload]\nkind = \"open\"\n\
                    interarrival_ms = -5\n[host.options]\nr = 2\n";
        assert_eq!(line_of_key(text, "seed"), Some(1));
        assert_eq!(line_of_key(text, "drive.name"), Some(3));
        assert_eq!(line_of_key(text, "workload.interarrival_ms"), Some(7));
        assert_eq!(line_of_key(text, "host.options.r"), Some(9));
        assert_eq!(line_of_key(text, "workload.requests"), None);
        assert_eq!(
            line_of_key("workload.speed = 0\n", "workload.speed"),
            Some(1)
        );
    }
}
