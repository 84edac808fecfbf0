//! Line-at-a-time access to a text trace without copying: a line that lies whole in the
//! input's buffer (nearly all of them) is handed to the parser in place; only a line cut by
//! the end of a buffer fill is gathered into a small spill buffer.

use std::io::BufRead;
use std::path::PathBuf;

use crate::error::{HeadwayError, Result};

/// Longer than any sane record; a file with longer lines is not a text trace (and reading it
/// line by line must not pull a whole binary file into memory).
pub(crate) const MAX_LINE_BYTES: usize = 64 * 1024;

pub(crate) struct Lines<R> {
    input: R,
    spill: Vec<u8>,
    line: usize,
    origin: Option<PathBuf>,
    /// Set by an error after which the input cannot be resynchronised.
    broken: bool,
    /// For the too-long-line message.
    what: &'static str,
}

impl<R: BufRead> Lines<R> {
    pub fn new(input: R, origin: Option<PathBuf>, what: &'static str) -> Self {
        Lines {
            input,
            spill: Vec::new(),
            line: 0,
            origin,
            broken: false,
            what,
        }
    }

    /// 1-based number of the line last handed out.
    #[inline]
    pub(crate) fn line(&self) -> usize {
        self.line
    }

    /// The input's buffered bytes, for a format's fast path that reads lines in place.
    #[inline(always)]
    pub(crate) fn buffer(&mut self) -> std::io::Result<&[u8]> {
        self.input.fill_buf()
    }

    /// `bytes` of [`Lines::buffer`] read by a fast path, `lines` whole lines.
    #[inline(always)]
    pub(crate) fn take_lines(&mut self, bytes: usize, lines: usize) {
        self.input.consume(bytes);
        self.line += lines;
    }

    pub(crate) fn broken(&self) -> bool {
        self.broken
    }

    /// A trace error at the current line.
    pub(crate) fn error(&self, msg: impl Into<String>) -> HeadwayError {
        HeadwayError::trace(self.origin.clone(), Some(self.line), msg)
    }

    /// Run `parse` on the next line (without its `\n` or `\r\n`) and return what it made, or
    /// `None` at the end of the input. A last line without a newline still counts.
    #[inline]
    pub(crate) fn next<T>(&mut self, parse: impl FnOnce(&[u8]) -> T) -> Result<Option<T>> {
        if self.broken {
            return Ok(None);
        }
        if self.spill.is_empty() {
            if let Ok(buf) = self.input.fill_buf() {
                if let Some(i) = memchr::memchr(b'\n', buf) {
                    let out = parse(trim_cr(&buf[..i]));
                    self.input.consume(i + 1);
                    self.line += 1;
                    return Ok(Some(out));
                }
            }
        }
        self.next_slow(parse)
    }

    #[inline(never)]
    fn next_slow<T>(&mut self, parse: impl FnOnce(&[u8]) -> T) -> Result<Option<T>> {
        self.spill.clear();
        loop {
            let buf = match self.input.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.broken = true;
                    self.line += 1;
                    return Err(self.error(format!("cannot read the trace: {e}")));
                }
            };
            if buf.is_empty() {
                if self.spill.is_empty() {
                    return Ok(None);
                }
                self.line += 1;
                let out = parse(trim_cr(&self.spill));
                self.spill.clear();
                return Ok(Some(out));
            }
            match memchr::memchr(b'\n', buf) {
                Some(i) => {
                    self.spill.extend_from_slice(&buf[..i]);
                    self.input.consume(i + 1);
                    self.line += 1;
                    let out = parse(trim_cr(&self.spill));
                    self.spill.clear();
                    return Ok(Some(out));
                }
                None => {
                    let n = buf.len();
                    self.spill.extend_from_slice(buf);
                    self.input.consume(n);
                    if self.spill.len() > MAX_LINE_BYTES {
                        self.broken = true;
                        self.line += 1;
                        return Err(self.error(format!(
                            "line longer than {MAX_LINE_BYTES} bytes: not a {} trace",
                            self.what
                        )));
                    }
                }
            }
        }
    }
}

#[inline(always)]
fn trim_cr(l: &[u8]) -> &[u8] {
    match l.last() {
        Some(b'\r') => &l[..l.len() - 1],
        _ => l,
    }
}

/// Split `line` at `sep` (or at runs of blanks when `sep` is `None`) into at most `N`
/// fields; returns how many fields the line really has (which may exceed `N`). Leading and
/// trailing blanks around each field are trimmed.
#[inline]
pub(crate) fn split<'a, const N: usize>(
    line: &'a [u8],
    sep: Option<u8>,
    out: &mut [&'a [u8]; N],
) -> usize {
    let mut n = 0;
    match sep {
        None => {
            let mut i = 0;
            let len = line.len();
            loop {
                while i < len && is_blank(line[i]) {
                    i += 1;
                }
                if i == len {
                    return n;
                }
                let start = i;
                while i < len && !is_blank(line[i]) {
                    i += 1;
                }
                if n < N {
                    out[n] = &line[start..i];
                }
                n += 1;
            }
        }
        Some(sep) => {
            if trim(line).is_empty() {
                return 0;
            }
            for f in line.split(|&b| b == sep) {
                if n < N {
                    out[n] = trim(f);
                }
                n += 1;
            }
            n
        }
    }
}

/// Whitespace inside a line, as C's `isspace` has it.
#[inline(always)]
pub(crate) fn is_blank(b: u8) -> bool {
    b == b' ' || (b'\t'..=b'\r').contains(&b)
}

#[inline]
pub(crate) fn trim(mut f: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = f {
        if is_blank(*first) {
            f = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = f {
        if is_blank(*last) {
            f = rest;
        } else {
            break;
        }
    }
    f
}

/// A blank line or a `#` comment.
#[inline]
pub(crate) fn is_skippable(line: &[u8]) -> bool {
    let t = trim(line);
    t.is_empty() || t[0] == b'#'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_across_buffer_fills_crlf_and_no_final_newline() {
        let text = "a b\r\n\nlong line here\nlast";
        let input = std::io::BufReader::with_capacity(4, text.as_bytes());
        let mut l = Lines::new(input, None, "test");
        let mut got = Vec::new();
        while let Some(s) = l.next(|b| String::from_utf8(b.to_vec()).unwrap()).unwrap() {
            got.push((s, l.line()));
        }
        assert_eq!(
            got,
            vec![
                ("a b".to_string(), 1),
                (String::new(), 2),
                ("long line here".to_string(), 3),
                ("last".to_string(), 4)
            ]
        );
    }

    #[test]
    fn split_by_blanks_and_by_separator() {
        let mut f: [&[u8]; 3] = [&[]; 3];
        assert_eq!(split(b"  1\t2  3 4", None, &mut f), 4);
        assert_eq!(f, [&b"1"[..], b"2", b"3"]);
        assert_eq!(split(b"a, b ,,c", Some(b','), &mut f), 4);
        assert_eq!(f, [&b"a"[..], b"b", b""]);
        assert_eq!(split(b"   ", Some(b','), &mut f), 0);
    }

    #[test]
    fn a_binary_file_is_refused_not_swallowed() {
        let junk = vec![b'x'; MAX_LINE_BYTES * 3];
        let mut l = Lines::new(&junk[..], None, "test");
        let e = l.next(|_| ()).unwrap_err().to_string();
        assert!(e.contains("line 1") && e.contains("longer than"), "{e}");
        assert!(l.broken());
        assert!(l.next(|_| ()).unwrap().is_none());
    }
}
