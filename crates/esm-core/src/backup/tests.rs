//! A data directory through backup (offline) and restore: every file back, checked, and the queues
//! made safe to resume.

use super::archive::{self, Kind};
use super::restore::restore;
use super::*;
use crate::outbox::store::{OutboxDb, RESTORED_ASK, RESTORED_CHECK, path_of as outbox_path};
use crate::outbox::{Entry, Method, Reconcile, State};
use crate::printing::store::{JobState, JobStore, PrintJob};
use crate::store::{Commit, Stores};
use serde_json::json;

fn entry(reconcile: Reconcile, method: Method, state: State) -> Entry {
    Entry {
        id: 0,
        uid: uuid::Uuid::new_v4().to_string(),
        action: "test".into(),
        method,
        path: "manufacturing/MaterialIssues".into(),
        body: Some(json!({"Quantity": 1})),
        reconcile,
        tables: vec![],
        user: "u1".into(),
        user_name: "Ann".into(),
        state,
        attempts: 0,
        error: None,
        // Recent: a refused entry older than 30 days would be pruned when the file opens.
        created_ms: crate::exact::oauth::now_ms(),
        sent_ms: None,
        done_ms: None,
        result_key: None,
        reserve: None,
    }
}

fn marker() -> Reconcile {
    Reconcile::Marker { path: "manufacturing/MaterialIssues".into(), field: "Note".into(), marker: "[ESM 1]".into() }
}

fn job(state: JobState) -> PrintJob {
    let now = chrono::Utc::now();
    PrintJob {
        id: 0,
        division: Some(7),
        printer: "desk".into(),
        label_type: crate::labels::LabelType::parse("receipts").expect("type"),
        title: "1 label".into(),
        records: vec![],
        state,
        message: None,
        attempts: 0,
        format: None,
        ipp_job_id: None,
        created: now,
        updated: now,
        next_attempt: now,
    }
}

/// A data directory as a server leaves it: a store with rows, an outbox with writes in every
/// state, a print queue, the server database, TLS files and things a backup must leave out.
fn populated(dir: &Path) {
    let stores = Stores::new(dir, crate::exact::catalogue::table_specs());
    let store = stores.get(7).expect("store");
    store
        .apply_batch(
            "items",
            vec![json!({"ID": "00000000-0000-4000-8000-000000000001", "Code": "A1", "Timestamp": "5"})],
            Some(5),
            Commit::Durable,
        )
        .expect("rows");
    let outbox = OutboxDb::open(&outbox_path(dir, 7)).expect("outbox");
    outbox
        .append(vec![
            entry(marker(), Method::Post, State::Delivered),
            entry(marker(), Method::Post, State::Pending),
            entry(marker(), Method::Post, State::Sending),
            entry(Reconcile::Idempotent, Method::Put, State::Pending),
            entry(Reconcile::Idempotent, Method::Delete, State::Pending),
            entry(Reconcile::Unknown, Method::Post, State::Sending),
            entry(marker(), Method::Post, State::Failed),
        ])
        .expect("append");
    let jobs = JobStore::open(dir).expect("jobs");
    for s in [JobState::Completed, JobState::Queued, JobState::WaitingForPrinter, JobState::Printing] {
        jobs.insert(job(s)).expect("job");
    }
    crate::serverdb::ServerDb::open(dir).expect("serverdb");
    std::fs::create_dir_all(dir.join("tls")).expect("tls");
    std::fs::write(dir.join("tls/cert.pem"), b"-----BEGIN CERTIFICATE-----").expect("cert");
    std::fs::write(dir.join("import-abc.ndjson"), b"{}").expect("upload");
    std::fs::write(dir.join(control::FILE_NAME), b"{}").expect("control");
}

#[test]
fn a_backup_restores_every_file_and_no_queued_work_goes_out_blind() {
    let dir = tempfile::tempdir().expect("dir");
    let data = dir.path().join("data");
    populated(&data);
    let file = dir.path().join("backup.tar");
    let manifest = archive::write(&data, &ClosedFiles, &file).expect("backup");
    let names: Vec<&str> = manifest.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        names,
        ["org-7.redb", "outbox-7.redb", "printing.redb", "server.redb", "tls/cert.pem"],
        "every database and file, and no upload, control file or staging area"
    );
    assert_eq!(manifest.store_schema, crate::store::SCHEMA_VERSION);
    assert!(std::fs::read_dir(&data).expect("ls").flatten().all(|e| !e.file_name().to_string_lossy().starts_with('.')));

    let restored_dir = dir.path().join("restored");
    let r = restore(&file, &restored_dir).expect("restore");
    assert_eq!(r.manifest, manifest);
    assert_eq!((r.writes_checked, r.writes_for_user, r.print_jobs_failed), (2, 2, 3));
    assert_eq!(std::fs::read(restored_dir.join("tls/cert.pem")).expect("cert"), b"-----BEGIN CERTIFICATE-----");

    let store = Stores::new(&restored_dir, crate::exact::catalogue::table_specs()).get(7).expect("store");
    assert_eq!(store.row_count("items").expect("count"), 1);
    assert_eq!(store.sync_timestamp("items").expect("ts"), Some(5));

    let entries = OutboxDb::open(&outbox_path(&restored_dir, 7)).expect("outbox").all().expect("all");
    let states: Vec<(State, Option<&str>)> = entries.iter().map(|e| (e.state, e.error.as_deref())).collect();
    assert_eq!(
        states,
        [
            (State::Delivered, None),
            (State::Sending, Some(RESTORED_CHECK)),
            (State::Sending, Some(RESTORED_CHECK)),
            (State::Failed, Some(RESTORED_ASK)),
            (State::Pending, None),
            (State::Failed, Some(RESTORED_ASK)),
            (State::Failed, None),
        ],
        "checked before sending, a DELETE as it was, the unknowable for the user"
    );
    let jobs = JobStore::open(&restored_dir).expect("jobs").list().expect("jobs");
    assert!(jobs.iter().all(|j| j.state.is_final()), "{jobs:?}");
    assert_eq!(jobs.iter().filter(|j| j.message.as_deref() == Some(crate::printing::store::RESTORED)).count(), 3);
}

#[test]
fn a_restore_refuses_a_directory_in_use_and_a_damaged_file_leaves_nothing() {
    let dir = tempfile::tempdir().expect("dir");
    let data = dir.path().join("data");
    populated(&data);
    let file = dir.path().join("backup.tar");
    archive::write(&data, &ClosedFiles, &file).expect("backup");

    let err = restore(&file, &data).expect_err("not empty");
    assert!(err.to_string().contains("is not empty"), "{err}");
    assert!(data.join("org-7.redb").exists(), "the directory in use is untouched");

    // One byte changed inside a database: found by its checksum, and nothing stays behind.
    let mut bytes = std::fs::read(&file).expect("read");
    let header = bytes.windows(16).position(|w| w == b"data/org-7.redb\0").expect("the store's entry");
    // Inside the file's contents, which start after its 512-byte header.
    bytes[header + 512 + 100] ^= 0xff;
    let damaged = dir.path().join("damaged.tar");
    std::fs::write(&damaged, &bytes).expect("write");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).expect("mkdir");
    let err = format!("{:#}", restore(&damaged, &empty).expect_err("damaged"));
    assert!(err.contains("'org-7.redb' in the backup is damaged"), "{err}");
    assert_eq!(std::fs::read_dir(&empty).expect("ls").count(), 0, "left empty for the next attempt");

    // Cut short: the manifest names a file that never came.
    let cut = dir.path().join("cut.tar");
    std::fs::write(&cut, &std::fs::read(&file).expect("read")[..4096]).expect("write");
    assert!(restore(&cut, &dir.path().join("new")).is_err());
    assert!(!dir.path().join("new").exists());

    // Not a backup at all.
    let other = dir.path().join("other.tar");
    std::fs::write(&other, b"hello").expect("write");
    assert!(restore(&other, &dir.path().join("new")).is_err());
}

#[test]
fn a_server_held_file_is_copied_through_its_owner_while_it_writes() {
    // The owner's handle copies under its own lock while another thread keeps committing.
    let dir = tempfile::tempdir().expect("dir");
    let path = outbox_path(dir.path(), 3);
    let outbox = std::sync::Arc::new(OutboxDb::open(&path).expect("outbox"));
    let writer = {
        let outbox = outbox.clone();
        std::thread::spawn(move || {
            for _ in 0..200 {
                outbox.append(vec![entry(marker(), Method::Post, State::Pending)]).expect("append");
            }
        })
    };
    let mut copies = Vec::new();
    for i in 0..5 {
        let dest = dir.path().join(format!("copy-{i}.redb"));
        snapshot::copy_open_db(outbox.database(), &path, &dest).expect("copy");
        copies.push(dest);
    }
    writer.join().expect("writer");
    let mut last = 0;
    for c in copies {
        let n = OutboxDb::open(&c).expect("copy opens").all().expect("entries").len();
        assert!(n >= last, "each copy a consistent state, in order");
        last = n;
    }
    assert_eq!(archive::classify("outbox-3.redb"), Kind::Database);
}
