//! `$filter` parsing: OData v2 expressions as the provider accepts them.

use crate::value::{Val, parse_date_text};

/// A parsed filter expression. Fields are resolved to names here and to columns in `eval`.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Lit(Val),
    Field(String),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    Call(Func, Vec<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    SubstringOf,
    StartsWith,
    EndsWith,
    Trim,
    ToLower,
    ToUpper,
}

/// The provider's message for unparsable queries.
pub const SYNTAX_ERROR: &str = "Bad Request - Error in query syntax.";

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Lit(Val),
    Open,
    Close,
    Comma,
}

fn tokenize(s: &str) -> Result<Vec<Tok>, String> {
    let b = s.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'(' => {
                out.push(Tok::Open);
                i += 1
            }
            b')' => {
                out.push(Tok::Close);
                i += 1
            }
            b',' => {
                out.push(Tok::Comma);
                i += 1
            }
            b'\'' => {
                let (text, next) = quoted(s, i)?;
                out.push(Tok::Lit(Val::str(&text)));
                i = next;
            }
            b'0'..=b'9' | b'-' | b'.' => {
                let start = i;
                i += 1;
                while i < b.len() && (b[i].is_ascii_digit() || matches!(b[i], b'.' | b'e' | b'E')) {
                    i += 1;
                }
                let text = &s[start..i];
                // Suffixes: 123L (Int64), 1.5M/D/F (decimal/double/single).
                if i < b.len() && matches!(b[i], b'L' | b'l') {
                    i += 1;
                    out.push(Tok::Lit(Val::Int(text.parse().map_err(|_| SYNTAX_ERROR.to_string())?)));
                } else if i < b.len() && matches!(b[i], b'M' | b'm' | b'D' | b'd' | b'F' | b'f') {
                    i += 1;
                    out.push(Tok::Lit(Val::Dbl(text.parse().map_err(|_| SYNTAX_ERROR.to_string())?)));
                } else if let Ok(n) = text.parse::<i64>() {
                    out.push(Tok::Lit(Val::Int(n)));
                } else {
                    out.push(Tok::Lit(Val::Dbl(text.parse().map_err(|_| SYNTAX_ERROR.to_string())?)));
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'/' | b'.')) {
                    i += 1;
                }
                let word = &s[start..i];
                if i < b.len() && b[i] == b'\'' {
                    let (text, next) = quoted(s, i)?;
                    i = next;
                    out.push(Tok::Lit(typed_literal(word, &text)?));
                } else {
                    match word {
                        "true" => out.push(Tok::Lit(Val::Bool(true))),
                        "false" => out.push(Tok::Lit(Val::Bool(false))),
                        "null" => out.push(Tok::Lit(Val::Null)),
                        _ => out.push(Tok::Ident(word.to_string())),
                    }
                }
            }
            _ => return Err(SYNTAX_ERROR.into()),
        }
    }
    Ok(out)
}

/// Read a single-quoted string starting at `start` (a doubled quote is a literal quote).
fn quoted(s: &str, start: usize) -> Result<(String, usize), String> {
    let b = s.as_bytes();
    let mut i = start + 1;
    let mut text = String::new();
    let mut seg = i;
    while i < b.len() {
        if b[i] == b'\'' {
            if i + 1 < b.len() && b[i + 1] == b'\'' {
                text.push_str(&s[seg..=i]);
                i += 2;
                seg = i;
                continue;
            }
            text.push_str(&s[seg..i]);
            return Ok((text, i + 1));
        }
        i += 1;
    }
    Err(SYNTAX_ERROR.into())
}

fn typed_literal(prefix: &str, text: &str) -> Result<Val, String> {
    match prefix {
        "guid" => uuid::Uuid::parse_str(text)
            .map(|u| Val::guid(u.as_u128()))
            .map_err(|_| format!("Unrecognized 'Edm.Guid' literal 'guid'{text}''.")),
        "datetime" => parse_date_text(text)
            .map(Val::Date)
            .ok_or_else(|| format!("Unrecognized 'Edm.DateTime' literal 'datetime'{text}''.")),
        "X" | "binary" => Ok(Val::str(text)),
        _ => Err(SYNTAX_ERROR.into()),
    }
}

/// The simulator parses and evaluates a filter by recursion: bounded like the server's own
/// filters (see `crate::limits`), so no `$filter` can overflow the stack.
const MAX_DEPTH: usize = esm_base::limits::FILTER_MAX_DEPTH;
/// A left-deep chain of `or`/`and` is as deep as it is long; this many tokens stay well within.
const MAX_TOKENS: usize = 2000;

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    /// Open parentheses, calls and `not`s around the current position.
    depth: usize,
}

impl Parser {
    fn peek_word(&self) -> Option<&str> {
        match self.toks.get(self.pos) {
            Some(Tok::Ident(w)) => Some(w.as_str()),
            _ => None,
        }
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.toks.get(self.pos) == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut left = self.and()?;
        while self.peek_word() == Some("or") {
            self.pos += 1;
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut left = self.not()?;
        while self.peek_word() == Some("and") {
            self.pos += 1;
            left = Expr::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr, String> {
        if self.peek_word() == Some("not") {
            self.pos += 1;
            let inner = self.deeper(Self::not)?;
            return Ok(Expr::Not(Box::new(inner)));
        }
        self.cmp()
    }

    /// Runs `step` one nesting level deeper, refusing past [`MAX_DEPTH`].
    fn deeper(&mut self, step: fn(&mut Self) -> Result<Expr, String>) -> Result<Expr, String> {
        if self.depth >= MAX_DEPTH {
            return Err(format!("The filter is nested too deeply (at most {MAX_DEPTH} levels)."));
        }
        self.depth += 1;
        let e = step(self);
        self.depth -= 1;
        e
    }

    fn cmp(&mut self) -> Result<Expr, String> {
        let left = self.primary()?;
        let op = match self.peek_word() {
            Some("eq") => CmpOp::Eq,
            Some("ne") => CmpOp::Ne,
            Some("gt") => CmpOp::Gt,
            Some("ge") => CmpOp::Ge,
            Some("lt") => CmpOp::Lt,
            Some("le") => CmpOp::Le,
            _ => return Ok(left),
        };
        self.pos += 1;
        let right = self.primary()?;
        Ok(Expr::Cmp(op, Box::new(left), Box::new(right)))
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let tok = self.toks.get(self.pos).cloned().ok_or_else(|| SYNTAX_ERROR.to_string())?;
        self.pos += 1;
        match tok {
            Tok::Open => {
                let e = self.deeper(Self::or)?;
                if !self.eat(&Tok::Close) {
                    return Err(SYNTAX_ERROR.into());
                }
                Ok(e)
            }
            Tok::Lit(v) => Ok(Expr::Lit(v)),
            Tok::Ident(w) => {
                if self.toks.get(self.pos) == Some(&Tok::Open) {
                    let func = match w.as_str() {
                        "substringof" => Func::SubstringOf,
                        "startswith" => Func::StartsWith,
                        "endswith" => Func::EndsWith,
                        "trim" => Func::Trim,
                        "tolower" => Func::ToLower,
                        "toupper" => Func::ToUpper,
                        _ => return Err(format!("Unknown function '{w}'.")),
                    };
                    self.pos += 1;
                    let mut args = vec![self.deeper(Self::or)?];
                    while self.eat(&Tok::Comma) {
                        args.push(self.deeper(Self::or)?);
                    }
                    if !self.eat(&Tok::Close) {
                        return Err(SYNTAX_ERROR.into());
                    }
                    let want = if matches!(func, Func::Trim | Func::ToLower | Func::ToUpper) { 1 } else { 2 };
                    if args.len() != want {
                        return Err(SYNTAX_ERROR.into());
                    }
                    Ok(Expr::Call(func, args))
                } else if matches!(w.as_str(), "and" | "or" | "eq" | "ne" | "gt" | "ge" | "lt" | "le") {
                    Err(SYNTAX_ERROR.into())
                } else {
                    Ok(Expr::Field(w))
                }
            }
            Tok::Close | Tok::Comma => Err(SYNTAX_ERROR.into()),
        }
    }
}

/// Parse a `$filter` value (already percent-decoded).
pub fn parse_filter(s: &str) -> Result<Expr, String> {
    let toks = tokenize(s)?;
    if toks.is_empty() {
        return Err(SYNTAX_ERROR.into());
    }
    if toks.len() > MAX_TOKENS {
        return Err(format!("The filter is too long (at most {MAX_TOKENS} terms)."));
    }
    let mut p = Parser { toks, pos: 0, depth: 0 };
    let e = p.or()?;
    if p.pos != p.toks.len() {
        return Err(SYNTAX_ERROR.into());
    }
    Ok(e)
}

impl Expr {
    /// Every field name the expression mentions.
    pub fn fields(&self, out: &mut Vec<String>) {
        match self {
            Expr::Field(f) => out.push(f.clone()),
            Expr::Lit(_) => {}
            Expr::Not(e) => e.fields(out),
            Expr::And(a, b) | Expr::Or(a, b) | Expr::Cmp(_, a, b) => {
                a.fields(out);
                b.fields(out);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.fields(out)),
        }
    }

    /// A lower bound on `Timestamp` implied by the whole filter (`Timestamp gt N` at the top or
    /// under `and`), used to seek the Timestamp index instead of scanning.
    pub fn timestamp_floor(&self) -> Option<i64> {
        match self {
            Expr::Cmp(op, a, b) => match (a.as_ref(), b.as_ref()) {
                (Expr::Field(f), Expr::Lit(v)) if f == "Timestamp" => match op {
                    CmpOp::Gt => v.as_i64().map(|n| n + 1),
                    CmpOp::Ge | CmpOp::Eq => v.as_i64(),
                    _ => None,
                },
                _ => None,
            },
            Expr::And(a, b) => match (a.timestamp_floor(), b.timestamp_floor()) {
                (Some(x), Some(y)) => Some(x.max(y)),
                (x, y) => x.or(y),
            },
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_provider_literals_and_operators() {
        let e = parse_filter("Timestamp gt 5L and (EntityType eq 2 or not (Code eq 'O''Brien'))").expect("parse");
        assert_eq!(e.timestamp_floor(), Some(6));
        let e = parse_filter("ID eq guid'4792a639-3840-4d8a-b086-017acd738a52'").expect("guid");
        assert!(matches!(e, Expr::Cmp(CmpOp::Eq, _, _)));
        parse_filter("Modified ge datetime'2017-05-31T00:00:00'").expect("datetime");
        parse_filter("substringof('123',ShopOrderNumberString) eq true").expect("substringof");
        parse_filter("startswith(Code,'AB') eq true").expect("startswith");
        parse_filter("trim(Code) eq '25'").expect("trim");
        assert!(parse_filter("Code eq").is_err());
        assert!(parse_filter("(Code eq 'a'").is_err());
        assert!(parse_filter("ID eq guid'nope'").is_err());
    }

    #[test]
    fn deep_or_long_filters_are_refused_not_overflowed() {
        let deep = format!("{}Code eq 'A'{}", "(".repeat(100), ")".repeat(100));
        assert!(parse_filter(&deep).expect_err("deep").contains("nested too deeply"));
        let deeper = format!("{}Code eq 'A'{}", "(".repeat(3000), ")".repeat(3000));
        assert!(parse_filter(&deeper).is_err());
        let nots = format!("{}Code eq 'A'", "not ".repeat(3000));
        assert!(parse_filter(&nots).is_err());
        let calls = format!("{}Code{}", "tolower(".repeat(3000), ")".repeat(3000));
        assert!(parse_filter(&calls).is_err());
        let chain = vec!["Code eq 'A'"; 2000].join(" or ");
        assert!(parse_filter(&chain).expect_err("long").contains("too long"));
        let fine = format!("{}Code eq 'A'{}", "(".repeat(20), ")".repeat(20));
        assert!(parse_filter(&fine).is_ok());
    }
}
