//! Serial and batch numbers of tracked items: reservations, the checks Exact makes before a
//! tracked item's stock moves, and the numbers' own stock, moved together with the item's so
//! that at every warehouse and location the numbers add up to the location's stock.
//!
//! Tables: `inventory/StockSerialNumbers` / `inventory/StockBatchNumbers` hold one row per
//! number per stock transaction (reservations and numbers of draft transfer and count lines
//! with `IsDraft` 1); `sync/Inventory/StockSerialBatchNumbers` mirrors each of those rows under
//! the same ID with a signed `Quantity`; `sync/Inventory/SerialBatchNumbers` holds each number
//! once, with `inventory/SerialNumbers` / `inventory/BatchNumbers` (same ID) telling where it
//! is now. [`Index`] keeps the booked stock per number and place for the checks.

use super::odata::ODataError;
use super::stock::{self, ITEMS, LOCATIONS, WAREHOUSES};
use super::store::{Division, deterministic_id};
use super::value::{self, Val};
use esm_exact::schema::EdmType;
use serde_json::{Map, Value as J};
use std::collections::{BTreeMap, HashMap, HashSet};

pub const SERIAL_MOVES: &str = "inventory/StockSerialNumbers";
pub const BATCH_MOVES: &str = "inventory/StockBatchNumbers";
pub const NUMBERS: &str = "sync/Inventory/SerialBatchNumbers";
pub const MOVES: &str = "sync/Inventory/StockSerialBatchNumbers";
pub const SERIALS: &str = "inventory/SerialNumbers";
pub const BATCHES: &str = "inventory/BatchNumbers";

/// StockTransactionType values (reference §16).
pub const OPENING_BALANCE: i64 = 10;
pub const GOODS_RECEIPT: i64 = 130;
pub const WAREHOUSE_TRANSFER_OUT: i64 = 124;
pub const LOCATION_TRANSFER_OUT: i64 = 125;
pub const WAREHOUSE_TRANSFER_IN: i64 = 134;
pub const LOCATION_TRANSFER_IN: i64 = 135;
pub const SHOP_ORDER_RECEIPT: i64 = 140;
pub const BY_PRODUCT_RECEIPT: i64 = 147;
pub const MATERIAL_ISSUE: i64 = 150;
pub const STOCK_COUNT: i64 = 195;

/// Quantities closer than this are equal (batch quantities are Doubles).
const EPS: f64 = 1e-9;

/// How an item is tracked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Serial,
    Batch,
}

impl Kind {
    /// The table of its movements.
    pub fn moves(self) -> &'static str {
        match self {
            Kind::Serial => SERIAL_MOVES,
            Kind::Batch => BATCH_MOVES,
        }
    }

    fn number_field(self) -> &'static str {
        match self {
            Kind::Serial => "SerialNumber",
            Kind::Batch => "BatchNumber",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Kind::Serial => "Serial number",
            Kind::Batch => "Batch",
        }
    }

    fn item_noun(self) -> &'static str {
        match self {
            Kind::Serial => "serial item",
            Kind::Batch => "batch item",
        }
    }

    fn plural(self) -> &'static str {
        match self {
            Kind::Serial => "serial numbers",
            Kind::Batch => "batch numbers",
        }
    }
}

/// Booked stock of every number, for the checks (rebuilt from nothing: every booking goes
/// through [`book`]).
#[derive(Default)]
pub struct Index {
    /// (item, number) -> the number's ID in SerialBatchNumbers.
    ids: HashMap<(u128, String), u128>,
    /// Item -> its numbers and their IDs, in the order they came.
    by_item: HashMap<u128, Vec<(String, u128)>>,
    /// Number ID -> (warehouse, location) -> quantity in stock there.
    stock: HashMap<u128, BTreeMap<(u128, u128), f64>>,
}

impl Index {
    fn id(&self, item: u128, number: &str) -> Option<u128> {
        self.ids.get(&(item, number.to_string())).copied()
    }

    fn of_item(&self, item: u128) -> &[(String, u128)] {
        self.by_item.get(&item).map_or(&[], Vec::as_slice)
    }

    fn places(&self, id: u128) -> impl Iterator<Item = (u128, u128, f64)> + '_ {
        self.stock.get(&id).into_iter().flatten().map(|((w, l), q)| (*w, *l, *q))
    }

    fn in_stock(&self, id: u128) -> f64 {
        self.places(id).map(|(_, _, q)| q).sum()
    }
}

/// How `item` is tracked, if it is (`IsSerialItem` Bool, `IsBatchItem` Byte).
pub fn kind_of(d: &Division, item: u128) -> Option<Kind> {
    if text(d, ITEMS, item, "IsSerialItem").as_i64() == Some(1) {
        Some(Kind::Serial)
    } else if text(d, ITEMS, item, "IsBatchItem").as_i64() == Some(1) {
        Some(Kind::Batch)
    } else {
        None
    }
}

/// `IsSerial` / `IsBatch` as material plans, issues and receipts repeat them (Byte).
pub fn flags(d: &Division, item: u128) -> [(&'static str, Val); 2] {
    let k = kind_of(d, item);
    [("IsSerial", Val::Int((k == Some(Kind::Serial)) as i64)), ("IsBatch", Val::Int((k == Some(Kind::Batch)) as i64))]
}

fn text(d: &Division, table: &str, key: u128, field: &str) -> Val {
    d.table(table).map(|t| t.value(key, field)).unwrap_or(Val::Null)
}

fn code(d: &Division, table: &str, key: u128) -> String {
    text(d, table, key, "Code").as_str().unwrap_or_default().to_string()
}

fn bad(message: String) -> ODataError {
    ODataError::bad(message)
}

/// A number a transaction line names: one unit of a serial number, or a quantity of a batch.
#[derive(Clone, Debug, PartialEq)]
pub struct Given {
    pub kind: Kind,
    pub number: String,
    pub quantity: f64,
    /// The reservation or draft row that named it.
    pub row: Option<u128>,
    /// A place the reservation names (0 = none).
    pub warehouse: u128,
    pub location: u128,
    /// A batch's expiry date, when one is given with a new batch.
    pub expiry: Option<i64>,
}

/// The `SerialNumbers` / `BatchNumbers` collections of a line body.
pub fn given_on_line(l: &Map<String, J>) -> Result<Vec<Given>, ODataError> {
    let mut out = Vec::new();
    for kind in [Kind::Serial, Kind::Batch] {
        let list = match l.get(if kind == Kind::Serial { "SerialNumbers" } else { "BatchNumbers" }) {
            None | Some(J::Null) => continue,
            Some(J::Array(list)) => list,
            Some(_) => return Err(ODataError::bad(super::writes::BAD_BODY)),
        };
        for n in list {
            let number = n.get(kind.number_field()).and_then(J::as_str).map(str::trim).filter(|s| !s.is_empty());
            let number = number.ok_or_else(|| bad(format!("Verplicht: {}", kind.number_field())))?.to_string();
            let quantity = match kind {
                Kind::Serial => 1.0,
                Kind::Batch => {
                    let q =
                        n.get("Quantity").filter(|q| !q.is_null()).ok_or_else(|| bad("Verplicht: Quantity".into()))?;
                    let q = value::from_json(EdmType::Double, q).map_err(ODataError::bad)?;
                    q.as_f64().unwrap_or(0.0)
                }
            };
            let expiry = match n.get("EndDate") {
                Some(v) if !v.is_null() => value::from_json(EdmType::DateTime, v).map_err(ODataError::bad)?.as_i64(),
                _ => None,
            };
            out.push(Given { kind, number, quantity, row: None, warehouse: 0, location: 0, expiry });
        }
    }
    Ok(out)
}

/// Check the numbers a line names against its item and quantity: only for an item tracked
/// that way, mandatory for one, one serial per unit (a whole quantity), each serial once,
/// batch quantities above zero summing to the quantity.
pub fn check_numbers(d: &Division, item: u128, given: &[Given], quantity: f64) -> Result<(), ODataError> {
    let code = code(d, ITEMS, item);
    let kind = kind_of(d, item);
    if let Some(g) = given.iter().find(|g| Some(g.kind) != kind) {
        return Err(bad(format!(
            "Item {code} is not a {}: it takes no {} ({} {}).",
            g.kind.item_noun(),
            g.kind.plural(),
            g.kind.noun(),
            g.number
        )));
    }
    let Some(kind) = kind else { return Ok(()) };
    if given.is_empty() {
        return Err(bad(format!("Item {code} is a {}: its {} are mandatory.", kind.item_noun(), kind.plural())));
    }
    match kind {
        Kind::Serial => {
            if quantity.fract().abs() > EPS {
                return Err(bad(format!("Quantity {quantity} of serial item {code} is not a whole number.")));
            }
            if (given.len() as f64 - quantity).abs() > EPS {
                return Err(bad(format!(
                    "{} serial numbers for a quantity of {quantity} of item {code}: one serial number per unit.",
                    given.len()
                )));
            }
            let mut seen = HashSet::new();
            if let Some(g) = given.iter().find(|g| !seen.insert(g.number.as_str())) {
                return Err(bad(format!("Serial number {} of item {code} is given twice.", g.number)));
            }
        }
        Kind::Batch => {
            if let Some(g) = given.iter().find(|g| g.quantity <= 0.0) {
                return Err(bad(format!("Batch {} of item {code}: the quantity must be more than 0.", g.number)));
            }
            let sum: f64 = given.iter().map(|g| g.quantity).sum::<f64>() + 0.0;
            if (sum - quantity).abs() > EPS {
                return Err(bad(format!(
                    "The batch quantities of item {code} add up to {sum}, not to the quantity of {quantity}."
                )));
            }
        }
    }
    Ok(())
}

/// The draft reservations of `item` for a stock transaction of `tx_type` in group `draft`.
pub fn reserved(d: &Division, draft: u128, item: u128, tx_type: i64) -> Vec<Given> {
    let mut out = Vec::new();
    for kind in [Kind::Serial, Kind::Batch] {
        let Some(t) = d.table(kind.moves()) else { continue };
        for k in t.rows.keys() {
            let v = |f: &str| t.value(*k, f);
            if v("DraftStockTransactionID").as_guid() != Some(draft)
                || v("IsDraft").as_i64() != Some(1)
                || v("Item").as_guid() != Some(item)
                || v("StockTransactionType").as_i64() != Some(tx_type)
            {
                continue;
            }
            out.push(Given {
                kind,
                number: v(kind.number_field()).as_str().unwrap_or_default().to_string(),
                quantity: if kind == Kind::Serial { 1.0 } else { v("Quantity").as_f64().unwrap_or(0.0) },
                row: Some(*k),
                warehouse: v("Warehouse").as_guid().unwrap_or(0),
                location: v("StorageLocation").as_guid().unwrap_or(0),
                expiry: v("EndDate").as_i64(),
            });
        }
    }
    out
}

/// Numbers of a draft transfer or count line, kept as draft rows until it is processed.
fn on_line(d: &Division, field: &str, line: u128) -> Vec<Given> {
    let mut out = Vec::new();
    for kind in [Kind::Serial, Kind::Batch] {
        let Some(t) = d.table(kind.moves()) else { continue };
        for k in t.rows.keys() {
            let v = |f: &str| t.value(*k, f);
            if v(field).as_guid() == Some(line) && v("IsDraft").as_i64() == Some(1) {
                out.push(Given {
                    kind,
                    number: v(kind.number_field()).as_str().unwrap_or_default().to_string(),
                    quantity: if kind == Kind::Serial { 1.0 } else { v("Quantity").as_f64().unwrap_or(0.0) },
                    row: Some(*k),
                    warehouse: 0,
                    location: 0,
                    expiry: v("EndDate").as_i64(),
                });
            }
        }
    }
    out
}

/// One number's part of a movement at one place (quantity signed: + into stock).
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    pub kind: Kind,
    pub number: String,
    pub warehouse: u128,
    pub location: u128,
    pub quantity: f64,
    /// The draft row this piece books (the first piece of a reservation does).
    pub row: Option<u128>,
    pub expiry: Option<i64>,
    pub tx_type: i64,
}

/// Stock of a number at a place that earlier pieces of the same transaction already took.
pub type Taken = HashMap<(u128, u128, u128), f64>;

fn place_name(d: &Division, warehouse: u128, location: u128) -> String {
    let wh = code(d, WAREHOUSES, warehouse);
    if location == 0 {
        format!("warehouse {wh}")
    } else {
        format!("location {} of warehouse {wh}", code(d, LOCATIONS, location))
    }
}

/// Take the given numbers out of `warehouse` (at `location`, or any of its locations when 0,
/// the item's default location first): serials must be there, batches must hold enough.
pub fn take_out(
    d: &Division,
    item: u128,
    given: &[Given],
    warehouse: u128,
    location: u128,
    tx_type: i64,
    taken: &mut Taken,
) -> Result<Vec<Piece>, ODataError> {
    let code = code(d, ITEMS, item);
    let default = stock::default_location(d, item, warehouse);
    let mut out = Vec::new();
    for g in given {
        let at = if g.location != 0 { g.location } else { location };
        let id = d.numbers.id(item, &g.number);
        let mut places: Vec<(u128, f64)> = id
            .into_iter()
            .flat_map(|id| d.numbers.places(id).map(move |p| (id, p)))
            .filter(|(_, (w, l, _))| *w == warehouse && (at == 0 || *l == at))
            .map(|(id, (w, l, q))| (l, q - taken.get(&(id, w, l)).copied().unwrap_or(0.0)))
            .filter(|(_, q)| *q > EPS)
            .collect();
        places.sort_by_key(|(l, _)| (*l != default, *l));
        // `+ 0.0`: an empty sum is -0, which would print as "-0".
        let have: f64 = places.iter().map(|(_, q)| q).sum::<f64>() + 0.0;
        if have + EPS < g.quantity {
            let place = place_name(d, warehouse, at);
            return Err(bad(match g.kind {
                Kind::Serial => format!("Serial number {} of item {code} is not in stock at {place}.", g.number),
                Kind::Batch => format!(
                    "Batch {} of item {code} holds {have} at {place}, less than the {} asked.",
                    g.number, g.quantity
                ),
            }));
        }
        let mut left = g.quantity;
        let mut row = g.row;
        for (l, q) in places {
            if left <= EPS {
                break;
            }
            let part = q.min(left);
            left -= part;
            if let Some(id) = id {
                *taken.entry((id, warehouse, l)).or_default() += part;
            }
            out.push(Piece {
                kind: g.kind,
                number: g.number.clone(),
                warehouse,
                location: l,
                quantity: -part,
                row: row.take(),
                expiry: g.expiry,
                tx_type,
            });
        }
    }
    Ok(out)
}

/// Put the given numbers into `warehouse`/`location` (0 = the item's default location): a
/// serial number already in stock anywhere is refused.
pub fn put_in(
    d: &Division,
    item: u128,
    given: &[Given],
    warehouse: u128,
    location: u128,
    tx_type: i64,
) -> Result<Vec<Piece>, ODataError> {
    let code = code(d, ITEMS, item);
    let mut out = Vec::new();
    for g in given {
        let at = if g.location != 0 { g.location } else { location };
        let at = if at == 0 { stock::default_location(d, item, warehouse) } else { at };
        if g.kind == Kind::Serial && d.numbers.id(item, &g.number).is_some_and(|id| d.numbers.in_stock(id) > EPS) {
            return Err(bad(format!("Serial number {} of item {code} is already in stock.", g.number)));
        }
        out.push(Piece {
            kind: g.kind,
            number: g.number.clone(),
            warehouse,
            location: at,
            quantity: g.quantity,
            row: g.row,
            expiry: g.expiry,
            tx_type,
        });
    }
    Ok(out)
}

/// What a booking records on each row besides the numbers.
#[derive(Clone, Copy, Debug, Default)]
pub struct Booking {
    /// The stock transaction (issue, receipt, receipt line, transfer line, count line).
    pub tx: u128,
    pub draft: Option<u128>,
    pub transfer_line: Option<u128>,
    pub count_line: Option<u128>,
    /// When it happened (StartDate of new numbers, Created of new rows).
    pub date: i64,
}

/// A number's ID: derived from the item and the number, so generated data is reproducible.
fn number_key(item: u128, number: &str) -> u128 {
    // FNV-1a over the text: stable across runs, unlike the std hasher.
    let h = number.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    deterministic_id(item, u128::from(h) | 0x5e71a1 << 64)
}

/// The number's ID, registering it (SerialBatchNumbers, SerialNumbers/BatchNumbers) when new.
fn ensure_number(d: &mut Division, item: u128, kind: Kind, number: &str, expiry: Option<i64>, date: i64) -> u128 {
    if let Some(id) = d.numbers.id(item, number) {
        return id;
    }
    let id = number_key(item, number);
    let (item_code, item_description) = (text(d, ITEMS, item, "Code"), text(d, ITEMS, item, "Description"));
    let expiry = expiry.map_or(Val::Null, Val::Date);
    let division = Val::Int(i64::from(d.code));
    d.upsert(
        NUMBERS,
        id,
        &[
            ("ID", Val::guid(id)),
            ("SerialBatchNumber", Val::str(number)),
            ("Type", Val::Int(if kind == Kind::Serial { 1 } else { 2 })),
            ("Item", Val::guid(item)),
            ("ItemCode", item_code.clone()),
            ("IsBlocked", Val::Int(0)),
            ("StartDate", Val::Date(date)),
            ("EndDate", expiry.clone()),
        ],
    );
    let common = [
        ("Item", Val::guid(item)),
        ("ItemCode", item_code),
        ("ItemDescription", item_description),
        ("IsBlocked", Val::Int(0)),
        ("Division", division),
    ];
    match kind {
        Kind::Serial => {
            let mut f = vec![("SerialNumber", Val::str(number)), ("Available", Val::Bool(false))];
            f.extend([("StartDate", Val::Date(date)), ("EndDate", expiry)]);
            f.extend(common);
            d.upsert(SERIALS, id, &f);
        }
        Kind::Batch => {
            let mut f = vec![("BatchNumber", Val::str(number)), ("AvailableQuantity", Val::Dbl(0.0))];
            f.push(("ExpiryDate", expiry));
            f.extend(common);
            d.upsert(BATCHES, id, &f);
        }
    }
    d.numbers.ids.insert((item, number.to_string()), id);
    d.numbers.by_item.entry(item).or_default().push((number.to_string(), id));
    id
}

/// Move a number's booked stock and refresh where SerialNumbers/BatchNumbers say it is.
fn move_number(d: &mut Division, id: u128, kind: Kind, warehouse: u128, location: u128, delta: f64) {
    let places = d.numbers.stock.entry(id).or_default();
    let q = places.entry((warehouse, location)).or_default();
    *q += delta;
    if q.abs() <= EPS {
        places.remove(&(warehouse, location));
    }
    match kind {
        Kind::Serial => {
            let here = d.numbers.places(id).find(|(_, _, q)| *q > EPS);
            let (w, l) = here.map_or((warehouse, location), |(w, l, _)| (w, l));
            let fields = [
                ("Available", Val::Bool(here.is_some())),
                ("Warehouse", Val::guid(w)),
                ("WarehouseCode", text(d, WAREHOUSES, w, "Code")),
                ("WarehouseDescription", text(d, WAREHOUSES, w, "Description")),
                ("StorageLocation", if l == 0 { Val::Null } else { Val::guid(l) }),
                ("StorageLocationCode", text(d, LOCATIONS, l, "Code")),
                ("StorageLocationDescription", text(d, LOCATIONS, l, "Description")),
            ];
            d.update(SERIALS, id, &fields);
        }
        Kind::Batch => {
            let total = d.numbers.in_stock(id);
            d.update(BATCHES, id, &[("AvailableQuantity", Val::Dbl(total))]);
        }
    }
}

/// Write (or rewrite) the sync mirror of a movement row, with its signed quantity.
fn mirror(d: &mut Division, kind: Kind, key: u128, signed: f64) {
    let v = |f: &str| text(d, kind.moves(), key, f);
    let item = v("Item").as_guid().unwrap_or(0);
    let number = v(kind.number_field());
    let id = number.as_str().and_then(|n| d.numbers.id(item, n));
    let fields = [
        ("ID", Val::guid(key)),
        ("SerialBatchNumber", id.map_or(Val::Null, Val::guid)),
        ("Quantity", Val::Dbl(signed)),
        ("IsDraft", v("IsDraft")),
        ("DraftTransactionID", v("DraftStockTransactionID")),
        ("StockTransactionID", v("StockTransactionID")),
        ("StockTransactionType", v("StockTransactionType")),
        ("Item", v("Item")),
        ("ItemCode", v("ItemCode")),
        ("Warehouse", v("Warehouse")),
        ("WarehouseCode", v("WarehouseCode")),
        ("StorageLocation", v("StorageLocation")),
        ("StorageLocationCode", v("StorageLocationCode")),
        ("WarehouseTransferLine", v("WarehouseTransferLine")),
        ("StockCountLine", v("StockCountLine")),
    ];
    d.upsert(MOVES, key, &fields);
}

/// Place fields of a movement row.
fn place_fields(d: &Division, warehouse: u128, location: u128) -> Vec<(&'static str, Val)> {
    vec![
        ("Warehouse", Val::guid(warehouse)),
        ("WarehouseCode", text(d, WAREHOUSES, warehouse, "Code")),
        ("WarehouseDescription", text(d, WAREHOUSES, warehouse, "Description")),
        ("StorageLocation", if location == 0 { Val::Null } else { Val::guid(location) }),
        ("StorageLocationCode", text(d, LOCATIONS, location, "Code")),
        ("StorageLocationDescription", text(d, LOCATIONS, location, "Description")),
    ]
}

/// Book checked pieces: the numbers' rows (drafts named by a piece become booked), their
/// mirrors, the numbers' stock, and the item's stock at the same places.
pub fn book(d: &mut Division, item: u128, pieces: &[Piece], b: &Booking) {
    record(d, item, pieces, b);
    for p in pieces {
        stock::adjust(d, item, p.warehouse, p.location, p.quantity);
    }
}

/// [`book`] without moving the item's stock: for numbers of stock that is already there
/// (the demo data's opening balances).
pub fn record(d: &mut Division, item: u128, pieces: &[Piece], b: &Booking) {
    for (n, p) in pieces.iter().enumerate() {
        let id = ensure_number(d, item, p.kind, &p.number, p.expiry, b.date);
        let mut fields = place_fields(d, p.warehouse, p.location);
        fields.extend([
            ("IsDraft", Val::Int(0)),
            ("StockTransactionID", Val::guid(b.tx)),
            ("StockTransactionType", Val::Int(p.tx_type)),
            ("Modified", Val::Date(d.now_ms)),
            ("Modifier", Val::guid(d.api_user)),
        ]);
        if p.kind == Kind::Batch {
            fields.push(("Quantity", Val::Dbl(p.quantity.abs())));
            fields.push(("BatchNumberID", Val::guid(id)));
        } else {
            fields.push(("SerialNumberID", Val::guid(id)));
        }
        let key = match p.row {
            Some(row) => {
                d.update(p.kind.moves(), row, &fields);
                row
            }
            None => {
                let key = deterministic_id(b.tx ^ id, (n as u128) << 16 | p.tx_type as u128);
                fields.extend([
                    ("ID", Val::guid(key)),
                    ("Item", Val::guid(item)),
                    ("ItemCode", text(d, ITEMS, item, "Code")),
                    ("ItemDescription", text(d, ITEMS, item, "Description")),
                    (p.kind.number_field(), Val::str(&p.number)),
                    ("IsBlocked", Val::Int(0)),
                    ("StartDate", Val::Date(b.date)),
                    ("EndDate", p.expiry.map_or(Val::Null, Val::Date)),
                    ("DraftStockTransactionID", b.draft.map_or(Val::Null, Val::guid)),
                    ("WarehouseTransferLine", b.transfer_line.map_or(Val::Null, Val::guid)),
                    ("StockCountLine", b.count_line.map_or(Val::Null, Val::guid)),
                    ("Created", Val::Date(b.date)),
                    ("Creator", Val::guid(d.api_user)),
                    ("Division", Val::Int(i64::from(d.code))),
                ]);
                d.upsert(p.kind.moves(), key, &fields);
                key
            }
        };
        mirror(d, p.kind, key, p.quantity);
        move_number(d, id, p.kind, p.warehouse, p.location, p.quantity);
    }
}

/// Count booked serial rows that no booking made (the demo goods receipts' numbers, written
/// before any of this existed) as stock where their receipt put it: the row's location, else
/// the item's default location in its warehouse.
pub fn adopt_booked_serials(d: &mut Division) {
    let Some(t) = d.table(SERIAL_MOVES) else { return };
    let rows: Vec<u128> = t
        .rows
        .keys()
        .copied()
        .filter(|k| t.value(*k, "IsDraft").as_i64() == Some(0) && d.table(MOVES).is_none_or(|m| m.get(*k).is_none()))
        .collect();
    for key in rows {
        let v = |f: &str| text(d, SERIAL_MOVES, key, f);
        let (item, number) = (v("Item").as_guid().unwrap_or(0), v("SerialNumber"));
        let Some(number) = number.as_str().map(str::to_string) else { continue };
        let wh = v("Warehouse").as_guid().unwrap_or(0);
        let loc = v("StorageLocation").as_guid().unwrap_or_else(|| stock::default_location(d, item, wh));
        let date = v("StartDate").as_i64().unwrap_or(d.now_ms);
        let placed = v("StorageLocation") != Val::Null;
        let id = ensure_number(d, item, Kind::Serial, &number, None, date);
        // The receipt's own row keeps its values; only its mirror carries the resolved place.
        mirror(d, Kind::Serial, key, 1.0);
        if !placed && loc != 0 {
            let fields =
                [("StorageLocation", Val::guid(loc)), ("StorageLocationCode", text(d, LOCATIONS, loc, "Code"))];
            d.update(MOVES, key, &fields);
        }
        move_number(d, id, Kind::Serial, wh, loc, 1.0);
    }
}

/// The booked stock of every number of `item` at one place.
pub fn numbers_at(d: &Division, item: u128, warehouse: u128, location: u128) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = d
        .numbers
        .of_item(item)
        .iter()
        .filter_map(|(n, id)| {
            let q: f64 =
                d.numbers.places(*id).filter(|(w, l, _)| (*w, *l) == (warehouse, location)).map(|(_, _, q)| q).sum();
            (q > EPS).then(|| (n.clone(), q))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The items that have numbers, in key order.
pub fn items_with_numbers(d: &Division) -> Vec<u128> {
    let mut out: Vec<u128> = d.numbers.by_item.keys().copied().collect();
    out.sort();
    out
}

/// How many numbers `item` has.
pub fn number_count(d: &Division, item: u128) -> usize {
    d.numbers.of_item(item).len()
}

/// Every place where `item`'s numbers are booked.
pub fn places_of(d: &Division, item: u128) -> Vec<(u128, u128)> {
    let mut out: Vec<(u128, u128)> =
        d.numbers.of_item(item).iter().flat_map(|(_, id)| d.numbers.places(*id).map(|(w, l, _)| (w, l))).collect();
    out.sort();
    out.dedup();
    out
}

/// Store a reservation (`POST inventory/StockSerialNumbers|StockBatchNumbers`) after the
/// checks Exact makes: a transaction type that takes reservations, a group, an item tracked
/// that way, a batch quantity above zero.
pub fn reserve(d: &mut Division, kind: Kind, key: u128, vals: &mut Vec<(&'static str, Val)>) -> Result<(), ODataError> {
    let get = |n: &str| vals.iter().find(|(f, _)| *f == n).map(|(_, v)| v.clone()).unwrap_or(Val::Null);
    let tx_type = get("StockTransactionType").as_i64().ok_or_else(|| bad("Verplicht: StockTransactionType".into()))?;
    if ![MATERIAL_ISSUE, SHOP_ORDER_RECEIPT, BY_PRODUCT_RECEIPT].contains(&tx_type) {
        return Err(bad(format!(
            "StockTransactionType {tx_type} takes no reservation: only 150 (material issue), 140 (shop order receipt) and 147 (by-product receipt) do."
        )));
    }
    if get("DraftStockTransactionID").as_guid().is_none() {
        return Err(bad("Verplicht: DraftStockTransactionID".into()));
    }
    let item = get("Item").as_guid().unwrap_or(0);
    if d.table(ITEMS).and_then(|t| t.get(item)).is_none() {
        return Err(bad("Item: not found".into()));
    }
    let number = get(kind.number_field()).as_str().map(str::trim).unwrap_or_default().to_string();
    if number.is_empty() {
        return Err(bad(format!("Verplicht: {}", kind.number_field())));
    }
    let code = code(d, ITEMS, item);
    if kind_of(d, item) != Some(kind) {
        return Err(bad(format!(
            "Item {code} is not a {}: it takes no {} ({} {number}).",
            kind.item_noun(),
            kind.plural(),
            kind.noun()
        )));
    }
    let quantity = if kind == Kind::Batch { get("Quantity").as_f64().unwrap_or(0.0) } else { 1.0 };
    if quantity <= 0.0 {
        return Err(bad(format!("Batch {number} of item {code}: the quantity must be more than 0.")));
    }
    if d.table(kind.moves()).and_then(|t| t.get(key)).is_some() {
        return Err(bad(format!("ID {} already exists.", value::guid_string(key))));
    }
    vals.retain(|(f, _)| *f != kind.number_field());
    vals.extend([(kind.number_field(), Val::str(&number)), ("IsDraft", Val::Int(1)), ("IsBlocked", Val::Int(0))]);
    d.upsert(kind.moves(), key, vals);
    let signed = if tx_type == MATERIAL_ISSUE { -quantity } else { quantity };
    mirror(d, kind, key, signed);
    Ok(())
}

/// `DELETE` of a movement row: only a draft goes (a reservation, or a number of a draft line).
pub fn unreserve(d: &mut Division, kind: Kind, key: u128) -> Result<(), ODataError> {
    if d.table(kind.moves()).and_then(|t| t.get(key)).is_none() {
        return Err(ODataError { status: 404, message: "Not found".into() });
    }
    if text(d, kind.moves(), key, "IsDraft").as_i64() != Some(1) {
        return Err(bad(format!(
            "{} {} is booked: only reserved numbers can be deleted.",
            kind.noun(),
            text(d, kind.moves(), key, kind.number_field()).as_str().unwrap_or_default()
        )));
    }
    d.delete(kind.moves(), key);
    d.delete(MOVES, key);
    Ok(())
}

/// Drop the draft numbers of a transfer or count line (the line is deleted).
pub fn drop_line(d: &mut Division, field: &str, line: u128) {
    for g in on_line(d, field, line) {
        if let Some(row) = g.row {
            d.delete(g.kind.moves(), row);
            d.delete(MOVES, row);
        }
    }
}

/// Keep the numbers of a draft transfer or count line as draft rows under the line, at the
/// place they leave (transfer) or were counted at (count).
pub fn keep_on_line(
    d: &mut Division,
    item: u128,
    given: &[Given],
    field: &'static str,
    line: u128,
    tx_type: i64,
    (warehouse, location): (u128, u128),
) {
    // A transfer takes the numbers out; a count says what is there.
    let sign = if tx_type == STOCK_COUNT { 1.0 } else { -1.0 };
    for (n, g) in given.iter().enumerate() {
        let key = deterministic_id(line, 0x11e0_0000 + n as u128);
        let mut fields = place_fields(d, warehouse, location);
        fields.extend([
            ("ID", Val::guid(key)),
            ("Item", Val::guid(item)),
            ("ItemCode", text(d, ITEMS, item, "Code")),
            ("ItemDescription", text(d, ITEMS, item, "Description")),
            (g.kind.number_field(), Val::str(&g.number)),
            ("IsDraft", Val::Int(1)),
            ("IsBlocked", Val::Int(0)),
            ("StockTransactionType", Val::Int(tx_type)),
            ("EndDate", g.expiry.map_or(Val::Null, Val::Date)),
            (field, Val::guid(line)),
            ("Created", Val::Date(d.now_ms)),
            ("Creator", Val::guid(d.api_user)),
            ("Modified", Val::Date(d.now_ms)),
            ("Modifier", Val::guid(d.api_user)),
            ("Division", Val::Int(i64::from(d.code))),
        ]);
        if g.kind == Kind::Batch {
            fields.push(("Quantity", Val::Dbl(g.quantity)));
        }
        d.upsert(g.kind.moves(), key, &fields);
        mirror(d, g.kind, key, sign * g.quantity);
    }
}

/// The pieces of a material issue, shop order receipt or by-product receipt of a tracked
/// item (`None` for an untracked one), checked against its reservations; nothing is written.
pub fn transaction_pieces(
    d: &Division,
    item: u128,
    tx_type: i64,
    draft: Option<u128>,
    warehouse: u128,
    location: u128,
    quantity: f64,
) -> Result<Option<Vec<Piece>>, ODataError> {
    let Some(kind) = kind_of(d, item) else { return Ok(None) };
    let code = code(d, ITEMS, item);
    let given = draft.map(|g| reserved(d, g, item, tx_type)).unwrap_or_default();
    if given.is_empty() {
        let table = if kind == Kind::Serial { "StockSerialNumbers" } else { "StockBatchNumbers" };
        return Err(bad(format!(
            "Item {code} is a {}: reserve its {} (inventory/{table}, StockTransactionType {tx_type}) and pass their DraftStockTransactionID.",
            kind.item_noun(),
            kind.plural()
        )));
    }
    check_numbers(d, item, &given, quantity)?;
    // A reservation for another warehouse than the transaction's does not count as its place.
    let given: Vec<Given> =
        given.into_iter().map(|g| if g.warehouse == warehouse { g } else { Given { location: 0, ..g } }).collect();
    let pieces = if tx_type == MATERIAL_ISSUE {
        take_out(d, item, &given, warehouse, location, tx_type, &mut Taken::new())?
    } else {
        put_in(d, item, &given, warehouse, location, tx_type)?
    };
    Ok(Some(pieces))
}

/// The pieces of a goods receipt line (numbers from its body), checked; `seen` holds the
/// serials of the receipt's earlier lines.
pub fn receipt_pieces(
    d: &Division,
    item: u128,
    given: &[Given],
    quantity: f64,
    warehouse: u128,
    location: u128,
    seen: &mut HashSet<(u128, String)>,
) -> Result<Option<Vec<Piece>>, ODataError> {
    check_numbers(d, item, given, quantity)?;
    if kind_of(d, item).is_none() {
        return Ok(None);
    }
    let code = code(d, ITEMS, item);
    for g in given.iter().filter(|g| g.kind == Kind::Serial) {
        if !seen.insert((item, g.number.clone())) {
            return Err(bad(format!("Serial number {} of item {code} is given twice.", g.number)));
        }
    }
    put_in(d, item, given, warehouse, location, GOODS_RECEIPT).map(Some)
}

/// The pieces of a warehouse transfer line: out of the from-place, into the to-place.
pub fn transfer_pieces(
    d: &Division,
    item: u128,
    given: &[Given],
    quantity: f64,
    from: (u128, u128),
    to: (u128, u128),
    taken: &mut Taken,
) -> Result<Option<Vec<Piece>>, ODataError> {
    check_numbers(d, item, given, quantity)?;
    if kind_of(d, item).is_none() {
        return Ok(None);
    }
    let same = from.0 == to.0;
    let (out_type, in_type) = if same {
        (LOCATION_TRANSFER_OUT, LOCATION_TRANSFER_IN)
    } else {
        (WAREHOUSE_TRANSFER_OUT, WAREHOUSE_TRANSFER_IN)
    };
    let out = take_out(d, item, given, from.0, from.1, out_type, taken)?;
    let to_loc = if to.1 == 0 { stock::default_location(d, item, to.0) } else { to.1 };
    let into: Vec<Piece> = out
        .iter()
        .map(|p| Piece {
            warehouse: to.0,
            location: to_loc,
            quantity: -p.quantity,
            row: None,
            tx_type: in_type,
            ..p.clone()
        })
        .collect();
    Ok(Some(out.into_iter().chain(into).collect()))
}

/// The given numbers of a draft transfer line (stored under it).
pub fn transfer_line_numbers(d: &Division, line: u128) -> Vec<Given> {
    on_line(d, "WarehouseTransferLine", line)
}

/// The pieces of a stock count line: the numbers at the place become what was counted.
pub fn count_pieces(
    d: &Division,
    item: u128,
    line: u128,
    warehouse: u128,
    location: u128,
    target: f64,
) -> Result<Option<Vec<Piece>>, ODataError> {
    let given = on_line(d, "StockCountLine", line);
    check_numbers(d, item, &given, target)?;
    if kind_of(d, item).is_none() {
        return Ok(None);
    }
    let code = code(d, ITEMS, item);
    let mut counted: BTreeMap<(Kind, String), (f64, Option<i64>)> = BTreeMap::new();
    for g in &given {
        let e = counted.entry((g.kind, g.number.clone())).or_insert((0.0, g.expiry));
        e.0 += g.quantity;
    }
    let mut pieces = Vec::new();
    // Numbers at the place that were not counted leave it.
    for (number, id) in d.numbers.of_item(item) {
        let here =
            d.numbers.places(*id).filter(|(w, l, _)| (*w, *l) == (warehouse, location)).map(|(_, _, q)| q).sum::<f64>();
        let kind = kind_of(d, item).unwrap_or(Kind::Serial);
        let (count, expiry) = counted.remove(&(kind, number.clone())).unwrap_or((0.0, None));
        if kind == Kind::Serial && count > 0.0 && d.numbers.in_stock(*id) - here > EPS {
            return Err(bad(format!("Serial number {number} of item {code} is in stock at another place.")));
        }
        if (count - here).abs() > EPS {
            pieces.push(Piece {
                kind,
                number: number.clone(),
                warehouse,
                location,
                quantity: count - here,
                row: None,
                expiry,
                tx_type: STOCK_COUNT,
            });
        }
    }
    // Numbers counted that the item never had.
    for ((kind, number), (count, expiry)) in counted {
        pieces.push(Piece {
            kind,
            number,
            warehouse,
            location,
            quantity: count,
            row: None,
            expiry,
            tx_type: STOCK_COUNT,
        });
    }
    pieces.sort_by(|a, b| a.number.cmp(&b.number));
    Ok(Some(pieces))
}

/// Every place where a tracked item's booked numbers differ from its location stock:
/// (item, warehouse, location, location stock, numbers' stock), read from the rows the
/// product syncs (StorageLocationStockPositions and StockSerialBatchNumbers).
pub fn mismatches(d: &Division) -> Vec<(u128, u128, u128, f64, f64)> {
    let mut numbers: HashMap<(u128, u128, u128), f64> = HashMap::new();
    if let Some(t) = d.table(MOVES) {
        for k in t.rows.keys() {
            let v = |f: &str| t.value(*k, f);
            if v("IsDraft").as_i64() == Some(1) {
                continue;
            }
            let place = (
                v("Item").as_guid().unwrap_or(0),
                v("Warehouse").as_guid().unwrap_or(0),
                v("StorageLocation").as_guid().unwrap_or(0),
            );
            *numbers.entry(place).or_default() += v("Quantity").as_f64().unwrap_or(0.0);
        }
    }
    let mut out = Vec::new();
    for ((item, wh, loc), key) in &d.sl_stock {
        if kind_of(d, *item).is_none() {
            continue;
        }
        let have = text(d, super::store::SL_STOCK_POSITIONS, *key, "Stock").as_f64().unwrap_or(0.0);
        let counted = numbers.remove(&(*item, *wh, *loc)).unwrap_or(0.0);
        if (have - counted).abs() > 1e-6 {
            out.push((*item, *wh, *loc, have, counted));
        }
    }
    for ((item, wh, loc), q) in numbers {
        if q.abs() > 1e-6 {
            out.push((item, wh, loc, 0.0, q));
        }
    }
    out.sort_by_key(|m| (m.0, m.1, m.2));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{Scale, generate};
    use crate::writes::apply;
    use serde_json::json;

    const PLANS: &str = "manufacturing/ShopOrderMaterialPlans";
    const SHOP_ORDERS: &str = "manufacturing/ShopOrders";

    fn division() -> Division {
        generate(Scale::Small, 7, 1_780_000_000_000, "http://sim").data.remove(0)
    }

    fn g(k: u128) -> String {
        value::guid_string(k)
    }

    fn send(
        d: &mut Division,
        path: &str,
        method: &str,
        key: Option<u128>,
        body: J,
    ) -> Result<Option<u128>, ODataError> {
        let e = esm_exact::schema::entity(path).expect("a known entity");
        let key = key.map(|k| format!("guid'{}'", g(k)));
        apply(d, e, method, key.as_deref(), body.to_string().as_bytes())
    }

    fn refused(d: &mut Division, path: &str, body: J) -> String {
        let before = d.last_timestamp();
        let err = send(d, path, "POST", None, body).expect_err("refused");
        assert_eq!(err.status, 400, "{err:?}");
        assert_eq!(d.last_timestamp(), before, "a refusal writes nothing: {}", err.message);
        err.message
    }

    fn reserve(d: &mut Division, kind: Kind, item: u128, number: &str, qty: f64, tx_type: i64, group: u128) -> u128 {
        let mut body = json!({"Item": g(item), "StockTransactionType": tx_type, "DraftStockTransactionID": g(group)});
        body[kind.number_field()] = json!(number);
        if kind == Kind::Batch {
            body["Quantity"] = json!(qty);
        }
        send(d, kind.moves(), "POST", None, body).expect("reserved").expect("a key")
    }

    /// An open material plan of a tracked material of `kind` with numbers in stock in the
    /// order's warehouse, with its item and that warehouse.
    fn open_plan(d: &Division, kind: Kind) -> (u128, u128, u128) {
        let t = d.table(PLANS).expect("plans");
        let plan = t
            .rows
            .keys()
            .copied()
            .find(|k| {
                let item = t.value(*k, "Item").as_guid().unwrap_or(0);
                let so = t.value(*k, "ShopOrder").as_guid().unwrap_or(0);
                let wh = text(d, SHOP_ORDERS, so, "Warehouse").as_guid();
                kind_of(d, item) == Some(kind)
                    && t.value(*k, "Status").as_i64() == Some(10)
                    && t.value(*k, "Type").as_i64() == Some(1)
                    && places_of(d, item).iter().any(|(w, _)| Some(*w) == wh)
            })
            .expect("an open plan of a tracked material");
        let item = t.value(plan, "Item").as_guid().expect("an item");
        let so = t.value(plan, "ShopOrder").as_guid().expect("a shop order");
        (plan, item, text(d, SHOP_ORDERS, so, "Warehouse").as_guid().expect("a warehouse"))
    }

    fn stock_of(d: &Division, item: u128, number: &str) -> Vec<(u128, u128, f64)> {
        d.numbers.id(item, number).map(|id| d.numbers.places(id).collect()).unwrap_or_default()
    }

    fn holds(d: &Division) {
        assert!(mismatches(d).is_empty(), "{:?}", mismatches(d));
        assert!(stock::mismatches(d).is_empty());
    }

    #[test]
    fn demo_data_numbers_every_unit_of_tracked_stock() {
        for d in generate(Scale::Small, 42, 1_773_136_805_000, "http://sim").data {
            holds(&d);
            let plans = d.table(PLANS).expect("plans");
            let items = d.table(ITEMS).expect("items");
            let open_planned = |item: u128| {
                plans.rows.keys().any(|k| {
                    plans.value(*k, "Item").as_guid() == Some(item) && plans.value(*k, "Status").as_i64() == Some(10)
                })
            };
            let batch: Vec<u128> =
                items.rows.keys().copied().filter(|k| kind_of(&d, *k) == Some(Kind::Batch)).collect();
            assert!(
                batch.iter().filter(|k| open_planned(**k)).count() >= 3,
                "{}: batch materials on open plans",
                d.code
            );
            let made = |k: u128| items.value(k, "IsMakeItem").as_i64() == Some(1);
            for item in batch.into_iter().filter(|k| !made(*k)) {
                let places = places_of(&d, item);
                let batches = d.numbers.of_item(item);
                let expiries: HashSet<i64> =
                    batches.iter().filter_map(|(_, id)| text(&d, NUMBERS, *id, "EndDate").as_i64()).collect();
                assert!(batches.len() >= 2 && expiries.len() >= 2, "two batches with their own expiry");
                assert!(places.len() >= 2, "over two locations");
                assert_eq!(text(&d, NUMBERS, batches[0].1, "Type"), Val::Int(2));
            }
            let orders = d.table(SHOP_ORDERS).expect("shop orders");
            let serial_made = orders
                .rows
                .keys()
                .filter(|k| {
                    orders.value(**k, "Status").as_i64() == Some(10)
                        && orders.value(**k, "IsSerial").as_i64() == Some(1)
                })
                .count();
            assert!(serial_made >= 2, "{}: open shop orders of serial made items", d.code);
            let batch_made = orders.rows.keys().any(|k| {
                orders.value(*k, "Status").as_i64() == Some(10) && orders.value(*k, "IsBatch").as_i64() == Some(1)
            });
            assert!(batch_made, "{}: an open shop order of a batch made item", d.code);
            // Purchased serial items in stock have a number per unit.
            let part = items.rows.keys().copied().find(|k| {
                kind_of(&d, *k) == Some(Kind::Serial)
                    && items.value(*k, "IsMakeItem").as_i64() == Some(0)
                    && items.value(*k, "Stock").as_f64() > Some(0.0)
            });
            let part = part.expect("a purchased serial item in stock");
            let numbered: f64 =
                places_of(&d, part).iter().map(|(w, l)| numbers_at(&d, part, *w, *l).len() as f64).sum();
            assert_eq!(Some(numbered), items.value(part, "Stock").as_f64());
        }
    }

    #[test]
    fn reservations_are_for_tracked_items_and_only_drafts_go() {
        let mut d = division();
        let (_, batch, _) = open_plan(&d, Kind::Batch);
        let plain = d
            .table(ITEMS)
            .and_then(|t| t.rows.keys().copied().find(|k| kind_of(&d, *k).is_none()))
            .expect("an untracked item");
        let group = 77;
        let body = |item: u128, tx: i64| json!({"Item": g(item), "SerialNumber": "S-1", "StockTransactionType": tx, "DraftStockTransactionID": g(group)});
        let message = refused(&mut d, SERIAL_MOVES, body(plain, 150));
        assert!(message.contains("is not a serial item") && message.contains("S-1"), "{message}");
        let message = refused(&mut d, SERIAL_MOVES, body(batch, 150));
        assert!(message.contains("is not a serial item"), "{message}");
        let message = refused(&mut d, SERIAL_MOVES, body(batch, 130));
        assert!(message.contains("StockTransactionType 130"), "{message}");
        let message = refused(
            &mut d,
            BATCH_MOVES,
            json!({"Item": g(batch), "BatchNumber": "B", "Quantity": 1, "StockTransactionType": 150}),
        );
        assert_eq!(message, "Verplicht: DraftStockTransactionID");

        let key = reserve(&mut d, Kind::Batch, batch, "L-X", 2.0, MATERIAL_ISSUE, group);
        assert_eq!(text(&d, BATCH_MOVES, key, "IsDraft"), Val::Int(1));
        assert_eq!(text(&d, MOVES, key, "Quantity"), Val::Dbl(-2.0), "an issue's reservation leaves stock");
        assert_eq!(text(&d, MOVES, key, "DraftTransactionID"), Val::guid(group));
        assert_eq!(send(&mut d, BATCH_MOVES, "DELETE", Some(key), J::Null).expect("deleted"), None);
        assert!(
            d.table(BATCH_MOVES).and_then(|t| t.get(key)).is_none()
                && d.table(MOVES).and_then(|t| t.get(key)).is_none()
        );

        let booked = d.table(BATCH_MOVES).and_then(|t| t.rows.keys().next().copied()).expect("an opening balance");
        let err = send(&mut d, BATCH_MOVES, "DELETE", Some(booked), J::Null).expect_err("booked");
        assert!(err.status == 400 && err.message.contains("is booked"), "{err:?}");
    }

    #[test]
    fn a_material_issue_of_a_batch_material_takes_its_reserved_batches() {
        let mut d = division();
        let (plan, item, _) = open_plan(&d, Kind::Batch);
        let issue = |qty: f64, group: Option<u128>, loc: Option<u128>| {
            let mut b = json!({"ShopOrderMaterialPlan": g(plan), "Quantity": qty, "TransactionDate": "2026-03-10"});
            if let Some(group) = group {
                b["DraftStockTransactionID"] = json!(g(group));
            }
            if let Some(loc) = loc {
                b["StorageLocation"] = json!(g(loc));
            }
            b
        };
        let path = "manufacturing/MaterialIssues";
        let message = refused(&mut d, path, issue(1.0, None, None));
        assert!(message.contains("is a batch item") && message.contains("DraftStockTransactionID"), "{message}");
        // The batches the demo data holds, the one spread over two locations last.
        let batches: Vec<(String, u128)> = d.numbers.of_item(item).to_vec();
        let (split, split_id) = batches.last().cloned().expect("batches");
        let places: Vec<(u128, u128, f64)> = d.numbers.places(split_id).collect();
        assert_eq!(places.len(), 2, "the last batch lies at two locations");
        let total: f64 = places.iter().map(|p| p.2).sum();

        let group = 1001;
        reserve(&mut d, Kind::Batch, item, &split, 1.0, MATERIAL_ISSUE, group);
        let message = refused(&mut d, path, issue(2.0, Some(group), None));
        assert!(message.contains("add up to 1, not to the quantity of 2"), "{message}");
        let unknown = reserve(&mut d, Kind::Batch, item, "NOPE", 1.0, MATERIAL_ISSUE, 1002);
        let message = refused(&mut d, path, issue(1.0, Some(1002), None));
        assert!(message.contains("Batch NOPE of item") && message.contains("holds 0"), "{message}");
        assert_eq!(text(&d, BATCH_MOVES, unknown, "IsDraft"), Val::Int(1), "a refusal leaves the reservation a draft");
        let group = 1003;
        reserve(&mut d, Kind::Batch, item, &split, total + 1.0, MATERIAL_ISSUE, group);
        let message = refused(&mut d, path, issue(total + 1.0, Some(group), None));
        assert!(message.contains(&format!("holds {total}")), "{message}");
        // At one location it holds only that location's part.
        let (_, loc, there) = places[0];
        let group = 1004;
        reserve(&mut d, Kind::Batch, item, &split, there + 1.0, MATERIAL_ISSUE, group);
        let message = refused(&mut d, path, issue(there + 1.0, Some(group), Some(loc)));
        assert!(message.contains(&format!("holds {there} at location")), "{message}");

        // Without a location, the reserved quantity comes from both locations.
        let group = 1005;
        let r = reserve(&mut d, Kind::Batch, item, &split, total, MATERIAL_ISSUE, group);
        let before = text(&d, ITEMS, item, "Stock").as_f64().unwrap_or(0.0);
        let key = send(&mut d, path, "POST", None, issue(total, Some(group), None)).expect("issued").expect("a key");
        assert_eq!(text(&d, BATCH_MOVES, r, "IsDraft"), Val::Int(0));
        assert_eq!(text(&d, BATCH_MOVES, r, "StockTransactionID"), Val::guid(key));
        assert_eq!(text(&d, MOVES, r, "IsDraft"), Val::Int(0));
        assert_eq!(text(&d, "manufacturing/MaterialIssues", key, "IsBatch"), Val::Int(1));
        assert!(stock_of(&d, item, &split).iter().all(|(_, _, q)| q.abs() < EPS), "the batch is used up");
        assert_eq!(text(&d, ITEMS, item, "Stock").as_f64(), Some(before - total));
        assert_eq!(text(&d, PLANS, plan, "IssuedQuantity").as_f64(), Some(total));
        assert_eq!(text(&d, BATCHES, split_id, "AvailableQuantity"), Val::Dbl(0.0));
        holds(&d);
    }

    #[test]
    fn a_material_issue_of_a_serial_material_takes_serials_in_stock_there() {
        let mut d = division();
        let (plan, item, wh) = open_plan(&d, Kind::Serial);
        let (loc, in_stock) = places_of(&d, item)
            .into_iter()
            .filter(|(w, _)| *w == wh)
            .find_map(|(w, l)| numbers_at(&d, item, w, l).first().map(|(n, _)| (l, n.clone())))
            .expect("a serial in stock in the order's warehouse");
        let path = "manufacturing/MaterialIssues";
        let issue = |qty: f64, group: u128| json!({"ShopOrderMaterialPlan": g(plan), "Quantity": qty, "TransactionDate": "2026-03-10", "DraftStockTransactionID": g(group)});
        reserve(&mut d, Kind::Serial, item, "NOT-THERE", 1.0, MATERIAL_ISSUE, 1);
        let message = refused(&mut d, path, issue(1.0, 1));
        assert!(
            message.contains("Serial number NOT-THERE") && message.contains("is not in stock at warehouse"),
            "{message}"
        );
        reserve(&mut d, Kind::Serial, item, &in_stock, 1.0, MATERIAL_ISSUE, 2);
        let message = refused(&mut d, path, issue(2.0, 2));
        assert!(
            message.contains("1 serial numbers for a quantity of 2") && message.contains("one serial number per unit"),
            "{message}"
        );
        let message = refused(&mut d, path, issue(0.5, 2));
        assert!(message.contains("is not a whole number"), "{message}");
        let before = stock::at_location(&d, item, wh, loc);
        send(&mut d, path, "POST", None, issue(1.0, 2)).expect("issued");
        assert!(stock_of(&d, item, &in_stock).is_empty(), "the serial left stock");
        assert_eq!(stock::at_location(&d, item, wh, loc), before - 1.0, "from the place the serial was");
        let id = d.numbers.id(item, &in_stock).expect("known");
        assert_eq!(text(&d, SERIALS, id, "Available"), Val::Bool(false));
        holds(&d);
    }

    #[test]
    fn a_shop_order_receipt_of_a_serial_item_brings_new_serials_into_stock() {
        let mut d = division();
        let orders = d.table(SHOP_ORDERS).expect("orders");
        let so = orders
            .rows
            .keys()
            .copied()
            .find(|k| {
                orders.value(*k, "Status").as_i64() == Some(10) && orders.value(*k, "IsSerial").as_i64() == Some(1)
            })
            .expect("an open order of a serial made item");
        let item = orders.value(so, "Item").as_guid().expect("item");
        let wh = orders.value(so, "Warehouse").as_guid().expect("warehouse");
        let path = "manufacturing/ShopOrderReceipts";
        let receipt = |qty: f64, group: Option<u128>| {
            let mut b = json!({"ShopOrder": g(so), "Quantity": qty, "TransactionDate": "2026-03-10"});
            if let Some(group) = group {
                b["DraftStockTransactionID"] = json!(g(group));
            }
            b
        };
        let message = refused(&mut d, path, receipt(1.0, None));
        assert!(message.contains("is a serial item") && message.contains("StockTransactionType 140"), "{message}");
        let old = places_of(&d, item)
            .into_iter()
            .find_map(|(w, l)| numbers_at(&d, item, w, l).first().map(|n| n.0.clone()))
            .expect("a serial in stock");
        reserve(&mut d, Kind::Serial, item, &old, 1.0, SHOP_ORDER_RECEIPT, 5);
        let message = refused(&mut d, path, receipt(1.0, Some(5)));
        assert!(
            message.contains(&format!("Serial number {old} of item")) && message.contains("already in stock"),
            "{message}"
        );
        // Reserved for an issue: not this receipt's.
        reserve(&mut d, Kind::Serial, item, "NEW-1", 1.0, MATERIAL_ISSUE, 6);
        assert!(refused(&mut d, path, receipt(1.0, Some(6))).contains("reserve its serial numbers"));

        for n in ["NEW-1", "NEW-2"] {
            reserve(&mut d, Kind::Serial, item, n, 1.0, SHOP_ORDER_RECEIPT, 7);
        }
        let before = text(&d, ITEMS, item, "Stock").as_f64().unwrap_or(0.0);
        let key = send(&mut d, path, "POST", None, receipt(2.0, Some(7))).expect("received").expect("key");
        assert_eq!(text(&d, ITEMS, item, "Stock").as_f64(), Some(before + 2.0));
        let default = stock::default_location(&d, item, wh);
        for n in ["NEW-1", "NEW-2"] {
            assert_eq!(stock_of(&d, item, n), vec![(wh, default, 1.0)]);
            let id = d.numbers.id(item, n).expect("registered");
            assert_eq!(text(&d, NUMBERS, id, "Type"), Val::Int(1));
            assert_eq!(text(&d, SERIALS, id, "Available"), Val::Bool(true));
        }
        let booked: Vec<u128> = d
            .table(MOVES)
            .map(|t| {
                t.rows.keys().copied().filter(|k| t.value(*k, "StockTransactionID").as_guid() == Some(key)).collect()
            })
            .unwrap_or_default();
        assert_eq!(booked.len(), 2);
        assert!(booked.iter().all(|k| text(&d, MOVES, *k, "Quantity") == Val::Dbl(1.0)
            && text(&d, MOVES, *k, "StockTransactionType") == Val::Int(140)));
        holds(&d);
    }

    #[test]
    fn a_by_product_receipt_creates_a_new_batch_with_the_reserved_quantity() {
        let mut d = division();
        let (plan, item, wh) = open_plan(&d, Kind::Batch);
        // A by-product plan of a batch material: the demo data has none, so make one.
        let so = text(&d, PLANS, plan, "ShopOrder").as_guid().expect("order");
        let by = send(
            &mut d,
            PLANS,
            "POST",
            None,
            json!({"ShopOrder": g(so), "Item": g(item), "Type": 2, "PlannedQuantity": 3}),
        )
        .expect("planned")
        .expect("key");
        assert_eq!(text(&d, PLANS, by, "IsBatch"), Val::Int(1));
        reserve(&mut d, Kind::Batch, item, "REST-1", 1.5, BY_PRODUCT_RECEIPT, 9);
        let body = json!({"ShopOrderMaterialPlan": g(by), "Quantity": 1.5, "TransactionDate": "2026-03-10", "DraftStockTransactionID": g(9)});
        send(&mut d, "manufacturing/ByProductReceipts", "POST", None, body).expect("received");
        let default = stock::default_location(&d, item, wh);
        assert_eq!(stock_of(&d, item, "REST-1"), vec![(wh, default, 1.5)]);
        holds(&d);
    }

    fn receipt_line(d: &Division, kind: Option<Kind>) -> u128 {
        let lines = d.table("purchaseorder/PurchaseOrderLines").expect("lines");
        lines
            .rows
            .keys()
            .copied()
            .find(|k| kind_of(d, lines.value(*k, "Item").as_guid().unwrap_or(0)) == kind)
            .expect("a line")
    }

    #[test]
    fn a_goods_receipt_of_a_tracked_item_needs_its_numbers() {
        let mut d = division();
        let serial_line = receipt_line(&d, Some(Kind::Serial));
        let path = "purchaseorder/GoodsReceipts";
        let body = |line: u128, qty: f64, numbers: J| {
            let mut l = json!({"PurchaseOrderLineID": g(line), "QuantityReceived": qty});
            if let J::Object(m) = numbers {
                for (k, v) in m {
                    l[k] = v;
                }
            }
            json!({"ReceiptDate": "2026-03-10", "GoodsReceiptLines": [l]})
        };
        let message = refused(&mut d, path, body(serial_line, 1.0, json!({})));
        assert!(message.contains("is a serial item: its serial numbers are mandatory"), "{message}");
        let item = text(&d, "purchaseorder/PurchaseOrderLines", serial_line, "Item").as_guid().expect("item");
        let (old, _) = places_of(&d, item)
            .into_iter()
            .find_map(|(w, l)| numbers_at(&d, item, w, l).into_iter().next())
            .expect("in stock");
        let message = refused(&mut d, path, body(serial_line, 1.0, json!({"SerialNumbers": [{"SerialNumber": old}]})));
        assert!(message.contains("already in stock"), "{message}");
        let message = refused(
            &mut d,
            path,
            body(serial_line, 1.0, json!({"BatchNumbers": [{"BatchNumber": "B", "Quantity": 1}]})),
        );
        assert!(message.contains("is not a batch item"), "{message}");

        // A batch item's receipt: a purchase order line for one of the demo batch materials.
        let (_, batch, _) = open_plan(&d, Kind::Batch);
        let po = text(&d, "purchaseorder/PurchaseOrderLines", serial_line, "PurchaseOrderID").as_guid().expect("order");
        let po_line = send(
            &mut d,
            "purchaseorder/PurchaseOrderLines",
            "POST",
            None,
            json!({"PurchaseOrderID": g(po), "Item": g(batch), "QuantityInPurchaseUnits": 10}),
        )
        .expect("line")
        .expect("key");
        let message = refused(
            &mut d,
            path,
            body(
                po_line,
                5.0,
                json!({"BatchNumbers": [{"BatchNumber": "B1", "Quantity": 2}, {"BatchNumber": "B2", "Quantity": 2}]}),
            ),
        );
        assert!(message.contains("add up to 4, not to the quantity of 5"), "{message}");
        let expiry = "2027-01-31";
        send(&mut d, path, "POST", None, body(po_line, 5.0, json!({"BatchNumbers": [{"BatchNumber": "B1", "Quantity": 2, "EndDate": expiry}, {"BatchNumber": "B2", "Quantity": 3}]}))).expect("received");
        let id = d.numbers.id(batch, "B1").expect("a new batch");
        assert!(text(&d, NUMBERS, id, "EndDate").as_i64().is_some());
        assert_eq!(text(&d, BATCHES, id, "AvailableQuantity"), Val::Dbl(2.0));
        holds(&d);
    }

    #[test]
    fn a_transfer_moves_the_numbers_it_names_from_where_they_are() {
        let mut d = division();
        let (_, item, wh) = open_plan(&d, Kind::Batch);
        let (number, id) = d.numbers.of_item(item).last().cloned().expect("a batch");
        let places: Vec<(u128, u128, f64)> = d.numbers.places(id).collect();
        let (from_loc, there) = (places[0].1, places[0].2);
        let to_loc = places[1].1;
        let line = |qty: f64, numbers: J| json!({"Item": g(item), "Quantity": qty, "StorageLocationFrom": g(from_loc), "StorageLocationTo": g(to_loc), "BatchNumbers": numbers});
        let transfer = |status: i64, l: J| json!({"WarehouseFrom": g(wh), "WarehouseTo": g(wh), "EntryDate": "2026-03-10", "Status": status, "WarehouseTransferLines": [l]});
        let path = "inventory/WarehouseTransfers";
        let message = refused(
            &mut d,
            path,
            transfer(
                50,
                json!({"Item": g(item), "Quantity": 1, "StorageLocationFrom": g(from_loc), "StorageLocationTo": g(to_loc)}),
            ),
        );
        assert!(message.contains("its batch numbers are mandatory"), "{message}");
        let message = refused(
            &mut d,
            path,
            transfer(50, line(there + 1.0, json!([{"BatchNumber": number, "Quantity": there + 1.0}]))),
        );
        assert!(message.contains(&format!("holds {there} at location")), "{message}");

        // A draft keeps its numbers and moves them when processed.
        let key = send(
            &mut d,
            path,
            "POST",
            None,
            transfer(10, line(there, json!([{"BatchNumber": number, "Quantity": there}]))),
        )
        .expect("a draft")
        .expect("key");
        let before = stock_of(&d, item, &number);
        send(&mut d, "inventory/ProcessWarehouseTransfer", "POST", None, json!({"TransferID": g(key)}))
            .expect("processed");
        let after = stock_of(&d, item, &number);
        assert!(after.iter().all(|(_, l, _)| *l != from_loc), "{before:?} -> {after:?}");
        let total = |s: &[(u128, u128, f64)]| s.iter().map(|p| p.2).sum::<f64>();
        assert!((total(&before) - total(&after)).abs() < EPS);
        holds(&d);

        // A serial that is not at the from-place.
        let (_, serial_item, _) = open_plan(&d, Kind::Serial);
        let serial_line = json!({"Item": g(serial_item), "Quantity": 1, "StorageLocationFrom": g(from_loc), "StorageLocationTo": g(to_loc),
                "SerialNumbers": [{"SerialNumber": "NOWHERE"}]});
        let message = refused(
            &mut d,
            path,
            json!({"WarehouseFrom": g(wh), "WarehouseTo": g(wh), "EntryDate": "2026-03-10", "Status": 50, "WarehouseTransferLines": [serial_line]}),
        );
        assert!(message.contains("Serial number NOWHERE") && message.contains("not in stock"), "{message}");
    }

    #[test]
    fn a_count_sets_the_numbers_at_its_place_to_what_was_counted() {
        let mut d = division();
        let (item, wh, loc, numbers) = items_with_numbers(&d)
            .into_iter()
            .filter(|i| kind_of(&d, *i) == Some(Kind::Serial))
            .flat_map(|i| places_of(&d, i).into_iter().map(move |(w, l)| (i, w, l)))
            .map(|(i, w, l)| (i, w, l, numbers_at(&d, i, w, l)))
            .find(|(.., n)| n.len() >= 2)
            .expect("a place with two serials");
        let kept = numbers[0].0.clone();
        let gone = numbers[1].0.clone();
        let count = |new: f64, serials: &[&str]| {
            let s: Vec<J> = serials.iter().map(|n| json!({"SerialNumber": n})).collect();
            json!({"Warehouse": g(wh), "StockCountDate": "2026-03-10", "Status": 21,
                "StockCountLines": [{"Item": g(item), "StorageLocation": g(loc), "QuantityNew": new, "SerialNumbers": s}]})
        };
        let path = "inventory/StockCounts";
        let message = refused(&mut d, path, count(2.0, &[&kept]));
        assert!(message.contains("1 serial numbers for a quantity of 2"), "{message}");
        // Counted: the kept one and a new one; every other serial at the place leaves it.
        send(&mut d, path, "POST", None, count(2.0, &[&kept, "FOUND-1"])).expect("counted");
        let now: Vec<String> = numbers_at(&d, item, wh, loc).into_iter().map(|(n, _)| n).collect();
        let mut expected = vec!["FOUND-1".to_string(), kept];
        expected.sort();
        assert_eq!(now, expected);
        assert!(stock_of(&d, item, &gone).is_empty());
        assert_eq!(stock::at_location(&d, item, wh, loc), 2.0);
        holds(&d);
    }
}
