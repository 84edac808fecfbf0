//! Lines for the errors found after parsing (ranges and combinations serde cannot check,
//! such as a negative `interarrival_ms`): they name their dotted key, and this finds where
//! the file sets it, so they read `exp.toml:7: key ...` like the parse errors do.

use crate::error::HeadwayError;

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
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
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
