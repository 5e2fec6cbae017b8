//! The endpoint catalogue (spec §3, §9): every provider endpoint the product reads, in one place —
//! display name, provider path, sync path, local table, key, deletion entity type code, and the
//! fields screens filter by (indexed in the store).

pub use esm_base::texts::Name;

/// How an endpoint is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Read incrementally by `Timestamp gt n` from `sync/…` and kept in the store.
    Sync,
    /// The deletion log `sync/Deleted`, applied to the other tables.
    Deleted,
    /// Fetched live from the regular endpoint and cached in the store.
    Live,
}

#[derive(Debug, Clone, Copy)]
pub struct Endpoint {
    /// The name users see ("Refreshing Shop Orders").
    pub name: &'static str,
    /// The regular path after `/api/v1/{division}/`.
    pub path: &'static str,
    /// The sync path after `/api/v1/{division}/sync/` (sync kinds only).
    pub sync_path: Option<&'static str>,
    /// The local table (`/api/v1/db/{table}`).
    pub table: &'static str,
    /// The row key in the store.
    pub key: &'static str,
    /// `sync/Deleted` EntityType of this table (spec §9); `None` when deletions are not logged.
    pub entity_type: Option<i64>,
    /// Fields screens filter by; the store keeps secondary indexes on them.
    pub indexed: &'static [&'static str],
    /// Navigation collections read inline with each row (`$expand`), kept in the row as arrays.
    pub expand: &'static [&'static str],
    /// The field naming the record a row belongs to, for streams that carry a record's rows
    /// together (a purchase order and its lines): Exact logs the record's deletion once, under
    /// its id, and restamps all its rows on any change, so a row that did not come with the
    /// rest is gone (see `sync::groups`).
    pub group_by: Option<&'static str>,
    pub kind: Kind,
}

impl Endpoint {
    pub fn is_sync(&self) -> bool {
        matches!(self.kind, Kind::Sync | Kind::Deleted)
    }

    /// The name users see, in both languages (Dutch from [`DUTCH_NAMES`]; the English one where
    /// a table has none, which the tests forbid).
    pub fn names(&self) -> Name {
        let nl = DUTCH_NAMES.iter().find(|(table, _)| *table == self.table).map_or(self.name, |(_, nl)| nl);
        Name { en: self.name, nl }
    }
}

/// The tables' names in Dutch, as Exact Online's Dutch screens call them.
const DUTCH_NAMES: &[(&str, &str)] = &[
    ("accounts", "Relaties"),
    ("salesOrderHeaders", "Verkooporders"),
    ("salesOrderLines", "Verkooporderregels"),
    ("storageLocationStockPositions", "Voorraad per locatie"),
    ("shopOrders", "Productieorders"),
    ("items", "Artikelen"),
    ("itemWarehouses", "Artikelmagazijnen"),
    ("projects", "Projecten"),
    ("shopOrderMaterialPlans", "Materiaalplannen"),
    ("supplierItems", "Leveranciersartikelen"),
    ("stockPositions", "Voorraadposities"),
    ("shopOrderRoutingStepPlans", "Bewerkingsplannen"),
    ("serialBatchNumbers", "Serie- en batchnummers"),
    ("stockSerialBatchNumbers", "Voorraad serie- en batchnummers"),
    ("materialIssues", "Materiaaluitgiftes"),
    ("purchaseOrders", "Inkooporders"),
    ("deletedEntries", "Verwijderde gegevens"),
    ("storageLocations", "Locaties"),
    ("warehouses", "Magazijnen"),
    ("selectionCodes", "Selectiecodes"),
    ("itemGroups", "Artikelgroepen"),
    ("operations", "Bewerkingen"),
    ("employees", "Medewerkers"),
];

const fn sync(
    name: &'static str,
    path: &'static str,
    sync_path: &'static str,
    table: &'static str,
    entity_type: Option<i64>,
    indexed: &'static [&'static str],
) -> Endpoint {
    Endpoint {
        name,
        path,
        sync_path: Some(sync_path),
        table,
        key: "ID",
        entity_type,
        indexed,
        expand: &[],
        group_by: None,
        kind: Kind::Sync,
    }
}

const fn live(
    name: &'static str,
    path: &'static str,
    table: &'static str,
    indexed: &'static [&'static str],
) -> Endpoint {
    Endpoint {
        name,
        path,
        sync_path: None,
        table,
        key: "ID",
        entity_type: None,
        indexed,
        expand: &[],
        group_by: None,
        kind: Kind::Live,
    }
}

/// Every endpoint: the sync endpoints first (the order of the Sync Data menu), then deleted
/// entries, then the live ones.
pub const ENDPOINTS: &[Endpoint] = &[
    // Spec §3: Accounts expand BankAccounts.
    Endpoint {
        expand: &["BankAccounts"],
        ..sync(
            "Accounts",
            "crm/Accounts",
            "CRM/Accounts",
            "accounts",
            Some(2),
            &["Code", "IsSupplier", "IsSales", "Name"],
        )
    },
    sync(
        "Sales Order Headers",
        "salesorder/SalesOrders",
        "SalesOrder/SalesOrderHeaders",
        "salesOrderHeaders",
        Some(32),
        &["OrderID", "OrderNumber", "Status", "Project", "WarehouseID", "DeliveryDate"],
    ),
    sync(
        "Sales Order Lines",
        "salesorder/SalesOrderLines",
        "SalesOrder/SalesOrderLines",
        "salesOrderLines",
        Some(33),
        &["OrderID", "Item", "ShopOrder", "PurchaseOrder", "DeliveryDate", "Project"],
    ),
    sync(
        "Storage Location Stock Positions",
        "inventory/StorageLocationStockPositions",
        "Inventory/StorageLocationStockPositions",
        "storageLocationStockPositions",
        Some(20),
        &["Item", "ItemCode", "Warehouse", "StorageLocation"],
    ),
    sync(
        "Shop Orders",
        "manufacturing/ShopOrders",
        "Manufacturing/ShopOrders",
        "shopOrders",
        Some(36),
        &[
            "Item",
            "ItemCode",
            "ShopOrderNumber",
            "Status",
            "PlannedDate",
            "PlannedStartDate",
            "Project",
            "Warehouse",
            "SelectionCode",
        ],
    ),
    sync(
        "Items",
        "logistics/Items",
        "Logistics/Items",
        "items",
        Some(9),
        &["Code", "Barcode", "ItemGroup", "IsStockItem", "IsMakeItem", "IsPurchaseItem"],
    ),
    sync(
        "Item Warehouses",
        "inventory/ItemWarehouses",
        "Inventory/ItemWarehouses",
        "itemWarehouses",
        Some(19),
        &["Item", "ItemCode", "Warehouse", "DefaultStorageLocation"],
    ),
    sync("Projects", "project/Projects", "Project/Projects", "projects", Some(21), &["Code", "Account"]),
    sync(
        "Shop Order Material Plans",
        "manufacturing/ShopOrderMaterialPlans",
        "Manufacturing/ShopOrderMaterialPlans",
        "shopOrderMaterialPlans",
        Some(37),
        &["ShopOrder", "Item", "ItemCode", "Status", "Type", "PlannedDate"],
    ),
    sync(
        "Supplier Item",
        "logistics/SupplierItem",
        "Logistics/SupplierItem",
        "supplierItems",
        None,
        &["Item", "ItemCode", "Supplier", "MainSupplier"],
    ),
    sync(
        "Stock Positions",
        "inventory/StockPositions",
        "Inventory/StockPositions",
        "stockPositions",
        Some(15),
        &["ItemId", "ItemCode", "Warehouse"],
    ),
    sync(
        "Shop Order Routing Step Plans",
        "manufacturing/ShopOrderRoutingStepPlans",
        "Manufacturing/ShopOrderRoutingStepPlans",
        "shopOrderRoutingStepPlans",
        Some(38),
        &["ShopOrder", "Operation", "Workcenter", "Status", "PlannedStartDate"],
    ),
    // The numbers of serial- and batch-tracked items, and their stock per transaction and place
    // (`crate::tracking` sums them into what is in stock where).
    sync(
        "Serial and Batch Numbers",
        "inventory/SerialBatchNumbers",
        "Inventory/SerialBatchNumbers",
        "serialBatchNumbers",
        Some(28),
        &["Item", "ItemCode", "SerialBatchNumber", "Type"],
    ),
    sync(
        "Stock Serial and Batch Numbers",
        "inventory/StockSerialBatchNumbers",
        "Inventory/StockSerialBatchNumbers",
        "stockSerialBatchNumbers",
        Some(29),
        &["Item", "SerialBatchNumber", "Warehouse", "StorageLocation", "DraftTransactionID"],
    ),
    // What was issued to each material line: Exact's material plans carry no issued quantity
    // (only the live plan details do), so "still to issue" is summed from these.
    Endpoint {
        key: "StockTransactionId",
        ..sync(
            "Material Issues",
            "manufacturing/MaterialIssues",
            "Manufacturing/MaterialIssues",
            "materialIssues",
            None,
            &["ShopOrderMaterialPlan", "ShopOrder", "Item"],
        )
    },
    // Purchase orders and their lines in one stream (reference §6.2): the header's row has
    // LineNumber 0, each line's row carries the header's fields too. Purchases, Materials and
    // Receipts read the open lines from here instead of hundreds of live calls.
    Endpoint {
        group_by: Some("PurchaseOrderID"),
        ..sync(
            "Purchase Orders",
            "purchaseorder/PurchaseOrders",
            "PurchaseOrder/PurchaseOrders",
            "purchaseOrders",
            Some(22),
            &["PurchaseOrderID", "ReceiptStatus", "Item", "ItemCode", "Supplier", "Warehouse"],
        )
    },
    Endpoint {
        name: "Deleted entries",
        path: "sync/Deleted",
        sync_path: Some("Deleted"),
        table: "deletedEntries",
        key: "ID",
        entity_type: None,
        indexed: &["EntityType", "EntityKey"],
        expand: &[],
        group_by: None,
        kind: Kind::Deleted,
    },
    live(
        "Storage Locations",
        "inventory/StorageLocations",
        "storageLocations",
        &["Code", "Warehouse", "WarehouseCode"],
    ),
    live("Warehouses", "inventory/Warehouses", "warehouses", &["Code"]),
    live("Selection Codes", "logistics/SelectionCodes", "selectionCodes", &["Code"]),
    live("Item Groups", "logistics/ItemGroups", "itemGroups", &["Code"]),
    live("Operations", "manufacturing/Operations", "operations", &["Code", "Item"]),
    live("Employees", "payroll/Employees", "employees", &["Code"]),
];

/// The endpoint behind a local table name.
pub fn by_table(table: &str) -> Option<&'static Endpoint> {
    ENDPOINTS.iter().find(|e| e.table == table)
}

/// The endpoint by display name or table name (the CLI and the Sync Data menu use either).
pub fn lookup(name: &str) -> Option<&'static Endpoint> {
    ENDPOINTS.iter().find(|e| e.table == name || e.name.eq_ignore_ascii_case(name))
}

/// The table that a `sync/Deleted` EntityType applies to; other types are ignored (spec §5).
pub fn by_entity_type(entity_type: i64) -> Option<&'static Endpoint> {
    ENDPOINTS.iter().find(|e| e.entity_type == Some(entity_type))
}

/// The sync endpoints (deleted entries last).
pub fn sync_endpoints() -> impl Iterator<Item = &'static Endpoint> {
    ENDPOINTS.iter().filter(|e| e.is_sync())
}

/// The default selection of the Sync Data menu: every sync endpoint except deleted entries.
pub fn default_selection() -> Vec<&'static str> {
    ENDPOINTS.iter().filter(|e| e.kind == Kind::Sync).map(|e| e.table).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_has_its_name_in_dutch() {
        for e in ENDPOINTS {
            let names = e.names();
            assert!(DUTCH_NAMES.iter().any(|(t, _)| *t == e.table), "{} has a Dutch name", e.table);
            assert_ne!(names.nl, names.en, "{}", e.table);
        }
        assert_eq!(DUTCH_NAMES.len(), ENDPOINTS.len(), "no Dutch name for a table that is gone");
    }

    #[test]
    fn sixteen_sync_endpoints_deleted_entries_and_six_live() {
        assert_eq!(ENDPOINTS.iter().filter(|e| e.kind == Kind::Sync).count(), 16);
        assert_eq!(ENDPOINTS.iter().filter(|e| e.kind == Kind::Deleted).count(), 1);
        assert_eq!(ENDPOINTS.iter().filter(|e| e.kind == Kind::Live).count(), 6);
    }

    #[test]
    fn deletion_codes_follow_the_spec() {
        let expected = [
            (2, "accounts"),
            (9, "items"),
            (15, "stockPositions"),
            (19, "itemWarehouses"),
            (20, "storageLocationStockPositions"),
            (21, "projects"),
            (32, "salesOrderHeaders"),
            (33, "salesOrderLines"),
            (36, "shopOrders"),
            (37, "shopOrderMaterialPlans"),
            (38, "shopOrderRoutingStepPlans"),
            (28, "serialBatchNumbers"),
            (29, "stockSerialBatchNumbers"),
            (22, "purchaseOrders"),
        ];
        for (code, table) in expected {
            assert_eq!(by_entity_type(code).map(|e| e.table), Some(table), "{code}");
        }
        assert!(by_entity_type(1).is_none(), "other types are ignored");
        assert_eq!(ENDPOINTS.iter().filter(|e| e.entity_type.is_some()).count(), expected.len());
    }

    #[test]
    fn tables_are_unique_and_default_selection_excludes_deleted() {
        let mut tables: Vec<_> = ENDPOINTS.iter().map(|e| e.table).collect();
        tables.sort_unstable();
        tables.dedup();
        assert_eq!(tables.len(), ENDPOINTS.len());
        let sel = default_selection();
        assert_eq!(sel.len(), 16);
        assert!(!sel.contains(&"deletedEntries"));
    }
}

/// The `$select` of a sync endpoint: every scalar field of its sync entity (the local copy is
/// complete), and its expanded collections. Sync endpoints refuse `$select=*`, so the list is
/// always explicit.
pub fn sync_select(ep: &Endpoint) -> String {
    let mut select = ep
        .sync_path
        .and_then(super::schema::sync_entity)
        .map(|e| e.select_all())
        .unwrap_or_else(|| format!("{},Timestamp", ep.key));
    for collection in ep.expand {
        select.push(',');
        select.push_str(collection);
    }
    select
}

/// The `$select` of a live endpoint: every scalar field of its regular entity.
pub fn live_select(ep: &Endpoint) -> String {
    super::schema::entity(ep.path).map(|e| e.select_all()).unwrap_or_else(|| ep.key.to_string())
}

/// The columns a local table holds (for rejecting unknown columns in queries).
pub fn columns(ep: &Endpoint) -> Vec<&'static str> {
    let entity = match ep.kind {
        Kind::Live => super::schema::entity(ep.path),
        _ => ep.sync_path.and_then(super::schema::sync_entity),
    };
    let mut cols: Vec<&'static str> =
        entity.map(|e| e.fields.iter().filter(|f| f.ty.is_scalar()).map(|f| f.name).collect()).unwrap_or_default();
    cols.extend(ep.expand);
    cols
}

/// The store's table layout, built from the catalogue and the provider schema.
pub fn table_specs() -> Vec<crate::store::TableSpec> {
    ENDPOINTS.iter().map(|ep| crate::store::TableSpec::new(ep.table, ep.key, ep.indexed, &columns(ep))).collect()
}

#[cfg(test)]
mod schema_tests {
    use super::*;

    #[test]
    fn every_endpoint_has_a_schema_with_its_key_and_indexed_fields() {
        for ep in ENDPOINTS {
            let cols = columns(ep);
            assert!(!cols.is_empty(), "{} has no schema", ep.name);
            assert!(cols.contains(&ep.key), "{} lacks its key {}", ep.name, ep.key);
            for f in ep.indexed {
                assert!(cols.contains(f), "{}: indexed field {f} is not a column", ep.name);
            }
            for collection in ep.expand {
                let entity = ep.sync_path.and_then(crate::exact::schema::sync_entity).expect("sync entity");
                let field = entity.field(collection).expect("an expanded collection of the entity");
                assert_eq!(field.ty, crate::exact::schema::EdmType::Collection, "{collection}");
                assert!(sync_select(ep).split(',').any(|f| f == *collection));
            }
            if ep.is_sync() {
                assert!(cols.contains(&"Timestamp"), "{} lacks Timestamp", ep.name);
                assert!(sync_select(ep).split(',').any(|f| f == "Timestamp"));
            }
        }
    }
}
