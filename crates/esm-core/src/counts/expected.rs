//! The review of a count: what the local copy expects in the count's scope beside what was
//! counted, with the difference, its value at the item's standard cost, who counted it and the
//! item's last count at that place.

use super::model::{CountSession, LastCount, ScopeKind};
use crate::store::{OrgStore, StoreResult};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use utoipa::ToSchema;

/// Ids per `in.(…)` read of the items.
const IDS_PER_READ: usize = 200;

/// One item at one place: expected, counted, or both.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewRow {
    #[schema(example = "0badc0de-0000-4000-8000-000000000010")]
    pub item: String,
    #[schema(example = "RVS-PLAAT-2MM")]
    pub item_code: String,
    #[schema(example = "RVS plaat 2 mm")]
    pub item_description: String,
    #[schema(required = true)]
    pub location: Option<String>,
    #[schema(required = true, example = "A-01")]
    pub location_code: Option<String>,
    /// In stock there as the local copy has it (0 for an item not expected there).
    #[schema(example = 10)]
    pub expected: f64,
    /// Counted there; none while not counted.
    #[schema(required = true, example = 12)]
    pub counted: Option<f64>,
    #[schema(required = true, example = 2)]
    pub difference: Option<f64>,
    /// The item's standard cost price, when the copy has one.
    #[schema(required = true, example = 4.5)]
    pub cost_price: Option<f64>,
    /// The difference at that price.
    #[schema(required = true, example = 9)]
    pub value: Option<f64>,
    #[schema(required = true, example = "Jan de Vries")]
    pub counted_by: Option<String>,
    #[schema(required = true)]
    pub counted_ms: Option<i64>,
    /// Its count at this place in the count sent before this one, if any.
    #[schema(required = true)]
    pub last_count: Option<LastCount>,
}

impl ReviewRow {
    /// An item at a place, neither expected nor counted yet.
    fn at(place: Place, item_code: String, item_description: String, location_code: Option<String>) -> ReviewRow {
        let (item, location) = place;
        ReviewRow {
            item,
            item_code,
            item_description,
            location,
            location_code,
            expected: 0.0,
            counted: None,
            difference: None,
            cost_price: None,
            value: None,
            counted_by: None,
            counted_ms: None,
            last_count: None,
        }
    }
}

/// Which rows a review page holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum ReviewFilter {
    #[default]
    All,
    Counted,
    /// Counted with a difference, or expected and not counted.
    Differences,
    NotCounted,
}

/// A page of the review and the totals over all of it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReviewPage {
    /// Rows in the whole review (expected or counted).
    #[schema(example = 120)]
    pub total: usize,
    #[schema(example = 96)]
    pub counted: usize,
    /// Expected there and not counted yet.
    #[schema(example = 24)]
    pub not_counted: usize,
    /// Counted with another quantity than expected.
    #[schema(example = 7)]
    pub differences: usize,
    /// The counted differences at standard cost, summed.
    #[schema(example = -41.5)]
    pub value_difference: f64,
    /// Rows that pass the filter, of which `rows` is the page from `offset`.
    #[schema(example = 31)]
    pub matching: usize,
    pub offset: usize,
    pub rows: Vec<ReviewRow>,
}

fn text(row: &Map<String, Value>, field: &str) -> String {
    row.get(field).and_then(Value::as_str).unwrap_or_default().to_string()
}

fn amount(row: &Map<String, Value>, field: &str) -> Option<f64> {
    match row.get(field)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn rows(store: &OrgStore, table: &str, pairs: &[(&str, &str)]) -> StoreResult<Vec<Map<String, Value>>> {
    if store.row_count(table)? == 0 {
        return Ok(Vec::new());
    }
    Ok(store.all_rows(table, pairs)?.into_iter().filter_map(|v| v.as_object().cloned()).collect())
}

pub(super) type Place = (String, Option<String>);

/// An expected row: the item at its place, its code and description, the place's code, and the
/// quantity the copy has there.
struct Expected {
    place: Place,
    code: String,
    description: String,
    location_code: Option<String>,
    stock: f64,
}

/// What the local copy expects in the scope: per item and place, its quantity and names.
fn expected(store: &OrgStore, session: &CountSession) -> StoreResult<Vec<Expected>> {
    let scope = &session.scope;
    let only: Option<HashSet<String>> = match scope.kind {
        ScopeKind::ItemGroup => {
            let group = format!("eq.{}", scope.item_group.as_deref().unwrap_or_default());
            let ids = rows(store, "items", &[("ItemGroup", group.as_str()), ("select", "ID")])?;
            Some(ids.iter().map(|r| text(r, "ID").to_ascii_lowercase()).collect())
        }
        ScopeKind::Items => Some(scope.items.iter().cloned().collect()),
        _ => None,
    };
    let warehouse = format!("eq.{}", scope.warehouse);
    let mut out = Vec::new();
    if scope.uses_locations {
        let location = scope.location.as_ref().map(|l| format!("eq.{l}"));
        let mut pairs = vec![
            ("Warehouse", warehouse.as_str()),
            ("select", "Item,ItemCode,ItemDescription,StorageLocation,StorageLocationCode,Stock"),
        ];
        if let Some(l) = &location {
            pairs.push(("StorageLocation", l.as_str()));
        }
        for r in rows(store, "storageLocationStockPositions", &pairs)? {
            let item = text(&r, "Item").to_ascii_lowercase();
            let stock = amount(&r, "Stock").unwrap_or(0.0);
            if stock.abs() < 1e-9 || only.as_ref().is_some_and(|o| !o.contains(&item)) {
                continue;
            }
            let location = Some(text(&r, "StorageLocation").to_ascii_lowercase()).filter(|l| !l.is_empty());
            let location_code = Some(text(&r, "StorageLocationCode")).filter(|c| !c.is_empty());
            let (code, description) = (text(&r, "ItemCode"), text(&r, "ItemDescription"));
            out.push(Expected { place: (item, location), code, description, location_code, stock });
        }
    } else {
        let pairs = [("Warehouse", warehouse.as_str()), ("select", "ItemId,ItemCode,ItemDescription,CurrentStock")];
        for r in rows(store, "stockPositions", &pairs)? {
            let item = text(&r, "ItemId").to_ascii_lowercase();
            let stock = amount(&r, "CurrentStock").unwrap_or(0.0);
            if stock.abs() < 1e-9 || only.as_ref().is_some_and(|o| !o.contains(&item)) {
                continue;
            }
            let (code, description) = (text(&r, "ItemCode"), text(&r, "ItemDescription"));
            out.push(Expected { place: (item, None), code, description, location_code: None, stock });
        }
    }
    Ok(out)
}

/// What the local copy expects in the session's scope, per item and place.
pub(super) fn expected_by_place(store: &OrgStore, session: &CountSession) -> StoreResult<HashMap<Place, f64>> {
    let mut out = HashMap::new();
    for e in expected(store, session)? {
        *out.entry(e.place).or_insert(0.0) += e.stock;
    }
    Ok(out)
}

/// The items' standard cost prices, by lower-case id.
fn cost_prices(store: &OrgStore, items: &[&str]) -> StoreResult<HashMap<String, f64>> {
    let mut out = HashMap::new();
    for chunk in items.chunks(IDS_PER_READ) {
        let ids = format!("in.({})", chunk.join(","));
        for r in rows(store, "items", &[("ID", ids.as_str()), ("select", "ID,CostPriceStandard")])? {
            if let Some(p) = amount(&r, "CostPriceStandard") {
                out.insert(text(&r, "ID").to_ascii_lowercase(), p);
            }
        }
    }
    Ok(out)
}

/// The latest line of each item and place in the sessions sent before `session`.
fn last_counts(session: &CountSession, others: &[CountSession]) -> HashMap<Place, LastCount> {
    let mut out: HashMap<Place, LastCount> = HashMap::new();
    for s in others.iter().filter(|s| s.id != session.id && s.sent.is_some()) {
        for l in &s.lines {
            let at = (l.item.clone(), l.location.clone());
            let newer = out.get(&at).is_none_or(|seen| seen.at_ms < l.counted_ms);
            if newer {
                out.insert(at, LastCount { at_ms: l.counted_ms, quantity: l.quantity, by: l.counted_by.clone() });
            }
        }
    }
    out
}

/// The review of `session`: every expected and counted row, ordered by location and item code,
/// with the page of `filter`'s rows from `offset`.
pub fn review(
    store: &OrgStore,
    session: &CountSession,
    others: &[CountSession],
    filter: ReviewFilter,
    offset: usize,
    limit: usize,
) -> StoreResult<ReviewPage> {
    let mut by_place: HashMap<Place, ReviewRow> = HashMap::new();
    for Expected { place, code, description, location_code, stock } in expected(store, session)? {
        let row =
            by_place.entry(place.clone()).or_insert_with(|| ReviewRow::at(place, code, description, location_code));
        row.expected += stock;
    }
    for l in &session.lines {
        let place = (l.item.clone(), l.location.clone());
        let row = by_place.entry(place.clone()).or_insert_with(|| {
            ReviewRow::at(place, l.item_code.clone(), l.item_description.clone(), l.location_code.clone())
        });
        if let Some(then) = l.expected_when_sent {
            row.expected = then;
        }
        row.counted = Some(l.quantity);
        row.counted_by = Some(l.counted_by.clone());
        row.counted_ms = Some(l.counted_ms);
        if row.location_code.is_none() {
            row.location_code = l.location_code.clone();
        }
    }
    let mut all: Vec<ReviewRow> = by_place.into_values().collect();
    all.sort_by(|a, b| {
        let loc = |r: &ReviewRow| r.location_code.as_deref().unwrap_or_default().to_lowercase();
        loc(a).cmp(&loc(b)).then_with(|| a.item_code.to_lowercase().cmp(&b.item_code.to_lowercase()))
    });
    let counted_items: Vec<&str> = all.iter().filter(|r| r.counted.is_some()).map(|r| r.item.as_str()).collect();
    let prices = cost_prices(store, &counted_items)?;
    let last = last_counts(session, others);
    let (mut counted, mut not_counted, mut differences, mut value_difference) = (0, 0, 0, 0.0);
    for r in &mut all {
        r.last_count = last.get(&(r.item.clone(), r.location.clone())).cloned();
        let Some(c) = r.counted else {
            not_counted += 1;
            continue;
        };
        counted += 1;
        let d = c - r.expected;
        r.difference = Some(d);
        r.cost_price = prices.get(&r.item).copied();
        r.value = r.cost_price.map(|p| p * d);
        if d.abs() > 1e-9 {
            differences += 1;
        }
        value_difference += r.value.unwrap_or(0.0);
    }
    let total = all.len();
    let passes = |r: &ReviewRow| match filter {
        ReviewFilter::All => true,
        ReviewFilter::Counted => r.counted.is_some(),
        ReviewFilter::NotCounted => r.counted.is_none(),
        ReviewFilter::Differences => r.difference.is_none_or(|d| d.abs() > 1e-9),
    };
    let matching: Vec<ReviewRow> = all.into_iter().filter(passes).collect();
    let mut page: Vec<ReviewRow> = matching.iter().skip(offset).take(limit).cloned().collect();
    // the uncounted rows of the page get their price too, to show what is at stake
    let unpriced: Vec<&str> = page.iter().filter(|r| r.counted.is_none()).map(|r| r.item.as_str()).collect();
    let more = cost_prices(store, &unpriced)?;
    for r in page.iter_mut().filter(|r| r.counted.is_none()) {
        r.cost_price = more.get(&r.item).copied();
    }
    Ok(ReviewPage {
        total,
        counted,
        not_counted,
        differences,
        value_difference,
        matching: matching.len(),
        offset,
        rows: page,
    })
}
