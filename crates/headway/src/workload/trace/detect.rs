//! Format detection from a trace's first bytes. A format is named only when the sample fits
//! it and no other: five bare numbers per line, for instance, are DiskSim ASCII unless the
//! numbers look like bytes or nanoseconds, in which case the user must say which it is.

use super::blkparse::dev_pair;
use super::csv::HEADWAY_CSV_HEADER;
use super::fields::{decimal_scaled, digits, hex};
use super::hp_srt::MAGIC as SRT_MAGIC;
use super::lines::{is_skippable, split};
use super::TraceFormat;

/// How much of a trace is looked at.
pub(crate) const SNIFF_BYTES: usize = 64 * 1024;
/// Lines judged (the first ones carrying data).
const SAMPLE_LINES: usize = 200;

/// The format of a trace starting with `head`, or why it cannot be told.
pub(crate) fn sniff(head: &[u8]) -> Result<TraceFormat, String> {
    if head.starts_with(SRT_MAGIC) {
        return Ok(TraceFormat::HpSrt);
    }
    if head.is_empty() {
        return Err("the file is empty".into());
    }
    if head.starts_with(b"PAR1") {
        // What `headway trace convert --to parquet` writes: the Python face reads it (replay,
        // trace stats); the core's own readers are for text traces.
        return Err("a Parquet trace: `headway replay` and `headway trace stats` read it; in an \
                    experiment file, name a CSV instead (`headway trace convert FILE out.csv --to csv`)"
            .into());
    }
    if head.contains(&0) {
        return Err("binary data that is not an HP SRT trace (no `$$TR_IOREC` header)".into());
    }
    // The last line of the sample may be cut short; leave it out unless it is the only one.
    let mut lines: Vec<&[u8]> = head
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .collect();
    if lines.len() > 1 && head.len() >= SNIFF_BYTES {
        lines.pop();
    }
    let data: Vec<&[u8]> = lines
        .iter()
        .copied()
        .filter(|l| !is_skippable(l))
        .take(SAMPLE_LINES)
        .collect();
    let Some(first) = data.first() else {
        return Err("no data lines in the first bytes".into());
    };
    if *first == HEADWAY_CSV_HEADER.as_bytes() {
        return Ok(TraceFormat::Csv);
    }
    type LineTest = fn(&[u8]) -> bool;
    let candidates: [(TraceFormat, LineTest); 6] = [
        (TraceFormat::Blkparse, is_blkparse),
        (TraceFormat::Msr, is_msr),
        (TraceFormat::Spc, is_spc),
        (TraceFormat::Fiu, is_fiu),
        (TraceFormat::DisksimValidate, is_validate),
        (TraceFormat::DisksimAscii, is_disksim_ascii),
    ];
    let fits: Vec<TraceFormat> = candidates
        .iter()
        .filter(|(fmt, test)| {
            // A header line may precede MSR and SPC records.
            let body = if matches!(fmt, TraceFormat::Msr | TraceFormat::Spc) && !test(first) {
                &data[1..]
            } else {
                &data[..]
            };
            // blkparse ends with a summary that is not event lines; the sample starts with
            // events, so the first lines decide.
            let body = if *fmt == TraceFormat::Blkparse {
                &body[..body.len().min(5)]
            } else {
                body
            };
            // A stray malformed line must not hide the format: the reader reports it, with
            // its line number, better than detection could.
            let fit = body.iter().filter(|l| test(l)).count();
            !body.is_empty() && test(body[0]) && body.len() - fit <= (body.len() / 5).max(1)
        })
        .map(|(f, _)| *f)
        .collect();
    let first_line = String::from_utf8_lossy(&first[..first.len().min(120)]).into_owned();
    match fits.as_slice() {
        [TraceFormat::DisksimAscii] => {
            disksim_ascii_plausible(&data).map(|_| TraceFormat::DisksimAscii)
        }
        [one] => Ok(*one),
        [] => Err(format!(
            "no known format fits its first line `{first_line}`"
        )),
        many => Err(format!(
            "it fits several formats ({})",
            many.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
        )),
    }
}

fn fields<const N: usize>(l: &[u8], sep: Option<u8>) -> (usize, [&[u8]; N]) {
    let mut f: [&[u8]; N] = [&[]; N];
    let n = split(l, sep, &mut f);
    (n, f)
}

fn is_num(f: &[u8]) -> bool {
    decimal_scaled(f, 0).is_some() || decimal_scaled(f, 9).is_some()
}

fn is_blkparse(l: &[u8]) -> bool {
    let (n, f) = fields::<8>(l, None);
    n >= 7
        && dev_pair(f[0]).is_some()
        && digits(f[1]).is_some()
        && digits(f[2]).is_some()
        && f[3].contains(&b'.')
        && decimal_scaled(f[3], 9).is_some()
        && digits(f[4]).is_some()
        && (1..=2).contains(&f[5].len())
        && f[5].iter().all(u8::is_ascii_uppercase)
}

fn is_msr(l: &[u8]) -> bool {
    let (n, f) = fields::<7>(l, Some(b','));
    // Windows ticks since 1601 pass 10^17 in 1918.
    n == 7
        && digits(f[0]).is_some_and(|t| t >= 100_000_000_000_000_000)
        && digits(f[2]).is_some()
        && (f[3].eq_ignore_ascii_case(b"read") || f[3].eq_ignore_ascii_case(b"write"))
        && digits(f[4]).is_some()
        && digits(f[5]).is_some()
        && digits(f[6]).is_some()
}

fn is_spc(l: &[u8]) -> bool {
    let (n, f) = fields::<5>(l, Some(b','));
    n >= 5
        && digits(f[0]).is_some()
        && digits(f[1]).is_some()
        && digits(f[2]).is_some()
        && matches!(f[3], b"r" | b"R" | b"w" | b"W")
        && is_num(f[4])
}

fn is_fiu(l: &[u8]) -> bool {
    let (n, f) = fields::<32>(l, None);
    (9..=32).contains(&n)
        && digits(f[0]).is_some()
        && digits(f[1]).is_some()
        && digits(f[n - 6]).is_some()
        && digits(f[n - 5]).is_some()
        && matches!(f[n - 4], b"R" | b"W" | b"r" | b"w")
        && digits(f[n - 3]).is_some()
        && digits(f[n - 2]).is_some()
        && f[n - 1].len() == 32
        && f[n - 1].iter().all(u8::is_ascii_hexdigit)
}

fn is_validate(l: &[u8]) -> bool {
    let (n, f) = fields::<6>(l, None);
    n == 6
        && matches!(f[0], b"R" | b"W" | b"r" | b"w")
        && !f[1].is_empty()
        && f[1].iter().all(u8::is_ascii_alphabetic)
        && digits(f[2]).is_some()
        && digits(f[3]).is_some()
        && is_num(f[4])
        && is_num(f[5])
}

fn is_disksim_ascii(l: &[u8]) -> bool {
    let (n, f) = fields::<5>(l, None);
    n == 5
        && is_num(f[0])
        && digits(f[1]).is_some()
        && digits(f[2]).is_some()
        && digits(f[3]).is_some()
        && hex(f[4]).is_some()
}

/// Five bare numbers are also how some tools write byte offsets and sizes, or nanosecond
/// times (the msr-chunks and MQSim variants). Refuse to guess when the sample looks so.
fn disksim_ascii_plausible(data: &[&[u8]]) -> Result<(), String> {
    let mut sizes_like_bytes = true;
    let mut times_integral = true;
    let mut times_ms = Vec::with_capacity(data.len());
    for l in data.iter().filter(|l| is_disksim_ascii(l)) {
        let (_, f) = fields::<5>(l, None);
        let size = digits(f[3]).unwrap_or(0);
        sizes_like_bytes &= size >= 512 && size.is_multiple_of(512);
        times_integral &= !f[0].contains(&b'.');
        times_ms.push(decimal_scaled(f[0], 0).unwrap_or(0));
    }
    let mut gaps: Vec<u64> = times_ms
        .windows(2)
        .filter_map(|w| w[1].checked_sub(w[0]))
        .filter(|g| *g > 0)
        .collect();
    gaps.sort_unstable();
    let median_gap_ms = gaps.get(gaps.len() / 2).copied().unwrap_or(0);
    let hint = "five numbers per line like DiskSim ASCII (time_ms devno blkno bcount flags)";
    if sizes_like_bytes {
        return Err(format!(
            "{hint}, but every size is a multiple of 512, as if in bytes: pass --format disksim-ascii if they are sectors, or --format csv with a mapping (docs/traces.md)"
        ));
    }
    if times_integral && median_gap_ms >= 1_000 {
        return Err(format!(
            "{hint}, but the times are whole numbers {median_gap_ms} apart (median), as if in nanoseconds: pass --format disksim-ascii if they are milliseconds, or --format csv with a mapping (docs/traces.md)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_format_is_told_from_its_lines() {
        let ok = |s: &str| sniff(s.as_bytes());
        assert_eq!(
            ok("0.000 5 174224064 16 1\n0.221 5 162947904 16 1\n"),
            Ok(TraceFormat::DisksimAscii)
        );
        assert_eq!(
            ok("W Hit 4583176 4 663.00000 45422.00000\n"),
            Ok(TraceFormat::DisksimValidate)
        );
        assert_eq!(
            ok("0,303567,3584,w,0.000000\n1,8,512,R,0.01\n"),
            Ok(TraceFormat::Spc)
        );
        assert_eq!(ok("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n128166372003061629,hm,1,Read,3487887360,4096,8906\n"), Ok(TraceFormat::Msr));
        assert_eq!(
            ok("89966527394820 4892 syslogd 904265560 8 W 6 0 531e779ad2ba07b7bbb2b4a9d2ef5f40\n"),
            Ok(TraceFormat::Fiu)
        );
        assert_eq!(
            ok("  8,0    3        1     0.000000000   697  Q  WS 223490 + 8 [kjournald]\n"),
            Ok(TraceFormat::Blkparse)
        );
        assert_eq!(
            ok("time_ns,device,lbn,sectors,op,process\n0,0,8,8,R,0\n"),
            Ok(TraceFormat::Csv)
        );
        assert_eq!(sniff(b"$$TR_IOREC-1.3 (x)\n"), Ok(TraceFormat::HpSrt));
    }

    #[test]
    fn a_parquet_trace_is_named_with_the_commands_that_read_it() {
        let e = sniff(b"PAR1\x15\x04\x15\x00").unwrap_err();
        assert!(e.contains("Parquet") && e.contains("headway replay"), "{e}");
    }

    #[test]
    fn byte_and_nanosecond_variants_are_not_guessed() {
        let e = sniff(b"0.000 0 11562803200 4096 1\n0.000 0 11562991616 4096 1\n").unwrap_err();
        assert!(e.contains("multiple of 512"), "{e}");
        let e =
            sniff(b"11413000 0 657728 16 1\n11565000 1 31244784 64 1\n11721000 1 21868784 16 1\n")
                .unwrap_err();
        assert!(e.contains("nanoseconds"), "{e}");
        assert!(sniff(b"hello world\n")
            .unwrap_err()
            .contains("no known format"));
        assert!(sniff(b"").is_err());
        assert!(sniff(b"\x00\x01\x02").unwrap_err().contains("binary"));
    }
}
