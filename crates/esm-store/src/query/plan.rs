//! Chooses how to answer a query (key lookups, index intersections or a scan) and runs it.
//!
//! Default order is the row id (the order rows first arrived), whatever the plan, so offset
//! paging is stable. Indexed
//! `eq`/`in`/range conditions are answered exactly by their indexes (single values stream
//! through a merge join, lists and ranges become sorted id lists); a page with no other
//! conditions and no `order` is then copied straight from stored bytes without parsing.
//! An `order` on one indexed column walks that index; any other `order` keeps a bounded
//! top-k (offset + limit entries of sort key and row id).

use super::eval::eval;
use super::parse::{Cond, Expr, Op, Operand, OrderBy, Query};
use crate::error::{StoreError, StoreResult};
use crate::fields::Raw;
use crate::fields::{extract, project};
use crate::index::{self, MergeKeys};
use crate::packing::Unpacker;
use crate::postings::{self, Snapshot};
use crate::tables::{RowId, RowsDef, TableSpec, rows_name};
use crate::value::{Literal, NormKey, TAG_NULL, norm_raw};
use redb::{ReadTransaction, ReadableTable, TableError};
use std::collections::BinaryHeap;
use std::ops::Range;

/// Largest index range materialised when no equality narrows the query first.
const RANGE_CAP: usize = 50_000;

/// One page of rows, already laid out as a JSON array.
#[derive(Debug, Clone)]
pub struct Page {
    json: Vec<u8>,
    spans: Vec<Range<usize>>,
}

impl Page {
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The JSON bytes of one row.
    pub fn row(&self, i: usize) -> Option<&[u8]> {
        self.spans.get(i).map(|r| &self.json[r.clone()])
    }

    pub fn rows(&self) -> impl Iterator<Item = &[u8]> {
        self.spans.iter().map(|r| &self.json[r.clone()])
    }

    /// The page as a JSON array, ready to send.
    pub fn into_json(self) -> Vec<u8> {
        self.json
    }

    /// The rows parsed, for callers that work on values (sync, labels).
    pub fn to_values(&self) -> StoreResult<Vec<serde_json::Value>> {
        self.rows()
            .map(|r| serde_json::from_slice(r).map_err(|e| StoreError::Corrupt(format!("stored row: {e}"))))
            .collect()
    }
}

pub(crate) struct PageBuilder<'q> {
    json: Vec<u8>,
    spans: Vec<Range<usize>>,
    select: Option<Vec<&'q str>>,
}

impl<'q> PageBuilder<'q> {
    pub(crate) fn new(select: Option<&'q [String]>, capacity_rows: usize) -> Self {
        let mut json = Vec::with_capacity(capacity_rows.min(1000) * 1600 + 2);
        json.push(b'[');
        PageBuilder { json, spans: Vec::new(), select: select.map(|s| s.iter().map(String::as_str).collect()) }
    }

    pub(crate) fn push(&mut self, row: &[u8]) -> StoreResult<()> {
        if !self.spans.is_empty() {
            self.json.push(b',');
        }
        let start = self.json.len();
        match &self.select {
            Some(cols) => project(row, cols, &mut self.json)?,
            None => self.json.extend_from_slice(row),
        }
        self.spans.push(start..self.json.len());
        Ok(())
    }

    fn len(&self) -> usize {
        self.spans.len()
    }

    pub(crate) fn finish(mut self) -> Page {
        self.json.push(b']');
        Page { json: self.json, spans: self.spans }
    }
}

fn collect_columns<'e>(e: &'e Expr, out: &mut Vec<&'e str>) {
    match e {
        Expr::Cond(c) => {
            if !out.contains(&c.column.as_str()) {
                out.push(&c.column)
            }
        }
        Expr::Not(inner) => collect_columns(inner, out),
        Expr::And(items) | Expr::Or(items) => items.iter().for_each(|i| collect_columns(i, out)),
    }
}

/// Refuses columns the table does not know, naming all of them.
pub(crate) fn validate(spec: &TableSpec, q: &Query) -> StoreResult<()> {
    let mut cols: Vec<&str> = Vec::new();
    q.filters.iter().for_each(|f| collect_columns(f, &mut cols));
    cols.extend(q.order.iter().map(|o| o.column.as_str()));
    cols.extend(q.select.iter().flatten().map(String::as_str));
    let mut unknown: Vec<&str> = cols.into_iter().filter(|c| !spec.knows_column(c)).collect();
    unknown.dedup();
    if unknown.is_empty() {
        Ok(())
    } else {
        let columns = unknown.iter().map(|c| format!("'{c}'")).collect::<Vec<_>>().join(", ");
        Err(StoreError::UnknownColumn { table: spec.name.clone(), columns })
    }
}

/// Where candidate rows come from.
enum Source {
    /// Every row, in id order.
    Scan,
    /// These row ids, ascending.
    Keys(KeyStream),
}

/// Candidate row ids in ascending order.
enum KeyStream {
    List(std::vec::IntoIter<RowId>),
    /// A merge join of single-value index conditions, kept to the ids of `also` if given.
    Merge(MergeKeys, Option<Vec<RowId>>),
}

impl KeyStream {
    fn next_key(&mut self) -> StoreResult<Option<RowId>> {
        match self {
            KeyStream::List(it) => Ok(it.next()),
            KeyStream::Merge(m, also) => loop {
                let Some(k) = m.next_key()? else { return Ok(None) };
                if also.as_ref().is_none_or(|a| a.binary_search(&k).is_ok()) {
                    return Ok(Some(k));
                }
            },
        }
    }
}

fn keys(list: Vec<RowId>) -> Source {
    Source::Keys(KeyStream::List(list.into_iter()))
}

fn intersect_sorted(a: Vec<RowId>, b: &[RowId]) -> Vec<RowId> {
    let mut out = Vec::with_capacity(a.len().min(b.len()));
    let mut j = 0;
    for k in a {
        while j < b.len() && b[j] < k {
            j += 1;
        }
        if j < b.len() && b[j] == k {
            out.push(k);
        }
    }
    out
}

/// A condition as written, unless negated (only those can be answered by an index).
fn plain(e: &Expr) -> Option<&Cond> {
    match e {
        Expr::Cond(c) if !c.negated => Some(c),
        _ => None,
    }
}

/// The literals of an `eq` or `in` condition.
fn literals(c: &Cond) -> &[Literal] {
    match &c.operand {
        Operand::One(l) => std::slice::from_ref(l),
        Operand::List(l) => l.as_slice(),
        _ => &[],
    }
}

/// The index conditions of a query, sorted by how they narrow the rows.
#[derive(Default)]
struct Narrowing<'q> {
    /// Sorted id lists: `in` lists of several live values and ranges.
    sets: Vec<Vec<RowId>>,
    /// Single-value equalities, streamed through a merge join.
    pairs: Vec<(&'q str, NormKey)>,
    /// Range conditions on indexed columns, looked up once the sets' sizes are known.
    ranges: Vec<(&'q Expr, &'q Cond)>,
    /// What the indexes cannot answer: checked on each candidate row.
    residual: Vec<&'q Expr>,
}

/// Chooses where the query's candidate rows come from and which conditions remain to check.
fn plan<'q>(
    txn: &ReadTransaction,
    snap: Option<&Snapshot<'_>>,
    spec: &TableSpec,
    q: &'q Query,
) -> StoreResult<(Source, Vec<&'q Expr>)> {
    // A key condition names the rows outright; everything else is checked on those rows.
    if let Some(source) = key_lookup(txn, spec, q)? {
        return Ok((source, q.filters.iter().collect()));
    }
    let Some(mut n) = sort_conditions(txn, spec, q)? else { return Ok((keys(Vec::new()), Vec::new())) };
    look_up_ranges(txn, spec, &mut n)?;
    let also = intersect_all(std::mem::take(&mut n.sets));
    let source = choose_source(txn, snap, spec, q, &n, also)?;
    Ok((source, n.residual))
}

/// The rows of an `eq`/`in` condition on the key column, if the query has one.
fn key_lookup(txn: &ReadTransaction, spec: &TableSpec, q: &Query) -> StoreResult<Option<Source>> {
    let Some(c) = q.filters.iter().filter_map(plain).find(|c| c.column == spec.key && matches!(c.op, Op::Eq | Op::In))
    else {
        return Ok(None);
    };
    let list = index::row_ids_of_keys(txn, &spec.name, literals(c).iter().map(|l| l.raw.as_str()))?;
    Ok(Some(keys(list)))
}

/// Sorts the filters into index lookups and residual checks; `None` when an indexed equality
/// has no live value, so no row can match.
fn sort_conditions<'q>(txn: &ReadTransaction, spec: &TableSpec, q: &'q Query) -> StoreResult<Option<Narrowing<'q>>> {
    let mut n = Narrowing::default();
    for e in &q.filters {
        match plain(e) {
            Some(c) if spec.is_indexed(&c.column) && matches!(c.op, Op::Eq | Op::In) => {
                let mut live = index::live_keys(txn, &spec.name, &c.column, literals(c))?;
                match live.len() {
                    0 => return Ok(None),
                    1 => n.pairs.push((c.column.as_str(), live.remove(0))),
                    _ => n.sets.push(index::lookup_norm(txn, &spec.name, &c.column, &live)?),
                }
            }
            Some(c) if spec.is_indexed(&c.column) && matches!(c.op, Op::Gt | Op::Gte | Op::Lt | Op::Lte) => {
                n.ranges.push((e, c))
            }
            _ => n.residual.push(e),
        }
    }
    Ok(Some(n))
}

/// Turns range conditions into id sets, capped by what the equalities already narrowed to: a
/// range wider than its cap stays a residual check instead of a huge list.
fn look_up_ranges(txn: &ReadTransaction, spec: &TableSpec, n: &mut Narrowing<'_>) -> StoreResult<()> {
    let smallest = n.sets.iter().map(Vec::len).min();
    for (e, c) in std::mem::take(&mut n.ranges) {
        let cap = match smallest {
            Some(len) => len.saturating_mul(8).max(1000),
            None if !n.pairs.is_empty() => RANGE_CAP / 5,
            None => RANGE_CAP,
        };
        let Operand::One(lit) = &c.operand else {
            n.residual.push(e);
            continue;
        };
        match index::lookup_range(txn, &spec.name, &c.column, c.op, lit, cap)? {
            Some(set) => n.sets.push(set),
            None => n.residual.push(e),
        }
    }
    Ok(())
}

/// The intersection of sorted id sets, smallest first (`None` when there are none).
fn intersect_all(mut sets: Vec<Vec<RowId>>) -> Option<Vec<RowId>> {
    if sets.is_empty() {
        return None;
    }
    sets.sort_by_key(Vec::len);
    let mut iter = sets.into_iter();
    let mut acc = iter.next().unwrap_or_default();
    for s in iter {
        if acc.is_empty() {
            break;
        }
        acc = intersect_sorted(acc, &s);
    }
    Some(acc)
}

/// The candidate rows from the equalities (`pairs`) and the intersected sets (`also`).
fn choose_source(
    txn: &ReadTransaction,
    snap: Option<&Snapshot<'_>>,
    spec: &TableSpec,
    q: &Query,
    n: &Narrowing<'_>,
    also: Option<Vec<RowId>>,
) -> StoreResult<Source> {
    Ok(match (n.pairs.is_empty(), also) {
        (_, Some(list)) if list.is_empty() => keys(list),
        (true, None) => Source::Scan,
        (true, Some(list)) => keys(list),
        // Cached posting lists: intersect them in memory instead of walking the indexes.
        (false, also) if snap.is_some_and(Snapshot::cached) => {
            keys(cached_intersection(snap.expect("checked"), spec, q, n, also)?)
        }
        (false, also) => match MergeKeys::open(txn, &spec.name, &n.pairs)? {
            Some(m) => Source::Keys(KeyStream::Merge(m, also)),
            None => keys(Vec::new()),
        },
    })
}

/// The equalities' rows from the snapshot's cached posting lists, kept to `also`.
fn cached_intersection(
    snap: &Snapshot<'_>,
    spec: &TableSpec,
    q: &Query,
    n: &Narrowing<'_>,
    also: Option<Vec<RowId>>,
) -> StoreResult<Vec<RowId>> {
    let lists = n
        .pairs
        .iter()
        .map(|(field, value)| snap.postings(&spec.name, field, value))
        .collect::<StoreResult<Vec<_>>>()?;
    // With nothing left to check or sort, the page needs only its first ids.
    let unordered = n.residual.is_empty() && q.order.is_empty() && also.is_none();
    let max = if unordered { q.offset.saturating_add(q.limit) } else { usize::MAX };
    let found = postings::intersect(&lists, max);
    Ok(match also {
        Some(a) => intersect_sorted(found, &a),
        None => found,
    })
}

/// Appends one order column's part of a composite sort key (prefix-free, so byte order is
/// row order; descending columns are complemented).
fn push_sort_part(out: &mut Vec<u8>, order: &OrderBy, raw: Option<Raw<'_>>) {
    let key = raw.map(norm_raw).filter(|k| k.first() != Some(&TAG_NULL));
    // The null marker is chosen before complementing, so nulls land where asked.
    let null_low = order.nulls_first != order.desc;
    let start = out.len();
    match key {
        None => out.push(if null_low { 0 } else { 2 }),
        Some(k) => {
            out.push(1);
            for b in k {
                out.push(b);
                if b == 0 {
                    out.push(0xFF);
                }
            }
            out.extend_from_slice(&[0, 0]);
        }
    }
    if order.desc {
        out[start..].iter_mut().for_each(|b| *b = !*b);
    }
}

/// Runs a query against one table in a read transaction.
pub(crate) fn run(txn: &ReadTransaction, spec: &TableSpec, q: &Query) -> StoreResult<Page> {
    run_in(txn, None, spec, q)
}

/// `run`, using the snapshot's cached posting lists when it has them.
pub(crate) fn run_snapshot(snap: &Snapshot<'_>, spec: &TableSpec, q: &Query) -> StoreResult<Page> {
    run_in(&snap.txn, Some(snap), spec, q)
}

fn run_in(txn: &ReadTransaction, snap: Option<&Snapshot<'_>>, spec: &TableSpec, q: &Query) -> StoreResult<Page> {
    validate(spec, q)?;
    let mut page = PageBuilder::new(q.select.as_deref(), q.limit);
    if q.limit == 0 || has_empty_in(q) {
        return Ok(page.finish());
    }
    let name = rows_name(&spec.name);
    let rows_t = match txn.open_table(RowsDef::new(&name)) {
        Ok(t) => t,
        Err(TableError::TableDoesNotExist(_)) => return Ok(page.finish()),
        Err(e) => return Err(e.into()),
    };
    let rows = Rows { table: rows_t, unpacker: Unpacker::open(txn, &spec.name)? };
    let (source, residual) = plan(txn, snap, spec, q)?;
    if residual.is_empty() && q.order.is_empty() {
        // The indexes answered everything.
        copy_page(&rows, source, q, &mut page)?;
    } else if let (Source::Scan, [order]) = (&source, q.order.as_slice())
        && spec.is_indexed(&order.column)
    {
        walk_index_order(txn, spec, &rows, order, &residual, q, &mut page)?;
    } else {
        filter_and_sort(&rows, source, &residual, q, &mut page)?;
    }
    Ok(page.finish())
}

/// `in ()` matches nothing, so the query needs no table at all.
fn has_empty_in(q: &Query) -> bool {
    q.filters
        .iter()
        .any(|e| matches!(e, Expr::Cond(c) if !c.negated && matches!(&c.operand, Operand::List(l) if l.is_empty())))
}

/// A table's stored rows and the dictionary that unpacks them.
struct Rows {
    table: redb::ReadOnlyTable<RowId, &'static [u8]>,
    unpacker: Unpacker,
}

/// The columns the residual conditions read, then the order columns.
fn needed_columns<'q>(residual: &[&'q Expr], order: &'q [OrderBy]) -> Vec<&'q str> {
    let mut needed: Vec<&str> = Vec::new();
    residual.iter().for_each(|e| collect_columns(e, &mut needed));
    for o in order {
        if !needed.contains(&o.column.as_str()) {
            needed.push(&o.column);
        }
    }
    needed
}

/// Whether a row's extracted `needed` values satisfy every residual condition.
fn passes(residual: &[&Expr], needed: &[&str], local: &[Option<Raw<'_>>]) -> bool {
    let lookup = |c: &str| needed.iter().position(|n| *n == c).and_then(|i| local[i]);
    residual.iter().all(|e| eval(e, &lookup) == Some(true))
}

/// Copies the page's rows as stored, skipping `offset` candidates, without parsing any.
fn copy_page(rows: &Rows, source: Source, q: &Query, page: &mut PageBuilder) -> StoreResult<()> {
    match source {
        Source::Keys(mut stream) => {
            let mut skipped = 0;
            while page.len() < q.limit {
                let Some(k) = stream.next_key()? else { break };
                if skipped < q.offset {
                    skipped += 1;
                    continue;
                }
                if let Some(g) = rows.table.get(k)? {
                    page.push(&rows.unpacker.unpack(g.value())?)?;
                }
            }
        }
        Source::Scan => {
            for entry in rows.table.iter()?.skip(q.offset).take(q.limit) {
                let (_, v) = entry?;
                page.push(&rows.unpacker.unpack(v.value())?)?;
            }
        }
    }
    Ok(())
}

/// Ordered by one indexed column with nothing narrowing the rows first: walks that index and
/// stops once the page is full, instead of sorting the whole table.
fn walk_index_order(
    txn: &ReadTransaction,
    spec: &TableSpec,
    rows: &Rows,
    order: &OrderBy,
    residual: &[&Expr],
    q: &Query,
    page: &mut PageBuilder,
) -> StoreResult<()> {
    let needed = needed_columns(residual, &[]);
    let mut matched = 0usize;
    let mut visit = |id: RowId| -> StoreResult<bool> {
        let Some(g) = rows.table.get(id)? else { return Ok(true) };
        let bytes = rows.unpacker.unpack(g.value())?;
        let bytes = bytes.as_ref();
        if !residual.is_empty() {
            let mut local: Vec<Option<Raw<'_>>> = vec![None; needed.len()];
            extract(bytes, &needed, &mut local)?;
            if !passes(residual, &needed, &local) {
                return Ok(true);
            }
        }
        matched += 1;
        if matched > q.offset {
            page.push(bytes)?;
        }
        Ok(page.len() < q.limit)
    };
    index::walk_ordered(txn, &spec.name, &order.column, order.desc, order.nulls_first, &mut visit)
}

/// The general path: checks every candidate against the residual conditions; unordered
/// queries fill the page as they go, ordered ones keep a bounded top-k and fetch it at the end.
fn filter_and_sort(
    rows: &Rows,
    source: Source,
    residual: &[&Expr],
    q: &Query,
    page: &mut PageBuilder,
) -> StoreResult<()> {
    let mut top = TopK::new(residual, q);
    match source {
        Source::Keys(mut stream) => {
            while let Some(k) = stream.next_key()? {
                if let Some(g) = rows.table.get(k)?
                    && !top.visit(k, &rows.unpacker.unpack(g.value())?, page)?
                {
                    break;
                }
            }
        }
        Source::Scan => {
            for entry in rows.table.iter()? {
                let (k, v) = entry?;
                if !top.visit(k.value(), &rows.unpacker.unpack(v.value())?, page)? {
                    break;
                }
            }
        }
    }
    if !q.order.is_empty() {
        for id in top.into_ids() {
            if let Some(g) = rows.table.get(id)? {
                page.push(&rows.unpacker.unpack(g.value())?)?;
            }
        }
    }
    Ok(())
}

/// Matching rows of the general path: pushed straight to the page when unordered, else the
/// best offset + limit kept by sort key.
struct TopK<'q> {
    q: &'q Query,
    residual: &'q [&'q Expr],
    needed: Vec<&'q str>,
    /// Where each order column sits in `needed`.
    order_slots: Vec<usize>,
    heap: BinaryHeap<(Vec<u8>, RowId)>,
    matched: usize,
}

impl<'q> TopK<'q> {
    fn new(residual: &'q [&'q Expr], q: &'q Query) -> Self {
        let needed = needed_columns(residual, &q.order);
        let order_slots =
            q.order.iter().map(|o| needed.iter().position(|n| *n == o.column).unwrap_or_default()).collect();
        TopK { q, residual, needed, order_slots, heap: BinaryHeap::new(), matched: 0 }
    }

    /// Takes one candidate row; false once the page is full (unordered queries stop early).
    fn visit(&mut self, id: RowId, bytes: &[u8], page: &mut PageBuilder) -> StoreResult<bool> {
        let mut local: Vec<Option<Raw<'_>>> = vec![None; self.needed.len()];
        extract(bytes, &self.needed, &mut local)?;
        if !passes(self.residual, &self.needed, &local) {
            return Ok(true);
        }
        if self.q.order.is_empty() {
            self.matched += 1;
            if self.matched > self.q.offset {
                page.push(bytes)?;
            }
            return Ok(page.len() < self.q.limit);
        }
        let mut sk = Vec::with_capacity(32);
        for (o, &slot) in self.q.order.iter().zip(&self.order_slots) {
            push_sort_part(&mut sk, o, local[slot]);
        }
        let top_k = self.q.offset.saturating_add(self.q.limit);
        if self.heap.len() < top_k {
            self.heap.push((sk, id));
        } else if self.heap.peek().is_some_and(|top| (&sk, id) < (&top.0, top.1)) {
            self.heap.pop();
            self.heap.push((sk, id));
        }
        Ok(true)
    }

    /// The kept rows' ids in order, past the offset.
    fn into_ids(self) -> impl Iterator<Item = RowId> {
        let offset = self.q.offset;
        self.heap.into_sorted_vec().into_iter().skip(offset).map(|(_, id)| id)
    }
}
