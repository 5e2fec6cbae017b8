//! The lines of supply and demand per item, made from the local copy's rows (the same rules as
//! the UI's `lib/shortage.ts`, which the item page still uses for one item):
//!
//! | kind | what | sign | day |
//! |---|---|---|---|
//! | FI | free stock now (stock positions' FreeStock) | supply | none: counted first |
//! | PO | purchase order line still to be received | supply | its receipt day |
//! | MA | shop order still to be made (planned − produced) | supply | its planned day |
//! | MS | shop order material still to be issued | demand | its planned day |
//! | SO | sales order line still to be delivered | demand | its delivery day |
//!
//! Ids, days and warehouse codes repeat over hundreds of thousands of lines at scale, so they are
//! shared (`Arc<str>`) rather than copied into every line.

use super::rows::MaterialRows;
use crate::exact::odata::{field_f64 as number, field_id, field_text as text};
use crate::purchases::OpenPurchaseLine;
use serde::Serialize;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use utoipa::ToSchema;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ToSchema)]
pub enum Kind {
    FI,
    PO,
    MA,
    MS,
    SO,
}

impl Kind {
    /// Order within one day: stock first, supply before demand (goods arrive before they are used).
    pub fn rank(self) -> u8 {
        match self {
            Kind::FI => 0,
            Kind::PO => 1,
            Kind::MA => 2,
            Kind::MS => 3,
            Kind::SO => 4,
        }
    }
}

/// One line of an item's supply or demand.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowLine {
    pub kind: Kind,
    pub item: Arc<str>,
    /// `YYYY-MM-DD`; none for free stock (and for lines without a date).
    pub day: Option<Arc<str>>,
    /// Positive: supply; negative: demand. An MS line holds planned less issued in Exact; what
    /// the outbox still has to issue comes off when the projection is made (it changes by the
    /// minute, the rest with a sync).
    pub quantity: f64,
    /// Lower case; empty when unknown.
    pub warehouse: Arc<str>,
    pub project: Arc<str>,
    /// The order the line belongs to (sales, purchase or shop order), for links.
    pub ref_id: Arc<str>,
    /// The order number shown (the warehouse code for free stock).
    pub ref_number: Arc<str>,
    /// The sales order line itself (SO), whose delivery day can be moved.
    pub line_id: Option<Arc<str>>,
    /// The material plan line (MS), to take off what the outbox still issues to it.
    pub plan: Option<Arc<str>>,
}

/// What an item is called, for the screen and its search.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemInfo {
    pub code: String,
    pub description: String,
    /// The item group's id, lower case.
    pub item_group: String,
    pub unit: String,
}

/// Quantities summed in floating point drift (0.1 + 0.2); six decimals are kept.
pub fn tidy(n: f64) -> f64 {
    (n * 1e6).round() / 1e6
}

/// Shares equal texts: one allocation per distinct id or day.
#[derive(Default)]
struct Interner(HashSet<Arc<str>>);

impl Interner {
    fn get(&mut self, s: &str) -> Arc<str> {
        if let Some(found) = self.0.get(s) {
            return found.clone();
        }
        let shared: Arc<str> = Arc::from(s);
        self.0.insert(shared.clone());
        shared
    }
}

/// Shop order statuses still to be produced: 10 open, 20 in process.
const OPEN_SHOP_ORDER: [f64; 2] = [10.0, 20.0];
/// Material plan statuses still to be issued: Exact's 10 open, 20 on order, 25 partial, and
/// the spec's 12 open.
const OPEN_MATERIAL_PLAN: [f64; 4] = [10.0, 12.0, 20.0, 25.0];
/// Sales order line statuses still to be delivered: 12 open, 20 partial.
const OPEN_SALES_LINE: [f64; 2] = [12.0, 20.0];
/// The material plan type of materials (2 is a by-product, received rather than used).
const MATERIAL_TYPE: f64 = 1.0;

struct Builder {
    ids: Interner,
    lines: Vec<FlowLine>,
}

impl Builder {
    fn id(&mut self, row: &Value, key: &str) -> Arc<str> {
        self.ids.get(&field_id(row, key))
    }

    fn day(&mut self, row: &Value, key: &str) -> Option<Arc<str>> {
        crate::exact::odata::field_day(row, key).map(|d| self.ids.get(&d))
    }
}

/// Every line of supply and demand in the rows, and the items' names.
pub fn lines_of(rows: &MaterialRows, purchases: &[OpenPurchaseLine]) -> (Vec<FlowLine>, HashMap<Arc<str>, ItemInfo>) {
    let mut b = Builder { ids: Interner::default(), lines: Vec::new() };
    let empty = b.ids.get("");

    for r in &rows.sales_lines {
        if r.get("Status").is_some_and(|s| !s.is_null()) && !OPEN_SALES_LINE.contains(&number(r, "Status")) {
            continue;
        }
        let left = tidy(number(r, "Quantity") - number(r, "QuantityDelivered"));
        if left <= 0.0 {
            continue;
        }
        let order = field_id(r, "OrderID");
        let warehouse = rows.sales_warehouses.get(&order).map(String::as_str).unwrap_or_default();
        let line = FlowLine {
            kind: Kind::SO,
            item: b.id(r, "Item"),
            day: b.day(r, "DeliveryDate"),
            quantity: -left,
            warehouse: b.ids.get(warehouse),
            project: b.id(r, "Project"),
            ref_id: b.ids.get(&order),
            ref_number: b.ids.get(&text(r, "OrderNumber")),
            line_id: Some(b.id(r, "ID")),
            plan: None,
        };
        b.lines.push(line);
    }

    struct Order {
        number: Arc<str>,
        warehouse: Arc<str>,
        project: Arc<str>,
    }
    let mut orders: HashMap<Arc<str>, Order> = HashMap::new();
    for r in &rows.shop_orders {
        let id = b.id(r, "ID");
        let order = Order {
            number: b.ids.get(&text(r, "ShopOrderNumber")),
            warehouse: b.id(r, "Warehouse"),
            project: b.id(r, "Project"),
        };
        let left = tidy(number(r, "PlannedQuantity") - number(r, "ProducedQuantity"));
        if OPEN_SHOP_ORDER.contains(&number(r, "Status")) && left > 0.0 {
            let line = FlowLine {
                kind: Kind::MA,
                item: b.id(r, "Item"),
                day: b.day(r, "PlannedDate"),
                quantity: left,
                warehouse: order.warehouse.clone(),
                project: order.project.clone(),
                ref_id: id.clone(),
                ref_number: order.number.clone(),
                line_id: None,
                plan: None,
            };
            b.lines.push(line);
        }
        orders.insert(id, order);
    }

    for r in &rows.plans {
        let kind = match number(r, "Type") {
            0.0 => MATERIAL_TYPE,
            t => t,
        };
        if kind != MATERIAL_TYPE || !OPEN_MATERIAL_PLAN.contains(&number(r, "Status")) {
            continue;
        }
        // a line of a finished or unknown shop order needs nothing any more
        let Some(order) = orders.get(field_id(r, "ShopOrder").as_str()) else { continue };
        let (number_, warehouse, project) = (order.number.clone(), order.warehouse.clone(), order.project.clone());
        let left = tidy(number(r, "PlannedQuantity") - number(r, crate::issued::FIELD));
        if left <= 0.0 {
            continue;
        }
        let line = FlowLine {
            kind: Kind::MS,
            item: b.id(r, "Item"),
            day: b.day(r, "PlannedDate"),
            quantity: -left,
            warehouse,
            project,
            ref_id: b.id(r, "ShopOrder"),
            ref_number: number_,
            line_id: None,
            plan: Some(b.id(r, "ID")),
        };
        b.lines.push(line);
    }

    for p in purchases {
        let left = tidy(p.quantity - p.received);
        if left <= 0.0 {
            continue;
        }
        let line = FlowLine {
            kind: Kind::PO,
            item: b.ids.get(&p.item),
            day: p.day.as_deref().map(|d| b.ids.get(d)),
            quantity: left,
            warehouse: b.ids.get(&p.warehouse),
            project: b.ids.get(&p.project),
            ref_id: b.ids.get(&p.order_id),
            ref_number: b.ids.get(&p.order_number),
            line_id: None,
            plan: None,
        };
        b.lines.push(line);
    }

    for r in &rows.stock_positions {
        let free = match r.get("FreeStock") {
            Some(v) if !v.is_null() => number(r, "FreeStock"),
            _ => number(r, "CurrentStock"),
        };
        if free == 0.0 {
            continue;
        }
        let line = FlowLine {
            kind: Kind::FI,
            item: b.id(r, "ItemId"),
            day: None,
            quantity: free,
            warehouse: b.id(r, "Warehouse"),
            project: empty.clone(),
            ref_id: empty.clone(),
            ref_number: b.ids.get(&text(r, "WarehouseCode")),
            line_id: None,
            plan: None,
        };
        b.lines.push(line);
    }

    let mut items = HashMap::new();
    for r in &rows.items {
        let unit = Some(text(r, "UnitDescription")).filter(|u| !u.is_empty()).unwrap_or_else(|| text(r, "Unit"));
        let info = ItemInfo {
            code: text(r, "Code"),
            description: text(r, "Description"),
            item_group: field_id(r, "ItemGroup"),
            unit,
        };
        items.insert(b.id(r, "ID"), info);
    }
    (b.lines, items)
}
