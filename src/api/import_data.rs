//! ImportData (spec §2: full access plus a fresh re-authentication): export the organization's
//! local copy as NDJSON, and import such a file, with a dry run for the preview. The file, its
//! checks and how an import is applied are `crate::export_file`; here are the download and the
//! upload.

use super::router::Router;
use crate::auth::tier::Session;
use crate::error::{AppError, AppResult, Code};
use crate::export_file::{ExportRows, Report, apply, check, header};
use crate::state::AppState;
use actix_web::{HttpResponse, web};
use bytes::Bytes;
use futures_util::StreamExt;
use serde::Deserialize;
use std::io::Write;
use utoipa::IntoParams;

pub fn routes(r: &mut Router) {
    r.import_data("/importData/export", |res| {
        res.get(export).admin().bytes(
            200,
            "application/x-ndjson",
            "The local copy as NDJSON: a header line, then one `{\"table\", \"row\"}` line per row",
        )
    });
    r.import_data("/importData/import", |res| {
        res.post(import)
            .admin()
            .upload("application/x-ndjson")
            .query::<ImportQuery>()
            .json::<Report>(200, "The file is good: imported, or only checked on a dry run")
            .json::<Report>(422, "The file has errors: nothing was imported")
            .fails(&[Code::EmptyPayload, Code::PayloadTooLarge, Code::SyncRunning])
    });
}

// Largest file an import takes.
use crate::limits::IMPORT_MAX_BYTES as MAX_IMPORT_BYTES;

/// One NDJSON stream: the header line, then `{"table", "row"}` per row, table by table.
async fn export(state: web::Data<AppState>, session: Session) -> AppResult<HttpResponse> {
    let division = session.record.division;
    let store = state.stores.get(division)?;
    let first = Bytes::from(format!("{}\n", header(&store, division)?));
    tracing::info!(division, "export started");
    let rows = futures_util::stream::unfold(ExportRows::new(store), move |mut rows| async move {
        match rows.next_chunk() {
            Ok(Some(chunk)) => Some((Ok(Bytes::from(chunk)), rows)),
            Ok(None) => None,
            Err(e) => {
                tracing::error!(division, error = %e, "export failed");
                Some((Err(actix_web::error::ErrorInternalServerError("export failed")), rows))
            }
        }
    });
    let stream = futures_util::stream::once(async move { Ok::<Bytes, actix_web::Error>(first) }).chain(rows);
    let file = format!("stock-manager-{division}-{}.ndjson", chrono::Local::now().format("%Y%m%d-%H%M"));
    Ok(HttpResponse::Ok()
        .content_type("application/x-ndjson")
        .insert_header(("Content-Disposition", format!("attachment; filename=\"{file}\"")))
        .streaming(stream))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ImportQuery {
    /// Only check the file and tell what it holds; nothing is written.
    #[serde(default, rename = "dryRun")]
    dry_run: bool,
}

/// A temporary copy of the upload, removed when dropped.
struct Upload(std::path::PathBuf);

impl Drop for Upload {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

async fn import(
    state: web::Data<AppState>,
    session: Session,
    q: web::Query<ImportQuery>,
    mut body: web::Payload,
) -> AppResult<HttpResponse> {
    let division = session.record.division;
    let upload = Upload(state.config.data_dir.join(format!("import-{}.ndjson", uuid::Uuid::new_v4().simple())));
    let mut file = std::fs::File::create(&upload.0).map_err(AppError::internal)?;
    let mut size = 0usize;
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| {
            if super::slow_bodies::too_slow(&e) {
                AppError::new(Code::RequestTimeout)
            } else {
                AppError::bad_request(format!("the upload broke off: {e}"))
            }
        })?;
        size += chunk.len();
        if size > MAX_IMPORT_BYTES {
            return Err(AppError::new(Code::PayloadTooLarge));
        }
        file.write_all(&chunk).map_err(AppError::internal)?;
    }
    file.flush().map_err(AppError::internal)?;
    drop(file);
    if size == 0 {
        return Err(AppError::new(Code::EmptyPayload));
    }

    // Pass 1: check everything; nothing is written unless the whole file is good.
    let (mut report, timestamps) = check(&upload.0, division)?;
    report.dry_run = q.dry_run;
    if report.error_count > 0 || q.dry_run {
        let status = if report.error_count > 0 { 422 } else { 200 };
        return Ok(HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap_or_default()).json(report));
    }
    if state.sync.is_running(division) {
        return Err(AppError::new(Code::SyncRunning));
    }
    // Pass 2: replace each table the file holds; its timestamp lands with its last batch.
    let store = state.stores.get(division)?;
    let path = upload.0.clone();
    let tables: Vec<String> = report.tables.keys().cloned().collect();
    let store2 = store.clone();
    super::blocking(move || apply(&store2, &path, &tables, &timestamps).map_err(AppError::internal)).await?;
    report.applied = true;
    tracing::info!(division, tables = report.tables.len(), "import applied");
    Ok(HttpResponse::Ok().json(report))
}
