//! What a count session is, as stored and as answered.

use super::{ItemFacts, MAX_ITEMS, guid, label};
use crate::error::{AppError, AppResult, Code, Text};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// What a count covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum ScopeKind {
    /// One storage location of a warehouse.
    Location,
    /// A whole warehouse, with or without storage locations.
    Warehouse,
    /// The items of one item group, in a warehouse.
    ItemGroup,
    /// A list of items, in a warehouse.
    Items,
}

/// The warehouse (and location, group or items) a session counts, with the codes it was started
/// with so a session reads the same during an outage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CountScope {
    pub kind: ScopeKind,
    #[schema(example = "0badc0de-0000-4000-8000-000000000008")]
    pub warehouse: String,
    #[schema(example = "1")]
    pub warehouse_code: String,
    /// Whether the warehouse keeps its stock in storage locations (Exact's `UseStorageLocations`):
    /// a line in one that does not names no location.
    pub uses_locations: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "A-01")]
    pub location_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item_group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "PLAAT")]
    pub item_group_code: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<String>,
}

impl CountScope {
    /// The location a line is counted at, with its code: the session's own for a location count;
    /// none in a warehouse without locations; as the counter scanned it otherwise. An item outside
    /// the group or the list is refused, so the count is of what it says.
    pub(super) fn place_of(
        &self,
        body: &CountLineBody,
        item: &ItemFacts,
    ) -> AppResult<(Option<String>, Option<String>)> {
        let given = match body.location.as_deref().map(str::trim).filter(|l| !l.is_empty()) {
            Some(l) => Some(guid("location", l)?),
            None => None,
        };
        match self.kind {
            ScopeKind::ItemGroup if item.group.as_deref() != self.item_group.as_deref() => {
                return Err(AppError::said(
                    Code::BadRequest,
                    Text::CountItemNotInGroup {
                        item: item.code.clone(),
                        group: self.item_group_code.clone().unwrap_or_default(),
                    },
                ));
            }
            ScopeKind::Items if !self.items.iter().any(|i| Some(i.as_str()) == body_item(body).as_deref()) => {
                return Err(AppError::said(Code::BadRequest, Text::CountItemNotListed { item: item.code.clone() }));
            }
            _ => {}
        }
        if self.kind == ScopeKind::Location {
            if given.is_some() && given != self.location {
                return Err(AppError::said(
                    Code::BadRequest,
                    Text::CountOfOtherLocation { location: self.location_code.clone().unwrap_or_default() },
                ));
            }
            return Ok((self.location.clone(), self.location_code.clone()));
        }
        if self.uses_locations && given.is_none() {
            return Err(AppError::said(
                Code::BadRequest,
                Text::CountSayLocation { warehouse: self.warehouse_code.clone(), item: item.code.clone() },
            ));
        }
        if !self.uses_locations {
            if given.is_some() {
                // Exact's own words for a location in such a warehouse
                return Err(AppError::said(
                    Code::BadRequest,
                    Text::CountLineTakesNoLocation { warehouse: self.warehouse_code.clone() },
                ));
            }
            return Ok((None, None));
        }
        let code = given.as_ref().map(|_| label(body.location_code.as_deref().unwrap_or_default()));
        Ok((given, code))
    }
}

fn body_item(body: &CountLineBody) -> Option<String> {
    guid("item", &body.item).ok()
}

/// One counted item at one place.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CountLine {
    #[schema(example = "4f5f2c1a-9b7e-4d1c-8a2b-3c4d5e6f7a8b")]
    pub id: String,
    #[schema(example = "0badc0de-0000-4000-8000-000000000010")]
    pub item: String,
    #[schema(example = "RVS-PLAAT-2MM")]
    pub item_code: String,
    #[schema(example = "RVS plaat 2 mm")]
    pub item_description: String,
    #[serde(default)]
    #[schema(required = true)]
    pub location: Option<String>,
    #[serde(default)]
    #[schema(required = true, example = "A-01")]
    pub location_code: Option<String>,
    #[schema(example = 12)]
    pub quantity: f64,
    /// Who counted it (the user's name), and when (epoch ms).
    #[schema(example = "Jan de Vries")]
    pub counted_by: String,
    #[schema(example = 1_780_000_000_000_i64)]
    pub counted_ms: i64,
    /// What the local copy expected at this place when the count was sent (the review of a sent
    /// count shows it: by then the count is the stock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_when_sent: Option<f64>,
    /// A serial item's numbers found at the place (one per unit), or a batch item's batches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub serial_numbers: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub batch_numbers: Vec<CountedBatch>,
}

impl CountLine {
    /// Whether a count again found the same: the quantity, and the same numbers (in any order,
    /// numbers as Exact compares them, without regard to case).
    pub fn same_count(&self, quantity: f64, serials: &[String], batches: &[CountedBatch]) -> bool {
        let key = |s: &str| s.to_lowercase();
        let mut mine: Vec<String> = self.serial_numbers.iter().map(|s| key(s)).collect();
        let mut theirs: Vec<String> = serials.iter().map(|s| key(s)).collect();
        mine.sort();
        theirs.sort();
        let batch_key = |b: &CountedBatch| (key(&b.number), (b.quantity * 1e6).round() as i64);
        let mut mine_b: Vec<_> = self.batch_numbers.iter().map(batch_key).collect();
        let mut theirs_b: Vec<_> = batches.iter().map(batch_key).collect();
        mine_b.sort();
        theirs_b.sort();
        (self.quantity - quantity).abs() < 1e-9 && mine == theirs && mine_b == theirs_b
    }
}

/// How the count goes to Exact Online.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum SendMode {
    /// A draft StockCount (status 12), for someone with the right to process it in Exact.
    Draft,
    /// Created and processed (status 21): the counted quantities become the stock.
    Process,
}

/// The outbox entries a sent session queued.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sent {
    pub mode: SendMode,
    pub entries: Vec<u64>,
    /// The StockCountID the count gets in Exact Online.
    pub stock_count_id: String,
    pub by: String,
    pub at_ms: i64,
}

/// A count session as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountSession {
    pub id: String,
    pub description: String,
    pub scope: CountScope,
    pub created_by: String,
    pub created_ms: i64,
    pub lines: Vec<CountLine>,
    pub sent: Option<Sent>,
}

/// Where a session stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum CountStatus {
    /// Lines are being added.
    Counting,
    /// Sent, on its way to Exact Online (waiting through an outage).
    Sending,
    /// A draft in Exact Online (also when processing it there was refused: `error` says why).
    Draft,
    /// Processed in Exact Online: the counted quantities are the stock.
    Processed,
    /// Exact Online refused the count: it can be reopened, corrected and sent again.
    Refused,
}

/// A session as answered: what it counts, its lines and where it stands.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CountSummary {
    #[schema(example = "9a1c7e52-0d3b-4b8e-8f3a-2c5d6e7f8a9b")]
    pub id: String,
    #[schema(example = "Rack A, Friday")]
    pub description: String,
    pub scope: CountScope,
    #[schema(example = "Els Bakker")]
    pub created_by: String,
    #[schema(example = 1_780_000_000_000_i64)]
    pub created_ms: i64,
    pub status: CountStatus,
    /// Exact Online's message when it refused the count or its processing.
    #[schema(required = true)]
    pub error: Option<String>,
    /// How it was sent, when it was.
    #[schema(required = true)]
    pub mode: Option<SendMode>,
    /// The StockCountID in Exact Online, once sent.
    #[schema(required = true)]
    pub stock_count_id: Option<String>,
    /// Lines counted (all of them are in `lines` when one session is asked for).
    #[schema(example = 14)]
    pub line_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<Vec<CountLine>>,
}

/// The last time an item was counted at a place by a count session sent before.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LastCount {
    #[schema(example = 1_779_000_000_000_i64)]
    pub at_ms: i64,
    #[schema(example = 10)]
    pub quantity: f64,
    #[schema(example = "Jan de Vries")]
    pub by: String,
}

/// What starting a count takes: the warehouse, and the location, group or items for those kinds.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CountStart {
    pub kind: ScopeKind,
    #[serde(default)]
    #[schema(example = "Rack A, Friday")]
    pub description: Option<String>,
    #[schema(example = "0badc0de-0000-4000-8000-000000000008")]
    pub warehouse: String,
    #[schema(example = "1")]
    pub warehouse_code: String,
    /// The warehouse's `UseStorageLocations`.
    pub uses_locations: bool,
    #[serde(default)]
    pub location: Option<String>,
    #[serde(default)]
    #[schema(example = "A-01")]
    pub location_code: Option<String>,
    #[serde(default)]
    pub item_group: Option<String>,
    #[serde(default)]
    #[schema(example = "PLAAT")]
    pub item_group_code: Option<String>,
    #[serde(default)]
    #[schema(max_items = 1000)]
    pub items: Vec<String>,
}

impl CountStart {
    pub(super) fn scope(&self) -> AppResult<CountScope> {
        let warehouse = guid("warehouse", &self.warehouse)?;
        let warehouse_code = label(&self.warehouse_code);
        if warehouse_code.is_empty() {
            return Err(AppError::bad_request("'warehouseCode' is required: the warehouse as people know it"));
        }
        let mut scope = CountScope {
            kind: self.kind,
            warehouse,
            warehouse_code,
            uses_locations: self.uses_locations,
            location: None,
            location_code: None,
            item_group: None,
            item_group_code: None,
            items: Vec::new(),
        };
        let required = |v: &Option<String>, field: &str| -> AppResult<String> {
            match v.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
                Some(s) => guid(field, s),
                None => Err(AppError::bad_request(format!("'{field}' is required for this kind of count"))),
            }
        };
        match self.kind {
            ScopeKind::Location => {
                if !self.uses_locations {
                    return Err(AppError::said(
                        Code::BadRequest,
                        Text::CountLocationWithoutLocations { warehouse: scope.warehouse_code.clone() },
                    ));
                }
                scope.location = Some(required(&self.location, "location")?);
                scope.location_code = Some(label(self.location_code.as_deref().unwrap_or_default()));
            }
            ScopeKind::ItemGroup => {
                scope.item_group = Some(required(&self.item_group, "itemGroup")?);
                scope.item_group_code = Some(label(self.item_group_code.as_deref().unwrap_or_default()));
            }
            ScopeKind::Items => {
                if self.items.is_empty() || self.items.len() > MAX_ITEMS {
                    return Err(AppError::bad_request(format!("'items' must list 1 to {MAX_ITEMS} items")));
                }
                let mut items = Vec::with_capacity(self.items.len());
                for i in &self.items {
                    let i = guid("items", i)?;
                    if !items.contains(&i) {
                        items.push(i);
                    }
                }
                scope.items = items;
            }
            ScopeKind::Warehouse => {}
        }
        Ok(scope)
    }
}

/// A counted line: the item, where (a storage location, in a warehouse that uses them), and
/// how many. `replace` answers "which stands" for an item counted there before.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CountLineBody {
    #[schema(example = "0badc0de-0000-4000-8000-000000000010")]
    pub item: String,
    #[serde(default)]
    pub location: Option<String>,
    #[serde(default)]
    #[schema(example = "A-01")]
    pub location_code: Option<String>,
    #[schema(example = 12)]
    pub quantity: f64,
    /// The new count stands over one made before at the same place.
    #[serde(default)]
    pub replace: bool,
    /// A serial item's numbers found here, one per unit counted, in Exact's own shape (as
    /// Scanning's Count sends them); for a batch item `BatchNumbers`, adding up to the quantity.
    #[serde(rename = "SerialNumbers", default)]
    #[schema(value_type = Option<Vec<crate::outbox::bodies::SerialNumber>>)]
    pub serial_numbers: Option<Value>,
    #[serde(rename = "BatchNumbers", default)]
    #[schema(value_type = Option<Vec<crate::outbox::bodies::BatchNumber>>)]
    pub batch_numbers: Option<Value>,
}

/// A batch counted at a place, and how much of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CountedBatch {
    #[schema(example = "B-2026-0412")]
    pub number: String,
    #[schema(example = 2.5)]
    pub quantity: f64,
}
