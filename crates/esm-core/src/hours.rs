//! Operator timers of the Hours screen: who works on which operation of which shop order, since
//! when. `api::hours` serves them (`/api/v1/hours/timers`); the booking of hours takes a timer off
//! the list (`claim`) as its hours are queued.
//!
//! They live in the organization's store (its `kv` space, which a rebuild of the local copy
//! keeps), so every handheld of the organization sees the same timers, none of another
//! organization's, and a restart keeps them. The start time is the server's clock, so two
//! handhelds agree on how long a timer runs.

use crate::error::{AppError, AppResult, Code, Text};
use crate::exact::odata::is_guid;
use crate::store::{OrgStore, StoreResult};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The store's `kv` keys of timers: this prefix and the timer's id.
const PREFIX: &str = "hours_timers/";
/// Running timers an organization may hold: far above a shop floor's, and bounds the store.
pub const MAX_TIMERS: usize = 500;
/// The longest employee name or operation label kept with a timer, in characters.
const MAX_TEXT: usize = 200;
/// The longest id a browser may give a timer it carries over.
const MAX_ID: usize = 64;
/// How old a start a browser may carry over from the time timers lived in the browser.
const MAX_CARRIED_AGE_MS: i64 = 366 * 24 * 3_600_000;
/// How far ahead of the server's clock a carried-over start may be (the browser's clock is off);
/// it is taken as now.
const CLOCK_SKEW_MS: i64 = 5 * 60_000;

/// The provider's kind of hours (TimeTransactions.Activity 10 and 20).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Activity {
    Setup,
    Run,
}

/// A running timer: who works on which operation of which shop order, since when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Timer {
    #[schema(example = "5f0c6a2e-8d1b-4c36-9a43-2f6f0e1d7b21")]
    pub id: String,
    /// The employee's ID (a GUID, lower case).
    #[schema(example = "0badc0de-0000-4000-8000-000000000001")]
    pub employee: String,
    #[schema(example = "Anna de Vries")]
    pub employee_name: String,
    /// The shop order's ID.
    #[schema(example = "0badc0de-0000-4000-8000-000000000002")]
    pub shop_order: String,
    #[schema(example = "24005")]
    pub shop_order_number: String,
    /// The routing step's ID.
    #[schema(example = "0badc0de-0000-4000-8000-000000000003")]
    pub step: String,
    #[schema(example = "10. ZAGEN Zagen")]
    pub step_label: String,
    /// The work center's ID, or empty.
    #[schema(example = "0badc0de-0000-4000-8000-000000000004")]
    pub work_center: String,
    pub activity: Activity,
    /// Epoch milliseconds of the server's clock.
    #[schema(example = 1_780_000_000_000_i64)]
    pub started_ms: i64,
}

/// The organization's running timers and the server's clock, to show how long each runs.
#[derive(Debug, Serialize, ToSchema)]
pub struct TimerList {
    /// The server's clock, epoch milliseconds.
    #[schema(example = 1_780_000_360_000_i64)]
    pub now: i64,
    pub timers: Vec<Timer>,
}

/// What starting a timer takes. `id` and `startedMs` come only with a timer a browser kept
/// before timers lived here: posting it twice keeps one, and it keeps its start.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartBody {
    #[serde(default)]
    #[schema(max_length = 64, pattern = "^[A-Za-z0-9_-]+$")]
    id: Option<String>,
    #[schema(example = "0badc0de-0000-4000-8000-000000000001")]
    employee: String,
    #[serde(default)]
    #[schema(example = "Anna de Vries")]
    employee_name: String,
    #[schema(example = "0badc0de-0000-4000-8000-000000000002")]
    shop_order: String,
    #[schema(example = "24005", pattern = "^[0-9]{1,10}$")]
    shop_order_number: String,
    #[schema(example = "0badc0de-0000-4000-8000-000000000003")]
    step: String,
    #[serde(default)]
    #[schema(example = "10. ZAGEN Zagen")]
    step_label: String,
    #[serde(default)]
    work_center: Option<String>,
    activity: Activity,
    /// Only for a timer carried over from the browser: its start, epoch milliseconds.
    #[serde(default)]
    started_ms: Option<i64>,
}

fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_ID && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn guid(field: &str, what: &str, value: &str) -> AppResult<String> {
    let v = value.trim().to_ascii_lowercase();
    if is_guid(&v) { Ok(v) } else { Err(AppError::bad_request(format!("'{field}' must be {what} (a GUID)"))) }
}

/// A name or label as shown beside a timer: trimmed, and cut at `MAX_TEXT` characters (it only
/// names what the ids say, so a long one is no reason to refuse the timer).
fn text(value: &str) -> String {
    value.trim().chars().take(MAX_TEXT).collect()
}

impl StartBody {
    /// The timer this body starts at `now` (epoch ms), or why it cannot.
    pub fn timer(self, now: i64) -> AppResult<Timer> {
        let id = match self.id {
            Some(id) if valid_id(&id) => id,
            Some(_) => {
                return Err(AppError::bad_request(format!("'id' must be 1 to {MAX_ID} letters, digits, '-' or '_'")));
            }
            None => uuid::Uuid::new_v4().to_string(),
        };
        let number = self.shop_order_number.trim();
        if number.is_empty() || number.len() > 10 || !number.bytes().all(|b| b.is_ascii_digit()) {
            return Err(AppError::bad_request("'shopOrderNumber' must be the shop order's number (up to 10 digits)"));
        }
        let work_center = match self.work_center.as_deref().map(str::trim) {
            None | Some("") => String::new(),
            Some(w) => guid("workCenter", "a work center ID", w)?,
        };
        let started_ms = match self.started_ms {
            None => now,
            Some(ms) if ms > now + CLOCK_SKEW_MS => {
                // a device's clock: its user is told in their language
                return Err(AppError::said(Code::BadRequest, Text::TimerStartsInFuture));
            }
            Some(ms) if ms < now - MAX_CARRIED_AGE_MS => {
                return Err(AppError::said(Code::BadRequest, Text::TimerStartedOverAYearAgo));
            }
            Some(ms) => ms.min(now),
        };
        Ok(Timer {
            id,
            employee: guid("employee", "an employee ID", &self.employee)?,
            employee_name: text(&self.employee_name),
            shop_order: guid("shopOrder", "a shop order ID", &self.shop_order)?,
            shop_order_number: number.to_string(),
            step: guid("step", "a routing step ID", &self.step)?,
            step_label: text(&self.step_label),
            work_center,
            activity: self.activity,
            started_ms,
        })
    }
}

/// The organization's running timers, oldest first.
pub fn timers(store: &OrgStore) -> StoreResult<Vec<Timer>> {
    let mut out: Vec<Timer> = store
        .kv_scan(PREFIX)?
        .into_iter()
        .filter_map(|(id, bytes)| {
            serde_json::from_slice(&bytes)
                .map_err(|e| tracing::warn!(%id, error = %e, "an operator timer cannot be read; it is skipped"))
                .ok()
        })
        .collect();
    out.sort_by(|a, b| a.started_ms.cmp(&b.started_ms).then_with(|| a.id.cmp(&b.id)));
    Ok(out)
}

/// Stores `timer` unless its id is stored already; answers the stored one and whether it is new.
pub fn insert(store: &OrgStore, timer: Timer) -> AppResult<(Timer, bool)> {
    use crate::store::meta::PutNew;
    let bytes = serde_json::to_vec(&timer).map_err(AppError::internal)?;
    // the bound is counted in the insert's transaction: racing starts cannot pass it
    match store.kv_put_new_bounded(PREFIX, MAX_TIMERS, &timer.id, &bytes)? {
        PutNew::Stored => Ok((timer, true)),
        PutNew::Found(found) => Ok((serde_json::from_slice(&found).map_err(AppError::internal)?, false)),
        PutNew::Full => Err(AppError::said(Code::BadRequest, Text::TimersAtMost { max: MAX_TIMERS })),
    }
}

/// A running timer taken off the list by the booking of its hours: of two devices booking the
/// same timer at once, one takes it and the other is told it is gone, so its hours are booked
/// once. Dropped without `keep`, it is put back (the booking was not queued, or was refused).
pub struct Claimed {
    store: std::sync::Arc<OrgStore>,
    key: String,
    bytes: Option<Vec<u8>>,
}

/// Takes timer `id` off the organization's running timers for its booking.
pub fn claim(store: std::sync::Arc<OrgStore>, id: &str) -> AppResult<Claimed> {
    if !valid_id(id) {
        return Err(AppError::bad_request("'timer' is not a timer's id"));
    }
    let key = format!("{PREFIX}{id}");
    let bytes = store.kv_take(&key)?.ok_or_else(|| AppError::new(Code::TimerGone))?;
    Ok(Claimed { store, key, bytes: Some(bytes) })
}

impl Claimed {
    /// The booking stands: the timer stays off the list.
    pub fn keep(mut self) {
        self.bytes = None;
    }
}

impl Drop for Claimed {
    /// Puts the timer back, with its start.
    fn drop(&mut self) {
        let Some(bytes) = self.bytes.take() else { return };
        if let Err(e) = self.store.kv_put_new(&self.key, &bytes) {
            tracing::error!(key = %self.key, error = %e, "an operator timer could not be put back after its booking failed");
        }
    }
}

/// Removes timer `id` (booked elsewhere, or started by mistake).
pub fn remove(store: &OrgStore, id: &str) -> AppResult<()> {
    if !valid_id(id) {
        return Err(AppError::bad_request("That is not a timer's id"));
    }
    if store.kv_delete(&format!("{PREFIX}{id}"))? {
        Ok(())
    } else {
        Err(AppError::said(Code::NotFound, Text::TimerNotRunning))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: i64 = 1_780_000_000_000;

    fn body(extra: serde_json::Value) -> serde_json::Result<StartBody> {
        let mut b = json!({
            "employee": "0BADC0DE-0000-4000-8000-000000000001",
            "employeeName": " Anna de Vries ",
            "shopOrder": "0badc0de-0000-4000-8000-000000000002",
            "shopOrderNumber": "24005",
            "step": "0badc0de-0000-4000-8000-000000000003",
            "stepLabel": "10. ZAGEN Zagen",
            "workCenter": "0badc0de-0000-4000-8000-000000000004",
            "activity": "run"
        });
        for (k, v) in extra.as_object().into_iter().flatten() {
            b[k] = v.clone();
        }
        serde_json::from_value(b)
    }

    fn refused(extra: serde_json::Value) -> String {
        body(extra).expect("parses").timer(NOW).expect_err("refused").message().to_string()
    }

    #[test]
    fn a_new_timer_starts_now_with_an_id_of_the_server() {
        let t = body(json!({})).expect("parses").timer(NOW).expect("valid");
        assert_eq!(t.started_ms, NOW);
        assert!(is_guid(&t.id), "{}", t.id);
        assert_eq!(t.employee, "0badc0de-0000-4000-8000-000000000001", "GUIDs are kept in lower case");
        assert_eq!(t.employee_name, "Anna de Vries");
        assert_eq!(t.activity, Activity::Run);
        let again = body(json!({})).expect("parses").timer(NOW).expect("valid");
        assert_ne!(t.id, again.id);
        let long = body(json!({"stepLabel": "é".repeat(MAX_TEXT + 5)})).expect("parses").timer(NOW).expect("valid");
        assert_eq!(long.step_label.chars().count(), MAX_TEXT, "a long label is cut, not refused");
    }

    #[test]
    fn a_carried_over_timer_keeps_its_id_and_start() {
        let t = body(json!({"id": "1764100000000-ab12cd", "startedMs": NOW - 5_400_000, "workCenter": null}))
            .expect("parses")
            .timer(NOW)
            .expect("valid");
        assert_eq!(
            (t.id.as_str(), t.started_ms, t.work_center.as_str()),
            ("1764100000000-ab12cd", NOW - 5_400_000, "")
        );
        // a browser's clock a little ahead: now
        let t = body(json!({"startedMs": NOW + 60_000})).expect("parses").timer(NOW).expect("valid");
        assert_eq!(t.started_ms, NOW);
    }

    #[test]
    fn bad_input_is_refused_with_the_field_named() {
        assert!(refused(json!({"employee": "anna"})).contains("'employee'"));
        assert!(refused(json!({"shopOrder": ""})).contains("'shopOrder'"));
        assert!(refused(json!({"step": "10"})).contains("'step'"));
        assert!(refused(json!({"workCenter": "WC-1"})).contains("'workCenter'"));
        assert!(refused(json!({"shopOrderNumber": "SO 24005"})).contains("'shopOrderNumber'"));
        assert!(refused(json!({"shopOrderNumber": "12345678901"})).contains("'shopOrderNumber'"));
        assert!(refused(json!({"id": "../other"})).contains("'id'"));
        assert!(refused(json!({"id": ""})).contains("'id'"));
        assert!(refused(json!({"startedMs": NOW + CLOCK_SKEW_MS + 1})).contains("future"));
        assert!(refused(json!({"startedMs": NOW - MAX_CARRIED_AGE_MS - 1})).contains("year"));
        assert!(body(json!({"activity": "walk"})).is_err());
        assert!(body(json!({"elapsed": 3})).is_err(), "unknown fields are refused");
    }

    #[test]
    fn timers_are_kept_once_per_id_and_listed_oldest_first() {
        let dir = tempfile::tempdir().expect("dir");
        let stores = crate::store::Stores::new(dir.path(), Vec::new());
        let store = stores.get(1).expect("store");
        let late = body(json!({"id": "b"})).expect("parses").timer(NOW).expect("valid");
        let early = body(json!({"id": "a", "startedMs": NOW - 1000})).expect("parses").timer(NOW).expect("valid");
        assert!(insert(&store, late.clone()).expect("stored").1);
        assert!(insert(&store, early.clone()).expect("stored").1);
        // the same id again keeps the first
        let changed = Timer { started_ms: 5, ..late.clone() };
        assert_eq!(insert(&store, changed).expect("answered"), (late.clone(), false));
        assert_eq!(timers(&store).expect("list"), vec![early, late]);
        assert!(timers(&stores.get(2).expect("other")).expect("list").is_empty());
    }

    #[test]
    fn an_organization_holds_a_bounded_number_of_timers() {
        let dir = tempfile::tempdir().expect("dir");
        let stores = crate::store::Stores::new(dir.path(), Vec::new());
        let store = stores.get(1).expect("store");
        for n in 0..MAX_TIMERS {
            insert(&store, body(json!({"id": format!("t{n}")})).expect("parses").timer(NOW).expect("valid"))
                .expect("stored");
        }
        let one_more = body(json!({"id": "over"})).expect("parses").timer(NOW).expect("valid");
        assert!(insert(&store, one_more).expect_err("full").message().contains("stop some first"));
        // the same id again is still answered
        let again = body(json!({"id": "t0"})).expect("parses").timer(NOW).expect("valid");
        assert!(!insert(&store, again).expect("answered").1);
    }

    #[test]
    fn racing_starts_cannot_pass_the_bound() {
        let dir = tempfile::tempdir().expect("dir");
        let stores = crate::store::Stores::new(dir.path(), Vec::new());
        let store = stores.get(1).expect("store");
        for n in 0..MAX_TIMERS - 1 {
            insert(&store, body(json!({"id": format!("t{n}")})).expect("parses").timer(NOW).expect("valid"))
                .expect("stored");
        }
        // other kv entries beside the timers do not count
        store.kv_put_new("hours_timersX", b"{}").expect("stored");
        let started: Vec<bool> = std::thread::scope(|s| {
            let racers: Vec<_> = (0..8)
                .map(|n| {
                    let store = &store;
                    s.spawn(move || {
                        let t = body(json!({"id": format!("race{n}")})).expect("parses").timer(NOW).expect("valid");
                        insert(store, t).is_ok()
                    })
                })
                .collect();
            racers.into_iter().map(|r| r.join().expect("joined")).collect()
        });
        assert_eq!(started.iter().filter(|ok| **ok).count(), 1, "one of the racers got the last place");
        assert_eq!(timers(&store).expect("list").len(), MAX_TIMERS);
    }
}
