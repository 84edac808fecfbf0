//! The generic delimited format: any text trace with one request per line, described by a
//! column mapping and explicit units ([`CsvSpec`]). Without a mapping it reads headway's own
//! CSV (what `trace convert --to csv` writes):
//!
//! ```text
//! time_ns,device,lbn,sectors,op,process
//! 0,0,1000,8,R,0
//! ```
//!
//! In an experiment file (columns count from 0, or name a header column):
//!
//! ```toml
//! [workload.csv]
//! delimiter = "whitespace"     # "," (default), ";", "tab", "whitespace", or one character
//! header = false               # first line names the columns
//! time = 0                     # required
//! device = 1                   # optional (default: every record on device 0)
//! address = 2                  # required
//! size = 3                     # required
//! op = 4                       # required
//! process = 5                  # optional
//! time_unit = "ms"             # s | ms | us | ns | ticks100ns
//! address_unit = "bytes"       # sectors (512 B) | bytes | blocks:<bytes per block>
//! size_unit = "bytes"
//! read_values = ["1"]          # default ["r", "read", "1"], compared without case
//! write_values = ["0"]         # default ["w", "write", "0"]; any other value is an error
//! ```
//!
//! From the command line the same mapping is one string (`--csv-map`), see
//! [`CsvSpec::parse_map`].

use std::io::BufRead;
use std::path::PathBuf;

use serde::{Deserialize, Deserializer};

use super::fields::{byte_extent, lossy, scaled_number, sectors_u32, uint, FieldResult};
use super::lines::{is_skippable, split};
use super::text::{LineParser, TextReader};
use super::TraceRecord;
use crate::error::{HeadwayError, Result};
use crate::request::Op;

/// Columns beyond this index are not looked at.
pub(crate) const MAX_COLUMNS: usize = 64;

/// The header line headway's own CSV starts with.
pub(crate) const HEADWAY_CSV_HEADER: &str = "time_ns,device,lbn,sectors,op,process";

/// A column, by 0-based index or by header name.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Column {
    Index(usize),
    Name(String),
}

impl Column {
    fn parse(s: &str) -> Column {
        match s.parse() {
            Ok(i) => Column::Index(i),
            Err(_) => Column::Name(s.to_string()),
        }
    }
}

impl std::fmt::Display for Column {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Column::Index(i) => write!(f, "{i}"),
            Column::Name(n) => write!(f, "`{n}`"),
        }
    }
}

/// What separates fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delimiter {
    /// Runs of blanks (spaces, tabs).
    Whitespace,
    Byte(u8),
}

impl Delimiter {
    pub fn parse(s: &str) -> std::result::Result<Self, String> {
        Ok(match s {
            "whitespace" | "space" | "blank" | " " => Delimiter::Whitespace,
            "comma" | "," => Delimiter::Byte(b','),
            "tab" | "\t" => Delimiter::Byte(b'\t'),
            "semicolon" | ";" => Delimiter::Byte(b';'),
            "pipe" | "|" => Delimiter::Byte(b'|'),
            s if s.len() == 1 && s.is_ascii() => Delimiter::Byte(s.as_bytes()[0]),
            _ => {
                return Err(format!(
                "delimiter `{s}`: expected \",\", \";\", \"tab\", \"whitespace\" or one character"
            ))
            }
        })
    }
    fn sep(self) -> Option<u8> {
        match self {
            Delimiter::Whitespace => None,
            Delimiter::Byte(b) => Some(b),
        }
    }
}

impl<'de> Deserialize<'de> for Delimiter {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Delimiter::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// The unit of a time column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum TimeUnit {
    #[serde(rename = "s")]
    S,
    #[serde(rename = "ms")]
    Ms,
    #[serde(rename = "us")]
    Us,
    #[serde(rename = "ns")]
    Ns,
    /// Windows ticks of 100 ns.
    #[serde(rename = "ticks100ns")]
    Ticks100ns,
}

impl TimeUnit {
    pub fn parse(s: &str) -> std::result::Result<Self, String> {
        Ok(match s {
            "s" => TimeUnit::S,
            "ms" => TimeUnit::Ms,
            "us" => TimeUnit::Us,
            "ns" => TimeUnit::Ns,
            "ticks100ns" => TimeUnit::Ticks100ns,
            _ => {
                return Err(format!(
                    "time unit `{s}`: expected s, ms, us, ns or ticks100ns"
                ))
            }
        })
    }
    /// Powers of ten from this unit to nanoseconds.
    fn pow10(self) -> u32 {
        match self {
            TimeUnit::S => 9,
            TimeUnit::Ms => 6,
            TimeUnit::Us => 3,
            TimeUnit::Ns => 0,
            TimeUnit::Ticks100ns => 2,
        }
    }
}

/// The unit of an address or size column, as bytes per unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpaceUnit {
    pub bytes: u64,
}

impl SpaceUnit {
    pub(crate) const SECTORS: SpaceUnit = SpaceUnit { bytes: 512 };
    pub(crate) const BYTES: SpaceUnit = SpaceUnit { bytes: 1 };

    pub fn parse(s: &str) -> std::result::Result<Self, String> {
        match s {
            "sectors" => return Ok(Self::SECTORS),
            "bytes" => return Ok(Self::BYTES),
            _ => {}
        }
        if let Some(n) = s.strip_prefix("blocks:") {
            if let Ok(n) = n.parse::<u64>() {
                if n > 0 {
                    return Ok(SpaceUnit { bytes: n });
                }
            }
        }
        Err(format!(
            "unit `{s}`: expected sectors (512 bytes), bytes, or blocks:<bytes per block>"
        ))
    }
}

impl<'de> Deserialize<'de> for SpaceUnit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        SpaceUnit::parse(&s).map_err(serde::de::Error::custom)
    }
}

fn comma() -> Delimiter {
    Delimiter::Byte(b',')
}
fn default_read() -> Vec<String> {
    vec!["r".into(), "read".into(), "1".into()]
}
fn default_write() -> Vec<String> {
    vec!["w".into(), "write".into(), "0".into()]
}
fn sectors_unit() -> SpaceUnit {
    SpaceUnit::SECTORS
}
fn ns_unit() -> TimeUnit {
    TimeUnit::Ns
}

/// How to read a delimited trace (`[workload.csv]`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsvSpec {
    #[serde(default = "comma")]
    pub delimiter: Delimiter,
    /// The first line (after blank and `#` lines) names the columns.
    #[serde(default)]
    pub header: bool,
    pub time: Column,
    #[serde(default)]
    pub device: Option<Column>,
    pub address: Column,
    pub size: Column,
    pub op: Column,
    #[serde(default)]
    pub process: Option<Column>,
    #[serde(default = "ns_unit")]
    pub time_unit: TimeUnit,
    #[serde(default = "sectors_unit")]
    pub address_unit: SpaceUnit,
    #[serde(default = "sectors_unit")]
    pub size_unit: SpaceUnit,
    #[serde(default = "default_read")]
    pub read_values: Vec<String>,
    #[serde(default = "default_write")]
    pub write_values: Vec<String>,
}

impl Default for CsvSpec {
    /// headway's own CSV ([`HEADWAY_CSV_HEADER`]).
    fn default() -> Self {
        CsvSpec {
            delimiter: comma(),
            header: true,
            time: Column::Name("time_ns".into()),
            device: Some(Column::Name("device".into())),
            address: Column::Name("lbn".into()),
            size: Column::Name("sectors".into()),
            op: Column::Name("op".into()),
            process: Some(Column::Name("process".into())),
            time_unit: TimeUnit::Ns,
            address_unit: SpaceUnit::SECTORS,
            size_unit: SpaceUnit::SECTORS,
            read_values: default_read(),
            write_values: default_write(),
        }
    }
}

impl CsvSpec {
    /// The command-line form: `key=value` pairs separated by commas, e.g.
    /// `time=0,device=1,address=2,size=3,op=4,time_unit=ms,address_unit=bytes,size_unit=bytes,read=1,write=0,delimiter=whitespace,header=no`.
    /// Lists of values are separated by `|` (`read=R|1`). Keys: the [`CsvSpec`] fields, with
    /// `read`/`write` short for `read_values`/`write_values`.
    pub fn parse_map(map: &str) -> Result<Self> {
        let bad = |msg: String| HeadwayError::config("csv-map", msg);
        let mut spec = CsvSpec {
            header: false,
            time: Column::Index(usize::MAX),
            device: None,
            address: Column::Index(usize::MAX),
            size: Column::Index(usize::MAX),
            op: Column::Index(usize::MAX),
            process: None,
            ..CsvSpec::default()
        };
        let mut seen = Vec::new();
        for pair in map.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = pair
                .split_once('=')
                .ok_or_else(|| bad(format!("`{pair}`: expected key=value")))?;
            let (k, v) = (k.trim(), v.trim());
            let list = || v.split('|').map(|s| s.trim().to_string()).collect();
            match k {
                "delimiter" => spec.delimiter = Delimiter::parse(v).map_err(bad)?,
                "header" => {
                    spec.header = match v {
                        "yes" | "true" | "1" => true,
                        "no" | "false" | "0" => false,
                        _ => return Err(bad(format!("header=`{v}`: expected yes or no"))),
                    }
                }
                "time" => spec.time = Column::parse(v),
                "device" => spec.device = Some(Column::parse(v)),
                "address" => spec.address = Column::parse(v),
                "size" => spec.size = Column::parse(v),
                "op" => spec.op = Column::parse(v),
                "process" => spec.process = Some(Column::parse(v)),
                "time_unit" => spec.time_unit = TimeUnit::parse(v).map_err(bad)?,
                "address_unit" => spec.address_unit = SpaceUnit::parse(v).map_err(bad)?,
                "size_unit" => spec.size_unit = SpaceUnit::parse(v).map_err(bad)?,
                "read" | "read_values" => spec.read_values = list(),
                "write" | "write_values" => spec.write_values = list(),
                _ => return Err(bad(format!(
                    "unknown key `{k}` (expected delimiter, header, time, device, address, size, op, process, time_unit, address_unit, size_unit, read, write)"
                ))),
            }
            seen.push(k.to_string());
        }
        for need in ["time", "address", "size", "op"] {
            if !seen.iter().any(|k| k == need) {
                return Err(bad(format!("`{need}=<column>` is required")));
            }
        }
        spec.validate()?;
        Ok(spec)
    }

    /// Checks that need no file.
    pub fn validate(&self) -> Result<()> {
        let bad = |msg: String| HeadwayError::config("workload.csv", msg);
        for (name, col) in self.columns() {
            match col {
                Column::Index(i) if *i >= MAX_COLUMNS => {
                    return Err(bad(format!(
                        "{name} = {i}: columns count from 0 and at most {} are read",
                        MAX_COLUMNS
                    )))
                }
                Column::Name(n) if !self.header => {
                    return Err(bad(format!(
                        "{name} = \"{n}\" names a column, but header = false: give its index (from 0) or set header = true"
                    )))
                }
                _ => {}
            }
        }
        let lower = |v: &[String]| v.iter().map(|s| s.to_ascii_lowercase()).collect::<Vec<_>>();
        let (r, w) = (lower(&self.read_values), lower(&self.write_values));
        if r.is_empty() || w.is_empty() {
            return Err(bad("read_values and write_values must not be empty".into()));
        }
        if let Some(both) = r.iter().find(|v| w.contains(v)) {
            return Err(bad(format!(
                "`{both}` is in both read_values and write_values"
            )));
        }
        Ok(())
    }

    fn columns(&self) -> Vec<(&'static str, &Column)> {
        let mut v = vec![
            ("time", &self.time),
            ("address", &self.address),
            ("size", &self.size),
            ("op", &self.op),
        ];
        if let Some(c) = &self.device {
            v.push(("device", c));
        }
        if let Some(c) = &self.process {
            v.push(("process", c));
        }
        v
    }
}

pub type CsvReader<R> = TextReader<R, CsvParser>;

impl<R: BufRead> CsvReader<R> {
    pub fn new(input: R, origin: Option<PathBuf>, spec: CsvSpec) -> Result<Self> {
        spec.validate()?;
        let parser = CsvParser::new(spec);
        Ok(TextReader::with_parser(input, origin, parser))
    }
}

/// Resolved column indices.
#[derive(Clone, Copy, Default)]
struct Cols {
    time: usize,
    device: Option<usize>,
    address: usize,
    size: usize,
    op: usize,
    process: Option<usize>,
}

pub struct CsvParser {
    spec: CsvSpec,
    /// Set once the header (if any) has been read.
    cols: Option<Cols>,
    read: Vec<Vec<u8>>,
    write: Vec<Vec<u8>>,
}

impl CsvParser {
    fn new(spec: CsvSpec) -> Self {
        let lower = |v: &[String]| {
            v.iter()
                .map(|s| s.to_ascii_lowercase().into_bytes())
                .collect()
        };
        let cols = (!spec.header).then(|| {
            let ix = |c: &Column| match c {
                Column::Index(i) => *i,
                Column::Name(_) => unreachable!("validated: names need a header"),
            };
            Cols {
                time: ix(&spec.time),
                device: spec.device.as_ref().map(ix),
                address: ix(&spec.address),
                size: ix(&spec.size),
                op: ix(&spec.op),
                process: spec.process.as_ref().map(ix),
            }
        });
        CsvParser {
            read: lower(&spec.read_values),
            write: lower(&spec.write_values),
            spec,
            cols,
        }
    }

    fn header(&mut self, fields: &[&[u8]]) -> FieldResult<()> {
        let names: Vec<String> = fields.iter().map(|f| lossy(f).into_owned()).collect();
        let find = |c: &Column, what: &str| -> FieldResult<usize> {
            match c {
                Column::Index(i) => Ok(*i),
                Column::Name(n) => names.iter().position(|h| h == n).ok_or_else(|| {
                    format!(
                        "header: no column `{n}` (the {what} column); the header has: {}",
                        names.join(", ")
                    )
                }),
            }
        };
        let s = &self.spec;
        self.cols = Some(Cols {
            time: find(&s.time, "time")?,
            device: s.device.as_ref().map(|c| find(c, "device")).transpose()?,
            address: find(&s.address, "address")?,
            size: find(&s.size, "size")?,
            op: find(&s.op, "op")?,
            process: s.process.as_ref().map(|c| find(c, "process")).transpose()?,
        });
        Ok(())
    }
}

impl LineParser for CsvParser {
    const WHAT: &'static str = "delimited (csv)";

    fn parse(&mut self, line: &[u8]) -> FieldResult<Option<TraceRecord>> {
        if is_skippable(line) {
            return Ok(None);
        }
        let mut f: [&[u8]; MAX_COLUMNS] = [&[]; MAX_COLUMNS];
        let n = split(line, self.spec.delimiter.sep(), &mut f).min(MAX_COLUMNS);
        let Some(c) = self.cols else {
            self.header(&f[..n])?;
            return Ok(None);
        };
        let get = |i: usize, name: &str| -> FieldResult<&[u8]> {
            if i < n {
                Ok(f[i])
            } else {
                Err(format!(
                    "{name}: the line has {n} fields, the mapping wants column {i} (from 0)"
                ))
            }
        };
        let time_ns = scaled_number(get(c.time, "time")?, self.spec.time_unit.pow10(), "time")?;
        let device = match c.device {
            None => 0,
            Some(i) => {
                let d = uint(get(i, "device")?, "device")?;
                u16::try_from(d)
                    .map_err(|_| format!("device: {d} is out of range (at most {})", u16::MAX))?
            }
        };
        let address = uint(get(c.address, "address")?, "address")?;
        let size = uint(get(c.size, "size")?, "size")?;
        let op_field = get(c.op, "op")?;
        let is = |list: &[Vec<u8>]| list.iter().any(|v| v.eq_ignore_ascii_case(op_field));
        let op = if is(&self.read) {
            Op::Read
        } else if is(&self.write) {
            Op::Write
        } else {
            return Err(format!(
                "op: `{}` is neither a read ({}) nor a write ({})",
                lossy(op_field),
                self.spec.read_values.join(", "),
                self.spec.write_values.join(", ")
            ));
        };
        let process = match c.process {
            None => 0,
            Some(i) => {
                let p = uint(get(i, "process")?, "process")?;
                u32::try_from(p).map_err(|_| format!("process: {p} is out of range"))?
            }
        };
        let (lbn, sectors) = if self.spec.address_unit == SpaceUnit::SECTORS
            && self.spec.size_unit == SpaceUnit::SECTORS
        {
            (address, size)
        } else {
            let offset = address
                .checked_mul(self.spec.address_unit.bytes)
                .ok_or("address: too large")?;
            let bytes = size
                .checked_mul(self.spec.size_unit.bytes)
                .ok_or("size: too large")?;
            byte_extent(offset, bytes).ok_or("address + size overflows")?
        };
        Ok(Some(TraceRecord {
            time_ns,
            device,
            lbn,
            sectors: sectors_u32(sectors, "size")?,
            op,
            process,
            response_ns: None,
            zone_op: None,
            high_priority: false,
        }))
    }
}

/// A `csv = ...` value: the table form, or the one-string form of [`CsvSpec::parse_map`]
/// (which is what the command line passes through).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CsvSetting(pub Box<CsvSpec>);

impl<'de> Deserialize<'de> for CsvSetting {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = CsvSetting;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "a column mapping: a table, or a string like \"time=0,address=2,size=3,op=4\"",
                )
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<CsvSetting, E> {
                CsvSpec::parse_map(s)
                    .map(|c| CsvSetting(Box::new(c)))
                    .map_err(|e| E::custom(e.to_string()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<CsvSetting, A::Error> {
                let spec = CsvSpec::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(CsvSetting(Box::new(spec)))
            }
        }
        d.deserialize_any(V)
    }
}
