//! HTTP front: routes the provider's URLs to OAuth, OData reads, writes, pictures and control.

use super::faults::Fault;
use super::odata::{self, ODataError, UriBase};
use super::{SimState, control, pictures, writes};
use actix_web::http::StatusCode;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use esm_exact::schema::{self, Entity, Kind};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

pub type St = web::Data<Arc<SimState>>;

/// The provider's URL limit, counted after URL-encoding (path and query).
pub const MAX_URL_LEN: usize = 6000;

pub fn serve(
    state: Arc<SimState>,
    listener: std::net::TcpListener,
    workers: usize,
) -> anyhow::Result<actix_web::dev::Server> {
    let data = web::Data::new(state);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .app_data(web::PayloadConfig::new(10 * 1024 * 1024))
            .configure(control::configure)
            .route("/api/oauth2/auth", web::get().to(sign_in_page))
            .route("/api/oauth2/auth", web::post().to(sign_in))
            .route("/api/oauth2/token", web::post().to(token))
            .route("/docs/SysImage.aspx", web::get().to(picture))
            .default_service(web::to(api))
    })
    .workers(workers)
    // a stop waits this long for answers under way: at scale large one page of a sync takes the
    // simulator seconds, and actix's default of 30 s held `demo` that long after a SIGTERM
    .shutdown_timeout(1)
    .disable_signals()
    .listen(listener)?
    .run();
    Ok(server)
}

/// The provider's error JSON.
pub fn error(status: u16, message: &str) -> HttpResponse {
    let body = serde_json::json!({"error": {"code": "", "message": {"lang": "", "value": message}}});
    HttpResponse::build(StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST))
        .content_type("application/json; charset=utf-8")
        .body(body.to_string())
}

/// A response whose body fails mid-stream: the client sees the connection drop.
fn dropped() -> HttpResponse {
    let stream = futures_util::stream::once(async {
        Err::<web::Bytes, std::io::Error>(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "dropped by fault injection",
        ))
    });
    HttpResponse::Ok().content_type("application/json").streaming(stream)
}

fn not_serving(st: &SimState) -> bool {
    !st.serving.load(Ordering::SeqCst)
}

async fn sign_in_page(req: HttpRequest, st: St) -> HttpResponse {
    if not_serving(&st) {
        return dropped();
    }
    let q: HashMap<String, String> = odata::decode_pairs(req.query_string()).into_iter().collect();
    let get = |k: &str| q.get(k).cloned().unwrap_or_default();
    if get("client_id") != st.oauth.lock().client_id {
        return HttpResponse::BadRequest().content_type("text/html; charset=utf-8").body("<h1>Unknown client</h1>");
    }
    let esc = super::value::xml_escape;
    let mut users = String::new();
    for (i, u) in st.users.iter().enumerate() {
        let checked = if i == 0 { " checked" } else { "" };
        users.push_str(&format!(
            "<label><input type=\"radio\" name=\"user\" value=\"{i}\"{checked}> {} ({})</label><br>\n",
            esc(&u.full_name()),
            esc(&u.user_name)
        ));
    }
    let hidden = |k: &str| format!("<input type=\"hidden\" name=\"{k}\" value=\"{}\">", esc(&get(k)));
    let html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Exact Online (simulator) - Sign in</title></head><body>\
         <h1>Exact Online simulator</h1><p>Choose a demo user and approve access for this app.</p>\
         <form method=\"post\" action=\"/api/oauth2/auth\">{}{}{}{}\n{users}<button type=\"submit\" name=\"approve\" value=\"1\">Approve</button></form></body></html>",
        hidden("client_id"),
        hidden("redirect_uri"),
        hidden("state"),
        hidden("response_type"),
    );
    HttpResponse::Ok().content_type("text/html; charset=utf-8").body(html)
}

async fn sign_in(body: web::Bytes, st: St) -> HttpResponse {
    if not_serving(&st) {
        return dropped();
    }
    let form: HashMap<String, String> = odata::decode_pairs(&String::from_utf8_lossy(&body)).into_iter().collect();
    let get = |k: &str| form.get(k).cloned().unwrap_or_default();
    let user: usize = get("user").parse().unwrap_or(0);
    if user >= st.users.len() || get("client_id") != st.oauth.lock().client_id {
        return HttpResponse::BadRequest().body("Invalid sign-in");
    }
    let redirect = get("redirect_uri");
    if url::Url::parse(&redirect).is_err() {
        return HttpResponse::BadRequest().body("Invalid redirect_uri");
    }
    let code = st.oauth.lock().issue_code(user, &redirect, st.clock.now_ms());
    let sep = if redirect.contains('?') { '&' } else { '?' };
    let location =
        format!("{redirect}{sep}code={}&state={}", urlencoding::encode(&code), urlencoding::encode(&get("state")));
    HttpResponse::Found().insert_header(("Location", location)).finish()
}

async fn token(body: web::Bytes, st: St) -> HttpResponse {
    if not_serving(&st) {
        return dropped();
    }
    st.counters.lock().token_calls += 1;
    let latency = st.faults.lock().token_latency_ms;
    if latency > 0 {
        actix_web::rt::time::sleep(std::time::Duration::from_millis(latency)).await;
    }
    let form: HashMap<String, String> = odata::decode_pairs(&String::from_utf8_lossy(&body)).into_iter().collect();
    let result = st.oauth.lock().token(&form, st.clock.now_ms());
    match result {
        Ok(t) => HttpResponse::Ok().content_type("application/json").json(t),
        Err(e) => {
            let mut r = HttpResponse::build(StatusCode::from_u16(e.status).unwrap_or(StatusCode::BAD_REQUEST));
            if let Some(reason) = &e.reason {
                r.insert_header(("Reason", reason.as_str()));
            }
            r.content_type("application/json").body(e.body())
        }
    }
}

fn bearer_user(req: &HttpRequest, st: &SimState) -> Option<usize> {
    let h = req.headers().get("Authorization")?.to_str().ok()?;
    let (scheme, token) = h.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    st.oauth.lock().user_of(token.trim(), st.clock.now_ms())
}

async fn picture(req: HttpRequest, st: St) -> HttpResponse {
    if not_serving(&st) {
        return dropped();
    }
    if bearer_user(&req, &st).is_none() {
        return error(401, "Unauthorized");
    }
    let q: HashMap<String, String> = odata::decode_pairs(req.query_string()).into_iter().collect();
    let id = q.get("ID").and_then(|s| uuid::Uuid::parse_str(s).ok()).map(|u| u.as_u128());
    let div = q.get("_Division_").and_then(|s| s.parse::<i32>().ok()).and_then(|d| st.division_index(d));
    let thumb = q.get("ThumbSize").and_then(|s| s.parse::<u32>().ok()).unwrap_or(500).clamp(16, 500);
    let (Some(id), Some(div)) = (id, div) else { return error(404, "Not found") };
    let has = st.data[div].read().table("logistics/Items").and_then(|t| t.get(id)).is_some();
    if !has {
        return error(404, "Not found");
    }
    if st.faults.lock().draw_picture_error() {
        st.counters.lock().sent_500 += 1;
        return error(500, "An error occurred while processing the image.");
    }
    st.counters.lock().pictures += 1;
    let (bytes, mime) = pictures::render(id, thumb);
    HttpResponse::Ok().content_type(mime).body(bytes)
}

/// Does the client accept JSON? Without it the provider answers Atom/XML.
fn wants_json(req: &HttpRequest) -> bool {
    req.headers().get("Accept").and_then(|h| h.to_str().ok()).is_some_and(|a| a.contains("json"))
}

struct Target<'a> {
    division: Option<i32>,
    entity: &'static Entity,
    key: Option<&'a str>,
    count: bool,
}

/// `/api/v1/{division}/{path}[(key)][/$count]` -> the entity it names.
fn route(rest: &str) -> Result<Target<'_>, ODataError> {
    let not_found = || ODataError { status: 404, message: "Not found".into() };
    let (first, path) = rest.split_once('/').ok_or_else(not_found)?;
    let division =
        if first.eq_ignore_ascii_case("current") { None } else { Some(first.parse::<i32>().map_err(|_| not_found())?) };
    let (path, count) = match path.strip_suffix("/$count") {
        Some(p) => (p, true),
        None => (path, false),
    };
    let (path, key) = match path.find('(') {
        Some(i) if path.ends_with(')') => (&path[..i], Some(&path[i + 1..path.len() - 1])),
        _ => (path, None),
    };
    let full = if division.is_none() { format!("current/{path}") } else { path.to_string() };
    let entity = schema::entity(&full).ok_or_else(not_found)?;
    Ok(Target { division, entity, key, count })
}

async fn api(req: HttpRequest, body: web::Bytes, st: St) -> HttpResponse {
    if not_serving(&st) {
        return dropped();
    }
    let Some(rest) = req.path().strip_prefix("/api/v1/") else { return HttpResponse::NotFound().body("Not found") };
    if req.uri().to_string().len() > MAX_URL_LEN {
        return error(400, "The request URL is too long (maximum 6000 characters after URL-encoding).");
    }
    let target = match route(rest) {
        Ok(t) => t,
        Err(e) => return error(e.status, &e.message),
    };
    let Some(user) = bearer_user(&req, &st) else {
        st.counters.lock().sent_401 += 1;
        return error(401, "Unauthorized");
    };

    let now = st.clock.now_ms();
    {
        let mut c = st.counters.lock();
        c.calls += 1;
        let minute = now - now.rem_euclid(60_000);
        *c.all_calls_per_minute.entry(minute).or_default() += 1;
        c.all_calls_per_minute.retain(|m, _| *m > minute - 3_600_000);
        if let Some(div) = target.division {
            *c.calls_per_minute.entry(format!("{div}@{minute}")).or_default() += 1;
            if c.calls_per_minute.len() > 1000 {
                let recent =
                    |k: &String| k.rsplit('@').next().and_then(|m| m.parse::<i64>().ok()) > Some(minute - 3_600_000);
                c.calls_per_minute.retain(|k, _| recent(k));
            }
        }
    }
    let (latency, fault) = {
        let mut f = st.faults.lock();
        (f.latency_ms, f.draw(rand::random::<f64>(), target.division.is_some()))
    };
    if latency > 0 {
        actix_web::rt::time::sleep(std::time::Duration::from_millis(latency)).await;
    }
    let mut limit_headers = Vec::new();
    if let Some(div) = target.division {
        if fault == Fault::TooMany {
            st.counters.lock().sent_429 += 1;
            return error(429, "API rate limit exceeded.");
        }
        if st.rate_limits_on.load(Ordering::SeqCst) {
            let verdict = st.limits.lock().check(div, now);
            if verdict.refused {
                st.counters.lock().sent_429 += 1;
                let mut r = error(429, "API rate limit exceeded.");
                for (k, v) in verdict.headers {
                    if let Ok(v) = actix_web::http::header::HeaderValue::from_str(&v) {
                        r.headers_mut().insert(actix_web::http::header::HeaderName::from_static(lower(k)), v);
                    }
                }
                return r;
            }
            limit_headers = verdict.headers;
        }
    }
    match fault {
        Fault::Drop => {
            st.counters.lock().dropped += 1;
            return dropped();
        }
        Fault::Error500 => {
            st.counters.lock().sent_500 += 1;
            return error(500, "Internal server error");
        }
        _ => {}
    }
    let mut resp = handle(&req, &body, &st, &target, user);
    for (k, v) in limit_headers {
        if let Ok(v) = actix_web::http::header::HeaderValue::from_str(&v) {
            resp.headers_mut().insert(actix_web::http::header::HeaderName::from_static(lower(k)), v);
        }
    }
    if fault == Fault::Malformed && resp.status().is_success() {
        return HttpResponse::build(resp.status())
            .content_type("application/json")
            .body("{\"d\":{\"results\":[{\"__metadata\":");
    }
    resp
}

/// Header names must be lower-case for `HeaderName::from_static`.
fn lower(k: &'static str) -> &'static str {
    match k {
        "X-RateLimit-Limit" => "x-ratelimit-limit",
        "X-RateLimit-Remaining" => "x-ratelimit-remaining",
        "X-RateLimit-Reset" => "x-ratelimit-reset",
        "X-RateLimit-Minutely-Limit" => "x-ratelimit-minutely-limit",
        "X-RateLimit-Minutely-Remaining" => "x-ratelimit-minutely-remaining",
        _ => "x-ratelimit-minutely-reset",
    }
}

fn handle(req: &HttpRequest, body: &[u8], st: &SimState, t: &Target<'_>, user: usize) -> HttpResponse {
    let method = req.method().as_str();
    let e = t.entity;
    if !e.methods.allows(method) {
        return error(405, &format!("The HTTP verb '{method}' is not allowed on this endpoint."));
    }
    let Some(division) = t.division else {
        return control::me(st, user, wants_json(req));
    };
    let Some(di) = st.division_index(division) else {
        let mut r = error(403, "You do not have access to this division.");
        r.headers_mut().insert(
            actix_web::http::header::HeaderName::from_static("reason"),
            actix_web::http::header::HeaderValue::from_static("NoDivisionAccess"),
        );
        return r;
    };
    if e.path == "system/Divisions" {
        return control::divisions(st, division, wants_json(req));
    }
    if e.path == "hrm/Divisions" {
        return control::hrm_divisions(st, e, division, t.key, req.query_string(), wants_json(req));
    }
    match method {
        "GET" => read(req, st, di, division, t),
        "POST" | "PUT" | "DELETE" => {
            if let Some(gone) = sends_removed(st, e, body) {
                return refused(st, &odata::removed_property(e, gone));
            }
            let now = st.clock.cet_ms();
            let api_user = st.users.get(user).map_or(0, |u| u.id);
            let result = {
                let mut d = st.data[di].write();
                d.now_ms = now;
                d.api_user = api_user;
                writes::apply(&mut d, e, method, t.key, body)
            };
            match result {
                Ok(Some(key)) => {
                    count_write(st, method, e);
                    let d = st.data[di].read();
                    let table = d.table(super::store::table_of(e));
                    match table {
                        Some(table) => {
                            let mut out = String::from("{\"d\":");
                            let all: Vec<usize> = (0..e.fields.len()).collect();
                            let u = UriBase { base_url: &st.base_url, division };
                            odata::write_row(&mut out, &u, table, key, &odata::Projection::new(e, table, &all));
                            out.push('}');
                            HttpResponse::Created().content_type("application/json; charset=utf-8").body(out)
                        }
                        None => HttpResponse::Created().finish(),
                    }
                }
                Ok(None) => {
                    count_write(st, method, e);
                    HttpResponse::NoContent().finish()
                }
                Err(err) => error(err.status, &err.message),
            }
        }
        _ => error(405, "Method not allowed"),
    }
}

/// A refused query or write; refusals for a removed property are counted.
fn refused(st: &SimState, err: &ODataError) -> HttpResponse {
    if err.message.contains(odata::REMOVED_PROPERTY) {
        st.counters.lock().removed_refusals += 1;
    }
    error(err.status, &err.message)
}

/// The first property of a write body that was removed from the entity (reference §17: a write
/// that sends one is refused like a read that selects one).
fn sends_removed(st: &SimState, e: &Entity, body: &[u8]) -> Option<&'static str> {
    let removed = st.removed_from(e);
    if removed.is_empty() {
        return None;
    }
    let sent: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(body).ok()?;
    removed.into_iter().find(|name| sent.contains_key(*name))
}

fn count_write(st: &SimState, method: &str, e: &Entity) {
    *st.counters.lock().writes.entry(format!("{method} {}", e.path)).or_default() += 1;
}

fn read(req: &HttpRequest, st: &SimState, di: usize, division: i32, t: &Target<'_>) -> HttpResponse {
    let e = t.entity;
    let d = st.data[di].read();
    let Some(table) = d.table(super::store::table_of(e)) else { return error(404, "Not found") };
    let u = UriBase { base_url: &st.base_url, division };
    let json = wants_json(req);
    let removed = st.removed_from(e);
    if let Some(key) = t.key {
        let key = match odata::parse::parse_filter(key) {
            Ok(odata::parse::Expr::Lit(v)) => v,
            _ => return error(400, odata::parse::SYNTAX_ERROR),
        };
        let found = match (&key, e.kind) {
            (v, Kind::Sync) => v.as_i64().and_then(|ts| table.by_ts.get(&ts).copied()),
            (super::value::Val::Guid(g), _) => table.get(g.get()).map(|_| g.get()),
            _ => None,
        };
        let Some(k) = found else { return error(404, "Not found") };
        let q = match odata::parse_query_without(e, table, req.query_string(), &removed) {
            Ok(q) => q,
            // A key lookup does not need a $filter (mandatory filtering is about collections).
            Err(err) if err.message.starts_with("A GET request") => {
                match odata::parse_query_without(e, table, &format!("{}&$filter=true", req.query_string()), &removed) {
                    Ok(q) => q,
                    Err(err) => return refused(st, &err),
                }
            }
            Err(err) => return refused(st, &err),
        };
        let mut out = String::from("{\"d\":");
        odata::write_row(&mut out, &u, table, k, &odata::Projection::new(e, table, &q.select).expanding(&q, &d, &[k]));
        out.push('}');
        return HttpResponse::Ok().content_type("application/json; charset=utf-8").body(out);
    }
    let raw = function_filter(e, req.query_string());
    let q = match odata::parse_query_without(e, table, &raw, &removed) {
        Ok(q) => q,
        Err(err) => return refused(st, &err),
    };
    let page_size = if e.kind == Kind::Function { usize::MAX } else { e.page_size() };
    let page = odata::execute(e, table, &q, page_size);
    if t.count {
        let n =
            table.rows.values().filter(|r| q.filter.as_ref().is_none_or(|(_, b)| odata::eval::matches(b, r))).count();
        return HttpResponse::Ok().content_type("text/plain").body(n.to_string());
    }
    if json {
        HttpResponse::Ok()
            .content_type("application/json; charset=utf-8")
            .body(odata::write_page(&u, e, table, &q, &page, &d))
    } else {
        HttpResponse::Ok()
            .content_type("application/atom+xml;type=feed;charset=utf-8")
            .body(odata::write_atom(&u, e, table, &q, &page))
    }
}

/// Function endpoints take parameters in OData literal syntax (`?itemId=guid'…'`); fold them into `$filter`.
fn function_filter(e: &Entity, raw: &str) -> String {
    if e.kind != Kind::Function {
        return raw.to_string();
    }
    let pairs = odata::decode_pairs(raw);
    let mut filters: Vec<String> = Vec::new();
    let mut rest: Vec<String> = Vec::new();
    for (k, v) in &pairs {
        match k.as_str() {
            "itemId" | "ItemId" | "itemID" => filters.push(format!("ItemID eq {v}")),
            "$filter" => filters.push(format!("({v})")),
            _ => rest.push(format!("{}={}", urlencoding::encode(k), urlencoding::encode(v))),
        }
    }
    if !filters.is_empty() {
        rest.push(format!("$filter={}", urlencoding::encode(&filters.join(" and "))));
    }
    rest.join("&")
}
