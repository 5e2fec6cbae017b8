//! Store behaviour end to end: writes, indexes, paging, joins, meta, rebuilds, isolation.

use super::*;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn specs() -> Vec<TableSpec> {
    vec![
        TableSpec::new(
            "items",
            "ID",
            &["Code", "ItemGroup", "Warehouse"],
            &[
                "ID",
                "Code",
                "Description",
                "ItemGroup",
                "ItemGroupCode",
                "Warehouse",
                "Stock",
                "IsSalesItem",
                "Timestamp",
            ],
        ),
        TableSpec::new(
            "itemWarehouses",
            "ID",
            &["Item", "Warehouse"],
            &["ID", "Item", "ItemCode", "Warehouse", "WarehouseCode", "DefaultStorageLocation", "Timestamp"],
        ),
        TableSpec::new(
            "storageLocationStockPositions",
            "ID",
            &["Item", "Warehouse", "StorageLocation"],
            &["ID", "Item", "Warehouse", "StorageLocation", "Stock", "Timestamp"],
        ),
        TableSpec::new(
            "shopOrders",
            "ID",
            &["Item", "Status", "PlannedDate", "Project"],
            &["ID", "ShopOrderNumber", "Item", "Status", "PlannedDate", "Project", "YourRef", "Timestamp"],
        ),
        TableSpec::new(DELETED_ENTRIES_TABLE, "ID", &["EntityType"], &[]),
    ]
}

fn guid(n: u32) -> String {
    format!("{n:08x}-0000-4000-8000-{n:012x}")
}

fn item(n: u32, group: u32, wh: u32) -> Value {
    json!({
        "__metadata": {"uri": format!("https://x/api/v1/1/logistics/Items(guid'{}')", guid(n)), "type": "Exact.Web.Api.Models.Item"},
        "ID": guid(n), "Code": format!("IT{n:05}"), "Description": format!("Item number {n}"),
        "ItemGroup": guid(1_000_000 + group), "Warehouse": guid(2_000_000 + wh), "Stock": n as f64 / 2.0,
        "IsSalesItem": n.is_multiple_of(2), "Timestamp": format!("{}", 1000 + n)
    })
}

fn open_temp() -> (tempfile::TempDir, Stores) {
    let dir = tempfile::tempdir().expect("tempdir");
    let stores = Stores::new(dir.path(), specs());
    (dir, stores)
}

fn ids(page: &Page) -> Vec<String> {
    page.to_values().expect("values").iter().map(|v| v["ID"].as_str().unwrap_or_default().to_string()).collect()
}

#[test]
fn upsert_drops_metadata_and_counts_rows() {
    let (_d, stores) = open_temp();
    let s = stores.get(7).expect("store");
    let out =
        s.apply_batch("items", (0..10).map(|n| item(n, n % 3, 0)).collect(), Some(1009), Commit::Fast).expect("batch");
    assert_eq!(out, UpsertOutcome { inserted: 10, updated: 0 });
    let out = s.apply_batch("items", vec![item(3, 9, 1)], Some(5), Commit::Durable).expect("update");
    assert_eq!(out, UpsertOutcome { inserted: 0, updated: 1 });
    assert_eq!(s.row_count("items").expect("count"), 10);
    assert_eq!(s.sync_timestamp("items").expect("ts"), Some(1009), "an older batch never lowers the timestamp");
    let row: Value = serde_json::from_slice(&s.get_row("items", &guid(3)).expect("get").expect("row")).expect("json");
    assert!(row.get("__metadata").is_none());
    assert_eq!(row["ItemGroup"], guid(1_000_009));
    assert_eq!(ids(&s.query_str("items", &format!("ItemGroup=eq.{}", guid(1_000_000))).expect("q")).len(), 3);
    assert_eq!(ids(&s.query_str("items", &format!("ItemGroup=eq.{}", guid(1_000_009))).expect("q")), [guid(3)]);
}

#[test]
fn a_failing_batch_commits_neither_rows_nor_timestamp() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    s.apply_batch("items", vec![item(1, 0, 0)], Some(10), Commit::Durable).expect("first");
    let bad = vec![item(2, 0, 0), json!({"Code": "no key"}), item(3, 0, 0)];
    let err = s.apply_batch("items", bad, Some(99), Commit::Durable).expect_err("missing key");
    assert!(matches!(err, StoreError::MissingKey { .. }), "{err}");
    assert_eq!(s.sync_timestamp("items").expect("ts"), Some(10));
    assert_eq!(s.row_count("items").expect("count"), 1);
    assert!(s.get_row("items", &guid(2)).expect("get").is_none());
    assert!(
        matches!(s.apply_batch("nope", vec![], None, Commit::Fast), Err(StoreError::UnknownTable(t)) if t == "nope")
    );
}

#[test]
fn fast_commits_are_visible_and_survive_a_flush_and_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let stores = Stores::new(dir.path(), specs());
        let s = stores.get(3).expect("store");
        for b in 0..5u32 {
            let rows = (b * 100..b * 100 + 100).map(|n| item(n, 0, 0)).collect();
            s.apply_batch("items", rows, Some(i64::from(b)), Commit::Fast).expect("batch");
        }
        assert_eq!(s.row_count("items").expect("count"), 500);
        s.flush().expect("flush");
    }
    let stores = Stores::new(dir.path(), specs());
    let s = stores.get(3).expect("reopen");
    assert_eq!(s.row_count("items").expect("count"), 500);
    assert_eq!(s.sync_timestamp("items").expect("ts"), Some(4));
}

/// A store of `specs` for division 5 with an item, an item warehouse, settings and cache stamps.
fn filled(dir: &std::path::Path, specs: Vec<TableSpec>) -> OrgDetails {
    let details = OrgDetails {
        uuid: "u-5".into(),
        division: 5,
        name: "Acme".into(),
        preferences: json!({"weekends_disabled": true}),
    };
    let s = Stores::new(dir, specs).get(5).expect("store");
    s.apply_batch("items", vec![item(1, 0, 0)], Some(3), Commit::Durable).expect("batch");
    let warehouse = json!({"ID": guid(7), "Item": guid(1), "Warehouse": guid(2_000_000), "Timestamp": "9"});
    s.apply_batch("itemWarehouses", vec![warehouse], Some(9), Commit::Durable).expect("batch");
    s.set_org_details(&details).expect("details");
    s.set_user_preferences("ann", &json!({"endpoints": ["items"]})).expect("prefs");
    s.kv_put("user_permissions", b"[1]").expect("kv");
    s.kv_put(&format!("{}items", meta::KV_CACHE_PREFIX), b"123").expect("kv");
    s.kv_put(&format!("{}sync_expand/items", meta::KV_CACHE_PREFIX), b"x").expect("kv");
    s.kv_put(&format!("{}sync_expand/itemWarehouses", meta::KV_CACHE_PREFIX), b"y").expect("kv");
    s.set_last_sync("2026-01-01T00:00:00").expect("last sync");
    details
}

#[test]
fn the_same_layout_keeps_everything() {
    let dir = tempfile::tempdir().expect("tempdir");
    filled(dir.path(), specs());
    let s = Stores::new(dir.path(), specs()).get(5).expect("same schema");
    assert_eq!(s.row_count("items").expect("count"), 1);
    assert_eq!(s.sync_timestamp("items").expect("ts"), Some(3));
}

#[test]
fn a_changed_table_starts_empty_and_the_others_are_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let details = filled(dir.path(), specs());
    let mut changed = specs();
    changed[0].indexed.push("Description".into());
    let s = Stores::new(dir.path(), changed).get(5).expect("migrated");
    // the changed table: empty, read whole by the next sync, its new index in use
    assert_eq!(s.row_count("items").expect("count"), 0);
    assert_eq!(s.sync_timestamp("items").expect("ts"), None, "the next sync of the table is a full one");
    assert_eq!(s.kv_get(&format!("{}items", meta::KV_CACHE_PREFIX)).expect("kv"), None);
    assert_eq!(s.kv_get(&format!("{}sync_expand/items", meta::KV_CACHE_PREFIX)).expect("kv"), None);
    s.apply_batch("items", vec![item(1, 0, 0)], Some(4), Commit::Durable).expect("refill");
    assert_eq!(s.query_str("items", "Description=eq.Item number 1").expect("q").len(), 1);
    // the others: kept with their timestamps and stamps, as the last sync and what users set
    assert_eq!(s.row_count("itemWarehouses").expect("count"), 1);
    assert_eq!(s.sync_timestamp("itemWarehouses").expect("ts"), Some(9));
    assert_eq!(s.query_str("itemWarehouses", &format!("Item=eq.{}", guid(1))).expect("q").len(), 1);
    assert_eq!(
        s.kv_get(&format!("{}sync_expand/itemWarehouses", meta::KV_CACHE_PREFIX)).expect("kv").as_deref(),
        Some(&b"y"[..])
    );
    assert_eq!(s.sync_state().expect("state").last_sync.as_deref(), Some("2026-01-01T00:00:00"));
    assert_eq!(s.org_details().expect("details"), Some(details));
    assert_eq!(s.user_preferences("ann").expect("prefs"), Some(json!({"endpoints": ["items"]})));
    assert_eq!(s.kv_get("user_permissions").expect("kv").as_deref(), Some(&b"[1]"[..]));
    drop(s);
    let again = Stores::new(dir.path(), {
        let mut c = specs();
        c[0].indexed.push("Description".into());
        c
    })
    .get(5)
    .expect("reopened");
    assert_eq!(again.row_count("items").expect("count"), 1, "migrated once: the new layout is the file's now");
}

#[test]
fn a_table_new_to_the_layout_leaves_the_copy_as_it_was() {
    let dir = tempfile::tempdir().expect("tempdir");
    let without: Vec<TableSpec> = specs().into_iter().filter(|t| t.name != "shopOrders").collect();
    filled(dir.path(), without);
    let s = Stores::new(dir.path(), specs()).get(5).expect("migrated");
    assert_eq!(s.row_count("items").expect("count"), 1);
    assert_eq!(s.sync_timestamp("items").expect("ts"), Some(3));
    assert_eq!(s.row_count("shopOrders").expect("count"), 0);
    assert_eq!(s.sync_timestamp("shopOrders").expect("ts"), None);
    assert_eq!(s.query_str("shopOrders", "Status=eq.10").expect("the new table answers").len(), 0);
    assert_eq!(s.sync_state().expect("state").last_sync.as_deref(), Some("2026-01-01T00:00:00"));
}

#[test]
fn a_table_gone_from_the_layout_leaves_no_rows_count_or_timestamp_behind() {
    let dir = tempfile::tempdir().expect("tempdir");
    filled(dir.path(), specs());
    let without: Vec<TableSpec> = specs().into_iter().filter(|t| t.name != "itemWarehouses").collect();
    let s = Stores::new(dir.path(), without.clone()).get(5).expect("migrated");
    assert_eq!(s.row_count("items").expect("count"), 1, "the others are kept");
    let state = s.sync_state().expect("state");
    assert!(!state.timestamps.contains_key("itemWarehouses"), "{:?}", state.timestamps);
    assert_eq!(state.timestamps.get("items"), Some(&3));
    assert_eq!(s.kv_get(&format!("{}sync_expand/itemWarehouses", meta::KV_CACHE_PREFIX)).expect("kv"), None);
    drop(s);
    // and should it come back, it starts empty
    let s = Stores::new(dir.path(), specs()).get(5).expect("back");
    assert_eq!(s.row_count("itemWarehouses").expect("count"), 0);
    assert_eq!(s.query_str("itemWarehouses", &format!("Item=eq.{}", guid(1))).expect("q").len(), 0);
}

#[test]
fn another_schema_version_rebuilds_the_file_empty_keeping_what_users_set() {
    let dir = tempfile::tempdir().expect("tempdir");
    let details = filled(dir.path(), specs());
    {
        let s = Stores::new(dir.path(), specs()).get(5).expect("store");
        let old = format!("v0;{}", Registry::new(specs()).fingerprint().split_once(';').expect("parts").1);
        s.write(Commit::Durable, |w| meta::put_raw(w.txn, meta::KEY_SCHEMA, old.as_bytes())).expect("old version");
    }
    let s = Stores::new(dir.path(), specs()).get(5).expect("rebuilt");
    assert_eq!(s.row_count("items").expect("count"), 0);
    assert_eq!(s.row_count("itemWarehouses").expect("count"), 0);
    assert_eq!(s.sync_timestamp("items").expect("ts"), None, "the next sync of every table is a full one");
    assert_eq!(s.sync_state().expect("state").last_sync, None);
    // What users set is theirs, not a copy of Exact's: it survives the rebuild; cache stamps do not.
    assert_eq!(s.org_details().expect("details"), Some(details));
    assert_eq!(s.user_preferences("ann").expect("prefs"), Some(json!({"endpoints": ["items"]})));
    assert_eq!(s.kv_get("user_permissions").expect("kv").as_deref(), Some(&b"[1]"[..]));
    assert_eq!(s.kv_get(&format!("{}items", meta::KV_CACHE_PREFIX)).expect("kv"), None);
}

#[test]
fn a_foreign_file_is_rebuilt() {
    let dir = tempfile::tempdir().expect("tempdir");
    let stores = Stores::new(dir.path(), specs());
    std::fs::write(stores.path_for(9), b"this is not a redb file at all, just bytes").expect("write");
    match stores.get(9) {
        Ok(s) => assert_eq!(s.row_count("items").expect("count"), 0),
        Err(e) => panic!("a foreign file must be rebuilt, got {e}"),
    }
}

#[test]
fn clear_table_resets_rows_indexes_and_timestamp() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    s.apply_batch("items", (0..20).map(|n| item(n, 0, 0)).collect(), Some(77), Commit::Durable).expect("batch");
    s.apply_batch("shopOrders", vec![json!({"ID": guid(1), "Status": 10})], Some(5), Commit::Durable).expect("so");
    s.clear_table("items").expect("clear");
    assert_eq!(s.row_count("items").expect("count"), 0);
    assert_eq!(s.sync_timestamp("items").expect("ts"), None);
    assert_eq!(s.query_str("items", &format!("ItemGroup=eq.{}", guid(1_000_000))).expect("q").len(), 0);
    assert_eq!(s.sync_timestamp("shopOrders").expect("ts"), Some(5), "other tables untouched");
    s.apply_batch("items", vec![item(1, 0, 0)], Some(1), Commit::Durable).expect("refill");
    assert_eq!(s.sync_timestamp("items").expect("ts"), Some(1));
}

#[test]
fn a_refilled_table_reads_back_with_its_new_dictionary() {
    // Rows are compressed against the table's first row; a cleared table starts a new one.
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    let row = |n: u32, text: &str| json!({"ID": guid(n), "Code": format!("C{n}"), "Description": text.repeat(20)});
    s.apply_batch("items", vec![row(1, "first shape "), row(2, "first shape ")], Some(1), Commit::Durable)
        .expect("batch");
    s.clear_table("items").expect("clear");
    let refill = vec![row(3, "another text entirely "), row(4, "and yet another ")];
    s.apply_batch("items", refill.clone(), Some(2), Commit::Durable).expect("refill");
    for (n, want) in [(3, &refill[0]), (4, &refill[1])] {
        let got = s.get_row("items", &guid(n)).expect("read").expect("row");
        assert_eq!(serde_json::from_slice::<Value>(&got).expect("json"), *want);
    }
    assert_eq!(s.query_str("items", "Code=eq.C4").expect("q").len(), 1);
}

#[test]
fn organizations_are_isolated_files() {
    let (_d, stores) = open_temp();
    let a = stores.get(100).expect("a");
    let b = stores.get(200).expect("b");
    a.apply_batch("items", vec![item(1, 0, 0)], Some(1), Commit::Durable).expect("a batch");
    assert_eq!(b.row_count("items").expect("count"), 0);
    assert!(b.query_str("items", "").expect("q").is_empty());
    assert!(Arc::ptr_eq(&a, &stores.get(100).expect("again")), "opened once and shared");
    assert_ne!(stores.path_for(100), stores.path_for(200));
    drop(a);
    assert!(stores.delete(100).expect("delete"));
    assert!(!stores.path_for(100).exists());
    assert_eq!(stores.get(100).expect("fresh").row_count("items").expect("count"), 0);
    assert_eq!(b.row_count("items").expect("count"), 0);
}

#[test]
fn paging_by_offset_returns_every_row_exactly_once() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    s.apply_batch("items", (0..2345).map(|n| item(n, n % 4, n % 3)).collect(), None, Commit::Fast).expect("batch");
    let group = format!("ItemGroup=eq.{}&", guid(1_000_001));
    let both = format!("ItemGroup=eq.{}&Warehouse=eq.{}&", guid(1_000_001), guid(2_000_002));
    for filter in
        ["", &group, &both, "Stock=gte.100&", "order=Stock.desc&", "or=(Stock.lt.10,Code.like.IT01*)&order=Code&"]
    {
        let mut seen = Vec::new();
        let mut offset = 0;
        loop {
            let page = s.query_str("items", &format!("{filter}offset={offset}")).expect("page");
            seen.extend(ids(&page));
            offset += page.len();
            if page.len() < 1000 {
                break;
            }
        }
        let all = s
            .query("items", &Query { limit: usize::MAX, ..Query::parse(filter.trim_end_matches('&')).expect("parse") });
        let expected = ids(&all.expect("all"));
        let mut sorted = seen.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), seen.len(), "no duplicates for '{filter}'");
        assert_eq!(seen, expected, "pages concatenate to the whole answer for '{filter}'");
        assert!(!seen.is_empty(), "{filter}");
    }
}

#[test]
fn all_rows_answers_every_match_past_a_page_in_one_pass() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    s.apply_batch("items", (0..2345).map(|n| item(n, n % 4, n % 3)).collect(), None, Commit::Fast).expect("batch");
    // an indexed equality with a residual condition, as the product's own reads ask
    let group = guid(1_000_001);
    let rows = s
        .all_rows("items", &[("ItemGroup", &format!("eq.{group}")), ("Stock", "gte.100"), ("select", "ID,Code")])
        .expect("all");
    let expected: Vec<String> = (0..2345u32).filter(|n| n % 4 == 1 && *n as f64 / 2.0 >= 100.0).map(guid).collect();
    assert!(expected.len() > 1000 / 4, "more than a quarter page: {}", expected.len());
    assert_eq!(rows.iter().map(|r| r["ID"].as_str().unwrap_or_default().to_string()).collect::<Vec<_>>(), expected);
    assert!(rows.iter().all(|r| r.get("Stock").is_none()), "the select holds");
    assert_eq!(s.all_rows("items", &[]).expect("every row").len(), 2345, "past the HTTP API's page of 1000");
}

#[test]
fn filters_select_order_and_errors() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    s.apply_batch("items", (0..50).map(|n| item(n, n % 5, n % 2)).collect(), None, Commit::Fast).expect("batch");
    let q = |qs: &str| s.query_str("items", qs);
    assert_eq!(ids(&q("Code=eq.IT00007").expect("eq")), [guid(7)]);
    assert_eq!(ids(&q(&format!("ID=eq.{}", guid(7).to_uppercase())).expect("key, any case")), [guid(7)]);
    assert_eq!(ids(&q(&format!("ID=in.({},{})&Stock=gt.3", guid(2), guid(9))).expect("key in")), [guid(9)]);
    assert!(q("ID=in.()").expect("empty in").is_empty());
    assert!(q("Code=in.()&Stock=gt.0").expect("empty in").is_empty());
    assert_eq!(q("Stock=gte.20&Stock=lt.21").expect("range").len(), 2);
    assert_eq!(q("Timestamp=gt.1040").expect("int64 strings").len(), 9);
    assert_eq!(q("IsSalesItem=is.true").expect("bool").len(), 25);
    assert_eq!(q("Description=ilike.*NUMBER 4*").expect("ilike").len(), 11);
    assert_eq!(ids(&q("order=Stock.desc&limit=2").expect("order")), [guid(49), guid(48)]);
    assert_eq!(ids(&q("order=Stock.desc&limit=2&offset=1").expect("order offset")), [guid(48), guid(47)]);
    let page = q("select=Code,Stock&Code=eq.IT00003").expect("select");
    assert_eq!(page.to_values().expect("values"), [json!({"Code": "IT00003", "Stock": 1.5})]);
    assert_eq!(String::from_utf8(page.into_json()).expect("utf8"), r#"[{"Code":"IT00003","Stock":1.5}]"#);
    let err = q("Foo=eq.1&order=Bar").expect_err("unknown");
    assert!(err.to_string().contains("'Foo'") && err.to_string().contains("'Bar'"), "{err}");
    assert!(matches!(s.query_str("nope", ""), Err(StoreError::UnknownTable(_))));
    assert!(matches!(q("Code=zz.1"), Err(StoreError::BadQuery(_))));
}

#[test]
fn order_places_nulls_as_asked() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    let rows = vec![
        json!({"ID": "a", "Status": 20}),
        json!({"ID": "b", "Status": null}),
        json!({"ID": "c", "Status": 10}),
        json!({"ID": "d"}),
    ];
    s.apply_batch("shopOrders", rows, None, Commit::Fast).expect("batch");
    let order = |o: &str| ids(&s.query_str("shopOrders", &format!("order={o}")).expect("q"));
    assert_eq!(order("Status"), ["c", "a", "b", "d"]);
    assert_eq!(order("Status.desc"), ["b", "d", "a", "c"]);
    assert_eq!(order("Status.asc.nullsfirst"), ["b", "d", "c", "a"]);
    assert_eq!(order("Status.desc.nullslast"), ["a", "c", "b", "d"]);
    assert_eq!(ids(&s.query_str("shopOrders", "Status=is.null").expect("q")), ["b", "d"]);
    assert_eq!(ids(&s.query_str("shopOrders", "Status=neq.10").expect("q")), ["a"]);
}

#[test]
fn dates_filter_through_the_index() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    let day = 86_400_000i64;
    let base = 1_793_491_200_000i64; // 2026-11-01
    let rows = (0..40)
        .map(|n: i64| json!({"ID": format!("so{n:02}"), "PlannedDate": format!("/Date({})/", base + (n - 20) * day), "Status": 10}))
        .collect();
    s.apply_batch("shopOrders", rows, None, Commit::Fast).expect("batch");
    assert_eq!(s.query_str("shopOrders", "PlannedDate=gte.2026-11-01").expect("q").len(), 20);
    assert_eq!(s.query_str("shopOrders", "PlannedDate=gt.2026-11-01").expect("q").len(), 19);
    assert_eq!(s.query_str("shopOrders", "PlannedDate=lt.2026-11-01").expect("q").len(), 20);
    assert_eq!(s.query_str("shopOrders", "PlannedDate=lte.2026-11-01T00:00:00").expect("q").len(), 21);
    assert_eq!(ids(&s.query_str("shopOrders", "PlannedDate=eq.2026-11-03").expect("q")), ["so22"]);
    assert_eq!(
        s.query_str("shopOrders", "PlannedDate=gte.2026-11-01&PlannedDate=lt.2026-11-08&Status=eq.10")
            .expect("q")
            .len(),
        7
    );
}

#[test]
fn deletes_by_key_and_by_entity_key() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    s.apply_batch("items", (0..5).map(|n| item(n, 0, 0)).collect(), None, Commit::Fast).expect("batch");
    assert_eq!(s.delete_keys("items", &[&guid(1), "missing"]).expect("delete"), 1);
    let upper = guid(2).to_uppercase();
    let n = s.write(Commit::Durable, |w| w.delete_by_entity_keys("items", &[&upper])).expect("entity delete");
    assert_eq!(n, 1);
    assert_eq!(s.row_count("items").expect("count"), 3);
    assert_eq!(s.query_str("items", &format!("ItemGroup=eq.{}", guid(1_000_000))).expect("q").len(), 3);
}

#[test]
fn joins_attach_or_flatten_matches() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    s.apply_batch("items", (0..3).map(|n| item(n, 0, 0)).collect(), None, Commit::Fast).expect("items");
    let iw = vec![
        json!({"ID": "iw1", "Item": guid(0).to_uppercase(), "Warehouse": "w1", "WarehouseCode": "1"}),
        json!({"ID": "iw2", "Item": guid(0), "Warehouse": "w2", "WarehouseCode": "2"}),
        json!({"ID": "iw3", "Item": guid(1), "Warehouse": "w1", "WarehouseCode": "1"}),
    ];
    s.apply_batch("itemWarehouses", iw, None, Commit::Fast).expect("iw");
    let joins =
        JoinSpec::parse_list(r#"[{"source":"itemWarehouses","joinOn":["Item"],"joinOnSelf":["ID"]}]"#).expect("joins");
    let q = Query::parse("order=Code&select=ID,Code").expect("q");
    let out: Value = serde_json::from_slice(&s.query_joins("items", &q, &joins, false).expect("join")).expect("json");
    assert_eq!(out[0]["itemWarehouses"].as_array().map(Vec::len), Some(2));
    assert_eq!(out[1]["itemWarehouses"][0]["ID"], "iw3");
    assert_eq!(out[2]["itemWarehouses"], json!([]));
    assert!(out[0].get("Description").is_none(), "select applies to the base row");

    // Joining by a non-indexed field, and back from itemWarehouses to items by key, flattened.
    let back = vec![JoinSpec { source: "items".into(), join_on: vec!["ID".into()], join_on_self: vec!["Item".into()] }];
    let (q, parsed, flatten) = joins::parse_joins_query(&format!(
        "Warehouse=eq.w1&flatten=true&joins={}",
        urlencoding::encode(&serde_json::to_string(&back).expect("ser"))
    ))
    .expect("parse joins query");
    assert!(flatten);
    let out: Value =
        serde_json::from_slice(&s.query_joins("itemWarehouses", &q, &parsed, true).expect("join")).expect("json");
    assert_eq!(out.as_array().map(Vec::len), Some(2));
    assert_eq!(out[0]["items.Code"], "IT00000");
    assert_eq!(out[1]["items.Code"], "IT00001");
    let by_code = vec![JoinSpec {
        source: "itemWarehouses".into(),
        join_on: vec!["WarehouseCode".into()],
        join_on_self: vec!["Code".into()],
    }];
    let out: Value =
        serde_json::from_slice(&s.query_joins("items", &Query::default(), &by_code, false).expect("scan join"))
            .expect("json");
    assert_eq!(out[0]["itemWarehouses"], json!([]));

    let bad = vec![JoinSpec {
        source: "itemWarehouses".into(),
        join_on: vec!["Item".into(), "Warehouse".into()],
        join_on_self: vec!["ID".into()],
    }];
    let err = s.query_joins("items", &Query::default(), &bad, false).expect_err("mismatch");
    assert!(matches!(err, StoreError::JoinLengthMismatch));
    assert_eq!(err.to_string(), "Join parameters lengths must match");
    let unknown = vec![JoinSpec { source: "nope".into(), join_on: vec![], join_on_self: vec![] }];
    assert!(matches!(s.query_joins("items", &Query::default(), &unknown, false), Err(StoreError::UnknownTable(_))));
    let empty_ids = Query::parse("ID=in.()").expect("q");
    assert_eq!(s.query_joins("items", &empty_ids, &joins, false).expect("empty"), b"[]");
}

#[test]
fn joins_stop_at_the_fan_out_and_size_limits() {
    use esm_base::limits::{JOIN_MAX_JOINS, JOIN_MAX_MATCHES_PER_ROW};
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    let on_flag = |flatten| {
        let self_join = vec![JoinSpec {
            source: "items".into(),
            join_on: vec!["IsSalesItem".into()],
            join_on_self: vec!["IsSalesItem".into()],
        }];
        move |s: &OrgStore, query: &str| s.query_joins("items", &Query::parse(query).expect("q"), &self_join, flatten)
    };
    // Half the items share each flag: 500 matches per row is within the fan-out, not the size.
    s.apply_batch("items", (0..1000).map(|n| item(n, 0, 0)).collect(), None, Commit::Fast).expect("items");
    let out: Value = serde_json::from_slice(&on_flag(false)(&s, "limit=10").expect("small join")).expect("json");
    assert_eq!(out[0]["items"].as_array().map(Vec::len), Some(500));
    let err = on_flag(false)(&s, "limit=1000").expect_err("too large");
    assert!(err.to_string().contains("The join answer is too large"), "{err}");
    assert!(matches!(err, StoreError::JoinTooLarge(_)), "a caller's error, answered 400: {err:?}");
    // Flattened, every row gets one match: no fan-out and a small answer.
    assert!(on_flag(true)(&s, "limit=1000").is_ok());
    // Past the fan-out: every base row would copy more than the limit.
    let more = (1000..1000 + 2 * JOIN_MAX_MATCHES_PER_ROW as u32).map(|n| item(n, 0, 0)).collect();
    s.apply_batch("items", more, None, Commit::Fast).expect("more items");
    let err = on_flag(false)(&s, "limit=1").expect_err("fan-out");
    assert!(err.to_string().contains(&format!("at most {JOIN_MAX_MATCHES_PER_ROW} per row")), "{err}");
    // Too many joins are refused while parsing.
    let many = vec![JoinSpec { source: "items".into(), join_on: vec![], join_on_self: vec![] }; JOIN_MAX_JOINS + 1];
    let qs = format!("joins={}", urlencoding::encode(&serde_json::to_string(&many).expect("ser")));
    assert!(joins::parse_joins_query(&qs).expect_err("too many").to_string().contains("joins per request"));
}

#[test]
fn kv_put_new_keeps_the_first_value_and_scan_reads_one_prefix() {
    let (_d, stores) = open_temp();
    let s = stores.get(42).expect("store");
    assert_eq!(s.kv_scan("timers/").expect("scan"), vec![]);
    assert_eq!(s.kv_put_new("timers/b", b"1").expect("put"), None);
    assert_eq!(s.kv_put_new("timers/b", b"2").expect("again"), Some(b"1".to_vec()));
    assert_eq!(s.kv_get("timers/b").expect("kv").as_deref(), Some(&b"1"[..]));
    s.kv_put("timers/a", b"0").expect("put");
    // neighbours on either side of the prefix stay out
    s.kv_put("timers", b"x").expect("put");
    s.kv_put("timerz/c", b"x").expect("put");
    s.kv_put("outbox/seq", b"x").expect("put");
    assert_eq!(
        s.kv_scan("timers/").expect("scan"),
        vec![("a".to_string(), b"0".to_vec()), ("b".to_string(), b"1".to_vec())]
    );
    assert!(stores.get(43).expect("other").kv_scan("timers/").expect("scan").is_empty());
}

#[test]
fn meta_round_trips() {
    let (_d, stores) = open_temp();
    let s = stores.get(42).expect("store");
    assert!(s.org_details().expect("org").is_none());
    let org = OrgDetails {
        uuid: "u-1".into(),
        division: 42,
        name: "Acme".into(),
        preferences: json!({"weekends_disabled": true}),
    };
    s.set_org_details(&org).expect("set org");
    assert_eq!(s.org_details().expect("org"), Some(org.clone()));
    assert!(org.weekends_disabled());
    s.set_user_preferences("anna", &json!({"sync_endpoints": ["items", "shopOrders"]})).expect("prefs");
    assert_eq!(s.user_preferences("anna").expect("prefs"), Some(json!({"sync_endpoints": ["items", "shopOrders"]})));
    assert_eq!(s.user_preferences("bob").expect("prefs"), None);
    s.kv_put("outbox/seq", b"17").expect("kv");
    assert_eq!(s.kv_get("outbox/seq").expect("kv"), Some(b"17".to_vec()));
    assert!(s.kv_delete("outbox/seq").expect("kv del"));
    assert_eq!(s.kv_get("outbox/seq").expect("kv"), None);
    s.apply_batch(DELETED_ENTRIES_TABLE, vec![json!({"ID": "d1", "EntityType": 9})], Some(55), Commit::Fast)
        .expect("del");
    s.apply_batch("items", vec![item(1, 0, 0)], Some(12), Commit::Fast).expect("items");
    s.set_last_sync("2026-11-21T19:00:00").expect("last sync");
    let state = s.sync_state().expect("state");
    assert_eq!(state.timestamps, BTreeMap::from([("items".to_string(), 12)]));
    assert_eq!(state.deleted_entries_sync_timestamp, Some(55));
    assert_eq!(state.last_sync.as_deref(), Some("2026-11-21T19:00:00"));
    assert_eq!(s.row_counts().expect("counts").iter().find(|(t, _)| t == "items").map(|(_, n)| *n), Some(1));
}

/// One random write against the store and the model.
#[derive(Debug, Clone)]
enum Step {
    Upsert(Vec<(u8, Option<u8>, u8)>),
    Delete(Vec<u8>),
    Clear,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => prop::collection::vec((0u8..24, prop::option::of(0u8..5), 0u8..4), 1..12).prop_map(Step::Upsert),
        2 => prop::collection::vec(0u8..24, 1..6).prop_map(Step::Delete),
        1 => Just(Step::Clear),
    ]
}

/// Values of mixed kinds so that normalisation is exercised: guids in both cases, numbers,
/// Int64-like strings, dates, plain strings and nulls.
fn value_of(v: Option<u8>, kind: u8) -> Value {
    match (v, kind) {
        (None, _) => Value::Null,
        (Some(v), 0) => json!(guid(u32::from(v))),
        (Some(v), 1) => json!(guid(u32::from(v)).to_uppercase()),
        (Some(v), 2) => json!(v),
        (Some(v), _) => json!(format!("/Date({})/", i64::from(v) * 86_400_000)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn index_lookups_always_equal_a_full_scan(steps in prop::collection::vec(step(), 1..14)) {
        let (_d, stores) = open_temp();
        let s = stores.get(1).expect("store");
        let mut model: BTreeMap<String, Value> = BTreeMap::new();
        for st in &steps {
            match st {
                Step::Upsert(rows) => {
                    let rows: Vec<Value> = rows
                        .iter()
                        .map(|(k, v, kind)| {
                            let mut row = json!({"ID": format!("k{k:02}"), "Item": value_of(*v, *kind), "Stock": v.map(|x| x % 3), "Warehouse": format!("w{}", (k + kind) % 3)});
                            if v == &Some(4) {
                                row.as_object_mut().expect("object").remove("Item");
                            }
                            row
                        })
                        .collect();
                    for r in &rows {
                        model.insert(r["ID"].as_str().unwrap_or_default().to_string(), r.clone());
                    }
                    s.apply_batch("storageLocationStockPositions", rows, None, Commit::Fast).expect("upsert");
                }
                Step::Delete(keys) => {
                    let keys: Vec<String> = keys.iter().map(|k| format!("k{k:02}")).collect();
                    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
                    let expected = keys.iter().collect::<std::collections::BTreeSet<_>>().iter().filter(|k| model.contains_key(k.as_str())).count();
                    prop_assert_eq!(s.delete_keys("storageLocationStockPositions", &refs).expect("delete"), expected);
                    keys.iter().for_each(|k| { model.remove(k); });
                }
                Step::Clear => {
                    s.clear_table("storageLocationStockPositions").expect("clear");
                    model.clear();
                }
            }
        }
        prop_assert_eq!(s.row_count("storageLocationStockPositions").expect("count"), model.len() as u64);
        // The index holds exactly one entry per row, with the row's current value.
        let txn = s.db.begin_read().expect("read");
        let mut entries = index::all_entries(&txn, "storageLocationStockPositions", "Item").expect("entries");
        entries.sort_by(|a, b| a.1.cmp(&b.1));
        let expected: Vec<(Vec<u8>, String)> = model
            .iter()
            .map(|(k, r)| (value::norm_value(r.get("Item").unwrap_or(&Value::Null)), k.clone()))
            .collect();
        prop_assert_eq!(entries, expected);
        // Every indexed lookup (eq, in, ranges) answers what a scan of the rows answers.
        let mut probes: Vec<String> = (0u8..5).flat_map(|v| (0u8..4).map(move |k| value_of(Some(v), k))).map(|v| match v {
            Value::String(s) => s,
            other => other.to_string(),
        }).collect();
        probes.push("1970-01-03".into());
        for p in &probes {
            for op in ["eq", "gt", "gte", "lt", "lte"] {
                let indexed = ids(&s.query_str("storageLocationStockPositions", &format!("Item={op}.{}", urlencoding::encode(p))).expect("indexed"));
                let scanned = ids(&s.query_str("storageLocationStockPositions", &format!("or=(Item.{op}.\"{p}\")")).expect("scan"));
                prop_assert_eq!(&indexed, &scanned, "Item={}.{}", op, p);
            }
        }
        for p in &probes {
            for w in 0..3 {
                let pair = format!("Item=eq.{}&Warehouse=eq.w{w}", urlencoding::encode(p));
                let merged = ids(&s.query_str("storageLocationStockPositions", &pair).expect("merge"));
                let scanned = ids(&s.query_str("storageLocationStockPositions", &format!("or=(Item.eq.\"{p}\")&or=(Warehouse.eq.w{w})")).expect("scan pair"));
                prop_assert_eq!(&merged, &scanned, "{}", pair);
                let paged = ids(&s.query_str("storageLocationStockPositions", &format!("{pair}&offset=1&limit=2")).expect("paged"));
                prop_assert_eq!(paged.as_slice(), &scanned[scanned.len().min(1)..scanned.len().min(3)]);
            }
        }
        let list = format!("Item=in.({},{})&Stock=eq.1", urlencoding::encode(&probes[0]), urlencoding::encode(&probes[9]));
        let indexed = ids(&s.query_str("storageLocationStockPositions", &list).expect("in"));
        let scanned = ids(&s.query_str("storageLocationStockPositions", &format!("or=(Item.in.(\"{}\",\"{}\"))&Stock=eq.1", probes[0], probes[9])).expect("scan in"));
        prop_assert_eq!(indexed, scanned);
    }
}

#[test]
fn index_ordered_walk_equals_sorting() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    // Status is indexed, YourRef holds the same values without an index.
    let rows: Vec<Value> = (0..300u32)
        .map(|n| {
            let v = match n % 7 {
                0 => Value::Null,
                1 => json!(format!("/Date({})/", n % 5)),
                2 => json!("x"),
                k => json!(k * (n % 3)),
            };
            let mut r =
                json!({"ID": format!("so{:03}", (n * 37) % 300), "Status": v.clone(), "YourRef": v, "Item": n % 4});
            if n % 11 == 0 {
                r.as_object_mut().expect("object").remove("Status");
                r.as_object_mut().expect("object").remove("YourRef");
            }
            r
        })
        .collect();
    s.apply_batch("shopOrders", rows, None, Commit::Fast).expect("batch");
    for dir in ["asc", "desc", "asc.nullsfirst", "desc.nullslast"] {
        for extra in ["", "&Item=neq.2", "&offset=45&limit=60", "&or=(Item.eq.1,Item.eq.3)&offset=10&limit=20"] {
            let walked = ids(&s.query_str("shopOrders", &format!("order=Status.{dir}{extra}")).expect("walk"));
            let sorted = ids(&s.query_str("shopOrders", &format!("order=YourRef.{dir}{extra}")).expect("sort"));
            assert_eq!(walked, sorted, "order {dir}{extra}");
            assert!(!walked.is_empty());
        }
    }
}

#[test]
fn readers_run_while_a_writer_commits() {
    let (_d, stores) = open_temp();
    let stores = Arc::new(stores);
    let s = stores.get(1).expect("store");
    std::thread::scope(|scope| {
        let writer = s.clone();
        scope.spawn(move || {
            for b in 0..20u32 {
                let rows = (b * 50..b * 50 + 50).map(|n| item(n, b % 2, 0)).collect();
                writer.apply_batch("items", rows, Some(i64::from(b)), Commit::Fast).expect("batch");
            }
            writer.flush().expect("flush");
        });
        for _ in 0..3 {
            let stores = stores.clone();
            scope.spawn(move || {
                let reader = stores.get(1).expect("shared store");
                let mut last = 0;
                for _ in 0..30 {
                    // Each page is one snapshot: batches appear whole, never half-written.
                    let n = reader.query_str("items", "select=ID&limit=1000").expect("query").len();
                    assert_eq!(n % 50, 0, "a batch is visible entirely or not at all");
                    assert!(n >= last, "commits never go backwards");
                    last = n;
                }
            });
        }
    });
    assert_eq!(s.row_count("items").expect("count"), 1000);
}

/// Items `ns` as the raw rows a sync page yields (no `__metadata`).
fn raw_items(ns: std::ops::Range<u32>) -> Vec<Vec<u8>> {
    ns.map(|n| {
        let mut v = item(n, n % 3, n % 2);
        v.as_object_mut().expect("object").remove("__metadata");
        serde_json::to_vec(&v).expect("json")
    })
    .collect()
}

fn load_with(s: &Arc<OrgStore>, table: &str, pace: Pace) -> BulkLoad {
    BulkLoad::start(s.clone(), table, pace).expect("bulk")
}

const SLOW: Pace = Pace {
    commit_rows: usize::MAX,
    commit_after: std::time::Duration::from_secs(3600),
    idle: std::time::Duration::from_secs(3600),
};

#[test]
fn a_bulk_load_stores_every_batch_with_its_timestamp_and_keeps_the_indexes() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    let mut load = s.bulk_load("items").expect("bulk");
    for b in 0..6u32 {
        load.push(raw_items(b * 500..b * 500 + 500), Some(i64::from(b))).expect("push");
    }
    // A row sent again (a newer version) is one row, not two.
    load.push(raw_items(10..11), Some(6)).expect("push");
    let done = load.finish(Some(99)).expect("finish");
    assert_eq!((done.inserted, done.updated), (3000, 1));
    assert_eq!(s.row_count("items").expect("count"), 3000);
    assert_eq!(s.sync_timestamp("items").expect("ts"), Some(99));
    let q = format!("ItemGroup=eq.{}&Warehouse=eq.{}&select=ID&limit=1000", guid(1_000_001), guid(2_000_000));
    assert_eq!(s.query_str("items", &q).expect("query").len(), 500, "n % 6 == 4");
    assert!(s.bulk_load("nope").is_err());
}

#[test]
fn a_dropped_bulk_load_loses_uncommitted_rows_only_together_with_their_timestamp() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    let mut load = load_with(&s, "items", Pace { commit_rows: 1000, ..SLOW });
    for b in 0..3u32 {
        load.push(raw_items(b * 500..b * 500 + 500), Some(i64::from(b) + 10)).expect("push");
    }
    // The loader commits the first 1000 rows once it has them; the last 500 stay open.
    let t0 = std::time::Instant::now();
    while s.row_count("items").expect("count") < 1000 {
        assert!(t0.elapsed().as_secs() < 30, "the first 1000 rows never committed");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    drop(load);
    assert_eq!(s.row_count("items").expect("count"), 1000, "uncommitted rows are gone");
    assert_eq!(s.sync_timestamp("items").expect("ts"), Some(11), "and so is their timestamp");
    assert!(s.get_row("items", &guid(1200)).expect("get").is_none());
}

#[test]
fn a_bulk_load_commits_when_batches_stop_coming_so_readers_and_writers_go_on() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    let idle = std::time::Duration::from_millis(50);
    let mut load = load_with(&s, "items", Pace { idle, ..SLOW });
    load.push(raw_items(0..500), Some(7)).expect("push");
    // Neither the row count nor the age is reached: only the quiet time commits the rows.
    let t0 = std::time::Instant::now();
    while s.row_count("items").expect("count") < 500 {
        assert!(t0.elapsed().as_secs() < 30, "the idle load never committed");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert_eq!(s.sync_timestamp("items").expect("ts"), Some(7), "with its timestamp");
    // No transaction is left open, so another writer goes ahead while the load goes on.
    s.kv_put("other", b"writer").expect("kv put");
    load.push(raw_items(500..600), Some(8)).expect("push");
    load.finish(None).expect("finish");
    assert_eq!(s.row_count("items").expect("count"), 600);
    assert_eq!(s.sync_timestamp("items").expect("ts"), Some(8));
    assert_eq!(s.kv_get("other").expect("kv").as_deref(), Some(&b"writer"[..]));
}

#[test]
fn a_failing_batch_ends_the_load_and_undoes_only_its_own_transaction() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    let mut load = load_with(&s, "items", Pace { commit_rows: 500, ..SLOW });
    load.push(raw_items(0..500), Some(1)).expect("push");
    load.push(vec![br#"{"Code":"no key"}"#.to_vec()], Some(2)).expect("queued");
    // The error comes back on a later push or at the latest from `finish`.
    let later = load.push(raw_items(500..510), Some(3));
    let err = match later {
        Err(e) => e,
        Ok(()) => load.finish(Some(4)).expect_err("the load failed"),
    };
    assert!(err.to_string().contains("no usable key"), "{err}");
    assert_eq!(s.row_count("items").expect("count"), 500);
    assert_eq!(s.sync_timestamp("items").expect("ts"), Some(1));
}

#[test]
fn cached_posting_lists_follow_every_write() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    s.apply_batch("items", (0..40).map(|n| item(n, n % 2, n % 4)).collect(), None, Commit::Fast).expect("rows");
    let pair = format!("ItemGroup=eq.{}&Warehouse=eq.{}", guid(1_000_000), guid(2_000_002));
    let expect = |want: Vec<u32>| want.into_iter().map(guid).collect::<Vec<_>>();
    // Twice: the second answer comes from the cached lists.
    for _ in 0..2 {
        assert_eq!(ids(&s.query_str("items", &pair).expect("q")), expect((0..40).filter(|n| n % 4 == 2).collect()));
    }
    s.apply_batch("items", vec![item(2, 1, 2), item(41, 0, 2)], None, Commit::Fast).expect("move");
    let mut want: Vec<u32> = (0..40).filter(|n| n % 4 == 2 && *n != 2).collect();
    want.push(41);
    assert_eq!(ids(&s.query_str("items", &pair).expect("q")), expect(want.clone()));
    s.delete_keys("items", &[guid(6).as_str()]).expect("delete");
    want.retain(|n| *n != 6);
    assert_eq!(ids(&s.query_str("items", &pair).expect("q")), expect(want));
    assert_eq!(ids(&s.query_str("items", &format!("{pair}&offset=2&limit=3")).expect("q")).len(), 3);
    s.clear_table("items").expect("clear");
    assert!(ids(&s.query_str("items", &pair).expect("q")).is_empty());
}

#[test]
fn raw_rows_are_stored_as_given_and_indexed_like_values() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    let text =
        r#"{"ID":"4792a639-3840-4d8a-b086-017acd738a52","Code":"A\"1","ItemGroup":"g1","Warehouse":null,"Stock":2}"#;
    let numeric = r#"{"ID":17,"Code":"B","ItemGroup":"g1"}"#;
    let out =
        s.apply_raw_batch("items", &[text.as_bytes(), numeric.as_bytes()], Some(5), Commit::Durable).expect("raw");
    assert_eq!(out, UpsertOutcome { inserted: 2, updated: 0 });
    assert_eq!(
        s.get_row("items", "4792a639-3840-4d8a-b086-017acd738a52").expect("get").as_deref(),
        Some(text.as_bytes())
    );
    assert!(s.get_row("items", "17").expect("get").is_some());
    assert_eq!(ids(&s.query_str("items", "Code=eq.A\"1").expect("q")), ["4792a639-3840-4d8a-b086-017acd738a52"]);
    assert_eq!(s.query_str("items", "ItemGroup=eq.g1").expect("q").len(), 2);
    assert_eq!(s.query_str("items", "Warehouse=is.null").expect("q").len(), 2);
    assert_eq!(s.sync_timestamp("items").expect("ts"), Some(5));
    let no_key = br#"{"Code":"C"}"#;
    assert!(matches!(
        s.apply_raw_batch("items", &[no_key.as_slice()], None, Commit::Fast),
        Err(StoreError::MissingKey { .. })
    ));
}

#[test]
fn large_batches_that_move_rows_keep_every_index_exact() {
    let (_d, stores) = open_temp();
    let s = stores.get(1).expect("store");
    // The second batch moves half of the rows to other groups and warehouses: their old entries
    // go and new ones come, in one sorted pass per index.
    s.apply_batch("items", (0..3000).map(|n| item(n, n % 7, n % 5)).collect(), None, Commit::Fast).expect("first");
    let moved = |n: u32| if n.is_multiple_of(2) { (n % 7 + 1, n % 5 + 2) } else { (n % 7, n % 5) };
    s.apply_batch("items", (0..3000).map(|n| item(n, moved(n).0, moved(n).1)).collect(), None, Commit::Fast)
        .expect("second");
    let txn = s.db.begin_read().expect("read");
    for (field, of) in [
        ("Code", Box::new(|n: u32| json!(format!("IT{n:05}"))) as Box<dyn Fn(u32) -> Value>),
        ("ItemGroup", Box::new(|n: u32| json!(guid(1_000_000 + moved(n).0)))),
        ("Warehouse", Box::new(|n: u32| json!(guid(2_000_000 + moved(n).1)))),
    ] {
        let mut entries = index::all_entries(&txn, "items", field).expect("entries");
        entries.sort_by(|a, b| a.1.cmp(&b.1));
        let mut expected: Vec<(Vec<u8>, String)> = (0..3000).map(|n| (value::norm_value(&of(n)), guid(n))).collect();
        expected.sort_by(|a, b| a.1.cmp(&b.1));
        assert_eq!(entries, expected, "{field}: one entry per row, with its current value");
    }
}

#[test]
fn a_tables_version_moves_with_its_committed_row_writes_only() {
    let (_d, stores) = open_temp();
    let s = stores.get(7).expect("store");
    let items = s.tables_version(&["items"]);
    let both = s.tables_version(&["items", "shopOrders"]);
    s.apply_batch("items", vec![item(1, 0, 0)], Some(1001), Commit::Fast).expect("batch");
    assert_ne!(s.tables_version(&["items"]), items, "an upsert moves it");
    assert_ne!(s.tables_version(&["items", "shopOrders"]), both);
    let items = s.tables_version(&["items"]);
    let orders = s.tables_version(&["shopOrders"]);

    // what is not rows of the table leaves it alone: another table, settings, a timestamp
    s.apply_batch(
        "itemWarehouses",
        vec![json!({"ID": guid(5), "Item": guid(1), "Timestamp": "1"})],
        None,
        Commit::Fast,
    )
    .expect("other table");
    s.kv_put("prefs", b"{}").expect("kv");
    s.write(Commit::Fast, |w| w.set_timestamp("items", 5000)).expect("timestamp");
    assert_eq!(s.tables_version(&["items"]), items);
    assert_eq!(s.tables_version(&["shopOrders"]), orders);

    // a write undone (an error inside the transaction) changes nothing
    let undone: StoreResult<()> = s.write(Commit::Fast, |w| {
        w.upsert("items", vec![item(2, 0, 0)])?;
        Err(StoreError::Corrupt("undo".into()))
    });
    assert!(undone.is_err());
    assert_eq!(s.tables_version(&["items"]), items, "nothing was committed");

    for change in
        [|s: &OrgStore| s.delete_keys("items", &[&guid(1)]).map(|_| ()), |s: &OrgStore| s.clear_table("items")]
    {
        let before = s.tables_version(&["items"]);
        change(&s).expect("write");
        assert_ne!(s.tables_version(&["items"]), before);
    }
}
