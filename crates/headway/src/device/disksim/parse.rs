//! DiskSim 4.0's parameter language, read into a generic tree.
//!
//! A file is a sequence of statements:
//!
//! * `TYPE NAME { key = value, ... }` defines a named block;
//! * `source FILE` splices another file in (relative to the including file, in its folder
//!   or below: [`super::sourced_path`]);
//! * `instantiate [ a, b ] as NAME` creates components from a block;
//! * `topology TYPE NAME [ TYPE NAME [ ... ] ... ]` wires them up.
//!
//! Keys may contain spaces and punctuation ("Segment size (in blks)", "Read hit over. after
//! read"); values are numbers, words (file names, enumerations), lists `[ ... ]` of values,
//! anonymous blocks `TYPE { ... }`, or `source FILE` naming a file that holds one block. `#`
//! starts a comment running to the end of the line. Every node remembers its file and line so
//! the mapping to a drive can point at the exact place a value is wrong.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Resolver;
use crate::error::{HeadwayError, Result};

/// Where a node was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Loc {
    pub file: Arc<PathBuf>,
    pub line: usize,
}

impl Loc {
    /// A parameter-file error at this place.
    pub(crate) fn error(&self, key: Option<&str>, msg: impl Into<String>) -> HeadwayError {
        HeadwayError::params(
            Some(self.file.as_ref().clone()),
            Some(self.line),
            key.map(str::to_string),
            msg,
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Int(i64),
    Float(f64),
    Word(String),
    Block(Block),
    List(Vec<Item>),
}

impl Value {
    /// What kind of value this is, for error messages.
    pub(crate) fn kind(&self) -> String {
        match self {
            Value::Int(i) => format!("the integer {i}"),
            Value::Float(f) => format!("the number {f}"),
            Value::Word(w) => format!("the word `{w}`"),
            Value::Block(b) => format!("a `{}` block", b.type_name),
            Value::List(_) => "a list".to_string(),
        }
    }
}

/// One element of a list.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Item {
    pub value: Value,
    pub loc: Loc,
}

/// `key = value` inside a block.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Param {
    pub key: String,
    pub value: Value,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Block {
    pub type_name: String,
    /// `None` for an anonymous block given as a value.
    pub name: Option<String>,
    pub params: Vec<Param>,
    pub loc: Loc,
}

impl Block {
    pub(crate) fn get(&self, key: &str) -> Option<&Param> {
        self.params.iter().find(|p| p.key == key)
    }
}

/// `instantiate [ names ] as type_name`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Instantiation {
    pub names: Vec<String>,
    pub type_name: String,
    pub loc: Loc,
}

/// One component of the `topology` tree.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TopoNode {
    pub type_name: String,
    pub name: String,
    pub children: Vec<TopoNode>,
    pub loc: Loc,
}

/// Everything a file (and the files it sources) defines, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Document {
    pub blocks: Vec<Block>,
    pub instantiations: Vec<Instantiation>,
    pub topology: Vec<TopoNode>,
}

impl Document {
    /// The named block `name`.
    pub(crate) fn block(&self, name: &str) -> Option<&Block> {
        self.blocks.iter().find(|b| b.name.as_deref() == Some(name))
    }
}

/// Includes nest at most this deep; deeper means a file sources itself.
const MAX_INCLUDE_DEPTH: usize = 16;

/// Parse a whole file (`.parv`, `.diskspecs`), splicing in what it sources.
pub(crate) fn parse_document(text: &str, file: &Path, resolver: &dyn Resolver) -> Result<Document> {
    let mut doc = Document::default();
    Parser::new(text, file, resolver, 0)?.statements(&mut doc)?;
    Ok(doc)
}

fn parse_block_file_at(
    text: &str,
    file: &Path,
    resolver: &dyn Resolver,
    depth: usize,
) -> Result<Block> {
    let mut doc = Document::default();
    let mut p = Parser::new(text, file, resolver, depth)?;
    p.statements(&mut doc)?;
    let here = Loc {
        file: p.file.clone(),
        line: 1,
    };
    if !doc.instantiations.is_empty() || !doc.topology.is_empty() || doc.blocks.len() != 1 {
        return Err(here.error(
            None,
            format!(
                "a sourced value must be a file holding exactly one block; this one defines {} \
                 blocks",
                doc.blocks.len()
            ),
        ));
    }
    Ok(doc.blocks.pop().expect("one block"))
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Open,
    Close,
    LBracket,
    RBracket,
    Eq,
    Comma,
}

impl Tok {
    fn show(&self) -> String {
        match self {
            Tok::Word(w) => format!("`{w}`"),
            Tok::Open => "`{`".into(),
            Tok::Close => "`}`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::Eq => "`=`".into(),
            Tok::Comma => "`,`".into(),
        }
    }
}

fn lex(text: &str) -> Vec<(Tok, usize)> {
    let mut toks = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let code = line.split('#').next().unwrap_or("");
        let mut word = String::new();
        let flush = |word: &mut String, toks: &mut Vec<(Tok, usize)>| {
            if !word.is_empty() {
                toks.push((Tok::Word(std::mem::take(word)), line_no));
            }
        };
        for c in code.chars() {
            let t = match c {
                '{' => Some(Tok::Open),
                '}' => Some(Tok::Close),
                '[' => Some(Tok::LBracket),
                ']' => Some(Tok::RBracket),
                '=' => Some(Tok::Eq),
                ',' => Some(Tok::Comma),
                c if c.is_whitespace() => {
                    flush(&mut word, &mut toks);
                    None
                }
                c => {
                    word.push(c);
                    None
                }
            };
            if let Some(t) = t {
                flush(&mut word, &mut toks);
                toks.push((t, line_no));
            }
        }
        flush(&mut word, &mut toks);
    }
    toks
}

/// A number if it looks like one (DiskSim's lexer: digits, sign, point, exponent).
fn scalar(word: &str) -> Value {
    let numeric = word
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '+' || c == '.');
    if numeric {
        if let Ok(i) = word.parse::<i64>() {
            return Value::Int(i);
        }
        if let Ok(f) = word.parse::<f64>() {
            if f.is_finite() {
                return Value::Float(f);
            }
        }
    }
    Value::Word(word.to_string())
}

struct Parser<'a> {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    file: Arc<PathBuf>,
    last_line: usize,
    resolver: &'a dyn Resolver,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &str, file: &Path, resolver: &'a dyn Resolver, depth: usize) -> Result<Self> {
        Ok(Parser {
            toks: lex(text),
            pos: 0,
            file: Arc::new(file.to_path_buf()),
            last_line: text.lines().count().max(1),
            resolver,
            depth,
        })
    }

    fn loc(&self, line: usize) -> Loc {
        Loc {
            file: self.file.clone(),
            line,
        }
    }

    /// Line of the next token (or the last line at the end of the file).
    fn line(&self) -> usize {
        self.toks
            .get(self.pos)
            .map(|t| t.1)
            .unwrap_or(self.last_line)
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.0)
    }

    fn next(&mut self) -> Option<(Tok, usize)> {
        let t = self.toks.get(self.pos).cloned();
        if t.is_some() {
            self.pos += 1;
        }
        t
    }

    fn err(&self, key: Option<&str>, msg: impl Into<String>) -> HeadwayError {
        self.loc(self.line()).error(key, msg)
    }

    fn found(&self) -> String {
        self.peek()
            .map(Tok::show)
            .unwrap_or_else(|| "the end of the file".into())
    }

    fn expect(&mut self, want: Tok, key: Option<&str>, context: &str) -> Result<usize> {
        match self.peek() {
            Some(t) if *t == want => Ok(self.next().expect("peeked").1),
            _ => Err(self.err(
                key,
                format!("expected {} {context}, found {}", want.show(), self.found()),
            )),
        }
    }

    fn word(&mut self, key: Option<&str>, what: &str) -> Result<(String, usize)> {
        match self.next() {
            Some((Tok::Word(w), line)) => Ok((w, line)),
            Some((t, line)) => Err(self
                .loc(line)
                .error(key, format!("expected {what}, found {}", t.show()))),
            None => Err(self.err(key, format!("expected {what}, found the end of the file"))),
        }
    }

    fn read_included(
        &self,
        name: &str,
        line: usize,
        key: Option<&str>,
    ) -> Result<(String, PathBuf)> {
        if self.depth >= MAX_INCLUDE_DEPTH {
            return Err(self.loc(line).error(
                key,
                format!("`source {name}` nests too deep (does a file source itself?)"),
            ));
        }
        let path =
            super::sourced_path(&self.file, name).map_err(|msg| self.loc(line).error(key, msg))?;
        match self.resolver.read(&path) {
            Ok(text) => Ok((text, path)),
            Err(e) => Err(self
                .loc(line)
                .error(key, format!("cannot read `{}`: {e}", path.display()))),
        }
    }

    fn statements(&mut self, doc: &mut Document) -> Result<()> {
        while let Some(tok) = self.peek().cloned() {
            let Tok::Word(w) = tok else {
                return Err(self.err(
                    None,
                    format!(
                        "expected a block definition, `source`, `instantiate` or `topology`, \
                         found {}",
                        self.found()
                    ),
                ));
            };
            match w.as_str() {
                "source" => {
                    self.next();
                    let (name, line) = self.word(Some("source"), "a file name after `source`")?;
                    let (text, path) = self.read_included(&name, line, Some("source"))?;
                    Parser::new(&text, &path, self.resolver, self.depth + 1)?.statements(doc)?;
                }
                "instantiate" => doc.instantiations.push(self.instantiation()?),
                "topology" => {
                    self.next();
                    doc.topology.push(self.topo_node()?);
                }
                _ => {
                    let line = self.line();
                    self.next();
                    let (name, _) = self.word(None, &format!("a name for the `{w}` block"))?;
                    self.expect(Tok::Open, None, &format!("after `{w} {name}`"))?;
                    let params = self.block_body(&w, line)?;
                    doc.blocks.push(Block {
                        type_name: w,
                        name: Some(name),
                        params,
                        loc: self.loc(line),
                    });
                }
            }
        }
        Ok(())
    }

    fn instantiation(&mut self) -> Result<Instantiation> {
        let (_, line) = self.next().expect("peeked");
        let key = Some("instantiate");
        self.expect(Tok::LBracket, key, "after `instantiate`")?;
        let mut names = Vec::new();
        loop {
            match self.next() {
                Some((Tok::RBracket, _)) => break,
                Some((Tok::Comma, _)) => {}
                Some((Tok::Word(w), _)) => names.push(w),
                Some((t, l)) => {
                    return Err(self.loc(l).error(
                        key,
                        format!("expected component names or `]`, found {}", t.show()),
                    ))
                }
                None => return Err(self.err(key, "unclosed `[` in `instantiate`")),
            }
        }
        let (as_word, l) = self.word(key, "`as`")?;
        if as_word != "as" {
            return Err(self
                .loc(l)
                .error(key, format!("expected `as`, found `{as_word}`")));
        }
        let (type_name, _) = self.word(key, "the name of the block to instantiate")?;
        let names = super::ranges::expand(&names).map_err(|e| self.loc(line).error(key, e))?;
        Ok(Instantiation {
            names,
            type_name,
            loc: self.loc(line),
        })
    }

    fn topo_node(&mut self) -> Result<TopoNode> {
        let key = Some("topology");
        let (type_name, line) = self.word(key, "a component type")?;
        let (name, _) = self.word(key, "a component name")?;
        self.expect(Tok::LBracket, key, &format!("after `{type_name} {name}`"))?;
        let mut children = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::RBracket) => {
                    self.next();
                    break;
                }
                Some(Tok::Comma) => {
                    self.next();
                }
                Some(Tok::Word(_)) => children.push(self.topo_node()?),
                _ => {
                    return Err(self.err(
                        key,
                        format!(
                            "expected a component or `]` in `{type_name} {name}`, found {}",
                            self.found()
                        ),
                    ))
                }
            }
        }
        Ok(TopoNode {
            type_name,
            name,
            children,
            loc: self.loc(line),
        })
    }

    /// Parameters up to and including the closing `}` (the `{` is already consumed).
    fn block_body(&mut self, type_name: &str, open_line: usize) -> Result<Vec<Param>> {
        let mut params: Vec<Param> = Vec::new();
        loop {
            if self.peek() == Some(&Tok::Close) {
                self.next();
                return Ok(params);
            }
            if self.peek().is_none() {
                return Err(self.err(
                    None,
                    format!("the `{type_name}` block opened on line {open_line} is never closed"),
                ));
            }
            let line = self.line();
            let mut words = Vec::new();
            while let Some(Tok::Word(w)) = self.peek() {
                words.push(w.clone());
                self.next();
            }
            let key = words.join(" ");
            if key.is_empty() {
                return Err(self.err(
                    None,
                    format!(
                        "expected a parameter name in the `{type_name}` block, found {}",
                        self.found()
                    ),
                ));
            }
            self.expect(Tok::Eq, Some(&key), "after the parameter name")?;
            let value = self.value(&key)?;
            if let Some(first) = params.iter().find(|p| p.key == key) {
                return Err(self.loc(line).error(
                    Some(&key),
                    format!("given twice (first on line {})", first.loc.line),
                ));
            }
            params.push(Param {
                key: key.clone(),
                value,
                loc: self.loc(line),
            });
            match self.peek() {
                Some(Tok::Comma) => {
                    self.next();
                }
                Some(Tok::Close) => {}
                None => {}
                Some(_) => {
                    return Err(self.err(
                        Some(&key),
                        format!(
                            "expected `,` or `}}` after the value, found {}",
                            self.found()
                        ),
                    ))
                }
            }
        }
    }

    fn value(&mut self, key: &str) -> Result<Value> {
        let line = self.line();
        match self.next() {
            Some((Tok::LBracket, _)) => {
                let mut items = Vec::new();
                loop {
                    match self.peek() {
                        Some(Tok::RBracket) => {
                            self.next();
                            return Ok(Value::List(items));
                        }
                        Some(Tok::Comma) if !items.is_empty() => {
                            self.next();
                        }
                        None => {
                            return Err(self.err(
                                Some(key),
                                format!("the list opened on line {line} is never closed"),
                            ))
                        }
                        _ => {
                            let l = self.line();
                            let value = self.value(key)?;
                            items.push(Item {
                                value,
                                loc: self.loc(l),
                            });
                            // `disk0 .. disk7`: a range of names, expanded by its reader.
                            let range_next = matches!(self.peek(), Some(Tok::Word(w)) if w == "..")
                                && matches!(items.last().map(|i| &i.value), Some(Value::Word(_)));
                            if range_next {
                                let l = self.line();
                                self.next();
                                items.push(Item {
                                    value: Value::Word("..".into()),
                                    loc: self.loc(l),
                                });
                                continue;
                            }
                            if !matches!(self.peek(), Some(Tok::Comma) | Some(Tok::RBracket)) {
                                return Err(self.err(
                                    Some(key),
                                    format!(
                                        "expected `,` or `]` in the list, found {}",
                                        self.found()
                                    ),
                                ));
                            }
                        }
                    }
                }
            }
            Some((Tok::Word(w), _)) => {
                if w == "source" {
                    if let Some(Tok::Word(_)) = self.peek() {
                        let (name, l) = self.word(Some(key), "a file name")?;
                        let (text, path) = self.read_included(&name, l, Some(key))?;
                        let block =
                            parse_block_file_at(&text, &path, self.resolver, self.depth + 1)?;
                        return Ok(Value::Block(block));
                    }
                }
                let named = matches!(self.peek(), Some(Tok::Word(_)))
                    && self.peek_at(1) == Some(&Tok::Open);
                if self.peek() == Some(&Tok::Open) || named {
                    let name = if named {
                        Some(self.word(Some(key), "a block name")?.0)
                    } else {
                        None
                    };
                    self.next();
                    let params = self.block_body(&w, line)?;
                    return Ok(Value::Block(Block {
                        type_name: w,
                        name,
                        params,
                        loc: self.loc(line),
                    }));
                }
                Ok(scalar(&w))
            }
            Some((t, l)) => Err(self
                .loc(l)
                .error(Some(key), format!("expected a value, found {}", t.show()))),
            None => Err(self.err(Some(key), "expected a value, found the end of the file")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_files(p: &Path) -> std::io::Result<String> {
        Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no file {}", p.display()),
        ))
    }

    fn parse(text: &str) -> Result<Document> {
        parse_document(text, Path::new("t.parv"), &no_files)
    }

    #[test]
    fn reads_blocks_keys_lists_and_nesting() {
        let doc = parse(
            "# comment\n\
             disksim_disk D1 {\n\
               Read hit over. after read = 0.184, # trailing comment\n\
               Segment size (in blks) = 374,\n\
               Timeout time/weight = 6,\n\
               Scheduler = disksim_ioqueue { Scheduling policy = 3 },\n\
               slips = [ 1, 2,\n 3 ],\n\
               empty = [],\n\
               Gens = [ disksim_synthgen { a = 1 }, disksim_synthgen { a = 2 } ],\n\
               Seek type = extracted\n\
             }\n\
             instantiate [ disk0, disk1 ] as D1\n\
             topology disksim_iodriver driver0 [ disksim_bus bus0 [ disksim_disk disk0 [] ] ]\n",
        )
        .unwrap();
        let b = doc.block("D1").unwrap();
        assert_eq!(b.type_name, "disksim_disk");
        assert_eq!(
            b.get("Read hit over. after read").unwrap().value,
            Value::Float(0.184)
        );
        assert_eq!(b.get("Read hit over. after read").unwrap().loc.line, 3);
        assert_eq!(
            b.get("Segment size (in blks)").unwrap().value,
            Value::Int(374)
        );
        assert!(b.get("Timeout time/weight").is_some());
        let Value::Block(s) = &b.get("Scheduler").unwrap().value else {
            panic!()
        };
        assert_eq!(s.type_name, "disksim_ioqueue");
        assert_eq!(s.get("Scheduling policy").unwrap().value, Value::Int(3));
        let Value::List(l) = &b.get("slips").unwrap().value else {
            panic!()
        };
        assert_eq!(l.len(), 3);
        assert_eq!(l[2].loc.line, 8);
        assert_eq!(b.get("empty").unwrap().value, Value::List(vec![]));
        assert_eq!(
            b.get("Seek type").unwrap().value,
            Value::Word("extracted".into())
        );
        assert_eq!(doc.instantiations[0].names, ["disk0", "disk1"]);
        assert_eq!(doc.topology[0].children[0].children[0].name, "disk0");
    }

    #[test]
    fn sources_files_relative_to_the_includer() {
        let files = |p: &Path| -> std::io::Result<String> {
            match p.to_str().unwrap() {
                "dir/a.diskspecs" => Ok("disksim_disk D { Model = source m/x.model }".into()),
                "dir/m/x.model" => Ok("dm_disk X.model { Block count = 7 }\n# end".into()),
                _ => no_files(p),
            }
        };
        let doc = parse_document("source a.diskspecs", Path::new("dir/top.parv"), &files).unwrap();
        let Value::Block(m) = &doc.block("D").unwrap().get("Model").unwrap().value else {
            panic!()
        };
        assert_eq!(m.name.as_deref(), Some("X.model"));
        assert_eq!(m.loc.file.to_str(), Some("dir/m/x.model"));
    }

    #[test]
    fn syntax_errors_name_file_line_and_key() {
        let cases = [
            (
                "d X {\n a = 1\n b = 2 }",
                3,
                Some("a"),
                "expected `,` or `}`",
            ),
            ("d X {\n a = 1,\n", 2, None, "never closed"),
            ("d X {\n a 1 }", 2, Some("a 1"), "expected `=`"),
            ("d X {\n a = 1,\n a = 2 }", 3, Some("a"), "given twice"),
            (
                "d X {\n a = [ 1, 2 \n }",
                3,
                Some("a"),
                "expected `,` or `]`",
            ),
            ("d X {\n a = }", 2, Some("a"), "expected a value"),
            ("= 3", 1, None, "expected a block definition"),
            ("d {", 1, None, "expected a name"),
            ("source", 1, Some("source"), "expected a file name"),
            ("source nothere.diskspecs", 1, Some("source"), "cannot read"),
            (
                "d X { Model = source m.model }",
                1,
                Some("Model"),
                "cannot read",
            ),
            (
                "instantiate [ a ] at B",
                1,
                Some("instantiate"),
                "expected `as`",
            ),
            (
                "topology a b [ c ",
                1,
                Some("topology"),
                "expected a component name",
            ),
        ];
        for (text, line, key, msg) in cases {
            let e = parse(text).unwrap_err();
            let HeadwayError::Params {
                file,
                line: l,
                key: k,
                msg: m,
            } = &e
            else {
                panic!("{e}")
            };
            assert_eq!(file.as_deref(), Some(Path::new("t.parv")), "{text}");
            assert_eq!(*l, Some(line), "{text}: {e}");
            assert_eq!(k.as_deref(), key, "{text}: {e}");
            assert!(m.contains(msg), "{text}: {e}");
        }
    }

    #[test]
    fn self_sourcing_file_is_an_error() {
        let files = |_: &Path| -> std::io::Result<String> { Ok("source loop.parv".into()) };
        let e = parse_document("source loop.parv", Path::new("loop.parv"), &files).unwrap_err();
        assert!(e.to_string().contains("nests too deep"), "{e}");
    }
}
