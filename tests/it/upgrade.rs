//! Upgrades (issue 19): a data directory written by an earlier release opens in this one.
//!
//! `tests/fixtures/datadir-schema-N/` is a tiny data directory written by the release whose store
//! schema was N (`store::SCHEMA_VERSION`). Keep every one: when the schema changes, bump
//! `SCHEMA_VERSION`, then make the new one with
//! `cargo test --test it upgrade::make_fixture -- --ignored` (it writes the current version's
//! directory and refuses to overwrite one). Each is opened here with the current code: a store of
//! the current schema version keeps every table whose layout is unchanged (tables new to the
//! layout start empty); one of an older version is rebuilt empty for a full sync, while the outbox,
//! the print queue, the server database and the users' settings stay.

use redb::{ReadableDatabase, TableDefinition};
use serde_json::json;
use std::path::{Path, PathBuf};
use stock_manager::exact::catalogue;
use stock_manager::outbox::store::{OutboxDb, path_of as outbox_path};
use stock_manager::outbox::{Entry, Method, Reconcile, State};
use stock_manager::printing::store::{JobState, JobStore, PrintJob};
use stock_manager::serverdb::ServerDb;
use stock_manager::store::{Commit, OrgDetails, Registry, SCHEMA_VERSION, Stores};

const DIVISION: i64 = 1001;
const ITEMS: [(&str, &str); 3] = [
    ("00000000-0000-4000-8000-000000000001", "BOLT-M6"),
    ("00000000-0000-4000-8000-000000000002", "NUT-M6"),
    ("00000000-0000-4000-8000-000000000003", "WASHER-6"),
];
/// The store's own meta table and schema key, as every release so far wrote them.
const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("fixtures")
}

fn details() -> OrgDetails {
    OrgDetails {
        uuid: "fixture-org".into(),
        division: DIVISION,
        name: "Fixture Manufacturing".into(),
        preferences: json!({"weekends_disabled": true}),
    }
}

fn entry(state: State) -> Entry {
    Entry {
        id: 0,
        uid: format!("fixture-{state:?}"),
        action: "updateMaterialsIssues".into(),
        method: Method::Post,
        path: "manufacturing/MaterialIssues".into(),
        body: Some(json!({"Quantity": 1, "Note": "[ESM fixture]"})),
        reconcile: Reconcile::Marker {
            path: "manufacturing/MaterialIssues".into(),
            field: "Note".into(),
            marker: "[ESM fixture]".into(),
        },
        tables: vec!["shopOrderMaterialPlans".into()],
        user: "fixture-user".into(),
        user_name: "Fixture User".into(),
        state,
        attempts: 0,
        error: None,
        created_ms: 1_764_000_000_000,
        sent_ms: None,
        done_ms: None,
        result_key: None,
        reserve: None,
    }
}

/// Writes the fixture of the current schema into `dir` (the documented way to make one).
fn write_fixture(dir: &Path) {
    let stores = Stores::new(dir, catalogue::table_specs()).with_cache_bytes(1 << 20);
    let store = stores.get(DIVISION).unwrap();
    let rows = ITEMS
        .iter()
        .enumerate()
        .map(|(i, (id, code))| json!({"ID": id, "Code": code, "Timestamp": format!("{}", 10 + i)}));
    store.apply_batch("items", rows.collect(), Some(12), Commit::Durable).unwrap();
    store.set_org_details(&details()).unwrap();
    store.set_user_preferences("fixture-user", &json!({"endpoints": ["items"]})).unwrap();
    drop(store);
    drop(stores);
    let outbox = OutboxDb::open(&outbox_path(dir, DIVISION)).unwrap();
    outbox.append(vec![entry(State::Delivered), entry(State::Pending)]).unwrap();
    drop(outbox);
    let jobs = JobStore::open(dir).unwrap();
    let at = chrono::DateTime::parse_from_rfc3339("2026-11-25T10:00:00Z").unwrap().to_utc();
    jobs.insert(PrintJob {
        id: 0,
        division: Some(DIVISION),
        printer: "Receipts desk".into(),
        label_type: stock_manager::labels::LabelType::parse("receipts").unwrap(),
        title: "1 labels (receipts)".into(),
        records: vec![],
        state: JobState::Queued,
        message: None,
        attempts: 0,
        format: None,
        ipp_job_id: None,
        created: at,
        updated: at,
        next_attempt: at,
    })
    .unwrap();
    drop(jobs);
    let server = ServerDb::open(dir).unwrap();
    server.set_org_token_user(DIVISION, "fixture-user").unwrap();
    drop(server);
    // Compacted: the fixtures live in the repository.
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let mut db = redb::Database::open(entry.path()).unwrap();
        while db.compact().unwrap() {}
    }
}

/// Copies a fixture directory (opening writes to the files) into a temp dir.
fn copy_of(fixture: &Path) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(fixture).unwrap().flatten() {
        std::fs::copy(entry.path(), tmp.path().join(entry.file_name())).unwrap();
    }
    tmp
}

fn stored_schema(dir: &Path) -> String {
    let db = redb::Database::open(dir.join(format!("org-{DIVISION}.redb"))).unwrap();
    let txn = db.begin_read().unwrap();
    let meta = txn.open_table(META).unwrap();
    String::from_utf8(meta.get("schema").unwrap().unwrap().value().to_vec()).unwrap()
}

/// What survives every upgrade: the queues, the server database and the users' settings.
fn assert_kept(dir: &Path) {
    let store = Stores::new(dir, catalogue::table_specs()).get(DIVISION).unwrap();
    assert_eq!(store.org_details().unwrap(), Some(details()));
    assert_eq!(store.user_preferences("fixture-user").unwrap(), Some(json!({"endpoints": ["items"]})));
    let entries = OutboxDb::open(&outbox_path(dir, DIVISION)).unwrap().all().unwrap();
    let states: Vec<State> = entries.iter().map(|e| e.state).collect();
    assert_eq!(states, [State::Delivered, State::Pending], "the outbox is intact");
    assert_eq!(entries[1].uid, "fixture-Pending");
    let jobs = JobStore::open(dir).unwrap().list().unwrap();
    assert_eq!(
        jobs.iter().map(|j| (j.state, j.printer.as_str())).collect::<Vec<_>>(),
        [(JobState::Queued, "Receipts desk")]
    );
    assert_eq!(ServerDb::open(dir).unwrap().org_token_user(DIVISION).unwrap().as_deref(), Some("fixture-user"));
}

#[test]
fn every_released_data_dir_opens_with_the_current_code() {
    let current = Registry::new(catalogue::table_specs()).fingerprint();
    let mut seen = Vec::new();
    for fixture in std::fs::read_dir(fixtures()).unwrap().flatten() {
        let name = fixture.file_name().to_string_lossy().into_owned();
        let Some(version) = name.strip_prefix("datadir-schema-").and_then(|v| v.parse::<u32>().ok()) else { continue };
        seen.push(version);
        let tmp = copy_of(&fixture.path());
        // the same schema version keeps every table whose layout is unchanged (a release that
        // adds a table keeps the copy); another version is rebuilt
        let changed = Registry::new(catalogue::table_specs()).changed_since(&stored_schema(tmp.path()));
        let items_kept = changed.as_ref().is_some_and(|c| !c.changed.iter().any(|t| t == "items"));
        let store = Stores::new(tmp.path(), catalogue::table_specs()).get(DIVISION).unwrap();
        if items_kept {
            assert_eq!(store.row_count("items").unwrap(), 3, "{name}");
            let page = store.query_str("items", "Code=eq.NUT-M6&select=ID").unwrap();
            assert_eq!(page.len(), 1, "{name}: indexes answer");
            assert_eq!(store.sync_timestamp("items").unwrap(), Some(12), "{name}: the next sync goes on from here");
            for table in catalogue::table_specs().iter().map(|t| t.name.clone()) {
                let emptied = changed.as_ref().is_some_and(|c| c.changed.contains(&table));
                if emptied {
                    assert_eq!(store.row_count(&table).unwrap(), 0, "{name}: {table} changed, read whole next");
                }
                assert!(store.query_str(&table, "limit=1").is_ok(), "{name}: {table} answers");
            }
        } else {
            assert_eq!(store.row_count("items").unwrap(), 0, "{name}: an older layout is rebuilt");
            assert_eq!(store.sync_timestamp("items").unwrap(), None, "{name}: and synced in full");
        }
        drop(store);
        assert_eq!(stored_schema(tmp.path()), current, "{name}: the file is of the current layout now");
        assert_kept(tmp.path());
    }
    assert!(seen.contains(&SCHEMA_VERSION), "make the fixture of schema {SCHEMA_VERSION}: see this file's header");
}

#[test]
fn a_store_of_an_older_schema_is_rebuilt_and_the_queues_stay() {
    let fixture = fixtures().join(format!("datadir-schema-{SCHEMA_VERSION}"));
    let tmp = copy_of(&fixture);
    {
        // What the release before the current schema would have written.
        let db = redb::Database::open(tmp.path().join(format!("org-{DIVISION}.redb"))).unwrap();
        let txn = db.begin_write().unwrap();
        let old = format!("v{};items:ID:Code", SCHEMA_VERSION - 1);
        txn.open_table(META).unwrap().insert("schema", old.as_bytes()).unwrap();
        txn.commit().unwrap();
    }
    let store = Stores::new(tmp.path(), catalogue::table_specs()).get(DIVISION).unwrap();
    assert_eq!(store.row_count("items").unwrap(), 0, "the rows of the old layout are dropped");
    assert!(store.sync_state().unwrap().timestamps.is_empty(), "every table is synced in full next");
    drop(store);
    assert_eq!(stored_schema(tmp.path()), Registry::new(catalogue::table_specs()).fingerprint(), "rebuilt as current");
    assert_kept(tmp.path());
}

/// Writes `tests/fixtures/datadir-schema-{SCHEMA_VERSION}` (run once per new schema version).
#[test]
#[ignore = "writes a fixture into the repository; run by hand when the schema version changes"]
fn make_fixture() {
    let dir = fixtures().join(format!("datadir-schema-{SCHEMA_VERSION}"));
    assert!(!dir.exists(), "{} exists: fixtures of released versions are never rewritten", dir.display());
    std::fs::create_dir_all(&dir).unwrap();
    write_fixture(&dir);
}
