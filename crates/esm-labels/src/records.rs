//! Label data records from the three sources (shop order, item direct, goods receipt) with the
//! rules of spec §5 and §9. Provider rows come in through [`LabelLookups`] in the provider's own
//! field names, so the Exact client (or the local store) can serve them unchanged.

use super::types::LabelType;
use esm_base::texts::Text;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::future::Future;

/// Spec §4/§8: the message when nothing is left to print.
pub const NO_LABELS_MESSAGE: &str = "There are no labels to print that fit the desired criteria";
/// Printed when an item has no supplier.
pub const SUPPLIER_DEFAULT: &str = "No supplier";
/// Printed for a free-text field that has no value.
pub const MISSING_FREE_TEXT: &str = "-";
/// Printed when an item has no usable warehouse and location.
pub const NO_WAREHOUSE: &str = "W-L: -";
/// Printed when there is no project.
pub const NO_PROJECT: &str = "Pr: N/A";
/// The item extra field whose value is the post-processing description.
pub const POST_PROCESSING_FIELD: &str = "Bewerkingen";
/// The material plan line type used for labels (2 = by-product in the provider's API).
pub const LABEL_PLAN_TYPE: i64 = 2;
/// Item codes containing this are never labelled from shop orders or goods receipts.
pub const EXCLUDED_CODE_PART: &str = "ZV";

/// The warehouses whose stock never goes on a label: the organization preference
/// `label_skipped_warehouses` (spec §5's "warehouse code 'xxx3'" is a placeholder for a code the
/// plant chooses, so it is a setting rather than a rule on the code's last digit).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkippedWarehouses(HashSet<String>);

impl SkippedWarehouses {
    /// Codes as Exact Online writes them; surrounding spaces do not count.
    pub fn new<S: AsRef<str>>(codes: impl IntoIterator<Item = S>) -> Self {
        Self(codes.into_iter().map(|c| c.as_ref().trim().to_string()).filter(|c| !c.is_empty()).collect())
    }

    pub fn skips(&self, warehouse: &str) -> bool {
        self.0.contains(warehouse.trim())
    }
}

/// Where the labels come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LabelSource {
    ShopOrder,
    ItemDirect,
    GoodsReceipt,
}

/// One requested id, optionally with how many copies to print.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(untagged)]
pub enum Selection {
    #[schema(example = "0badc0de-0000-4000-8000-000000000002")]
    Id(String),
    WithCount {
        #[schema(example = "0badc0de-0000-4000-8000-000000000002")]
        id: String,
        /// Copies of this one's labels (also taken as `PrintCount`).
        #[serde(default, alias = "PrintCount")]
        #[schema(example = 2)]
        print_count: Option<u32>,
    },
}

impl Selection {
    pub fn id(&self) -> &str {
        match self {
            Selection::Id(id) | Selection::WithCount { id, .. } => id,
        }
    }
    pub fn print_count(&self) -> Option<u32> {
        match self {
            Selection::Id(_) => None,
            Selection::WithCount { print_count, .. } => *print_count,
        }
    }
}

/// A warehouse and storage location pair printed as `W-L: {warehouse}-{location}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "PascalCase")]
pub struct WarehouseLocation {
    pub warehouse: String,
    pub location: String,
}

/// The label data record of spec §3, serialised with the spec's field names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "PascalCase")]
pub struct LabelRecord {
    #[serde(rename = "ItemID")]
    pub item_id: String,
    pub item_code: String,
    pub description: String,
    pub shop_order_number: Option<String>,
    pub project_description: Option<String>,
    pub purchase_order_number: Option<String>,
    pub receipt_number: Option<String>,
    pub serial_number: Option<String>,
    /// The batch of a batch-tracked item's receipt (one label per batch received).
    #[serde(default)]
    pub batch_number: Option<String>,
    /// What the label stands for with its unit: a receipt line's received quantity (one unit on
    /// a serial number's label), a shop order's or by-product's planned quantity.
    pub quantity: Option<String>,
    pub supplier_code: Option<String>,
    pub supplier_description: Option<String>,
    pub warehouses_and_locations: Vec<WarehouseLocation>,
    pub warehouse_and_location_for_label: String,
    pub post_processing_description: Option<String>,
    #[serde(rename = "FreeTextField_06")]
    pub free_text_06: Option<String>,
    #[serde(rename = "FreeTextField_07")]
    pub free_text_07: Option<String>,
    #[serde(rename = "FreeTextField_08")]
    pub free_text_08: Option<String>,
    #[serde(rename = "FreeTextField_09")]
    pub free_text_09: Option<String>,
    pub print_count: u32,
}

impl LabelRecord {
    /// The placeholders templates may use.
    pub const FIELDS: &'static [&'static str] = &[
        "ItemCode",
        "Description",
        "ItemDescription",
        "ShopOrderNumber",
        "ProjectDescription",
        "Project",
        "PurchaseOrderNumber",
        "ReceiptNumber",
        "SerialNumber",
        "BatchNumber",
        "TrackingNumber",
        "Quantity",
        "SupplierCode",
        "SupplierDescription",
        "Supplier",
        "WarehouseAndLocationForLabel",
        "PostProcessingDescription",
        "FreeTextField_06",
        "FreeTextField_07",
        "FreeTextField_08",
        "FreeTextField_09",
    ];

    /// A field's printed value, with the spec's defaults for missing data.
    pub fn field(&self, name: &str) -> String {
        let opt = |v: &Option<String>| v.clone().unwrap_or_default();
        let free = |v: &Option<String>| match v.as_deref().map(str::trim) {
            Some(s) if !s.is_empty() => s.to_string(),
            _ => MISSING_FREE_TEXT.to_string(),
        };
        match name {
            "ItemCode" => self.item_code.clone(),
            "Description" | "ItemDescription" => self.description.clone(),
            "ShopOrderNumber" => opt(&self.shop_order_number),
            "ProjectDescription" => opt(&self.project_description),
            "Project" => self.project_label(),
            "PurchaseOrderNumber" => opt(&self.purchase_order_number),
            "ReceiptNumber" => opt(&self.receipt_number),
            "SerialNumber" => opt(&self.serial_number),
            "BatchNumber" => opt(&self.batch_number),
            "TrackingNumber" => self.tracking_number().unwrap_or_default(),
            "Quantity" => opt(&self.quantity),
            "SupplierCode" => opt(&self.supplier_code),
            "SupplierDescription" => self.supplier_description.clone().unwrap_or_else(|| SUPPLIER_DEFAULT.into()),
            "Supplier" => match (&self.supplier_code, &self.supplier_description) {
                (Some(code), Some(desc)) => format!("{code} {desc}"),
                (Some(code), None) => code.clone(),
                (None, Some(desc)) => desc.clone(),
                (None, None) => SUPPLIER_DEFAULT.into(),
            },
            "WarehouseAndLocationForLabel" if self.warehouse_and_location_for_label.is_empty() => NO_WAREHOUSE.into(),
            "WarehouseAndLocationForLabel" => self.warehouse_and_location_for_label.clone(),
            "PostProcessingDescription" => opt(&self.post_processing_description),
            "FreeTextField_06" => free(&self.free_text_06),
            "FreeTextField_07" => free(&self.free_text_07),
            "FreeTextField_08" => free(&self.free_text_08),
            "FreeTextField_09" => free(&self.free_text_09),
            _ => String::new(),
        }
    }

    /// Whether the record holds a value of its own for a field, rather than the default printed for
    /// missing data ('-', 'No supplier', 'W-L: -', 'Pr: N/A'): what a template's `if_present` and
    /// `if_absent` test.
    pub fn has(&self, name: &str) -> bool {
        let real = |v: Option<&str>, default: &str| v.map(str::trim).is_some_and(|s| !s.is_empty() && s != default);
        let opt = |v: &Option<String>| real(v.as_deref(), "");
        match name {
            "ItemCode" => real(Some(&self.item_code), ""),
            "Description" | "ItemDescription" => real(Some(&self.description), ""),
            "ShopOrderNumber" => opt(&self.shop_order_number),
            "ProjectDescription" | "Project" => opt(&self.project_description),
            "PurchaseOrderNumber" => opt(&self.purchase_order_number),
            "ReceiptNumber" => opt(&self.receipt_number),
            "SerialNumber" => opt(&self.serial_number),
            "BatchNumber" => opt(&self.batch_number),
            "TrackingNumber" => opt(&self.serial_number) || opt(&self.batch_number),
            "Quantity" => opt(&self.quantity),
            "SupplierCode" => opt(&self.supplier_code),
            "SupplierDescription" => real(self.supplier_description.as_deref(), SUPPLIER_DEFAULT),
            "Supplier" => opt(&self.supplier_code) || real(self.supplier_description.as_deref(), SUPPLIER_DEFAULT),
            "WarehouseAndLocationForLabel" => real(Some(&self.warehouse_and_location_for_label), NO_WAREHOUSE),
            "PostProcessingDescription" => opt(&self.post_processing_description),
            "FreeTextField_06" => opt(&self.free_text_06),
            "FreeTextField_07" => opt(&self.free_text_07),
            "FreeTextField_08" => opt(&self.free_text_08),
            "FreeTextField_09" => opt(&self.free_text_09),
            _ => false,
        }
    }

    /// What tracks the labelled stock: `S/N {serial}` or `Batch {batch}`, if either.
    pub fn tracking_number(&self) -> Option<String> {
        let real = |v: &Option<String>| v.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
        real(&self.serial_number)
            .map(|s| format!("S/N {s}"))
            .or_else(|| real(&self.batch_number).map(|b| format!("Batch {b}")))
    }

    /// `Pr: {first word of the project}` or `Pr: N/A`.
    pub fn project_label(&self) -> String {
        match self.project_description.as_deref().and_then(|p| p.split_whitespace().next()) {
            Some(word) => format!("Pr: {word}"),
            None => NO_PROJECT.to_string(),
        }
    }
}

/// Label-info rows for types 5 to 7, in the provider's field names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LabelInfoRows {
    /// ItemWarehouses rows: Item, WarehouseCode, DefaultStorageLocationCode.
    #[serde(rename = "ItemWarehouses", default)]
    pub item_warehouses: Vec<Value>,
    /// SupplierItem rows: Item, SupplierCode, SupplierDescription.
    #[serde(rename = "SupplierItem", default)]
    pub supplier_items: Vec<Value>,
    /// ItemExtraField rows: ItemID, Description, Value.
    #[serde(rename = "ItemExtraField", default)]
    pub item_extra_fields: Vec<Value>,
}

/// The item free-text fields types 1–4 print, by their number.
pub const FREE_TEXT_NUMBERS: [u8; 4] = [6, 7, 8, 9];

/// Items' FreeTextField_06..09 as the `ItemID, Number, Value` rows the records expect (live
/// and local Items rows carry them alike).
pub fn free_text_rows(items: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for item in items {
        let Some(id) = item.get("ID").and_then(Value::as_str) else { continue };
        for n in FREE_TEXT_NUMBERS {
            if let Some(value) = item.get(format!("FreeTextField_{n:02}")).filter(|v| !v.is_null()) {
                let mut row = serde_json::Map::new();
                row.insert("ItemID".into(), Value::String(id.to_string()));
                row.insert("Number".into(), Value::from(n));
                row.insert("Value".into(), value.clone());
                out.push(Value::Object(row));
            }
        }
    }
    out
}

/// The main supplier first, so the records' "first supplier row" is the main one.
pub fn main_supplier_first(mut rows: Vec<Value>) -> Vec<Value> {
    rows.sort_by_key(|r| !r.get("MainSupplier").and_then(Value::as_bool).unwrap_or(false));
    rows
}

/// The provider reads label generation needs (spec §7). Rows keep the provider's field names.
pub trait LabelLookups: Send + Sync {
    /// ShopOrders rows for the ids: ID, Item, ItemCode, ItemDescription, PlannedQuantity, Unit,
    /// ShopOrderNumber, ProjectDescription.
    fn shop_orders(&self, ids: &[String]) -> impl Future<Output = anyhow::Result<Vec<Value>>> + Send;
    /// ShopOrderMaterialPlans rows of one shop order: ID, Item, ItemCode, ItemDescription,
    /// PlannedQuantity, Type, Unit.
    fn material_plans(&self, shop_order_id: &str) -> impl Future<Output = anyhow::Result<Vec<Value>>> + Send;
    /// By-product rows of one shop order: Item, ItemCode, ItemDescription (and Quantity, Unit).
    fn by_products(&self, shop_order_id: &str) -> impl Future<Output = anyhow::Result<Vec<Value>>> + Send;
    /// Items rows for item-direct labels: ID, Code, Description.
    fn items(&self, ids: &[String]) -> impl Future<Output = anyhow::Result<Vec<Value>>> + Send;
    /// GoodsReceiptLines rows: ID, Item, ItemCode, ItemDescription, PurchaseOrderNumber,
    /// ProjectDescription, QuantityReceived, ItemUnitCode, LocationCode (the storage location
    /// received into); from the line's own receipt header (GoodsReceiptID): ReceiptNumber,
    /// SupplierCode, SupplierName and WarehouseCode; and the
    /// `SerialNumbers` of serial items (rows with `SerialNumber`, as an array or the provider's
    /// `{"results": […]}`).
    fn goods_receipt_lines(&self, ids: &[String]) -> impl Future<Output = anyhow::Result<Vec<Value>>> + Send;
    /// Extra free-text values (types 1–4): ItemID, Number, Value.
    fn free_text_values(&self, item_ids: &[String]) -> impl Future<Output = anyhow::Result<Vec<Value>>> + Send;
    /// Label info (types 5–7): item warehouses, supplier items and item extra fields.
    fn label_info(&self, item_ids: &[String]) -> impl Future<Output = anyhow::Result<LabelInfoRows>> + Send;
}

/// The result kinds of spec §4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum LabelStatus {
    Success,
    Error,
    Warning,
    Info,
}

/// Records ready for layout, with what the user should know about the ones left out.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelBatch {
    pub status: LabelStatus,
    /// Why lines were left out (and, from the local copy, what it could not give), said in the
    /// caller's language when they are sent.
    pub messages: Vec<Text>,
    pub label_type: LabelType,
    /// One record per item; `print_count` says how many copies.
    pub records: Vec<LabelRecord>,
}

impl LabelBatch {
    /// Every record repeated `print_count` times, in order: what is actually printed.
    pub fn expanded(&self) -> Vec<LabelRecord> {
        self.records.iter().flat_map(|r| std::iter::repeat_n(r.clone(), r.print_count as usize)).collect()
    }

    /// How many labels the batch prints.
    pub fn label_count(&self) -> usize {
        self.records.iter().map(|r| r.print_count as usize).sum()
    }
}

/// Why records could not be built.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{NO_LABELS_MESSAGE}")]
    NoLabels { messages: Vec<Text> },
    #[error("The payload is empty")]
    EmptyPayload,
    #[error("reading label data from Exact Online failed: {0:#}")]
    Lookup(anyhow::Error),
}

impl RecordError {
    /// The spec §4 result kind this error is reported as.
    pub fn status(&self) -> LabelStatus {
        match self {
            RecordError::NoLabels { .. } => LabelStatus::Info,
            RecordError::EmptyPayload => LabelStatus::Warning,
            RecordError::Lookup(_) => LabelStatus::Error,
        }
    }
}

/// A provider field as text: strings as they are, numbers without a trailing `.0`.
pub fn text(row: &Value, key: &str) -> Option<String> {
    match row.get(key)? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", f as i64),
            _ => n.to_string(),
        }),
        _ => None,
    }
}

/// A provider number; Int64 values arrive as strings.
fn number(row: &Value, key: &str) -> Option<f64> {
    match row.get(key)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Quantities become whole label counts, rounding part units up (0.5 m of cable still needs a label).
fn count_from(quantity: Option<f64>) -> u32 {
    match quantity {
        Some(q) if q.is_finite() && q > 0.0 => q.ceil().min(10_000.0) as u32,
        _ => 0,
    }
}

/// A quantity with its unit as printed: `12 stuk`, `2.5 m`; nothing without a quantity.
fn quantity_text(quantity: Option<f64>, unit: Option<String>) -> Option<String> {
    let q = quantity.filter(|q| q.is_finite() && *q > 0.0)?;
    // Whole numbers without '.0'; parts to at most four decimals, as units are kept.
    let amount = (q * 10_000.0).round() / 10_000.0;
    Some(match unit {
        Some(unit) => format!("{amount} {unit}"),
        None => amount.to_string(),
    })
}

/// Builds the label records for a request. Rules (spec §5, §9) are applied in order:
/// exclusion, lookups by label type, defaults, and the print count.
pub async fn build_records<L: LabelLookups>(
    lookups: &L,
    source: LabelSource,
    selections: &[Selection],
    label_type: LabelType,
    skipped: &SkippedWarehouses,
) -> Result<LabelBatch, RecordError> {
    if selections.is_empty() {
        return Err(RecordError::EmptyPayload);
    }
    let counts: HashMap<&str, Option<u32>> = selections.iter().map(|s| (s.id(), s.print_count())).collect();
    let ids: Vec<String> = selections.iter().map(|s| s.id().to_string()).collect();
    let mut messages = Vec::new();
    let mut records = match source {
        LabelSource::ShopOrder => shop_order_records(lookups, &ids, &counts, &mut messages).await?,
        LabelSource::ItemDirect => item_direct_records(lookups, &ids, &counts, &mut messages).await?,
        LabelSource::GoodsReceipt => goods_receipt_records(lookups, &ids, &counts, &mut messages).await?,
    };
    records.retain(|r| r.print_count > 0);
    if records.is_empty() {
        return Err(RecordError::NoLabels { messages });
    }
    let item_ids: Vec<String> = unique(records.iter().map(|r| r.item_id.clone()));
    if label_type.uses_free_text() {
        let rows = lookups.free_text_values(&item_ids).await.map_err(RecordError::Lookup)?;
        apply_free_text(&mut records, &rows);
    }
    if label_type.uses_label_info() {
        let info = lookups.label_info(&item_ids).await.map_err(RecordError::Lookup)?;
        apply_label_info(&mut records, &info, skipped);
    }
    let status = if messages.is_empty() { LabelStatus::Success } else { LabelStatus::Warning };
    Ok(LabelBatch { status, messages, label_type, records })
}

fn unique(values: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = HashSet::new();
    values.filter(|v| seen.insert(v.clone())).collect()
}

/// Shop orders and goods receipts never label 'ZV' items nor rows without an item id.
fn excluded(item_id: Option<&str>, item_code: Option<&str>, messages: &mut Vec<Text>) -> bool {
    match (item_id, item_code) {
        (None, code) => {
            messages.push(Text::LabelNoItemId { code: code.map(str::to_string) });
            true
        }
        (Some(_), Some(code)) if code.contains(EXCLUDED_CODE_PART) => {
            messages.push(Text::LabelExcludedCode { code: code.to_string(), part: EXCLUDED_CODE_PART });
            true
        }
        _ => false,
    }
}

async fn shop_order_records<L: LabelLookups>(
    lookups: &L,
    ids: &[String],
    counts: &HashMap<&str, Option<u32>>,
    messages: &mut Vec<Text>,
) -> Result<Vec<LabelRecord>, RecordError> {
    let orders = lookups.shop_orders(ids).await.map_err(RecordError::Lookup)?;
    let mut out = Vec::new();
    for id in ids {
        let Some(order) = orders.iter().find(|o| text(o, "ID").as_deref() == Some(id.as_str())) else {
            messages.push(Text::LabelShopOrderNotFound { id: id.clone() });
            continue;
        };
        let so_number = text(order, "ShopOrderNumber");
        let project = text(order, "ProjectDescription");
        let base = |row: &Value, code: String, desc_key: &str, count: u32, quantity: Option<String>| LabelRecord {
            item_id: text(row, "Item").unwrap_or_default(),
            item_code: code,
            description: text(row, desc_key).unwrap_or_default(),
            shop_order_number: so_number.clone(),
            project_description: project.clone(),
            quantity,
            print_count: count,
            ..LabelRecord::default()
        };
        // The produced item: PrintCount defaults to the planned quantity.
        let item_id = text(order, "Item");
        let item_code = text(order, "ItemCode");
        if !excluded(item_id.as_deref(), item_code.as_deref(), messages) {
            let count = counts
                .get(id.as_str())
                .copied()
                .flatten()
                .unwrap_or_else(|| count_from(number(order, "PlannedQuantity")));
            let planned = quantity_text(number(order, "PlannedQuantity"), text(order, "Unit"));
            out.push(base(order, item_code.unwrap_or_default(), "ItemDescription", count, planned));
        }
        // By-products: material plan lines of Type 2, completed by the by-products lookup.
        let plans = lookups.material_plans(id).await.map_err(RecordError::Lookup)?;
        let by_products = lookups.by_products(id).await.map_err(RecordError::Lookup)?;
        let mut labelled_items = HashSet::new();
        for plan in plans.iter().filter(|p| number(p, "Type").map(|t| t as i64) == Some(LABEL_PLAN_TYPE)) {
            let item = text(plan, "Item");
            let code = text(plan, "ItemCode");
            if excluded(item.as_deref(), code.as_deref(), messages) {
                continue;
            }
            labelled_items.insert(item.clone().unwrap_or_default());
            out.push(base(
                plan,
                code.unwrap_or_default(),
                "ItemDescription",
                count_from(number(plan, "PlannedQuantity")),
                quantity_text(number(plan, "PlannedQuantity"), text(plan, "Unit")),
            ));
        }
        for bp in &by_products {
            let item = text(bp, "Item");
            if item.as_ref().is_some_and(|i| labelled_items.contains(i)) {
                continue;
            }
            let code = text(bp, "ItemCode");
            if excluded(item.as_deref(), code.as_deref(), messages) {
                continue;
            }
            labelled_items.insert(item.clone().unwrap_or_default());
            let planned = number(bp, "Quantity").or_else(|| number(bp, "PlannedQuantity"));
            let count = count_from(planned).max(1);
            out.push(base(
                bp,
                code.unwrap_or_default(),
                "ItemDescription",
                count,
                quantity_text(planned, text(bp, "Unit")),
            ));
        }
    }
    Ok(out)
}

async fn item_direct_records<L: LabelLookups>(
    lookups: &L,
    ids: &[String],
    counts: &HashMap<&str, Option<u32>>,
    messages: &mut Vec<Text>,
) -> Result<Vec<LabelRecord>, RecordError> {
    let items = lookups.items(ids).await.map_err(RecordError::Lookup)?;
    let mut out = Vec::new();
    for id in ids {
        let Some(item) = items.iter().find(|i| text(i, "ID").as_deref() == Some(id.as_str())) else {
            messages.push(Text::LabelItemNotFound { id: id.clone() });
            continue;
        };
        out.push(LabelRecord {
            item_id: id.clone(),
            item_code: text(item, "Code").or_else(|| text(item, "ItemCode")).unwrap_or_default(),
            description: text(item, "Description").or_else(|| text(item, "ItemDescription")).unwrap_or_default(),
            print_count: counts.get(id.as_str()).copied().flatten().unwrap_or(1),
            ..LabelRecord::default()
        });
    }
    Ok(out)
}

async fn goods_receipt_records<L: LabelLookups>(
    lookups: &L,
    ids: &[String],
    counts: &HashMap<&str, Option<u32>>,
    messages: &mut Vec<Text>,
) -> Result<Vec<LabelRecord>, RecordError> {
    let lines = lookups.goods_receipt_lines(ids).await.map_err(RecordError::Lookup)?;
    let mut out = Vec::new();
    for id in ids {
        let Some(line) = lines.iter().find(|l| text(l, "ID").as_deref() == Some(id.as_str())) else {
            messages.push(Text::LabelGoodsReceiptLineNotFound { id: id.clone() });
            continue;
        };
        let item = text(line, "Item");
        let code = text(line, "ItemCode");
        if excluded(item.as_deref(), code.as_deref(), messages) {
            continue;
        }
        let record = LabelRecord {
            item_id: item.unwrap_or_default(),
            item_code: code.unwrap_or_default(),
            description: text(line, "ItemDescription").or_else(|| text(line, "Description")).unwrap_or_default(),
            project_description: text(line, "ProjectDescription"),
            purchase_order_number: text(line, "PurchaseOrderNumber"),
            receipt_number: text(line, "ReceiptNumber").or_else(|| text(line, "GoodsReceiptNumber")),
            quantity: quantity_text(number(line, "QuantityReceived"), text(line, "ItemUnitCode")),
            // The receipt's own supplier and warehouse (from its header), not the item's main
            // supplier or first warehouse: another order of the item may come from elsewhere.
            supplier_code: text(line, "SupplierCode"),
            supplier_description: text(line, "SupplierName"),
            warehouses_and_locations: text(line, "WarehouseCode")
                .map(|warehouse| WarehouseLocation {
                    warehouse,
                    location: text(line, "LocationCode").unwrap_or_default(),
                })
                .into_iter()
                .collect(),
            print_count: counts.get(id.as_str()).copied().flatten().unwrap_or(1),
            ..LabelRecord::default()
        };
        let serials = serial_numbers(line);
        let batches = batch_numbers(line);
        if serials.is_empty() && batches.is_empty() {
            out.push(record);
            continue;
        }
        // A batch item's line gets a label per batch received, with that batch's quantity.
        out.extend(batches.into_iter().map(|(batch, quantity)| LabelRecord {
            batch_number: Some(batch),
            quantity: quantity_text(quantity, text(line, "ItemUnitCode")),
            ..record.clone()
        }));
        // A serial item's units each get their own label with their number, once: the numbers
        // say how many, whatever count was asked for the line.
        let one = quantity_text(Some(1.0), text(line, "ItemUnitCode"));
        out.extend(serials.into_iter().map(|serial| LabelRecord {
            serial_number: Some(serial),
            quantity: one.clone(),
            print_count: 1,
            ..record.clone()
        }));
    }
    Ok(out)
}

/// The serial numbers of a goods receipt line (its expanded `SerialNumbers`), in counting order.
fn serial_numbers(line: &Value) -> Vec<String> {
    let rows = match line.get("SerialNumbers") {
        Some(Value::Array(rows)) => rows,
        Some(Value::Object(envelope)) => match envelope.get("results") {
            Some(Value::Array(rows)) => rows,
            _ => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    let mut serials: Vec<String> = rows.iter().filter_map(|r| text(r, "SerialNumber")).collect();
    serials.sort_by(|a, b| natural_order(a, b));
    serials
}

/// The batches of a goods receipt line (its expanded `BatchNumbers`) with the quantity received
/// in each, in counting order.
fn batch_numbers(line: &Value) -> Vec<(String, Option<f64>)> {
    let rows = match line.get("BatchNumbers") {
        Some(Value::Array(rows)) => rows,
        Some(Value::Object(envelope)) => match envelope.get("results") {
            Some(Value::Array(rows)) => rows,
            _ => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    let mut batches: Vec<(String, Option<f64>)> =
        rows.iter().filter_map(|r| Some((text(r, "BatchNumber")?, number(r, "Quantity")))).collect();
    batches.sort_by(|a, b| natural_order(&a.0, &b.0));
    batches
}

/// Text with its runs of digits compared by value, as people count: "SN-9" before "SN-10".
fn natural_order(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let digits_end = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (mut x, mut y) = (a, b);
    loop {
        match (x.chars().next(), y.chars().next()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let (dx, dy) = (digits_end(x), digits_end(y));
                let (nx, ny) = (x[..dx].trim_start_matches('0'), y[..dy].trim_start_matches('0'));
                let by_value = nx.len().cmp(&ny.len()).then_with(|| nx.cmp(ny));
                if by_value != Ordering::Equal {
                    return by_value;
                }
                (x, y) = (&x[dx..], &y[dy..]);
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(&d);
                }
                (x, y) = (&x[c.len_utf8()..], &y[d.len_utf8()..]);
            }
        }
    }
}

/// Types 1–4: free-text value number N fills FreeTextField_0N (6 to 9).
fn apply_free_text(records: &mut [LabelRecord], rows: &[Value]) {
    for record in records {
        for row in rows.iter().filter(|r| text(r, "ItemID").as_deref() == Some(record.item_id.as_str())) {
            let value = text(row, "Value");
            match number(row, "Number").map(|n| n as i64) {
                Some(6) => record.free_text_06 = value,
                Some(7) => record.free_text_07 = value,
                Some(8) => record.free_text_08 = value,
                Some(9) => record.free_text_09 = value,
                _ => {}
            }
        }
    }
}

/// Types 5–7: warehouses and locations, supplier and the post-processing description.
fn apply_label_info(records: &mut [LabelRecord], info: &LabelInfoRows, skipped: &SkippedWarehouses) {
    for record in records {
        let mine = |rows: &'_ [Value], key: &str| -> Vec<Value> {
            rows.iter().filter(|r| text(r, key).as_deref() == Some(record.item_id.as_str())).cloned().collect()
        };
        let item_warehouses = mine(&info.item_warehouses, "Item");
        let default_location = |warehouse: &str| {
            item_warehouses
                .iter()
                .find(|row| text(row, "WarehouseCode").as_deref() == Some(warehouse))
                .and_then(|row| text(row, "DefaultStorageLocationCode"))
        };
        let pairs: Vec<WarehouseLocation> = if record.warehouses_and_locations.is_empty() {
            item_warehouses
                .iter()
                .filter_map(|row| {
                    let warehouse = text(row, "WarehouseCode")?;
                    let location = text(row, "DefaultStorageLocationCode")?;
                    Some(WarehouseLocation { warehouse, location })
                })
                .collect()
        } else {
            // A receipt's warehouse is where the goods went: its line's location, else the item's
            // default location in that warehouse (never one of another warehouse).
            record
                .warehouses_and_locations
                .iter()
                .map(|wl| WarehouseLocation {
                    warehouse: wl.warehouse.clone(),
                    location: match wl.location.trim() {
                        "" => default_location(&wl.warehouse).unwrap_or_default(),
                        given => given.to_string(),
                    },
                })
                .collect()
        };
        // The plant's skipped warehouses hold no labelled stock; a pair needs a location.
        record.warehouses_and_locations =
            pairs.into_iter().filter(|wl| !skipped.skips(&wl.warehouse) && !wl.location.trim().is_empty()).collect();
        record.warehouse_and_location_for_label = match record.warehouses_and_locations.first() {
            Some(wl) => format!("W-L: {}-{}", wl.warehouse, wl.location),
            None => NO_WAREHOUSE.to_string(),
        };
        // A record that has its supplier (a goods receipt's) keeps it; others get the item's main one.
        if record.supplier_code.is_none() && record.supplier_description.is_none() {
            let supplier = mine(&info.supplier_items, "Item").into_iter().next();
            record.supplier_code = supplier.as_ref().and_then(|s| text(s, "SupplierCode"));
            record.supplier_description = supplier.as_ref().and_then(|s| text(s, "SupplierDescription"));
        }
        record.supplier_description.get_or_insert_with(|| SUPPLIER_DEFAULT.to_string());
        record.post_processing_description = mine(&info.item_extra_fields, "ItemID")
            .iter()
            .find(|f| text(f, "Description").as_deref() == Some(POST_PROCESSING_FIELD))
            .and_then(|f| text(f, "Value"));
    }
}

#[cfg(test)]
mod tests;
