//! The rows of the local copy the Materials projection is made of, read in one go: the open
//! shop orders, their open material lines (each with what was issued to it, summed from the
//! synced material issues), the open sales order lines with their orders' warehouses, and the
//! items and stock positions of everything in demand.

use crate::exact::odata;
use crate::store::{OrgStore, StoreResult};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

/// Shop order statuses still to be made: 10 open, 20 in process.
const OPEN_SHOP_ORDERS: &str = "in.(10,20)";
/// Material line statuses still to be issued: 10 open, 12 (the spec's open), 20 on order, 25
/// partly issued.
const OPEN_MATERIAL_PLANS: &str = "in.(10,12,20,25)";
/// Sales order line statuses still to be delivered: 12 open, 20 partly delivered.
const OPEN_SALES_LINES: &str = "in.(12,20)";
/// Ids per `in.(…)` list of one query.
const IDS_PER_QUERY: usize = 100;

const SHOP_ORDER_FIELDS: &str =
    "ID,ShopOrderNumber,Status,Item,PlannedQuantity,ProducedQuantity,PlannedDate,Warehouse,Project";
const PLAN_FIELDS: &str = "ID,ShopOrder,Item,PlannedQuantity,PlannedDate,Status,Type";
const SALES_LINE_FIELDS: &str = "ID,OrderID,OrderNumber,Item,Quantity,QuantityDelivered,DeliveryDate,Status,Project";
const ITEM_FIELDS: &str = "ID,Code,Description,ItemGroup,Unit,UnitDescription";
const POSITION_FIELDS: &str = "ItemId,Warehouse,WarehouseCode,FreeStock,CurrentStock";

/// The rows of the local copy behind the Materials screen, each with the columns it uses.
#[derive(Debug)]
pub struct MaterialRows {
    /// Open and in-process shop orders (`shopOrders`).
    pub shop_orders: Vec<Value>,
    /// Their material plan lines still to be issued (`shopOrderMaterialPlans`), each with
    /// `IssuedQuantity` (issued in Exact, synced).
    pub plans: Vec<Value>,
    /// Sales order lines still to be delivered (`salesOrderLines`).
    pub sales_lines: Vec<Value>,
    /// The warehouse of each sales order of those lines, by order id (lower case).
    pub sales_warehouses: HashMap<String, String>,
    /// The items the plans and sales lines ask for (`items`).
    pub items: Vec<Value>,
    /// Those items' stock positions (`stockPositions`).
    pub stock_positions: Vec<Value>,
}

fn lower(row: &Value, key: &str) -> Option<String> {
    row.get(key).and_then(Value::as_str).map(str::to_ascii_lowercase).filter(|id| odata::is_guid(id))
}

/// The rows of `table` whose `column` is one of `ids`, a hundred ids a query.
fn by_ids(
    store: &OrgStore,
    table: &str,
    column: &str,
    ids: &BTreeSet<String>,
    select: &str,
) -> StoreResult<Vec<Value>> {
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    for chunk in ids.chunks(IDS_PER_QUERY) {
        let in_list = format!("in.({})", chunk.join(","));
        out.extend(store.all_rows(table, &[(column, in_list.as_str()), ("select", select)])?);
    }
    Ok(out)
}

/// Everything the Materials projection is made of.
pub fn material_rows(store: &OrgStore) -> StoreResult<MaterialRows> {
    let shop_orders = store.all_rows("shopOrders", &[("Status", OPEN_SHOP_ORDERS), ("select", SHOP_ORDER_FIELDS)])?;
    let mut plans =
        store.all_rows("shopOrderMaterialPlans", &[("Status", OPEN_MATERIAL_PLANS), ("select", PLAN_FIELDS)])?;
    // a line of a finished or unknown order needs nothing any more: leave it out here already
    let open_orders: BTreeSet<String> = shop_orders.iter().filter_map(|o| lower(o, "ID")).collect();
    plans.retain(|p| lower(p, "ShopOrder").is_some_and(|o| open_orders.contains(&o)));
    crate::issued::attach(store, &mut plans)?;
    let sales_lines =
        store.all_rows("salesOrderLines", &[("Status", OPEN_SALES_LINES), ("select", SALES_LINE_FIELDS)])?;

    let orders: BTreeSet<String> = sales_lines.iter().filter_map(|l| lower(l, "OrderID")).collect();
    let sales_warehouses = by_ids(store, "salesOrderHeaders", "OrderID", &orders, "OrderID,WarehouseID")?
        .iter()
        .filter_map(|h| Some((lower(h, "OrderID")?, lower(h, "WarehouseID").unwrap_or_default())))
        .collect();

    let demanded: BTreeSet<String> = plans.iter().chain(&sales_lines).filter_map(|r| lower(r, "Item")).collect();
    let items = by_ids(store, "items", "ID", &demanded, ITEM_FIELDS)?;
    let stock_positions = by_ids(store, "stockPositions", "ItemId", &demanded, POSITION_FIELDS)?;
    Ok(MaterialRows { shop_orders, plans, sales_lines, sales_warehouses, items, stock_positions })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::store::{Commit, Stores};
    use serde_json::json;

    pub(crate) fn guid(n: u16) -> String {
        format!("0123abcd-ef01-4a2b-8c3d-{n:012x}")
    }

    pub(crate) fn store() -> (tempfile::TempDir, std::sync::Arc<OrgStore>) {
        let dir = tempfile::tempdir().unwrap();
        let store = Stores::new(dir.path(), crate::exact::catalogue::table_specs()).get(1).unwrap();
        let put = |table: &str, rows: Vec<Value>| {
            store.apply_batch(table, rows, Some(100), Commit::Durable).unwrap();
        };
        let (open, running, done, bolt, frame, paint, order) =
            (guid(1), guid(2), guid(3), guid(10), guid(11), guid(12), guid(20));
        put(
            "shopOrders",
            vec![
                json!({"ID": open, "ShopOrderNumber": 1, "Status": 10, "Item": frame, "PlannedQuantity": 2, "Timestamp": "1"}),
                json!({"ID": running, "ShopOrderNumber": 2, "Status": 20, "Item": frame, "PlannedQuantity": 3, "Timestamp": "1"}),
                json!({"ID": done, "ShopOrderNumber": 3, "Status": 40, "Item": frame, "PlannedQuantity": 1, "Timestamp": "1"}),
            ],
        );
        let plan = |id: u16, order: &str, item: &str, status: i64| json!({"ID": guid(id), "ShopOrder": order, "Item": item, "Type": 1, "PlannedQuantity": 4, "Status": status, "LineNumber": id - 29, "Timestamp": "1"});
        put(
            "shopOrderMaterialPlans",
            vec![
                plan(30, &open, &bolt, 10),
                plan(31, &running, &bolt, 25),
                plan(32, &done, &paint, 10),
                plan(33, &running, &paint, 30),
            ],
        );
        // Exact names the plan in capitals; a return counts against the issues
        let issue = |n: u16, plan: u16, quantity: f64| json!({"StockTransactionId": guid(100 + n), "ShopOrderMaterialPlan": guid(plan).to_uppercase(), "Quantity": quantity, "Timestamp": "1"});
        put("materialIssues", vec![issue(1, 31, 3.0), issue(2, 31, -1.0), issue(3, 32, 4.0)]);
        put(
            "salesOrderLines",
            vec![
                json!({"ID": guid(40), "OrderID": order, "Item": frame, "Quantity": 2, "Status": 12, "Timestamp": "1"}),
            ],
        );
        put(
            "salesOrderHeaders",
            vec![json!({"ID": order, "OrderID": order.to_uppercase(), "WarehouseID": guid(50), "Timestamp": "1"})],
        );
        put(
            "items",
            [&bolt, &frame, &paint].iter().map(|id| json!({"ID": id, "Code": id[..4], "Timestamp": "1"})).collect(),
        );
        put(
            "stockPositions",
            vec![
                json!({"ID": format!("{bolt}/w"), "ItemId": bolt, "FreeStock": 5, "Timestamp": "1"}),
                json!({"ID": format!("{paint}/w"), "ItemId": paint, "FreeStock": 1, "Timestamp": "1"}),
            ],
        );
        (dir, store)
    }

    fn ids(rows: &[Value], key: &str) -> BTreeSet<String> {
        rows.iter().filter_map(|r| lower(r, key)).collect()
    }

    #[test]
    fn the_open_demand_with_what_was_issued_and_what_is_on_its_way() {
        let (_dir, store) = store();
        let rows = material_rows(&store).unwrap();
        assert_eq!(ids(&rows.shop_orders, "ID"), BTreeSet::from([guid(1), guid(2)]));
        // the finished order's line and the finished line are left out
        let plans: Vec<(String, f64)> =
            rows.plans.iter().map(|p| (lower(p, "ID").unwrap(), p["IssuedQuantity"].as_f64().unwrap())).collect();
        assert_eq!(plans.len(), 2, "{plans:?}");
        assert!(plans.contains(&(guid(30), 0.0)));
        assert!(plans.contains(&(guid(31), 2.0)));
        assert_eq!(rows.sales_warehouses.get(&guid(20)), Some(&guid(50)));
        // paint is only on lines of finished orders: not in demand
        assert_eq!(ids(&rows.items, "ID"), BTreeSet::from([guid(10), guid(11)]));
        assert_eq!(ids(&rows.stock_positions, "ItemId"), BTreeSet::from([guid(10)]));
    }
}
