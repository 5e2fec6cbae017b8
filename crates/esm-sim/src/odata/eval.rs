//! `$filter` evaluation against stored rows.

use super::parse::{CmpOp, Expr, Func};
use crate::store::{Layout, Row};
use crate::value::Val;
use esm_exact::schema::Entity;
use std::cmp::Ordering;

/// An expression with field names resolved to columns of one table.
#[derive(Debug, Clone)]
pub enum Bound {
    Lit(Val),
    Col(Option<u16>),
    Not(Box<Bound>),
    And(Box<Bound>, Box<Bound>),
    Or(Box<Bound>, Box<Bound>),
    Cmp(CmpOp, Box<Bound>, Box<Bound>),
    Call(Func, Vec<Bound>),
}

/// Resolve names against the view's fields; an unknown field is the provider's 400.
pub fn bind(e: &Expr, view: &Entity, layout: &Layout) -> Result<Bound, String> {
    Ok(match e {
        Expr::Lit(v) => Bound::Lit(v.clone()),
        Expr::Field(name) => {
            if view.field(name).is_none() {
                return Err(format!("No property '{name}' exists in type '{}'.", super::type_name(view)));
            }
            Bound::Col(layout.col(name))
        }
        Expr::Not(x) => Bound::Not(Box::new(bind(x, view, layout)?)),
        Expr::And(a, b) => Bound::And(Box::new(bind(a, view, layout)?), Box::new(bind(b, view, layout)?)),
        Expr::Or(a, b) => Bound::Or(Box::new(bind(a, view, layout)?), Box::new(bind(b, view, layout)?)),
        Expr::Cmp(op, a, b) => Bound::Cmp(*op, Box::new(bind(a, view, layout)?), Box::new(bind(b, view, layout)?)),
        Expr::Call(f, args) => Bound::Call(*f, args.iter().map(|a| bind(a, view, layout)).collect::<Result<_, _>>()?),
    })
}

/// Whether the top of the expression yields a boolean (the provider rejects `$filter=Code`).
pub fn is_boolean(e: &Expr) -> bool {
    match e {
        Expr::Not(_) | Expr::And(..) | Expr::Or(..) | Expr::Cmp(..) => true,
        Expr::Call(f, _) => matches!(f, Func::SubstringOf | Func::StartsWith | Func::EndsWith),
        Expr::Lit(Val::Bool(_)) => true,
        _ => false,
    }
}

fn eval(b: &Bound, row: &Row) -> Val {
    match b {
        Bound::Lit(v) => v.clone(),
        Bound::Col(Some(c)) => row.get(*c).clone(),
        Bound::Col(None) => Val::Null,
        Bound::Not(x) => Val::Bool(!truthy(&eval(x, row))),
        Bound::And(a, b) => Val::Bool(truthy(&eval(a, row)) && truthy(&eval(b, row))),
        Bound::Or(a, b) => Val::Bool(truthy(&eval(a, row)) || truthy(&eval(b, row))),
        Bound::Cmp(op, a, b) => {
            let (x, y) = (eval(a, row), eval(b, row));
            let ord = compare(&x, &y);
            Val::Bool(match op {
                CmpOp::Eq => ord == Some(Ordering::Equal),
                CmpOp::Ne => ord != Some(Ordering::Equal),
                CmpOp::Gt => ord == Some(Ordering::Greater),
                CmpOp::Ge => matches!(ord, Some(Ordering::Greater | Ordering::Equal)),
                CmpOp::Lt => ord == Some(Ordering::Less),
                CmpOp::Le => matches!(ord, Some(Ordering::Less | Ordering::Equal)),
            })
        }
        Bound::Call(f, args) => {
            let vals: Vec<Val> = args.iter().map(|a| eval(a, row)).collect();
            let s = |i: usize| vals.get(i).and_then(|v| v.as_str().map(str::to_string));
            match f {
                Func::SubstringOf => Val::Bool(matches!((s(0), s(1)), (Some(n), Some(h)) if h.contains(&n))),
                Func::StartsWith => Val::Bool(matches!((s(0), s(1)), (Some(h), Some(n)) if h.starts_with(&n))),
                Func::EndsWith => Val::Bool(matches!((s(0), s(1)), (Some(h), Some(n)) if h.ends_with(&n))),
                Func::Trim => s(0).map(|x| Val::str(x.trim())).unwrap_or(Val::Null),
                Func::ToLower => s(0).map(|x| Val::str(&x.to_lowercase())).unwrap_or(Val::Null),
                Func::ToUpper => s(0).map(|x| Val::str(&x.to_uppercase())).unwrap_or(Val::Null),
            }
        }
    }
}

fn truthy(v: &Val) -> bool {
    matches!(v, Val::Bool(true))
}

/// Compare two values the way the provider's SQL would; `None` when incomparable (null involved).
pub fn compare(x: &Val, y: &Val) -> Option<Ordering> {
    match (x, y) {
        (Val::Null, Val::Null) => Some(Ordering::Equal),
        (Val::Null, _) | (_, Val::Null) => None,
        (Val::Str(a), Val::Str(b)) => Some(a.as_ref().cmp(b.as_ref())),
        (Val::Guid(a), Val::Guid(b)) => Some(a.get().cmp(&b.get())),
        (Val::Date(a), Val::Date(b)) => Some(a.cmp(b)),
        (Val::Int(a), Val::Int(b)) => Some(a.cmp(b)),
        (Val::Bool(a), Val::Bool(b)) => Some(a.cmp(b)),
        (a, b) => match (a.as_f64(), b.as_f64()) {
            (Some(p), Some(q)) => p.partial_cmp(&q),
            _ => None,
        },
    }
}

/// Whether a row passes the filter.
pub fn matches(b: &Bound, row: &Row) -> bool {
    truthy(&eval(b, row))
}
