//! `POST /api/v1/labels` `{source, ids, type}` → the labels as a PDF for a new browser tab;
//! `POST /api/v1/labels/print` (the same plus `printer`, optional `copies`) → an IPP job, 202.
//! Both read the label data live from Exact Online for the caller's organization, and tell the
//! spec's result (SUCCESS / WARNING / INFO with the reasons) in the `X-Label-Result` header.

use super::printers::{job_view, service};
use super::router::Router;
use super::scope::Org;
use super::sync::org_token;
use crate::error::{AppError, AppResult};
use crate::labels::{
    LabelBatch, LabelError, LabelRequest, LabelStatus, ProviderLookups, RecordError, build_records, render_pdf,
};
use crate::printing::PrintError;
use crate::server::AppState;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError, web};
use serde::{Deserialize, Serialize};

/// The response header carrying the result summary (small JSON, ASCII only).
pub const RESULT_HEADER: &str = "x-label-result";
/// Header values stay well under proxies' usual 8 KB limit.
const RESULT_HEADER_MAX: usize = 2048;
/// More copies than this of one request is a typing error, not a print run.
const MAX_COPIES: u32 = 100;

pub fn routes(r: &mut Router) {
    r.full("/labels", |res| res.post(pdf));
    r.full("/labels/print", |res| res.post(print));
}

#[derive(Deserialize)]
struct PrintBody {
    #[serde(flatten)]
    request: LabelRequest,
    /// Copies of the whole batch; default 1.
    copies: Option<u32>,
}

/// Spec §4's result of a generation: its kind, how many labels, and why some were left out.
#[derive(Serialize)]
struct LabelResult<'a> {
    status: LabelStatus,
    labels: usize,
    messages: &'a [String],
}

/// The summary as a header value: JSON with non-ASCII escaped, dropping trailing messages
/// (never the status) until it fits.
fn result_header(status: LabelStatus, labels: usize, messages: &[String]) -> HeaderValue {
    let mut shown = messages.len();
    loop {
        let json = serde_json::to_string(&LabelResult { status, labels, messages: &messages[..shown] })
            .unwrap_or_else(|_| String::from("{}"));
        let ascii = ascii_json(&json);
        if ascii.len() <= RESULT_HEADER_MAX || shown == 0 {
            return HeaderValue::from_str(&ascii).unwrap_or_else(|_| HeaderValue::from_static("{}"));
        }
        shown -= 1;
    }
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

/// Reads the records for a request from the provider. A failure comes back as the finished
/// response: the catalogue's JSON error, plus the summary header when the spec gives the outcome
/// a result kind (no labels: INFO with why each was left out; empty payload: WARNING).
async fn build(state: &AppState, org: Org, request: &LabelRequest) -> Result<LabelBatch, HttpResponse> {
    if request.ids.is_empty() {
        return Err(summarised(RecordError::EmptyPayload));
    }
    let ids = request.normalized_ids().map_err(|m| AppError::bad_request(m).error_response())?;
    let token = org_token(state, org.division).map_err(|e| e.error_response())?;
    let lookups = ProviderLookups::new(state.exact.clone(), org.division, token);
    build_records(&lookups, request.source, &ids, request.label_type).await.map_err(summarised)
}

fn summarised(err: RecordError) -> HttpResponse {
    let summary = match &err {
        RecordError::NoLabels { messages } => Some(result_header(err.status(), 0, messages)),
        RecordError::EmptyPayload => Some(result_header(err.status(), 0, &[])),
        RecordError::Lookup(_) => None,
    };
    let mut response = AppError::from(LabelError::from(err)).error_response();
    if let Some(value) = summary {
        response.headers_mut().insert(header::HeaderName::from_static(RESULT_HEADER), value);
    }
    response
}

async fn pdf(state: web::Data<AppState>, org: Org, body: web::Json<LabelRequest>) -> AppResult<HttpResponse> {
    let request = body.into_inner();
    let batch = match build(&state, org, &request).await {
        Ok(batch) => batch,
        Err(response) => return Ok(response),
    };
    let templates = state.templates.clone();
    let summary = result_header(batch.status, batch.label_count(), &batch.messages);
    let filename = format!("labels-{}.pdf", batch.label_type.name());
    // Rendering is CPU work: keep it off the request threads.
    let pdf = web::block(move || render_pdf(&templates, &batch))
        .await
        .map_err(AppError::internal)?
        .map_err(AppError::from)?;
    Ok(HttpResponse::Ok()
        .content_type("application/pdf")
        .insert_header((header::CONTENT_DISPOSITION, format!("inline; filename=\"{filename}\"")))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((header::HeaderName::from_static(RESULT_HEADER), summary))
        .body(pdf))
}

async fn print(state: web::Data<AppState>, org: Org, body: web::Json<PrintBody>) -> AppResult<HttpResponse> {
    let PrintBody { request, copies } = body.into_inner();
    let printer = request
        .printer
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .ok_or_else(|| AppError::bad_request("Name the printer to print on (`printer`)"))?
        .to_string();
    let copies = copies.unwrap_or(1);
    if !(1..=MAX_COPIES).contains(&copies) {
        return Err(AppError::bad_request(format!("`copies` must be between 1 and {MAX_COPIES}")));
    }
    let service = service(&state)?;
    // A wrong printer is told before Exact Online is asked for anything.
    let found = service.registry().get(&printer).ok_or_else(|| PrintError::UnknownPrinter(printer.clone()))?;
    if !found.supports(request.label_type) {
        let label_type = request.label_type.to_string();
        return Err(PrintError::WrongLabelType { printer, label_type }.into());
    }
    let mut batch = match build(&state, org, &request).await {
        Ok(batch) => batch,
        Err(response) => return Ok(response),
    };
    for record in &mut batch.records {
        record.print_count = record.print_count.saturating_mul(copies);
    }
    let summary = result_header(batch.status, batch.label_count(), &batch.messages);
    let id = service.submit_for(Some(org.division), &printer, &batch)?;
    let job = service.status(id)?.ok_or_else(|| AppError::internal(anyhow::anyhow!("job {id} vanished")))?;
    Ok(HttpResponse::Accepted().insert_header((header::HeaderName::from_static(RESULT_HEADER), summary)).json(
        serde_json::json!({
            "job": job_view(&job),
            "result": { "status": batch.status, "labels": batch.label_count(), "messages": batch.messages },
        }),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_header_is_ascii_json_and_stays_small() {
        let value = result_header(LabelStatus::Warning, 3, &["Skipped ZV-Ø1: items with 'ZV'".to_string()]);
        let text = value.to_str().expect("visible ASCII");
        let parsed: serde_json::Value = serde_json::from_str(text).expect("JSON");
        assert_eq!(parsed["status"], "WARNING");
        assert_eq!(parsed["messages"][0], "Skipped ZV-Ø1: items with 'ZV'");
        let many: Vec<String> = (0..500).map(|i| format!("Item {i} was not found")).collect();
        let value = result_header(LabelStatus::Info, 0, &many);
        assert!(value.len() <= RESULT_HEADER_MAX);
        let parsed: serde_json::Value = serde_json::from_slice(value.as_bytes()).expect("JSON");
        assert_eq!(parsed["status"], "INFO");
        assert!(!parsed["messages"].as_array().expect("list").is_empty());
    }
}
