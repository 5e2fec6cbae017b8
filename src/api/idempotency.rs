//! The `Idempotency-Key` header of the write routes (DESIGN: unattended operation). A client
//! makes a key when the user books and sends it with every try of that booking; the server
//! keeps the key with the outbox entries it queued (`outbox::store`), so a booking sent twice
//! (a lost answer, a retry) is booked once:
//! - same key, same request: the first answer again, marked `Idempotent-Replayed: true`;
//! - same key while the first request is still being answered: waits for that answer;
//! - same key, another request (route, query or body): 409 `idempotency_key_reused`;
//! - no header: as before, every request books.
//!
//! Keys belong to the user of the session within the organization, so no two users or
//! organizations can meet on one key, and are kept for `outbox::store::KEEP_KEYS_MS`.

use crate::auth::tier::Session;
use crate::error::{AppError, AppResult};
use crate::outbox::store::KeptAnswer;
use actix_web::dev::Payload;
use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpRequest, HttpResponse};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::future::{Ready, ready};

pub const HEADER: &str = "Idempotency-Key";
/// Set on an answer given again for a repeated key.
pub const REPLAYED_HEADER: &str = "Idempotent-Replayed";
/// The longest key taken, in characters (a UUID has 36).
pub const MAX_KEY_LEN: usize = 200;
/// Query parameters that change how a request is answered but not what it books.
const NOT_PART_OF_THE_REQUEST: &[&str] = &["wait"];

/// The request's `Idempotency-Key`, if it sent one (a malformed one is a 400).
pub struct IdempotencyKey(Option<Sent>);

struct Sent {
    key: String,
    /// Method, path and the query that counts, as one text.
    request: String,
}

/// A key scoped to its user, with the fingerprint of the request it came with.
pub struct RequestKey {
    pub scope: String,
    pub fingerprint: String,
}

impl IdempotencyKey {
    /// The key of a write by `session` with `body` (`None` for a write without one).
    pub fn for_write(&self, session: &Session, body: Option<&Value>) -> Option<RequestKey> {
        let sent = self.0.as_ref()?;
        Some(RequestKey {
            scope: format!("{}\n{}", session.record.user, sent.key),
            fingerprint: fingerprint(&sent.request, body),
        })
    }
}

impl FromRequest for IdempotencyKey {
    type Error = AppError;
    type Future = Ready<Result<Self, AppError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(from_request(req))
    }
}

fn from_request(req: &HttpRequest) -> AppResult<IdempotencyKey> {
    let mut values = req.headers().get_all(HEADER);
    let Some(value) = values.next() else { return Ok(IdempotencyKey(None)) };
    if values.next().is_some() {
        return Err(AppError::bad_request(format!("Send one {HEADER} header, not several")));
    }
    let key = value.to_str().ok().and_then(valid_key).ok_or_else(|| {
        AppError::bad_request(format!("{HEADER} must be 1 to {MAX_KEY_LEN} printable ASCII characters"))
    })?;
    let mut query: Vec<(String, String)> = url::form_urlencoded::parse(req.query_string().as_bytes())
        .filter(|(k, _)| !NOT_PART_OF_THE_REQUEST.contains(&k.as_ref()))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    query.sort();
    let query = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(query).finish();
    Ok(IdempotencyKey(Some(Sent { key: key.to_string(), request: format!("{} {}?{query}", req.method(), req.path()) })))
}

fn valid_key(key: &str) -> Option<&str> {
    let ok = (1..=MAX_KEY_LEN).contains(&key.len()) && key.bytes().all(|b| (b' '..=b'~').contains(&b));
    ok.then_some(key)
}

/// A hash of the request and its body; the body's object keys are sorted first, so the same
/// booking sent by another JSON encoder still matches.
fn fingerprint(request: &str, body: Option<&Value>) -> String {
    let mut text = String::from(request);
    text.push('\n');
    if let Some(body) = body {
        canonical(body, &mut text);
    }
    hex::encode(Sha256::digest(text.as_bytes()))
}

fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut fields: Vec<_> = map.iter().collect();
            fields.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, v)) in fields.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(v, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// An answer to a write; `replayed` marks one given again for a repeated key.
pub fn respond(answer: KeptAnswer, replayed: bool) -> AppResult<HttpResponse> {
    let status = StatusCode::from_u16(answer.status).map_err(AppError::internal)?;
    let mut res = HttpResponse::build(status);
    res.content_type("application/json");
    if replayed {
        res.insert_header((REPLAYED_HEADER, "true"));
    }
    Ok(res.body(answer.body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;
    use serde_json::json;

    fn sent(req: TestRequest) -> AppResult<Option<String>> {
        Ok(from_request(&req.to_http_request())?.0.map(|s| format!("{} | {}", s.key, s.request)))
    }

    #[test]
    fn keys_are_one_to_200_printable_ascii_characters() {
        let with = |k: &str| sent(TestRequest::post().uri("/x").insert_header((HEADER, k)));
        assert_eq!(sent(TestRequest::post().uri("/x")).ok().flatten(), None, "no header, no key");
        assert!(with("4f9c2a8e-1b7d-4e3a-9c5f-2d8b6a1e0f37").is_ok_and(|k| k.is_some()));
        assert!(with(&"k".repeat(MAX_KEY_LEN)).is_ok());
        for bad in ["", &"k".repeat(MAX_KEY_LEN + 1), "caf\u{e9}", "a\tb"] {
            let e = with(bad).err().map(|e| e.code().status());
            assert_eq!(e, Some(StatusCode::BAD_REQUEST), "{bad:?}");
        }
        let twice = TestRequest::post().uri("/x").append_header((HEADER, "a")).append_header((HEADER, "b"));
        assert!(sent(twice).is_err(), "two keys are one too many");
    }

    #[test]
    fn the_fingerprint_is_the_request_not_how_it_was_written() {
        let request = |uri: &str| {
            let req = TestRequest::delete().uri(uri).insert_header((HEADER, "k")).to_http_request();
            from_request(&req).ok().and_then(|k| k.0).map(|s| s.request).unwrap_or_default()
        };
        assert_eq!(request("/d?id=1&endpoint=e&wait=10"), request("/d?endpoint=e&id=1"), "wait is not booked");
        assert_ne!(request("/d?id=1&endpoint=e"), request("/d?id=2&endpoint=e"));
        let a = json!({"Item": "x", "Lines": [{"Q": 1, "W": "a"}]});
        let b: Value = serde_json::from_str(r#"{"Lines":[{"W":"a","Q":1}],"Item":"x"}"#).unwrap_or_default();
        assert_eq!(fingerprint("POST /p?", Some(&a)), fingerprint("POST /p?", Some(&b)));
        assert_ne!(fingerprint("POST /p?", Some(&a)), fingerprint("POST /q?", Some(&a)));
        assert_ne!(fingerprint("POST /p?", Some(&a)), fingerprint("POST /p?", Some(&json!({"Item": "y"}))));
        assert_ne!(fingerprint("POST /p?", Some(&json!([1, 2]))), fingerprint("POST /p?", Some(&json!([2, 1]))));
    }
}
