//! Parses PostgREST-style query-string pairs into a `Query`.

use crate::error::{StoreError, StoreResult};
use crate::value::Literal;
use esm_base::limits::{FILTER_MAX_CONDITIONS, FILTER_MAX_DEPTH, FILTER_MAX_TEXT};

/// Rows per page when the caller names no limit, and the most it may ask for (spec §9).
pub const DEFAULT_LIMIT: usize = 1000;
pub const MAX_LIMIT: usize = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Neq,
    Gt,
    Gte,
    Lt,
    Lte,
    Like,
    ILike,
    In,
    Is,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IsValue {
    Null,
    NotNull,
    True,
    False,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    One(Literal),
    List(Vec<Literal>),
    /// A like pattern as chars; `*` and `%` match any run, `_` one char. Lower-cased for ilike.
    Pattern(Vec<char>),
    Is(IsValue),
}

/// `column op value`, possibly negated with `not.`.
#[derive(Debug, Clone, PartialEq)]
pub struct Cond {
    pub column: String,
    pub op: Op,
    pub negated: bool,
    pub operand: Operand,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Not(Box<Expr>),
    Cond(Cond),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderBy {
    pub column: String,
    pub desc: bool,
    pub nulls_first: bool,
}

/// A parsed table query: filters ANDed together, projection, order and paging.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    pub filters: Vec<Expr>,
    pub select: Option<Vec<String>>,
    pub order: Vec<OrderBy>,
    pub offset: usize,
    pub limit: usize,
}

impl Default for Query {
    fn default() -> Self {
        Query { filters: Vec::new(), select: None, order: Vec::new(), offset: 0, limit: DEFAULT_LIMIT }
    }
}

impl Query {
    /// Parses a raw (percent-encoded) query string such as `Warehouse=eq.x&order=Code.desc`.
    pub fn parse(query_string: &str) -> StoreResult<Query> {
        // Percent-encoding makes a byte at most three: the decoded values are checked one by one.
        if query_string.len() > 3 * FILTER_MAX_TEXT {
            return Err(StoreError::bad_query(format!(
                "the query is too long: at most {} bytes, got {}",
                3 * FILTER_MAX_TEXT,
                query_string.len()
            )));
        }
        let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query_string.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        Query::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }

    /// Parses decoded pairs. `stop_at` is the spec's name for `limit`; `replace_select` sets
    /// the columns like `select`, `add_select` appends to an explicit selection.
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> StoreResult<Query> {
        let mut q = Query::default();
        let mut add_select: Vec<String> = Vec::new();
        let mut conditions = 0;
        for (key, value) in pairs {
            within_text(key, value)?;
            match key {
                "select" | "replace_select" => q.select = Some(parse_columns(value, key)?),
                "add_select" => add_select.extend(parse_columns(value, key)?),
                "order" => q.order = parse_order(value)?,
                "offset" => q.offset = parse_number(key, value)?,
                "limit" | "stop_at" => q.limit = parse_number::<usize>(key, value)?.min(MAX_LIMIT),
                "or" | "and" | "not.or" | "not.and" => q.filters.push(parse_logic(key, value, 1, &mut conditions)?),
                column => {
                    count_condition(&mut conditions)?;
                    q.filters.push(Expr::Cond(parse_cond(column, value, false)?))
                }
            }
        }
        if let Some(sel) = q.select.as_mut() {
            for c in add_select {
                if !sel.contains(&c) {
                    sel.push(c);
                }
            }
        }
        Ok(q)
    }
}

/// Refuses a filter text longer than [`FILTER_MAX_TEXT`] before any work is done on it.
fn within_text(what: &str, text: &str) -> StoreResult<()> {
    if text.len() > FILTER_MAX_TEXT {
        return Err(StoreError::bad_query(format!(
            "'{}' is too long: at most {FILTER_MAX_TEXT} bytes, got {}",
            truncated(what),
            text.len()
        )));
    }
    Ok(())
}

/// At most 40 characters of a caller's text, for echoing it in a message.
fn truncated(text: &str) -> String {
    match text.char_indices().nth(40) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Counts one more condition or logic node of a query against [`FILTER_MAX_CONDITIONS`].
fn count_condition(conditions: &mut usize) -> StoreResult<()> {
    *conditions += 1;
    if *conditions > FILTER_MAX_CONDITIONS {
        return Err(StoreError::bad_query(format!(
            "the filter has too many conditions: at most {FILTER_MAX_CONDITIONS}"
        )));
    }
    Ok(())
}

fn parse_number<T: std::str::FromStr>(key: &str, value: &str) -> StoreResult<T> {
    value
        .trim()
        .parse()
        .map_err(|_| StoreError::bad_query(format!("'{key}' must be a non-negative integer, got '{value}'")))
}

fn parse_columns(value: &str, key: &str) -> StoreResult<Vec<String>> {
    let cols: Vec<String> = value.split(',').map(|c| c.trim().to_string()).filter(|c| !c.is_empty()).collect();
    if cols.is_empty() {
        return Err(StoreError::bad_query(format!("'{key}' names no columns")));
    }
    if cols.iter().any(|c| c == "*") {
        return Err(StoreError::bad_query(format!("'{key}=*' is the default: leave '{key}' out")));
    }
    Ok(cols)
}

fn parse_order(value: &str) -> StoreResult<Vec<OrderBy>> {
    value
        .split(',')
        .map(|term| {
            let mut parts = term.trim().split('.');
            let column = parts
                .next()
                .filter(|c| !c.is_empty())
                .ok_or_else(|| StoreError::bad_query(format!("'order' term '{term}' has no column")))?;
            let mut desc = false;
            let mut nulls = None;
            for p in parts {
                match p {
                    "asc" => desc = false,
                    "desc" => desc = true,
                    "nullsfirst" => nulls = Some(true),
                    "nullslast" => nulls = Some(false),
                    other => {
                        return Err(StoreError::bad_query(format!(
                            "'order' term '{term}': unknown modifier '{other}'"
                        )));
                    }
                }
            }
            // PostgreSQL's defaults: nulls sort as the largest value.
            Ok(OrderBy { column: column.to_string(), desc, nulls_first: nulls.unwrap_or(desc) })
        })
        .collect()
}

/// `op.value` or `not.op.value` for `column`.
fn parse_cond(column: &str, spec: &str, quoted_values: bool) -> StoreResult<Cond> {
    if column.is_empty() {
        return Err(StoreError::bad_query(format!("filter '{spec}' has no column")));
    }
    let (negated, rest) = match spec.strip_prefix("not.") {
        Some(r) => (true, r),
        None => (false, spec),
    };
    let (op_name, value) = rest.split_once('.').ok_or_else(|| {
        StoreError::bad_query(format!("filter on '{column}' must look like 'op.value', got '{spec}'"))
    })?;
    let literal = |v: &str| -> StoreResult<Literal> {
        Ok(Literal::new(&if quoted_values { unquote(v)? } else { v.to_string() }))
    };
    let (op, operand) = match op_name {
        "eq" => (Op::Eq, Operand::One(literal(value)?)),
        "neq" => (Op::Neq, Operand::One(literal(value)?)),
        "gt" => (Op::Gt, Operand::One(literal(value)?)),
        "gte" => (Op::Gte, Operand::One(literal(value)?)),
        "lt" => (Op::Lt, Operand::One(literal(value)?)),
        "lte" => (Op::Lte, Operand::One(literal(value)?)),
        "like" | "ilike" => {
            let text = if quoted_values { unquote(value)? } else { value.to_string() };
            if op_name == "like" {
                (Op::Like, Operand::Pattern(text.chars().collect()))
            } else {
                (Op::ILike, Operand::Pattern(text.to_lowercase().chars().collect()))
            }
        }
        "in" => {
            let inner = value.strip_prefix('(').and_then(|v| v.strip_suffix(')')).ok_or_else(|| {
                StoreError::bad_query(format!("'in' on '{column}' needs a list in parentheses, got '{value}'"))
            })?;
            let items = if inner.is_empty() { Vec::new() } else { split_top_level(inner)? };
            let list = items.iter().map(|i| unquote(i).map(|s| Literal::new(&s))).collect::<StoreResult<_>>()?;
            (Op::In, Operand::List(list))
        }
        "is" => {
            let v = match value.to_ascii_lowercase().as_str() {
                "null" | "unknown" => IsValue::Null,
                "not_null" => IsValue::NotNull,
                "true" => IsValue::True,
                "false" => IsValue::False,
                _ => {
                    return Err(StoreError::bad_query(format!(
                        "'is' on '{column}' takes null, not_null, true or false, got '{value}'"
                    )));
                }
            };
            (Op::Is, Operand::Is(v))
        }
        other => {
            return Err(StoreError::bad_query(format!(
                "unknown operator '{other}' on '{column}' (eq neq gt gte lt lte like ilike in is)"
            )));
        }
    };
    Ok(Cond { column: column.to_string(), op, negated, operand })
}

/// `or=(a.eq.1,and(b.gt.2,c.is.null))` and friends; `depth` is this group's nesting level
/// (1 at the top), checked before going deeper so no input can overflow the stack.
fn parse_logic(key: &str, value: &str, depth: usize, conditions: &mut usize) -> StoreResult<Expr> {
    if depth > FILTER_MAX_DEPTH {
        return Err(StoreError::bad_query(format!(
            "the filter is nested too deeply: at most {FILTER_MAX_DEPTH} levels of and/or/not"
        )));
    }
    count_condition(conditions)?;
    let (negated, kind) = match key.strip_prefix("not.") {
        Some(k) => (true, k),
        None => (false, key),
    };
    let inner = value
        .strip_prefix('(')
        .and_then(|v| v.strip_suffix(')'))
        .ok_or_else(|| StoreError::bad_query(format!("'{key}' needs conditions in parentheses, got '{value}'")))?;
    let items = split_top_level(inner)?;
    if items.is_empty() || items.iter().any(|i| i.trim().is_empty()) {
        return Err(StoreError::bad_query(format!("'{key}' has an empty condition in '{value}'")));
    }
    let children =
        items.iter().map(|i| parse_logic_item(i.trim(), depth, conditions)).collect::<StoreResult<Vec<_>>>()?;
    let expr = if kind == "or" { Expr::Or(children) } else { Expr::And(children) };
    Ok(if negated { Expr::Not(Box::new(expr)) } else { expr })
}

fn parse_logic_item(item: &str, depth: usize, conditions: &mut usize) -> StoreResult<Expr> {
    for prefix in ["and", "or", "not.and", "not.or"] {
        if let Some(rest) = item.strip_prefix(prefix)
            && rest.starts_with('(')
        {
            return parse_logic(prefix, rest, depth + 1, conditions);
        }
    }
    count_condition(conditions)?;
    let (column, spec) = item
        .split_once('.')
        .ok_or_else(|| StoreError::bad_query(format!("condition '{item}' must look like 'column.op.value'")))?;
    Ok(Expr::Cond(parse_cond(column, spec, true)?))
}

/// Splits on commas outside parentheses and double quotes.
fn split_top_level(s: &str) -> StoreResult<Vec<&str>> {
    let mut out = Vec::new();
    let (mut depth, mut in_quotes, mut escaped, mut start) = (0i32, false, false, 0);
    for (i, c) in s.char_indices() {
        if in_quotes {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_quotes = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_quotes = true,
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth < 0 {
                    return Err(StoreError::bad_query(format!("unbalanced ')' in '{s}'")));
                }
            }
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if in_quotes || depth != 0 {
        return Err(StoreError::bad_query(format!("unbalanced quotes or parentheses in '{s}'")));
    }
    out.push(&s[start..]);
    Ok(out)
}

/// `"a \"b\""` → `a "b"`; unquoted text is taken as is.
fn unquote(s: &str) -> StoreResult<String> {
    let Some(inner) = s.strip_prefix('"') else {
        return Ok(s.to_string());
    };
    let inner = inner.strip_suffix('"').ok_or_else(|| StoreError::bad_query(format!("unterminated quote in '{s}'")))?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.push(chars.next().ok_or_else(|| StoreError::bad_query(format!("dangling escape in '{s}'")))?);
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cond(e: &Expr) -> &Cond {
        match e {
            Expr::Cond(c) => c,
            other => panic!("not a condition: {other:?}"),
        }
    }

    #[test]
    fn every_operator_parses() {
        for (op_text, op) in [
            ("eq.1", Op::Eq),
            ("neq.1", Op::Neq),
            ("gt.1", Op::Gt),
            ("gte.1", Op::Gte),
            ("lt.1", Op::Lt),
            ("lte.1", Op::Lte),
            ("like.a*", Op::Like),
            ("ilike.A*", Op::ILike),
            ("in.(1,2)", Op::In),
            ("is.null", Op::Is),
        ] {
            let q = Query::from_pairs([("Stock", op_text)]).expect(op_text);
            assert_eq!(cond(&q.filters[0]).op, op, "{op_text}");
            assert!(!cond(&q.filters[0]).negated);
        }
        let q = Query::from_pairs([("Stock", "not.eq.5")]).expect("not");
        assert!(cond(&q.filters[0]).negated);
        let q = Query::from_pairs([("Description", "ilike.*BOLT*")]).expect("ilike");
        assert_eq!(cond(&q.filters[0]).operand, Operand::Pattern("*bolt*".chars().collect()));
    }

    #[test]
    fn values_keep_dots_and_lists_honour_quotes() {
        let q = Query::from_pairs([("Code", "eq.A.B.C")]).expect("dots");
        assert!(matches!(&cond(&q.filters[0]).operand, Operand::One(l) if l.raw == "A.B.C"));
        let q = Query::parse("Code=in.(a,b,%22c%20d%22,%22e,f%22)").expect("in");
        let Operand::List(l) = &cond(&q.filters[0]).operand else { panic!("list") };
        let raws: Vec<&str> = l.iter().map(|x| x.raw.as_str()).collect();
        assert_eq!(raws, ["a", "b", "c d", "e,f"]);
        let q = Query::from_pairs([("ID", "in.()")]).expect("empty in");
        assert!(matches!(&cond(&q.filters[0]).operand, Operand::List(l) if l.is_empty()));
    }

    #[test]
    fn nested_logic_trees() {
        let q = Query::from_pairs([("or", r#"(a.eq.1,b.gt.2,and(c.eq.3,d.not.lt.4),e.eq."x,)y")"#)]).expect("or");
        let Expr::Or(items) = &q.filters[0] else { panic!("or") };
        assert_eq!(items.len(), 4);
        let Expr::And(inner) = &items[2] else { panic!("and") };
        assert_eq!(cond(&inner[1]).column, "d");
        assert!(cond(&inner[1]).negated);
        assert!(matches!(&cond(&items[3]).operand, Operand::One(l) if l.raw == "x,)y"));
        let q = Query::from_pairs([("not.and", "(a.eq.1,or(b.is.null,b.eq.2))")]).expect("not.and");
        assert!(matches!(&q.filters[0], Expr::Not(inner) if matches!(**inner, Expr::And(_))));
    }

    #[test]
    fn select_order_paging() {
        let q = Query::parse("select=ID,Code&order=Code.desc,ID.asc.nullsfirst&offset=2000&limit=5000").expect("q");
        assert_eq!(q.select, Some(vec!["ID".to_string(), "Code".to_string()]));
        assert_eq!(q.order[0], OrderBy { column: "Code".into(), desc: true, nulls_first: true });
        assert_eq!(q.order[1], OrderBy { column: "ID".into(), desc: false, nulls_first: true });
        assert_eq!((q.offset, q.limit), (2000, MAX_LIMIT));
        let q = Query::parse("stop_at=10&replace_select=ID&add_select=Code").expect("spec names");
        assert_eq!(q.limit, 10);
        assert_eq!(q.select, Some(vec!["ID".to_string(), "Code".to_string()]));
        assert_eq!(Query::parse("").expect("empty").limit, DEFAULT_LIMIT);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        for (k, v, needle) in [
            ("Code", "eq", "op.value"),
            ("Code", "foo.1", "unknown operator 'foo'"),
            ("Code", "in.1,2", "parentheses"),
            ("Code", "is.maybe", "'is'"),
            ("or", "a.eq.1", "parentheses"),
            ("or", "(a.eq.1,(b)", "unbalanced"),
            ("or", "(a.eq.\"x)", "unbalanced"),
            ("or", "(a.eq.1,)", "empty condition"),
            ("or", "(nodot)", "column.op.value"),
            ("offset", "-1", "'offset'"),
            ("limit", "ten", "'limit'"),
            ("order", "Code.sideways", "sideways"),
            ("select", "", "no columns"),
        ] {
            let err = Query::from_pairs([(k, v)]).expect_err(v).to_string();
            assert!(err.contains(needle), "{k}={v}: {err}");
        }
    }

    fn nested(depth: usize) -> String {
        format!("({}a.eq.1{})", "and(".repeat(depth - 1), ")".repeat(depth - 1))
    }

    #[test]
    fn nesting_stops_at_the_limit_and_never_overflows() {
        assert!(Query::from_pairs([("or", nested(FILTER_MAX_DEPTH).as_str())]).is_ok());
        let err = Query::from_pairs([("or", nested(FILTER_MAX_DEPTH + 1).as_str())]).expect_err("too deep");
        assert!(err.to_string().contains("nested too deeply"), "{err}");
        // What took the process down: thousands of levels, as the raw query string and as a pair.
        let deep = nested(3000);
        let err = Query::parse(&format!("or={deep}")).expect_err("3000 deep");
        assert!(err.to_string().contains("nested too deeply"), "{err}");
        let err = Query::from_pairs([("not.or", deep.as_str())]).expect_err("3000 deep");
        assert!(err.to_string().contains("nested too deeply"), "{err}");
        let ors = format!("({}a.eq.1{})", "not.or(".repeat(40), ")".repeat(40));
        assert!(Query::from_pairs([("and", ors.as_str())]).is_err());
    }

    #[test]
    fn long_texts_and_many_conditions_are_refused() {
        let long = format!("eq.{}", "x".repeat(FILTER_MAX_TEXT));
        let err = Query::from_pairs([("Code", long.as_str())]).expect_err("long value");
        assert!(err.to_string().contains("too long"), "{err}");
        let err = Query::parse(&format!("Code=eq.{}", "y".repeat(FILTER_MAX_TEXT))).expect_err("long query");
        assert!(err.to_string().contains("too long"), "{err}");
        let many = format!("({})", vec!["a.eq.1"; FILTER_MAX_CONDITIONS].join(","));
        let err = Query::from_pairs([("or", many.as_str())]).expect_err("too many");
        assert!(err.to_string().contains("too many conditions"), "{err}");
        let pairs: Vec<(&str, &str)> = vec![("Code", "eq.1"); FILTER_MAX_CONDITIONS + 1];
        assert!(Query::from_pairs(pairs).is_err());
        let fine = format!("({})", vec!["a.eq.1"; FILTER_MAX_CONDITIONS - 1].join(","));
        assert!(Query::from_pairs([("or", fine.as_str())]).is_ok());
    }
}
