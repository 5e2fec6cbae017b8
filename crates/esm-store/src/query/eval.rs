//! Evaluates filters on a row's raw field values with SQL's three-valued logic.
//!
//! A comparison with a null or missing field is unknown (`None`), so neither `eq` nor `neq`
//! nor `not.eq` returns it, as in PostgreSQL; only `is.null` does.

use super::parse::{Cond, Expr, IsValue, Op, Operand};
use crate::fields::Raw;
use crate::value::{TAG_BOOL, TAG_NULL, TAG_NUM, norm_raw, raw_text};
use std::cmp::Ordering;

/// Evaluates `expr`; `field` gives the raw value of a column (None when absent).
pub(crate) fn eval<'a>(expr: &Expr, field: &dyn Fn(&str) -> Option<Raw<'a>>) -> Option<bool> {
    match expr {
        Expr::Cond(c) => eval_cond(c, field(&c.column)),
        Expr::Not(e) => eval(e, field).map(|b| !b),
        Expr::And(items) => {
            let mut unknown = false;
            for e in items {
                match eval(e, field) {
                    Some(false) => return Some(false),
                    None => unknown = true,
                    Some(true) => {}
                }
            }
            if unknown { None } else { Some(true) }
        }
        Expr::Or(items) => {
            let mut unknown = false;
            for e in items {
                match eval(e, field) {
                    Some(true) => return Some(true),
                    None => unknown = true,
                    Some(false) => {}
                }
            }
            if unknown { None } else { Some(false) }
        }
    }
}

pub(crate) fn eval_cond(cond: &Cond, raw: Option<Raw<'_>>) -> Option<bool> {
    let key = raw.map(norm_raw);
    let is_null = key.as_ref().is_none_or(|k| k.first() == Some(&TAG_NULL));
    let result = match (&cond.operand, cond.op) {
        (Operand::Is(v), _) => Some(match v {
            IsValue::Null => is_null,
            IsValue::NotNull => !is_null,
            IsValue::True => key.as_deref().is_some_and(|k| is_truthy(k, true)),
            IsValue::False => key.as_deref().is_some_and(|k| is_truthy(k, false)),
        }),
        _ if is_null => None,
        (Operand::One(lit), op) => {
            let k = key.as_deref().unwrap_or_default();
            Some(match op {
                Op::Eq => lit.matches_eq(k),
                Op::Neq => !lit.matches_eq(k),
                _ => lit.bound_for(k).is_some_and(|b| range_holds(op, k.cmp(b.as_slice()))),
            })
        }
        (Operand::List(list), _) => {
            let k = key.as_deref().unwrap_or_default();
            Some(list.iter().any(|l| l.matches_eq(k)))
        }
        (Operand::Pattern(p), op) => {
            let text = raw.and_then(raw_text)?;
            Some(if op == Op::ILike {
                glob(p, &text.to_lowercase().chars().collect::<Vec<_>>())
            } else {
                glob(p, &text.chars().collect::<Vec<_>>())
            })
        }
    };
    if cond.negated { result.map(|b| !b) } else { result }
}

/// Whether `ordering` (stored value vs bound) satisfies a range operator.
pub(crate) fn range_holds(op: Op, ordering: Ordering) -> bool {
    match op {
        Op::Gt => ordering == Ordering::Greater,
        Op::Gte => ordering != Ordering::Less,
        Op::Lt => ordering == Ordering::Less,
        Op::Lte => ordering != Ordering::Greater,
        _ => false,
    }
}

/// Booleans, and the provider's 0/1 Byte flags, for `is.true` / `is.false`.
fn is_truthy(key: &[u8], want: bool) -> bool {
    match key.first() {
        Some(&TAG_BOOL) => key.get(1) == Some(&u8::from(want)),
        Some(&TAG_NUM) => {
            let one = crate::value::norm_value(&serde_json::json!(u8::from(want)));
            key == one.as_slice()
        }
        _ => false,
    }
}

/// SQL LIKE with PostgREST's `*` alias: `*`/`%` match any run, `_` one character.
fn glob(pattern: &[char], text: &[char]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*' | '%') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == '_' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp + 1;
                    t = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|c| matches!(c, '*' | '%'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::parse::Query;
    use serde_json::json;

    /// Evaluates the query's filters on one JSON row.
    fn matches(row: &serde_json::Value, qs: &str) -> Option<bool> {
        let q = Query::parse(qs).expect("query parses");
        let text = row.to_string();
        let cols: Vec<String> = row.as_object().expect("object").keys().cloned().collect();
        let names: Vec<&str> = cols.iter().map(String::as_str).collect();
        let mut raws = vec![None; names.len()];
        crate::fields::extract(text.as_bytes(), &names, &mut raws).expect("row");
        let lookup = |c: &str| names.iter().position(|n| *n == c).and_then(|i| raws[i]);
        eval(&Expr::And(q.filters), &lookup)
    }

    fn row() -> serde_json::Value {
        json!({
            "ID": "4792a639-3840-4d8a-b086-017acd738a52", "Code": "BOLT-10", "Description": "Bolt M10 x 50%",
            "Stock": 12.5, "Timestamp": "1234567", "PlannedDate": "/Date(1793491200000)/",
            "IsSalesItem": true, "IsMakeItem": 1, "Notes": null, "Unit": "stuk    "
        })
    }

    #[test]
    fn comparisons_by_type() {
        let r = row();
        for (qs, want) in [
            ("Stock=gt.9", true),
            ("Stock=gt.100", false),
            ("Stock=eq.12.50", true),
            ("Timestamp=gt.999999", true),
            ("Timestamp=lt.1234568", true),
            ("Timestamp=eq.1234567", true),
            ("PlannedDate=gte.2026-11-01", true),
            ("PlannedDate=eq.2026-11-01", true),
            ("PlannedDate=gt.2026-11-01T00:00:00", false),
            ("PlannedDate=lt.2026-11-02", true),
            ("ID=eq.4792A639-3840-4D8A-B086-017ACD738A52", true),
            ("Code=eq.bolt-10", false),
            ("Code=gt.BOLT", true),
            ("Code=neq.NUT", true),
            ("IsSalesItem=eq.true", true),
            ("IsSalesItem=is.true", true),
            ("IsMakeItem=is.true", true),
            ("IsMakeItem=eq.1", true),
            ("IsMakeItem=is.false", false),
            ("Unit=eq.stuk    ", true),
            ("Stock=in.(1,12.5)", true),
            ("Stock=in.()", false),
            ("Stock=not.in.(1,2)", true),
        ] {
            assert_eq!(matches(&r, qs), Some(want), "{qs}");
        }
    }

    #[test]
    fn like_patterns() {
        let r = row();
        for (qs, want) in [
            ("Code=like.BOLT*", true),
            ("Code=like.bolt*", false),
            ("Code=ilike.bolt*", true),
            ("Description=ilike.*m10*", true),
            ("Description=like.*50%25", true),
            ("Code=like.BOLT-1_", true),
            ("Code=like.BOLT-_", false),
            ("Code=like.*", true),
            ("Stock=like.12*", true),
            ("Code=not.like.N*", true),
        ] {
            assert_eq!(matches(&r, qs), Some(want), "{qs}");
        }
    }

    #[test]
    fn nulls_are_unknown_except_for_is() {
        let r = row();
        assert_eq!(matches(&r, "Notes=eq.x"), None);
        assert_eq!(matches(&r, "Notes=neq.x"), None);
        assert_eq!(matches(&r, "Notes=not.eq.x"), None);
        assert_eq!(matches(&r, "Missing=eq.x"), None);
        assert_eq!(matches(&r, "Notes=is.null"), Some(true));
        assert_eq!(matches(&r, "Missing=is.null"), Some(true));
        assert_eq!(matches(&r, "Notes=not.is.null"), Some(false));
        assert_eq!(matches(&r, "Code=is.not_null"), Some(true));
        assert_eq!(matches(&r, "or=(Notes.eq.x,Code.eq.BOLT-10)"), Some(true));
        assert_eq!(matches(&r, "or=(Notes.eq.x,Code.eq.NUT)"), None);
        assert_eq!(matches(&r, "and=(Notes.eq.x,Code.eq.NUT)"), Some(false));
    }

    #[test]
    fn logic_trees() {
        let r = row();
        assert_eq!(matches(&r, "or=(Stock.gt.100,and(Code.like.B*,Stock.lt.13))"), Some(true));
        assert_eq!(matches(&r, "not.or=(Stock.gt.100,Code.eq.BOLT-10)"), Some(false));
        assert_eq!(matches(&r, "or=(Description.eq.\"Bolt M10 x 50%25\")"), Some(true));
    }
}
