//! Tracked items of the demo data: batch-tracked raw materials on open material plans, with
//! stock in several batches (each with its expiry date) over several storage locations;
//! serial-tracked made items with open shop orders, one with a batch-tracked by-product and one
//! with a serial-tracked by-product; an open purchase order of two batch materials; numbers for
//! every unit of stock of a tracked item, so that at every place the numbers add up to the
//! location's stock; and last a made item tracked by batch with an open shop order (its receipt
//! asks for the batch it makes).
//!
//! Made after everything else, from a random stream of its own, so the rest of the demo data
//! (and every Timestamp in it) stays as it was.

use super::{DAY, Gen, PLACEHOLDER_ITEM};
use crate::stock::{self, ITEMS, LOCATIONS, WAREHOUSES};
use crate::store::deterministic_id;
use crate::tracking::{self, Booking, Kind, Piece};
use crate::value::Val;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Raw materials tracked by batch: (description, unit, unit description).
const BATCH_MATERIALS: [(&str, &str, &str); 4] = [
    ("Epoxylijm 2K constructief", "kg      ", "Kilogram"),
    ("Poedercoating RAL 7035", "kg      ", "Kilogram"),
    ("Lasdraad SG2 1,0 mm", "kg      ", "Kilogram"),
    ("Schroefdraadborging middelvast", "stuk    ", "Stuk"),
];

/// Made items tracked by serial number.
const SERIAL_PRODUCTS: [&str; 2] = ["Besturingskast S-line", "Hydraulische unit HPU"];

/// A made item tracked by batch: a premixed adhesive, made (and received) per batch.
const BATCH_PRODUCT: (&str, &str, &str) = ("Lijmmengsel 2K voorgemengd", "kg      ", "Kilogram");

const SHOP_ORDERS: &str = "manufacturing/ShopOrders";
const PLANS: &str = "manufacturing/ShopOrderMaterialPlans";

impl Gen<'_> {
    /// The tracked items and the numbers of all tracked stock (see the module documentation).
    pub(super) fn tracked_items(&mut self) {
        // A stream of its own: the main one is put back untouched afterwards.
        let seed = deterministic_id(self.d.code as u128, self.creator) as u64;
        let main = std::mem::replace(&mut self.rng, StdRng::seed_from_u64(seed));
        self.tracked_with_own_stream();
        self.rng = main;
    }

    fn tracked_with_own_stream(&mut self) {
        let Some((wh, locs)) = self.main_warehouse() else { return };
        let materials: Vec<u128> =
            BATCH_MATERIALS.iter().enumerate().map(|(n, m)| self.batch_material(n, *m, wh, &locs)).collect();
        let products: Vec<u128> =
            SERIAL_PRODUCTS.iter().enumerate().map(|(n, p)| self.serial_product(n, p, wh, locs[0])).collect();
        // A purchased serial part with stock in the main warehouse, planned as a material too.
        let part = self.serial_part_in_stock(wh);
        let next_number = self
            .d
            .table(SHOP_ORDERS)
            .and_then(|t| t.rows.keys().filter_map(|k| t.value(*k, "ShopOrderNumber").as_i64()).max())
            .unwrap_or(24_000)
            + 1;
        for (n, product) in products.iter().enumerate() {
            // Each order uses three of the four materials, so every material is on an open plan.
            let mut used: Vec<u128> = materials.iter().copied().skip(n).take(3).collect();
            used.extend(part);
            // What is left over comes back as a by-product: welding wire (by batch) on the first order,
            // the serial part on the second (receiving either asks for its numbers).
            let by_product = if n == 0 { materials.get(2).copied() } else { part };
            self.open_shop_order(next_number + n as i64, *product, wh, &used, by_product);
        }
        // New batches come from a supplier too: an open purchase order of two batch materials.
        self.open_batch_purchase(&materials[..2.min(materials.len())], wh);
        self.opening_balances();
        // Last, so that every ID and number drawn before it stays as it was.
        self.batch_product(wh, &locs, &materials[..2.min(materials.len())]);
    }

    /// A made item tracked by batch, with one batch in stock and an open shop order that uses
    /// `materials`: receiving it asks for the batch number of what was made.
    fn batch_product(&mut self, wh: u128, locs: &[u128], materials: &[u128]) {
        let (description, unit, unit_desc) = BATCH_PRODUCT;
        let code = format!("EP-{:06}", 900_101);
        let item = self.tracked_item(&code, description, (unit, unit_desc), Kind::Batch, true);
        self.item_warehouse(item, wh, locs[0], true);
        let expiry = self.today + (120 + self.rng.random_range(0..30)) * DAY;
        let piece = Piece {
            kind: Kind::Batch,
            number: format!("M2611-{:03}", self.rng.random_range(100..999)),
            warehouse: wh,
            location: locs[0],
            quantity: f64::from(self.rng.random_range(10..30_i32)),
            row: None,
            expiry: Some(expiry),
            tx_type: tracking::OPENING_BALANCE,
        };
        let b = self.opening(item);
        tracking::book(&mut self.d, item, &[piece], &b);
        let number = self
            .d
            .table(SHOP_ORDERS)
            .and_then(|t| t.rows.keys().filter_map(|k| t.value(*k, "ShopOrderNumber").as_i64()).max())
            .unwrap_or(24_000)
            + 1;
        self.open_shop_order(number, item, wh, materials, None);
    }

    /// The main warehouse and its storage locations (at least two), in pick order.
    fn main_warehouse(&self) -> Option<(u128, Vec<u128>)> {
        let whs = self.d.table(WAREHOUSES)?;
        let wh = whs.rows.keys().copied().find(|k| whs.value(*k, "Main").as_i64() == Some(1))?;
        let ls = self.d.table(LOCATIONS)?;
        let mut locs: Vec<(i64, u128)> = ls
            .rows
            .keys()
            .filter(|k| ls.value(**k, "Warehouse").as_guid() == Some(wh))
            .map(|k| (ls.value(*k, "PickSequence").as_i64().unwrap_or(0), *k))
            .collect();
        locs.sort();
        (locs.len() >= 2).then(|| (wh, locs.into_iter().map(|(_, k)| k).collect()))
    }

    fn item_group(&self, last: bool) -> (Val, Val, Val) {
        let Some(t) = self.d.table("logistics/ItemGroups") else { return (Val::Null, Val::Null, Val::Null) };
        let mut keys: Vec<(String, u128)> =
            t.rows.keys().map(|k| (t.value(*k, "Code").as_str().unwrap_or_default().to_string(), *k)).collect();
        keys.sort();
        let k = if last { keys.last() } else { keys.first() }.map_or(0, |(_, k)| *k);
        (Val::guid(k), t.value(k, "Code"), t.value(k, "Description"))
    }

    fn tracked_item(&mut self, code: &str, description: &str, unit: (&str, &str), kind: Kind, make: bool) -> u128 {
        let id = self.id();
        let (group, group_code, group_description) = self.item_group(make);
        let cost = f64::from(self.rng.random_range(500..40_000_i32)) / 100.0;
        let serial = kind == Kind::Serial;
        let batch = Val::Int((kind == Kind::Batch) as i64);
        self.put(
            ITEMS,
            id,
            vec![
                ("Code", Val::str(code)),
                ("Description", Val::str(description)),
                ("SearchCode", Val::str(code)),
                ("ItemGroup", group),
                ("ItemGroupCode", group_code),
                ("ItemGroupDescription", group_description),
                ("Unit", Val::str(unit.0)),
                ("UnitDescription", Val::str(unit.1)),
                ("UnitType", Val::str(if unit.0.starts_with("kg") { "W" } else { "O" })),
                ("IsStockItem", Val::Bool(true)),
                ("IsPurchaseItem", Val::Bool(!make)),
                ("IsSalesItem", Val::Bool(make)),
                ("IsMakeItem", Val::Int(make as i64)),
                ("IsSerialItem", Val::Bool(serial)),
                ("IsSerialNumberItem", Val::Bool(serial)),
                ("IsBatchItem", batch.clone()),
                ("IsBatchNumberItem", batch),
                ("IsFractionAllowedItem", Val::Bool(unit.0.starts_with("kg"))),
                ("CostPriceStandard", Val::Dbl(cost)),
                ("AverageCost", Val::Dbl(cost)),
                ("StandardSalesPrice", Val::Dbl((cost * 1.6 * 100.0).round() / 100.0)),
                ("SalesVatCode", Val::str("2  ")),
                ("SecurityLevel", Val::Int(10)),
                ("Stock", Val::Dbl(0.0)),
                ("PictureUrl", Val::str(PLACEHOLDER_ITEM)),
                ("PictureThumbnailUrl", Val::str(PLACEHOLDER_ITEM)),
                ("StartDate", Val::Date(self.today - 800 * DAY)),
            ],
        );
        id
    }

    fn item_warehouse(&mut self, item: u128, wh: u128, default: u128, make: bool) {
        let id = self.id();
        let t = |table: &str, k: u128, f: &str| self.d.table(table).map_or(Val::Null, |t| t.value(k, f));
        let fields = vec![
            ("Item", Val::guid(item)),
            ("ItemCode", t(ITEMS, item, "Code")),
            ("ItemDescription", t(ITEMS, item, "Description")),
            ("ItemUnit", t(ITEMS, item, "Unit")),
            ("ItemIsStockItem", Val::Bool(true)),
            ("Warehouse", Val::guid(wh)),
            ("WarehouseCode", t(WAREHOUSES, wh, "Code")),
            ("WarehouseDescription", t(WAREHOUSES, wh, "Description")),
            ("DefaultStorageLocation", Val::guid(default)),
            ("DefaultStorageLocationCode", t(LOCATIONS, default, "Code")),
            ("DefaultStorageLocationDescription", t(LOCATIONS, default, "Description")),
            ("ReorderPoint", Val::Dbl(5.0)),
            ("ReorderQuantity", Val::Dbl(20.0)),
            ("SafetyStock", Val::Dbl(2.0)),
            ("MaximumStock", Val::Dbl(100.0)),
            ("OrderPolicy", Val::Int(if make { 1 } else { 3 })),
            ("ReplenishmentType", Val::Int(if make { 3 } else { 1 })),
            ("CurrentStock", Val::Dbl(0.0)),
            ("PlannedStockIn", Val::Dbl(0.0)),
            ("PlannedStockOut", Val::Dbl(0.0)),
            ("ProjectedStock", Val::Dbl(0.0)),
            ("ReservedStock", Val::Dbl(0.0)),
        ];
        self.put(stock::ITEM_WAREHOUSES, id, fields);
        self.d.item_warehouses.insert((item, wh), id);
    }

    /// A raw material tracked by batch, with two or three batches (each with its own expiry
    /// date) over the first two or three storage locations of the main warehouse.
    fn batch_material(
        &mut self,
        n: usize,
        (description, unit, unit_desc): (&str, &str, &str),
        wh: u128,
        locs: &[u128],
    ) -> u128 {
        let code = format!("GS-{:06}", 900_001 + n);
        let item = self.tracked_item(&code, description, (unit, unit_desc), Kind::Batch, false);
        self.item_warehouse(item, wh, locs[0], false);
        let batches = 2 + n % 2;
        let mut pieces = Vec::new();
        for b in 0..batches {
            let expiry = self.today + (60 + 90 * b as i64 + self.rng.random_range(0..30)) * DAY;
            let number = format!("L{}-{:03}", 2600 + n * 10 + b, self.rng.random_range(100..999));
            // The first batch lies at the default location, the others at the next ones; the
            // last one is split over two locations.
            let places: Vec<u128> =
                if b + 1 == batches { vec![locs[b % locs.len()], locs[0]] } else { vec![locs[b % locs.len()]] };
            for loc in places {
                let quantity = f64::from(self.rng.random_range(4..60_i32));
                pieces.push(Piece {
                    kind: Kind::Batch,
                    number: number.clone(),
                    warehouse: wh,
                    location: loc,
                    quantity,
                    row: None,
                    expiry: Some(expiry),
                    tx_type: tracking::OPENING_BALANCE,
                });
            }
        }
        let b = self.opening(item);
        tracking::book(&mut self.d, item, &pieces, &b);
        item
    }

    /// A made item tracked by serial number, with a few units at the default location.
    fn serial_product(&mut self, n: usize, description: &str, wh: u128, default: u128) -> u128 {
        let code = format!("EP-{:06}", 900_001 + n);
        let item = self.tracked_item(&code, description, ("stuk    ", "Stuk"), Kind::Serial, true);
        self.item_warehouse(item, wh, default, true);
        let units = self.rng.random_range(2..5);
        let pieces: Vec<Piece> = (1..=units)
            .map(|u| Piece {
                kind: Kind::Serial,
                number: format!("{code}-{u:04}"),
                warehouse: wh,
                location: default,
                quantity: 1.0,
                row: None,
                expiry: None,
                tx_type: tracking::OPENING_BALANCE,
            })
            .collect();
        let b = self.opening(item);
        tracking::book(&mut self.d, item, &pieces, &b);
        item
    }

    /// The first purchased serial item (by key) with stock in `wh`.
    fn serial_part_in_stock(&self, wh: u128) -> Option<u128> {
        let items = self.d.table(ITEMS)?;
        items.rows.keys().copied().find(|k| {
            items.value(*k, "IsSerialItem") == Val::Bool(true)
                && items.value(*k, "IsMakeItem").as_i64() == Some(0)
                && self.d.stock.get(&(*k, wh)).is_some_and(|sp| {
                    self.d
                        .table(crate::store::STOCK_POSITIONS)
                        .is_some_and(|t| t.value(*sp, "CurrentStock").as_f64().unwrap_or(0.0) >= 2.0)
                })
        })
    }

    fn opening(&self, item: u128) -> Booking {
        Booking {
            tx: deterministic_id(item, tracking::OPENING_BALANCE as u128),
            date: self.today - 400 * DAY,
            ..Booking::default()
        }
    }

    /// An open shop order for `product` with a material plan per material, and a by-product line
    /// (Type 2) when one is given.
    fn open_shop_order(&mut self, number: i64, product: u128, wh: u128, materials: &[u128], by_product: Option<u128>) {
        let id = self.id();
        let item = |d: &crate::store::Division, k: u128, f: &str| d.table(ITEMS).map_or(Val::Null, |t| t.value(k, f));
        let planned = f64::from(self.rng.random_range(2..6_i32));
        let start = self.today + self.rng.random_range(1..15) * DAY;
        let end = start + self.rng.random_range(2..8) * DAY;
        for (m, material) in materials.iter().enumerate() {
            let pid = self.id();
            let per = if tracking::kind_of(&self.d, *material) == Some(Kind::Serial) {
                1.0
            } else {
                f64::from(self.rng.random_range(1..8_i32)) / 2.0
            };
            let mut fields = vec![
                ("ShopOrder", Val::guid(id)),
                ("ShopOrderNumber", Val::Int(number)),
                ("LineNumber", Val::Int(m as i64 + 1)),
                ("Type", Val::Int(1)),
                ("Item", Val::guid(*material)),
                ("ItemCode", item(&self.d, *material, "Code")),
                ("ItemDescription", item(&self.d, *material, "Description")),
                ("ItemPictureUrl", item(&self.d, *material, "PictureUrl")),
                ("Description", item(&self.d, *material, "Description")),
                ("Unit", item(&self.d, *material, "Unit")),
                ("PlannedQuantity", Val::Dbl(per * planned)),
                ("PlannedQuantityFactor", Val::Dbl(per)),
                ("IssuedQuantity", Val::Dbl(0.0)),
                ("PlannedDate", Val::Date(start)),
                ("Status", Val::Int(10)),
                ("Backflush", Val::Int(0)),
                ("Warehouse", Val::guid(wh)),
            ];
            fields.extend(tracking::flags(&self.d, *material));
            self.put(PLANS, pid, fields);
        }
        if let Some(by) = by_product {
            let pid = self.id();
            let serial = tracking::kind_of(&self.d, by) == Some(Kind::Serial);
            let description = item(&self.d, by, "Description");
            let mut fields = vec![
                ("ShopOrder", Val::guid(id)),
                ("ShopOrderNumber", Val::Int(number)),
                ("LineNumber", Val::Int(materials.len() as i64 + 1)),
                ("Type", Val::Int(2)),
                ("Item", Val::guid(by)),
                ("ItemCode", item(&self.d, by, "Code")),
                ("ItemDescription", description.clone()),
                ("ItemPictureUrl", item(&self.d, by, "PictureUrl")),
                ("Description", Val::str(&format!("Restant {}", description.as_str().unwrap_or("")))),
                ("Unit", item(&self.d, by, "Unit")),
                ("PlannedQuantity", Val::Dbl(if serial { 1.0 } else { 2.5 })),
                ("IssuedQuantity", Val::Dbl(0.0)),
                ("PlannedDate", Val::Date(end)),
                ("Status", Val::Int(10)),
                ("Backflush", Val::Int(0)),
                ("Warehouse", Val::guid(wh)),
            ];
            fields.extend(tracking::flags(&self.d, by));
            self.put(PLANS, pid, fields);
        }
        let mut fields = vec![
            ("ShopOrderNumber", Val::Int(number)),
            ("ShopOrderNumberString", Val::str(&number.to_string())),
            ("Description", item(&self.d, product, "Description")),
            ("Item", Val::guid(product)),
            ("ItemCode", item(&self.d, product, "Code")),
            ("ItemDescription", item(&self.d, product, "Description")),
            ("ItemPictureUrl", item(&self.d, product, "PictureUrl")),
            ("Unit", item(&self.d, product, "Unit")),
            ("UnitDescription", item(&self.d, product, "UnitDescription")),
            ("PlannedQuantity", Val::Dbl(planned)),
            ("ProducedQuantity", Val::Dbl(0.0)),
            ("ReadyToShipQuantity", Val::Dbl(0.0)),
            ("PlannedStartDate", Val::Date(start)),
            ("PlannedDate", Val::Date(end)),
            ("EntryDate", Val::Date(start - 14 * DAY)),
            ("ProductionLeadDays", Val::Int((end - start) / DAY)),
            ("Status", Val::Int(10)),
            ("Type", Val::Int(9040)),
            ("IsReleased", Val::Int(1)),
            ("IsOnHold", Val::Int(0)),
            ("IsInPlanning", Val::Int(0)),
            (
                "IsFractionAllowedItem",
                Val::Int((item(&self.d, product, "IsFractionAllowedItem") == Val::Bool(true)) as i64),
            ),
            ("Warehouse", Val::guid(wh)),
            ("WarehouseCode", self.d.table(WAREHOUSES).map_or(Val::Null, |t| t.value(wh, "Code"))),
            ("WarehouseDescription", self.d.table(WAREHOUSES).map_or(Val::Null, |t| t.value(wh, "Description"))),
            ("ShopOrderMaterialPlanCount", Val::Int(materials.len() as i64)),
            ("ShopOrderByProductPlanCount", Val::Int(by_product.is_some() as i64)),
            ("ShopOrderRoutingStepPlanCount", Val::Int(0)),
            ("ShopOrderMaterialPlanBackflushCount", Val::Int(0)),
            ("ShopOrderByProductPlanBackflushCount", Val::Int(0)),
            ("SubShopOrderCount", Val::Int(0)),
            ("SalesOrderLineCount", Val::Int(0)),
        ];
        fields.extend(tracking::flags(&self.d, product));
        self.put(SHOP_ORDERS, id, fields);
    }

    /// An open purchase order (nothing received yet) with a line per batch material, from the
    /// supplier of the first demo purchase order.
    fn open_batch_purchase(&mut self, materials: &[u128], wh: u128) {
        const ORDERS: &str = "purchaseorder/PurchaseOrders";
        let Some(pos) = self.d.table(ORDERS) else { return };
        let Some(first) =
            pos.rows.keys().copied().min_by_key(|k| pos.value(*k, "OrderNumber").as_i64().unwrap_or(i64::MAX))
        else {
            return;
        };
        let number = pos.rows.keys().filter_map(|k| pos.value(*k, "OrderNumber").as_i64()).max().unwrap_or(40_000) + 1;
        let supplier = ["Supplier", "SupplierCode", "SupplierName"].map(|f| pos.value(first, f));
        let id = self.id();
        let receipt_date = Val::Date(self.today + 5 * DAY);
        let mut total = 0.0;
        for (n, material) in materials.iter().enumerate() {
            let field =
                |d: &crate::store::Division, f: &str| d.table(ITEMS).map_or(Val::Null, |t| t.value(*material, f));
            let quantity = 25.0;
            let price = 12.5;
            total += quantity * price;
            let lid = self.id();
            let line = vec![
                ("PurchaseOrderID", Val::guid(id)),
                ("LineNumber", Val::Int(n as i64 + 1)),
                ("Item", Val::guid(*material)),
                ("ItemCode", field(&self.d, "Code")),
                ("ItemDescription", field(&self.d, "Description")),
                ("Description", field(&self.d, "Description")),
                ("Unit", field(&self.d, "Unit")),
                ("Quantity", Val::Dbl(quantity)),
                ("QuantityInPurchaseUnits", Val::Dbl(quantity)),
                ("ReceivedQuantity", Val::Dbl(0.0)),
                ("InvoicedQuantity", Val::Dbl(0.0)),
                ("UnitPrice", Val::Dbl(price)),
                ("NetPrice", Val::Dbl(price)),
                ("AmountDC", Val::Dbl(quantity * price)),
                ("AmountFC", Val::Dbl(quantity * price)),
                ("ReceiptDate", receipt_date.clone()),
                ("VATCode", Val::str("2  ")),
                ("VATPercentage", Val::Dbl(0.21)),
            ];
            self.put("purchaseorder/PurchaseOrderLines", lid, line);
        }
        let [supplier_id, supplier_code, supplier_name] = supplier;
        let warehouse = |f: &str| self.d.table(WAREHOUSES).map_or(Val::Null, |t| t.value(wh, f));
        let (wh_code, wh_description) = (warehouse("Code"), warehouse("Description"));
        let header = vec![
            ("OrderNumber", Val::Int(number)),
            ("OrderDate", Val::Date(self.today - 2 * DAY)),
            ("ReceiptDate", receipt_date),
            ("Supplier", supplier_id),
            ("SupplierCode", supplier_code),
            ("Description", Val::str(&format!("Inkoop {}", supplier_name.as_str().unwrap_or("")))),
            ("SupplierName", supplier_name),
            ("OrderStatus", Val::Int(10)),
            ("ReceiptStatus", Val::Int(10)),
            ("InvoiceStatus", Val::Int(10)),
            ("ApprovalStatus", Val::Int(1)),
            ("Source", Val::Int(1)),
            ("Currency", Val::str("EUR")),
            ("AmountDC", Val::Dbl(total)),
            ("AmountFC", Val::Dbl(total)),
            ("PurchaseOrderLineCount", Val::Int(materials.len() as i64)),
            ("Warehouse", Val::guid(wh)),
            ("WarehouseCode", wh_code),
            ("WarehouseDescription", wh_description),
        ];
        self.put(ORDERS, id, header);
    }

    /// Numbers for every unit of tracked stock that has none: the demo receipts' serials count
    /// where they were received; where a place holds fewer units than numbers, the oldest
    /// numbers were issued (type 150); where it holds more, opening balances (type 10) number
    /// the rest `{item code}-{n:04}`, counting on from the item's numbers.
    fn opening_balances(&mut self) {
        tracking::adopt_booked_serials(&mut self.d);
        let mut places: Vec<(u128, u128, u128)> = self
            .d
            .sl_stock
            .keys()
            .copied()
            .filter(|(item, _, _)| tracking::kind_of(&self.d, *item).is_some())
            .collect();
        let items = tracking::items_with_numbers(&self.d);
        for item in items {
            places.extend(tracking::places_of(&self.d, item).into_iter().map(|(w, l)| (item, w, l)));
        }
        places.sort();
        places.dedup();
        for (item, wh, loc) in places {
            let Some(kind) = tracking::kind_of(&self.d, item) else { continue };
            let have = stock::at_location(&self.d, item, wh, loc);
            let numbered: f64 = tracking::numbers_at(&self.d, item, wh, loc).iter().map(|(_, q)| q).sum();
            let code = self.d.table(ITEMS).and_then(|t| t.value(item, "Code").as_str().map(str::to_string));
            let code = code.unwrap_or_default();
            let mut pieces = Vec::new();
            if numbered > have {
                let mut over = numbered - have;
                for (number, q) in tracking::numbers_at(&self.d, item, wh, loc) {
                    if over <= 0.0 {
                        break;
                    }
                    let part = q.min(over);
                    over -= part;
                    pieces.push(Piece {
                        kind,
                        number,
                        warehouse: wh,
                        location: loc,
                        quantity: -part,
                        row: None,
                        expiry: None,
                        tx_type: tracking::MATERIAL_ISSUE,
                    });
                }
                let b = Booking { tx: deterministic_id(item ^ wh, loc), date: self.today - DAY, ..Booking::default() };
                tracking::record(&mut self.d, item, &pieces, &b);
            } else if have > numbered {
                let missing = have - numbered;
                pieces = match kind {
                    Kind::Serial => {
                        let first = tracking::number_count(&self.d, item) + 1;
                        (0..missing.round() as usize)
                            .map(|u| Piece {
                                kind,
                                number: format!("{code}-{:04}", first + u),
                                warehouse: wh,
                                location: loc,
                                quantity: 1.0,
                                row: None,
                                expiry: None,
                                tx_type: tracking::OPENING_BALANCE,
                            })
                            .collect()
                    }
                    Kind::Batch => vec![Piece {
                        kind,
                        number: format!("{code}-OB"),
                        warehouse: wh,
                        location: loc,
                        quantity: missing,
                        row: None,
                        expiry: None,
                        tx_type: tracking::OPENING_BALANCE,
                    }],
                };
                let b = Booking {
                    tx: deterministic_id(item ^ wh, loc ^ 10),
                    date: self.today - 400 * DAY,
                    ..Booking::default()
                };
                tracking::record(&mut self.d, item, &pieces, &b);
            }
        }
    }
}
