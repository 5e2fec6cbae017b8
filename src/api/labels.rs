//! `POST /api/v1/labels` `{source, ids, type, copies?}` → the labels as a PDF for a new browser
//! tab; `POST /api/v1/labels/print` (the same plus `printer`) → an IPP job, 202.
//! Both read the label data live from Exact Online for the caller's organization, and tell the
//! spec's result (SUCCESS / WARNING / INFO with the reasons) in the `X-Label-Result` header.
//! While Exact Online cannot be reached (or the organization has no usable token), shop order and
//! item labels are made from the local copy: a WARNING whose first message names the copy's time.
//! Goods receipts are not in the copy: they answer that Exact Online cannot be reached.

use super::CallerLanguage;
use super::router::Router;
use super::scope::Org;
use super::views::{JobView, job_view};
use crate::error::{AppError, AppResult, Code, Language, Text};
use crate::exact::ExactError;
use crate::labels::{
    LabelBatch, LabelError, LabelRequest, LabelSource, LabelStatus, LocalCopyReason, ProviderLookups, RecordError,
    Selection, build_from_local_copy, build_records, check_label_count, render_pdf,
};
use crate::organization::skipped_warehouses;
use crate::printing::PrintError;
use crate::state::AppState;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError, web};
use serde::{Deserialize, Serialize};
use std::time::Duration;
use utoipa::ToSchema;

/// The response header carrying the result summary (small JSON, ASCII only).
pub const RESULT_HEADER: &str = "x-label-result";
/// Header values stay well under proxies' usual 8 KB limit.
const RESULT_HEADER_MAX: usize = 2048;
// More copies than this of one request is a typing error, not a print run.
use crate::limits::LABEL_MAX_COPIES as MAX_COPIES;
/// How long one read from Exact Online may take (its retries included) before the labels come
/// from the local copy: a healthy provider answers in well under a second, while the client's
/// own retries wait 20 s each.
const PROVIDER_READ_DEADLINE: Duration = Duration::from_secs(4);

pub fn routes(r: &mut Router) {
    r.full("/labels", |res| {
        res.post(pdf)
            .body::<LabelBody>()
            .bytes(200, "application/pdf", "The labels as a PDF")
            .header(RESULT_HEADER, RESULT_HEADER_TEXT)
            .fails(LABEL_FAILURES)
    });
    r.full("/labels/print", |res| {
        res.post(print)
            .body::<LabelBody>()
            .json::<Printed<'static>>(202, "The print job, queued, and the result of making its labels")
            .header(RESULT_HEADER, RESULT_HEADER_TEXT)
            .fails(LABEL_FAILURES)
            .fails(&[Code::NotFound])
    });
}

const RESULT_HEADER_TEXT: &str = "The result as JSON `{status, labels, messages}`: SUCCESS, or WARNING with why some \
     labels were left out (also sent with a no_labels or empty_payload error)";

/// Why labels cannot be made: none of the ids gives a label, no ids, or Exact Online cannot be
/// asked (goods receipts are not in the local copy).
const LABEL_FAILURES: &[Code] =
    &[Code::NoLabels, Code::EmptyPayload, Code::ProviderUnreachable, Code::ProviderSignIn, Code::Provider];

/// What making labels takes: the request and how many copies.
#[derive(Deserialize, ToSchema)]
struct LabelBody {
    #[serde(flatten)]
    request: LabelRequest,
    /// Copies of the whole batch; default 1.
    #[schema(minimum = 1, maximum = 100, example = 1)]
    copies: Option<u32>,
}

fn checked_copies(copies: Option<u32>) -> AppResult<u32> {
    let copies = copies.unwrap_or(1);
    if !(1..=MAX_COPIES).contains(&copies) {
        return Err(AppError::bad_request(format!("`copies` must be between 1 and {MAX_COPIES}")));
    }
    Ok(copies)
}

/// Every label of the batch `copies` times (the limits were checked on the multiplied count).
fn multiply(batch: &mut LabelBatch, copies: u32) {
    for record in &mut batch.records {
        record.print_count = record.print_count.saturating_mul(copies);
    }
}

/// Spec §4's result of a generation: its kind, how many labels, and why some were left out.
#[derive(Serialize, ToSchema)]
struct LabelResult<'a> {
    status: LabelStatus,
    #[schema(example = 12)]
    labels: usize,
    #[schema(example = json!(["Skipped 2 items with 'ZV' in their code"]))]
    messages: &'a [String],
}

/// A print job queued, with the result of making its labels.
#[derive(Serialize, ToSchema)]
struct Printed<'a> {
    job: JobView<'a>,
    result: LabelResult<'a>,
}

/// The summary as a header value: JSON with non-ASCII escaped, dropping trailing messages
/// (never the status) until it fits.
fn result_header(status: LabelStatus, labels: usize, messages: &[Text], language: Language) -> HeaderValue {
    said_header(status, labels, &said_in(messages, language))
}

/// [`result_header`] of messages already said in the caller's language.
fn said_header(status: LabelStatus, labels: usize, said: &[String]) -> HeaderValue {
    let mut shown = said.len();
    loop {
        let json = serde_json::to_string(&LabelResult { status, labels, messages: &said[..shown] })
            .unwrap_or_else(|_| String::from("{}"));
        let ascii = ascii_json(&json);
        if ascii.len() <= RESULT_HEADER_MAX || shown == 0 {
            return HeaderValue::from_str(&ascii).unwrap_or_else(|_| HeaderValue::from_static("{}"));
        }
        shown -= 1;
    }
}

/// The messages in the caller's language.
fn said_in(messages: &[Text], language: Language) -> Vec<String> {
    messages.iter().map(|m| m.said_in(language)).collect()
}

/// JSON with every non-ASCII character written as `\uXXXX` (header values must be visible ASCII).
fn ascii_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() && !c.is_ascii_control() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

/// Reads the records for a request from the provider, or from the local copy when the provider
/// cannot be asked. A failure comes back as the finished response: the catalogue's JSON error,
/// plus the summary header when the spec gives the outcome a result kind (no labels: INFO with
/// why each was left out; empty payload: WARNING).
/// `copies` multiplies every label: the limits apply to the whole print run, checked before
/// Exact Online is asked anything and again once the print counts are known.
async fn build(
    state: &AppState,
    org: Org,
    request: &LabelRequest,
    copies: u32,
    language: Language,
) -> Result<LabelBatch, HttpResponse> {
    if request.ids.is_empty() {
        return Err(summarised(RecordError::EmptyPayload, language));
    }
    request.within_limits(copies).map_err(|m| AppError::bad_request(m).error_response())?;
    let ids = request.normalized_ids().map_err(|m| AppError::bad_request(m).error_response())?;
    let batch = build_unchecked(state, org, request, &ids, language).await?;
    let labels = (batch.label_count() as u64).saturating_mul(u64::from(copies));
    check_label_count(labels).map_err(|m| AppError::bad_request(m).error_response())?;
    Ok(batch)
}

async fn build_unchecked(
    state: &AppState,
    org: Org,
    request: &LabelRequest,
    ids: &[Selection],
    language: Language,
) -> Result<LabelBatch, HttpResponse> {
    let reason = match from_provider(state, org, request, ids).await {
        Ok(built) => return built.map_err(|e| summarised(e, language)),
        // Goods receipts cannot come from the copy; a sign-in problem is theirs to tell.
        Err(ProviderUnavailable::NoToken(error)) if request.source == LabelSource::GoodsReceipt => {
            return Err(error.error_response());
        }
        Err(ProviderUnavailable::NoToken(_)) => LocalCopyReason::NoToken,
        Err(ProviderUnavailable::Unreachable) => LocalCopyReason::Unreachable,
    };
    tracing::warn!(division = org.division, ?reason, source = ?request.source, "labels from the local copy");
    let store = state.stores.get(org.division).map_err(|e| AppError::from(e).error_response())?;
    let skipped = skipped_warehouses(&state.stores, org.division);
    build_from_local_copy(store, reason, request.source, ids, request.label_type, &skipped)
        .await
        .map_err(|e| summarised(e, language))
}

/// Why Exact Online could not give the label data.
enum ProviderUnavailable {
    /// It does not answer: known from earlier calls, or this one failed on the network, with a
    /// 5xx, or took longer than [`PROVIDER_READ_DEADLINE`].
    Unreachable,
    /// No token of the organization is usable; the error it would answer.
    NoToken(AppError),
}

/// The records from Exact Online (or the error it gave that is the caller's to see, like a 4xx
/// with its message), unless it cannot be asked.
async fn from_provider(
    state: &AppState,
    org: Org,
    request: &LabelRequest,
    ids: &[Selection],
) -> Result<Result<LabelBatch, RecordError>, ProviderUnavailable> {
    if !state.exact.provider_status().reachable {
        return Err(ProviderUnavailable::Unreachable);
    }
    let token = state.org_token(org.division).map_err(ProviderUnavailable::NoToken)?;
    let lookups = ProviderLookups::new(state.exact.clone(), org.division, token).with_deadline(PROVIDER_READ_DEADLINE);
    let skipped = skipped_warehouses(&state.stores, org.division);
    judged(build_records(&lookups, request.source, ids, request.label_type, &skipped).await)
}

/// What the provider's answer means: no answer (network, 5xx, no answer in time) or a token it
/// no longer takes sends the labels to the local copy; anything else, like a 4xx with its own
/// message or its rate limit, is the caller's to see.
fn judged(built: Result<LabelBatch, RecordError>) -> Result<Result<LabelBatch, RecordError>, ProviderUnavailable> {
    let Err(RecordError::Lookup(cause)) = built else { return Ok(built) };
    match cause.downcast::<ExactError>() {
        Ok(ExactError::Network(_) | ExactError::Server { .. }) => Err(ProviderUnavailable::Unreachable),
        Ok(refused @ (ExactError::Unauthorized(_) | ExactError::NoToken)) => {
            Err(ProviderUnavailable::NoToken(refused.into()))
        }
        Ok(other) => Ok(Err(RecordError::Lookup(other.into()))),
        Err(cause) => Ok(Err(RecordError::Lookup(cause))),
    }
}

fn summarised(err: RecordError, language: Language) -> HttpResponse {
    let summary = match &err {
        RecordError::NoLabels { messages } => Some(result_header(err.status(), 0, messages, language)),
        RecordError::EmptyPayload => Some(result_header(err.status(), 0, &[], language)),
        RecordError::Lookup(_) => None,
    };
    let mut response = AppError::from(LabelError::from(err)).error_response();
    if let Some(value) = summary {
        response.headers_mut().insert(header::HeaderName::from_static(RESULT_HEADER), value);
    }
    response
}

async fn pdf(
    state: web::Data<AppState>,
    org: Org,
    CallerLanguage(language): CallerLanguage,
    body: web::Json<LabelBody>,
) -> AppResult<HttpResponse> {
    let LabelBody { request, copies } = body.into_inner();
    let copies = checked_copies(copies)?;
    let mut batch = match build(&state, org, &request, copies, language).await {
        Ok(batch) => batch,
        Err(response) => return Ok(response),
    };
    multiply(&mut batch, copies);
    let templates = state.templates.clone();
    let summary = result_header(batch.status, batch.label_count(), &batch.messages, language);
    let filename = format!("labels-{}.pdf", batch.label_type.name());
    // Rendering is CPU work: keep it off the request threads.
    let pdf = super::blocking(move || Ok(render_pdf(&templates, &batch)?)).await?;
    Ok(HttpResponse::Ok()
        .content_type("application/pdf")
        .insert_header((header::CONTENT_DISPOSITION, format!("inline; filename=\"{filename}\"")))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::HeaderName::from_static(RESULT_HEADER), summary))
        .body(pdf))
}

async fn print(
    state: web::Data<AppState>,
    org: Org,
    CallerLanguage(language): CallerLanguage,
    body: web::Json<LabelBody>,
) -> AppResult<HttpResponse> {
    let LabelBody { request, copies } = body.into_inner();
    let printer = request
        .printer
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .ok_or_else(|| AppError::bad_request("Name the printer to print on (`printer`)"))?
        .to_string();
    let copies = checked_copies(copies)?;
    let service = state.print_service()?;
    // A wrong printer is told before Exact Online is asked for anything.
    let found = service.registry().get(&printer).ok_or_else(|| PrintError::UnknownPrinter(printer.clone()))?;
    if !found.accepted {
        return Err(PrintError::NotAccepted(printer).into());
    }
    if !found.supports(request.label_type) {
        let label_type = request.label_type.to_string();
        return Err(PrintError::WrongLabelType { printer, label_type }.into());
    }
    let mut batch = match build(&state, org, &request, copies, language).await {
        Ok(batch) => batch,
        Err(response) => return Ok(response),
    };
    multiply(&mut batch, copies);
    // said once, for the header and the answer's body
    let said = said_in(&batch.messages, language);
    let summary = said_header(batch.status, batch.label_count(), &said);
    // Laying out up to the job limit's labels is CPU work: keep it off the request threads.
    let (id, batch) = {
        let service = service.clone();
        super::blocking(move || Ok(service.submit_for(Some(org.division), &printer, &batch).map(|id| (id, batch))?))
            .await?
    };
    let job = service.status(id)?.ok_or_else(|| AppError::internal(anyhow::anyhow!("job {id} vanished")))?;
    let result = LabelResult { status: batch.status, labels: batch.label_count(), messages: &said };
    Ok(HttpResponse::Accepted()
        .insert_header((header::HeaderName::from_static(RESULT_HEADER), summary))
        .json(Printed { job: job_view(&job), result }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(err: ExactError) -> Result<LabelBatch, RecordError> {
        Err(RecordError::Lookup(err.into()))
    }

    #[test]
    fn only_silence_or_an_unusable_token_sends_labels_to_the_local_copy() {
        let down = [
            ExactError::Network("connection reset".into()),
            ExactError::Server { status: 503, message: "Service Unavailable".into() },
        ];
        for err in down {
            assert!(matches!(judged(failed(err)), Err(ProviderUnavailable::Unreachable)));
        }
        match judged(failed(ExactError::Unauthorized("invalid_grant".into()))) {
            Err(ProviderUnavailable::NoToken(answer)) => assert_eq!(answer.code(), Code::ProviderSignIn),
            _ => panic!("a refused token is no usable token"),
        }
        // The provider answered: its refusal, its limit and what it cannot parse stay errors.
        let answered = [
            (ExactError::Rejected { status: 400, message: "Invalid filter".into() }, Code::Provider),
            (ExactError::Forbidden("no access to division".into()), Code::Forbidden),
            (ExactError::RateLimited, Code::TooManyRequests),
            (ExactError::Malformed("not JSON".into()), Code::Provider),
        ];
        for (err, code) in answered {
            let Ok(Err(kept)) = judged(failed(err)) else { panic!("kept as the caller's error") };
            assert_eq!(AppError::from(LabelError::from(kept)).code(), code);
        }
        assert!(matches!(judged(Err(RecordError::EmptyPayload)), Ok(Err(RecordError::EmptyPayload))));
    }

    #[test]
    fn the_summary_header_is_ascii_json_and_stays_small() {
        let skipped = [Text::LabelExcludedCode { code: "ZV-Ø1".into(), part: "ZV" }];
        let value = result_header(LabelStatus::Warning, 3, &skipped, Language::En);
        let text = value.to_str().expect("visible ASCII");
        let parsed: serde_json::Value = serde_json::from_str(text).expect("JSON");
        assert_eq!(parsed["status"], "WARNING");
        assert_eq!(parsed["messages"][0], "Skipped ZV-Ø1: items with 'ZV' in the code get no label");
        let value = result_header(LabelStatus::Warning, 3, &skipped, Language::Nl);
        let parsed: serde_json::Value = serde_json::from_slice(value.as_bytes()).expect("JSON");
        assert_eq!(parsed["messages"][0], "ZV-Ø1 overgeslagen: artikelen met 'ZV' in de code krijgen geen etiket");
        let many: Vec<Text> = (0..500).map(|i| Text::LabelItemNotFound { id: i.to_string() }).collect();
        let value = result_header(LabelStatus::Info, 0, &many, Language::En);
        assert!(value.len() <= RESULT_HEADER_MAX);
        let parsed: serde_json::Value = serde_json::from_slice(value.as_bytes()).expect("JSON");
        assert_eq!(parsed["status"], "INFO");
        assert!(!parsed["messages"].as_array().expect("list").is_empty());
    }
}
