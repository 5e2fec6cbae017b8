//! `GET /api/v1/scanning/catalogue` (full access): what a handheld keeps to resolve scans while
//! it cannot reach the server: the organization's items, warehouses, storage locations, stock per
//! location and per warehouse, and the material lines of the open and in-process shop orders,
//! from the local copy. Column tuples that refer to each other by index rather than objects, so
//! a large organization's catalogue stays small on a handheld (docs/BENCHMARKS.md has the size).
//!
//! The ETag is made from the copy's sync state and the live caches' fetch times, which is cheap
//! to compute: a handheld asking with `If-None-Match` after an unchanged copy gets a 304 without
//! the catalogue being built.

use super::router::Router;
use super::scanning::{ACTIVE_SHOP_ORDER_STATUSES, PLAN_TYPE_MATERIAL, all_rows};
use super::scope::Org;
use crate::error::{AppError, AppResult, Code};
use crate::exact::odata;
use crate::state::AppState;
use crate::store::{OrgStore, StoreResult};
use actix_web::http::header::{self, EntityTag, IfNoneMatch};
use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

/// The catalogue's layout; a new one changes every ETag, so handhelds fetch it again.
pub const FORMAT: u32 = 1;
/// Order ids per material-line query: keeps each `in.(…)` list short.
const ORDERS_PER_QUERY: usize = 100;
/// Live tables whose cached rows the catalogue reads.
const LIVE_TABLES: [&str; 2] = ["storageLocations", "warehouses"];

pub fn routes(r: &mut Router) {
    r.full("/scanning/catalogue", |res| res.get(get));
}

async fn get(state: web::Data<AppState>, org: Org, req: HttpRequest) -> AppResult<HttpResponse> {
    let store = state.stores.get(org.division)?;
    let division = org.division;
    let blocked = |e: actix_web::error::BlockingError| AppError::new(Code::TableInfo).caused_by(anyhow::anyhow!("{e}"));
    let current = store.clone();
    let tag = web::block(move || etag(&current, division)).await.map_err(blocked)??;
    let entity = EntityTag::new_strong(tag);
    let fresh = match req.get_header::<IfNoneMatch>() {
        Some(IfNoneMatch::Any) => true,
        Some(IfNoneMatch::Items(tags)) => tags.iter().any(|t| t.weak_eq(&entity)),
        None => false,
    };
    let mut res = if fresh { HttpResponse::NotModified() } else { HttpResponse::Ok() };
    // revalidated on every use: the handheld decides when to ask, the tag whether to send
    res.insert_header(header::ETag(entity.clone())).insert_header((header::CACHE_CONTROL, "private, no-cache"));
    if fresh {
        return Ok(res.finish());
    }
    let body = built(store, division, entity.tag().to_string()).await?;
    res.content_type("application/json").insert_header((header::VARY, "Accept-Encoding"));
    // gzipped once at its best level when built, rather than by the middleware for each handheld
    if takes_gzip(&req) {
        return Ok(res.insert_header(header::ContentEncoding::Gzip).body(body));
    }
    // a client without gzip is rare (browsers all take it): unpacked for it alone
    let json = web::block(move || -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&body[..]), &mut out)?;
        Ok(out)
    })
    .await
    .map_err(|e| AppError::new(Code::TableInfo).caused_by(anyhow::anyhow!("{e}")))?
    .map_err(AppError::internal)?;
    Ok(res.body(json))
}

/// Whether the request's `Accept-Encoding` takes gzip (and does not refuse it with `q=0`).
fn takes_gzip(req: &HttpRequest) -> bool {
    req.headers().get_all(header::ACCEPT_ENCODING).filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(',')).any(
        |part| {
            let mut bits = part.split(';').map(str::trim);
            let gzip = bits.next().is_some_and(|name| name.eq_ignore_ascii_case("gzip") || name == "*");
            let refused = bits.any(|p| p.strip_prefix("q=").and_then(|q| q.parse::<f32>().ok()) == Some(0.0));
            gzip && !refused
        },
    )
}

/// The JSON gzipped at the best level: built once per version, so its cost is paid once.
pub fn gzip(json: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::with_capacity(json.len() / 4), flate2::Compression::best());
    gz.write_all(json)?;
    gz.finish()
}

/// The last catalogue built per organization, gzipped (a quarter of the JSON's memory), with its tag.
static BUILT: Mutex<BTreeMap<i64, (String, web::Bytes)>> = Mutex::new(BTreeMap::new());
/// One build at a time: after a sync every handheld asks at once, and a large organization's
/// catalogue takes seconds to build (docs/BENCHMARKS.md); the others wait and get that one.
static BUILDING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn cached(division: i64, tag: &str) -> Option<web::Bytes> {
    BUILT.lock().get(&division).filter(|(t, _)| t == tag).map(|(_, b)| b.clone())
}

/// The organization's catalogue of version `tag`, built once.
async fn built(store: std::sync::Arc<OrgStore>, division: i64, tag: String) -> AppResult<web::Bytes> {
    if let Some(body) = cached(division, &tag) {
        return Ok(body);
    }
    let _one = BUILDING.lock().await;
    if let Some(body) = cached(division, &tag) {
        return Ok(body);
    }
    let body = web::block(move || -> AppResult<web::Bytes> {
        let json = build(&store, division)?;
        Ok(gzip(&json).map_err(AppError::internal)?.into())
    })
    .await
    .map_err(|e| AppError::new(Code::TableInfo).caused_by(anyhow::anyhow!("{e}")))??;
    BUILT.lock().insert(division, (tag, body.clone()));
    Ok(body)
}

/// The catalogue's version: changes with every sync (its tables' timestamps and end time) and
/// every fetch of the live tables it reads, so an unchanged tag means an unchanged catalogue.
pub fn etag(store: &OrgStore, division: i64) -> StoreResult<String> {
    let sync = store.sync_state()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (FORMAT, division, &sync.timestamps, &sync.last_sync, sync.deleted_entries_sync_timestamp).hash(&mut h);
    for table in LIVE_TABLES {
        store.kv_get(&format!("{}{table}", crate::store::meta::KV_CACHE_PREFIX))?.hash(&mut h);
        store.row_count(table)?.hash(&mut h);
    }
    Ok(format!("c{FORMAT}-{division}-{:016x}", h.finish()))
}

/// `[ID, Code, Description]`
type WarehouseRow = (String, Option<String>, Option<String>);
/// `[ID, Code, Description, warehouse index]`
type LocationRow = (String, String, Option<String>, Option<usize>);
/// `[ID, Code, Description, Unit, Barcode, fractions allowed (0/1)]`
type ItemRow = (String, String, Option<String>, Option<String>, Option<String>, u8);
/// `[item index, location index, stock]` or `[item index, warehouse index, stock]`
type StockRow = (usize, usize, f64);
/// `[ID, ShopOrderNumber, Status, warehouse index, made item index, PlannedQuantity, ProducedQuantity]`
type OrderRow = (String, i64, i64, Option<usize>, Option<usize>, Option<f64>, Option<f64>);
/// `[ID, order index, item index, PlannedQuantity, IssuedQuantity]`
type PlanRow = (String, usize, usize, Option<f64>, Option<f64>);

/// The catalogue as sent. Every list refers to the ones above it by position.
#[derive(Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Catalogue {
    pub format: u32,
    pub division: i64,
    /// The end of the copy's last sync (epoch ms): the catalogue's "as of".
    pub as_of: Option<i64>,
    pub warehouses: Vec<WarehouseRow>,
    pub locations: Vec<LocationRow>,
    pub items: Vec<ItemRow>,
    /// Stock per item per storage location (storageLocationStockPositions).
    pub location_stock: Vec<StockRow>,
    /// Stock per item per warehouse (stockPositions).
    pub warehouse_stock: Vec<StockRow>,
    /// Open (10) and in-process (20) shop orders, by number.
    pub orders: Vec<OrderRow>,
    /// Their material lines (type 1), by order number then line number.
    pub plans: Vec<PlanRow>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ItemIn {
    #[serde(rename = "ID")]
    id: Option<String>,
    code: Option<String>,
    description: Option<String>,
    unit: Option<String>,
    barcode: Option<String>,
    is_fraction_allowed_item: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct PlaceIn {
    #[serde(rename = "ID")]
    id: Option<String>,
    code: Option<String>,
    description: Option<String>,
    warehouse: Option<String>,
    warehouse_code: Option<String>,
    warehouse_description: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct LocationStockIn {
    item: Option<String>,
    storage_location: Option<String>,
    storage_location_code: Option<String>,
    storage_location_description: Option<String>,
    stock: Option<f64>,
    warehouse: Option<String>,
    warehouse_code: Option<String>,
    warehouse_description: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct WarehouseStockIn {
    item_id: Option<String>,
    current_stock: Option<f64>,
    warehouse: Option<String>,
    warehouse_code: Option<String>,
    warehouse_description: Option<String>,
}

fn lower(s: &Option<String>) -> Option<String> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_ascii_lowercase)
}

fn truthy(v: &Option<Value>) -> u8 {
    match v {
        Some(Value::Bool(b)) => *b as u8,
        Some(Value::Number(n)) => (n.as_f64().unwrap_or(0.0) != 0.0) as u8,
        _ => 0,
    }
}

/// Every row of a table, parsed as `T` (rows that do not parse are left out); nothing for a
/// table never filled.
fn each<T: for<'de> Deserialize<'de>>(store: &OrgStore, table: &str, mut visit: impl FnMut(T)) -> StoreResult<()> {
    if store.row_count(table)? == 0 {
        return Ok(());
    }
    store.for_each_row(table, |_, bytes| {
        if let Ok(row) = serde_json::from_slice::<T>(bytes) {
            visit(row);
        }
        true
    })
}

/// Indexes of the places (warehouses or storage locations) met so far, by lower-case ID.
#[derive(Default)]
struct Places {
    warehouses: Vec<WarehouseRow>,
    warehouse_at: HashMap<String, usize>,
    locations: Vec<LocationRow>,
    location_at: HashMap<String, usize>,
}

impl Places {
    fn warehouse(&mut self, id: &Option<String>, code: &Option<String>, description: &Option<String>) -> Option<usize> {
        let id = lower(id)?;
        if let Some(&i) = self.warehouse_at.get(&id) {
            let w = &mut self.warehouses[i];
            // a row that names the warehouse fills in what an earlier one left out
            if w.1.is_none() {
                w.1.clone_from(code);
            }
            if w.2.is_none() {
                w.2.clone_from(description);
            }
            return Some(i);
        }
        self.warehouses.push((id.clone(), code.clone(), description.clone()));
        self.warehouse_at.insert(id, self.warehouses.len() - 1);
        Some(self.warehouses.len() - 1)
    }

    fn location(
        &mut self,
        id: &Option<String>,
        code: &Option<String>,
        description: &Option<String>,
        warehouse: Option<usize>,
    ) -> Option<usize> {
        let id = lower(id)?;
        if let Some(&i) = self.location_at.get(&id) {
            return Some(i);
        }
        let code = code.as_deref().map(str::trim).filter(|c| !c.is_empty())?.to_string();
        self.locations.push((id.clone(), code, description.clone(), warehouse));
        self.location_at.insert(id, self.locations.len() - 1);
        Some(self.locations.len() - 1)
    }
}

/// The end of the last sync, an ISO time with its offset, as epoch milliseconds.
fn as_of(store: &OrgStore) -> StoreResult<Option<i64>> {
    Ok(store
        .sync_state()?
        .last_sync
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(&s).ok())
        .map(|t| t.timestamp_millis()))
}

/// The organization's catalogue from its local copy, as JSON.
pub fn build(store: &OrgStore, division: i64) -> StoreResult<Vec<u8>> {
    let c = catalogue(store, division)?;
    // tuples of strings and numbers always serialize
    serde_json::to_vec(&c).map_err(|e| crate::store::StoreError::Corrupt(e.to_string()))
}

pub fn catalogue(store: &OrgStore, division: i64) -> StoreResult<Catalogue> {
    let mut places = Places::default();
    each::<PlaceIn>(store, "warehouses", |w| {
        places.warehouse(&w.id, &w.code, &w.description);
    })?;
    each::<PlaceIn>(store, "storageLocations", |l| {
        let w = places.warehouse(&l.warehouse, &l.warehouse_code, &l.warehouse_description);
        places.location(&l.id, &l.code, &l.description, w);
    })?;

    let mut items = Vec::new();
    each::<ItemIn>(store, "items", |i| {
        let (Some(id), Some(code)) = (lower(&i.id), i.code.clone()) else { return };
        items.push((
            id,
            code,
            i.description,
            i.unit,
            i.barcode.filter(|b| !b.trim().is_empty()),
            truthy(&i.is_fraction_allowed_item),
        ));
    })?;
    // by code: neighbouring codes and descriptions share much, which gzip finds
    items.sort_by(|a: &ItemRow, b: &ItemRow| a.1.cmp(&b.1));
    let item_at: HashMap<String, usize> = items.iter().enumerate().map(|(i, it)| (it.0.clone(), i)).collect();

    let mut location_stock = Vec::new();
    each::<LocationStockIn>(store, "storageLocationStockPositions", |s| {
        let Some(&item) = lower(&s.item).and_then(|id| item_at.get(&id)) else { return };
        let w = places.warehouse(&s.warehouse, &s.warehouse_code, &s.warehouse_description);
        let Some(l) =
            places.location(&s.storage_location, &s.storage_location_code, &s.storage_location_description, w)
        else {
            return;
        };
        location_stock.push((item, l, s.stock.unwrap_or(0.0)));
    })?;

    let mut warehouse_stock = Vec::new();
    each::<WarehouseStockIn>(store, "stockPositions", |s| {
        let Some(&item) = lower(&s.item_id).and_then(|id| item_at.get(&id)) else { return };
        let Some(w) = places.warehouse(&s.warehouse, &s.warehouse_code, &s.warehouse_description) else { return };
        warehouse_stock.push((item, w, s.current_stock.unwrap_or(0.0)));
    })?;

    // by item, so the positions run in order (they compress to little) and a handheld groups them cheaply
    location_stock.sort_by_key(|s: &StockRow| (s.0, s.1));
    warehouse_stock.sort_by_key(|s: &StockRow| (s.0, s.1));
    let (orders, plans) = open_orders(store, &mut places, &item_at)?;
    Ok(Catalogue {
        format: FORMAT,
        division,
        as_of: as_of(store)?,
        warehouses: places.warehouses,
        locations: places.locations,
        items,
        location_stock,
        warehouse_stock,
        orders,
        plans,
    })
}

fn num(row: &Value, key: &str) -> Option<f64> {
    row.get(key).and_then(Value::as_f64)
}

fn text(row: &Value, key: &str) -> Option<String> {
    row.get(key).and_then(Value::as_str).map(str::to_string)
}

/// The open and in-process shop orders (by number) and their material lines (by order, then line).
fn open_orders(
    store: &OrgStore,
    places: &mut Places,
    item_at: &HashMap<String, usize>,
) -> StoreResult<(Vec<OrderRow>, Vec<PlanRow>)> {
    let mut found = all_rows(store, "shopOrders", &[("Status", ACTIVE_SHOP_ORDER_STATUSES)])?;
    found.sort_by_key(|o| o.get("ShopOrderNumber").and_then(Value::as_i64).unwrap_or(i64::MAX));
    let mut orders = Vec::new();
    let mut order_at: HashMap<String, usize> = HashMap::new();
    for o in &found {
        let (Some(id), Some(number)) = (lower(&text(o, "ID")), o.get("ShopOrderNumber").and_then(Value::as_i64)) else {
            continue;
        };
        if !odata::is_guid(&id) {
            continue;
        }
        let w = places.warehouse(&text(o, "Warehouse"), &text(o, "WarehouseCode"), &text(o, "WarehouseDescription"));
        let made = lower(&text(o, "Item")).and_then(|i| item_at.get(&i).copied());
        let status = o.get("Status").and_then(Value::as_i64).unwrap_or(0);
        order_at.insert(id.clone(), orders.len());
        orders.push((id, number, status, w, made, num(o, "PlannedQuantity"), num(o, "ProducedQuantity")));
    }
    let ids: Vec<String> = orders.iter().map(|o| o.0.clone()).collect();
    let mut lines: Vec<(usize, i64, PlanRow)> = Vec::new();
    for chunk in ids.chunks(ORDERS_PER_QUERY) {
        let in_list = format!("in.({})", chunk.join(","));
        for p in
            all_rows(store, "shopOrderMaterialPlans", &[("ShopOrder", in_list.as_str()), ("Type", PLAN_TYPE_MATERIAL)])?
        {
            let order = lower(&text(&p, "ShopOrder")).and_then(|o| order_at.get(&o).copied());
            let item = lower(&text(&p, "Item")).and_then(|i| item_at.get(&i).copied());
            let (Some(order), Some(item), Some(id)) = (order, item, lower(&text(&p, "ID"))) else { continue };
            let line = p.get("LineNumber").and_then(Value::as_i64).unwrap_or(i64::MAX);
            lines.push((order, line, (id, order, item, num(&p, "PlannedQuantity"), num(&p, "IssuedQuantity"))));
        }
    }
    lines.sort_by_key(|(order, line, _)| (*order, *line));
    Ok((orders, lines.into_iter().map(|(_, _, p)| p).collect()))
}
