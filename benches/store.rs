//! Store figures: bulk upsert rate, file size, and page latency for the data API's query.
//!
//! Prints `key: value` lines that scripts/bench.py reads. Rows: `ESM_BENCH_ROWS` (200000).
//! The item rows carry a `Warehouse` field so the screen's "warehouse + item group" page is
//! one table's query that a peer database can be given verbatim.

#![recursion_limit = "256"]

mod common;

use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Instant;
use stock_manager::store::{Commit, OrgStore, Query, Stores, TableSpec};

const WAREHOUSES: u32 = 10;
const GROUPS: u32 = 10;
const BATCH: usize = 500;

fn guid_of(n: u32) -> String {
    format!("{n:08x}-1111-4222-8333-{n:012x}")
}

fn item(n: u32) -> Value {
    let id = uuid::Uuid::new_v4().to_string();
    let group = n % GROUPS;
    let wh = (n / GROUPS) % WAREHOUSES;
    json!({
        "__metadata": {"uri": format!("https://start.exactonline.nl/api/v1/1234567/logistics/Items(guid'{id}')"), "type": "Exact.Web.Api.Models.Item"},
        "ID": id, "Code": format!("ITEM-{n:07}"), "Description": format!("Hexagon bolt M{} x {} zinc plated, box of 100", n % 30, n % 200),
        "Barcode": format!("87{n:011}"), "Class_01": "A", "Class_02": null, "Created": format!("/Date({})/", 1_600_000_000_000i64 + i64::from(n) * 1000),
        "Creator": guid_of(7), "CreatorFullName": "Anna de Vries", "Division": 1234567, "EndDate": null,
        "FreeBoolField_01": false, "FreeNumberField_01": 0.0, "FreeTextField_01": "Rack 12", "FreeTextField_02": null,
        "GLCosts": guid_of(8), "GLCostsCode": "7000", "GLCostsDescription": "Cost of goods sold",
        "GLRevenue": guid_of(9), "GLRevenueCode": "8000", "GLRevenueDescription": "Revenue",
        "IsBatchItem": 0, "IsMakeItem": n % 3 / 2, "IsPurchaseItem": true, "IsSalesItem": true, "IsSerialItem": false, "IsStockItem": true,
        "ItemGroup": guid_of(1_000 + group), "ItemGroupCode": format!("G{group:02}"), "ItemGroupDescription": format!("Item group {group}"),
        "Warehouse": guid_of(2_000 + wh),
        "Modified": format!("/Date({})/", 1_700_000_000_000i64 + i64::from(n) * 1000), "Modifier": guid_of(7), "ModifierFullName": "Anna de Vries",
        "NetWeight": 0.25, "Notes": "Standard fastener, keep dry.", "PictureUrl": format!("https://start.exactonline.nl/docs/SysImage.aspx?Table=Items&ID={id}"),
        "SalesVatCode": "2  ", "SearchCode": format!("BOLT{}", n % 97), "Stock": f64::from(n % 500), "Unit": "stuk    ", "UnitDescription": "Stuks",
        "Timestamp": format!("{}", 10_000_000 + u64::from(n))
    })
}

/// Rows generated up front (so generation is not timed) as the JSON text a sync page yields
/// (the provider's row without `__metadata`), 500 to a batch.
fn make_batches(ns: std::ops::Range<u32>) -> Vec<Vec<Vec<u8>>> {
    let ns: Vec<u32> = ns.collect();
    ns.chunks(BATCH)
        .map(|c| {
            c.iter()
                .map(|&n| {
                    let mut row = item(n);
                    row.as_object_mut().expect("object").remove("__metadata");
                    serde_json::to_vec(&row).expect("json")
                })
                .collect()
        })
        .collect()
}

/// Stores batches as the sync engine does: 500-row batches with their newest timestamp handed
/// to the store's bulk load, finished durably.
fn load(store: &Arc<OrgStore>, table: &str, batches: Vec<Vec<Vec<u8>>>) {
    let mut bulk = store.bulk_load(table).expect("bulk load");
    for (i, batch) in batches.into_iter().enumerate() {
        bulk.push(batch, Some(i as i64)).expect("batch");
    }
    bulk.finish(None).expect("finish");
}

/// One transaction per 500-row batch (every 4th fsynced), for comparison.
fn load_per_batch(store: &OrgStore, table: &str, batches: Vec<Vec<Vec<u8>>>) {
    let last = batches.len().saturating_sub(1);
    for (i, batch) in batches.into_iter().enumerate() {
        let rows: Vec<&[u8]> = batch.iter().map(Vec::as_slice).collect();
        let commit = if i == last { Commit::Durable } else { Commit::Fast };
        store.apply_raw_batch(table, &rows, Some(i as i64), commit).expect("batch");
    }
}

/// Writes the stored items as PostgreSQL COPY text (ID, Code, ItemGroup, Warehouse, row JSON),
/// so a peer database loads exactly these rows.
fn export_items(store: &OrgStore, path: &str) {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).expect("export file"));
    store
        .for_each_row("items", |key, bytes| {
            let v: Value = serde_json::from_slice(bytes).expect("stored row");
            let text = |f: &str| v[f].as_str().unwrap_or_default().to_string();
            let doc = std::str::from_utf8(bytes).expect("utf-8").replace('\\', "\\\\");
            writeln!(out, "{key}\t{}\t{}\t{}\t{doc}", text("Code"), text("ItemGroup"), text("Warehouse"))
                .expect("write");
            true
        })
        .expect("export");
    out.flush().expect("flush");
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let rows: u32 = std::env::var("ESM_BENCH_ROWS").ok().and_then(|v| v.parse().ok()).unwrap_or(200_000);
    let dir = tempfile::tempdir().expect("tempdir");
    let specs = vec![
        TableSpec::new("items", "ID", &["Code", "ItemGroup", "Warehouse"], &[]),
        TableSpec::new("itemsPerBatch", "ID", &["Code", "ItemGroup", "Warehouse"], &[]),
    ];
    let stores = Stores::new(dir.path(), specs);
    let store = stores.get(1).expect("open store");

    let sample = serde_json::to_vec(&item(1)).expect("json").len();
    let batches = make_batches(0..rows);
    let start = Instant::now();
    load(&store, "items", batches);
    let secs = start.elapsed().as_secs_f64();
    println!("rows: {rows}");
    println!("row_bytes: {sample}");
    println!("upsert_rows_per_s: {:.0}", f64::from(rows) / secs);
    let size = std::fs::metadata(stores.path_for(1)).expect("size").len();
    println!("file_mb: {:.1}", size as f64 / 1_048_576.0);

    if let Ok(path) = std::env::var("ESM_BENCH_EXPORT") {
        export_items(&store, &path);
    }

    // For comparison: one transaction per 500-row batch (every 4th fsynced), 20k rows.
    let small = make_batches(0..20_000);
    let start = Instant::now();
    load_per_batch(&store, "itemsPerBatch", small);
    println!("per_batch_rows_per_s: {:.0}", 20_000.0 / start.elapsed().as_secs_f64());

    let query_for = |i: u32| {
        format!(
            "Warehouse=eq.{}&ItemGroup=eq.{}",
            guid_of(2_000 + i % WAREHOUSES),
            guid_of(1_000 + (i / WAREHOUSES) % GROUPS)
        )
    };
    let run = |qs: &str| -> usize {
        let q = Query::parse(qs).expect("parse");
        let page = store.query("items", &q).expect("query");
        let n = page.len();
        std::hint::black_box(page.into_json());
        n
    };
    let expected = (rows / (WAREHOUSES * GROUPS)).min(1000) as usize;
    for i in 0..20 {
        assert_eq!(run(&query_for(i)), expected, "page size");
    }
    let mut times = Vec::new();
    for i in 0..500 {
        let qs = query_for(i);
        let t = Instant::now();
        run(&qs);
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!("page_rows: {expected}");
    println!("page_p50_ms: {:.2}", percentile(&times, 0.50));
    println!("page_p99_ms: {:.2}", percentile(&times, 0.99));

    let shared: Arc<_> = store.clone();
    let threads = 32;
    let per_thread = 40;
    let t = Instant::now();
    std::thread::scope(|s| {
        for th in 0..threads {
            let store = shared.clone();
            let query_for = &query_for;
            s.spawn(move || {
                for i in 0..per_thread {
                    let q = Query::parse(&query_for(th * per_thread + i)).expect("parse");
                    std::hint::black_box(store.query("items", &q).expect("query").into_json());
                }
            });
        }
    });
    println!("page_qps_32_threads: {:.0}", f64::from(threads * per_thread) / t.elapsed().as_secs_f64());

    let mut ordered = Vec::new();
    for i in 0..50 {
        let qs = format!("{}&order=Stock.desc,Code", query_for(i));
        let t = Instant::now();
        run(&qs);
        ordered.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    ordered.sort_by(f64::total_cmp);
    println!("ordered_page_p50_ms: {:.2}", percentile(&ordered, 0.50));
    let t = Instant::now();
    let found = run("Description=ilike.*m7 x 1*&limit=1000");
    println!("scan_ilike_ms: {:.1} ({found} rows)", t.elapsed().as_secs_f64() * 1000.0);
    // Peak resident memory of the whole run (Linux), generated rows included.
    let peak = common::peak_rss_mb();
    if peak.is_finite() {
        println!("peak_rss_mb: {peak:.0}");
    }
}
