//! Serial numbers on goods receipt labels: the simulator keeps a receipt line's serial numbers as
//! Exact does (its `SerialNumbers` collection, expanded inline on request, accepted in a POST),
//! and a serial item's receipt prints one label per serial number with the number on it, read
//! back from the PDF with `pdftotext` and its barcodes with `zbarimg`; other lines print as before.

use crate::labels::{field_text, page_texts, pdf_to_pngs, tool, zbar_decode};
use crate::provider::World;
use crate::sim::{DIV, Sim};
use esm_sim::SimOptions;
use serde_json::{Value, json};

/// A purchase order line of an item that is (or is not) tracked by serial number.
fn po_line(items: &[Value], lines: &[Value], serial: bool) -> Value {
    lines
        .iter()
        .find(|l| {
            let item = items.iter().find(|i| i["ID"] == l["Item"]).expect("the line's item");
            item["IsSerialItem"] == serial && !field_text(item, "Code").contains("ZV")
        })
        .cloned()
        .expect("a purchase order line")
}

/// The serial numbers printed on a page: the word after each "S/N".
fn serials_on(page: &str) -> Vec<String> {
    let words: Vec<&str> = page.split(' ').collect();
    words.windows(2).filter(|w| w[0] == "S/N").map(|w| w[1].to_string()).collect()
}

/// Every barcode of a PDF, sorted; `None` when the readers are not installed.
fn decode_pdf(pdf: &[u8]) -> Option<Vec<String>> {
    let (Some(pdftoppm), Some(zbarimg)) = (tool("pdftoppm"), tool("zbarimg")) else { return None };
    let dir = tempfile::tempdir().expect("temp dir");
    let mut codes: Vec<String> =
        pdf_to_pngs(&pdftoppm, pdf, dir.path()).iter().flat_map(|png| zbar_decode(&zbarimg, png)).collect();
    codes.sort();
    Some(codes)
}

#[actix_web::test]
async fn receipt_lines_carry_their_serial_numbers_as_exact_does() {
    let s = Sim::start().await;
    let h = s.h();
    let serials = h.rows(DIV, "inventory/StockSerialNumbers").expect("serial numbers");
    let received = serials.iter().find(|r| r["StockTransactionType"] == 130);
    let line =
        field_text(received.expect("the demo receipts of serial items have serial numbers"), "StockTransactionID");
    let mine: Vec<&Value> = serials.iter().filter(|r| field_text(r, "StockTransactionID") == line).collect();
    let filter = format!("$filter=ID eq guid'{line}'");

    let page = s.json(&format!("purchaseorder/GoodsReceiptLines?$select=ID,ItemCode,QuantityReceived,SerialNumbers&$expand=SerialNumbers&{filter}")).await;
    let row = &page["d"]["results"][0];
    let expanded = row["SerialNumbers"]["results"].as_array().expect("inline, in the provider's envelope");
    assert_eq!(expanded.len(), mine.len());
    assert_eq!(row["QuantityReceived"].as_f64(), Some(mine.len() as f64), "one serial number per unit");
    for serial in expanded {
        assert_eq!(serial["__metadata"]["type"], "Exact.Web.Api.Models.Inventory.StockSerialNumber");
        assert_eq!(field_text(serial, "StockTransactionID"), line);
        assert_eq!(serial["StockTransactionType"], 130, "goods receipt");
        assert_eq!(serial["ItemCode"], row["ItemCode"]);
        assert!(!field_text(serial, "SerialNumber").is_empty());
    }

    // Not expanded, the collection is a deferred link; other collections are not expanded at all.
    let page = s.json(&format!("purchaseorder/GoodsReceiptLines?$select=ID,SerialNumbers&{filter}")).await;
    let deferred = field_text(&page["d"]["results"][0]["SerialNumbers"]["__deferred"], "uri");
    assert!(deferred.ends_with(&format!("GoodsReceiptLines(guid'{line}')/SerialNumbers")), "{deferred}");
    let page =
        s.json(&format!("purchaseorder/GoodsReceiptLines?$select=ID,BatchNumbers&$expand=BatchNumbers&{filter}")).await;
    assert_eq!(page["d"]["results"][0]["BatchNumbers"]["results"], json!([]), "a serial item's line has no batches");
    let r = s.get("purchaseorder/GoodsReceipts?$expand=GoodsReceiptLines").await;
    assert_eq!(r.status(), 400);

    // A receipt posted with serial numbers keeps them under its line.
    let items = h.rows(DIV, "logistics/Items").expect("items");
    let po = po_line(&items, &h.rows(DIV, "purchaseorder/PurchaseOrderLines").expect("lines"), true);
    let new_line = "5e7a1000-0000-4000-8000-000000000001";
    let body = json!({"ReceiptDate": "2026-03-10", "GoodsReceiptLines": [{"ID": new_line, "PurchaseOrderLineID": po["ID"],
        "QuantityReceived": 2, "SerialNumbers": [{"SerialNumber": "POSTED-1"}, {"SerialNumber": "POSTED-2"}]}]});
    let r = s.send(reqwest::Method::POST, "purchaseorder/GoodsReceipts", Some(body.clone())).await;
    assert_eq!(r.status(), 201);
    let page = s
        .json(&format!("purchaseorder/GoodsReceiptLines?$select=ID,SerialNumbers&$expand=SerialNumbers&$filter=ID eq guid'{new_line}'"))
        .await;
    let mut posted: Vec<String> = page["d"]["results"][0]["SerialNumbers"]["results"]
        .as_array()
        .expect("expanded")
        .iter()
        .map(|r| field_text(r, "SerialNumber"))
        .collect();
    posted.sort();
    assert_eq!(posted, ["POSTED-1", "POSTED-2"]);
    // The same numbers again, or too few for the quantity: refused as the units are counted.
    let mut again = body;
    again["GoodsReceiptLines"][0]["ID"] = json!("5e7a1000-0000-4000-8000-000000000002");
    let r = s.send(reqwest::Method::POST, "purchaseorder/GoodsReceipts", Some(again.clone())).await;
    assert_eq!(r.status(), 400);
    again["GoodsReceiptLines"][0]["SerialNumbers"] = json!([{"SerialNumber": "POSTED-3"}]);
    let r = s.send(reqwest::Method::POST, "purchaseorder/GoodsReceipts", Some(again)).await;
    assert_eq!(r.status(), 400);
    s.stop().await;
}

#[actix_web::test]
async fn a_serial_items_receipt_prints_one_label_per_serial_number() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let h = w.sim.handle();
    let div = w.division as i32;
    let items = h.rows(div, "logistics/Items").expect("items");
    let po_lines = h.rows(div, "purchaseorder/PurchaseOrderLines").expect("purchase order lines");
    let (serial_po, plain_po) = (po_line(&items, &po_lines, true), po_line(&items, &po_lines, false));
    let (serial_line, plain_line) = ("5e7a1000-0000-4000-8000-00000000000a", "5e7a1000-0000-4000-8000-00000000000b");
    // Units counted 9, 10, 11, given in another order.
    let numbers = ["MX-10", "MX-11", "MX-9"].map(|n| json!({"SerialNumber": n}));
    let receipt = json!({"ReceiptDate": "2026-03-10", "GoodsReceiptLines": [
        {"ID": serial_line, "PurchaseOrderLineID": serial_po["ID"], "QuantityReceived": 3, "SerialNumbers": numbers},
        {"ID": plain_line, "PurchaseOrderLineID": plain_po["ID"], "QuantityReceived": 4}]});
    let state = w.server.running.as_ref().expect("running").state();
    let access = state.tokens.access_token(&w.user).await.expect("token");
    state.exact.post(w.division, &access, "purchaseorder/GoodsReceipts", &receipt).await.expect("receipt posted");
    let line = h
        .rows(div, "purchaseorder/GoodsReceiptLines")
        .and_then(|lines| lines.into_iter().find(|l| l["ID"] == serial_line))
        .expect("the serial item's receipt line");
    let header = h
        .rows(div, "purchaseorder/GoodsReceipts")
        .and_then(|r| r.into_iter().find(|r| r["ID"] == line["GoodsReceiptID"]));
    let po_text = format!(
        "PO {} {}",
        field_text(&line, "PurchaseOrderNumber"),
        field_text(&header.expect("its receipt"), "ReceiptNumber")
    );
    let serial_code = field_text(&serial_po, "ItemCode");
    let plain_code = field_text(&plain_po, "ItemCode");

    // The serial line's count is its numbers, whatever is asked; the other line prints its count.
    let ids = json!([{"id": serial_line, "print_count": 5}, {"id": plain_line, "print_count": 2}]);
    let res = w.post_json("/api/v1/labels", json!({"source": "goods_receipt", "ids": ids, "type": "receipts"})).await;
    assert_eq!(res.status(), 200);
    let result: Value = serde_json::from_str(res.headers()["x-label-result"].to_str().unwrap()).unwrap();
    assert_eq!(result["status"], "SUCCESS", "{result}");
    assert_eq!(result["labels"], 5);
    let pdf = res.bytes().await.unwrap();
    if let Some(pages) = page_texts(&pdf) {
        assert_eq!(pages.len(), 5, "{pages:?}");
        for (page, serial) in pages.iter().zip(["MX-9", "MX-10", "MX-11"]) {
            assert_eq!(serials_on(page), [serial], "its own serial number on each page: {page}");
            assert!(page.contains(&serial_code), "{page}");
            assert!(page.contains(&po_text), "{po_text} in {page}");
        }
        for page in &pages[3..] {
            assert!(serials_on(page).is_empty() && !page.contains("S/N"), "no serial line: {page}");
            assert!(page.contains(&plain_code) && page.contains(&field_text(&plain_po, "ItemDescription")), "{page}");
        }
    }
    if let Some(codes) = decode_pdf(&pdf) {
        let mut expected = vec![serial_code.clone(); 3];
        expected.extend(vec![plain_code.clone(); 2]);
        expected.sort();
        assert_eq!(codes, expected, "every label's barcode still decodes to its item code");
    }

    // Two labels a sheet: the three numbers on two sheets, each once.
    let body = json!({"source": "goods_receipt", "ids": [serial_line], "type": "electrical-72001926"});
    let res = w.post_json("/api/v1/labels", body).await;
    assert_eq!(res.status(), 200);
    let pdf = res.bytes().await.unwrap();
    if let Some(pages) = page_texts(&pdf) {
        let printed: Vec<Vec<String>> = pages.iter().map(|p| serials_on(p)).collect();
        assert_eq!(printed, [vec!["MX-9".to_string(), "MX-10".to_string()], vec!["MX-11".to_string()]]);
    }
    // zbarimg reports two equal codes on one image once: each sheet reads as the item's code.
    if let (Some(pdftoppm), Some(zbarimg)) = (tool("pdftoppm"), tool("zbarimg")) {
        let dir = tempfile::tempdir().expect("temp dir");
        for png in pdf_to_pngs(&pdftoppm, &pdf, dir.path()) {
            let mut codes = zbar_decode(&zbarimg, &png);
            codes.dedup();
            assert_eq!(codes, std::slice::from_ref(&serial_code), "{png:?}");
        }
    }
    w.stop().await;
}
