//! Count sessions against a real store laid out like the product's.

use super::*;
use crate::exact::catalogue;
use crate::outbox::actions::{self, Actor};
use crate::store::{Commit, Stores};
use std::sync::Arc;

const WH: &str = "00000000-0000-4000-8000-0000000000a1";
const WH_FLAT: &str = "00000000-0000-4000-8000-0000000000a2";
const LOC_A: &str = "00000000-0000-4000-8000-0000000000b1";
const LOC_B: &str = "00000000-0000-4000-8000-0000000000b2";
const BOLT: &str = "00000000-0000-4000-8000-0000000000c1";
const NUT: &str = "00000000-0000-4000-8000-0000000000c2";
const SERIAL: &str = "00000000-0000-4000-8000-0000000000c3";
const PLATE: &str = "00000000-0000-4000-8000-0000000000c4";
const GROUP: &str = "00000000-0000-4000-8000-0000000000d1";
const NOW: i64 = 1_780_000_000_000;

/// Bolts and nuts at location A, plates at B, a serial item; the flat warehouse holds bolts.
fn store() -> (tempfile::TempDir, Arc<OrgStore>) {
    let dir = tempfile::tempdir().unwrap();
    let store = Stores::new(dir.path(), catalogue::table_specs()).get(1).unwrap();
    let put = |table: &str, rows: Vec<Value>| store.apply_batch(table, rows, Some(100), Commit::Durable).unwrap();
    put(
        "items",
        vec![
            json!({"ID": BOLT, "Code": "BOLT-M8", "Description": "Bolt M8", "ItemGroup": GROUP, "CostPriceStandard": 0.5, "Timestamp": "1"}),
            json!({"ID": NUT, "Code": "NUT-M8", "Description": "Nut M8", "ItemGroup": GROUP, "CostPriceStandard": 0.1, "Timestamp": "1"}),
            json!({"ID": SERIAL, "Code": "PUMP-1", "Description": "Pump", "IsSerialItem": true, "Timestamp": "1"}),
            json!({"ID": PLATE, "Code": "PLATE-2", "Description": "Plate 2 mm", "CostPriceStandard": 12.0, "Timestamp": "1"}),
        ],
    );
    let at = |n: u32, item: &str, code: &str, loc: &str, loc_code: &str, stock: f64| {
        json!({"ID": format!("00000000-0000-4000-8000-{n:012x}"), "Item": item, "ItemCode": code, "ItemDescription": code,
               "Warehouse": WH, "StorageLocation": loc, "StorageLocationCode": loc_code, "Stock": stock, "Timestamp": "1"})
    };
    put(
        "storageLocationStockPositions",
        vec![
            at(1, BOLT, "BOLT-M8", LOC_A, "A-01", 100.0),
            at(2, NUT, "NUT-M8", LOC_A, "A-01", 40.0),
            at(3, PLATE, "PLATE-2", LOC_B, "B-01", 5.0),
            at(4, PLATE, "PLATE-2", LOC_A, "A-01", 0.0),
        ],
    );
    put(
        "stockPositions",
        vec![json!({"ID": "00000000-0000-4000-8000-0000000000f1", "ItemId": BOLT, "ItemCode": "BOLT-M8",
                    "ItemDescription": "Bolt M8", "Warehouse": WH_FLAT, "CurrentStock": 30, "Timestamp": "1"})],
    );
    (dir, store)
}

fn location_count(store: &OrgStore) -> CountSession {
    let body: CountStart = serde_json::from_value(json!({
        "kind": "location", "warehouse": WH, "warehouseCode": "1", "usesLocations": true,
        "location": LOC_A, "locationCode": "A-01", "description": "Rack A"
    }))
    .unwrap();
    start(store, body, "Els Bakker", NOW).unwrap()
}

fn line(item: &str, quantity: f64) -> CountLineBody {
    CountLineBody {
        item: item.into(),
        location: None,
        location_code: None,
        quantity,
        replace: false,
        serial_numbers: None,
        batch_numbers: None,
    }
}

fn message(e: AppError) -> String {
    e.message().to_string()
}

#[test]
fn a_location_count_takes_lines_from_two_counters_and_asks_which_count_stands() {
    let (_dir, store) = store();
    let s = location_count(&store);
    assert!(matches!(add_line(&store, &s.id, line(BOLT, 98.0), "Jan", NOW + 1).unwrap(), Added::New(_)));
    assert!(matches!(add_line(&store, &s.id, line(NUT, 40.0), "Piet", NOW + 2).unwrap(), Added::New(_)));
    // the same count again changes nothing
    assert!(matches!(add_line(&store, &s.id, line(BOLT, 98.0), "Piet", NOW + 3).unwrap(), Added::Same(_)));
    // another quantity asks which stands
    let err = add_line(&store, &s.id, line(BOLT, 97.0), "Piet", NOW + 4).err().expect("a conflict");
    assert_eq!(err.code(), Code::CountConflict);
    assert!(message(err).contains("BOLT-M8 at A-01 was counted as 98 by Jan"));
    let mut again = line(BOLT, 97.0);
    again.replace = true;
    let Added::Replaced(l) = add_line(&store, &s.id, again, "Piet", NOW + 5).unwrap() else { panic!("replaced") };
    assert_eq!((l.quantity, l.counted_by.as_str(), l.location_code.as_deref()), (97.0, "Piet", Some("A-01")));
    let kept = get(&store, &s.id).unwrap();
    assert_eq!(kept.lines.len(), 2);
}

#[test]
fn the_review_lists_what_the_copy_expects_there_and_what_was_counted() {
    let (_dir, store) = store();
    let s = location_count(&store);
    add_line(&store, &s.id, line(BOLT, 98.0), "Jan", NOW).unwrap();
    add_line(&store, &s.id, line(PLATE, 2.0), "Jan", NOW).unwrap();
    let s = get(&store, &s.id).unwrap();
    let page = review(&store, &s, &[], ReviewFilter::All, 0, 100).unwrap();
    assert_eq!((page.total, page.counted, page.not_counted, page.differences), (3, 2, 1, 2));
    let codes: Vec<&str> = page.rows.iter().map(|r| r.item_code.as_str()).collect();
    assert_eq!(codes, ["BOLT-M8", "NUT-M8", "PLATE-2"], "location B and the zero line are not expected here");
    let bolt = &page.rows[0];
    assert_eq!((bolt.expected, bolt.counted, bolt.difference, bolt.value), (100.0, Some(98.0), Some(-2.0), Some(-1.0)));
    let plate = &page.rows[2];
    assert_eq!(
        (plate.expected, plate.difference, plate.value),
        (0.0, Some(2.0), Some(24.0)),
        "counted where not expected"
    );
    assert_eq!(page.rows[1].counted, None);
    assert_eq!(page.rows[1].cost_price, Some(0.1), "an uncounted row shows its price");
    assert!((page.value_difference - 23.0).abs() < 1e-9);
    let differences = review(&store, &s, &[], ReviewFilter::Differences, 0, 100).unwrap();
    assert_eq!(differences.matching, 3, "two differences and the nut not counted");
    let page2 = review(&store, &s, &[], ReviewFilter::All, 1, 1).unwrap();
    assert_eq!((page2.rows.len(), page2.rows[0].item_code.as_str(), page2.total), (1, "NUT-M8", 3));
}

#[test]
fn a_warehouse_without_locations_counts_lines_without_one() {
    let (_dir, store) = store();
    let body: CountStart = serde_json::from_value(json!({
        "kind": "warehouse", "warehouse": WH_FLAT, "warehouseCode": "2", "usesLocations": false
    }))
    .unwrap();
    let s = start(&store, body, "Els", NOW).unwrap();
    let mut at = line(BOLT, 31.0);
    at.location = Some(LOC_A.into());
    let err = add_line(&store, &s.id, at, "Jan", NOW).err().expect("refused");
    assert!(message(err).contains("Warehouse 2 does not use storage locations"));
    add_line(&store, &s.id, line(BOLT, 31.0), "Jan", NOW).unwrap();
    let s = get(&store, &s.id).unwrap();
    let page = review(&store, &s, &[], ReviewFilter::All, 0, 10).unwrap();
    assert_eq!(
        (page.rows[0].expected, page.rows[0].difference, page.rows[0].location.clone()),
        (30.0, Some(1.0), None)
    );
    let body = stock_count_body(&s, SendMode::Draft).unwrap();
    assert_eq!(body["StockCountLines"], json!([{"Item": BOLT, "QuantityNew": 31.0}]), "no StorageLocation");
    // and a location count is refused there at the start
    let body: CountStart = serde_json::from_value(json!({
        "kind": "location", "warehouse": WH_FLAT, "warehouseCode": "2", "usesLocations": false, "location": LOC_A
    }))
    .unwrap();
    assert!(message(start(&store, body, "Els", NOW).err().unwrap()).contains("count the warehouse instead"));
}

#[test]
fn a_group_or_list_count_takes_only_its_items() {
    let (_dir, store) = store();
    let group: CountStart = serde_json::from_value(json!({
        "kind": "itemGroup", "warehouse": WH, "warehouseCode": "1", "usesLocations": true,
        "itemGroup": GROUP.to_uppercase(), "itemGroupCode": "FASTENERS"
    }))
    .unwrap();
    let s = start(&store, group, "Els", NOW).unwrap();
    let err = add_line(&store, &s.id, line(PLATE, 1.0), "Jan", NOW).err().unwrap();
    assert!(message(err).contains("PLATE-2 is not in item group FASTENERS"));
    let err = add_line(&store, &s.id, line(SERIAL, 1.0), "Jan", NOW).err().unwrap();
    let said = message(err);
    assert!(said.contains("PUMP-1 is not in item group FASTENERS"), "{said}");
    let mut bolt = line(BOLT, 100.0);
    bolt.location = Some(LOC_A.into());
    bolt.location_code = Some("A-01".into());
    add_line(&store, &s.id, bolt, "Jan", NOW).unwrap();
    let s = get(&store, &s.id).unwrap();
    let page = review(&store, &s, &[], ReviewFilter::All, 0, 10).unwrap();
    let codes: Vec<&str> = page.rows.iter().map(|r| r.item_code.as_str()).collect();
    assert_eq!(codes, ["BOLT-M8", "NUT-M8"], "the group's items in the warehouse");

    let list: CountStart = serde_json::from_value(json!({
        "kind": "items", "warehouse": WH, "warehouseCode": "1", "usesLocations": true, "items": [NUT, NUT]
    }))
    .unwrap();
    let s = start(&store, list, "Els", NOW).unwrap();
    assert_eq!(s.scope.items, [NUT], "named once");
    assert!(
        message(add_line(&store, &s.id, line(BOLT, 1.0), "Jan", NOW).err().unwrap()).contains("not one of the items")
    );
    // in a warehouse with storage locations, a line says at which one
    let err = add_line(&store, &s.id, line(NUT, 1.0), "Jan", NOW).err().unwrap();
    assert!(message(err).contains("Warehouse 1 keeps its stock at storage locations: say at which one NUT-M8"));
}

#[test]
fn a_sent_count_takes_no_more_lines_and_is_sent_once() {
    let (_dir, store) = store();
    let s = location_count(&store);
    let err = send(&store, &s.id, SendMode::Draft, "Els", NOW, |_| panic!("nothing to send")).err().unwrap();
    assert_eq!(err.code(), Code::EmptyPayload);
    add_line(&store, &s.id, line(BOLT, 98.0), "Jan", NOW).unwrap();
    let actor = Actor { user: "u-1".into(), user_name: "els".into() };
    let mut queued = Vec::new();
    let (sent, new) = send(&store, &s.id, SendMode::Process, "Els", NOW, |body| {
        queued.push(body.clone());
        let mut entries = actions::stock_count(&actor, body).map_err(AppError::from)?;
        for (i, e) in entries.iter_mut().enumerate() {
            e.id = i as u64 + 1;
        }
        Ok(entries)
    })
    .unwrap();
    assert!(new);
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0]["Warehouse"], WH);
    assert_eq!(queued[0]["Description"], "Rack A");
    assert_eq!(queued[0]["process"], true);
    assert_eq!(queued[0]["StockCountLines"], json!([{"Item": BOLT, "QuantityNew": 98.0, "StorageLocation": LOC_A}]));
    let kept = sent.sent.clone().unwrap();
    assert_eq!(kept.entries, [1, 2], "the count and its processing");
    assert_eq!(sent.lines[0].expected_when_sent, Some(100.0), "what the copy expected, kept");
    // once the count is the stock, the review still shows what was expected when it was sent
    let at = json!({"ID": "00000000-0000-4000-8000-000000000001", "Item": BOLT, "ItemCode": "BOLT-M8", "Warehouse": WH,
                    "StorageLocation": LOC_A, "StorageLocationCode": "A-01", "Stock": 98.0, "Timestamp": "2"});
    store.apply_batch("storageLocationStockPositions", vec![at], Some(2), Commit::Durable).unwrap();
    let page = review(&store, &get(&store, &s.id).unwrap(), &[], ReviewFilter::Counted, 0, 10).unwrap();
    assert_eq!((page.rows[0].expected, page.rows[0].difference), (100.0, Some(-2.0)));
    let (_, again) = send(&store, &s.id, SendMode::Process, "Els", NOW, |_| panic!("sent twice")).unwrap();
    assert!(!again);
    assert_eq!(add_line(&store, &s.id, line(NUT, 1.0), "Jan", NOW).err().unwrap().code(), Code::CountClosed);
    let sending = |_: &CountSession| Ok(CountStatus::Sending);
    assert_eq!(
        remove(&store, &s.id, sending, |_| panic!("nothing to set aside")).err().unwrap().code(),
        Code::CountClosed
    );
    // the next count of the place shows this one as the last count
    let next = location_count(&store);
    let all = all(&store).unwrap();
    let page = review(&store, &next, &all, ReviewFilter::All, 0, 10).unwrap();
    let bolt = page.rows.iter().find(|r| r.item_code == "BOLT-M8").unwrap();
    assert_eq!(bolt.last_count.as_ref().map(|l| (l.quantity, l.by.as_str())), Some((98.0, "Jan")));
}

#[test]
fn where_a_sent_count_stands_follows_its_entries() {
    let (_dir, store) = store();
    let s = location_count(&store);
    add_line(&store, &s.id, line(BOLT, 1.0), "Jan", NOW).unwrap();
    let actor = Actor { user: "u-1".into(), user_name: "els".into() };
    let (s, _) = send(&store, &s.id, SendMode::Process, "Els", NOW, |body| {
        actions::stock_count(&actor, body).map_err(AppError::from)
    })
    .unwrap();
    let entry = |state: State, error: Option<&str>| {
        let mut e = actions::stock_count(&actor, &stock_count_body(&s, SendMode::Draft).unwrap()).unwrap().remove(0);
        e.state = state;
        e.error = error.map(String::from);
        Some(e)
    };
    assert_eq!(status(&s, &[entry(State::Pending, None), entry(State::Pending, None)]).0, CountStatus::Sending);
    assert_eq!(
        status(&s, &[entry(State::Failed, Some("Item: not found")), entry(State::Pending, None)]),
        (CountStatus::Refused, Some("Item: not found".into()))
    );
    assert_eq!(
        status(&s, &[entry(State::Delivered, None), entry(State::Failed, Some("No right"))]),
        (CountStatus::Draft, Some("No right".into())),
        "created as a draft, its processing refused"
    );
    assert_eq!(status(&s, &[entry(State::Delivered, None), entry(State::Delivered, None)]).0, CountStatus::Processed);
    assert_eq!(status(&s, &[None, None]).0, CountStatus::Processed, "delivered long ago");
    let draft = CountSession {
        sent: s.sent.clone().map(|mut x| {
            x.mode = SendMode::Draft;
            x
        }),
        ..s.clone()
    };
    assert_eq!(status(&draft, &[entry(State::Delivered, None)]).0, CountStatus::Draft);
    assert_eq!(
        reopen(&store, &s.id, |_| Ok(CountStatus::Draft), |_| panic!("not refused")).err().unwrap().code(),
        Code::CountClosed,
        "only a refused count reopens"
    );
    let mut set_aside = Vec::new();
    let reopened = reopen(
        &store,
        &s.id,
        |_| Ok(CountStatus::Refused),
        |e| {
            set_aside.extend_from_slice(e);
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(status(&reopened, &[]).0, CountStatus::Counting);
    assert_eq!(set_aside.len(), 2, "the count's and its processing's entries");
    assert!(reopened.lines.iter().all(|l| l.expected_when_sent.is_none()));
}

#[test]
fn bad_starts_and_lines_are_refused_with_what_is_wrong() {
    let (_dir, store) = store();
    let start_with = |v: Value| serde_json::from_value::<CountStart>(v).map(|b| start(&store, b, "Els", NOW));
    let bad =
        start_with(json!({"kind": "warehouse", "warehouse": "nope", "warehouseCode": "1", "usesLocations": true}));
    assert!(message(bad.unwrap().err().unwrap()).contains("'warehouse' must be a GUID"));
    let bad =
        start_with(json!({"kind": "items", "warehouse": WH, "warehouseCode": "1", "usesLocations": true, "items": []}));
    assert!(message(bad.unwrap().err().unwrap()).contains("'items' must list 1 to 1000 items"));
    assert!(
        start_with(json!({"kind": "shelf", "warehouse": WH, "warehouseCode": "1", "usesLocations": true})).is_err()
    );
    let s = location_count(&store);
    for q in [-1.0, f64::NAN, f64::INFINITY] {
        assert_eq!(add_line(&store, &s.id, line(BOLT, q), "Jan", NOW).err().unwrap().code(), Code::BadRequest);
    }
    let unknown = "00000000-0000-4000-8000-0000000000ee";
    assert!(
        message(add_line(&store, &s.id, line(unknown, 1.0), "Jan", NOW).err().unwrap())
            .contains("not in the local copy")
    );
    assert_eq!(get(&store, "../etc").err().unwrap().code(), Code::NotFound);
    assert_eq!(get(&store, unknown).err().unwrap().code(), Code::NotFound);
}

#[test]
fn a_tracked_item_is_counted_with_its_numbers_and_sent_with_them() {
    let (_dir, store) = store();
    let s = location_count(&store);
    let with_serials =
        |numbers: Value, quantity: f64| CountLineBody { serial_numbers: Some(numbers), ..line(SERIAL, quantity) };
    // without numbers, too few, or twice: refused, saying what it needs
    let err = add_line(&store, &s.id, line(SERIAL, 2.0), "Jan", NOW).err().unwrap();
    assert_eq!(message(err), "PUMP-1 is tracked by serial number: give one serial number per unit counted");
    let err = add_line(&store, &s.id, with_serials(json!([{"SerialNumber": "P-1"}]), 2.0), "Jan", NOW).err().unwrap();
    let said = message(err);
    assert!(said.contains("one serial number per unit"), "{said}");
    let twice = json!([{"SerialNumber": "P-1"}, {"SerialNumber": "p-1"}]);
    assert!(add_line(&store, &s.id, with_serials(twice, 2.0), "Jan", NOW).is_err());
    // numbers for an untracked item are no count of it
    let bolt = CountLineBody { serial_numbers: Some(json!([{"SerialNumber": "X"}])), ..line(BOLT, 1.0) };
    let err = add_line(&store, &s.id, bolt, "Jan", NOW).err().unwrap();
    let said = message(err);
    assert!(said.contains("BOLT-M8 is not tracked by serial or batch number"), "{said}");

    let two = json!([{"SerialNumber": "P-1"}, {"SerialNumber": "P-2"}]);
    let Added::New(first) = add_line(&store, &s.id, with_serials(two, 2.0), "Jan", NOW).unwrap() else {
        panic!("a new line")
    };
    assert_eq!(first.serial_numbers, ["P-1", "P-2"]);
    // the same numbers in another order and case are the same count; other numbers ask
    let again = json!([{"SerialNumber": "p-2"}, {"SerialNumber": "P-1"}]);
    assert!(matches!(add_line(&store, &s.id, with_serials(again, 2.0), "Piet", NOW).unwrap(), Added::Same(_)));
    let other = json!([{"SerialNumber": "P-1"}, {"SerialNumber": "P-3"}]);
    let err = add_line(&store, &s.id, with_serials(other.clone(), 2.0), "Piet", NOW).err().unwrap();
    assert_eq!(err.code(), Code::CountConflict);
    let replaced = CountLineBody { replace: true, ..with_serials(other, 2.0) };
    let Added::Replaced(line) = add_line(&store, &s.id, replaced, "Piet", NOW).unwrap() else { panic!("replaced") };
    assert_eq!(line.serial_numbers, ["P-1", "P-3"]);

    let s = get(&store, &s.id).unwrap();
    let body = stock_count_body(&s, SendMode::Draft).unwrap();
    assert_eq!(
        body["StockCountLines"],
        json!([{"Item": SERIAL, "QuantityNew": 2.0, "StorageLocation": LOC_A,
                "SerialNumbers": [{"SerialNumber": "P-1"}, {"SerialNumber": "P-3"}]}])
    );
}

#[test]
fn none_of_a_tracked_item_is_refused_as_exact_refuses_it() {
    let (_dir, store) = store();
    let s = location_count(&store);
    let err = add_line(&store, &s.id, line(SERIAL, 0.0), "Jan", NOW).err().unwrap();
    assert_eq!(err.code(), Code::BadRequest);
    assert!(message(err).starts_with("PUMP-1 is tracked by serial number"));
}
