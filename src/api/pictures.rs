//! Item pictures (full access, spec §7), named after the spec's calls: read one
//! (`getItemPictureDBStorage`, the image itself with caching headers) or a batch (as data URLs),
//! set from provider URLs, remove; `GET /pictures/{itemid}` is the URL the UI puts in `<img>`,
//! `GET /pictures/status` tells how the fetcher is doing. Everything works in the session's
//! organization.

use super::router::Router;
use super::scope::Org;
use crate::auth::tier::Session;
use crate::error::{AppError, AppResult, Code};
use crate::pictures::SetOutcome;
use crate::pictures::store::Image;
use crate::state::AppState;
use actix_web::http::header::{self, ContentEncoding, EntityTag, IfNoneMatch};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::json;

pub fn routes(r: &mut Router) {
    r.full("/getItemPictureDBStorage", |res| res.get(get_one));
    r.full("/getItemPictureDBStorageBatch", |res| res.get(get_batch));
    r.full("/setItemPictureDBStorage", |res| res.put(set_one));
    r.full("/setBatchItemPictureDBStorage", |res| res.put(set_batch));
    r.full("/removePictureDBStorage", |res| res.put(remove_one));
    r.full("/removePictureDBStorageBatch", |res| res.put(remove_batch));
    // Before `/pictures/{itemid}`, so it is never taken for an item id.
    r.full("/pictures/status", |res| res.get(status));
    r.full("/pictures/{itemid}", |res| res.get(by_path));
}

// Pictures per batch read (each one inlined as base64) and per batch set (each one fetched).
use crate::limits::PICTURE_MAX_BATCH as MAX_BATCH;
// Ids per batch removal.
use crate::limits::PICTURE_MAX_REMOVE as MAX_REMOVE;

/// An empty batch is the spec's "empty payload".
fn not_empty(len: usize) -> AppResult<()> {
    if len == 0 { Err(AppError::new(Code::EmptyPayload)) } else { Ok(()) }
}

/// A batch of `what` holds at most `max` entries.
fn within(len: usize, max: usize, what: &str) -> AppResult<()> {
    if len > max {
        return Err(AppError::bad_request(format!("at most {max} {what} per call, got {len}")));
    }
    Ok(())
}
/// Browsers reuse a picture this long, then revalidate with its ETag (a 304 when unchanged).
const CACHE_CONTROL: &str = "private, max-age=600";
const NO_PICTURE: &str = "No picture is stored for this item";

/// An item id: a GUID in any common spelling, answered in the provider's (lower-case, hyphens).
fn item_id(raw: &str, what: &str) -> AppResult<String> {
    uuid::Uuid::parse_str(raw.trim())
        .map(|u| u.hyphenated().to_string())
        .map_err(|_| AppError::bad_request(format!("{what} must be an item GUID, got '{}'", truncate(raw))))
}

/// Echoes at most a little of a bad value back.
fn truncate(s: &str) -> String {
    s.chars().take(60).collect()
}

fn image_response(req: &HttpRequest, img: Image) -> HttpResponse {
    let tag = EntityTag::new_strong(img.etag.trim_matches('"').to_string());
    let fresh = match req.get_header::<IfNoneMatch>() {
        Some(IfNoneMatch::Any) => true,
        Some(IfNoneMatch::Items(tags)) => tags.iter().any(|t| t.weak_eq(&tag)),
        None => false,
    };
    let mut res = if fresh { HttpResponse::NotModified() } else { HttpResponse::Ok() };
    res.insert_header(header::ETag(tag)).insert_header((header::CACHE_CONTROL, CACHE_CONTROL));
    if fresh {
        return res.finish();
    }
    // Images are compressed already: keep the compression middleware off them.
    res.insert_header(ContentEncoding::Identity).content_type(img.content_type).body(img.bytes)
}

fn stored_image(state: &AppState, org: Org, id: &str, thumbnail: bool) -> AppResult<Image> {
    state
        .pictures
        .image(org.division, id, thumbnail)
        .map_err(AppError::internal)?
        .ok_or_else(|| AppError::with_message(Code::NotFound, NO_PICTURE))
}

#[derive(Deserialize)]
struct OneQuery {
    itemid: String,
    #[serde(default)]
    thumbnail: bool,
}

async fn get_one(
    state: web::Data<AppState>,
    org: Org,
    req: HttpRequest,
    q: web::Query<OneQuery>,
) -> AppResult<HttpResponse> {
    let id = item_id(&q.itemid, "itemid")?;
    Ok(image_response(&req, stored_image(&state, org, &id, q.thumbnail)?))
}

#[derive(Deserialize)]
struct PathQuery {
    #[serde(default)]
    thumbnail: bool,
}

async fn by_path(
    state: web::Data<AppState>,
    org: Org,
    req: HttpRequest,
    path: web::Path<String>,
    q: web::Query<PathQuery>,
) -> AppResult<HttpResponse> {
    let id = item_id(&path, "the item id")?;
    Ok(image_response(&req, stored_image(&state, org, &id, q.thumbnail)?))
}

#[derive(Deserialize)]
struct BatchQuery {
    /// Comma-separated item ids.
    #[serde(default)]
    items: String,
    #[serde(default)]
    thumbnails: bool,
}

#[derive(Serialize)]
struct BatchPicture {
    #[serde(rename = "itemID")]
    item_id: String,
    /// `data:{type};base64,…`, or null when nothing is stored.
    #[serde(rename = "imageData")]
    image_data: Option<String>,
    message: &'static str,
}

async fn get_batch(state: web::Data<AppState>, org: Org, q: web::Query<BatchQuery>) -> AppResult<HttpResponse> {
    let raw: Vec<&str> = q.items.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    within(raw.len(), MAX_BATCH, "items")?;
    let ids = raw.iter().map(|s| item_id(s, "every item in items")).collect::<AppResult<Vec<_>>>()?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let img = state.pictures.image(org.division, &id, q.thumbnails).map_err(AppError::internal)?;
        out.push(match img {
            Some(img) => BatchPicture {
                item_id: id,
                image_data: Some(format!(
                    "data:{};base64,{}",
                    img.content_type,
                    base64::engine::general_purpose::STANDARD.encode(&img.bytes)
                )),
                message: "OK",
            },
            None => BatchPicture { item_id: id, image_data: None, message: NO_PICTURE },
        });
    }
    Ok(HttpResponse::Ok().json(json!({ "itemsPictures": out })))
}

/// A picture to set: the provider URLs of the original and, optionally, of the thumbnail.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetBody {
    #[serde(rename = "itemID", alias = "ItemID")]
    item_id: String,
    /// The provider's placeholder (or an empty URL) removes the stored picture instead.
    #[serde(rename = "imageURL", alias = "Url")]
    image_url: String,
    #[serde(rename = "thumbnailURL", alias = "ThumbnailUrl", default)]
    thumbnail_url: Option<String>,
}

/// A checked set request: the id normalised, the URLs known to be on the provider host.
fn checked(state: &AppState, org: Org, body: SetBody, at: &str) -> AppResult<(String, String, Option<String>)> {
    let id = item_id(&body.item_id, &format!("{at}itemID"))?;
    for url in [Some(&body.image_url), body.thumbnail_url.as_ref()].into_iter().flatten() {
        if crate::pictures::plan::real_url(Some(url)).is_some() {
            state
                .pictures
                .check_url(org.division, url.trim())
                .map_err(|e| AppError::bad_request(format!("{at}{e}")))?;
        }
    }
    Ok((id, body.image_url, body.thumbnail_url))
}

fn outcome_json(item_id: &str, outcome: &SetOutcome) -> serde_json::Value {
    match outcome {
        SetOutcome::Stored(r) => json!({
            "itemID": item_id, "status": "stored", "message": "OK", "contentType": r.content_type,
            "size": r.size, "etag": r.etag, "thumbnailContentType": r.thumbnail_content_type,
        }),
        SetOutcome::Removed(was) => json!({
            "itemID": item_id, "status": "removed", "removed": was,
            "message": "The picture URL is the provider's placeholder: the item has no picture",
        }),
    }
}

async fn provider_token(state: &AppState, session: &Session) -> AppResult<String> {
    Ok(state.tokens.access_token(&session.record.user).await?)
}

async fn set_one(
    state: web::Data<AppState>,
    session: Session,
    org: Org,
    body: web::Json<SetBody>,
) -> AppResult<HttpResponse> {
    let (id, url, thumb) = checked(&state, org, body.into_inner(), "")?;
    let token = provider_token(&state, &session).await?;
    let outcome = state.pictures.set(org.division, &token, &id, &url, thumb.as_deref()).await?;
    Ok(HttpResponse::Ok().json(outcome_json(&id, &outcome)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetBatchBody {
    #[serde(rename = "itemsData")]
    items_data: Vec<SetBody>,
}

async fn set_batch(
    state: web::Data<AppState>,
    session: Session,
    org: Org,
    body: web::Json<SetBatchBody>,
) -> AppResult<HttpResponse> {
    let items = body.into_inner().items_data;
    not_empty(items.len())?;
    within(items.len(), MAX_BATCH, "items")?;
    // Every entry is checked before anything is fetched.
    let wanted = items
        .into_iter()
        .enumerate()
        .map(|(i, b)| checked(&state, org, b, &format!("itemsData[{i}].")))
        .collect::<AppResult<Vec<_>>>()?;
    let token = provider_token(&state, &session).await?;
    let results = state.pictures.set_many(org.division, &token, &wanted).await;
    let out: Vec<serde_json::Value> = wanted
        .iter()
        .zip(results)
        .map(|((id, _, _), r)| match r {
            Ok(outcome) => outcome_json(id, &outcome),
            Err(e) => {
                let app = AppError::from(e);
                json!({"itemID": id, "status": "error", "message": app.message()})
            }
        })
        .collect();
    Ok(HttpResponse::Ok().json(json!({ "itemsPictures": out })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RemoveBody {
    #[serde(rename = "ID", alias = "itemID")]
    id: String,
}

async fn remove_one(state: web::Data<AppState>, org: Org, body: web::Json<RemoveBody>) -> AppResult<HttpResponse> {
    let id = item_id(&body.id, "ID")?;
    let removed = state.pictures.remove(org.division, std::slice::from_ref(&id)).map_err(AppError::internal)?;
    Ok(HttpResponse::Ok().json(json!({"ID": id, "removed": removed > 0})))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RemoveBatchBody {
    #[serde(rename = "IDs")]
    ids: Vec<String>,
}

async fn remove_batch(
    state: web::Data<AppState>,
    org: Org,
    body: web::Json<RemoveBatchBody>,
) -> AppResult<HttpResponse> {
    let raw = body.into_inner().ids;
    not_empty(raw.len())?;
    within(raw.len(), MAX_REMOVE, "IDs")?;
    let ids = raw.iter().enumerate().map(|(i, s)| item_id(s, &format!("IDs[{i}]"))).collect::<AppResult<Vec<_>>>()?;
    let removed = state.pictures.remove(org.division, &ids).map_err(AppError::internal)?;
    Ok(HttpResponse::Ok().json(json!({"removed": removed})))
}

async fn status(state: web::Data<AppState>, org: Org) -> AppResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(state.pictures.status(org.division).map_err(AppError::internal)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::MessageBody;
    use actix_web::test::TestRequest;

    fn header_of(res: &HttpResponse, name: &str) -> String {
        res.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string()
    }

    fn image() -> Image {
        Image { content_type: "image/png".into(), etag: "\"abc\"".into(), bytes: b"png".to_vec() }
    }

    #[test]
    fn item_ids_are_guids_in_the_providers_spelling() {
        let id = item_id(" {0F4C1E7A-0000-4000-8000-00000000002A} ", "ID").expect("braced, upper case");
        assert_eq!(id, "0f4c1e7a-0000-4000-8000-00000000002a");
        let err = item_id("../etc/passwd", "ID").expect_err("refused");
        assert_eq!(err.code(), Code::BadRequest);
        assert!(err.message().contains("ID must be an item GUID"), "{}", err.message());
    }

    #[test]
    fn images_carry_caching_headers_and_revalidate_to_304() {
        let req = TestRequest::default().to_http_request();
        let res = image_response(&req, image());
        assert_eq!(res.status(), 200);
        assert_eq!(header_of(&res, "etag"), "\"abc\"");
        assert_eq!(header_of(&res, "cache-control"), CACHE_CONTROL);
        assert_eq!(header_of(&res, "content-type"), "image/png");
        assert_eq!(res.into_body().try_into_bytes().expect("bytes").as_ref(), b"png");

        for sent in ["\"abc\"", "\"x\", W/\"abc\"", "*"] {
            let req = TestRequest::default().insert_header(("if-none-match", sent)).to_http_request();
            let res = image_response(&req, image());
            assert_eq!(res.status(), 304, "{sent}");
            assert_eq!(header_of(&res, "etag"), "\"abc\"");
        }
        let req = TestRequest::default().insert_header(("if-none-match", "\"other\"")).to_http_request();
        assert_eq!(image_response(&req, image()).status(), 200);
    }
}
