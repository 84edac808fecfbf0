//! The reader every line-oriented format shares: a [`Lines`] source and a per-format
//! [`LineParser`] that turns one line into at most one record.

use std::io::BufRead;
use std::path::PathBuf;

use super::fields::FieldResult;
use super::lines::Lines;
use super::{TraceReader, TraceRecord};
use crate::error::Result;

/// One text format's line grammar.
pub trait LineParser {
    /// The format's name, for messages.
    const WHAT: &'static str;
    /// The record on `line`, `Ok(None)` for a line that carries none (blank, comment, header,
    /// an event of another kind), or a message saying what is wrong with it.
    fn parse(&mut self, line: &[u8]) -> FieldResult<Option<TraceRecord>>;
    fn process_name(&self, _pid: u32) -> Option<&str> {
        None
    }
}

pub struct TextReader<R, P> {
    lines: Lines<R>,
    parser: P,
}

impl<R: BufRead, P: LineParser> TextReader<R, P> {
    pub(crate) fn with_parser(input: R, origin: Option<PathBuf>, parser: P) -> Self {
        TextReader {
            lines: Lines::new(input, origin, P::WHAT),
            parser,
        }
    }

    /// The lines under the parser, for a format's fast path in front of it.
    #[inline(always)]
    pub(crate) fn lines_mut(&mut self) -> &mut Lines<R> {
        &mut self.lines
    }
}

impl<R: BufRead, P: LineParser> TraceReader for TextReader<R, P> {
    #[inline]
    fn next_record(&mut self) -> Result<Option<TraceRecord>> {
        loop {
            let parser = &mut self.parser;
            match self.lines.next(|l| parser.parse(l))? {
                None => return Ok(None),
                Some(Ok(Some(rec))) => return Ok(Some(rec)),
                Some(Ok(None)) => {}
                Some(Err(msg)) => return Err(self.lines.error(msg)),
            }
        }
    }
    fn line(&self) -> usize {
        self.lines.line()
    }
    fn can_continue(&self) -> bool {
        !self.lines.broken()
    }
    fn process_name(&self, pid: u32) -> Option<&str> {
        self.parser.process_name(pid)
    }
}
