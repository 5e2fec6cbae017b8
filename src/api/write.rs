//! Write-back (full access, spec §7): the named write calls and the generic allow-listed ones
//! queue entries in the organization's outbox (`crate::outbox`) and answer with them; `?wait=N`
//! waits up to N seconds (max 30) for the provider's answer. `GET /outbox` lists entries; a failed
//! one can be retried or discarded, and refused ones discarded in bulk (`POST /outbox/discard`).
//! Every call that queues takes an `Idempotency-Key` header (`idempotency`): a booking sent twice
//! is queued once and answered the first answer again. `GET /exact/urlDirect` reads any provider
//! path of the session's division, following `__next`, under the live-read deadline
//! (`crate::live`).

use super::idempotency::{self, IdempotencyKey, RequestKey};
use super::peer_gone::unless_gone;
use super::router::{Res, Router};
use crate::auth::tier::Session;
use crate::error::{AppError, AppResult, Code, Text};
use crate::hours::{self, Claimed};
use crate::live::{AS_OF_HEADER, direct};
use crate::outbox::actions::{self, Actor, Invalid};
use crate::outbox::bodies::{
    ByProductReceipt, GenericWrite, GoodsReceipt, MaterialIssues, SalesOrderLineUpdate, ShopOrderReceipt,
    ShopOrderUpdate, StockCount, WarehouseTransfer,
};
use crate::outbox::store::{KeptAnswer, KeyRecord};
use crate::outbox::{Entry, KeyState, Keyed, Method, QueueCounts, State};
use crate::outbox::{locations, reserve};
use crate::scanning::references;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;
use utoipa::{IntoParams, ToSchema};

pub fn routes(r: &mut Router) {
    r.full("/exact/updateShopOrder", |res| write(res.put(named(actions::update_shop_order))).body::<ShopOrderUpdate>());
    r.full("/exact/updateSalesOrderLine", |res| {
        write(res.put(named(actions::update_sales_order_line))).body::<SalesOrderLineUpdate>()
    });
    r.full("/exact/updateMaterialsIssues", |res| {
        write(res.post(named(actions::material_issues))).body::<MaterialIssues>()
    });
    r.full("/exact/createStockCount", |res| write(res.post(named(actions::stock_count))).body::<StockCount>());
    r.full("/exact/createGoodsReceipt", |res| write(res.post(named(actions::goods_receipt))).body::<GoodsReceipt>());
    r.full("/exact/createShopOrderReceipt", |res| {
        write(res.post(named(actions::shop_order_receipt))).body::<ShopOrderReceipt>()
    });
    r.full("/exact/createByProductReceipt", |res| {
        write(res.post(named(actions::by_product_receipt))).body::<ByProductReceipt>()
    });
    r.full("/exact/createWarehouseTransfer", |res| {
        write(res.post(named(actions::warehouse_transfer))).body::<WarehouseTransfer>()
    });
    r.full("/exact/deleteDataFromExact", |res| written(res.delete(delete).keyed().query::<DeleteQuery>()));
    r.full("/exact/urlDirect", |res| {
        res.get(url_direct)
            .query::<DirectQuery>()
            .json::<DirectAnswer>(200, "Every page of the provider's answer, or its last known answer during an outage")
            .header(AS_OF_HEADER, "Only on a last known answer served during an outage: when it was fetched, epoch ms")
            .fails(&[
                Code::NotFound,
                Code::ProviderUnreachable,
                Code::Provider,
                Code::ProviderSignIn,
                Code::TooManyRequests,
            ])
    });
    r.full("/exact/{kind}", |res| {
        let res = generic_write(res.post(generic(Method::Post))).fails(&[Code::TimerGone]);
        generic_write(res.put(generic(Method::Put)))
    });
    r.full("/outbox", |res| res.get(list).json::<OutboxList>(200, "The organization's outbox, newest first"));
    r.full("/outbox/discard", |res| {
        res.post(discard_refused)
            .body::<DiscardBody>()
            .json::<Discarded>(200, "The refused entries are discarded: they are not sent")
            .fails(&[Code::AdminOnly, Code::TooManyEntries])
    });
    r.full("/outbox/{id}", |res| {
        res.integer_param("id")
            .get(one)
            .json::<Entry>(200, "The outbox entry")
            .fails(&[Code::NotFound])
            .delete(discard)
            .empty(204, "The failed or waiting entry is discarded: it is not sent")
            .fails(&[Code::NotFound, Code::AdminOnly])
    });
    r.full("/outbox/{id}/retry", |res| {
        res.integer_param("id")
            .post(retry)
            .json::<Entry>(202, "The failed entry, queued to be sent again")
            .fails(&[Code::NotFound, Code::AdminOnly])
    });
}

/// The answers of a write that queues entries.
fn written(res: Res) -> Res {
    res.json::<WriteView>(200, "Delivered: the provider took every entry")
        .json::<WriteView>(202, "Queued: on its way to the provider (answered at once, or after `wait` seconds)")
        .json::<WriteView>(422, "Refused by the provider, with its message; the entry waits in the outbox")
        .header(idempotency::REPLAYED_HEADER, "`true` on the first answer given again for a repeated Idempotency-Key")
        .fails(&[Code::NotFound, Code::TooManyEntries])
}

/// A named write: keyed, waits as asked, answers with its entries.
fn write(res: Res) -> Res {
    written(res.keyed().query::<NamedQuery>()).fails(&[Code::EmptyPayload])
}

/// The generic write of an allow-listed kind.
fn generic_write(res: Res) -> Res {
    written(res.keyed().query::<WaitQuery>()).fails(&[Code::EmptyPayload]).body::<GenericWrite>()
}

/// The longest a caller may wait for the provider's answer.
const MAX_WAIT_SECS: u64 = 30;

/// The query of a named write: `timer` is refused there (parsed to be refused, not documented).
#[derive(Deserialize, Default, IntoParams)]
#[into_params(parameter_in = Query)]
struct NamedQuery {
    /// Seconds to wait for the provider's answer (at most 30); 0 answers at once.
    #[serde(default)]
    #[param(maximum = 30, example = 10)]
    wait: u64,
    #[serde(default)]
    #[param(ignore)]
    timer: Option<String>,
}

/// The query of a generic write.
#[derive(Deserialize, Default, IntoParams)]
#[into_params(parameter_in = Query)]
struct WaitQuery {
    /// Seconds to wait for the provider's answer (at most 30); 0 answers at once.
    #[serde(default)]
    #[param(maximum = 30, example = 10)]
    wait: u64,
    /// The operator timer whose hours a `timeTransactions` POST books: taken off the running
    /// timers as the booking is queued (`hours::claim`).
    #[serde(default)]
    #[param(example = "5f0c6a2e-8d1b-4c36-9a43-2f6f0e1d7b21")]
    timer: Option<String>,
}

fn actor(session: &Session) -> Actor {
    Actor { user: session.record.user.clone(), user_name: session.record.user_name.clone() }
}

/// What a write answers: the overall state and its entries (200 delivered, 202 on its way,
/// 422 refused with the provider's message).
#[derive(Serialize, ToSchema)]
struct WriteView {
    /// `delivered`, `pending` (on its way) or `failed`.
    state: State,
    /// The provider's message when it refused an entry.
    #[schema(example = json!(null))]
    #[schema(required = true)]
    error: Option<String>,
    entries: Vec<Entry>,
}

/// The outbox: how many entries are on their way and refused, and the entries, newest first.
#[derive(Serialize, ToSchema)]
struct OutboxList {
    #[schema(example = 2)]
    pending: usize,
    #[schema(example = 1)]
    failed: usize,
    entries: Vec<Entry>,
}

/// How often a repeated idempotency key looks whether its first request has been answered.
const REPEAT_POLL: Duration = Duration::from_millis(50);
/// The longest a repeat waits for its first request's answer: that one waits at most
/// `MAX_WAIT_SECS` per entry, so this is only reached by something stuck.
const REPEAT_MAX_WAIT: Duration = Duration::from_secs(300);
/// The most entries one request queues: each one is a durable commit and a delivery step, so a
/// larger request would hold the outbox (and the memory of its answer) for everyone.
pub const MAX_ENTRIES: usize = 200;

async fn queue(
    state: &AppState,
    session: &Session,
    entries: Vec<Entry>,
    wait: u64,
    key: Option<RequestKey>,
    timer: Option<&str>,
) -> AppResult<HttpResponse> {
    if entries.len() > MAX_ENTRIES {
        return Err(AppError::new(Code::TooManyEntries));
    }
    let division = session.record.division;
    // put back by its drop on every way out that does not keep it
    let claimed = claim_timer(state, division, key.as_ref(), timer)?;
    let (mut stored, answering) = match &key {
        None => (state.outbox.enqueue(division, entries).map_err(AppError::internal)?, None),
        Some(k) => match state.outbox.enqueue_keyed(division, entries, &k.scope, &k.fingerprint) {
            Ok(Keyed::New(stored, answering)) => (stored, Some(answering)),
            // a repeat books nothing new: a timer claimed by a request racing its first one goes back
            Ok(Keyed::Known(record)) => {
                drop(claimed);
                return repeat(state, division, k, record).await;
            }
            Err(e) => return Err(AppError::internal(e)),
        },
    };
    tracing::info!(division, count = stored.len(), action = %stored[0].action, keyed = key.is_some(), "write queued");
    let wait = Duration::from_secs(wait.min(MAX_WAIT_SECS));
    // While Exact is away (or the queue waits for a sign-in) the answer is "queued", at once.
    let blocked = !state.exact.provider_status().reachable || state.outbox.is_waiting(division);
    if !wait.is_zero() && !blocked {
        for e in &mut stored {
            // Entries go in order: waiting for each in turn bounds the whole wait.
            if let Some(done) = state.outbox.wait_done(division, e.id, wait).await.map_err(AppError::internal)? {
                *e = done;
            }
        }
    }
    let answer = answer_of(stored)?;
    // refused at once: the timer runs on (dropped), so its hours are not lost; a later refusal
    // keeps them in the outbox, to correct and send again
    if answer.status != StatusCode::UNPROCESSABLE_ENTITY.as_u16()
        && let Some(c) = claimed
    {
        c.keep();
    }
    match answering {
        None => idempotency::respond(answer, false),
        // Kept for repeats of the request; should one have been answered first, its answer stands.
        Some(a) => match a.keep(answer.clone()).map_err(AppError::internal)? {
            Some(first) if first != answer => idempotency::respond(first, true),
            _ => idempotency::respond(answer, false),
        },
    }
}

/// Takes the booked operator timer off the running ones, unless the request repeats a key
/// already used (its first request took it).
fn claim_timer(
    state: &AppState,
    division: i64,
    key: Option<&RequestKey>,
    timer: Option<&str>,
) -> AppResult<Option<Claimed>> {
    let Some(id) = timer else { return Ok(None) };
    if let Some(k) = key
        && !matches!(state.outbox.key_state(division, &k.scope).map_err(AppError::internal)?, KeyState::Gone)
    {
        return Ok(None);
    }
    Ok(Some(hours::claim(state.stores.get(division)?, id)?))
}

/// The answer to a write that queued `entries` (status and JSON body).
fn answer_of(entries: Vec<Entry>) -> AppResult<KeptAnswer> {
    let failed = entries.iter().find(|e| e.state == State::Failed);
    let (status, overall) = if let Some(f) = failed {
        (StatusCode::UNPROCESSABLE_ENTITY, f.state)
    } else if entries.iter().all(|e| e.state == State::Delivered) {
        (StatusCode::OK, State::Delivered)
    } else {
        (StatusCode::ACCEPTED, State::Pending)
    };
    let error = failed.and_then(|f| f.error.clone());
    let body = serde_json::to_string(&WriteView { state: overall, error, entries }).map_err(AppError::internal)?;
    Ok(KeptAnswer { status: status.as_u16(), body })
}

/// A write whose idempotency key was used before: another request under it is refused; the
/// same request gets the first answer, waiting for it while the first request is still being
/// answered (so parallel duplicates all see the one booking). A first request that was never
/// answered (the server stopped, the caller went away) is answered now from its entries' states.
async fn repeat(state: &AppState, division: i64, key: &RequestKey, record: KeyRecord) -> AppResult<HttpResponse> {
    if record.fingerprint != key.fingerprint {
        tracing::info!(division, "an idempotency key came back with another request");
        return Err(AppError::new(Code::IdempotencyKeyReused));
    }
    let deadline = tokio::time::Instant::now() + REPEAT_MAX_WAIT;
    loop {
        match state.outbox.key_state(division, &key.scope).map_err(AppError::internal)? {
            KeyState::Answered(first) => return idempotency::respond(first, true),
            KeyState::Unanswered(record) => {
                let mut entries = Vec::with_capacity(record.entries.len());
                for id in &record.entries {
                    entries.extend(state.outbox.get(division, *id).map_err(AppError::internal)?);
                }
                if entries.is_empty() {
                    return Err(AppError::said(Code::NotFound, Text::KeyEntriesGone));
                }
                let answer = answer_of(entries)?;
                let kept =
                    state.outbox.keep_answer(division, &key.scope, answer.clone()).map_err(AppError::internal)?;
                return idempotency::respond(kept.unwrap_or(answer), true);
            }
            // Expired between the two looks (a week old): not to be booked again blind.
            KeyState::Gone => {
                return Err(AppError::said(Code::NotFound, Text::KeyGone));
            }
            KeyState::Answering if tokio::time::Instant::now() >= deadline => {
                return Err(AppError::said(Code::Unavailable, Text::KeyStillAnswering));
            }
            KeyState::Answering => tokio::time::sleep(REPEAT_POLL).await,
        }
    }
}

/// Builds entries from a request body (one of `outbox::actions`).
type Build = fn(&Actor, &Value) -> Result<Vec<Entry>, Invalid>;

type Answer = Pin<Box<dyn Future<Output = AppResult<HttpResponse>>>>;
/// The `?wait=N` and the JSON body of a write call.
type Wait = web::Query<WaitQuery>;
type Body = web::Json<Value>;

/// The handler of a named write call: check the body, queue, answer.
fn named(
    build: Build,
) -> impl Fn(web::Data<AppState>, Session, IdempotencyKey, web::Query<NamedQuery>, Body) -> Answer + Clone + 'static {
    move |state, session, key, q, body| {
        Box::pin(async move {
            if q.timer.is_some() {
                return Err(AppError::bad_request("'timer' goes only with a booking of hours (timeTransactions)"));
            }
            // the key's request is the one sent, references and all
            let key = key.for_write(&session, Some(&body));
            let mut body = body.into_inner();
            let division = session.record.division;
            let resolve = references::has_references(&body);
            // Checked before anything is looked up: a repeat never depends on the copy.
            let mut entries = if resolve { Vec::new() } else { build(&actor(&session), &body)? };
            let locate = entries.iter().any(|e| e.reserve.is_some());
            if resolve || locate {
                // a repeat gets its first answer, whatever the copy knows now
                if let Some(k) = &key
                    && let Some(record) = state.outbox.key_record(division, &k.scope).map_err(AppError::internal)?
                {
                    return repeat(&state, division, k, record).await;
                }
                let store = state.stores.get(division)?;
                if resolve {
                    let s = store.clone();
                    body = super::blocking(move || references::resolve(&s, body)).await?;
                    entries = build(&actor(&session), &body)?;
                }
                if entries.iter().any(|e| e.reserve.is_some()) {
                    entries = super::blocking(move || {
                        reserve::locate(&store, &mut entries).map_err(|e| match e {
                            reserve::LocateError::NotFound(_) => AppError::bad_request(e.to_string()),
                            reserve::LocateError::Store(s) => AppError::from(s),
                        })?;
                        Ok(entries)
                    })
                    .await?;
                }
            }
            // Storage locations the copy knows Exact would refuse: a 400 now, not a failed entry
            // (a repeat gets its first answer, whatever the copy knows now).
            if locations::concerns(&entries) {
                if let Some(k) = &key
                    && let Some(record) = state.outbox.key_record(division, &k.scope).map_err(AppError::internal)?
                {
                    return repeat(&state, division, k, record).await;
                }
                let store = state.stores.get(division)?;
                entries = super::blocking(move || locations::check(&store, &entries).map(|()| entries)).await?;
            }
            queue(&state, &session, entries, q.wait, key, None).await
        })
    }
}

/// The handler of the generic write with `method`.
fn generic(
    method: Method,
) -> impl Fn(web::Data<AppState>, Session, IdempotencyKey, web::Path<String>, Wait, Body) -> Answer + Clone + 'static {
    move |state, session, key, kind, q, body| {
        Box::pin(async move {
            let entries = actions::generic(&actor(&session), &kind, method, &body)?;
            if q.timer.is_some() && !(kind.as_str() == "timeTransactions" && method == Method::Post) {
                return Err(AppError::bad_request("'timer' goes only with a new booking of hours (timeTransactions)"));
            }
            let key = key.for_write(&session, Some(&body));
            queue(&state, &session, entries, q.wait, key, q.timer.as_deref()).await
        })
    }
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct DeleteQuery {
    /// `warehouseTransfers`, `stockCounts` or `timeTransactions`.
    #[param(example = "timeTransactions")]
    endpoint: String,
    /// The entity's ID.
    #[param(example = "0badc0de-0000-4000-8000-00000000000b")]
    id: String,
    /// Seconds to wait for the provider's answer (at most 30); 0 answers at once.
    #[serde(default)]
    #[param(maximum = 30)]
    wait: u64,
}

async fn delete(
    state: web::Data<AppState>,
    session: Session,
    key: IdempotencyKey,
    q: web::Query<DeleteQuery>,
) -> AppResult<HttpResponse> {
    let entries = actions::delete(&actor(&session), &q.endpoint, &q.id)?;
    queue(&state, &session, entries, q.wait, key.for_write(&session, None), None).await
}

async fn list(state: web::Data<AppState>, session: Session) -> AppResult<HttpResponse> {
    let mut entries = state.outbox.list(session.record.division).map_err(AppError::internal)?;
    entries.reverse();
    let counts = QueueCounts::of(&entries);
    Ok(HttpResponse::Ok().json(OutboxList { pending: counts.pending, failed: counts.failed, entries }))
}

fn entry_id(raw: &str) -> AppResult<u64> {
    raw.parse().map_err(|_| AppError::bad_request(format!("'{raw}' is not an outbox entry number")))
}

async fn one(state: web::Data<AppState>, session: Session, id: web::Path<String>) -> AppResult<HttpResponse> {
    let id = entry_id(&id)?;
    let e = state.outbox.get(session.record.division, id).map_err(AppError::internal)?;
    e.map(|e| HttpResponse::Ok().json(e)).ok_or_else(|| AppError::new(Code::NotFound))
}

/// Only whoever booked an entry, or an administrator, retries or discards it: a worker cannot
/// drop another's booking (or send it again) from the shared outbox.
fn may_change(state: &AppState, session: &Session, id: u64) -> AppResult<()> {
    let entry = state.outbox.get(session.record.division, id).map_err(AppError::internal)?;
    let theirs = entry.is_some_and(|e| !e.user.eq_ignore_ascii_case(&session.record.user));
    if theirs && !session.administrator(&state.config.admin) {
        return Err(AppError::said(Code::AdminOnly, Text::OutboxOnlyOwnEntries));
    }
    Ok(())
}

async fn retry(state: web::Data<AppState>, session: Session, id: web::Path<String>) -> AppResult<HttpResponse> {
    let id = entry_id(&id)?;
    may_change(&state, &session, id)?;
    match state.outbox.retry(session.record.division, id).map_err(AppError::internal)? {
        Some(e) => Ok(HttpResponse::Accepted().json(e)),
        None => Err(AppError::said(Code::NotFound, Text::OutboxNoFailedEntry)),
    }
}

async fn discard(state: web::Data<AppState>, session: Session, id: web::Path<String>) -> AppResult<HttpResponse> {
    let id = entry_id(&id)?;
    may_change(&state, &session, id)?;
    if state.outbox.discard(session.record.division, id).map_err(AppError::internal)? {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(AppError::said(Code::NotFound, Text::OutboxNoFailedOrWaitingEntry))
    }
}

/// Which refused entries to discard: every one the caller may discard (`state`), or those named.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct DiscardBody {
    /// `failed`: every refused entry the caller booked (every one, for an administrator).
    #[schema(example = "failed")]
    state: Option<State>,
    /// Entry numbers (at most 200); those that are not refused are left alone.
    #[schema(example = json!([41, 42]))]
    ids: Option<Vec<u64>>,
}

/// How many refused entries went.
#[derive(Serialize, ToSchema)]
struct Discarded {
    #[schema(example = 2)]
    discarded: usize,
}

/// Discards refused entries in bulk, under the rule of [`may_change`]: a user who is not an
/// administrator discards only their own; naming another's entry is refused as a whole.
async fn discard_refused(
    state: web::Data<AppState>,
    session: Session,
    body: web::Json<DiscardBody>,
) -> AppResult<HttpResponse> {
    let division = session.record.division;
    let author = (!session.administrator(&state.config.admin)).then_some(session.record.user.as_str());
    let ids = match body.into_inner() {
        DiscardBody { state: Some(State::Failed), ids: None } => None,
        DiscardBody { state: None, ids: Some(ids) } => {
            if ids.len() > MAX_ENTRIES {
                return Err(AppError::said(Code::TooManyEntries, Text::OutboxDiscardAtMost { max: MAX_ENTRIES }));
            }
            for id in &ids {
                may_change(&state, &session, *id)?;
            }
            Some(ids)
        }
        _ => return Err(AppError::bad_request("Give either \"state\": \"failed\" or \"ids\"")),
    };
    let discarded = state.outbox.discard_refused(division, ids.as_deref(), author).map_err(AppError::internal)?;
    Ok(HttpResponse::Ok().json(Discarded { discarded }))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct DirectQuery {
    /// A provider path of the session's division, relative or absolute, with its query.
    #[param(example = "manufacturing/ShopOrders?$select=ID,ShopOrderNumber&$filter=Status eq 10")]
    url: String,
}

/// What `urlDirect` answers: the provider's rows under `responseDirect`.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DirectAnswer {
    pub response_direct: DirectRows,
}

/// Every row of every page the provider gave.
#[derive(Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DirectRows {
    /// The provider's records, as it sent them.
    #[schema(value_type = Vec<Object>, example = json!([{"ID": "0badc0de-0000-4000-8000-000000000002", "ShopOrderNumber": 24005}]))]
    pub results: Vec<Value>,
    /// Only on a last known answer served during an outage: when it was fetched (epoch ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = 1_780_000_000_000_i64)]
    pub as_of: Option<i64>,
}

/// `GET /exact/urlDirect?url=…`: a provider path of the session's division (relative, or absolute on
/// the configured host), every page followed. Answers `{responseDirect: {results: [...]}}`;
/// during an outage its last known answer with `asOf` (and `X-Data-As-Of`), or `provider_unreachable`.
async fn url_direct(
    req: HttpRequest,
    state: web::Data<AppState>,
    session: Session,
    q: web::Query<DirectQuery>,
) -> AppResult<HttpResponse> {
    let division = session.record.division;
    if q.url.trim().is_empty() {
        return Err(AppError::bad_request("'url' must be a path of Exact Online's API, e.g. logistics/Items"));
    }
    // Only this division on the configured host: no reads of other organizations, no token elsewhere.
    let url = direct_url(state.exact.base_url(), division, &q.url).ok_or_else(|| {
        tracing::warn!(division, "urlDirect refused a path outside the session's division");
        AppError::with_message(Code::Forbidden, "Only paths of your own division on Exact Online can be read")
    })?;
    // During an outage the last known answer of this URL is served, marked with when it was
    // fetched (`crate::live::direct`).
    // Held until answered, or dropped with the read when its client goes away.
    let live = state.live();
    let _slot = crate::live::read_slot(&live, &session.record.user).await?;
    let read = unless_gone(&req, direct::read(&live, division, session.record.user.clone(), url)).await?;
    let mut res = HttpResponse::Ok();
    res.content_type("application/json");
    if let Some(t) = read.as_of {
        res.insert_header((AS_OF_HEADER, t.to_string()));
    }
    Ok(res.body(direct_answer(&read.body, read.as_of)))
}

/// Rounds of percent-decoding a urlDirect path may need before it stops changing.
const MAX_DECODE_ROUNDS: usize = 4;

/// The provider URL a urlDirect read of `raw` may call: a path (relative, or absolute on the
/// configured host) under `{base}/api/v1/{division}/`, or `None`. The path is judged as the
/// provider would see it: percent-decoded until stable, with no `.`/`..` segment, empty segment,
/// backslash, control character or escaped separator left; the URL finally built is parsed the
/// way the HTTP client will send it and must still lie under the division.
fn direct_url(base: &str, division: i64, raw: &str) -> Option<String> {
    let own = format!("{base}/api/v1/{division}/");
    let lower = raw.get(..8).unwrap_or(raw).to_ascii_lowercase();
    let rest = if lower.starts_with("http://") || lower.starts_with("https://") {
        raw.strip_prefix(&own)?
    } else {
        raw.strip_prefix('/').unwrap_or(raw)
    };
    let (path, query) = match rest.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (rest, None),
    };
    let mut decoded = path.to_string();
    for _ in 0..MAX_DECODE_ROUNDS {
        let next = urlencoding::decode(&decoded).ok()?.into_owned();
        if next == decoded {
            break;
        }
        decoded = next;
    }
    if urlencoding::decode(&decoded).ok()? != decoded {
        return None;
    }
    let separators = |s: &str| s.chars().filter(|c| matches!(c, '/' | '\\' | '?' | '#')).count();
    let unsafe_char = |c: char| c.is_control() || c == '\\';
    let dots = |seg: &str| !seg.is_empty() && seg.trim().chars().all(|c| c == '.');
    if separators(&decoded) != separators(path)
        || decoded.chars().any(unsafe_char)
        || decoded.split('/').any(|seg| dots(seg) || seg.trim().is_empty() && !decoded.is_empty())
    {
        return None;
    }
    let url = match query {
        Some(q) => format!("{own}{path}?{q}"),
        None => format!("{own}{path}"),
    };
    // What the HTTP client will request, after its own normalisation.
    let (sent, allowed) = (url::Url::parse(&url).ok()?, url::Url::parse(&own).ok()?);
    (sent.origin() == allowed.origin() && sent.path().starts_with(allowed.path())).then_some(url)
}

/// `{"responseDirect": BODY}`, with `"asOf"` added to BODY (`{"results"}`) when it
/// is a last known answer rather than a fresh one.
fn direct_answer(body: &[u8], as_of: Option<i64>) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 48);
    out.extend_from_slice(b"{\"responseDirect\":");
    match (as_of, body.strip_suffix(b"}")) {
        (Some(t), Some(open)) => {
            out.extend_from_slice(open);
            out.extend_from_slice(format!(",\"asOf\":{t}}}").as_bytes());
        }
        _ => out.extend_from_slice(body),
    }
    out.push(b'}');
    out
}

#[cfg(test)]
mod tests {
    use super::{DirectAnswer, direct_answer, direct_url};

    const BASE: &str = "https://start.exactonline.nl";

    #[test]
    fn direct_reads_stay_in_the_sessions_division() {
        let own = |p: &str| Some(format!("{BASE}/api/v1/7/{p}"));
        assert_eq!(
            direct_url(BASE, 7, "manufacturing/Operations?$select=ID"),
            own("manufacturing/Operations?$select=ID")
        );
        assert_eq!(direct_url(BASE, 7, "/logistics/Items"), own("logistics/Items"));
        assert_eq!(direct_url(BASE, 7, &format!("{BASE}/api/v1/7/project/Projects")), own("project/Projects"));
        assert_eq!(
            direct_url(BASE, 7, "logistics/Items(guid%27abc%27)?$filter=Code eq 'a/../b%2F'"),
            own("logistics/Items(guid%27abc%27)?$filter=Code eq 'a/../b%2F'"),
            "the query is the provider's business"
        );
        for bad in [
            "../8/project/Projects",
            "%2e%2e/8/project/Projects",
            "%2E%2e/8/x",
            "..%2f8/x",
            "..%2F8/x",
            "%252e%252e/8/x",
            "%25252e%25252e/8/x",
            "%2525252e%2525252e/8/x",
            "x/./y",
            "x/%2e/y",
            ".%2e/8/x",
            "x//y",
            "//evil.example/x",
            "x\\..\\..\\8",
            "x%5c..%5c8",
            "x%00y",
            "x%0d%0aHost:%20evil",
            "x%3f/../../8",
            "x%23/../../8",
            "https://evil.example/api/v1/7/x",
            "https://start.exactonline.nl.evil.example/api/v1/7/x",
            "https://start.exactonline.nl/api/v1/8/x",
            "https://start.exactonline.nl/api/v1/7/../8/x",
            "https://start.exactonline.nl/api/v1/7/%2e%2e/8/x",
            "http://start.exactonline.nl/api/v1/7/x",
            "%ff%fe",
        ] {
            assert_eq!(direct_url(BASE, 7, bad), None, "{bad}");
        }
    }

    #[test]
    fn direct_answers_are_the_documented_shape() {
        let body = r#"{"results":[{"ID":"a","Code":"Ø-10","Stock":2.5}]}"#.as_bytes();
        let fresh: DirectAnswer = serde_json::from_slice(&direct_answer(body, None)).expect("the documented shape");
        assert_eq!((fresh.response_direct.results.len(), fresh.response_direct.as_of), (1, None));
        let kept = direct_answer(body, Some(1_780_000_000_000));
        let old: DirectAnswer = serde_json::from_slice(&kept).expect("the documented shape");
        assert_eq!(old.response_direct.as_of, Some(1_780_000_000_000));
        assert_eq!(serde_json::to_vec(&old).expect("serializes"), kept, "the type writes what the handler sends");
    }
}
