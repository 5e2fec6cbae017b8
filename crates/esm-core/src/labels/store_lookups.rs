//! [`LabelLookups`] over an organization's local copy (the synced store), so shop order and item
//! labels keep coming while Exact Online cannot be reached. Synced rows keep the provider's field
//! names, so the records read them exactly as they read live ones. What the copy does not hold
//! comes back empty and is named in [`StoreLookups::notes`] (by-product receipts, the item extra
//! field 'Bewerkingen'); goods receipts are not synced at all, so asking for them is [`NeedsExact`].

use super::records::{
    LabelBatch, LabelInfoRows, LabelLookups, LabelSource, LabelStatus, RecordError, Selection, SkippedWarehouses,
    build_records, free_text_rows, main_supplier_first,
};
use super::types::LabelType;
use crate::error::Text;
use crate::exact::catalogue::{self, Name};
use crate::exact::odata;
use crate::store::query::MAX_LIMIT;
use crate::store::{OrgStore, Query, StoreResult};
use esm_base::texts::LocalCopyWhy;
use parking_lot::Mutex;
use serde_json::Value;
use std::collections::BTreeSet;
use std::sync::Arc;

const SHOP_ORDERS: &str = "shopOrders";
const MATERIAL_PLANS: &str = "shopOrderMaterialPlans";
const ITEMS: &str = "items";
const ITEM_WAREHOUSES: &str = "itemWarehouses";
const SUPPLIER_ITEMS: &str = "supplierItems";
/// Ids per `in.(…)` filter, so a query stays short whatever the batch.
const IDS_PER_QUERY: usize = 100;

/// A label source that needs live data the local copy does not have (goods receipts, which are
/// not synced); its words are [`Text::GoodsReceiptLabelsNeedExact`].
#[derive(Debug, thiserror::Error)]
#[error("{}", Text::GoodsReceiptLabelsNeedExact)]
pub struct NeedsExact;

/// Why labels are made from the local copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalCopyReason {
    /// Exact Online does not answer (network, server errors, no answer in time).
    Unreachable,
    /// No provider token of the organization can be used.
    NoToken,
}

impl LocalCopyReason {
    fn because(self) -> LocalCopyWhy {
        match self {
            LocalCopyReason::Unreachable => LocalCopyWhy::Unreachable,
            LocalCopyReason::NoToken => LocalCopyWhy::NoSignIn,
        }
    }
}

/// Label reads from one organization's store, remembering what the copy could not give.
pub struct StoreLookups {
    store: Arc<OrgStore>,
    notes: Mutex<Vec<Text>>,
}

impl StoreLookups {
    pub fn new(store: Arc<OrgStore>) -> Self {
        StoreLookups { store, notes: Mutex::new(Vec::new()) }
    }

    /// What the reads so far could not take from the local copy, each said once.
    pub fn notes(&self) -> Vec<Text> {
        self.notes.lock().clone()
    }

    fn note(&self, message: Text) {
        let mut notes = self.notes.lock();
        if !notes.contains(&message) {
            notes.push(message);
        }
    }

    /// The first message of a batch from the copy: that it is the copy, of when, and why.
    pub fn headline(&self, reason: LocalCopyReason) -> StoreResult<Text> {
        let why = reason.because();
        Ok(match self.store.sync_state()?.last_sync {
            Some(when) => Text::LocalCopyAsOf { when: readable_time(&when), why },
            None => Text::LocalCopyNeverSynced { why },
        })
    }

    /// Every row of `table` whose `field` is one of `ids`, read off the async threads (like the
    /// data API's queries); a table never synced is noted, as it explains what is not found.
    async fn rows_where_in(
        &self,
        table: &'static str,
        field: &'static str,
        ids: &[String],
    ) -> anyhow::Result<Vec<Value>> {
        let store = self.store.clone();
        let ids = ids.to_vec();
        let (rows, never_synced) =
            tokio::task::spawn_blocking(move || read_where_in(&store, table, field, &ids)).await??;
        if never_synced {
            let name = catalogue::by_table(table).map_or(Name { en: table, nl: table }, |e| e.names());
            self.note(Text::LocalCopyTableNeverSynced { table: name });
        }
        Ok(rows)
    }
}

/// The rows of `table` whose `field` is one of `ids` (GUIDs; nothing else matches a key), every
/// page, and whether the table was never synced (no timestamp, no rows).
fn read_where_in(store: &OrgStore, table: &str, field: &str, ids: &[String]) -> StoreResult<(Vec<Value>, bool)> {
    let never_synced = store.sync_timestamp(table)?.is_none() && store.row_count(table)? == 0;
    let ids: Vec<&str> =
        ids.iter().map(String::as_str).filter(|id| odata::is_guid(id)).collect::<BTreeSet<_>>().into_iter().collect();
    let limit = MAX_LIMIT.to_string();
    let mut rows = Vec::new();
    for chunk in ids.chunks(IDS_PER_QUERY) {
        let list = format!("in.({})", chunk.join(","));
        let mut offset = 0;
        loop {
            let at = offset.to_string();
            let query = Query::from_pairs([(field, list.as_str()), ("offset", &at), ("limit", &limit)])?;
            let page = store.query(table, &query)?;
            let got = page.len();
            rows.extend(page.to_values()?);
            if got < MAX_LIMIT {
                break;
            }
            offset += got;
        }
    }
    Ok((rows, never_synced))
}

impl LabelLookups for StoreLookups {
    async fn shop_orders(&self, ids: &[String]) -> anyhow::Result<Vec<Value>> {
        self.rows_where_in(SHOP_ORDERS, "ID", ids).await
    }

    async fn material_plans(&self, shop_order_id: &str) -> anyhow::Result<Vec<Value>> {
        self.rows_where_in(MATERIAL_PLANS, "ShopOrder", &[shop_order_id.to_string()]).await
    }

    async fn by_products(&self, _shop_order_id: &str) -> anyhow::Result<Vec<Value>> {
        self.note(Text::LocalCopyNoByProductReceipts);
        Ok(Vec::new())
    }

    async fn items(&self, ids: &[String]) -> anyhow::Result<Vec<Value>> {
        self.rows_where_in(ITEMS, "ID", ids).await
    }

    async fn goods_receipt_lines(&self, _ids: &[String]) -> anyhow::Result<Vec<Value>> {
        Err(NeedsExact.into())
    }

    async fn free_text_values(&self, item_ids: &[String]) -> anyhow::Result<Vec<Value>> {
        Ok(free_text_rows(&self.rows_where_in(ITEMS, "ID", item_ids).await?))
    }

    async fn label_info(&self, item_ids: &[String]) -> anyhow::Result<LabelInfoRows> {
        let item_warehouses = self.rows_where_in(ITEM_WAREHOUSES, "Item", item_ids).await?;
        let supplier_items = main_supplier_first(self.rows_where_in(SUPPLIER_ITEMS, "Item", item_ids).await?);
        self.note(Text::LocalCopyNoPostProcessing);
        Ok(LabelInfoRows { item_warehouses, supplier_items, item_extra_fields: Vec::new() })
    }
}

/// Builds the records from the local copy. The batch is a WARNING whose messages are the
/// headline (the copy, its time and why), what the copy could not give, then the usual reasons;
/// nothing to print keeps the spec's error with the same explanations.
pub async fn build_from_local_copy(
    store: Arc<OrgStore>,
    reason: LocalCopyReason,
    source: LabelSource,
    selections: &[Selection],
    label_type: LabelType,
    skipped: &SkippedWarehouses,
) -> Result<LabelBatch, RecordError> {
    let lookups = StoreLookups::new(store);
    let headline = lookups.headline(reason).map_err(|e| RecordError::Lookup(e.into()))?;
    let built = build_records(&lookups, source, selections, label_type, skipped).await;
    let mut messages = vec![headline];
    messages.extend(lookups.notes());
    match built {
        Ok(mut batch) => {
            messages.append(&mut batch.messages);
            batch.messages = messages;
            batch.status = LabelStatus::Warning;
            Ok(batch)
        }
        Err(RecordError::NoLabels { messages: mut why }) => {
            messages.append(&mut why);
            Err(RecordError::NoLabels { messages })
        }
        Err(other) => Err(other),
    }
}

/// A stored sync time (`2026-11-25T15:03:07.123+01:00`, or older stores' local time without an
/// offset) as people read it: `2026-11-25 15:03 +01:00`, `2026-11-25 14:03 UTC`.
pub fn readable_time(iso: &str) -> String {
    if let Ok(time) = chrono::DateTime::parse_from_rfc3339(iso) {
        let zone = match time.offset().local_minus_utc() {
            0 => "UTC".to_string(),
            _ => time.format("%:z").to_string(),
        };
        return format!("{} {zone}", time.format("%Y-%m-%d %H:%M"));
    }
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M"]
        .iter()
        .find_map(|f| chrono::NaiveDateTime::parse_from_str(iso, f).ok())
        .map_or_else(|| iso.to_string(), |t| t.format("%Y-%m-%d %H:%M").to_string())
}

#[cfg(test)]
mod tests;
