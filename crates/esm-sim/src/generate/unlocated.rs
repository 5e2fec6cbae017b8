//! Warehouses without storage locations (`UseStorageLocations` 0), as many factories keep beside
//! their located ones: a workshop stock and the service vans. They hold stock of items that also
//! have stock in a located warehouse, so a transfer between the two kinds (and between the two
//! unlocated ones) has something to move.
//!
//! Added after everything else from a random stream of their own, so the rest of the demo data
//! is drawn as before; their GUIDs sort after every other warehouse's, so the located warehouses
//! keep their places in key order too. Items that get stock here carry it in their `Stock` total.

use super::super::stock;
use super::super::store::{Division, STOCK_POSITIONS};
use super::super::value::Val;
use super::DAY;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::BTreeSet;

/// (Code, Description) of the warehouses without storage locations.
pub const UNLOCATED: [(&str, &str); 2] = [("4", "Werkplaatsvoorraad"), ("5", "Servicebussen")];
/// Share of the items in stock at a located warehouse that get stock without a location too.
const SHARE: f64 = 0.06;
/// Of those, the share kept in both unlocated warehouses.
const IN_BOTH: f64 = 0.4;
/// Mixed into the division's seed: a stream apart from the one the rest is drawn from.
const STREAM: u64 = 0x5707_a6e0_0000_0001;

fn text(d: &Division, table: &str, key: u128, field: &str) -> Val {
    d.table(table).map(|t| t.value(key, field)).unwrap_or(Val::Null)
}

/// Adds the warehouses without storage locations and their stock to a generated division.
pub fn add(d: &mut Division, seed: u64, today: i64, creator: u128) {
    let mut rng = StdRng::seed_from_u64(seed ^ STREAM);
    let audit = |created: i64, modified: i64| {
        [
            ("Created", Val::Date(today - created * DAY)),
            ("Modified", Val::Date(today - modified * DAY)),
            ("Creator", Val::guid(creator)),
            ("Modifier", Val::guid(creator)),
            ("CreatorFullName", Val::str("Eva van Dijk")),
            ("ModifierFullName", Val::str("Eva van Dijk")),
        ]
    };
    let mut warehouses = Vec::new();
    for (code, description) in UNLOCATED {
        // The top byte set: after the located warehouses in key order (see the module's note).
        let id = uuid::Builder::from_random_bytes(rng.random()).into_uuid().as_u128() | (0xffu128 << 120);
        let mut fields = vec![
            ("Code", Val::str(code)),
            ("Description", Val::str(description)),
            ("Division", Val::Int(d.code as i64)),
            ("Main", Val::Int(0)),
            ("UseStorageLocations", Val::Int(0)),
            ("EMail", Val::str("magazijn@vandijk-machinebouw.nl")),
        ];
        fields.extend(audit(rng.random_range(61..400), rng.random_range(0..60)));
        d.upsert(stock::WAREHOUSES, id, &fields);
        warehouses.push(id);
    }

    let located: BTreeSet<u128> = match d.table(STOCK_POSITIONS) {
        Some(t) => t
            .rows
            .keys()
            .filter(|k| t.value(**k, "CurrentStock").as_f64().unwrap_or(0.0) > 0.0)
            .filter(|k| t.value(**k, "Warehouse").as_guid().is_some_and(|w| stock::uses_locations(d, w)))
            .filter_map(|k| t.value(*k, "ItemId").as_guid())
            .collect(),
        None => BTreeSet::new(),
    };
    for item in located {
        if rng.random::<f64>() >= SHARE {
            continue;
        }
        let places: Vec<u128> = if rng.random::<f64>() < IN_BOTH {
            warehouses.clone()
        } else {
            vec![warehouses[rng.random_range(0..warehouses.len())]]
        };
        // Stock of a serial or batch item needs its numbers: such items stay where they are.
        if crate::tracking::kind_of(d, item).is_some() {
            continue;
        }
        for wh in places {
            let id = uuid::Builder::from_random_bytes(rng.random()).into_uuid().as_u128();
            let reorder = rng.random_range(0..5) as f64;
            let mut fields = vec![
                ("Item", Val::guid(item)),
                ("ItemCode", text(d, stock::ITEMS, item, "Code")),
                ("ItemDescription", text(d, stock::ITEMS, item, "Description")),
                ("ItemUnit", text(d, stock::ITEMS, item, "Unit")),
                ("ItemIsStockItem", Val::Bool(true)),
                ("Warehouse", Val::guid(wh)),
                ("WarehouseCode", text(d, stock::WAREHOUSES, wh, "Code")),
                ("WarehouseDescription", text(d, stock::WAREHOUSES, wh, "Description")),
                ("Division", Val::Int(d.code as i64)),
                ("ReorderPoint", Val::Dbl(reorder)),
                ("ReorderQuantity", Val::Dbl(reorder * 2.0 + 5.0)),
                ("SafetyStock", Val::Dbl(0.0)),
                ("MaximumStock", Val::Dbl(reorder * 5.0 + 20.0)),
                ("CurrentStock", Val::Dbl(0.0)),
                ("PlannedStockIn", Val::Dbl(0.0)),
                ("PlannedStockOut", Val::Dbl(0.0)),
                ("ProjectedStock", Val::Dbl(0.0)),
                ("ReservedStock", Val::Dbl(0.0)),
            ];
            fields.extend(audit(rng.random_range(61..400), rng.random_range(0..60)));
            d.upsert(stock::ITEM_WAREHOUSES, id, &fields);
            d.item_warehouses.insert((item, wh), id);
            let quantity = rng.random_range(1..40) as f64;
            stock::adjust(d, item, wh, 0, quantity);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Scale, generate};
    use super::*;
    use crate::store::SL_STOCK_POSITIONS;

    #[test]
    fn every_division_has_two_unlocated_warehouses_holding_stock_of_located_items() {
        for d in generate(Scale::Small, 42, 1_780_000_000_000, "http://sim").data {
            let whs = d.table(stock::WAREHOUSES).expect("warehouses");
            let unlocated: Vec<u128> = whs.rows.keys().copied().filter(|w| !stock::uses_locations(&d, *w)).collect();
            assert_eq!(unlocated.len(), 2, "division {}", d.code);
            // They sort last: the located warehouses keep their places in key order.
            assert!(whs.rows.keys().rev().take(2).all(|w| unlocated.contains(w)));
            let sp = d.table(STOCK_POSITIONS).expect("positions");
            let stock_in = |w: u128| {
                sp.rows
                    .keys()
                    .filter(|k| sp.value(**k, "Warehouse").as_guid() == Some(w))
                    .filter(|k| sp.value(**k, "CurrentStock").as_f64().unwrap_or(0.0) > 0.0)
                    .filter_map(|k| sp.value(*k, "ItemId").as_guid())
                    .collect::<BTreeSet<u128>>()
            };
            let (a, b) = (stock_in(unlocated[0]), stock_in(unlocated[1]));
            assert!(!a.is_empty() && !b.is_empty(), "division {}", d.code);
            assert!(a.intersection(&b).next().is_some(), "an item in both, to transfer between them");
            let located_items: BTreeSet<u128> =
                whs.rows.keys().filter(|w| !unlocated.contains(w)).flat_map(|w| stock_in(*w)).collect();
            assert!(a.union(&b).all(|i| located_items.contains(i)), "each also in a located warehouse");
            // Their stock is in the positions alone: no storage-location rows.
            let sl = d.table(SL_STOCK_POSITIONS).expect("location stock");
            assert!(sl.rows.keys().all(|k| !unlocated.iter().any(|w| sl.value(*k, "Warehouse").as_guid() == Some(*w))));
            assert!(stock::mismatches(&d).is_empty());
        }
    }
}
