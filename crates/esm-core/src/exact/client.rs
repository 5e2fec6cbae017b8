//! The provider's REST client: one shared HTTP client, the per-division rate limiters, paging by
//! `__next`, and the spec's waits (§9) on network errors and 429s.

use super::clock::Clock;
use super::envelope::{self, Page};
use super::error::ExactError;
use super::oauth::{now_ms, without_url};
use super::rate_limit::{RateLimiter, RateLimiters};
use super::reachability::{ProviderStatus, Reachability};
use super::tokens::UserToken;
use bytes::Bytes;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use reqwest::{Method, StatusCode};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The waits of spec §9; tests shorten them.
#[derive(Debug, Clone)]
pub struct Waits {
    /// After a network error or 429 while paging, uploading or fetching pictures: 20 s.
    pub read_retry: Duration,
    /// After a network error or 429 on a write or a provider delete: 2 s.
    pub write_retry: Duration,
    /// How many times a call is tried before its error is returned (429s aside).
    pub attempts: u32,
    /// How many 429 answers one call waits out before giving up. They have a budget of their own:
    /// a 429 says the provider is up and will answer later, so a burst of them must not use up
    /// the attempts meant for real failures.
    pub rate_limited_attempts: u32,
    /// Minimum time per page when the throttle flag is set: 1300 ms.
    pub throttle: Duration,
    /// The longest wait for a rate-limit window to reset: until the next minute.
    pub rate_limit_max: Duration,
    /// The clock these waits, token lifetimes and the provider's windows are reckoned by.
    pub clock: Clock,
}

impl Default for Waits {
    fn default() -> Self {
        Waits {
            read_retry: Duration::from_secs(20),
            write_retry: Duration::from_secs(2),
            attempts: 6,
            rate_limited_attempts: 30,
            throttle: Duration::from_millis(1300),
            rate_limit_max: Duration::from_secs(60),
            clock: Clock::real(),
        }
    }
}

/// A call's reserved rate-limiter slot, given back when the call ends without an answer.
struct Reserved<'a>(Option<&'a RateLimiter>);

impl<'a> Reserved<'a> {
    /// The limiter, for recording the answer; the slot is then no longer this guard's.
    fn take(&mut self) -> Option<&'a RateLimiter> {
        self.0.take()
    }

    fn release(&mut self) {
        if let Some(l) = self.0.take() {
            l.abandon();
        }
    }
}

impl Drop for Reserved<'_> {
    fn drop(&mut self) {
        self.release();
    }
}

/// Whose token a call goes out with.
#[derive(Clone, Copy)]
pub enum Bearer<'a> {
    /// This token as it is: a sign-in checking its own new token, the setup's test call.
    Token(&'a str),
    /// A stored user's token, taken as the call goes out (after any wait for the rate limit), so
    /// it is valid for that request, and renewed once more when Exact refuses it.
    User(&'a UserToken),
}

impl<'a> From<&'a str> for Bearer<'a> {
    fn from(token: &'a str) -> Self {
        Bearer::Token(token)
    }
}

impl<'a> From<&'a String> for Bearer<'a> {
    fn from(token: &'a String) -> Self {
        Bearer::Token(token)
    }
}

impl<'a> From<&'a UserToken> for Bearer<'a> {
    fn from(user: &'a UserToken) -> Self {
        Bearer::User(user)
    }
}

/// A call that reached the provider: its answer and the user's token that went out with it.
struct Sent {
    answer: Answer,
    user_token: Option<String>,
}

/// A provider answer: status, headers and body.
pub struct Answer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

#[derive(Clone)]
pub struct ExactClient {
    http: reqwest::Client,
    base_url: String,
    limiters: Arc<RateLimiters>,
    waits: Waits,
    reachability: Arc<Reachability>,
}

impl ExactClient {
    pub fn new(http: reqwest::Client, base_url: &str, waits: Waits) -> Self {
        ExactClient {
            http,
            base_url: base_url.trim_end_matches('/').to_string(),
            limiters: Arc::new(RateLimiters::new(waits.rate_limit_max, waits.clock.clone())),
            waits,
            reachability: Arc::new(Reachability::default()),
        }
    }

    /// The shared HTTP client with the product's timeouts (rustls, no proxy surprises).
    pub fn http_client(timeout: Duration) -> Result<reqwest::Client, ExactError> {
        crate::tls::install_crypto_provider();
        reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(Duration::from_secs(10))
            .pool_idle_timeout(Duration::from_secs(50))
            .user_agent(concat!("stock-manager/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ExactError::Network(without_url(e)))
    }

    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    pub fn waits(&self) -> &Waits {
        &self.waits
    }

    /// Whether the provider answered the last calls (for the UI's outage banner).
    pub fn provider_status(&self) -> ProviderStatus {
        self.reachability.status()
    }

    /// The tracker every call reports to (shared with the OAuth client's token calls).
    pub fn reachability(&self) -> Arc<Reachability> {
        self.reachability.clone()
    }

    /// The limiter shared by every user and job of `division`.
    pub fn limiter(&self, division: i64) -> Arc<RateLimiter> {
        self.limiters.for_division(division)
    }

    /// `{base}/api/v1/{division}/{path}`; `path` may carry a query string.
    pub fn api_url(&self, division: i64, path: &str) -> String {
        format!("{}/api/v1/{}/{}", self.base_url, division, path.trim_start_matches('/'))
    }

    /// Only URLs on the configured provider host are ever called with a token.
    fn check_host(&self, url: &str) -> Result<(), ExactError> {
        if url.starts_with(&format!("{}/", self.base_url)) {
            Ok(())
        } else {
            Err(ExactError::Malformed("a next-page link points outside the provider host".into()))
        }
    }

    /// One call under the division's rate limiter (no retry).
    async fn call_once(
        &self,
        division: Option<i64>,
        bearer: Bearer<'_>,
        method: Method,
        url: &str,
        body: Option<&Value>,
    ) -> Result<Sent, ExactError> {
        self.check_host(url)?;
        let limiter = division.map(|d| self.limiter(d));
        if let Some(l) = &limiter {
            l.acquire().await;
        }
        // A call dropped before its answer (a live read past its deadline, a caller gone) gives
        // its reserved slot back: a leaked one would stall the division's calls for good.
        let mut reserved = Reserved(limiter.as_deref());
        // The user's token is taken only now: one taken before the wait for the rate limit (up to
        // a minute) may have expired by the time the call goes out.
        let token: Cow<'_, str> = match bearer {
            Bearer::Token(t) => Cow::Borrowed(t),
            Bearer::User(u) => Cow::Owned(u.tokens.access_token(&u.user).await?),
        };
        let mut req = self.http.request(method, url).bearer_auth(&token).header(ACCEPT, "application/json");
        if let Some(b) = body {
            req = req.header(CONTENT_TYPE, "application/json").header("Prefer", "return=representation").json(b);
        }
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => {
                reserved.release();
                let err = ExactError::Network(without_url(e));
                self.reachability.failed(now_ms(), &err.to_string());
                return Err(err);
            }
        };
        let status = resp.status();
        let headers = resp.headers().clone();
        if let Some(l) = reserved.take() {
            l.record(Some(&headers), status.as_u16());
        }
        let body = match resp.bytes().await {
            Ok(b) => b,
            Err(e) => {
                let err = ExactError::Network(without_url(e));
                self.reachability.failed(now_ms(), &err.to_string());
                return Err(err);
            }
        };
        if status.is_server_error() {
            self.reachability.failed(now_ms(), &format!("Exact Online answered {status}"));
        } else {
            self.reachability.answered(now_ms());
        }
        let user_token = matches!(bearer, Bearer::User(_)).then(|| token.into_owned());
        Ok(Sent { answer: Answer { status, headers, body }, user_token })
    }

    /// Maps a non-success answer to its error.
    fn error_of(answer: &Answer) -> ExactError {
        let message = envelope::error_message(&answer.body);
        let reason = answer.headers.get("reason").and_then(|v| v.to_str().ok()).map(str::to_string);
        let message = match reason {
            Some(r) if !message.contains(&r) => format!("{message} ({r})"),
            _ => message,
        };
        match answer.status.as_u16() {
            401 => ExactError::Unauthorized(message),
            403 => ExactError::Forbidden(message),
            429 => ExactError::RateLimited,
            s if s >= 500 => ExactError::Server { status: s, message },
            s => ExactError::Rejected { status: s, message },
        }
    }

    /// A call with the spec's retries: transient failures wait `wait` and try again; without a
    /// `wait`, the call is sent once. Either way a user's token Exact refuses is renewed and the
    /// call sent once more with the new one: a 401 is answered before anything is done.
    async fn call(
        &self,
        division: Option<i64>,
        bearer: Bearer<'_>,
        method: Method,
        url: &str,
        body: Option<&Value>,
        wait: Option<Duration>,
    ) -> Result<Answer, ExactError> {
        let (mut attempt, mut rate_limited, mut renewed) = (0, 0, false);
        loop {
            let result = self.call_once(division, bearer, method.clone(), url, body).await;
            let (err, refused) = match result {
                Ok(sent) if sent.answer.status.is_success() => return Ok(sent.answer),
                Ok(sent) => {
                    let refused = sent.user_token.filter(|_| sent.answer.status == StatusCode::UNAUTHORIZED);
                    (Self::error_of(&sent.answer), refused)
                }
                Err(e) => (e, None),
            };
            // Exact refused the user's token although it looked valid (revoked, clocks apart, a
            // renewal elsewhere): renew it and send once more; a second refusal is the answer.
            if let (Some(refused), Bearer::User(u), false) = (refused, bearer, renewed) {
                renewed = true;
                let fresh = u.tokens.rejected(&u.user, &refused).await?;
                if fresh != refused {
                    tracing::info!(user = %u.user, "Exact refused the token; sending again with a renewed one");
                    continue;
                }
                return Err(err);
            }
            let Some(wait) = wait else { return Err(err) };
            let is_429 = matches!(err, ExactError::RateLimited);
            if is_429 {
                rate_limited += 1;
            } else {
                attempt += 1;
            }
            // A write that may have reached the provider is not repeated here: the outbox decides.
            let retry = err.is_transient() && (method == Method::GET || is_429);
            let spent =
                if is_429 { rate_limited >= self.waits.rate_limited_attempts } else { attempt >= self.waits.attempts };
            if !retry || spent {
                return Err(err);
            }
            let attempt = attempt + rate_limited;
            tracing::warn!(error = %err, attempt, wait_ms = wait.as_millis() as u64, "Exact call failed; waiting to retry");
            self.waits.clock.sleep(wait).await;
        }
    }

    /// One page of a collection.
    pub async fn get_page(&self, division: i64, token: impl Into<Bearer<'_>>, url: &str) -> Result<Page, ExactError> {
        let answer =
            self.call(Some(division), token.into(), Method::GET, url, None, Some(self.waits.read_retry)).await?;
        envelope::parse_collection(&answer.body).map_err(|e| ExactError::Malformed(e.to_string()))
    }

    /// Follows `__next` from `first_url`, handing each page to `on_page` (which may stop early by
    /// returning `false`). With `throttle`, each page takes at least the spec's 1300 ms.
    pub async fn for_each_page<F, Fut>(
        &self,
        division: i64,
        token: impl Into<Bearer<'_>>,
        first_url: &str,
        throttle: bool,
        mut on_page: F,
    ) -> Result<(), ExactError>
    where
        F: FnMut(Page) -> Fut,
        Fut: std::future::Future<Output = Result<bool, ExactError>>,
    {
        let token = token.into();
        let throttle_for = self.waits.clock.real_duration(self.waits.throttle);
        let mut url = first_url.to_string();
        loop {
            let started = Instant::now();
            let mut page = self.get_page(division, token, &url).await?;
            let next = page.next.take();
            if !on_page(page).await? {
                return Ok(());
            }
            match next {
                Some(n) => url = n,
                None => return Ok(()),
            }
            if throttle {
                let spent = started.elapsed();
                if spent < throttle_for {
                    tokio::time::sleep(throttle_for - spent).await;
                }
            }
        }
    }

    /// One page of a collection with its rows kept as the provider's JSON text (for syncs).
    pub async fn get_page_raw(
        &self,
        division: i64,
        token: impl Into<Bearer<'_>>,
        url: &str,
    ) -> Result<envelope::RawPage, ExactError> {
        let answer =
            self.call(Some(division), token.into(), Method::GET, url, None, Some(self.waits.read_retry)).await?;
        envelope::parse_collection_raw(&answer.body).map_err(|e| ExactError::Malformed(e.to_string()))
    }

    /// Every row of a collection, following `__next`; more than `PROVIDER_READ_MAX_ROWS` rows
    /// is an error rather than a list cut short.
    pub async fn get_all(
        &self,
        division: i64,
        token: impl Into<Bearer<'_>>,
        url: &str,
    ) -> Result<Vec<Map<String, Value>>, ExactError> {
        let mut rows = Vec::new();
        self.for_each_page(division, token, url, false, |page| {
            let within = gather(&mut rows, page.rows);
            async move { within.map(|()| true) }
        })
        .await?;
        Ok(rows)
    }

    /// `GET /api/v1/current/Me` (no division, not rate limited by division).
    pub async fn me(&self, token: impl Into<Bearer<'_>>) -> Result<Map<String, Value>, ExactError> {
        let url = format!("{}/api/v1/current/Me", self.base_url);
        let answer = self.call(None, token.into(), Method::GET, &url, None, Some(self.waits.read_retry)).await?;
        let page = envelope::parse_collection(&answer.body).map_err(|e| ExactError::Malformed(e.to_string()))?;
        page.rows.into_iter().next().ok_or_else(|| ExactError::Malformed("current/Me returned no row".into()))
    }

    /// POST a new entity; answers the created entity (201, `{"d":{…}}`).
    pub async fn post(
        &self,
        division: i64,
        token: impl Into<Bearer<'_>>,
        path: &str,
        body: &Value,
    ) -> Result<Map<String, Value>, ExactError> {
        let url = self.api_url(division, path);
        let answer = self
            .call(Some(division), token.into(), Method::POST, &url, Some(body), Some(self.waits.write_retry))
            .await?;
        if answer.body.is_empty() {
            return Ok(Map::new());
        }
        envelope::parse_single(&answer.body).map_err(|e| ExactError::Malformed(e.to_string()))
    }

    /// PUT changed fields of an entity (204).
    pub async fn put(
        &self,
        division: i64,
        token: impl Into<Bearer<'_>>,
        path: &str,
        body: &Value,
    ) -> Result<(), ExactError> {
        let url = self.api_url(division, path);
        let wait = Some(self.waits.write_retry);
        self.call(Some(division), token.into(), Method::PUT, &url, Some(body), wait).await.map(|_| ())
    }

    /// DELETE an entity (204).
    pub async fn delete(&self, division: i64, token: impl Into<Bearer<'_>>, path: &str) -> Result<(), ExactError> {
        let url = self.api_url(division, path);
        let wait = Some(self.waits.write_retry);
        self.call(Some(division), token.into(), Method::DELETE, &url, None, wait).await.map(|_| ())
    }

    /// One write, sent once: no retry after a failure, since only the outbox can tell whether a
    /// lost answer means the provider has it (a refused token is renewed and the write sent
    /// again: a 401 books nothing). Answers the created entity for a POST.
    pub async fn write_once(
        &self,
        division: i64,
        token: impl Into<Bearer<'_>>,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Map<String, Value>, ExactError> {
        let url = self.api_url(division, path);
        let answer = self.call(Some(division), token.into(), method, &url, body, None).await?;
        if answer.body.is_empty() {
            return Ok(Map::new());
        }
        // Accepted is accepted: an odd body does not make the write fail.
        Ok(envelope::parse_single(&answer.body).unwrap_or_default())
    }

    /// Raw bytes of a provider file URL (item pictures), with its content type.
    pub async fn get_bytes(
        &self,
        division: i64,
        token: impl Into<Bearer<'_>>,
        url: &str,
    ) -> Result<(String, Bytes), ExactError> {
        let answer =
            self.call(Some(division), token.into(), Method::GET, url, None, Some(self.waits.read_retry)).await?;
        let ct = answer
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("application/octet-stream")
            .to_string();
        Ok((ct, answer.body))
    }
}

/// Adds a page's rows to `rows`, or answers [`ExactError::TooManyRows`] when they would pass
/// `PROVIDER_READ_MAX_ROWS` (every reader of all pages shares the one bound).
pub fn gather<T>(rows: &mut Vec<T>, page: impl IntoIterator<Item = T>) -> Result<(), ExactError> {
    use crate::limits::PROVIDER_READ_MAX_ROWS;
    for row in page {
        if rows.len() >= PROVIDER_READ_MAX_ROWS {
            return Err(ExactError::TooManyRows { limit: PROVIDER_READ_MAX_ROWS });
        }
        rows.push(row);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_of_every_page_stop_with_an_error_past_the_bound() {
        use crate::limits::PROVIDER_READ_MAX_ROWS;
        let mut rows = Vec::new();
        gather(&mut rows, 0..PROVIDER_READ_MAX_ROWS - 1).expect("within");
        gather(&mut rows, [0]).expect("exactly the bound");
        let err = gather(&mut rows, [1]).expect_err("one more");
        assert!(matches!(err, ExactError::TooManyRows { limit: PROVIDER_READ_MAX_ROWS }));
        assert_eq!(rows.len(), PROVIDER_READ_MAX_ROWS, "nothing past the bound is kept");
        let answer = crate::error::AppError::from(err);
        assert_eq!(answer.code(), crate::error::Code::BadRequest);
        assert!(answer.message().contains("narrow it with a filter"), "{}", answer.message());
    }

    #[tokio::test]
    async fn a_call_dropped_before_its_answer_gives_its_limiter_slot_back() {
        let limiter = RateLimiter::new(Duration::from_secs(60));
        // Unknown budget: one call at a time, so a leaked slot would hold every later call.
        limiter.acquire().await;
        drop(Reserved(Some(&limiter)));
        let next = tokio::time::timeout(Duration::from_millis(500), limiter.acquire()).await;
        assert!(next.is_ok(), "the next call goes out");
        // A recorded answer ends the slot once, not twice: dropping its guard later does not
        // free the slot of the call made since.
        let mut answered = Reserved(Some(&limiter));
        if let Some(l) = answered.take() {
            l.record(None, 200);
        }
        limiter.acquire().await;
        drop(answered);
        let blocked = tokio::time::timeout(Duration::from_millis(100), limiter.acquire()).await;
        assert!(blocked.is_err(), "one call at a time while the budget is unknown");
    }
}
