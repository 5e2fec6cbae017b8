//! The query engine: PostgREST-style parsing, evaluation and planning over one table.

pub(crate) mod eval;
pub mod parse;
pub(crate) mod plan;

pub use parse::{Cond, DEFAULT_LIMIT, Expr, IsValue, MAX_LIMIT, Op, Operand, OrderBy, Query};
pub use plan::Page;
