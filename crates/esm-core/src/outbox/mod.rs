//! Write-back to the provider through a durable outbox (one per organization): a write is on
//! disk before it is sent, goes out in order under the division's rate limiter, waits and tries
//! again on network trouble or 429, stops with the provider's message when refused, and is
//! recorded as accepted before the next one goes. A send whose answer was lost (crash, cut
//! connection) is checked at the provider before anything is sent again, so nothing is lost or
//! booked twice. Delivered writes trigger an incremental sync of the tables they touch.

pub mod actions;
pub mod bodies;
pub mod entry;
pub mod locations;
pub mod numbers;
pub mod reserve;
pub mod store;

pub use entry::{Entry, Method, Reconcile, State};

use crate::exact::oauth::now_ms;
use crate::exact::tokens::{TokenManager, UserToken};
use crate::exact::{ExactClient, ExactError};
use crate::exact::{catalogue, dropped};
use crate::serverdb::ServerDb;
use crate::store::Stores;
use crate::sync::engine::SyncError;
use crate::sync::{SyncEngine, SyncSink};
use anyhow::Result;
use parking_lot::Mutex;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use store::{Appended, KeptAnswer, KeyRecord, OutboxDb};
use tokio::sync::Notify;

/// The longest wait between tries, as a multiple of the spec's write wait (2 s → 30 s).
const MAX_BACKOFF_FACTOR: u32 = 15;
/// How long an entry without a usable token waits before trying again (or until woken).
const NO_TOKEN_WAIT: Duration = Duration::from_secs(30);

/// A discarded entry's note while the numbers it reserved are released.
const DISCARDED: &str = "Discarded: the numbers it reserved at Exact Online are released first, then it is gone";

const UNKNOWN_OUTCOME: &str = "The connection broke while this was being sent and Exact Online offers no way to \
     check it: look in Exact Online whether it was booked, then discard it here or send it again";

struct OrgOutbox {
    db: OutboxDb,
    wake: Notify,
    /// Idempotency keys whose first request is being answered by this process right now.
    answering: Mutex<HashSet<String>>,
    /// The entry the worker is delivering now. The worker takes an entry up, and a discard
    /// decides, under this lock: an entry in the worker's hands is only marked (`mark_discarded`).
    in_flight: Mutex<Option<u64>>,
}

/// What a write under an idempotency key found.
pub enum Keyed {
    /// The key is new: the entries are queued and this request gives the first answer, which it
    /// keeps with [`Answering::keep`].
    New(Vec<Entry>, Answering),
    /// The key was used before: nothing was queued.
    Known(KeyRecord),
}

/// A first request under an idempotency key, being answered; dropped (answered or not), the
/// key no longer counts as being answered.
pub struct Answering {
    org: Arc<OrgOutbox>,
    key: String,
}

impl Answering {
    /// Keeps the answer for repeats of the request; answers the kept one (the first).
    pub fn keep(&self, answer: KeptAnswer) -> Result<Option<KeptAnswer>> {
        self.org.db.keep_answer(&self.key, answer)
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        self.org.answering.lock().remove(&self.key);
    }
}

/// Where a repeated idempotency key stands.
pub enum KeyState {
    /// Its first answer, to give again.
    Answered(KeptAnswer),
    /// Its first request is still being answered by this process.
    Answering,
    /// Its first request was never answered (the process stopped, the caller went away).
    Unanswered(KeyRecord),
    /// Unknown (expired since).
    Gone,
}

/// The outboxes of all organizations and their delivery workers.
pub struct OutboxService {
    data_dir: PathBuf,
    exact: ExactClient,
    tokens: Arc<TokenManager>,
    serverdb: Arc<ServerDb>,
    sync: Arc<SyncEngine>,
    stores: Arc<Stores>,
    /// Wait after a transient failure (spec §9: 2 s on writes).
    retry_wait: Duration,
    orgs: Mutex<HashMap<i64, Arc<OrgOutbox>>>,
    workers: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

/// How one delivery step ended.
enum Step {
    Delivered,
    /// Exact refused it (or its outcome cannot be known): it waits for the user.
    Refused,
    /// Its author's Exact Online sign-in is missing or refused: it waits for a new sign-in.
    NoSignIn,
    /// Exact could not take it now (unreachable, 5xx, 429, a token to renew): try again.
    TryAgain,
}

/// What a worker carries from one entry to the next.
#[derive(Default)]
struct Run {
    /// Tables written to since the queue was last empty: synced back once it is.
    touched: BTreeSet<String>,
    /// Transient failures in a row: the wait grows with them, so a weekend without Exact costs
    /// a call every half minute, not every two seconds.
    failures: u32,
}

/// Why an entry waits for its author.
fn sign_in_needed(user_name: &str) -> String {
    let who = if user_name.trim().is_empty() { "its author" } else { user_name.trim() };
    format!("Waiting for {who} to sign in with Exact Online again")
}

/// What the provider says about a send whose answer was lost.
enum Found {
    Yes,
    No,
    CannotTell,
}

/// The queue's open and refused writes, as the UI shows them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct QueueCounts {
    pub pending: usize,
    pub failed: usize,
}

impl QueueCounts {
    pub fn of(entries: &[Entry]) -> QueueCounts {
        QueueCounts {
            pending: entries.iter().filter(|e| matches!(e.state, State::Pending | State::Sending)).count(),
            failed: entries.iter().filter(|e| e.state == State::Failed).count(),
        }
    }
}

impl OutboxService {
    pub fn new(
        data_dir: PathBuf,
        exact: ExactClient,
        tokens: Arc<TokenManager>,
        serverdb: Arc<ServerDb>,
        sync: Arc<SyncEngine>,
        stores: Arc<Stores>,
    ) -> Arc<Self> {
        let retry_wait = exact.waits().write_retry;
        Arc::new(OutboxService {
            data_dir,
            exact,
            tokens,
            serverdb,
            sync,
            stores,
            retry_wait,
            orgs: Mutex::default(),
            workers: Mutex::default(),
        })
    }

    /// The organization's outbox, opened (and its worker started) on first use.
    fn org(self: &Arc<Self>, division: i64) -> Result<Arc<OrgOutbox>> {
        if let Some(o) = self.orgs.lock().get(&division) {
            return Ok(o.clone());
        }
        let mut orgs = self.orgs.lock();
        if let Some(o) = orgs.get(&division) {
            return Ok(o.clone());
        }
        let db = OutboxDb::open(&store::path_of(&self.data_dir, division))?;
        let org =
            Arc::new(OrgOutbox { db, wake: Notify::new(), answering: Mutex::default(), in_flight: Mutex::default() });
        orgs.insert(division, org.clone());
        let service = self.clone();
        let worker = org.clone();
        self.workers.lock().push(tokio::spawn(async move { service.deliver_loop(division, worker).await }));
        Ok(org)
    }

    /// Starts the workers of every organization that has an outbox (after a restart).
    pub fn resume(self: &Arc<Self>) {
        for division in store::divisions_with_outbox(&self.data_dir) {
            if let Err(e) = self.org(division) {
                tracing::error!(division, error = %format!("{e:#}"), "cannot open an outbox");
            }
        }
    }

    /// Stops the workers; entries stay on disk and go on after the next start.
    pub fn stop(&self) {
        for w in self.workers.lock().drain(..) {
            w.abort();
        }
    }

    /// Stores the entries durably (in one transaction) and wakes the worker.
    pub fn enqueue(self: &Arc<Self>, division: i64, entries: Vec<Entry>) -> Result<Vec<Entry>> {
        let org = self.org(division)?;
        let stored = org.db.append(entries)?;
        org.wake.notify_one();
        Ok(stored)
    }

    /// [`OutboxService::enqueue`] under an idempotency key (scoped by the caller): a new key
    /// queues the entries in the same transaction that records the key, so two requests with one
    /// key can never both queue, whatever their timing, and a crash keeps both or neither.
    pub fn enqueue_keyed(
        self: &Arc<Self>,
        division: i64,
        entries: Vec<Entry>,
        key: &str,
        fingerprint: &str,
    ) -> Result<Keyed> {
        let org = self.org(division)?;
        // Held across the append: whoever sees the key recorded also sees it being answered.
        let mut answering = org.answering.lock();
        match org.db.append_keyed(entries, key, fingerprint, now_ms())? {
            Appended::Known(record) => Ok(Keyed::Known(record)),
            Appended::New(stored) => {
                answering.insert(key.to_string());
                drop(answering);
                org.wake.notify_one();
                Ok(Keyed::New(stored, Answering { org: org.clone(), key: key.to_string() }))
            }
        }
    }

    /// What was kept of an idempotency key's first request, if it is still known.
    pub fn key_record(self: &Arc<Self>, division: i64, key: &str) -> Result<Option<KeyRecord>> {
        self.org(division)?.db.key(key)
    }

    /// Where a repeated idempotency key stands (see [`KeyState`]).
    pub fn key_state(self: &Arc<Self>, division: i64, key: &str) -> Result<KeyState> {
        let org = self.org(division)?;
        let answering = org.answering.lock();
        Ok(match org.db.key(key)? {
            None => KeyState::Gone,
            Some(record) => match record.answer.clone() {
                Some(answer) => KeyState::Answered(answer),
                None if answering.contains(key) => KeyState::Answering,
                None => KeyState::Unanswered(record),
            },
        })
    }

    /// Keeps an answer made for a key whose first request was never answered.
    pub fn keep_answer(self: &Arc<Self>, division: i64, key: &str, answer: KeptAnswer) -> Result<Option<KeptAnswer>> {
        self.org(division)?.db.keep_answer(key, answer)
    }

    /// Copies an organization's outbox file consistently while it stays in use (backups).
    pub fn snapshot_to(self: &Arc<Self>, division: i64, dest: &std::path::Path) -> Result<()> {
        let org = self.org(division)?;
        crate::store::snapshot::copy_open_db(org.db.database(), &store::path_of(&self.data_dir, division), dest)
    }

    pub fn list(self: &Arc<Self>, division: i64) -> Result<Vec<Entry>> {
        self.org(division)?.db.all()
    }

    /// The writes still to deliver (pending or sending), oldest first, from the outbox's index.
    pub fn open_entries(self: &Arc<Self>, division: i64) -> Result<Vec<Entry>> {
        self.org(division)?.db.open_entries()
    }

    /// How many writes are still to go (pending or sending) and how many the provider refused:
    /// from the outbox's index, whatever the number of entries.
    pub fn counts(self: &Arc<Self>, division: i64) -> Result<QueueCounts> {
        self.org(division)?.db.counts()
    }

    /// Whether the oldest open write waits (Exact unreachable, a sign-in needed): writes queued
    /// behind it wait too.
    pub fn is_waiting(self: &Arc<Self>, division: i64) -> bool {
        match self.org(division).and_then(|o| o.db.next_open()) {
            Ok(next) => next.is_some_and(|e| e.error.is_some()),
            Err(_) => false,
        }
    }

    pub fn get(self: &Arc<Self>, division: i64, id: u64) -> Result<Option<Entry>> {
        self.org(division)?.db.get(id)
    }

    /// Sends a failed entry again. Answers the entry, or `None` if there is no such failed entry.
    pub fn retry(self: &Arc<Self>, division: i64, id: u64) -> Result<Option<Entry>> {
        let org = self.org(division)?;
        let Some(mut e) = org.db.get(id)?.filter(|e| e.state == State::Failed) else { return Ok(None) };
        e.state = State::Pending;
        e.attempts = 0;
        e.error = None;
        reserve::renew(&mut e);
        // The user checked a write of unknown outcome and chose to send it again.
        org.db.put(&e)?;
        org.wake.notify_one();
        Ok(Some(e))
    }

    /// Removes a failed or not yet sent entry. Answers whether one was removed (or will be). A
    /// waiting entry the worker is working on, or whose numbers were already (partly) reserved
    /// at Exact, is only marked: the worker releases what it reserved and then removes it, and
    /// never sends its booking once it is marked. Until then it stays listed, saying so.
    pub fn discard(self: &Arc<Self>, division: i64, id: u64) -> Result<bool> {
        let org = self.org(division)?;
        let in_flight = org.in_flight.lock();
        let Some(mut e) = org.db.get(id)? else { return Ok(false) };
        let held = *in_flight == Some(id);
        let reserved = e.reserve.as_ref().is_some_and(|r| r.started);
        match e.state {
            State::Failed => org.db.remove(id),
            State::Pending if !held && !reserved => org.db.remove(id),
            State::Pending => {
                let marked = org.db.mark_discarded(id)?;
                if marked && !held {
                    e.error = Some(DISCARDED.into());
                    org.db.put(&e)?;
                }
                drop(in_flight);
                org.wake.notify_one();
                Ok(marked)
            }
            State::Sending | State::Delivered => Ok(false),
        }
    }

    /// Removes refused entries at once: those of `ids` (every refused one when `None`), and of
    /// them only `author`'s when one is given. Answers how many were removed.
    pub fn discard_refused(
        self: &Arc<Self>,
        division: i64,
        ids: Option<&[u64]>,
        author: Option<&str>,
    ) -> Result<usize> {
        self.org(division)?.db.discard_refused(ids, author)
    }

    /// Waits up to `timeout` for an entry to be delivered or to fail, or until it is known to
    /// wait (Exact unreachable, a sign-in needed): the caller then answers "queued" at once.
    pub async fn wait_done(self: &Arc<Self>, division: i64, id: u64, timeout: Duration) -> Result<Option<Entry>> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let e = self.get(division, id)?;
            let waits = |e: &Entry| matches!(e.state, State::Pending | State::Sending) && e.error.is_some();
            let done = e.as_ref().is_none_or(|e| matches!(e.state, State::Delivered | State::Failed) || waits(e));
            if done || tokio::time::Instant::now() >= deadline {
                return Ok(e);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The organization's worker: delivers the oldest open entry, one at a time and in order,
    /// for as long as the process runs.
    async fn deliver_loop(self: Arc<Self>, division: i64, org: Arc<OrgOutbox>) {
        let mut run = Run::default();
        loop {
            let next = match org.db.next_open() {
                Ok(n) => n,
                Err(e) => {
                    tracing::error!(division, error = %format!("{e:#}"), "cannot read the outbox");
                    tokio::time::sleep(NO_TOKEN_WAIT).await;
                    continue;
                }
            };
            let Some(entry) = next else {
                self.idle(division, &org, &mut run).await;
                continue;
            };
            // Taken up under the lock a discard decides by, and read again: a discard just before wins.
            let taken = {
                let mut in_flight = org.in_flight.lock();
                let read = org.db.get(entry.id);
                if let Ok(Some(e)) = &read
                    && matches!(e.state, State::Pending | State::Sending)
                {
                    *in_flight = Some(e.id);
                }
                read
            };
            let entry = match taken {
                Ok(Some(e)) if matches!(e.state, State::Pending | State::Sending) => e,
                Ok(_) => continue,
                Err(e) => {
                    tracing::error!(division, error = %format!("{e:#}"), "cannot read the outbox");
                    tokio::time::sleep(NO_TOKEN_WAIT).await;
                    continue;
                }
            };
            let tables = entry.tables.clone();
            let user = entry.user.clone();
            let step = self.deliver(division, &org, entry).await;
            *org.in_flight.lock() = None;
            let Some(wait) = self.after_step(division, &mut run, step, tables, &user) else { continue };
            // A sign-in or a new write wakes the worker early.
            let _ = tokio::time::timeout(wait, org.wake.notified()).await;
        }
    }

    /// The queue is empty: the tables written to are synced back (once, after the burst of
    /// writes rather than after each), old entries are pruned, and the worker sleeps until woken.
    async fn idle(&self, division: i64, org: &OrgOutbox, run: &mut Run) {
        run.failures = 0;
        if !run.touched.is_empty() {
            self.sync_tables(division, std::mem::take(&mut run.touched));
        }
        let _ = org.db.prune();
        org.wake.notified().await;
    }

    /// Carries a step's outcome over to the run and answers how long to wait before the next
    /// one (`None`: the next entry goes at once), so that a long outage backs off.
    fn after_step(
        self: &Arc<Self>,
        division: i64,
        run: &mut Run,
        step: Result<Step>,
        tables: Vec<String>,
        user: &str,
    ) -> Option<Duration> {
        match step {
            Ok(Step::Delivered) => {
                run.failures = 0;
                run.touched.extend(tables);
                self.release_signed_out_tokens(user);
                None
            }
            Ok(Step::Refused) => {
                run.failures = 0;
                self.release_signed_out_tokens(user);
                None
            }
            Ok(Step::NoSignIn) => Some(NO_TOKEN_WAIT),
            Ok(Step::TryAgain) => {
                run.failures = run.failures.saturating_add(1);
                Some(self.backoff(run.failures))
            }
            Err(e) => {
                tracing::error!(division, error = %format!("{e:#}"), "cannot record an outbox entry");
                Some(self.retry_wait)
            }
        }
    }

    /// The wait after `failures` transient failures in a row: the spec's write wait, doubling
    /// up to fifteen times it (2 s … 30 s).
    fn backoff(&self, failures: u32) -> Duration {
        let factor = 1u32 << failures.saturating_sub(1).min(4);
        (self.retry_wait * factor).min(self.retry_wait * MAX_BACKOFF_FACTOR)
    }

    /// The tokens of a user who signed out were kept only for their queued writes: once none is
    /// left open in any organization, they go.
    fn release_signed_out_tokens(self: &Arc<Self>, user: &str) {
        if self.tokens.is_signed_out(user) && !self.has_open_writes_of(user) {
            match self.tokens.forget(user) {
                Ok(()) => tracing::info!("a signed-out user's queued writes are through; their tokens are dropped"),
                Err(e) => tracing::error!(error = %e, "cannot drop provider tokens"),
            }
        }
    }

    /// Whether `user` has writes still to go (pending or sending) in any organization.
    pub fn has_open_writes_of(self: &Arc<Self>, user: &str) -> bool {
        let open = |e: &Entry| e.user == user && matches!(e.state, State::Pending | State::Sending);
        let open_of = |division| self.org(division).and_then(|o| o.db.open_entries());
        store::divisions_with_outbox(&self.data_dir).into_iter().any(|division| match open_of(division) {
            Ok(entries) => entries.iter().any(open),
            Err(e) => {
                tracing::error!(division, error = %format!("{e:#}"), "cannot read an outbox");
                // Unknown: keep the tokens rather than strand a write.
                true
            }
        })
    }

    /// Wakes every worker (a user signed in: writes waiting for their sign-in can go).
    pub fn wake_all(&self) {
        for org in self.orgs.lock().values() {
            org.wake.notify_one();
        }
    }

    /// Records why the entry waits (it stays open) and answers how to go on.
    fn waiting(&self, org: &OrgOutbox, mut entry: Entry, why: String, step: Step) -> Result<Step> {
        if entry.error.as_deref() != Some(why.as_str()) {
            entry.error = Some(why);
            org.db.put(&entry)?;
        }
        Ok(step)
    }

    /// One step for the oldest open entry: a lost send is checked first, then it is sent once
    /// and the provider's answer decides the step.
    async fn deliver(&self, division: i64, org: &OrgOutbox, entry: Entry) -> Result<Step> {
        // Writes go under the identity of the user who made them, never another's. Their sign-in
        // is checked first (a missing or refused one waits for them); each call then takes the
        // token as it goes out, renewed when due and once more when Exact refuses it.
        let token = match UserToken::checked(&self.tokens, &entry.user).await {
            Ok(t) => t,
            Err(e) => return self.without_token(org, entry, e),
        };
        let entry = if entry.state == State::Sending {
            match self.check_lost_send(division, org, &token, entry).await? {
                ControlFlow::Continue(entry) => entry,
                ControlFlow::Break(step) => return Ok(step),
            }
        } else {
            entry
        };
        if org.db.is_discarded(entry.id)? {
            return self.drop_discarded(division, org, &token, entry).await;
        }
        // A tracked item's numbers are reserved first; the booking names their group.
        let entry = match self.reserve_numbers(division, org, &token, entry).await? {
            ControlFlow::Continue(entry) => entry,
            ControlFlow::Break(step) => return Ok(step),
        };
        let entry = match self.mark_sending(org, entry)? {
            Ok(entry) => entry,
            Err(discarded) => return self.drop_discarded(division, org, &token, discarded).await,
        };
        let result =
            self.exact.write_once(division, &token, entry.method.as_reqwest(), &entry.path, entry.body.as_ref()).await;
        self.record_answer(division, org, &token, entry, result).await
    }

    /// No token for the entry's author: a missing or refused sign-in waits for that user, any
    /// other failure (Exact away while renewing) is tried again.
    fn without_token(&self, org: &OrgOutbox, entry: Entry, e: ExactError) -> Result<Step> {
        match e {
            ExactError::Unauthorized(_) | ExactError::NoToken => {
                let why = sign_in_needed(&entry.user_name);
                self.waiting(org, entry, why, Step::NoSignIn)
            }
            e => self.waiting(org, entry, format!("Waiting for Exact Online: {e}"), Step::TryAgain),
        }
    }

    /// A send whose answer was lost is checked at the provider before it goes again, so it is
    /// never booked twice: `Continue` with the entry when it is not there (send it), else the step.
    async fn check_lost_send(
        &self,
        division: i64,
        org: &OrgOutbox,
        token: &UserToken,
        entry: Entry,
    ) -> Result<ControlFlow<Step, Entry>> {
        let step = match self.reconcile(division, token, &entry).await {
            Ok(Found::Yes) => {
                tracing::info!(division, id = entry.id, action = %entry.action, "outbox: the provider already has it");
                self.delivered(org, entry, None).map(|_| Step::Delivered)?
            }
            Ok(Found::No) => return Ok(ControlFlow::Continue(entry)),
            Ok(Found::CannotTell) => self.failed(org, entry, UNKNOWN_OUTCOME.into())?,
            // Refused even with a renewed token: the next round checks the sign-in again.
            Err(ExactError::Unauthorized(_)) => Step::TryAgain,
            Err(e) => {
                tracing::debug!(division, id = entry.id, error = %e, "outbox: cannot check an interrupted send yet");
                self.waiting(org, entry, format!("Waiting for Exact Online: {e}"), Step::TryAgain)?
            }
        };
        Ok(ControlFlow::Break(step))
    }

    /// Records the entry as being sent before it goes: after a crash or a lost answer the next
    /// round knows to check at the provider first.
    /// `Err` with the entry as it was when its user discarded it meanwhile: it is not sent.
    fn mark_sending(&self, org: &OrgOutbox, entry: Entry) -> Result<Result<Entry, Entry>> {
        let mut sending = entry.clone();
        sending.state = State::Sending;
        sending.attempts += 1;
        sending.sent_ms = Some(now_ms());
        Ok(if org.db.put_unless_discarded(&sending)? { Ok(sending) } else { Err(entry) })
    }

    /// An entry its user discarded before its booking went out: the numbers it reserved are
    /// released first (`release_then_fail` then removes it), else it is removed at once.
    async fn drop_discarded(&self, division: i64, org: &OrgOutbox, token: &UserToken, entry: Entry) -> Result<Step> {
        if entry.reserve.as_ref().is_some_and(|r| r.started) {
            return self.release_then_fail(division, org, token, entry, DISCARDED.into()).await;
        }
        tracing::info!(division, id = entry.id, "outbox: a discarded entry is removed");
        org.db.remove(entry.id)?;
        Ok(Step::Refused)
    }

    /// Turns the provider's answer to a send into the next step and records it on the entry.
    async fn record_answer(
        &self,
        division: i64,
        org: &OrgOutbox,
        token: &UserToken,
        mut entry: Entry,
        result: Result<serde_json::Map<String, Value>, ExactError>,
    ) -> Result<Step> {
        match result {
            Ok(created) => {
                let key = created.iter().find(|(k, _)| is_key(k)).and_then(|(_, v)| v.as_str()).map(str::to_string);
                tracing::info!(division, id = entry.id, action = %entry.action, "outbox: delivered");
                self.delivered(org, entry, key).map(|_| Step::Delivered)
            }
            // A key that is already gone was deleted: that is what was asked.
            Err(ExactError::Rejected { status: 404, .. }) if entry.method == Method::Delete => {
                self.delivered(org, entry, None).map(|_| Step::Delivered)
            }
            // Only Exact's own refusal, with its message, ends an entry.
            Err(ExactError::Rejected { message, .. } | ExactError::Forbidden(message)) => {
                tracing::warn!(division, id = entry.id, action = %entry.action, %message, "outbox: refused by Exact Online");
                // A write sends only what its user set (and the key it chose for a create), so a
                // removed property in it is the user's: refused with Exact's message, never
                // dropped unseen; status lists it like one a read met.
                if let Some(property) = dropped::removed_property(&message) {
                    let endpoint = dropped::endpoint_of(&entry.path);
                    if let Err(e) = self.stores.get(division).and_then(|s| dropped::record(&s, endpoint, property)) {
                        tracing::warn!(division, error = %e, "outbox: could not record a removed property");
                    }
                }
                if entry.reserve.is_some() {
                    return self.refused_with_reservation(division, org, token, entry, message).await;
                }
                self.failed(org, entry, message)
            }
            // A 401 is answered before anything is booked, and the client already sent it once
            // more with a renewed token: send it again next round, after the sign-in is checked.
            Err(ExactError::Unauthorized(_) | ExactError::NoToken) => {
                entry.state = State::Pending;
                org.db.put(&entry)?;
                Ok(Step::TryAgain)
            }
            // 429: the provider did not take it, so it can simply go again.
            Err(ExactError::RateLimited) => {
                entry.state = State::Pending;
                self.waiting(org, entry, "Waiting for Exact Online's call limit".into(), Step::TryAgain)
            }
            // Network trouble, a timeout or a 5xx: it may have arrived. It stays "sending", so the
            // next round checks at the provider before sending again; it waits however long Exact
            // is away, and is never marked refused for it.
            Err(e) => {
                let why = match e.provider_message() {
                    Some(m) => format!("Waiting for Exact Online, which answered: {m}"),
                    None => format!("Waiting for Exact Online: {e}"),
                };
                if entry.attempts <= 3 || entry.attempts.is_multiple_of(50) {
                    tracing::warn!(division, id = entry.id, attempt = entry.attempts, error = %e, "outbox: send failed; will check and retry");
                }
                self.waiting(org, entry, why, Step::TryAgain)
            }
        }
    }

    /// Ends the entry as refused with `why`: it waits for the user to send it again or discard it.
    fn failed(&self, org: &OrgOutbox, mut entry: Entry, why: String) -> Result<Step> {
        entry.state = State::Failed;
        entry.error = Some(why);
        entry.done_ms = Some(now_ms());
        org.db.put(&entry)?;
        Ok(Step::Refused)
    }

    fn delivered(&self, org: &OrgOutbox, mut entry: Entry, key: Option<String>) -> Result<()> {
        entry.state = State::Delivered;
        entry.error = None;
        entry.done_ms = Some(now_ms());
        entry.result_key = key.or(entry.result_key);
        org.db.put(&entry)
    }

    async fn reconcile(&self, division: i64, token: &UserToken, entry: &Entry) -> Result<Found, ExactError> {
        let (path, filter, select, status) = match &entry.reconcile {
            Reconcile::Idempotent => return Ok(Found::No),
            Reconcile::Unknown => return Ok(Found::CannotTell),
            Reconcile::Key { path, field, value } => (path, format!("{field} eq guid'{value}'"), field.clone(), None),
            Reconcile::Marker { path, field, marker } => {
                (path, format!("substringof('{}', {field}) eq true", marker.replace('\'', "''")), field.clone(), None)
            }
            Reconcile::Status { path, field, value, status } => {
                (path, format!("{field} eq guid'{value}'"), format!("{field},Status"), Some(*status))
            }
            // Booked numbers are no longer drafts (Exact's IsDraft 0).
            Reconcile::Reserved { path, draft } => {
                (path, format!("DraftStockTransactionID eq guid'{draft}'"), "ID,IsDraft".to_string(), Some(0))
            }
        };
        let url =
            self.exact.api_url(division, &format!("{path}?$filter={}&$select={select}", urlencoding::encode(&filter)));
        let rows = self.exact.get_all(division, token, &url).await?;
        let found = match status {
            None => !rows.is_empty(),
            Some(s) => {
                let field = if matches!(entry.reconcile, Reconcile::Reserved { .. }) { "IsDraft" } else { "Status" };
                rows.iter().any(|r| r.get(field).and_then(numeric) == Some(s))
            }
        };
        Ok(if found { Found::Yes } else { Found::No })
    }

    /// Brings the provider's truth back into the store after writes (incremental sync).
    fn sync_tables(&self, division: i64, tables: BTreeSet<String>) {
        let endpoints: Vec<_> = tables.iter().filter_map(|t| catalogue::by_table(t)).filter(|e| e.is_sync()).collect();
        if endpoints.is_empty() {
            return;
        }
        let Some(token) = crate::auth::accounts::org_token(&self.serverdb, &self.stores, &self.tokens, division) else {
            return;
        };
        let store = match self.stores.get(division) {
            Ok(s) => s,
            Err(e) => {
                tracing::error!(division, error = %e, "outbox: cannot open the store to sync");
                return;
            }
        };
        let sync = self.sync.clone();
        tokio::spawn(async move {
            // A sync already running may have read before the write landed: wait and run ours.
            for _ in 0..120 {
                match sync.start_foreground(
                    division,
                    token.clone(),
                    endpoints.clone(),
                    store.clone() as Arc<dyn SyncSink>,
                ) {
                    Err(SyncError::AlreadyRunning) => tokio::time::sleep(Duration::from_millis(500)).await,
                    Err(e) => {
                        tracing::warn!(division, error = %e, "outbox: sync after writes not started");
                        return;
                    }
                    Ok(()) => return,
                }
            }
        });
    }
}

/// A whole number the provider may send as a number, a boolean or numeric text.
fn numeric(v: &Value) -> Option<i64> {
    match v {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::String(s) => s.trim().parse().ok(),
        other => other.as_i64().or_else(|| other.as_f64().map(|f| f as i64)),
    }
}

/// Key fields of created entities, as the provider names them.
fn is_key(field: &str) -> bool {
    matches!(field, "ID" | "StockTransactionId" | "TransferID" | "StockCountID" | "PurchaseOrderID" | "OrderID")
}
