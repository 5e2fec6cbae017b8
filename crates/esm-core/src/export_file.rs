//! The file a local copy is exported to and imported from (ImportData, served by
//! `api::import_data`): NDJSON, a header line (format, version, division, sync timestamps, rows
//! per table), then one `{"table", "row"}` line per row, table by table. An import is checked
//! whole (division, tables, keys) before anything is written, and replaces the tables it holds,
//! taking over their sync timestamps so the next incremental sync continues from the export. A
//! table's timestamp is taken no further than the newest Timestamp among its rows in the file: the
//! provider has handed out no later one for them, and a larger number (an edited file) would make
//! the next sync skip the provider's newer rows for good.

use crate::error::{AppError, AppResult};
use crate::exact::catalogue;
use crate::store::{Commit, DELETED_ENTRIES_TABLE, OrgStore, StoreResult};
use serde::Serialize;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::sync::Arc;
use utoipa::ToSchema;

pub const FORMAT: &str = "stock-manager-export";
pub const VERSION: u64 = 1;
/// Row errors listed in an answer (the count covers all).
const MAX_LISTED_ERRORS: usize = 100;
const EXPORT_CHUNK: usize = 1000;
const IMPORT_BATCH: usize = 500;

/// The synced tables, in catalogue order (deleted entries last).
fn tables() -> Vec<&'static str> {
    catalogue::sync_endpoints().map(|e| e.table).collect()
}

/// The export's first line.
pub fn header(store: &OrgStore, division: i64) -> AppResult<Value> {
    let sync = store.sync_state()?;
    let mut timestamps: BTreeMap<String, i64> = sync.timestamps.clone();
    if let Some(ts) = sync.deleted_entries_sync_timestamp {
        timestamps.insert(DELETED_ENTRIES_TABLE.into(), ts);
    }
    let mut counts = Map::new();
    for t in tables() {
        counts.insert(t.into(), json!(store.row_count(t)?));
    }
    let name = store.org_details()?.map(|d| d.name).unwrap_or_default();
    Ok(json!({
        "format": FORMAT, "version": VERSION, "product_version": env!("CARGO_PKG_VERSION"),
        "division": division, "name": name,
        // with its offset, so the file's time reads right in any time zone
        "exported_at": chrono::Local::now().format("%Y-%m-%dT%H:%M:%S%:z").to_string(),
        "last_sync": sync.last_sync, "timestamps": timestamps, "tables": counts,
    }))
}

/// The rows after the header, a chunk of one table at a time.
pub struct ExportRows {
    store: Arc<OrgStore>,
    tables: Vec<&'static str>,
    table: usize,
    after: Option<String>,
}

impl ExportRows {
    pub fn new(store: Arc<OrgStore>) -> Self {
        ExportRows { store, tables: tables(), table: 0, after: None }
    }

    /// The next lines of the file, or none once every table is written.
    pub fn next_chunk(&mut self) -> StoreResult<Option<Vec<u8>>> {
        while self.table < self.tables.len() {
            let table = self.tables[self.table];
            let chunk = self.store.rows_after(table, self.after.as_deref(), EXPORT_CHUNK)?;
            if chunk.is_empty() {
                self.table += 1;
                self.after = None;
                continue;
            }
            let mut out = Vec::with_capacity(chunk.iter().map(|(_, v)| v.len() + 32).sum());
            for (_, row) in &chunk {
                out.extend_from_slice(format!("{{\"table\":\"{table}\",\"row\":").as_bytes());
                out.extend_from_slice(row);
                out.extend_from_slice(b"}\n");
            }
            self.after = chunk.last().map(|(k, _)| k.clone());
            return Ok(Some(out));
        }
        Ok(None)
    }
}

/// A line of the file that cannot be imported, and why.
#[derive(Serialize, ToSchema)]
#[schema(as = ImportRowError)]
pub struct RowError {
    #[schema(example = 1204)]
    pub line: u64,
    #[schema(example = "a shopOrders row without its key ID")]
    pub message: String,
}

/// What an import found in the file, and whether it was applied.
#[derive(Serialize, Default, ToSchema)]
#[schema(as = ImportReport)]
pub struct Report {
    pub dry_run: bool,
    pub applied: bool,
    /// The division the file was exported from.
    #[schema(example = 3_187_524)]
    #[schema(required = true)]
    pub division: Option<i64>,
    #[schema(example = "2026-11-21T17:05:12+01:00")]
    #[schema(required = true)]
    pub exported_at: Option<String>,
    /// Rows per table in the file.
    #[schema(example = json!({"items": 1840, "shopOrders": 312}))]
    pub tables: BTreeMap<String, u64>,
    /// All errors; `errors` lists the first 100.
    pub error_count: u64,
    pub errors: Vec<RowError>,
}

impl Report {
    fn error(&mut self, line: u64, message: impl Into<String>) {
        self.error_count += 1;
        if self.errors.len() < MAX_LISTED_ERRORS {
            self.errors.push(RowError { line, message: message.into() });
        }
    }
}

fn lines(path: &std::path::Path) -> AppResult<impl Iterator<Item = (u64, std::io::Result<String>)>> {
    let file = std::fs::File::open(path).map_err(AppError::internal)?;
    Ok((1u64..).zip(BufReader::new(file).lines()))
}

/// Reads the file once: header, then every row's table and key. Answers the timestamps to take
/// over, each bounded by its table's newest row (see the module's note).
pub fn check(path: &std::path::Path, division: i64) -> AppResult<(Report, BTreeMap<String, i64>)> {
    let mut report = Report::default();
    let mut timestamps = BTreeMap::new();
    let mut newest: BTreeMap<String, i64> = BTreeMap::new();
    let known = tables();
    for (n, line) in lines(path)? {
        let line = line.map_err(|_| AppError::bad_request(format!("line {n} is not text")))?;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = match serde_json::from_str(&line) {
            Ok(v) => v,
            Err(e) => {
                report.error(n, format!("not JSON: {e}"));
                continue;
            }
        };
        if n == 1 {
            if value["format"] != FORMAT || value["version"] != VERSION {
                report.error(1, "This is not a Stock Manager export (its first line must be the export header)");
                return Ok((report, timestamps));
            }
            report.division = value["division"].as_i64();
            report.exported_at = value["exported_at"].as_str().map(str::to_string);
            if report.division != Some(division) {
                report.error(
                    1,
                    format!(
                        "This export is of division {}, not of the organization you are signed in to ({division})",
                        value["division"]
                    ),
                );
                return Ok((report, timestamps));
            }
            if let Some(ts) = value["timestamps"].as_object() {
                for (t, v) in ts {
                    if let (true, Some(v)) = (known.contains(&t.as_str()), v.as_i64()) {
                        timestamps.insert(t.clone(), v);
                    }
                }
            }
            continue;
        }
        let Some(table) = value["table"].as_str() else {
            report.error(n, "a row line needs \"table\" and \"row\"");
            continue;
        };
        let Some(spec_key) = known.contains(&table).then(|| catalogue::by_table(table).map(|e| e.key)).flatten() else {
            report.error(n, format!("unknown table '{table}'"));
            continue;
        };
        match value["row"].as_object() {
            Some(row) if row.get(spec_key).and_then(Value::as_str).is_some_and(|k| !k.is_empty()) => {
                *report.tables.entry(table.to_string()).or_default() += 1;
                if let Some(stamp) = row.get("Timestamp").and_then(crate::exact::odata::as_i64) {
                    let n = newest.entry(table.to_string()).or_insert(stamp);
                    *n = (*n).max(stamp);
                }
            }
            Some(_) => report.error(n, format!("a {table} row without its key {spec_key}")),
            None => report.error(n, "\"row\" must be an object"),
        }
    }
    if report.division.is_none() && report.error_count == 0 {
        report.error(1, "The file is empty");
    }
    for (table, stamp) in &mut timestamps {
        let bound = newest.get(table).copied().unwrap_or(crate::sync::engine::INITIAL_TIMESTAMP);
        if *stamp > bound {
            tracing::warn!(
                table,
                from = *stamp,
                to = bound,
                "import: a timestamp past the file's newest row is lowered"
            );
            *stamp = bound;
        }
    }
    Ok((report, timestamps))
}

pub fn apply(
    store: &OrgStore,
    path: &std::path::Path,
    tables: &[String],
    timestamps: &BTreeMap<String, i64>,
) -> anyhow::Result<()> {
    for table in tables {
        store.clear_table(table)?;
    }
    let mut batches: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let file = std::fs::File::open(path)?;
    for line in BufReader::new(file).lines().skip(1) {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let mut value: Value = serde_json::from_str(&line)?;
        let table = value["table"].as_str().unwrap_or_default().to_string();
        let row = value["row"].take();
        let batch = batches.entry(table.clone()).or_default();
        batch.push(row);
        if batch.len() >= IMPORT_BATCH {
            let rows = std::mem::take(batch);
            store.apply_batch(&table, rows, None, Commit::Fast)?;
        }
    }
    for table in tables {
        let rows = batches.remove(table).unwrap_or_default();
        // The timestamp commits with the table's last rows, durably.
        store.apply_batch(table, rows, timestamps.get(table).copied(), Commit::Durable)?;
    }
    Ok(())
}
