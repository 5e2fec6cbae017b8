//! Write-back (full access, spec §7): the named write calls and the generic allow-listed ones
//! queue entries in the organization's outbox (`crate::outbox`) and answer with them; `?wait=N`
//! waits up to N seconds (max 30) for the provider's answer. `GET /outbox` lists entries; a failed
//! one can be retried or discarded. Every call that queues takes an `Idempotency-Key` header
//! (`idempotency`): a booking sent twice is queued once and answered the first answer again. `GET /exact/urlDirect` reads any provider path of the
//! session's division, following `__next`, under the live-read deadline (`crate::live`).

use super::hours::{self, Claimed};
use super::idempotency::{self, IdempotencyKey, RequestKey};
use super::router::Router;
use crate::auth::tier::Session;
use crate::error::{AppError, AppResult, Code};
use crate::live::{AS_OF_HEADER, direct};
use crate::outbox::actions::{self, Actor, Invalid};
use crate::outbox::store::{KeptAnswer, KeyRecord};
use crate::outbox::{Entry, KeyState, Keyed, Method, QueueCounts, State};
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

pub fn routes(r: &mut Router) {
    r.full("/exact/updateShopOrder", |res| res.put(named(actions::update_shop_order)).keyed());
    r.full("/exact/updateSalesOrderLine", |res| res.put(named(actions::update_sales_order_line)).keyed());
    r.full("/exact/updateMaterialsIssues", |res| res.post(named(actions::material_issues)).keyed());
    r.full("/exact/createStockCount", |res| res.post(named(actions::stock_count)).keyed());
    r.full("/exact/createGoodsReceipt", |res| res.post(named(actions::goods_receipt)).keyed());
    r.full("/exact/createShopOrderReceipt", |res| res.post(named(actions::shop_order_receipt)).keyed());
    r.full("/exact/createWarehouseTransfer", |res| res.post(named(actions::warehouse_transfer)).keyed());
    r.full("/exact/deleteDataFromExact", |res| res.delete(delete).keyed());
    r.full("/exact/urlDirect", |res| res.get(url_direct));
    r.full("/exact/{kind}", |res| res.post(generic(Method::Post)).put(generic(Method::Put)).keyed());
    r.full("/outbox", |res| res.get(list));
    r.full("/outbox/{id}", |res| res.get(one).delete(discard));
    r.full("/outbox/{id}/retry", |res| res.post(retry));
}

/// The longest a caller may wait for the provider's answer.
const MAX_WAIT_SECS: u64 = 30;

#[derive(Deserialize, Default)]
struct WaitQuery {
    #[serde(default)]
    wait: u64,
    /// The operator timer whose hours a `timeTransactions` POST books: taken off the running
    /// timers as the booking is queued (`hours::claim`).
    #[serde(default)]
    timer: Option<String>,
}

impl From<Invalid> for AppError {
    fn from(e: Invalid) -> Self {
        if e.0 == Code::EmptyPayload.message() { AppError::new(Code::EmptyPayload) } else { AppError::bad_request(e.0) }
    }
}

fn actor(session: &Session) -> Actor {
    Actor { user: session.record.user.clone(), user_name: session.record.user_name.clone() }
}

/// What a write answers: the overall state and its entries (200 delivered, 202 on its way,
/// 422 refused with the provider's message).
#[derive(Serialize)]
struct WriteView {
    state: State,
    error: Option<String>,
    entries: Vec<Entry>,
}

/// How often a repeated idempotency key looks whether its first request has been answered.
const REPEAT_POLL: Duration = Duration::from_millis(50);
/// The longest a repeat waits for its first request's answer: that one waits at most
/// `MAX_WAIT_SECS` per entry, so this is only reached by something stuck.
const REPEAT_MAX_WAIT: Duration = Duration::from_secs(300);

async fn queue(
    state: &AppState,
    session: &Session,
    entries: Vec<Entry>,
    wait: u64,
    key: Option<RequestKey>,
    timer: Option<&str>,
) -> AppResult<HttpResponse> {
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
                    return Err(AppError::with_message(
                        Code::NotFound,
                        "The write made with this Idempotency-Key is no longer in the outbox",
                    ));
                }
                let answer = answer_of(entries)?;
                let kept =
                    state.outbox.keep_answer(division, &key.scope, answer.clone()).map_err(AppError::internal)?;
                return idempotency::respond(kept.unwrap_or(answer), true);
            }
            // Expired between the two looks (a week old): not to be booked again blind.
            KeyState::Gone => {
                return Err(AppError::with_message(Code::NotFound, "This Idempotency-Key is no longer known"));
            }
            KeyState::Answering if tokio::time::Instant::now() >= deadline => {
                return Err(AppError::with_message(
                    Code::Unavailable,
                    "The first request with this Idempotency-Key is still being answered; try again shortly",
                ));
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
) -> impl Fn(web::Data<AppState>, Session, IdempotencyKey, Wait, Body) -> Answer + Clone + 'static {
    move |state, session, key, q, body| {
        Box::pin(async move {
            let entries = build(&actor(&session), &body)?;
            if q.timer.is_some() {
                return Err(AppError::bad_request("'timer' goes only with a booking of hours (timeTransactions)"));
            }
            queue(&state, &session, entries, q.wait, key.for_write(&session, Some(&body)), None).await
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

#[derive(Deserialize)]
struct DeleteQuery {
    endpoint: String,
    id: String,
    #[serde(default)]
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
    Ok(HttpResponse::Ok().json(json!({"pending": counts.pending, "failed": counts.failed, "entries": entries})))
}

fn entry_id(raw: &str) -> AppResult<u64> {
    raw.parse().map_err(|_| AppError::bad_request(format!("'{raw}' is not an outbox entry number")))
}

async fn one(state: web::Data<AppState>, session: Session, id: web::Path<String>) -> AppResult<HttpResponse> {
    let id = entry_id(&id)?;
    let e = state.outbox.get(session.record.division, id).map_err(AppError::internal)?;
    e.map(|e| HttpResponse::Ok().json(e)).ok_or_else(|| AppError::new(Code::NotFound))
}

async fn retry(state: web::Data<AppState>, session: Session, id: web::Path<String>) -> AppResult<HttpResponse> {
    let id = entry_id(&id)?;
    match state.outbox.retry(session.record.division, id).map_err(AppError::internal)? {
        Some(e) => Ok(HttpResponse::Accepted().json(e)),
        None => Err(AppError::with_message(Code::NotFound, "No failed entry with that number")),
    }
}

async fn discard(state: web::Data<AppState>, session: Session, id: web::Path<String>) -> AppResult<HttpResponse> {
    let id = entry_id(&id)?;
    if state.outbox.discard(session.record.division, id).map_err(AppError::internal)? {
        Ok(HttpResponse::NoContent().finish())
    } else {
        Err(AppError::with_message(Code::NotFound, "No failed or waiting entry with that number"))
    }
}

#[derive(Deserialize)]
struct DirectQuery {
    url: String,
}

/// `GET /exact/urlDirect?url=…`: a provider path of the session's division (relative, or absolute on
/// the configured host), every page followed. Answers `{responseDirect: {results: [...]}}`;
/// during an outage its last known answer with `asOf` (and `X-Data-As-Of`), or `provider_unreachable`.
async fn url_direct(
    state: web::Data<AppState>,
    session: Session,
    q: web::Query<DirectQuery>,
) -> AppResult<HttpResponse> {
    let division = session.record.division;
    // Only this division on the configured host: no reads of other organizations, no token elsewhere.
    let url = direct_url(state.exact.base_url(), division, &q.url).ok_or_else(|| {
        tracing::warn!(division, "urlDirect refused a path outside the session's division");
        AppError::with_message(Code::Forbidden, "Only paths of your own division on Exact Online can be read")
    })?;
    // During an outage the last known answer of this URL is served, marked with when it was
    // fetched (`crate::live::direct`).
    let read = direct::read(&state, division, session.record.user.clone(), url).await?;
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
    use super::direct_url;

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
}
