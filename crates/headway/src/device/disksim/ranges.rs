//! DiskSim's component ranges: `disk0 .. disk15` in a name list stands for `disk0`, `disk1`,
//! ..., `disk15` (same stem, numbered suffixes).

/// A range holds at most this many names (a typo such as `disk0 .. disk99999999` must not
/// exhaust memory).
pub const MAX_RANGE_NAMES: u64 = 65_536;

/// `names` with every `a .. b` expanded; the reason when a range is malformed.
pub fn expand(names: &[String]) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    let mut i = 0;
    while i < names.len() {
        if names[i] != ".." {
            out.push(names[i].clone());
            i += 1;
            continue;
        }
        let (Some(first), Some(last)) = (out.pop(), names.get(i + 1)) else {
            return Err("`..` needs a name on each side (`disk0 .. disk7`)".into());
        };
        let (stem_a, a) = split(&first).ok_or_else(|| bad(&first, last))?;
        let (stem_b, b) = split(last).ok_or_else(|| bad(&first, last))?;
        if stem_a != stem_b || b < a || b - a >= MAX_RANGE_NAMES {
            return Err(bad(&first, last));
        }
        out.extend((a..=b).map(|n| format!("{stem_a}{n}")));
        i += 2;
    }
    Ok(out)
}

fn bad(first: &str, last: &str) -> String {
    format!(
        "`{first} .. {last}` is not a range: both ends need the same name with a number, the \
         second not smaller, at most {MAX_RANGE_NAMES} names"
    )
}

/// `disk12` -> ("disk", 12).
fn split(name: &str) -> Option<(&str, u64)> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits > 18 {
        return None;
    }
    let (stem, num) = name.split_at(name.len() - digits);
    Some((stem, num.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn ranges_expand_in_place() {
        assert_eq!(
            expand(&s(&["bus0", "disk2", "..", "disk4", "x"])).unwrap(),
            s(&["bus0", "disk2", "disk3", "disk4", "x"])
        );
    }

    #[test]
    fn malformed_ranges_say_why() {
        assert!(expand(&s(&["disk4", "..", "disk2"])).is_err());
        assert!(expand(&s(&["disk0", "..", "bus3"])).is_err());
        assert!(expand(&s(&["..", "disk3"])).is_err());
        assert!(expand(&s(&["disk0", "..", "disk9999999"])).is_err());
    }
}
