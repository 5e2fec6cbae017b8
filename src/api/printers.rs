//! `GET /api/v1/printers`: the configured and discovered printers with what each says it can do;
//! `GET /api/v1/printers/jobs` and `GET /api/v1/printers/jobs/{id}`: the organization's print jobs
//! as the print service follows them (queued, waiting for printer, sending, printing, completed,
//! failed, cancelled) with the printer's message; `POST /api/v1/printers/jobs/{id}/cancel`: any
//! user of the organization stops a job (one that has not left at once, one being rendered between
//! pages, one the printer holds with Cancel-Job); `POST /api/v1/printers/accept` and `/printers/withdraw`:
//! an administrator (`crate::auth::admin`) lets a printer found on the network receive jobs, or
//! stops it.

use super::router::Router;
use super::scope::Org;
use super::views::{JobView, job_view};
use crate::auth::tier::Session;
use crate::error::{AppError, AppResult, Code};
use crate::printing::{Cancelled, PrintJob, PrintService, Printer, PrinterCapabilities};
use crate::serverdb::{ACCEPTED_PRINTERS, AcceptedPrinter};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use serde::{Deserialize, Serialize};
use std::time::Duration;
use utoipa::ToSchema;

/// How long the list waits for one printer's answer: an unplugged printer must not stall the page.
const CAPABILITIES_TIMEOUT: Duration = Duration::from_secs(4);
/// The newest jobs a list shows.
const JOB_LIST_LIMIT: usize = 200;

pub fn routes(r: &mut Router) {
    r.full("/printers", |res| {
        res.get(list).list::<PrinterView>(200, "The configured and discovered printers, each with its state")
    });
    r.full("/printers/jobs", |res| {
        res.get(jobs).list::<JobView>(200, "The organization's print jobs, newest first (at most 200)")
    });
    r.full("/printers/jobs/{id}", |res| {
        res.integer_param("id").get(job).json::<JobView>(200, "The print job as it stands").fails(&[Code::NotFound])
    });
    r.full("/printers/jobs/{id}/cancel", |res| {
        res.integer_param("id")
            .post(cancel)
            .json::<JobView>(200, "The job, cancelled (or as it ended, when it had ended already)")
            .json::<JobView>(202, "The job, being cancelled: it is rendering, being sent or on the printer")
            .fails(&[Code::NotFound])
    });
    r.full("/printers/accept", |res| {
        res.post(accept)
            .admin()
            .body::<PrinterName>()
            .json::<PrinterView>(200, "The printer, accepted: it receives jobs now")
            .fails(&[Code::NotFound])
    });
    r.full("/printers/withdraw", |res| {
        res.post(withdraw)
            .admin()
            .body::<PrinterName>()
            .empty(204, "The printer no longer receives jobs")
            .fails(&[Code::NotFound])
    });
}

/// A printer with what it says of itself.
#[derive(Serialize, ToSchema)]
struct PrinterView {
    #[serde(flatten)]
    printer: Printer,
    /// `idle`, `processing` or `stopped` as the printer says; `unreachable` when it did not answer;
    /// `discovered` when it is not accepted yet.
    #[schema(example = "idle")]
    state: String,
    accepting_jobs: bool,
    #[schema(required = true)]
    message: Option<String>,
    #[schema(required = true)]
    capabilities: Option<PrinterCapabilities>,
}

async fn describe(service: &PrintService, printer: Printer) -> PrinterView {
    if !printer.accepted {
        // Nothing is asked of an address that merely announced itself.
        return PrinterView {
            printer,
            state: "discovered".into(),
            accepting_jobs: false,
            message: Some("Found on the network: an administrator accepts it before it prints".into()),
            capabilities: None,
        };
    }
    let answer = tokio::time::timeout(CAPABILITIES_TIMEOUT, service.capabilities(&printer.name)).await;
    match answer {
        Ok(Ok(caps)) => PrinterView {
            state: caps.state.clone(),
            accepting_jobs: caps.accepting_jobs,
            message: None,
            capabilities: Some(caps),
            printer,
        },
        Ok(Err(e)) => unreachable_view(printer, e.to_string()),
        Err(_) => unreachable_view(printer, format!("no answer within {} s", CAPABILITIES_TIMEOUT.as_secs())),
    }
}

fn unreachable_view(printer: Printer, message: String) -> PrinterView {
    PrinterView {
        printer,
        state: "unreachable".into(),
        accepting_jobs: false,
        message: Some(message),
        capabilities: None,
    }
}

async fn list(state: web::Data<AppState>, _org: Org) -> AppResult<HttpResponse> {
    let service = state.print_service()?;
    let views = futures_util::future::join_all(service.printers().into_iter().map(|p| describe(service, p))).await;
    Ok(HttpResponse::Ok().json(views))
}

/// The job as shown, with whether a cancel is on its way.
fn followed_view<'a>(service: &PrintService, job: &'a PrintJob) -> JobView<'a> {
    JobView { cancelling: !job.state.is_final() && service.cancel_requested(job.id), ..job_view(job) }
}

async fn jobs(state: web::Data<AppState>, org: Org) -> AppResult<HttpResponse> {
    let service = state.print_service()?;
    let all = service.list()?;
    let mine: Vec<JobView> = all
        .iter()
        .filter(|j| j.division == Some(org.division))
        .take(JOB_LIST_LIMIT)
        .map(|j| followed_view(service, j))
        .collect();
    Ok(HttpResponse::Ok().json(mine))
}

async fn job(state: web::Data<AppState>, org: Org, id: web::Path<u64>) -> AppResult<HttpResponse> {
    let id = id.into_inner();
    // Another organization's job is answered like a missing one.
    let service = state.print_service()?;
    match service.status(id)? {
        Some(job) if job.division == Some(org.division) => Ok(HttpResponse::Ok().json(followed_view(service, &job))),
        _ => Err(AppError::with_message(Code::NotFound, format!("No print job {id}"))),
    }
}

async fn cancel(state: web::Data<AppState>, org: Org, session: Session, id: web::Path<u64>) -> AppResult<HttpResponse> {
    let id = id.into_inner();
    let service = state.print_service()?;
    let not_found = || AppError::with_message(Code::NotFound, format!("No print job {id}"));
    // Another organization's job is answered like a missing one, and left alone.
    match service.status(id)? {
        Some(job) if job.division == Some(org.division) => {}
        _ => return Err(not_found()),
    }
    Ok(match service.cancel(id, &session.record.user_name)?.ok_or_else(not_found)? {
        Cancelled::Now(job) | Cancelled::Ended(job) => HttpResponse::Ok().json(job_view(&job)),
        Cancelled::Requested(job) => HttpResponse::Accepted().json(JobView { cancelling: true, ..job_view(&job) }),
    })
}

/// The printer an administrator accepts or withdraws.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct PrinterName {
    #[schema(example = "Zebra magazijn")]
    name: String,
}

async fn accept(
    state: web::Data<AppState>,
    _org: Org,
    session: Session,
    body: web::Json<PrinterName>,
) -> AppResult<HttpResponse> {
    let service = state.print_service()?;
    let name = body.name.trim();
    let uri = service.registry().accept(name).ok_or_else(|| {
        AppError::with_message(Code::NotFound, format!("No printer '{name}' was found on the network"))
    })?;
    let record = AcceptedPrinter { uri, by: session.record.user_name.clone(), at: chrono::Utc::now() };
    state.serverdb.put_json(ACCEPTED_PRINTERS, name, &record).map_err(AppError::internal)?;
    tracing::info!(printer = name, uri = %record.uri, by = %record.by, "printer accepted");
    let printer = service.registry().get(name).ok_or_else(|| AppError::new(Code::NotFound))?;
    Ok(HttpResponse::Ok().json(describe(service, printer).await))
}

async fn withdraw(
    state: web::Data<AppState>,
    _org: Org,
    session: Session,
    body: web::Json<PrinterName>,
) -> AppResult<HttpResponse> {
    let service = state.print_service()?;
    let name = body.name.trim();
    state.serverdb.remove(ACCEPTED_PRINTERS, name).map_err(AppError::internal)?;
    if !service.registry().withdraw(name) {
        return Err(AppError::with_message(Code::NotFound, format!("No printer '{name}' was found on the network")));
    }
    tracing::info!(printer = name, by = %session.record.user_name, "printer acceptance withdrawn");
    Ok(HttpResponse::NoContent().finish())
}
