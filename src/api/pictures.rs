//! Item pictures (full access, spec §7), named after the spec's calls: read one
//! (`getItemPictureDBStorage`, the image itself with caching headers) or a batch (as data URLs),
//! set from provider URLs, remove; `GET /pictures/{itemid}` is the URL the UI puts in `<img>`,
//! `GET /pictures/status` tells how the fetcher is doing. Everything works in the session's
//! organization.

use super::router::{Res, Router};
use super::scope::Org;
use crate::auth::tier::Session;
use crate::error::{AppError, AppResult, Code};
use crate::exact::tokens::UserToken;
use crate::pictures::SetOutcome;
use crate::pictures::store::Image;
use crate::state::AppState;
use actix_web::http::header::{self, ContentEncoding, EntityTag, IfNoneMatch};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use base64::Engine;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

pub fn routes(r: &mut Router) {
    r.full("/getItemPictureDBStorage", |res| picture(res.get(get_one).query::<OneQuery>()));
    r.full("/getItemPictureDBStorageBatch", |res| {
        res.get(get_batch)
            .query::<BatchQuery>()
            .json::<BatchPictures>(200, "Each item's picture as a data URL, or null when none is stored")
    });
    r.full("/setItemPictureDBStorage", |res| {
        res.put(set_one)
            .body::<SetBody>()
            .json::<SetOutcomeView>(200, "The picture, fetched from the provider and stored (or removed)")
            .fails(&[Code::Provider, Code::ProviderSignIn, Code::ProviderUnreachable])
    });
    r.full("/setBatchItemPictureDBStorage", |res| {
        res.put(set_batch)
            .body::<SetBatchBody>()
            .json::<SetBatchOutcome>(200, "What became of each picture; one that failed says why")
            .fails(&[Code::EmptyPayload, Code::ProviderSignIn])
    });
    r.full("/removePictureDBStorage", |res| {
        res.put(remove_one).body::<RemoveBody>().json::<RemovedOne>(200, "Whether a picture was stored and is removed")
    });
    r.full("/removePictureDBStorageBatch", |res| {
        res.put(remove_batch)
            .body::<RemoveBatchBody>()
            .json::<RemovedCount>(200, "How many stored pictures were removed")
            .fails(&[Code::EmptyPayload])
    });
    // Before `/pictures/{itemid}`, so it is never taken for an item id.
    r.full("/pictures/status", |res| {
        res.get(status).json::<crate::pictures::Status>(200, "How the organization's picture fetcher is doing")
    });
    r.full("/pictures/{itemid}", |res| picture(res.get(by_path).query::<PathQuery>()));
}

/// The answers of a read of one stored picture.
fn picture(res: Res) -> Res {
    res.bytes(200, "image/*", "The picture (or its thumbnail)")
        .empty(304, "Unchanged since the ETag sent in If-None-Match")
        .header("ETag", "The picture's version, to revalidate with (If-None-Match)")
        .fails(&[Code::NotFound])
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

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct OneQuery {
    /// The item's ID.
    #[param(example = "0badc0de-0000-4000-8000-000000000007")]
    itemid: String,
    /// The thumbnail instead of the picture.
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

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct PathQuery {
    /// The thumbnail instead of the picture.
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

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct BatchQuery {
    /// Comma-separated item ids.
    #[serde(default)]
    #[param(example = "0badc0de-0000-4000-8000-000000000007,0badc0de-0000-4000-8000-00000000000c")]
    items: String,
    /// Thumbnails instead of the pictures.
    #[serde(default)]
    thumbnails: bool,
}

/// One item's stored picture, inlined.
#[derive(Serialize, ToSchema)]
struct BatchPicture {
    #[serde(rename = "itemID")]
    #[schema(example = "0badc0de-0000-4000-8000-000000000007")]
    item_id: String,
    /// `data:{type};base64,…`, or null when nothing is stored.
    #[serde(rename = "imageData")]
    #[schema(example = "data:image/jpeg;base64,/9j/4AAQSkZJRg==")]
    #[schema(required = true)]
    image_data: Option<String>,
    /// `OK`, or that no picture is stored.
    #[schema(example = "OK")]
    message: &'static str,
}

/// The pictures of a batch read, in the order asked.
#[derive(Serialize, ToSchema)]
struct BatchPictures {
    #[serde(rename = "itemsPictures")]
    items_pictures: Vec<BatchPicture>,
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
    Ok(HttpResponse::Ok().json(BatchPictures { items_pictures: out }))
}

/// A picture to set: the provider URLs of the original and, optionally, of the thumbnail.
/// (`ItemID`, `Url` and `ThumbnailUrl`, the provider's names, are taken too.)
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct SetBody {
    #[serde(rename = "itemID", alias = "ItemID")]
    #[schema(example = "0badc0de-0000-4000-8000-000000000007")]
    item_id: String,
    /// The provider's placeholder (or an empty URL) removes the stored picture instead.
    #[serde(rename = "imageURL", alias = "Url")]
    #[schema(
        example = "https://start.exactonline.nl/docs/SysImage.aspx?Table=Items&ID=0badc0de-0000-4000-8000-000000000007"
    )]
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

/// The `status` of a picture stored (one value each, so an outcome's shape is known by it).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
enum PictureStored {
    Stored,
}

/// The `status` of a picture removed because the provider has none.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
enum PictureRemoved {
    Removed,
}

/// The `status` of a picture of a batch that failed (the others went on).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
enum PictureFailed {
    Error,
}

/// A picture stored, or removed because the provider has none.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
enum SetOutcomeView {
    #[serde(rename_all = "camelCase")]
    Stored {
        #[serde(rename = "itemID")]
        #[schema(example = "0badc0de-0000-4000-8000-000000000007")]
        item_id: String,
        status: PictureStored,
        #[schema(example = "OK")]
        message: &'static str,
        #[schema(example = "image/jpeg")]
        content_type: String,
        #[schema(example = 48_213)]
        size: u64,
        #[schema(example = "\"5d41402abc4b2a76\"")]
        etag: String,
        #[schema(example = "image/jpeg")]
        thumbnail_content_type: String,
    },
    Removed {
        #[serde(rename = "itemID")]
        item_id: String,
        status: PictureRemoved,
        /// Whether a picture was stored before.
        removed: bool,
        message: &'static str,
    },
}

/// A picture of a batch: as set alone, or why it failed.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
enum BatchOutcome {
    Set(SetOutcomeView),
    Failed {
        #[serde(rename = "itemID")]
        item_id: String,
        status: PictureFailed,
        #[schema(example = "The provider could not be reached")]
        message: String,
    },
}

/// What became of each picture of a batch, in the order sent.
#[derive(Serialize, ToSchema)]
struct SetBatchOutcome {
    #[serde(rename = "itemsPictures")]
    items_pictures: Vec<BatchOutcome>,
}

fn outcome_view(item_id: &str, outcome: &SetOutcome) -> SetOutcomeView {
    match outcome {
        SetOutcome::Stored(r) => SetOutcomeView::Stored {
            item_id: item_id.to_string(),
            status: PictureStored::Stored,
            message: "OK",
            content_type: r.content_type.clone(),
            size: r.size,
            etag: r.etag.clone(),
            thumbnail_content_type: r.thumbnail_content_type.clone(),
        },
        SetOutcome::Removed(was) => SetOutcomeView::Removed {
            item_id: item_id.to_string(),
            status: PictureRemoved::Removed,
            removed: *was,
            message: "The picture URL is the provider's placeholder: the item has no picture",
        },
    }
}

async fn provider_token(state: &AppState, session: &Session) -> AppResult<UserToken> {
    Ok(UserToken::checked(&state.tokens, &session.record.user).await?)
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
    Ok(HttpResponse::Ok().json(outcome_view(&id, &outcome)))
}

/// Pictures to set, each fetched from the provider.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct SetBatchBody {
    #[serde(rename = "itemsData")]
    #[schema(min_items = 1, max_items = 100)]
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
    let items_pictures = wanted
        .iter()
        .zip(results)
        .map(|((id, _, _), r)| match r {
            Ok(outcome) => BatchOutcome::Set(outcome_view(id, &outcome)),
            Err(e) => BatchOutcome::Failed {
                item_id: id.clone(),
                status: PictureFailed::Error,
                message: AppError::from(e).message().to_string(),
            },
        })
        .collect();
    Ok(HttpResponse::Ok().json(SetBatchOutcome { items_pictures }))
}

/// The item whose picture to remove (`itemID` is taken too).
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct RemoveBody {
    #[serde(rename = "ID", alias = "itemID")]
    #[schema(example = "0badc0de-0000-4000-8000-000000000007")]
    id: String,
}

/// The item, and whether a picture of it was stored.
#[derive(Serialize, ToSchema)]
struct RemovedOne {
    #[serde(rename = "ID")]
    #[schema(example = "0badc0de-0000-4000-8000-000000000007")]
    id: String,
    removed: bool,
}

/// How many stored pictures a batch removal removed.
#[derive(Serialize, ToSchema)]
struct RemovedCount {
    #[schema(example = 3)]
    removed: usize,
}

async fn remove_one(state: web::Data<AppState>, org: Org, body: web::Json<RemoveBody>) -> AppResult<HttpResponse> {
    let id = item_id(&body.id, "ID")?;
    let removed = state.pictures.remove(org.division, std::slice::from_ref(&id)).map_err(AppError::internal)?;
    Ok(HttpResponse::Ok().json(RemovedOne { id, removed: removed > 0 }))
}

/// The items whose pictures to remove.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct RemoveBatchBody {
    #[serde(rename = "IDs")]
    #[schema(min_items = 1, max_items = 1000, example = json!(["0badc0de-0000-4000-8000-000000000007"]))]
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
    Ok(HttpResponse::Ok().json(RemovedCount { removed }))
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
