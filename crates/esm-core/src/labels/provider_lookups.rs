//! [`LabelLookups`] over the provider: the label generation reads of spec §7, live from Exact
//! Online for one division with the organization's token. Lists of ids are sent as
//! `Field eq guid'…' or …` filters, chunked so each URL stays within the spec's 5400 characters.

use super::records::{LabelInfoRows, LabelLookups, POST_PROCESSING_FIELD, free_text_rows, main_supplier_first};
use crate::exact::odata::{self, URL_BUDGET};
use crate::exact::tokens::UserToken as OrgToken;
use crate::exact::{ExactClient, ExactError};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::time::Duration;

const SHOP_ORDERS: &str = "manufacturing/ShopOrders";
const SHOP_ORDER_SELECT: &str = "ID,Item,ItemCode,ItemDescription,PlannedQuantity,ProducedQuantity,PlannedDate,\
PlannedStartDate,IsInPlanning,ShopOrderNumber,Status,Unit,Warehouse,ProjectDescription";
const MATERIAL_PLANS: &str = "manufacturing/ShopOrderMaterialPlans";
const MATERIAL_PLAN_SELECT: &str = "ID,Backflush,Description,Item,ItemCode,ItemDescription,LineNumber,\
PlannedDate,PlannedQuantity,ShopOrder,Status,Type,Unit";
/// The by-products lookup (spec §3 "By-product receipts: Item, ItemCode, ItemDescription").
const BY_PRODUCTS: &str = "manufacturing/ByProductReceipts";
const BY_PRODUCT_SELECT: &str = "Item,ItemCode,ItemDescription,Quantity,ShopOrder,Unit";
const ITEMS: &str = "logistics/Items";
const GOODS_RECEIPT_LINES: &str = "purchaseorder/GoodsReceiptLines";
const GOODS_RECEIPT_LINE_SELECT: &str = "ID,GoodsReceiptID,Item,ItemCode,ItemDescription,Description,ProjectDescription,PurchaseOrderNumber,\
QuantityReceived,ItemUnitCode,LocationCode,SerialNumbers,BatchNumbers";
/// A tracked item's receipt line holds the numbers received (serials, or batches with their
/// quantities): read inline.
const GOODS_RECEIPT_LINE_EXPAND: &str = "SerialNumbers,BatchNumbers";
const GOODS_RECEIPTS: &str = "purchaseorder/GoodsReceipts";
/// What a receipt line takes from its own header (see [`with_receipt_headers`]).
const HEADER_FIELDS: [&str; 4] = ["ReceiptNumber", "SupplierCode", "SupplierName", "WarehouseCode"];
const GOODS_RECEIPT_SELECT: &str = "ID,ReceiptNumber,SupplierCode,SupplierName,WarehouseCode";
const ITEM_WAREHOUSES: &str = "inventory/ItemWarehouses";
const SUPPLIER_ITEMS: &str = "logistics/SupplierItem";
const ITEM_EXTRA_FIELDS: &str = "read/logistics/ItemExtraField";

/// Label reads for one division; each call takes the token as it goes out (renewed when due).
pub struct ProviderLookups {
    client: ExactClient,
    division: i64,
    token: OrgToken,
    /// The longest one read may take, retries included; none waits as long as the client does.
    deadline: Option<Duration>,
}

impl ProviderLookups {
    pub fn new(client: ExactClient, division: i64, token: OrgToken) -> Self {
        ProviderLookups { client, division, token, deadline: None }
    }

    /// Gives up each read (token refresh, pages and retries) after `limit` with a network error,
    /// so a caller with another source (the local copy) is not held by the client's long waits.
    /// Per read rather than per batch: a healthy provider may need many reads for a big batch.
    pub fn with_deadline(mut self, limit: Duration) -> Self {
        self.deadline = Some(limit);
        self
    }

    /// Every row of `path` whose `field` is one of `ids` (GUIDs; anything else is never sent),
    /// within the deadline if one is set (plus any wait for the minute budget).
    async fn rows_by_ids(
        &self,
        path: &str,
        select: Option<&str>,
        field: &str,
        ids: &[String],
    ) -> Result<Vec<Value>, ExactError> {
        self.expanded_rows_by_ids(path, select, None, field, ids).await
    }

    /// [`Self::rows_by_ids`] with navigation collections read inline (`$expand`, also named in
    /// `select`).
    async fn expanded_rows_by_ids(
        &self,
        path: &str,
        select: Option<&str>,
        expand: Option<&str>,
        field: &str,
        ids: &[String],
    ) -> Result<Vec<Value>, ExactError> {
        let read = self.read_rows_by_ids(path, select, expand, field, ids);
        let Some(limit) = self.deadline else { return read.await };
        // A read held back by the division's spent minute budget waits for it: Exact is busy,
        // not away.
        let limit = limit + self.client.limiter(self.division).pending_wait();
        tokio::time::timeout(limit, read).await.unwrap_or_else(|_| {
            Err(ExactError::Network(format!("no answer from Exact Online within {} ms", limit.as_millis())))
        })
    }

    async fn read_rows_by_ids(
        &self,
        path: &str,
        select: Option<&str>,
        expand: Option<&str>,
        field: &str,
        ids: &[String],
    ) -> Result<Vec<Value>, ExactError> {
        let ids: Vec<String> =
            ids.iter().filter(|id| odata::is_guid(id)).cloned().collect::<BTreeSet<_>>().into_iter().collect();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut query = format!("{path}?");
        if let Some(s) = select {
            query.push_str(&format!("$select={}&", urlencoding::encode(s)));
        }
        if let Some(e) = expand {
            query.push_str(&format!("$expand={}&", urlencoding::encode(e)));
        }
        query.push_str("$filter=");
        let base = self.client.api_url(self.division, &query);
        let mut rows = Vec::new();
        for chunk in odata::guid_filter_chunks(field, &ids, base.len(), URL_BUDGET) {
            let url = format!("{base}{}", urlencoding::encode(&chunk));
            rows.extend(self.client.get_all(self.division, &self.token, &url).await?.into_iter().map(Value::Object));
        }
        Ok(rows)
    }

    async fn rows_of_one(&self, path: &str, select: &str, field: &str, id: &str) -> Result<Vec<Value>, ExactError> {
        self.rows_by_ids(path, Some(select), field, &[id.to_string()]).await
    }
}

/// Puts on each line what its own GoodsReceipts header says (by the line's GoodsReceiptID): the
/// receipt number, the supplier and the warehouse received into.
fn with_receipt_headers(mut lines: Vec<Value>, headers: &[Value]) -> Vec<Value> {
    let by_id: HashMap<String, &Value> =
        headers.iter().filter_map(|h| Some((h.get("ID")?.as_str()?.to_ascii_lowercase(), h))).collect();
    for line in &mut lines {
        let header = line.get("GoodsReceiptID").and_then(Value::as_str).map(str::to_ascii_lowercase);
        let (Some(header), Some(obj)) = (header.and_then(|h| by_id.get(&h)), line.as_object_mut()) else { continue };
        for field in HEADER_FIELDS {
            if let Some(value) = header.get(field).filter(|v| !v.is_null()) {
                obj.insert(field.into(), value.clone());
            }
        }
    }
    lines
}

impl LabelLookups for ProviderLookups {
    async fn shop_orders(&self, ids: &[String]) -> anyhow::Result<Vec<Value>> {
        Ok(self.rows_by_ids(SHOP_ORDERS, Some(SHOP_ORDER_SELECT), "ID", ids).await?)
    }

    async fn material_plans(&self, shop_order_id: &str) -> anyhow::Result<Vec<Value>> {
        Ok(self.rows_of_one(MATERIAL_PLANS, MATERIAL_PLAN_SELECT, "ShopOrder", shop_order_id).await?)
    }

    async fn by_products(&self, shop_order_id: &str) -> anyhow::Result<Vec<Value>> {
        Ok(self.rows_of_one(BY_PRODUCTS, BY_PRODUCT_SELECT, "ShopOrder", shop_order_id).await?)
    }

    async fn items(&self, ids: &[String]) -> anyhow::Result<Vec<Value>> {
        Ok(self.rows_by_ids(ITEMS, Some("ID,Code,Description"), "ID", ids).await?)
    }

    async fn goods_receipt_lines(&self, ids: &[String]) -> anyhow::Result<Vec<Value>> {
        let lines = self
            .expanded_rows_by_ids(
                GOODS_RECEIPT_LINES,
                Some(GOODS_RECEIPT_LINE_SELECT),
                Some(GOODS_RECEIPT_LINE_EXPAND),
                "ID",
                ids,
            )
            .await?;
        let receipt_ids: Vec<String> =
            lines.iter().filter_map(|l| l.get("GoodsReceiptID")?.as_str().map(str::to_string)).collect();
        let headers = self.rows_by_ids(GOODS_RECEIPTS, Some(GOODS_RECEIPT_SELECT), "ID", &receipt_ids).await?;
        Ok(with_receipt_headers(lines, &headers))
    }

    async fn free_text_values(&self, item_ids: &[String]) -> anyhow::Result<Vec<Value>> {
        let select = "ID,FreeTextField_06,FreeTextField_07,FreeTextField_08,FreeTextField_09";
        let items = self.rows_by_ids(ITEMS, Some(select), "ID", item_ids).await?;
        Ok(free_text_rows(&items))
    }

    async fn label_info(&self, item_ids: &[String]) -> anyhow::Result<LabelInfoRows> {
        let (item_warehouses, supplier_items, extra) = tokio::try_join!(
            self.rows_by_ids(ITEM_WAREHOUSES, Some("Item,WarehouseCode,DefaultStorageLocationCode"), "Item", item_ids),
            self.rows_by_ids(
                SUPPLIER_ITEMS,
                Some("Item,SupplierCode,SupplierDescription,MainSupplier"),
                "Item",
                item_ids
            ),
            // A function endpoint: it takes no $select.
            self.rows_by_ids(ITEM_EXTRA_FIELDS, None, "ItemID", item_ids),
        )?;
        let item_extra_fields = extra
            .into_iter()
            .filter(|f| f.get("Description").and_then(Value::as_str) == Some(POST_PROCESSING_FIELD))
            .collect();
        Ok(LabelInfoRows { item_warehouses, supplier_items: main_supplier_first(supplier_items), item_extra_fields })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn receipt_headers_join_by_the_lines_own_header_id_in_any_case() {
        let lines = vec![
            json!({"ID": "l1", "GoodsReceiptID": "ABC"}),
            json!({"ID": "l2", "GoodsReceiptID": "def"}),
            json!({"ID": "l3"}),
        ];
        let headers = [
            json!({"ID": "def", "ReceiptNumber": 27, "SupplierCode": "S2", "SupplierName": "De Jong", "WarehouseCode": "2"}),
            json!({"ID": "abc", "ReceiptNumber": 28, "SupplierCode": "S1", "SupplierName": "Dutch Elektro", "WarehouseCode": "1"}),
        ];
        let joined = with_receipt_headers(lines, &headers);
        let header_of = |l: &Value| HEADER_FIELDS.map(|f| l[f].clone());
        assert_eq!(header_of(&joined[0]), [json!(28), json!("S1"), json!("Dutch Elektro"), json!("1")]);
        assert_eq!(header_of(&joined[1]), [json!(27), json!("S2"), json!("De Jong"), json!("2")]);
        assert!(HEADER_FIELDS.iter().all(|f| joined[2].get(f).is_none()), "a line without a header gets nothing");
    }
}
