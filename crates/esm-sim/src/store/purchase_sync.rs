//! `sync/PurchaseOrder/PurchaseOrders`: purchase orders and their lines in one stream (reference
//! §6.2, §9.x), a copy derived from `purchaseorder/PurchaseOrders` and
//! `purchaseorder/PurchaseOrderLines` that the store keeps in step on every change to either.
//!
//! An order has a row keyed by its `PurchaseOrderID` with `LineNumber` 0 and the header's fields;
//! each of its lines a row keyed by the line's `ID` with the line's fields and, for the names the
//! line has not, the header's. A change to the header or to any line gives all rows of the order
//! fresh Timestamps (only the changed rows are built again). Lines of an order that does not exist
//! (yet: the demo writes lines before their header) have no rows. Removing derived rows is never
//! logged in `sync/Deleted`: Exact logs the deleted order once, as the regular table's delete does.

use crate::store::{Division, Layout, Row, layout};
use crate::value::Val;
use std::sync::OnceLock;

/// The derived table (and the path it is served at).
pub const TABLE: &str = "sync/PurchaseOrder/PurchaseOrders";
pub const ORDERS: &str = "purchaseorder/PurchaseOrders";
pub const LINES: &str = "purchaseorder/PurchaseOrderLines";

/// What a change to a row means for the derived rows, seen before the change is made.
#[derive(Clone, Copy)]
pub(crate) enum Source {
    /// Not a purchase order or line.
    Other,
    Order,
    /// A line, with the order it belonged to before the change.
    Line(Option<u128>),
}

/// Which rows of an order to build again (the others only get new Timestamps).
#[derive(Clone, Copy, PartialEq)]
enum Rebuild {
    All,
    Line(u128),
    Missing,
}

/// Column maps from the source tables into the derived one.
struct Maps {
    /// Header column -> derived column, for the header's own row.
    header: Vec<Option<u16>>,
    /// Header column -> derived column, for a line's row: the names the line has not.
    header_on_line: Vec<Option<u16>>,
    /// Line column -> derived column.
    line: Vec<Option<u16>>,
    /// `PurchaseOrderID` in the lines table.
    line_order: u16,
    id: u16,
    line_number: u16,
    timestamp: u16,
}

fn maps() -> Option<&'static Maps> {
    static M: OnceLock<Option<Maps>> = OnceLock::new();
    M.get_or_init(|| {
        let (sync, orders, lines) = (layout(TABLE)?, layout(ORDERS)?, layout(LINES)?);
        // Timestamp is the derived row's own; the header's `ID` column is unused (its key is
        // PurchaseOrderID), the derived header row's ID is set to the order's.
        let map = |from: &Layout, keep: &dyn Fn(&str) -> bool| -> Vec<Option<u16>> {
            from.cols.iter().map(|c| if *c != "Timestamp" && keep(c) { sync.col(c) } else { None }).collect()
        };
        Some(Maps {
            header: map(orders, &|c| c != "ID"),
            header_on_line: map(orders, &|c| c != "ID" && lines.col(c).is_none()),
            line: map(lines, &|c| c != "ID"),
            line_order: lines.col("PurchaseOrderID")?,
            id: sync.col("ID")?,
            line_number: sync.col("LineNumber")?,
            timestamp: sync.col("Timestamp")?,
        })
    })
    .as_ref()
}

/// Look at a row about to change (or go).
pub(crate) fn source(d: &Division, table: &str, key: u128) -> Source {
    match table {
        ORDERS => Source::Order,
        LINES => Source::Line(order_of_line(d, key)),
        _ => Source::Other,
    }
}

fn order_of_line(d: &Division, line: u128) -> Option<u128> {
    let m = maps()?;
    d.table(LINES)?.get(line)?.get(m.line_order).as_guid()
}

/// A row was inserted or changed.
pub(crate) fn changed(d: &mut Division, key: u128, src: Source) {
    match src {
        Source::Other => {}
        Source::Order => refresh(d, key, Rebuild::All),
        Source::Line(was) => {
            let now = order_of_line(d, key);
            if was != now {
                if let Some(was) = was {
                    leave(d, was, key);
                }
                if let Some(now) = now {
                    d.purchase_lines.entry(now).or_default().push(key);
                }
            }
            if let Some(now) = now {
                refresh(d, now, Rebuild::Line(key));
            }
        }
    }
}

/// A row was removed.
pub(crate) fn removed(d: &mut Division, key: u128, src: Source) {
    match src {
        Source::Other => {}
        // Its lines stay indexed: they are still in their table (and come back with the order).
        Source::Order => refresh(d, key, Rebuild::Missing),
        Source::Line(Some(order)) => leave(d, order, key),
        Source::Line(None) => {}
    }
}

/// A line leaves an order: its row goes, the order's other rows are stamped again.
fn leave(d: &mut Division, order: u128, line: u128) {
    if let Some(lines) = d.purchase_lines.get_mut(&order) {
        lines.retain(|l| *l != line);
        if lines.is_empty() {
            d.purchase_lines.remove(&order);
        }
    }
    if let Some(t) = d.tables.get_mut(TABLE) {
        t.take(line);
    }
    refresh(d, order, Rebuild::Missing);
}

/// Give every row of an order a fresh Timestamp, building `rebuild` (and any missing row) anew;
/// an order without header has no rows.
fn refresh(d: &mut Division, order: u128, rebuild: Rebuild) {
    let Some(m) = maps() else { return };
    let no_lines: &[u128] = &[];
    let exists = d.table(ORDERS).is_some_and(|t| t.get(order).is_some());
    if !exists {
        let lines = d.purchase_lines.get(&order).map_or(no_lines, Vec::as_slice);
        if let Some(t) = d.tables.get_mut(TABLE) {
            t.take(order);
            for l in lines {
                t.take(*l);
            }
        }
        return;
    }
    let n = 1 + d.purchase_lines.get(&order).map_or(0, Vec::len);
    let mut ts = d.reserve_timestamps(n);
    let (Some(orders), Some(lines), Some(sync)) = (d.table(ORDERS), d.table(LINES), d.table(TABLE)) else {
        return;
    };
    let Some(header) = orders.get(order) else { return };
    let line_keys = d.purchase_lines.get(&order).map_or(no_lines, Vec::as_slice);
    let fresh = |key: u128| rebuild == Rebuild::All || rebuild == Rebuild::Line(key) || sync.get(key).is_none();
    let mut plan: Vec<(u128, i64, Option<Row>)> = Vec::with_capacity(n);
    plan.push((order, ts, fresh(order).then(|| header_row(m, header, order, ts))));
    for &l in line_keys {
        ts += 1;
        let Some(line) = lines.get(l) else { continue };
        plan.push((l, ts, fresh(l).then(|| line_row(m, header, line, l, ts))));
    }
    let Some(sync) = d.tables.get_mut(TABLE) else { return };
    for (key, ts, row) in plan {
        match row {
            Some(row) => sync.put(key, row),
            None => {
                sync.restamp(key, ts);
            }
        }
    }
}

fn finish(mut cells: Vec<(u16, Val)>) -> Row {
    cells.sort_unstable_by_key(|(c, _)| *c);
    cells.shrink_to_fit();
    Row(cells)
}

/// The header's row: its fields, `ID` = the order, `LineNumber` 0, the lines' fields null.
fn header_row(m: &Maps, header: &Row, order: u128, ts: i64) -> Row {
    let mut cells = Vec::with_capacity(header.0.len() + 3);
    cells.extend(header.0.iter().filter_map(|(c, v)| Some((m.header[*c as usize]?, v.clone()))));
    cells.extend([(m.id, Val::guid(order)), (m.line_number, Val::Int(0)), (m.timestamp, Val::Int(ts))]);
    finish(cells)
}

/// A line's row: its own fields (its value wins for a name the header has too) and the header's.
fn line_row(m: &Maps, header: &Row, line: &Row, key: u128, ts: i64) -> Row {
    let mut cells = Vec::with_capacity(header.0.len() + line.0.len() + 2);
    cells.extend(line.0.iter().filter_map(|(c, v)| Some((m.line[*c as usize]?, v.clone()))));
    cells.extend(header.0.iter().filter_map(|(c, v)| Some((m.header_on_line[*c as usize]?, v.clone()))));
    cells.extend([(m.id, Val::guid(key)), (m.timestamp, Val::Int(ts))]);
    finish(cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::DELETED;

    const ORDER: u128 = 0x0a;
    const LINE1: u128 = 0x11;
    const LINE2: u128 = 0x12;

    fn get(d: &Division, key: u128, field: &str) -> Val {
        d.table(TABLE).expect("derived table").value(key, field)
    }

    fn ts(d: &Division, key: u128) -> i64 {
        get(d, key, "Timestamp").as_i64().expect("a Timestamp")
    }

    fn line(d: &mut Division, key: u128, n: i64, item: &str) {
        d.upsert(
            LINES,
            key,
            &[
                ("PurchaseOrderID", Val::guid(ORDER)),
                ("LineNumber", Val::Int(n)),
                ("ItemCode", Val::str(item)),
                ("Description", Val::str(&format!("line {n}"))),
                ("QuantityInPurchaseUnits", Val::Dbl(10.0)),
                ("ReceivedQuantity", Val::Dbl(0.0)),
                ("AmountDC", Val::Dbl(n as f64 * 100.0)),
            ],
        );
    }

    fn order_with_two_lines() -> Division {
        let mut d = Division::new(7);
        // as the demo writes them: the lines first, then their header
        line(&mut d, LINE1, 1, "P-1");
        line(&mut d, LINE2, 2, "P-2");
        assert!(d.table(TABLE).expect("derived table").is_empty(), "no rows before the order exists");
        d.upsert(
            ORDERS,
            ORDER,
            &[
                ("OrderNumber", Val::Int(40_001)),
                ("SupplierCode", Val::str("S-1")),
                ("Description", Val::str("Inkoop S-1")),
                ("ReceiptStatus", Val::Int(10)),
                ("AmountDC", Val::Dbl(300.0)),
                ("PurchaseOrderLineCount", Val::Int(2)),
            ],
        );
        d
    }

    #[test]
    fn an_order_and_its_lines_are_one_stream_restamped_together() {
        let mut d = order_with_two_lines();
        let t = d.table(TABLE).expect("derived table");
        assert_eq!(t.len(), 3);
        assert_eq!(t.by_ts.len(), 3);
        // the header's row
        assert_eq!(get(&d, ORDER, "ID"), Val::guid(ORDER));
        assert_eq!(get(&d, ORDER, "PurchaseOrderID"), Val::guid(ORDER));
        assert_eq!(get(&d, ORDER, "LineNumber"), Val::Int(0));
        assert_eq!(get(&d, ORDER, "OrderNumber"), Val::Int(40_001));
        assert_eq!(get(&d, ORDER, "Description"), Val::str("Inkoop S-1"));
        assert_eq!(get(&d, ORDER, "AmountDC"), Val::Dbl(300.0));
        assert_eq!(get(&d, ORDER, "ItemCode"), Val::Null, "line fields are null on the header's row");
        assert_eq!(get(&d, ORDER, "ReceivedQuantity"), Val::Null);
        // the lines' rows: their own fields, the header's, the line's value for a shared name
        for (key, n, item) in [(LINE1, 1, "P-1"), (LINE2, 2, "P-2")] {
            assert_eq!(get(&d, key, "ID"), Val::guid(key));
            assert_eq!(get(&d, key, "PurchaseOrderID"), Val::guid(ORDER));
            assert_eq!(get(&d, key, "LineNumber"), Val::Int(n));
            assert_eq!(get(&d, key, "ItemCode"), Val::str(item));
            assert_eq!(get(&d, key, "OrderNumber"), Val::Int(40_001));
            assert_eq!(get(&d, key, "SupplierCode"), Val::str("S-1"));
            assert_eq!(get(&d, key, "ReceiptStatus"), Val::Int(10));
            assert_eq!(get(&d, key, "Description"), Val::str(&format!("line {n}")));
            assert_eq!(get(&d, key, "AmountDC"), Val::Dbl(n as f64 * 100.0));
        }
        // the regular tables are as they were written
        assert_eq!(d.table(ORDERS).expect("orders").value(ORDER, "PurchaseOrderLineCount"), Val::Int(2));
        assert_eq!(d.table(LINES).expect("lines").len(), 2);

        // a line received: the header and both lines come again, after everything before
        let before = d.last_timestamp();
        let old = [ts(&d, ORDER), ts(&d, LINE1), ts(&d, LINE2)];
        assert!(d.add(LINES, LINE1, "ReceivedQuantity", 4.0));
        let new = [ts(&d, ORDER), ts(&d, LINE1), ts(&d, LINE2)];
        for (o, n) in old.iter().zip(&new) {
            assert!(n > o && *n > before, "{old:?} -> {new:?} (highest before: {before})");
        }
        assert_eq!(get(&d, LINE1, "ReceivedQuantity"), Val::Dbl(4.0));
        assert_eq!(d.table(TABLE).expect("derived table").by_ts.len(), 3, "old Timestamps are gone");

        // a header change reaches the lines' rows
        d.update(ORDERS, ORDER, &[("ReceiptStatus", Val::Int(20))]);
        assert_eq!(get(&d, LINE2, "ReceiptStatus"), Val::Int(20));
        assert!(ts(&d, LINE2) > new[2]);

        // a line deleted: its row goes, the others are stamped again, nothing is logged
        let before = [ts(&d, ORDER), ts(&d, LINE1)];
        assert!(d.delete(LINES, LINE2));
        let t = d.table(TABLE).expect("derived table");
        assert!(t.get(LINE2).is_none());
        assert_eq!((t.len(), t.by_ts.len()), (2, 2));
        assert!(ts(&d, ORDER) > before[0] && ts(&d, LINE1) > before[1]);
        assert!(d.table(DELETED).expect("deleted").is_empty(), "a line's delete is not logged");

        // the order deleted: all its rows go, logged once as a purchase order
        assert!(d.delete(LINES, LINE1));
        assert!(d.delete(ORDERS, ORDER));
        let t = d.table(TABLE).expect("derived table");
        assert!(t.is_empty() && t.by_ts.is_empty());
        let del = d.table(DELETED).expect("deleted");
        assert_eq!(del.len(), 1);
        let (k, _) = del.rows.iter().next().expect("a log row");
        assert_eq!(del.value(*k, "EntityType"), Val::Int(22));
        assert_eq!(del.value(*k, "EntityKey"), Val::guid(ORDER));
        assert!(d.purchase_lines.is_empty());
    }

    #[test]
    fn an_order_deleted_before_its_lines_takes_their_rows_and_a_moved_line_follows_its_order() {
        let mut d = order_with_two_lines();
        assert!(d.delete(ORDERS, ORDER));
        assert!(d.table(TABLE).expect("derived table").is_empty());
        assert_eq!(d.table(DELETED).expect("deleted").len(), 1, "only the order is logged");
        // the lines are still there: the order written again brings back all three rows
        d.upsert(ORDERS, ORDER, &[("OrderNumber", Val::Int(40_001))]);
        assert_eq!(d.table(TABLE).expect("derived table").len(), 3);

        // a line moved to another order
        const OTHER: u128 = 0x0b;
        d.upsert(ORDERS, OTHER, &[("OrderNumber", Val::Int(40_002))]);
        let (order_ts, other_ts) = (ts(&d, ORDER), ts(&d, OTHER));
        assert!(d.update(LINES, LINE2, &[("PurchaseOrderID", Val::guid(OTHER))]));
        assert_eq!(get(&d, LINE2, "OrderNumber"), Val::Int(40_002));
        assert!(ts(&d, ORDER) > order_ts, "the order it left is stamped again");
        assert!(ts(&d, OTHER) > other_ts, "the order it joined too");
        assert_eq!(d.purchase_lines.get(&ORDER), Some(&vec![LINE1]));
        assert_eq!(d.purchase_lines.get(&OTHER), Some(&vec![LINE2]));
        assert_eq!(d.table(TABLE).expect("derived table").len(), 4);
        assert_eq!(d.table(DELETED).expect("deleted").len(), 1);
    }

    /// The derived rows are what the sources make now (Timestamps aside), each once in `by_ts`,
    /// and the index names every line under its order.
    fn assert_in_step(d: &Division) {
        let m = maps().expect("maps");
        let (orders, lines, sync) =
            (d.table(ORDERS).expect("orders"), d.table(LINES).expect("lines"), d.table(TABLE).expect("derived"));
        let without_ts = |r: &Row| Row(r.0.iter().filter(|(c, _)| *c != m.timestamp).cloned().collect());
        let mut expected = std::collections::BTreeMap::new();
        let mut indexed = 0;
        for (k, h) in &orders.rows {
            expected.insert(*k, without_ts(&header_row(m, h, *k, 0)));
        }
        for (k, l) in &lines.rows {
            let Some(order) = l.get(m.line_order).as_guid() else { continue };
            assert!(d.purchase_lines.get(&order).is_some_and(|ls| ls.contains(k)), "line {k:x} indexed");
            indexed += 1;
            if let Some(h) = orders.get(order) {
                expected.insert(*k, without_ts(&line_row(m, h, l, *k, 0)));
            }
        }
        assert_eq!(d.purchase_lines.values().map(Vec::len).sum::<usize>(), indexed, "no stale index entries");
        let got: std::collections::BTreeMap<u128, Row> = sync.rows.iter().map(|(k, r)| (*k, without_ts(r))).collect();
        assert_eq!(got.len(), expected.len());
        assert!(got == expected, "the derived rows follow their sources");
        assert_eq!(sync.by_ts.len(), sync.len());
        for (ts, k) in &sync.by_ts {
            assert_eq!(sync.value(*k, "Timestamp"), Val::Int(*ts));
        }
    }

    #[test]
    fn the_demo_and_every_write_keep_the_stream_in_step() {
        use crate::generate::{Scale, generate};
        use serde_json::{Value as J, json};
        let world = generate(Scale::Small, 42, 1_773_136_805_000, "http://sim");
        for d in &world.data {
            assert!(d.table(TABLE).expect("derived").len() > d.table(ORDERS).expect("orders").len(), "{}", d.code);
            assert_in_step(d);
        }
        let mut d = world.data.into_iter().next().expect("a division");
        let send = |d: &mut Division, path: &str, method: &str, key: Option<u128>, body: J| {
            let key = key.map(|k| format!("guid'{}'", uuid::Uuid::from_u128(k)));
            let e = esm_exact::schema::entity(path).expect("entity");
            crate::writes::apply(d, e, method, key.as_deref(), body.to_string().as_bytes())
        };
        let g = |k: u128| uuid::Uuid::from_u128(k).to_string();
        let first = |d: &Division, t: &str| d.table(t).and_then(|t| t.rows.keys().next().copied()).expect("rows");
        let (item, supplier, wh) =
            (first(&d, crate::stock::ITEMS), first(&d, "crm/Accounts"), first(&d, crate::stock::WAREHOUSES));
        let body = json!({"Supplier": g(supplier), "Warehouse": g(wh), "OrderDate": "2026-03-10", "Description": "kop",
            "PurchaseOrderLines": [{"Item": g(item), "QuantityInPurchaseUnits": 4}, {"Item": g(item), "QuantityInPurchaseUnits": 2}]});
        let po = send(&mut d, ORDERS, "POST", None, body).expect("created").expect("a key");
        assert_in_step(&d);
        let mine: Vec<u128> = d.purchase_lines[&po].clone();
        assert_eq!(mine.len(), 2);
        assert_eq!(get(&d, po, "LineNumber"), Val::Int(0));
        send(&mut d, LINES, "PUT", Some(mine[0]), json!({"QuantityInPurchaseUnits": 5})).expect("put line");
        assert_in_step(&d);
        send(&mut d, ORDERS, "PUT", Some(po), json!({"Description": "kop 2"})).expect("put order");
        assert_eq!(get(&d, mine[1], "Description"), Val::Null, "a line's own (empty) Description wins");
        assert_eq!(get(&d, po, "Description"), Val::str("kop 2"));
        assert_in_step(&d);
        let added = send(
            &mut d,
            LINES,
            "POST",
            None,
            json!({"PurchaseOrderID": g(po), "Item": g(item), "QuantityInPurchaseUnits": 1}),
        )
        .expect("a line posted")
        .expect("a key");
        assert_eq!(d.purchase_lines[&po].len(), 3);
        assert_in_step(&d);
        // a line moved to another order of the demo
        let other = d.table(ORDERS).expect("orders").rows.keys().copied().find(|k| *k != po).expect("another order");
        send(&mut d, LINES, "PUT", Some(added), json!({"PurchaseOrderID": g(other)})).expect("moved");
        assert!(d.purchase_lines[&other].contains(&added) && !d.purchase_lines[&po].contains(&added));
        assert_in_step(&d);
        let receipt = json!({"ReceiptDate": "2026-03-10", "GoodsReceiptLines": [{"PurchaseOrderLineID": g(mine[1]), "QuantityReceived": 2}]});
        send(&mut d, "purchaseorder/GoodsReceipts", "POST", None, receipt).expect("received");
        assert_eq!(get(&d, mine[1], "ReceivedQuantity"), Val::Dbl(2.0));
        assert_eq!(get(&d, mine[0], "ReceiptStatus"), Val::Int(20), "one of two lines received: partial");
        assert_in_step(&d);
        let logged = d.table(DELETED).expect("deleted").len();
        send(&mut d, LINES, "DELETE", Some(mine[0]), J::Null).expect("line deleted");
        assert_in_step(&d);
        assert_eq!(d.table(DELETED).expect("deleted").len(), logged, "a line's delete is not logged");
        send(&mut d, ORDERS, "DELETE", Some(po), J::Null).expect("order deleted");
        assert_in_step(&d);
        assert!(!d.purchase_lines.contains_key(&po));
        let del = d.table(DELETED).expect("deleted");
        assert_eq!(del.len(), logged + 1, "the order is logged once");
        let last = *del.by_ts.values().next_back().expect("a log row");
        assert_eq!((del.value(last, "EntityType"), del.value(last, "EntityKey")), (Val::Int(22), Val::guid(po)));
        // the derived rows take no writes of their own
        let e = esm_exact::schema::entity(TABLE).expect("entity");
        assert!(crate::writes::remove(&mut d, e, other).is_err());
        assert!(!d.delete(TABLE, other) && !d.update(TABLE, other, &[("LineNumber", Val::Int(9))]));
        assert_in_step(&d);
    }

    /// One HTTP/1.1 exchange on a fresh connection: (status, head, body).
    async fn http(
        addr: std::net::SocketAddr,
        method: &str,
        target: &str,
        token: &str,
        body: &str,
    ) -> (u16, String, String) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
        let auth = if token.is_empty() { String::new() } else { format!("Authorization: Bearer {token}\r\n") };
        let kind =
            if target.starts_with("/api/oauth2") { "application/x-www-form-urlencoded" } else { "application/json" };
        let req = format!(
            "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nAccept: application/json\r\n{auth}\
             Content-Type: {kind}\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        s.write_all(req.as_bytes()).await.expect("send");
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).await.expect("answer");
        let text = String::from_utf8(buf).expect("utf-8");
        let (head, body) = text.split_once("\r\n\r\n").expect("head and body");
        let status = head.split(' ').nth(1).and_then(|c| c.parse().ok()).expect("status");
        let body = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
            let mut out = String::new();
            let mut rest = body;
            while let Some((size, after)) = rest.split_once("\r\n") {
                let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
                if n == 0 {
                    break;
                }
                out.push_str(&after[..n]);
                rest = &after[n + 2..];
            }
            out
        } else {
            body.to_string()
        };
        (status, head.to_string(), body)
    }

    /// Every row of the stream after `after`, following `__next`.
    async fn stream(
        addr: std::net::SocketAddr,
        base: &str,
        division: i32,
        token: &str,
        after: i64,
    ) -> Vec<serde_json::Value> {
        let select = "ID,PurchaseOrderID,LineNumber,ReceiptStatus,ReceivedQuantity,Timestamp";
        let mut target = Some(format!("/api/v1/{division}/{TABLE}?$select={select}&$filter=Timestamp%20gt%20{after}"));
        let mut rows = Vec::new();
        while let Some(t) = target.take() {
            let (status, _, body) = http(addr, "GET", &t, token, "").await;
            assert_eq!(status, 200, "GET {t}: {body}");
            let v: serde_json::Value = serde_json::from_str(&body).expect("json");
            rows.extend(v["d"]["results"].as_array().expect("results").iter().cloned());
            target = v["d"]["__next"].as_str().map(|n| n.trim_start_matches(base).to_string());
        }
        rows
    }

    fn timestamp(row: &serde_json::Value) -> i64 {
        row["Timestamp"].as_str().and_then(|t| t.parse().ok()).expect("an Int64 Timestamp")
    }

    #[actix_web::test]
    async fn the_stream_is_served_over_http_and_a_goods_receipt_brings_the_order_again() {
        use serde_json::{Value, json};
        use std::collections::BTreeSet;
        let opts = crate::SimOptions {
            rate_limits: false,
            start_ms: Some(1_773_136_805_000),
            workers: 1,
            ..Default::default()
        };
        let sim = crate::Simulator::start(opts).await.expect("simulator");
        let (addr, base) = (sim.addr(), sim.base_url().to_string());
        let h = sim.handle();
        let div = h.divisions()[0];

        // sign in as a browser would, then trade the code for a token
        let redirect = "http://localhost:9/callback";
        let form = format!("user=0&client_id=demo-client&redirect_uri={}&state=s1", urlencoding::encode(redirect));
        let (status, head, _) = http(addr, "POST", "/api/oauth2/auth", "", &form).await;
        assert_eq!(status, 302, "{head}");
        let location = head.lines().find_map(|l| l.strip_prefix("location: ")).expect("a redirect");
        let location = url::Url::parse(location).expect("url");
        let code = location.query_pairs().find(|(k, _)| k == "code").expect("code").1.into_owned();
        let form = format!(
            "grant_type=authorization_code&client_id=demo-client&client_secret=demo-secret&code={}&redirect_uri={}",
            urlencoding::encode(&code),
            urlencoding::encode(redirect)
        );
        let (status, _, body) = http(addr, "POST", "/api/oauth2/token", "", &form).await;
        assert_eq!(status, 200, "{body}");
        let token: Value = serde_json::from_str(&body).expect("token json");
        let token = token["access_token"].as_str().expect("an access token").to_string();

        // the first run: a row per order and per line, in Timestamp order
        let rows = stream(addr, &base, div, &token, 1).await;
        let (orders, lines) = {
            let d = h.0.data[0].read();
            (d.table(ORDERS).expect("orders").len(), d.table(LINES).expect("lines").len())
        };
        let key = |r: &Value, f: &str| r[f].as_str().expect("a guid").to_string();
        let headers: Vec<&Value> = rows.iter().filter(|r| r["LineNumber"] == 0).collect();
        assert_eq!((headers.len(), rows.len() - headers.len()), (orders, lines), "one row per order and per line");
        assert!(headers.iter().all(|r| key(r, "ID") == key(r, "PurchaseOrderID") && r["ReceivedQuantity"].is_null()));
        let order_ids: BTreeSet<String> = headers.iter().map(|r| key(r, "ID")).collect();
        assert!(rows.iter().all(|r| order_ids.contains(&key(r, "PurchaseOrderID"))), "every row names its order");
        let ts: Vec<i64> = rows.iter().map(timestamp).collect();
        assert!(ts.windows(2).all(|w| w[0] < w[1]), "ascending Timestamps");
        let highest = *ts.last().expect("rows");

        // an open order with two lines or more, the first of an untracked item
        let (order, line) = {
            let d = h.0.data[0].read();
            let items = d.table(crate::stock::ITEMS).expect("items");
            let tracked = |item: Option<u128>| {
                item.is_some_and(|i| {
                    ["IsSerialItem", "IsBatchItem"].iter().any(|f| items.value(i, f) == Val::Bool(true))
                })
            };
            let open = headers.iter().filter(|r| r["ReceiptStatus"] == 10).map(|r| key(r, "ID"));
            open.filter_map(|o| {
                let of: Vec<&Value> =
                    rows.iter().filter(|r| key(r, "PurchaseOrderID") == o && r["LineNumber"] != 0).collect();
                let first = of.iter().min_by_key(|r| r["LineNumber"].as_i64())?;
                let item = d.table(LINES)?.value(uuid::Uuid::parse_str(&key(first, "ID")).ok()?.as_u128(), "Item");
                (of.len() >= 2 && !tracked(item.as_guid())).then(|| (o.clone(), key(first, "ID")))
            })
            .next()
            .expect("an open order with two lines")
        };

        // a goods receipt of one unit on the first line
        let receipt = json!({"ReceiptDate": "2026-03-10", "GoodsReceiptLines": [{"PurchaseOrderLineID": line, "QuantityReceived": 1}]});
        let (status, _, body) =
            http(addr, "POST", &format!("/api/v1/{div}/purchaseorder/GoodsReceipts"), &token, &receipt.to_string())
                .await;
        assert_eq!(status, 201, "{body}");

        // the next run: the order's rows again, and only those, with what the receipt changed
        let again = stream(addr, &base, div, &token, highest).await;
        let expected: BTreeSet<String> =
            rows.iter().filter(|r| key(r, "PurchaseOrderID") == order).map(|r| key(r, "ID")).collect();
        assert_eq!(again.iter().map(|r| key(r, "ID")).collect::<BTreeSet<_>>(), expected);
        assert!(again.iter().all(|r| timestamp(r) > highest && r["ReceiptStatus"] == 20), "{again:?}");
        let received = again.iter().find(|r| key(r, "ID") == line).expect("the received line");
        assert_eq!(received["ReceivedQuantity"], 1.0);
        sim.stop().await;
    }
}
