//! The offline scan catalogue (served by `api::scan_catalogue`): what a handheld keeps to resolve scans while
//! it cannot reach the server: the organization's items, warehouses, storage locations, stock per
//! location and per warehouse, and the material lines of the open and in-process shop orders,
//! from the local copy. One list per field, lists referring to each other by index, sorted
//! positions sent as differences and what the handheld can work out left out, so a large
//! organization's catalogue stays small (docs/BENCHMARKS.md has the size). Items, shop orders and
//! material lines go without their GUIDs (two thirds of the size): a booking made from the
//! catalogue names them by code and number (`super::references`), which the server looks up.
//! Warehouses and storage locations (a few thousand) keep theirs, base64 bytes.
//!
//! The ETag is made from the copy's sync state and the live caches' fetch times, which is cheap
//! to compute: a handheld asking with `If-None-Match` after an unchanged copy gets a 304 without
//! the catalogue being built.

use super::{ACTIVE_SHOP_ORDER_STATUSES, PLAN_TYPE_MATERIAL};
use crate::error::{AppError, AppResult};
use crate::exact::odata;
use crate::store::{OrgStore, StoreResult};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::Bytes;
use parking_lot::Mutex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use utoipa::ToSchema;

/// The catalogue's layout; a new one changes every ETag, so handhelds fetch it again. 4: the
/// warehouses without storage locations (`warehouses.unlocated`); 5: whether each item is
/// tracked by serial or batch numbers (`items.tracking`).
pub const FORMAT: u32 = 5;
/// Order ids per material-line query: keeps each `in.(…)` list short.
const ORDERS_PER_QUERY: usize = 100;
/// Live tables whose cached rows the catalogue reads.
const LIVE_TABLES: [&str; 2] = ["storageLocations", "warehouses"];

/// The gzipped catalogue unpacked, for the rare client that takes no gzip.
pub fn gunzip(body: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(body), &mut out)?;
    Ok(out)
}

/// The JSON gzipped at the best level: built once per version, so its cost is paid once.
pub fn gzip(json: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::with_capacity(json.len() / 4), flate2::Compression::best());
    gz.write_all(json)?;
    gz.finish()
}

/// The last catalogue built per organization, gzipped (a quarter of the JSON's memory), with its tag.
static BUILT: Mutex<BTreeMap<i64, (String, Bytes)>> = Mutex::new(BTreeMap::new());
/// One build at a time: after a sync every handheld asks at once, and a large organization's
/// catalogue takes seconds to build (docs/BENCHMARKS.md); the others wait and get that one.
static BUILDING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn cached(division: i64, tag: &str) -> Option<Bytes> {
    BUILT.lock().get(&division).filter(|(t, _)| t == tag).map(|(_, b)| b.clone())
}

/// The organization's catalogue of version `tag`, gzipped, built once.
pub async fn built(store: std::sync::Arc<OrgStore>, division: i64, tag: String) -> AppResult<Bytes> {
    if let Some(body) = cached(division, &tag) {
        return Ok(body);
    }
    let _one = BUILDING.lock().await;
    if let Some(body) = cached(division, &tag) {
        return Ok(body);
    }
    let body = tokio::task::spawn_blocking(move || -> AppResult<Bytes> {
        let json = build(&store, division)?;
        Ok(gzip(&json).map_err(AppError::internal)?.into())
    })
    .await
    .map_err(AppError::internal)??;
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
/// `[ID, Code, Description, Unit, Barcode, fractions allowed, tracking]`
type ItemRow = (String, String, Option<String>, Option<String>, Option<String>, bool, Tracking);

/// How an item's units are told apart, as Exact's `IsSerialItem` / `IsBatchItem` say: a
/// booking of a tracked item names its numbers, also one made on a handheld offline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tracking {
    None,
    Serial,
    Batch,
}

impl Tracking {
    fn of(serial: &Option<Value>, batch: &Option<Value>) -> Self {
        if truthy(serial) {
            Tracking::Serial
        } else if truthy(batch) {
            Tracking::Batch
        } else {
            Tracking::None
        }
    }

    fn letter(self) -> char {
        match self {
            Tracking::None => '0',
            Tracking::Serial => 's',
            Tracking::Batch => 'b',
        }
    }
}
/// `[item index, location index, stock]` or `[item index, warehouse index, stock]`
type StockRow = (usize, usize, f64);
/// `[ID, ShopOrderNumber, Status, warehouse index, made item index, PlannedQuantity, ProducedQuantity]`
type OrderRow = (String, i64, i64, Option<usize>, Option<usize>, Option<f64>, Option<f64>);
/// `[LineNumber, order index, item index, PlannedQuantity, IssuedQuantity]`
type PlanRow = (i64, usize, usize, Option<f64>, Option<f64>);

/// The catalogue's rows, every list referring to the ones above it by position; `wire` lays
/// them out as sent.
#[derive(Default)]
pub struct Catalogue {
    pub division: i64,
    /// The end of the copy's last sync (epoch ms): the catalogue's "as of".
    pub as_of: Option<i64>,
    pub warehouses: Vec<WarehouseRow>,
    /// Indexes of the warehouses that do not use storage locations (`UseStorageLocations` 0 in
    /// the live cache), in order: the handheld asks for no location there.
    pub unlocated: Vec<usize>,
    pub locations: Vec<LocationRow>,
    /// By code.
    pub items: Vec<ItemRow>,
    /// Stock per item per storage location (storageLocationStockPositions), by item then location.
    pub location_stock: Vec<StockRow>,
    /// Stock per item per warehouse (stockPositions), by item then warehouse.
    pub warehouse_stock: Vec<StockRow>,
    /// Open (10) and in-process (20) shop orders, by number.
    pub orders: Vec<OrderRow>,
    /// Their material lines (type 1) with something still to issue and a line number (what names
    /// them), by item, then order, then line number.
    pub plans: Vec<PlanRow>,
}

/// A column of GUIDs as one base64url string of their 16 bytes each, in the order of their hex
/// digits: 21⅓ characters a GUID instead of 38, and gzip gets it to about the GUIDs' entropy
/// (hex digits compress worse: gzip finds chance repeats in them that cost more than they save).
#[derive(Serialize, Default, ToSchema)]
#[serde(transparent)]
pub struct Guids(String);

impl Guids {
    /// `ids` are lower-case GUIDs (`guid`'s answers).
    fn of<'a>(ids: impl Iterator<Item = &'a String>) -> Self {
        let mut bytes = Vec::new();
        for id in ids {
            let digits: String = id.chars().filter(|c| *c != '-').collect();
            // a checked GUID's 32 digits always decode
            bytes.extend(hex::decode(digits).unwrap_or_else(|_| vec![0; 16]));
        }
        Guids(URL_SAFE_NO_PAD.encode(bytes))
    }
}

/// Each code as the length (in UTF-16 units, as the handheld's strings count) it shares with the
/// code before and the rest: sorted codes share long beginnings that gzip alone codes poorly.
#[derive(Serialize, Default, ToSchema)]
pub struct FrontCoded {
    pub shared: Vec<usize>,
    pub rest: Vec<String>,
}

impl FrontCoded {
    fn of<'a>(texts: impl Iterator<Item = &'a String>) -> Self {
        let mut c = FrontCoded::default();
        let mut before = "";
        for text in texts {
            let (mut units, mut bytes) = (0, 0);
            for (a, b) in text.chars().zip(before.chars()) {
                if a != b {
                    break;
                }
                units += a.len_utf16();
                bytes += a.len_utf8();
            }
            c.shared.push(units);
            c.rest.push(text[bytes..].to_string());
            before = text;
        }
        c
    }
}

/// A quantity as sent: a whole number without the `.0` serde gives an `f64` (most stock is whole).
#[derive(Clone, Copy, ToSchema)]
pub struct Qty(f64);

impl Serialize for Qty {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // below 2^53 a whole f64 is exactly an i64
        if self.0.fract() == 0.0 && self.0.abs() < 9.0e15 {
            s.serialize_i64(self.0 as i64)
        } else {
            s.serialize_f64(self.0)
        }
    }
}

/// Stock rows, each field a column. By item then place, so `item` is each row's item index less
/// the row before's (mostly 0 or 1), and `place` the place's index less the row before's when the
/// item is the same, else the place's index.
#[derive(Serialize, Default, ToSchema)]
pub struct StockColumns {
    pub item: Vec<usize>,
    pub place: Vec<usize>,
    /// For stock per warehouse: null where it is the sum of the item's stock at the warehouse's
    /// storage locations (added in their order), as it mostly is.
    pub stock: Vec<Option<Qty>>,
}

impl StockColumns {
    fn of(rows: &[StockRow], derived: impl Fn(usize, usize) -> Option<f64>) -> Self {
        let mut c = StockColumns::default();
        let (mut item, mut place) = (0, 0);
        for &(i, p, stock) in rows {
            c.item.push(i - item);
            c.place.push(if i == item { p - place } else { p });
            c.stock.push((derived(i, p) != Some(stock)).then_some(Qty(stock)));
            (item, place) = (i, p);
        }
        c
    }
}

/// The distinct values of a column, each once, and each row's index among them.
fn dictionary<'a>(values: impl Iterator<Item = &'a Option<String>>) -> (Vec<Option<String>>, Vec<usize>) {
    let mut distinct = Vec::new();
    let mut at: HashMap<&Option<String>, usize> = HashMap::new();
    let indexes = values
        .map(|v| {
            *at.entry(v).or_insert_with(|| {
                distinct.push(v.clone());
                distinct.len() - 1
            })
        })
        .collect();
    (distinct, indexes)
}

#[derive(Serialize, Default, ToSchema)]
pub struct WarehouseColumns {
    pub id: Guids,
    pub code: Vec<Option<String>>,
    pub description: Vec<Option<String>>,
    /// Indexes of the warehouses without storage locations (a few, so a list of them rather than
    /// a flag per warehouse).
    pub unlocated: Vec<usize>,
}

#[derive(Serialize, Default, ToSchema)]
pub struct LocationColumns {
    pub id: Guids,
    pub code: Vec<String>,
    pub description: Vec<Option<String>>,
    /// Warehouse index.
    pub warehouse: Vec<Option<usize>>,
}

/// Items by code (what names them: `item:{code}`).
#[derive(Serialize, Default, ToSchema)]
pub struct ItemColumns {
    pub code: FrontCoded,
    pub description: Vec<Option<String>>,
    /// The units met, each once.
    pub units: Vec<Option<String>>,
    /// Each item's unit, by index in `units`.
    pub unit: Vec<usize>,
    pub barcode: Vec<Option<String>>,
    /// One `1` (fractions allowed) or `0` per item.
    pub fractions: String,
    /// One letter per item: `s` tracked by serial numbers, `b` by batches, `0` neither.
    pub tracking: String,
}

/// Shop orders by number (what names them: `shopOrder:{number}`).
#[derive(Serialize, Default, ToSchema)]
pub struct OrderColumns {
    /// By number: the first order's number, then each one's less the one before's.
    pub number: Vec<i64>,
    pub status: Vec<i64>,
    /// Warehouse index.
    pub warehouse: Vec<Option<usize>>,
    /// The made item's index.
    pub item: Vec<Option<usize>>,
    pub planned: Vec<Option<Qty>>,
    pub produced: Vec<Option<Qty>>,
}

/// Material lines (named `plan:{shop order number}/{line number}`).
#[derive(Serialize, Default, ToSchema)]
pub struct PlanColumns {
    /// By item: the item's index less the line before's (mostly 0 or 1).
    pub item: Vec<usize>,
    /// The order's index.
    pub order: Vec<usize>,
    /// The line's number on its order.
    pub line: Vec<i64>,
    pub planned: Vec<Option<Qty>>,
    pub issued: Vec<Option<Qty>>,
}

/// The catalogue as sent: one list per field (columns compress far better than rows), positions
/// as differences where the rows are sorted by them, places' GUIDs as base64 bytes.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = ScanCatalogue)]
pub struct Wire {
    pub format: u32,
    pub division: i64,
    #[schema(required = true)]
    pub as_of: Option<i64>,
    pub warehouses: WarehouseColumns,
    pub locations: LocationColumns,
    pub items: ItemColumns,
    pub location_stock: StockColumns,
    pub warehouse_stock: StockColumns,
    pub orders: OrderColumns,
    pub plans: PlanColumns,
}

impl Catalogue {
    pub fn wire(&self) -> Wire {
        let w = &self.warehouses;
        let l = &self.locations;
        let i = &self.items;
        let o = &self.orders;
        let p = &self.plans;
        let mut number = Vec::with_capacity(o.len());
        let mut last = 0;
        for order in o {
            number.push(order.1 - last);
            last = order.1;
        }
        let mut item = Vec::with_capacity(p.len());
        let mut last = 0;
        for plan in p {
            item.push(plan.2 - last);
            last = plan.2;
        }
        let (units, unit) = dictionary(i.iter().map(|r| &r.3));
        // the item's stock at each warehouse's storage locations, added in the rows' order as the
        // handheld adds them
        let mut at_locations: HashMap<(usize, usize), f64> = HashMap::new();
        for &(item, location, stock) in &self.location_stock {
            if let Some(w) = l.get(location).and_then(|r| r.3) {
                *at_locations.entry((item, w)).or_insert(0.0) += stock;
            }
        }
        Wire {
            format: FORMAT,
            division: self.division,
            as_of: self.as_of,
            warehouses: WarehouseColumns {
                id: Guids::of(w.iter().map(|r| &r.0)),
                code: w.iter().map(|r| r.1.clone()).collect(),
                description: w.iter().map(|r| r.2.clone()).collect(),
                unlocated: self.unlocated.clone(),
            },
            locations: LocationColumns {
                id: Guids::of(l.iter().map(|r| &r.0)),
                code: l.iter().map(|r| r.1.clone()).collect(),
                description: l.iter().map(|r| r.2.clone()).collect(),
                warehouse: l.iter().map(|r| r.3).collect(),
            },
            items: ItemColumns {
                code: FrontCoded::of(i.iter().map(|r| &r.1)),
                description: i.iter().map(|r| r.2.clone()).collect(),
                units,
                unit,
                barcode: i.iter().map(|r| r.4.clone()).collect(),
                fractions: i.iter().map(|r| if r.5 { '1' } else { '0' }).collect(),
                tracking: i.iter().map(|r| r.6.letter()).collect(),
            },
            location_stock: StockColumns::of(&self.location_stock, |_, _| None),
            warehouse_stock: StockColumns::of(&self.warehouse_stock, |item, w| at_locations.get(&(item, w)).copied()),
            orders: OrderColumns {
                number,
                status: o.iter().map(|r| r.2).collect(),
                warehouse: o.iter().map(|r| r.3).collect(),
                item: o.iter().map(|r| r.4).collect(),
                planned: o.iter().map(|r| r.5.map(Qty)).collect(),
                produced: o.iter().map(|r| r.6.map(Qty)).collect(),
            },
            plans: PlanColumns {
                item,
                order: p.iter().map(|r| r.1).collect(),
                line: p.iter().map(|r| r.0).collect(),
                planned: p.iter().map(|r| r.3.map(Qty)).collect(),
                issued: p.iter().map(|r| r.4.map(Qty)).collect(),
            },
        }
    }
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
    is_serial_item: Option<Value>,
    is_batch_item: Option<Value>,
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
    /// Only on warehouses; absent from a copy fetched before it was read.
    use_storage_locations: Option<Value>,
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

/// The lower-case GUID `s` is, or none: the catalogue sends GUIDs as their hex digits alone.
fn guid(s: &Option<String>) -> Option<String> {
    lower(s).filter(|id| odata::is_guid(id))
}

fn truthy(v: &Option<Value>) -> bool {
    match v {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0) != 0.0,
        _ => false,
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
        let id = guid(id)?;
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
        let id = guid(id)?;
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
    // lists of strings and numbers always serialize
    serde_json::to_vec(&c.wire()).map_err(|e| crate::store::StoreError::Corrupt(e.to_string()))
}

pub fn catalogue(store: &OrgStore, division: i64) -> StoreResult<Catalogue> {
    let mut places = Places::default();
    let mut unlocated = Vec::new();
    each::<PlaceIn>(store, "warehouses", |w| {
        let at = places.warehouse(&w.id, &w.code, &w.description);
        // an unknown flag (an older copy) counts as using storage locations, as before
        if w.use_storage_locations.is_some() && !truthy(&w.use_storage_locations) {
            unlocated.extend(at);
        }
    })?;
    each::<PlaceIn>(store, "storageLocations", |l| {
        let w = places.warehouse(&l.warehouse, &l.warehouse_code, &l.warehouse_description);
        places.location(&l.id, &l.code, &l.description, w);
    })?;

    let mut items = Vec::new();
    each::<ItemIn>(store, "items", |i| {
        let (Some(id), Some(code)) = (guid(&i.id), i.code.clone()) else { return };
        items.push((
            id,
            code,
            i.description,
            i.unit,
            i.barcode.filter(|b| !b.trim().is_empty()),
            truthy(&i.is_fraction_allowed_item),
            Tracking::of(&i.is_serial_item, &i.is_batch_item),
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
        division,
        as_of: as_of(store)?,
        warehouses: places.warehouses,
        unlocated,
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

/// The open and in-process shop orders (by number) and their material lines with something still
/// to issue (by item, then order, then line): a line issued in full cannot be issued on.
fn open_orders(
    store: &OrgStore,
    places: &mut Places,
    item_at: &HashMap<String, usize>,
) -> StoreResult<(Vec<OrderRow>, Vec<PlanRow>)> {
    let mut found = store.all_rows("shopOrders", &[("Status", ACTIVE_SHOP_ORDER_STATUSES)])?;
    found.sort_by_key(|o| o.get("ShopOrderNumber").and_then(Value::as_i64).unwrap_or(i64::MAX));
    let mut orders = Vec::new();
    let mut order_at: HashMap<String, usize> = HashMap::new();
    for o in &found {
        let (Some(id), Some(number)) = (guid(&text(o, "ID")), o.get("ShopOrderNumber").and_then(Value::as_i64)) else {
            continue;
        };
        let w = places.warehouse(&text(o, "Warehouse"), &text(o, "WarehouseCode"), &text(o, "WarehouseDescription"));
        let made = lower(&text(o, "Item")).and_then(|i| item_at.get(&i).copied());
        let status = o.get("Status").and_then(Value::as_i64).unwrap_or(0);
        order_at.insert(id.clone(), orders.len());
        orders.push((id, number, status, w, made, num(o, "PlannedQuantity"), num(o, "ProducedQuantity")));
    }
    let ids: Vec<String> = orders.iter().map(|o| o.0.clone()).collect();
    let mut lines: Vec<PlanRow> = Vec::new();
    for chunk in ids.chunks(ORDERS_PER_QUERY) {
        let in_list = format!("in.({})", chunk.join(","));
        let mut plans = store
            .all_rows("shopOrderMaterialPlans", &[("ShopOrder", in_list.as_str()), ("Type", PLAN_TYPE_MATERIAL)])?;
        crate::issued::attach(store, &mut plans)?;
        for p in plans {
            let order = lower(&text(&p, "ShopOrder")).and_then(|o| order_at.get(&o).copied());
            let item = lower(&text(&p, "Item")).and_then(|i| item_at.get(&i).copied());
            // a line is named by its number: one without cannot be booked from the catalogue
            let line = p.get("LineNumber").and_then(Value::as_i64);
            let (Some(order), Some(item), Some(line)) = (order, item, line) else { continue };
            let (planned, issued) = (num(&p, "PlannedQuantity"), num(&p, "IssuedQuantity"));
            // what the Scanning screen shows as still to issue
            if planned.unwrap_or(0.0) - issued.unwrap_or(0.0) <= 0.0 {
                continue;
            }
            lines.push((line, order, item, planned, issued));
        }
    }
    // by item, so the items' indexes run in order; an item's lines by order number, then line
    lines.sort_by_key(|p| (p.2, p.1, p.0));
    Ok((orders, lines))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Commit, Stores};
    use serde_json::json;

    const W: &str = "aaaaaaaa-0000-4000-8000-000000000001";
    const L1: &str = "cccccccc-0000-4000-8000-000000000001";
    const L2: &str = "cccccccc-0000-4000-8000-000000000002";
    const ORDER: &str = "dddddddd-0000-4000-8000-000000000001";

    fn guid(n: u8) -> String {
        format!("0123abcd-ef01-4a2b-8c3d-{n:012x}")
    }

    fn store() -> (tempfile::TempDir, std::sync::Arc<OrgStore>) {
        let dir = tempfile::tempdir().unwrap();
        let store = Stores::new(dir.path(), crate::exact::catalogue::table_specs()).get(1).unwrap();
        let put = |table: &str, rows: Vec<Value>| {
            store.apply_batch(table, rows, Some(100), Commit::Durable).unwrap();
        };
        put(
            "items",
            vec![
                json!({"ID": guid(1).to_uppercase(), "Code": "Ø-10", "Description": "Ring", "Unit": "pc", "IsFractionAllowedItem": 0, "Timestamp": "1"}),
                json!({"ID": guid(2), "Code": "Ø-12", "Description": "Ring 12", "Unit": "pc", "Barcode": " ", "IsSerialItem": true, "Timestamp": "1"}),
                json!({"ID": guid(3), "Code": "KG-1", "Description": null, "Unit": "kg", "IsFractionAllowedItem": true, "IsBatchItem": 1, "IsSerialItem": false, "Timestamp": "1"}),
                json!({"ID": "not-a-guid", "Code": "X-1", "Timestamp": "1"}),
            ],
        );
        let at = |item: u8, location: &str, code: &str, stock: f64| {
            json!({"ID": format!("{}/{location}", guid(item)), "Item": guid(item), "StorageLocation": location,
                   "StorageLocationCode": code, "Stock": stock, "Warehouse": W, "WarehouseCode": "1", "Timestamp": "1"})
        };
        put("storageLocationStockPositions", vec![at(1, L2, "B", 2.5), at(1, L1, "A", 0.1), at(3, L1, "A", 0.2)]);
        let wh = |item: u8, stock: f64| json!({"ID": format!("{}/{W}", guid(item)), "ItemId": guid(item), "CurrentStock": stock, "Warehouse": W, "Timestamp": "1"});
        // the first item's is the sum at the locations; the third's is not
        put("stockPositions", vec![wh(1, 2.5 + 0.1), wh(3, 5.0), wh(2, 0.0)]);
        put(
            "shopOrders",
            vec![json!({"ID": ORDER, "ShopOrderNumber": 24001, "Status": 10, "Item": guid(3), "PlannedQuantity": 2,
                        "Warehouse": W, "Timestamp": "1"})],
        );
        // Exact's plans carry no issued quantity: it is summed from the material issues
        let line = |id: u8, item: u8, line: i64, planned: f64| {
            json!({"ID": guid(id), "ShopOrder": ORDER, "Item": guid(item), "Type": 1, "LineNumber": line,
                   "PlannedQuantity": planned, "Timestamp": "1"})
        };
        let issue = |n: u8, plan: u8, quantity: f64| {
            json!({"StockTransactionId": guid(100 + n), "ShopOrderMaterialPlan": guid(plan).to_uppercase(),
                   "ShopOrder": ORDER, "Quantity": quantity, "Timestamp": "1"})
        };
        // 22 issued in full in two issues, 23 in part, 24 over (a return counted against it)
        put(
            "materialIssues",
            vec![issue(1, 22, 3.0), issue(2, 22, 1.0), issue(3, 23, 1.0), issue(4, 24, 6.0), issue(5, 24, -1.0)],
        );
        put(
            "shopOrderMaterialPlans",
            vec![
                line(21, 1, 2, 4.0),
                line(22, 1, 1, 4.0),
                line(23, 2, 3, 3.0),
                line(24, 2, 4, 3.0),
                // no line number: nothing to name it by
                json!({"ID": guid(25), "ShopOrder": ORDER, "Item": guid(2), "Type": 1, "PlannedQuantity": 1, "Timestamp": "1"}),
            ],
        );
        (dir, store)
    }

    fn hex(bytes: &[u8]) -> Vec<String> {
        bytes
            .chunks(16)
            .map(|b| {
                let h = hex::encode(b);
                format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
            })
            .collect()
    }

    #[test]
    fn the_wire_round_trips_the_stored_rows_and_leaves_out_what_it_can() {
        let (_dir, store) = store();
        let c: Value = serde_json::from_slice(&build(&store, 1).unwrap()).unwrap();
        assert_eq!(c["format"], FORMAT);
        let it = &c["items"];
        // by code, the row without a GUID left out, and no GUIDs sent (codes name items)
        assert!(it.get("id").is_none());
        // "Ø" is one UTF-16 unit: "Ø-1" is shared
        assert_eq!(it["code"], json!({"shared": [0, 0, 3], "rest": ["KG-1", "Ø-10", "2"]}));
        assert_eq!(it["units"], json!(["kg", "pc"]));
        assert_eq!(it["unit"], json!([0, 1, 1]));
        assert_eq!(it["barcode"], json!([null, null, null]));
        assert_eq!(it["fractions"], "100");
        // KG-1 by batch, Ø-10 untracked, Ø-12 by serial number
        assert_eq!(it["tracking"], "b0s");
        assert_eq!(c["warehouses"]["code"], json!(["1"]));
        // places keep their GUIDs: back as the lower-case dashed ones
        assert_eq!(hex(&URL_SAFE_NO_PAD.decode(c["warehouses"]["id"].as_str().unwrap()).unwrap()), [W]);
        assert_eq!(hex(&URL_SAFE_NO_PAD.decode(c["locations"]["id"].as_str().unwrap()).unwrap()), [L1, L2]);
        assert_eq!(c["locations"]["code"], json!(["A", "B"]));
        // item 0 (KG-1) at A (0); item 1 (Ø-10) at A and B (1)
        assert_eq!(c["locationStock"], json!({"item": [0, 1, 0], "place": [0, 0, 1], "stock": [0.2, 0.1, 2.5]}));
        // KG-1's 5 is not its 0.2 at A; Ø-10's 2.6 is; Ø-12 has none at a location
        assert_eq!(c["warehouseStock"], json!({"item": [0, 1, 1], "place": [0, 0, 0], "stock": [5, null, 0]}));
        assert!(c["orders"].get("id").is_none());
        assert_eq!(c["orders"]["item"], json!([0]));
        assert_eq!(c["orders"]["number"], json!([24001]));
        // issued in full (22) and over (24) left out, and the one without a line number (25); by
        // item, then line
        let plans = &c["plans"];
        assert!(plans.get("id").is_none());
        assert_eq!(plans["line"], json!([2, 3]));
        assert_eq!(plans["item"], json!([1, 1]));
        assert_eq!(plans["order"], json!([0, 0]));
        assert_eq!(plans["planned"], json!([4, 3]));
        assert_eq!(plans["issued"], json!([0, 1]));
        assert_eq!(c["warehouses"]["unlocated"], json!([]));
    }

    #[test]
    fn warehouses_without_storage_locations_are_listed_by_index() {
        let (_dir, store) = store();
        let wh = |id: String, code: &str, uses: Option<i64>| {
            let mut row = json!({"ID": id, "Code": code, "Description": code});
            if let Some(u) = uses {
                row["UseStorageLocations"] = json!(u);
            }
            row
        };
        // the live cache's rows, as the warehouses fetch stores them (ordered by code)
        let rows = vec![wh(W.to_string(), "1", Some(1)), wh(guid(41), "4", Some(0)), wh(guid(42), "5", None)];
        store.write(Commit::Durable, |w| w.upsert("warehouses", rows).map(|_| ())).unwrap();
        let c: Value = serde_json::from_slice(&build(&store, 1).unwrap()).unwrap();
        let codes = c["warehouses"]["code"].as_array().unwrap().clone();
        let at = |code: &str| codes.iter().position(|c| c == code).unwrap();
        // "5" does not say (a copy from before the flag was read): taken as using them
        assert_eq!(c["warehouses"]["unlocated"], json!([at("4")]));
    }
}
