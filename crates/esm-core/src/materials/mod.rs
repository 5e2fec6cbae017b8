//! Material shortages from the local copy: per item in demand, its supply and demand in date
//! order with a running balance, the first day it runs short, and the items shortest first, one
//! page at a time (`GET /api/v1/materials/shortages`). The server keeps one [`Shortages`] for
//! every organization, beside its state (`web::Data<Shortages>`).
//!
//! The browser used to receive every open line and every stock position and compute this itself:
//! at scale large (118,000 open material lines, 104,000 items in demand) that took it 8 s. The
//! lines are made once per change of the tables they come from (`OrgStore::tables_version`), the
//! projection once per filter, and a page is cut from it; the first after a sync is made as soon
//! as the sync ends, so the screen does not wait for it.

pub mod flow;
pub mod projection;
pub mod rows;
pub mod warm;

use crate::purchases::OpenLines;
use crate::store::{OrgStore, StoreResult};
use flow::{FlowLine, ItemInfo, Kind};
use parking_lot::Mutex;
use projection::{Availability, Filters, Projection};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;
use utoipa::ToSchema;

/// The tables the lines are made of: a write to any of them makes them again.
pub const TABLES: [&str; 8] = [
    "shopOrders",
    "shopOrderMaterialPlans",
    crate::issued::TABLE,
    "salesOrderLines",
    "salesOrderHeaders",
    "items",
    "stockPositions",
    crate::purchases::TABLE,
];

/// Items per page at most.
pub const MAX_PAGE: usize = 500;

/// Which items of the projection a page lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum Show {
    /// Only items that run short.
    Short,
    /// Items that run short or are covered only by supply still to come.
    #[default]
    Attention,
    All,
}

/// What a page asks for.
#[derive(Debug, Clone, Default)]
pub struct PageRequest {
    pub filters: Filters,
    pub show: Show,
    /// Matches the item's code or description, in any case.
    pub search: String,
    pub offset: usize,
    pub limit: usize,
}

/// How many items of the projection are in each state (whatever `show` and `search` are).
#[derive(Debug, Default, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub short: usize,
    pub expected: usize,
    pub in_stock: usize,
}

/// One line of an item's projection.
#[derive(Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShortageLine {
    pub kind: Kind,
    /// `YYYY-MM-DD`; none for free stock.
    pub day: Option<String>,
    /// Positive: supply; negative: demand.
    pub quantity: f64,
    /// The projected balance after this line.
    pub balance: f64,
    pub warehouse: String,
    pub project: String,
    /// The sales, purchase or shop order the line belongs to.
    pub ref_id: String,
    /// Its number (the warehouse code for free stock).
    pub ref_number: String,
    /// The sales order line (SO lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_id: Option<String>,
}

/// One item of the page: what it is, its figures and its lines.
#[derive(Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ItemShortage {
    /// The item's id, lower case.
    pub item: String,
    /// Its code, description, group and unit, when the item is in the local copy.
    pub info: Option<ItemInfo>,
    pub availability: Availability,
    /// The first day the balance goes below zero.
    pub first_short_day: Option<String>,
    pub first_short_balance: f64,
    pub free: f64,
    pub demand: f64,
    pub supply: f64,
    pub lowest: f64,
    pub end_balance: f64,
    pub lines: Vec<ShortageLine>,
}

/// A page of the projection.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ShortagePage {
    pub counts: Counts,
    /// The items `show` and `search` leave, of which this page lists `offset` on.
    pub total: usize,
    pub offset: usize,
    pub items: Vec<ItemShortage>,
}

/// The lines of one version of the tables.
struct Inputs {
    version: u64,
    lines: Vec<FlowLine>,
    items: HashMap<Arc<str>, ItemInfo>,
}

type ProjectionKey = (u64, Filters, Vec<(String, u64)>);

#[derive(Default)]
struct Slot {
    inputs: Option<Arc<Inputs>>,
    projection: Option<(ProjectionKey, Arc<Vec<Projection>>)>,
}

/// The organizations' lines and last projection, kept between requests.
#[derive(Default)]
pub struct Shortages {
    slots: Mutex<HashMap<i64, Arc<Mutex<Slot>>>>,
    /// The open purchase order lines, shared with the Purchases screen's read.
    purchases: OpenLines,
}

impl Shortages {
    /// The open purchase order lines the projection counts as supply to come.
    pub fn open_purchases(&self) -> &OpenLines {
        &self.purchases
    }

    fn make_inputs(&self, division: i64, store: &OrgStore, version: u64) -> StoreResult<Inputs> {
        let started = std::time::Instant::now();
        let rows = rows::material_rows(store)?;
        let purchases = self.purchases.get(division, store)?;
        let (lines, items) = flow::lines_of(&rows, &purchases);
        let ms = started.elapsed().as_millis() as u64;
        tracing::debug!(lines = lines.len(), items = items.len(), ms, "material lines made");
        Ok(Inputs { version, lines, items })
    }

    fn slot(&self, division: i64) -> Arc<Mutex<Slot>> {
        self.slots.lock().entry(division).or_default().clone()
    }

    /// The projection for `filters` (blocking: run it off the async workers). Requests of one
    /// organization wait for each other, so a projection is made once, not once per request.
    fn projection(
        &self,
        division: i64,
        store: &OrgStore,
        filters: &Filters,
        queued: &HashMap<String, f64>,
    ) -> StoreResult<(Arc<Inputs>, Arc<Vec<Projection>>)> {
        let slot = self.slot(division);
        let mut slot = slot.lock();
        // read before the rows: a copy is never older than the version it is kept under
        let version = store.tables_version(&TABLES);
        let inputs = match &slot.inputs {
            Some(inputs) if inputs.version == version => inputs.clone(),
            _ => {
                slot.projection = None;
                slot.inputs = None;
                let made = Arc::new(self.make_inputs(division, store, version)?);
                slot.inputs = Some(made.clone());
                made
            }
        };
        let mut queued_key: Vec<(String, u64)> = queued.iter().map(|(k, v)| (k.clone(), v.to_bits())).collect();
        queued_key.sort();
        let key: ProjectionKey = (version, filters.clone(), queued_key);
        if let Some((k, projection)) = &slot.projection
            && *k == key
        {
            return Ok((inputs, projection.clone()));
        }
        let projection = Arc::new(projection::project_all(&inputs.lines, &inputs.items, filters, queued));
        slot.projection = Some((key, projection.clone()));
        Ok((inputs, projection))
    }

    /// Whether the organization's lines are made for the store's current version.
    pub fn is_current(&self, division: i64, store: &OrgStore) -> bool {
        let version = store.tables_version(&TABLES);
        self.slot(division).lock().inputs.as_ref().is_some_and(|i| i.version == version)
    }

    /// Makes the lines and the unfiltered projection ahead of the first request (after a sync).
    pub fn warm(&self, division: i64, store: &OrgStore, queued: &HashMap<String, f64>) -> StoreResult<()> {
        self.projection(division, store, &Filters::default(), queued).map(|_| ())
    }

    /// A page of the projection.
    pub fn page(
        &self,
        division: i64,
        store: &OrgStore,
        request: &PageRequest,
        queued: &HashMap<String, f64>,
    ) -> StoreResult<ShortagePage> {
        let (inputs, projection) = self.projection(division, store, &request.filters, queued)?;
        let mut counts = Counts::default();
        for p in projection.iter() {
            match p.availability {
                Availability::Short => counts.short += 1,
                Availability::Expected => counts.expected += 1,
                Availability::InStock => counts.in_stock += 1,
            }
        }
        let search = request.search.trim().to_lowercase();
        let shown = projection.iter().filter(|p| {
            let state = match request.show {
                Show::Short => p.availability == Availability::Short,
                Show::Attention => p.availability != Availability::InStock,
                Show::All => true,
            };
            state
                && (search.is_empty()
                    || inputs.items.get(&p.item).is_some_and(|i| {
                        i.code.to_lowercase().contains(&search) || i.description.to_lowercase().contains(&search)
                    }))
        });
        let mut total = 0;
        let mut items = Vec::new();
        let limit = request.limit.min(MAX_PAGE);
        for p in shown {
            if total >= request.offset && items.len() < limit {
                items.push(item_shortage(&inputs, p));
            }
            total += 1;
        }
        Ok(ShortagePage { counts, total, offset: request.offset, items })
    }
}

fn item_shortage(inputs: &Inputs, p: &Projection) -> ItemShortage {
    let lines = p
        .lines
        .iter()
        .map(|b| {
            let l = &inputs.lines[b.line];
            ShortageLine {
                kind: l.kind,
                day: l.day.as_deref().map(str::to_string),
                quantity: b.quantity,
                balance: b.balance,
                warehouse: l.warehouse.to_string(),
                project: l.project.to_string(),
                ref_id: l.ref_id.to_string(),
                ref_number: l.ref_number.to_string(),
                line_id: l.line_id.as_deref().map(str::to_string),
            }
        })
        .collect();
    ItemShortage {
        item: p.item.to_string(),
        info: inputs.items.get(&p.item).cloned(),
        availability: p.availability,
        first_short_day: p.first_short_day.as_deref().map(str::to_string),
        first_short_balance: p.first_short_balance,
        free: p.free,
        demand: p.demand,
        supply: p.supply,
        lowest: p.lowest,
        end_balance: p.end_balance,
        lines,
    }
}

#[cfg(test)]
mod tests {
    use super::rows::tests::{guid, store};
    use super::*;
    use crate::store::Commit;
    use serde_json::json;

    fn page(shortages: &Shortages, store: &OrgStore, show: Show, queued: &HashMap<String, f64>) -> ShortagePage {
        let request = PageRequest { show, limit: 100, ..Default::default() };
        shortages.page(1, store, &request, queued).unwrap()
    }

    #[test]
    fn a_page_of_the_projection_follows_the_store_and_the_outbox() {
        let (_dir, store) = store();
        let shortages = Shortages::default();
        let none = HashMap::new();
        let first = page(&shortages, &store, Show::All, &none);
        // bolt: 5 free, lines 30 (4) and 31 (4 less 2 issued) of open orders: short by 1
        let bolt = first.items.iter().find(|i| i.item == guid(10)).expect("bolt");
        assert_eq!((bolt.free, bolt.demand, bolt.availability), (5.0, 6.0, Availability::Short));
        assert_eq!(bolt.info.as_ref().map(|i| i.code.as_str()), Some(&guid(10)[..4]));
        assert_eq!(bolt.lines.first().map(|l| l.kind), Some(Kind::FI));
        // frame: a sales line of 2 against two shop orders making 5
        let frame = first.items.iter().find(|i| i.item == guid(11)).expect("frame");
        assert_eq!(frame.availability, Availability::Expected);
        assert_eq!(first.counts, Counts { short: 1, expected: 1, in_stock: 0 });
        assert_eq!(page(&shortages, &store, Show::Short, &none).total, 1);

        // an issue on its way covers the shortfall
        let queued = HashMap::from([(guid(30), 1.0)]);
        let bolt = page(&shortages, &store, Show::All, &queued).items.into_iter().find(|i| i.item == guid(10));
        assert_eq!(bolt.map(|b| b.availability), Some(Availability::InStock));

        // a sync that brings more stock is seen at once: the lines are made again
        store
            .apply_batch(
                "stockPositions",
                vec![json!({"ID": format!("{}/w", guid(10)), "ItemId": guid(10), "FreeStock": 50, "Timestamp": "2"})],
                Some(101),
                Commit::Durable,
            )
            .unwrap();
        let bolt = page(&shortages, &store, Show::All, &none).items.into_iter().find(|i| i.item == guid(10));
        assert_eq!(bolt.map(|b| (b.free, b.availability)), Some((50.0, Availability::InStock)));
    }

    #[test]
    fn pages_cut_the_list_and_search_names() {
        let (_dir, store) = store();
        let shortages = Shortages::default();
        let all = page(&shortages, &store, Show::All, &HashMap::new());
        assert_eq!(all.total, 2);
        let request = PageRequest { show: Show::All, offset: 1, limit: 1, ..Default::default() };
        let second = shortages.page(1, &store, &request, &HashMap::new()).unwrap();
        assert_eq!((second.total, second.offset, second.items.len()), (2, 1, 1));
        assert_eq!(second.items[0].item, all.items[1].item);
        store
            .apply_batch(
                "items",
                vec![json!({"ID": guid(10), "Code": "BOLT-M8", "Description": "Bout", "Timestamp": "2"})],
                Some(101),
                Commit::Durable,
            )
            .unwrap();
        for search in ["bolt-m8", "BOUT"] {
            let request = PageRequest { show: Show::All, search: search.into(), limit: 10, ..Default::default() };
            let found = shortages.page(1, &store, &request, &HashMap::new()).unwrap();
            assert_eq!(found.items.iter().map(|i| i.item.as_str()).collect::<Vec<_>>(), vec![guid(10)], "{search}");
            assert_eq!(found.counts.short + found.counts.expected, 2, "the counts are the whole projection's");
        }
    }
}
