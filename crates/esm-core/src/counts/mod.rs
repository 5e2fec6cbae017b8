//! Count sessions: a stock count of a storage location, a warehouse, an item group or a list of
//! items that several counters add lines to, that the office reviews against the local copy and
//! then sends to Exact Online as one StockCount (a draft, status 12, or processed, 21).
//!
//! A session lives in the organization's store (its `kv` space, kept by a rebuild of the local
//! copy and by backups), so counting goes on while Exact Online cannot be reached; only sending
//! waits, in the outbox. What was sent is followed through the outbox entries it queued.

mod expected;
mod model;

pub use expected::{ReviewFilter, ReviewPage, ReviewRow, review};
pub use model::{
    CountLine, CountLineBody, CountScope, CountSession, CountStart, CountStatus, CountSummary, CountedBatch, LastCount,
    ScopeKind, SendMode,
};

use crate::error::{AppError, AppResult, Code, Text};
use crate::exact::odata::is_guid;
use crate::outbox::numbers::{self, Numbers};
use crate::outbox::{Entry, State};
use crate::store::{OrgStore, StoreResult};
use crate::tracking::{TrackedBy, tracked_by_row};
use esm_base::texts::NumberKind;
use serde_json::{Map, Value, json};
use std::sync::Mutex;

/// The store's `kv` keys of count sessions: this prefix and the session's id.
const PREFIX: &str = "count_sessions/";
/// Sessions an organization keeps (open and sent): sent ones are the "last count" of the review,
/// and the oldest sent ones go first once there are more.
pub const MAX_SESSIONS: usize = 1000;
/// Sessions being counted at once in one organization.
pub const MAX_OPEN: usize = 200;
/// Lines one session may hold: a warehouse's count, and one body Exact Online takes.
pub const MAX_LINES: usize = 5000;
/// The longest description, in characters.
pub const MAX_DESCRIPTION: usize = 200;
/// Items a count of a list may name.
pub const MAX_ITEMS: usize = 1000;
/// The longest code or description kept beside an id, in characters.
const MAX_LABEL: usize = 120;

/// One change at a time to an organization's sessions: two counters adding lines to one session
/// at the same moment must both land. The work inside is a read and a write of one entry.
static WRITES: Mutex<()> = Mutex::new(());

fn key(id: &str) -> String {
    format!("{PREFIX}{id}")
}

pub(crate) fn guid(field: &str, value: &str) -> AppResult<String> {
    let v = value.trim().to_ascii_lowercase();
    if is_guid(&v) { Ok(v) } else { Err(AppError::bad_request(format!("'{field}' must be a GUID"))) }
}

/// A code or description as shown beside an id: trimmed and cut (it only names what the id says).
pub(crate) fn label(value: &str) -> String {
    value.trim().chars().take(MAX_LABEL).collect()
}

/// A session id is a GUID this server made; anything else names no session.
fn valid_id(id: &str) -> bool {
    is_guid(id)
}

pub fn get(store: &OrgStore, id: &str) -> AppResult<CountSession> {
    if !valid_id(id) {
        return Err(not_found());
    }
    let raw = store.kv_get(&key(id))?.ok_or_else(not_found)?;
    serde_json::from_slice(&raw).map_err(|e| AppError::internal(anyhow::anyhow!("a stored count session: {e}")))
}

fn put(store: &OrgStore, session: &CountSession) -> StoreResult<()> {
    let raw = serde_json::to_vec(session).expect("a count session serialises");
    store.kv_put(&key(&session.id), &raw)
}

fn not_found() -> AppError {
    AppError::said(Code::NotFound, Text::CountNotFound)
}

/// Every session of the organization, newest first.
pub fn all(store: &OrgStore) -> AppResult<Vec<CountSession>> {
    let mut out: Vec<CountSession> =
        store.kv_scan(PREFIX)?.into_iter().filter_map(|(_, raw)| serde_json::from_slice(&raw).ok()).collect();
    out.sort_by(|a: &CountSession, b| b.created_ms.cmp(&a.created_ms).then_with(|| b.id.cmp(&a.id)));
    Ok(out)
}

/// Starts a session; the oldest sent sessions make room past [`MAX_SESSIONS`].
pub fn start(store: &OrgStore, body: CountStart, by: &str, now_ms: i64) -> AppResult<CountSession> {
    let scope = body.scope()?;
    let session = CountSession {
        id: uuid::Uuid::new_v4().to_string(),
        description: body
            .description
            .as_deref()
            .map(str::trim)
            .unwrap_or_default()
            .chars()
            .take(MAX_DESCRIPTION)
            .collect(),
        scope,
        created_by: label(by),
        created_ms: now_ms,
        lines: Vec::new(),
        sent: None,
    };
    let _one = WRITES.lock().unwrap_or_else(|p| p.into_inner());
    let sessions = all(store)?;
    if sessions.iter().filter(|s| s.sent.is_none()).count() >= MAX_OPEN {
        return Err(AppError::said(Code::TooManyEntries, Text::CountsOpenAtMost { max: MAX_OPEN }));
    }
    let sent: Vec<&CountSession> = sessions.iter().filter(|s| s.sent.is_some()).collect();
    let over = sessions.len() + 1;
    if over > MAX_SESSIONS {
        for old in sent.iter().rev().take(over - MAX_SESSIONS) {
            store.kv_delete(&key(&old.id))?;
        }
    }
    put(store, &session)?;
    Ok(session)
}

/// What a line names about its item, from the local copy (`None` when the copy lacks it).
pub struct ItemFacts {
    pub code: String,
    pub description: String,
    pub group: Option<String>,
    pub tracked: TrackedBy,
}

pub fn item_facts(store: &OrgStore, item: &str) -> StoreResult<Option<ItemFacts>> {
    let found = store.query_str(
        "items",
        &format!("ID=eq.{item}&select=ID,Code,Description,ItemGroup,IsSerialItem,IsBatchItem&limit=1"),
    )?;
    let Some(Value::Object(row)) = found.to_values()?.into_iter().next() else { return Ok(None) };
    let text = |f: &str| row.get(f).and_then(Value::as_str).unwrap_or_default().to_string();
    let group = Some(text("ItemGroup").to_ascii_lowercase()).filter(|g| !g.is_empty());
    Ok(Some(ItemFacts { code: text("Code"), description: text("Description"), group, tracked: tracked_by_row(&row) }))
}

/// What adding a line did.
pub enum Added {
    New(CountLine),
    /// The same item and place counted the same again: nothing changed.
    Same(CountLine),
    /// Counted again with another quantity, and the new count stands.
    Replaced(CountLine),
}

/// Adds a counted line. An item counted twice at one place with another quantity is refused
/// with both quantities unless `replace` says the new one stands: the counter is asked.
pub fn add_line(store: &OrgStore, id: &str, body: CountLineBody, by: &str, now_ms: i64) -> AppResult<Added> {
    let item = guid("item", &body.item)?;
    let quantity = body.quantity;
    if !quantity.is_finite() || !(0.0..=1e12).contains(&quantity) {
        return Err(AppError::bad_request("'quantity' must be a number from 0"));
    }
    let facts = item_facts(store, &item)?.ok_or_else(|| AppError::said(Code::BadRequest, Text::CountItemNotInCopy))?;
    let _one = WRITES.lock().unwrap_or_else(|p| p.into_inner());
    let mut session = get(store, id)?;
    if session.sent.is_some() {
        return Err(AppError::new(Code::CountClosed));
    }
    let (location, location_code) = session.scope.place_of(&body, &facts)?;
    let (serials, batches) = counted_numbers(&body, &facts, quantity)?;
    if let Some(at) = session.lines.iter().position(|l| l.item == item && l.location == location) {
        let old = &session.lines[at];
        if old.same_count(quantity, &serials, &batches) {
            return Ok(Added::Same(old.clone()));
        }
        if !body.replace {
            return Err(AppError::said(
                Code::CountConflict,
                Text::CountConflict {
                    item: facts.code,
                    place: old.location_code.clone(),
                    quantity: old.quantity,
                    by: old.counted_by.clone(),
                },
            ));
        }
        let line = CountLine {
            quantity,
            counted_by: label(by),
            counted_ms: now_ms,
            serial_numbers: serials,
            batch_numbers: batches,
            ..old.clone()
        };
        session.lines[at] = line.clone();
        put(store, &session)?;
        return Ok(Added::Replaced(line));
    }
    if session.lines.len() >= MAX_LINES {
        return Err(AppError::said(Code::TooManyEntries, Text::CountLinesAtMost { max: MAX_LINES }));
    }
    let line = CountLine {
        expected_when_sent: None,
        id: uuid::Uuid::new_v4().to_string(),
        item,
        item_code: label(&facts.code),
        item_description: label(&facts.description),
        location,
        location_code,
        quantity,
        counted_by: label(by),
        counted_ms: now_ms,
        serial_numbers: serials,
        batch_numbers: batches,
    };
    session.lines.push(line.clone());
    put(store, &session)?;
    Ok(Added::New(line))
}

/// The numbers a line counted: none for an untracked item (and none may be given), one serial
/// per unit or batches adding up to the quantity for a tracked one (checked as every booking's
/// are: nothing twice, nothing empty). Exact takes no count line of a tracked item without its
/// numbers, so none of one cannot be counted here either (it is booked out where it went).
fn counted_numbers(
    body: &CountLineBody,
    facts: &ItemFacts,
    quantity: f64,
) -> AppResult<(Vec<String>, Vec<CountedBatch>)> {
    let mut given = Map::new();
    for (field, value) in [(numbers::SERIALS, &body.serial_numbers), (numbers::BATCHES, &body.batch_numbers)] {
        if let Some(v) = value {
            given.insert(field.into(), v.clone());
        }
    }
    let read = numbers::read(&given, quantity)?;
    let by = match facts.tracked {
        TrackedBy::Serial => NumberKind::Serial,
        TrackedBy::Batch => NumberKind::Batch,
        TrackedBy::None if read.is_some() => {
            return Err(AppError::said(Code::BadRequest, Text::CountNumbersUntracked { item: facts.code.clone() }));
        }
        TrackedBy::None => return Ok((Vec::new(), Vec::new())),
    };
    let needs = || AppError::said(Code::BadRequest, Text::CountNeedsNumbers { item: facts.code.clone(), by });
    match (by, read) {
        (NumberKind::Serial, Some(Numbers::Serial(list))) => Ok((list, Vec::new())),
        (NumberKind::Batch, Some(Numbers::Batch(list))) => {
            let batches = list.into_iter().map(|b| CountedBatch { number: b.number, quantity: b.quantity });
            Ok((Vec::new(), batches.collect()))
        }
        // none given, or the other kind
        _ => Err(needs()),
    }
}

pub fn remove_line(store: &OrgStore, id: &str, line: &str) -> AppResult<()> {
    let _one = WRITES.lock().unwrap_or_else(|p| p.into_inner());
    let mut session = get(store, id)?;
    if session.sent.is_some() {
        return Err(AppError::new(Code::CountClosed));
    }
    let before = session.lines.len();
    session.lines.retain(|l| l.id != line);
    if session.lines.len() == before {
        return Err(AppError::said(Code::NotFound, Text::CountLineNotFound));
    }
    put(store, &session)?;
    Ok(())
}

/// Removes a session that was not sent, or whose sending Exact Online refused: `status_of` says
/// where it stands and `discard` sets a refused one's entries aside (so a retry from the outbox
/// cannot book a count that is gone), both under the session lock, so no send slips between.
pub fn remove(
    store: &OrgStore,
    id: &str,
    status_of: impl Fn(&CountSession) -> AppResult<CountStatus>,
    discard: impl FnOnce(&[u64]) -> AppResult<()>,
) -> AppResult<()> {
    let _one = WRITES.lock().unwrap_or_else(|p| p.into_inner());
    let session = get(store, id)?;
    match status_of(&session)? {
        CountStatus::Counting => {}
        CountStatus::Refused => discard(session.sent.as_ref().map(|s| s.entries.as_slice()).unwrap_or_default())?,
        _ => return Err(AppError::new(Code::CountClosed)),
    }
    store.kv_delete(&key(id))?;
    Ok(())
}

/// The body of the one StockCount the session becomes: its warehouse, today, its description
/// and a line per counted item and place (`QuantityNew`, the location where there is one).
pub fn stock_count_body(session: &CountSession, mode: SendMode) -> AppResult<Value> {
    if session.lines.is_empty() {
        return Err(AppError::said(Code::EmptyPayload, Text::CountNothingCounted));
    }
    let lines: Vec<Value> = session
        .lines
        .iter()
        .map(|l| {
            let mut line = Map::new();
            line.insert("Item".into(), json!(l.item));
            line.insert("QuantityNew".into(), json!(l.quantity));
            if let Some(loc) = &l.location {
                line.insert("StorageLocation".into(), json!(loc));
            }
            // the numbers found there, in Exact's shape, as Scanning's Count sends them
            if !l.serial_numbers.is_empty() {
                let list: Vec<Value> = l.serial_numbers.iter().map(|n| json!({"SerialNumber": n})).collect();
                line.insert(numbers::SERIALS.into(), Value::Array(list));
            }
            if !l.batch_numbers.is_empty() {
                let list: Vec<Value> =
                    l.batch_numbers.iter().map(|b| json!({"BatchNumber": b.number, "Quantity": b.quantity})).collect();
                line.insert(numbers::BATCHES.into(), Value::Array(list));
            }
            Value::Object(line)
        })
        .collect();
    let mut body = json!({
        "Warehouse": session.scope.warehouse,
        "StockCountLines": lines,
        "process": mode == SendMode::Process,
    });
    if !session.description.is_empty() {
        body["Description"] = json!(session.description);
    }
    Ok(body)
}

/// Sends the session: `queue` puts the StockCount's entries in the outbox, and the session keeps
/// them. Under the session lock, so a request repeated (a handheld on weak Wi-Fi, two people
/// pressing at once) finds it sent and queues nothing twice; answers whether this call sent it.
pub fn send(
    store: &OrgStore,
    id: &str,
    mode: SendMode,
    by: &str,
    now_ms: i64,
    queue: impl FnOnce(&Value) -> AppResult<Vec<Entry>>,
) -> AppResult<(CountSession, bool)> {
    let _one = WRITES.lock().unwrap_or_else(|p| p.into_inner());
    let mut session = get(store, id)?;
    if session.sent.is_some() {
        return Ok((session, false));
    }
    let body = stock_count_body(&session, mode)?;
    // what the copy expected, kept: once the count is the stock, the copy expects what was counted
    let expected = expected::expected_by_place(store, &session)?;
    for line in &mut session.lines {
        line.expected_when_sent =
            Some(expected.get(&(line.item.clone(), line.location.clone())).copied().unwrap_or(0.0));
    }
    let entries = queue(&body)?;
    session.sent = Some(model::Sent {
        mode,
        entries: entries.iter().map(|e| e.id).collect(),
        stock_count_id: entries.first().map(|e| e.uid.clone()).unwrap_or_default(),
        by: label(by),
        at_ms: now_ms,
    });
    put(store, &session)?;
    Ok((session, true))
}

/// Back to counting after Exact Online refused the count itself; its refused entries are set
/// aside first (`discard`), so they are not sent as well. Checked and done under the lock.
pub fn reopen(
    store: &OrgStore,
    id: &str,
    status_of: impl Fn(&CountSession) -> AppResult<CountStatus>,
    discard: impl FnOnce(&[u64]) -> AppResult<()>,
) -> AppResult<CountSession> {
    let _one = WRITES.lock().unwrap_or_else(|p| p.into_inner());
    let mut session = get(store, id)?;
    if status_of(&session)? != CountStatus::Refused {
        return Err(AppError::said(Code::CountClosed, Text::CountReopenOnlyRefused));
    }
    discard(session.sent.as_ref().map(|s| s.entries.as_slice()).unwrap_or_default())?;
    session.sent = None;
    for line in &mut session.lines {
        line.expected_when_sent = None;
    }
    put(store, &session)?;
    Ok(session)
}

/// Where the session stands, from the outbox entries it queued (`None` for one the outbox no
/// longer has: delivered long ago, or discarded).
pub fn status(session: &CountSession, entries: &[Option<Entry>]) -> (CountStatus, Option<String>) {
    let Some(sent) = &session.sent else { return (CountStatus::Counting, None) };
    let state = |i: usize| entries.get(i).and_then(|e| e.as_ref()).map(|e| (e.state, e.error.clone()));
    let create = state(0);
    match create {
        Some((State::Failed, error)) => return (CountStatus::Refused, error),
        Some((State::Pending | State::Sending, _)) => return (CountStatus::Sending, None),
        _ => {}
    }
    if sent.mode == SendMode::Draft {
        return (CountStatus::Draft, None);
    }
    match state(1) {
        Some((State::Failed, error)) => (CountStatus::Draft, error),
        Some((State::Pending | State::Sending, _)) => (CountStatus::Sending, None),
        _ => (CountStatus::Processed, None),
    }
}

#[cfg(test)]
mod tests;
