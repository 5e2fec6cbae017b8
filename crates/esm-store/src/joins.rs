//! Joins (spec §7 `/db/joins`): each base row gets the rows of other tables whose `joinOn`
//! fields equal its `joinOnSelf` fields, compared as normalised values (guids in any case).
//!
//! Without `flatten` the matches are attached as an array under the source table's name.
//! With `flatten` the first match's fields are merged into the row as `{source}.{field}`
//! (one output row per base row, so paging by base rows still works); rows without a match
//! get no joined fields.

use super::error::{StoreError, StoreResult};
use super::fields::extract;
use super::index;
use super::packing::Unpacker;
use super::query::{Query, plan};
use super::tables::{Registry, RowsDef, TableSpec, rows_name};
use super::value::{NormKey, TAG_NULL, TAG_OTHER, norm_raw, norm_value};
use esm_base::limits::{JOIN_MAX_BYTES, JOIN_MAX_JOINS, JOIN_MAX_MATCHES_PER_ROW, JOIN_MAX_ROWS};
use redb::{ReadTransaction, ReadableTable};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};

/// One join: rows of `source` whose `joinOn[i]` equals the base row's `joinOnSelf[i]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinSpec {
    pub source: String,
    #[serde(rename = "joinOn")]
    pub join_on: Vec<String>,
    #[serde(rename = "joinOnSelf")]
    pub join_on_self: Vec<String>,
}

impl JoinSpec {
    /// Parses the spec's JSON list `[{"source": …, "joinOn": […], "joinOnSelf": […]}]`.
    pub fn parse_list(json: &str) -> StoreResult<Vec<JoinSpec>> {
        serde_json::from_str(json).map_err(|e| {
            StoreError::bad_query(format!("'joins' must be a JSON list of {{source, joinOn, joinOnSelf}}: {e}"))
        })
    }
}

/// Splits a `/db/joins` query string into the base query, the joins and `flatten`.
pub fn parse_joins_query(query_string: &str) -> StoreResult<(Query, Vec<JoinSpec>, bool)> {
    let mut joins = Vec::new();
    let mut flatten = false;
    let mut rest: Vec<(String, String)> = Vec::new();
    for (k, v) in url::form_urlencoded::parse(query_string.as_bytes()) {
        match k.as_ref() {
            "joins" => joins = JoinSpec::parse_list(&v)?,
            "flatten" => {
                flatten = match v.as_ref() {
                    "" | "true" | "1" => true,
                    "false" | "0" => false,
                    other => {
                        return Err(StoreError::bad_query(format!("'flatten' must be true or false, got '{other}'")));
                    }
                }
            }
            _ => rest.push((k.into_owned(), v.into_owned())),
        }
    }
    if joins.len() > JOIN_MAX_JOINS {
        return Err(StoreError::bad_query(format!("at most {JOIN_MAX_JOINS} joins per request, got {}", joins.len())));
    }
    let q = Query::from_pairs(rest.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
    Ok((q, joins, flatten))
}

fn unknown(spec: &TableSpec, cols: &[String]) -> StoreResult<()> {
    let bad: Vec<String> = cols.iter().filter(|c| !spec.knows_column(c)).map(|c| format!("'{c}'")).collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(StoreError::UnknownColumn { table: spec.name.clone(), columns: bad.join(", ") })
    }
}

/// The join tuple of a row, or None when a field is null, missing or not comparable.
fn tuple_of(obj: &Map<String, Value>, fields: &[String]) -> Option<Vec<NormKey>> {
    fields
        .iter()
        .map(|f| obj.get(f).map(norm_value).filter(|k| !matches!(k.first(), Some(&TAG_NULL) | Some(&TAG_OTHER))))
        .collect()
}

/// Hands `each` the source rows (as stored JSON) whose first join field is one of `firsts`;
/// `each` may stop the reading with an error.
fn fetch_source(
    txn: &ReadTransaction,
    spec: &TableSpec,
    field: &str,
    firsts: &HashSet<NormKey>,
    raw_firsts: &HashSet<String>,
    mut each: impl FnMut(&[u8]) -> StoreResult<()>,
) -> StoreResult<()> {
    let name = rows_name(&spec.name);
    let rows_t = txn.open_table(RowsDef::new(&name))?;
    let unpacker = Unpacker::open(txn, &spec.name)?;
    if field == spec.key {
        for id in index::row_ids_of_keys(txn, &spec.name, raw_firsts.iter().map(String::as_str))? {
            if let Some(g) = rows_t.get(id)? {
                each(&unpacker.unpack(g.value())?)?;
            }
        }
    } else if spec.is_indexed(field) {
        let mut norms: Vec<NormKey> = firsts.iter().cloned().collect();
        norms.sort();
        for id in index::lookup_norm(txn, &spec.name, field, &norms)? {
            if let Some(g) = rows_t.get(id)? {
                each(&unpacker.unpack(g.value())?)?;
            }
        }
    } else {
        for entry in rows_t.iter()? {
            let (_, v) = entry?;
            let bytes = unpacker.unpack(v.value())?;
            let mut raw = [None];
            extract(&bytes, &[field], &mut raw)?;
            if raw[0].is_some_and(|r| firsts.contains(&norm_raw(r))) {
                each(&bytes)?;
            }
        }
    }
    Ok(())
}

fn parse_row(text: &[u8]) -> StoreResult<Map<String, Value>> {
    serde_json::from_slice(text).map_err(|e| StoreError::Corrupt(format!("stored row: {e}")))
}

/// [`tuple_of`] read from a stored row without parsing it.
fn tuple_of_raw(row: &[u8], fields: &[String]) -> StoreResult<Option<Vec<NormKey>>> {
    let names: Vec<&str> = fields.iter().map(String::as_str).collect();
    let mut out = vec![None; names.len()];
    extract(row, &names, &mut out)?;
    Ok(out
        .into_iter()
        .map(|r| r.map(norm_raw).filter(|k| !matches!(k.first(), Some(&TAG_NULL) | Some(&TAG_OTHER))))
        .collect())
}

/// The first join field's value as text (for key lookups), read from a stored row.
fn first_text_raw(row: &[u8], field: &str) -> StoreResult<Option<String>> {
    let mut out = [None];
    extract(row, &[field], &mut out)?;
    Ok(out[0].and_then(|r| match serde_json::from_str::<Value>(r.get()) {
        Ok(v) => raw_text_of(&v),
        Err(_) => None,
    }))
}

/// Counts each join's matches per base row from the stored rows, parsing none of them, and
/// refuses a join past the limits before anything is built: a careless join on a flag of a
/// wide table would otherwise hold a thousand parsed rows (tens of MB) before it is refused.
fn check_sizes(
    txn: &ReadTransaction,
    registry: &Registry,
    base_rows: &[&[u8]],
    joins: &[JoinSpec],
    mut bytes: usize,
) -> StoreResult<()> {
    let mut rows = base_rows.len();
    for j in joins.iter().filter(|j| !j.join_on.is_empty()) {
        let source = registry.get(&j.source).ok_or_else(|| StoreError::UnknownTable(j.source.clone()))?;
        let mut wanted: HashMap<Vec<NormKey>, usize> = HashMap::new();
        let mut raw_firsts = HashSet::new();
        for row in base_rows {
            if let Some(t) = tuple_of_raw(row, &j.join_on_self)? {
                if let Some(text) = first_text_raw(row, &j.join_on_self[0])? {
                    raw_firsts.insert(text);
                }
                *wanted.entry(t).or_default() += 1;
            }
        }
        let firsts: HashSet<NormKey> = wanted.keys().map(|t| t[0].clone()).collect();
        if firsts.is_empty() {
            continue;
        }
        let mut matched: HashMap<Vec<NormKey>, usize> = HashMap::new();
        fetch_source(txn, source, &j.join_on[0], &firsts, &raw_firsts, |row| {
            let Some(t) = tuple_of_raw(row, &j.join_on)? else { return Ok(()) };
            let Some(base_count) = wanted.get(&t) else { return Ok(()) };
            let n = matched.entry(t).or_default();
            *n += 1;
            // Every base row with this tuple carries the match.
            bytes += (row.len() + 1) * base_count;
            AnswerSize::early(*n, bytes)
        })?;
        rows += wanted.iter().map(|(t, base_count)| matched.get(t).copied().unwrap_or(0) * base_count).sum::<usize>();
        if rows > JOIN_MAX_ROWS {
            return Err(too_large());
        }
    }
    Ok(())
}

/// The source rows that match one join tuple, and their size as JSON.
#[derive(Default)]
struct Matches {
    rows: Vec<Map<String, Value>>,
    bytes: usize,
}

/// The rows and bytes a join answer will hold, refused past the limits before it is built.
struct AnswerSize {
    rows: usize,
    bytes: usize,
}

fn too_many_matches() -> StoreError {
    StoreError::JoinTooLarge(format!(
        "The join matches too many rows: at most {JOIN_MAX_MATCHES_PER_ROW} per row; narrow it with a filter"
    ))
}

fn too_large() -> StoreError {
    StoreError::JoinTooLarge(format!(
        "The join answer is too large: at most {JOIN_MAX_ROWS} rows and {} MB; narrow it with a filter or a smaller limit",
        JOIN_MAX_BYTES / 1024 / 1024
    ))
}

impl AnswerSize {
    /// While reading a source: `matches` rows for one tuple so far, `bytes` in the answer at least.
    fn early(matches: usize, bytes: usize) -> StoreResult<()> {
        if matches > JOIN_MAX_MATCHES_PER_ROW {
            return Err(too_many_matches());
        }
        if bytes > JOIN_MAX_BYTES {
            return Err(too_large());
        }
        Ok(())
    }

    /// Adds one base row's matches (only the first when flattened).
    fn add(&mut self, matches: &Matches, flatten: bool) -> StoreResult<()> {
        if !flatten && matches.rows.len() > JOIN_MAX_MATCHES_PER_ROW {
            return Err(too_many_matches());
        }
        let (rows, bytes) = if flatten {
            (0, matches.bytes.div_ceil(matches.rows.len().max(1)) * 2)
        } else {
            (matches.rows.len(), matches.bytes)
        };
        self.rows += rows;
        self.bytes += bytes;
        if self.rows > JOIN_MAX_ROWS || self.bytes > JOIN_MAX_BYTES {
            return Err(too_large());
        }
        Ok(())
    }
}

fn raw_text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

pub(crate) fn run(
    txn: &ReadTransaction,
    registry: &Registry,
    spec: &TableSpec,
    q: &Query,
    joins: &[JoinSpec],
    flatten: bool,
) -> StoreResult<Vec<u8>> {
    for j in joins {
        if j.join_on.len() != j.join_on_self.len() {
            return Err(StoreError::JoinLengthMismatch);
        }
        let source = registry.get(&j.source).ok_or_else(|| StoreError::UnknownTable(j.source.clone()))?;
        unknown(source, &j.join_on)?;
        unknown(spec, &j.join_on_self)?;
    }
    plan::validate(spec, q)?;
    // The base rows are read whole: join fields may lie outside the caller's selection.
    let base_query = Query { select: None, ..q.clone() };
    let page = plan::run(txn, spec, &base_query)?;
    if !flatten {
        let raw: Vec<&[u8]> = page.rows().collect();
        check_sizes(txn, registry, &raw, joins, raw.iter().map(|r| r.len()).sum())?;
    }
    let mut rows: Vec<Map<String, Value>> = page.rows().map(parse_row).collect::<StoreResult<_>>()?;
    let mut attached: Vec<Map<String, Value>> = vec![Map::new(); rows.len()];
    // What the answer will hold, counted before anything is copied into it.
    let mut answer = AnswerSize { rows: rows.len(), bytes: page.rows().map(<[u8]>::len).sum() };

    for j in joins {
        let source = registry.get(&j.source).ok_or_else(|| StoreError::UnknownTable(j.source.clone()))?;
        let tuples: Vec<Option<Vec<NormKey>>> =
            rows.iter().map(|r| if j.join_on.is_empty() { None } else { tuple_of(r, &j.join_on_self) }).collect();
        let firsts: HashSet<NormKey> = tuples.iter().flatten().map(|t| t[0].clone()).collect();
        let raw_firsts: HashSet<String> = rows
            .iter()
            .zip(&tuples)
            .filter(|(_, t)| t.is_some())
            .filter_map(|(r, _)| j.join_on_self.first().and_then(|f| r.get(f)).and_then(raw_text_of))
            .collect();
        let mut by_tuple: HashMap<Vec<NormKey>, Matches> = HashMap::new();
        if !firsts.is_empty() {
            // Stops reading as soon as one base row's matches, or all matches together, are
            // past the limits: a join on a flag must not first read the whole table.
            let wanted: HashSet<&Vec<NormKey>> = tuples.iter().flatten().collect();
            let mut fetched = 0usize;
            fetch_source(txn, source, &j.join_on[0], &firsts, &raw_firsts, |row| {
                let Some(t) = tuple_of_raw(row, &j.join_on)? else { return Ok(()) };
                if !wanted.contains(&t) {
                    return Ok(());
                }
                let size = row.len();
                let entry = by_tuple.entry(t).or_default();
                entry.bytes += size + 1;
                entry.rows.push(parse_row(row)?);
                fetched += size + 1;
                if !flatten {
                    AnswerSize::early(entry.rows.len(), answer.bytes + fetched)?;
                }
                Ok(())
            })?;
        }
        for t in tuples.iter().flatten() {
            if let Some(m) = by_tuple.get(t) {
                answer.add(m, flatten)?;
            }
        }
        for (i, t) in tuples.iter().enumerate() {
            let matches = t.as_ref().and_then(|t| by_tuple.get(t)).map(|m| &m.rows);
            if flatten {
                if let Some(first) = matches.and_then(|m| m.first()) {
                    for (k, v) in first {
                        attached[i].insert(format!("{}.{k}", j.source), v.clone());
                    }
                }
            } else {
                let list = matches.map(|m| m.iter().cloned().map(Value::Object).collect()).unwrap_or_default();
                attached[i].insert(j.source.clone(), Value::Array(list));
            }
        }
    }

    let mut out: Vec<Value> = Vec::with_capacity(rows.len());
    for (row, extra) in rows.iter_mut().zip(attached) {
        let mut obj = match &q.select {
            Some(cols) => cols.iter().map(|c| (c.clone(), row.remove(c).unwrap_or(Value::Null))).collect(),
            None => std::mem::take(row),
        };
        obj.extend(extra);
        out.push(Value::Object(obj));
    }
    serde_json::to_vec(&out).map_err(|e| StoreError::Corrupt(e.to_string()))
}
