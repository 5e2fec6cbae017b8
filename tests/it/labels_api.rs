//! Labels over HTTP and the `labels` command, reading from the simulator: every barcode of the
//! PDF the server answers is decoded with `zbarimg` after `pdftoppm -r 300`, and a print request
//! goes to a real `ippeveprinter` and is followed to completed. While the simulator is down or
//! too slow, shop order and item labels come from the local copy with a WARNING.

use crate::labels::{field_text, page_texts, pdf_to_pngs, tool, zbar_decode};
use crate::printing::{IppEve, decode_kept, free_port, kept_documents, tools_present};
use crate::provider::World;
use crate::support::{TestServer, binary};
use esm_sim::{Faults, SimOptions};
use reqwest::Method;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};
use stock_manager::config::PrinterConfig;
use stock_manager::labels::store_lookups::readable_time;
use stock_manager::labels::{LabelType, NO_LABELS_MESSAGE, Templates};
use stock_manager::printing::{Printer, PrinterSource};
use stock_manager::server::StartOptions;

fn sim_options() -> SimOptions {
    SimOptions { rate_limits: false, ..Default::default() }
}

fn rows(w: &World, path: &str) -> Vec<Value> {
    w.sim.handle().rows(w.division as i32, path).unwrap_or_else(|| panic!("the simulator serves {path}"))
}

/// Labels a quantity asks for: whole labels, part units rounded up.
fn copies(v: &Value, key: &str) -> usize {
    v[key].as_f64().map_or(0, |q| q.ceil() as usize)
}

/// Every barcode of a PDF, sorted; `None` when the real readers are not installed.
fn decode_pdf(pdf: &[u8]) -> Option<Vec<String>> {
    let (Some(pdftoppm), Some(zbarimg)) = (tool("pdftoppm"), tool("zbarimg")) else { return None };
    let dir = tempfile::tempdir().expect("temp dir");
    let mut codes: Vec<String> =
        pdf_to_pngs(&pdftoppm, pdf, dir.path()).iter().flat_map(|png| zbar_decode(&zbarimg, png)).collect();
    codes.sort();
    Some(codes)
}

/// The PDF's text with runs of whitespace as one space; `None` without pdftotext.
fn pdf_text(pdf: &[u8]) -> Option<String> {
    page_texts(pdf).map(|pages| pages.join(" "))
}

fn summary(res: &reqwest::Response) -> Value {
    let header = res.headers().get("x-label-result").expect("X-Label-Result header");
    serde_json::from_str(header.to_str().expect("ASCII")).expect("JSON summary")
}

fn items_without_zv(w: &World) -> Vec<Value> {
    rows(w, "logistics/Items").into_iter().filter(|i| !field_text(i, "Code").contains("ZV")).collect()
}

#[actix_web::test]
async fn shop_order_pdf_has_its_item_and_by_products_but_no_zv_or_material_lines() {
    let w = World::start(sim_options()).await;
    let plans = rows(&w, "manufacturing/ShopOrderMaterialPlans");
    // The order with a by-product line (Type 2) and the fewest planned pieces: a short PDF.
    let order = rows(&w, "manufacturing/ShopOrders")
        .into_iter()
        .filter(|o| plans.iter().any(|p| p["ShopOrder"] == o["ID"] && p["Type"] == 2))
        .min_by_key(|o| copies(o, "PlannedQuantity"))
        .expect("a shop order with a by-product line");
    let so = field_text(&order, "ID");
    // A ZV item as a second by-product: it must be left out, with a reason.
    let zv =
        rows(&w, "logistics/Items").into_iter().find(|i| field_text(i, "Code").starts_with("ZV")).expect("a ZV item");
    let state = w.server.running.as_ref().expect("running").state();
    let access = state.tokens.access_token(&w.user).await.expect("token");
    let plan = json!({"ShopOrder": so, "Item": zv["ID"], "Type": 2, "PlannedQuantity": 1.0, "Description": "Rest"});
    state.exact.post(w.division, &access, "manufacturing/ShopOrderMaterialPlans", &plan).await.expect("plan added");

    let mine: Vec<Value> = rows(&w, "manufacturing/ShopOrderMaterialPlans")
        .into_iter()
        .filter(|p| field_text(p, "ShopOrder") == so)
        .collect();
    let mut expected = vec![field_text(&order, "ItemCode"); copies(&order, "PlannedQuantity")];
    for p in mine.iter().filter(|p| p["Type"] == 2 && !field_text(p, "ItemCode").contains("ZV")) {
        expected.extend(vec![field_text(p, "ItemCode"); copies(p, "PlannedQuantity")]);
    }
    expected.sort();
    let materials: Vec<String> = mine
        .iter()
        .filter(|p| p["Type"] == 1)
        .map(|p| field_text(p, "ItemCode"))
        .filter(|c| !expected.contains(c))
        .collect();
    assert!(!materials.is_empty(), "the order has material lines to leave out");

    let res = w
        .post_json("/api/v1/labels", json!({"source": "shop_order", "ids": [so], "type": "electrical-72001926"}))
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/pdf");
    assert!(res.headers()["content-disposition"].to_str().unwrap().starts_with("inline"));
    let result = summary(&res);
    assert_eq!(result["status"], "WARNING", "{result}");
    assert_eq!(result["labels"], expected.len());
    let zv_code = field_text(&zv, "Code");
    assert!(result["messages"].as_array().unwrap().iter().any(|m| m.as_str().unwrap().contains(&zv_code)), "{result}");
    let pdf = res.bytes().await.unwrap();
    // A Dutch UI is told the same in Dutch.
    let in_dutch = w
        .request(Method::POST, "/api/v1/labels")
        .header("accept-language", "nl")
        .json(&json!({"source": "shop_order", "ids": [so], "type": "electrical-72001926"}))
        .send()
        .await
        .unwrap();
    assert_eq!(in_dutch.status(), 200);
    let dutch = summary(&in_dutch);
    let skipped = format!("{zv_code} overgeslagen: artikelen met 'ZV' in de code krijgen geen etiket");
    assert!(dutch["messages"].as_array().unwrap().iter().any(|m| m.as_str() == Some(skipped.as_str())), "{dutch}");
    assert!(pdf.starts_with(b"%PDF"));
    if let Some(codes) = decode_pdf(&pdf) {
        assert_eq!(codes, expected, "every label's barcode decodes to its item code");
        assert!(!codes.contains(&zv_code));
        assert!(materials.iter().all(|m| !codes.contains(m)), "material lines are not labelled");
    }
    w.stop().await;
}

#[actix_web::test]
async fn receipt_and_cnc_labels_carry_the_looked_up_fields() {
    let w = World::start(sim_options()).await;
    // Goods receipt lines: PO and receipt number (joined from the receipt header), ZV left out.
    let lines = rows(&w, "purchaseorder/GoodsReceiptLines");
    let receipts = rows(&w, "purchaseorder/GoodsReceipts");
    let wanted: Vec<&Value> = lines.iter().filter(|l| !field_text(l, "ItemCode").contains("ZV")).take(2).collect();
    let zv_line = lines.iter().find(|l| field_text(l, "ItemCode").contains("ZV"));
    let mut ids: Vec<String> = wanted.iter().map(|l| field_text(l, "ID")).collect();
    ids.extend(zv_line.map(|l| field_text(l, "ID")));
    let res = w.post_json("/api/v1/labels", json!({"source": "goods_receipt", "ids": ids, "type": "receipts"})).await;
    assert_eq!(res.status(), 200);
    let result = summary(&res);
    assert_eq!(result["status"], if zv_line.is_some() { "WARNING" } else { "SUCCESS" }, "{result}");
    let pdf = res.bytes().await.unwrap();
    let mut expected: Vec<String> = wanted.iter().map(|l| field_text(l, "ItemCode")).collect();
    expected.sort();
    if let Some(codes) = decode_pdf(&pdf) {
        assert_eq!(codes, expected);
    }
    if let Some(all_text) = pdf_text(&pdf) {
        let line = wanted[0];
        let header = receipts.iter().find(|r| r["ID"] == line["GoodsReceiptID"]).expect("the line's receipt");
        let po_line = format!("PO {} {}", field_text(line, "PurchaseOrderNumber"), field_text(header, "ReceiptNumber"));
        assert!(all_text.contains(&po_line), "{po_line} in {all_text}");
    }

    // Item direct, CNC label: the 'Bewerkingen' extra field and the warehouse location.
    let extra = rows(&w, "read/logistics/ItemExtraField");
    let with_extra = items_without_zv(&w)
        .into_iter()
        .find_map(|i| {
            let field = extra.iter().find(|f| f["ItemID"] == i["ID"] && f["Description"] == "Bewerkingen")?;
            Some((i, field_text(field, "Value")))
        })
        .expect("an item with post-processing");
    let (item, post_processing) = with_extra;
    let res = w.post_json("/api/v1/labels", json!({"source": "item_direct", "ids": [item["ID"]], "type": 6})).await;
    assert_eq!(res.status(), 200);
    assert_eq!(summary(&res)["status"], "SUCCESS");
    let pdf = res.bytes().await.unwrap();
    if let Some(codes) = decode_pdf(&pdf) {
        assert_eq!(codes, vec![field_text(&item, "Code")]);
    }
    if let Some(all_text) = pdf_text(&pdf) {
        assert!(all_text.contains(&post_processing), "{post_processing} in {all_text}");
        assert!(all_text.contains("W-L:"), "{all_text}");
    }
    w.stop().await;
}

#[actix_web::test]
async fn warehouses_are_left_off_labels_only_when_the_organization_lists_them() {
    let w = World::start(sim_options()).await;
    let details: Value = w.get("/api/v1/organizationDetails").await.json().await.unwrap();
    assert_eq!(details["preferences"]["label_skipped_warehouses"], json!([]), "present and empty: {details}");
    let (item, line) = item_with_one_location(&w);
    let warehouse = rows(&w, "inventory/ItemWarehouses")
        .into_iter()
        .find(|r| r["Item"] == item["ID"] && line.starts_with(&format!("W-L: {}-", field_text(r, "WarehouseCode"))))
        .map(|r| field_text(&r, "WarehouseCode"))
        .expect("the line's warehouse");
    let label = || w.post_json("/api/v1/labels", json!({"source": "item_direct", "ids": [item["ID"]], "type": 6}));
    let save = |skipped: Value| {
        let mut org = details.clone();
        org["preferences"]["label_skipped_warehouses"] = skipped;
        w.request(Method::PUT, "/api/v1/updateOrganizationPreferences").json(&org).send()
    };

    let res = label().await;
    assert_eq!(res.status(), 200);
    if let Some(text) = pdf_text(&res.bytes().await.unwrap()) {
        assert!(text.contains(&line), "{line} in {text}");
    }
    // kept trimmed and once each, as the labels compare them
    let res = save(json!([format!(" {warehouse} "), warehouse.clone()])).await.unwrap();
    assert_eq!(res.status(), 200);
    let saved: Value = res.json().await.unwrap();
    assert_eq!(saved["preferences"]["label_skipped_warehouses"], json!([warehouse]));
    let res = label().await;
    assert_eq!(res.status(), 200);
    if let Some(text) = pdf_text(&res.bytes().await.unwrap()) {
        // the label keeps its W-L field, without the skipped warehouse's location
        assert!(!text.contains(&line) && text.contains("W-L:"), "{line} left off: {text}");
    }
    for bad in [json!("3"), json!([3]), json!([""]), json!(["x".repeat(41)]), json!(vec!["1"; 501])] {
        let res = save(bad.clone()).await.unwrap();
        assert_eq!(res.status(), 400, "{bad}");
        let body: Value = res.json().await.unwrap();
        assert!(body["error"]["message"].as_str().unwrap().contains("label_skipped_warehouses"), "{body}");
    }
    let details: Value = w.get("/api/v1/organizationDetails").await.json().await.unwrap();
    assert_eq!(
        details["preferences"]["label_skipped_warehouses"],
        json!([warehouse]),
        "a refused list changes nothing"
    );
    w.stop().await;
}

#[actix_web::test]
async fn a_pdf_holds_the_copies_asked_for() {
    let w = World::start(sim_options()).await;
    let item = items_without_zv(&w).into_iter().next().expect("an item");
    let body = |copies: Value| json!({"source": "item_direct", "ids": [item["ID"]], "type": 1, "copies": copies});
    let code = field_text(&item, "Code");
    let mut mentions = Vec::new();
    for copies in [1, 3] {
        let res = w.post_json("/api/v1/labels", body(json!(copies))).await;
        assert_eq!(res.status(), 200);
        assert_eq!(summary(&res)["labels"], copies, "the summary counts the copies");
        let pdf = res.bytes().await.unwrap();
        mentions.extend(pdf_text(&pdf).map(|t| t.matches(code.as_str()).count()));
    }
    if let [one, three] = mentions[..] {
        assert!(one > 0, "the label names the item");
        assert_eq!(three, 3 * one, "three copies print the item's label three times");
    }
    for bad in [json!(0), json!(101), json!("two")] {
        let res = w.post_json("/api/v1/labels", body(bad.clone())).await;
        assert_eq!(res.status(), 400, "copies {bad}");
    }
    w.stop().await;
}

#[actix_web::test]
async fn requests_without_labels_answer_the_spec_message() {
    let w = World::start(sim_options()).await;
    let unknown = "00000000-0000-4000-8000-00000000abcd";
    let res = w.post_json("/api/v1/labels", json!({"source": "item_direct", "ids": [unknown], "type": 1})).await;
    assert_eq!(res.status(), 422);
    let result = summary(&res);
    assert_eq!(result["status"], "INFO");
    assert!(result["messages"][0].as_str().unwrap().contains(unknown), "{result}");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "no_labels");
    assert_eq!(body["error"]["message"], NO_LABELS_MESSAGE);

    // A receipt of nothing but ZV items has nothing to print either.
    if let Some(zv_line) =
        rows(&w, "purchaseorder/GoodsReceiptLines").iter().find(|l| field_text(l, "ItemCode").contains("ZV"))
    {
        let body = json!({"source": "goods_receipt", "ids": [zv_line["ID"]], "type": "receipts"});
        let res = w.post_json("/api/v1/labels", body).await;
        assert_eq!(res.status(), 422);
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["error"]["message"], NO_LABELS_MESSAGE);
    }

    let res = w.post_json("/api/v1/labels", json!({"source": "shop_order", "ids": []})).await;
    assert_eq!(res.status(), 400);
    assert_eq!(summary(&res)["status"], "WARNING");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["message"], "The payload is empty");
    w.stop().await;
}

#[actix_web::test]
async fn bad_bodies_answer_400_json() {
    let w = World::start(sim_options()).await;
    let id = "00000000-0000-4000-8000-000000000001";
    let cases = [
        (json!({"ids": [id]}), "missing source"),
        (json!({"source": "sales_order", "ids": [id]}), "unknown source"),
        (json!({"source": "shop_order", "ids": "abc"}), "ids not a list"),
        (json!({"source": "shop_order", "ids": [id], "type": 9}), "unknown type number"),
        (json!({"source": "shop_order", "ids": ["1 or 1 eq 1"]}), "an id that is no GUID"),
        (json!([1, 2]), "not an object"),
    ];
    for (body, why) in cases {
        for path in ["/api/v1/labels", "/api/v1/labels/print"] {
            let res = w.post_json(path, body.clone()).await;
            assert_eq!(res.status(), 400, "{why} on {path}");
            let answer: Value = res.json().await.unwrap();
            assert_eq!(answer["error"]["code"], "bad_request", "{why}: {answer}");
        }
    }
    let res = w.post_json("/api/v1/labels", json!({"source": "shop_order", "ids": ["nope"]})).await;
    let answer: Value = res.json().await.unwrap();
    assert!(answer["error"]["message"].as_str().unwrap().contains("'nope'"), "names the bad id: {answer}");

    let print = |extra: Value| {
        let mut body = json!({"source": "item_direct", "ids": [id], "type": "receipts"});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        body
    };
    let res = w.post_json("/api/v1/labels/print", print(json!({}))).await;
    assert_eq!(res.status(), 400, "no printer named");
    let res = w.post_json("/api/v1/labels/print", print(json!({"printer": "nowhere"}))).await;
    assert_eq!(res.status(), 404);
    let answer: Value = res.json().await.unwrap();
    assert_eq!(answer["error"]["message"], "Unknown printer 'nowhere'");
    let res = w.post_json("/api/v1/labels/print", print(json!({"printer": "nowhere", "copies": 0}))).await;
    assert_eq!(res.status(), 400, "zero copies");

    let res = w
        .request(reqwest::Method::POST, "/api/v1/labels")
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "bad_request");
    let res = w.get("/api/v1/labels").await;
    assert_eq!(res.status(), 405);
    assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "method_not_allowed");
    let res = w.get("/api/v1/printers/jobs/not-a-number").await;
    assert_eq!(res.status(), 400);
    let res = w.get("/api/v1/printers/jobs/999999").await;
    assert_eq!(res.status(), 404);
    w.stop().await;
}

async fn job_until_final(w: &World, id: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let res = w.get(&format!("/api/v1/printers/jobs/{id}")).await;
        assert_eq!(res.status(), 200);
        let job: Value = res.json().await.unwrap();
        if job["state"] == "completed" || job["state"] == "failed" {
            return job;
        }
        assert!(Instant::now() < deadline, "job stuck: {job}");
        actix_web::rt::time::sleep(Duration::from_millis(300)).await;
    }
}

#[actix_web::test]
async fn print_request_prints_once_and_its_job_reaches_completed() {
    let w = World::start(sim_options()).await;
    if !tools_present() {
        return w.stop().await;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let port = free_port();
    let device = IppEve::start(port, "esm-api-test", "application/pdf,image/pwg-raster", &dir.path().join("spool"));
    // The World's config is fixed, so the printers join the registry the way LAN discovery adds them;
    // `configured_printers_reach_the_print_service` covers the config path.
    let registry = w.server.running.as_ref().unwrap().state().printing.as_ref().expect("print service").registry();
    let printer = |name: &str, port: u16| Printer {
        name: name.into(),
        uri: format!("ipp://localhost:{port}/ipp/print"),
        label_types: vec![],
        insecure_tls: false,
        source: PrinterSource::Discovered,
        accepted: false,
    };
    registry.add_discovered(printer("labels", port));
    registry.add_discovered(printer("switched off", free_port()));
    registry.accept("labels");
    registry.accept("switched off");

    let printers: Vec<Value> = w.get("/api/v1/printers").await.json().await.unwrap();
    let labels = printers.iter().find(|p| p["name"] == "labels").expect("listed");
    assert_eq!(labels["state"], "idle", "{labels}");
    assert_eq!(labels["accepting_jobs"], true);
    let formats = labels["capabilities"]["document_formats"].as_array().unwrap();
    assert!(formats.iter().any(|f| f == "application/pdf"), "{labels}");
    let off = printers.iter().find(|p| p["name"] == "switched off").expect("listed");
    assert_eq!(off["state"], "unreachable", "{off}");

    let item = items_without_zv(&w).into_iter().next().expect("an item");
    let body = json!({"source": "item_direct", "ids": [item["ID"]], "type": "receipts", "printer": "labels"});
    let res = w.post_json("/api/v1/labels/print", body).await;
    assert_eq!(res.status(), 202);
    let answer: Value = res.json().await.unwrap();
    assert_eq!(answer["result"]["status"], "SUCCESS");
    assert_eq!(answer["job"]["labels"], 1);
    let id = answer["job"]["id"].as_u64().expect("job id");

    let job = job_until_final(&w, id).await;
    assert_eq!(job["state"], "completed", "{job}");
    assert_eq!(job["state_text"], "Completed");
    assert_eq!(job["format"], "application/pdf");
    let jobs: Vec<Value> = w.get("/api/v1/printers/jobs").await.json().await.unwrap();
    assert_eq!(jobs.iter().filter(|j| j["id"] == id).count(), 1);

    tokio::time::sleep(Duration::from_secs(2)).await;
    let kept = kept_documents(&device, 1).await;
    assert_eq!(kept.len(), 1, "printed exactly once: {kept:?}");
    assert_eq!(decode_kept(&kept[0], dir.path()), vec![field_text(&item, "Code")]);
    w.stop().await;
}

/// Anything on the LAN can announce itself as a printer: a discovered one is listed, asked
/// nothing and sent nothing until an administrator (freshly re-authenticated) accepts it; the
/// acceptance survives a restart and holds only for the address it was given at.
#[actix_web::test]
async fn discovered_printers_print_only_after_an_administrator_accepts_them() {
    use tokio::io::AsyncReadExt;
    let w =
        World::start_with(sim_options(), |c| c.admin.password = stock_manager::config::Secret::new("letmein")).await;
    // A listener that counts who connects: the stand-in for whatever announced itself.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let contacts = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = contacts.clone();
    let watcher = tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut buf = [0u8; 1024];
            let _ = socket.read(&mut buf).await;
        }
    });
    let registry = w.server.running.as_ref().unwrap().state().printing.as_ref().expect("print service").registry();
    let found = Printer {
        name: "Announced".into(),
        uri: format!("ipp://127.0.0.1:{port}/ipp/print"),
        label_types: vec![],
        insecure_tls: false,
        source: PrinterSource::Discovered,
        accepted: false,
    };
    registry.add_discovered(found.clone());

    let printers: Vec<Value> = w.get("/api/v1/printers").await.json().await.unwrap();
    let listed = printers.iter().find(|p| p["name"] == "Announced").expect("listed");
    assert_eq!(listed["state"], "discovered", "{listed}");
    assert_eq!(listed["accepted"], false);
    assert_eq!(listed["source"], "discovered");
    let item = items_without_zv(&w).into_iter().next().expect("an item");
    let print = json!({"source": "item_direct", "ids": [item["ID"]], "type": "receipts", "printer": "Announced"});
    let refused = w.post_json("/api/v1/labels/print", print.clone()).await;
    assert_eq!(refused.status(), 403);
    let answer: Value = refused.json().await.unwrap();
    assert!(answer["error"]["message"].as_str().unwrap().contains("not accepted yet"), "{answer}");

    // Accepting needs the administrator.
    let name = json!({"name": "Announced"});
    let plain = w.post_json("/api/v1/printers/accept", name.clone()).await;
    assert_eq!(plain.status(), 403);
    assert_eq!(w.post_json("/api/v1/auth/reauth", json!({"password": "letmein"})).await.status(), 200);
    assert_eq!(w.post_json("/api/v1/printers/accept", json!({"name": "Nobody"})).await.status(), 404);
    assert_eq!(contacts.load(std::sync::atomic::Ordering::SeqCst), 0, "nothing was sent to an unaccepted printer");
    let accepted = w.post_json("/api/v1/printers/accept", name.clone()).await;
    assert_eq!(accepted.status(), 200);
    let view: Value = accepted.json().await.unwrap();
    assert_eq!(view["accepted"], true, "{view}");
    assert!(contacts.load(std::sync::atomic::Ordering::SeqCst) > 0, "an accepted printer is asked what it can do");
    let kept =
        w.server.running.as_ref().unwrap().state().serverdb.get_json::<stock_manager::serverdb::AcceptedPrinter>(
            stock_manager::serverdb::ACCEPTED_PRINTERS,
            "Announced",
        );
    let kept = kept.unwrap().expect("the acceptance is kept");
    assert_eq!(kept.uri, found.uri);
    assert!(!kept.by.is_empty(), "who accepted it is kept");

    // The same name from another address is a different device: not accepted.
    registry.add_discovered(Printer { uri: "ipp://127.0.0.1:9/ipp/print".into(), ..found.clone() });
    assert_eq!(w.post_json("/api/v1/labels/print", print.clone()).await.status(), 403);
    registry.add_discovered(found.clone());
    assert!(registry.usable("Announced").is_some());

    let withdrawn = w.post_json("/api/v1/printers/withdraw", name).await;
    assert_eq!(withdrawn.status(), 204);
    assert!(registry.usable("Announced").is_none());
    assert_eq!(w.post_json("/api/v1/labels/print", print).await.status(), 403);
    watcher.abort();
    w.stop().await;
}

#[actix_web::test]
async fn configured_printers_reach_the_print_service() {
    let server = TestServer::start_with(
        |c| {
            c.printers = vec![PrinterConfig {
                name: "Hall 2".into(),
                uri: "ipp://127.0.0.1:9/ipp/print".into(),
                label_types: vec!["receipts".into()],
                insecure_tls: false,
            }]
        },
        StartOptions::default(),
    )
    .await;
    let service = server.running.as_ref().unwrap().state().printing.as_ref().expect("print service started");
    let printers = service.printers();
    assert_eq!(printers.len(), 1);
    assert_eq!(printers[0].name, "Hall 2");
    assert_eq!(printers[0].source, PrinterSource::Configured);
    server.stop().await;
}

async fn labels_command(w: &World, data_dir: &Path, args: &[&str]) -> std::process::Output {
    tokio::process::Command::new(binary())
        .arg("labels")
        .args(args)
        .args(["--org", &w.division.to_string(), "--data-dir"])
        .arg(data_dir)
        .env("ESM_PROVIDER__BASE_URL", w.sim.base_url())
        .env("ESM_PROVIDER__CLIENT_ID", "demo-client")
        .env("ESM_PROVIDER__CLIENT_SECRET", "demo-secret")
        .env("ESM_MDNS__ENABLED", "false")
        .env("RUST_LOG", "error")
        .output()
        .await
        .expect("the command runs")
}

#[actix_web::test]
async fn labels_command_writes_the_pdf_with_the_stored_token() {
    let mut w = World::start(sim_options()).await;
    let data_dir = w.server.running.as_ref().unwrap().state().config.data_dir.clone();
    // The command opens the data directory itself, as it does while the server is stopped.
    if let Some(running) = w.server.running.take() {
        running.stop(true).await.expect("server stops");
    }
    let item = items_without_zv(&w).into_iter().nth(3).expect("an item");
    let out_dir = tempfile::tempdir().expect("temp dir");
    let out = out_dir.path().join("labels.pdf");
    let out_arg = out.to_str().expect("UTF-8 path");
    let id = field_text(&item, "ID");
    let output =
        labels_command(&w, &data_dir, &["--source", "item", "--id", &id, "--type", "cnc-new", "--out", out_arg]).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.contains("1 labels (cnc-new) written to"), "{stdout}");
    let pdf = std::fs::read(&out).expect("the PDF was written");
    if let Some(codes) = decode_pdf(&pdf) {
        assert_eq!(codes, vec![field_text(&item, "Code")]);
    }

    let unknown = "00000000-0000-4000-8000-00000000abcd";
    let output = labels_command(&w, &data_dir, &["--source", "item", "--id", unknown, "--out", out_arg]).await;
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains(NO_LABELS_MESSAGE));
    w.stop().await;
}

/// What labels read from the local copy.
const LABEL_TABLES: [&str; 5] = ["shopOrders", "shopOrderMaterialPlans", "items", "itemWarehouses", "supplierItems"];

fn page_count(pdf: &[u8]) -> usize {
    lopdf::Document::load_mem(pdf).expect("a PDF").get_pages().len()
}

/// Labels per page of a label type.
fn per_page(label_type: u8) -> usize {
    let templates = Templates::builtin().expect("templates");
    templates.get(LabelType::from_number(label_type).expect("type")).expect("template").slots.len()
}

/// A shop order with a by-product plan line and few pieces, and the item codes of its labels
/// made from the plans alone (the copy has no by-product receipts), sorted.
fn shop_order_from_the_plans(w: &World) -> (String, Vec<String>) {
    let plans = rows(w, "manufacturing/ShopOrderMaterialPlans");
    let order = rows(w, "manufacturing/ShopOrders")
        .into_iter()
        .filter(|o| plans.iter().any(|p| p["ShopOrder"] == o["ID"] && p["Type"] == 2))
        .min_by_key(|o| copies(o, "PlannedQuantity"))
        .expect("a shop order with a by-product line");
    let labelled = |code: String| !code.contains("ZV");
    let mut expected = Vec::new();
    if !order["Item"].is_null() && labelled(field_text(&order, "ItemCode")) {
        expected.extend(vec![field_text(&order, "ItemCode"); copies(&order, "PlannedQuantity")]);
    }
    for p in plans.iter().filter(|p| p["ShopOrder"] == order["ID"] && p["Type"] == 2 && !p["Item"].is_null()) {
        if labelled(field_text(p, "ItemCode")) {
            expected.extend(vec![field_text(p, "ItemCode"); copies(p, "PlannedQuantity")]);
        }
    }
    expected.sort();
    (field_text(&order, "ID"), expected)
}

/// An item with exactly one warehouse location a label prints, and that line (`W-L: 1-A-01`).
fn item_with_one_location(w: &World) -> (Value, String) {
    let warehouses = rows(w, "inventory/ItemWarehouses");
    items_without_zv(w)
        .into_iter()
        .find_map(|item| {
            let usable: Vec<&Value> = warehouses
                .iter()
                .filter(|r| r["Item"] == item["ID"])
                .filter(|r| !field_text(r, "DefaultStorageLocationCode").is_empty())
                .collect();
            let [only] = usable[..] else { return None };
            let line = format!(
                "W-L: {}-{}",
                field_text(only, "WarehouseCode"),
                field_text(only, "DefaultStorageLocationCode")
            );
            Some((item, line))
        })
        .expect("an item with one warehouse location")
}

/// A label request while Exact is down: answered within 10 s with the PDF, a WARNING whose first
/// message is `headline` and another that names `lacking` (what the copy does not hold).
async fn labels_from_the_copy(w: &World, body: Value, headline: &str, lacking: &str) -> (Value, Vec<u8>) {
    let started = Instant::now();
    let res = w.post_json("/api/v1/labels", body).await;
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    assert_eq!(res.status(), 200);
    let result = summary(&res);
    assert_eq!(result["status"], "WARNING", "{result}");
    assert_eq!(result["messages"][0], headline, "{result}");
    let messages = result["messages"].as_array().unwrap();
    assert!(messages.iter().any(|m| m.as_str().unwrap().contains(lacking)), "{lacking} in {result}");
    (result, res.bytes().await.unwrap().to_vec())
}

#[actix_web::test]
async fn during_an_outage_shop_order_and_item_labels_come_from_the_local_copy() {
    let w = World::start(sim_options()).await;
    let status = w.sync(Some(LABEL_TABLES.to_vec())).await;
    let last_sync = status["last_sync"].as_str().expect("the sync finished").to_string();
    let headline =
        format!("Made from the local copy as of {}: Exact Online cannot be reached", readable_time(&last_sync));
    let (so, so_codes) = shop_order_from_the_plans(&w);
    let (item, location) = item_with_one_location(&w);
    let code = field_text(&item, "Code");
    let receipt_line = rows(&w, "purchaseorder/GoodsReceiptLines")
        .into_iter()
        .find(|l| !field_text(l, "ItemCode").contains("ZV"))
        .expect("a goods receipt line");

    // Exact answers: the labels are read live, as before.
    let cnc = json!({"source": "item_direct", "ids": [{"id": item["ID"], "print_count": 2}], "type": "cnc-new"});
    let res = w.post_json("/api/v1/labels", cnc.clone()).await;
    assert_eq!(res.status(), 200);
    assert_eq!(summary(&res)["status"], "SUCCESS");

    w.sim.handle().set_serving(false);
    // The first request finds out: its read fails, and the copy stands in within seconds.
    let (result, pdf) = labels_from_the_copy(&w, cnc, &headline, "'Bewerkingen'").await;
    assert_eq!(result["labels"], 2);
    assert_eq!(page_count(&pdf), 2usize.div_ceil(per_page(6)));
    if let Some(codes) = decode_pdf(&pdf) {
        assert_eq!(codes, vec![code.clone(), code.clone()]);
    }
    if let Some(all_text) = pdf_text(&pdf) {
        assert!(all_text.contains(&location), "{location} in {all_text}");
    }

    // Known to be down: the copy is used at once.
    let body = json!({"source": "shop_order", "ids": [so], "type": "electrical-72001926"});
    let (result, pdf) = labels_from_the_copy(&w, body, &headline, "By-product receipts").await;
    assert_eq!(result["labels"], so_codes.len(), "{result}");
    assert_eq!(page_count(&pdf), so_codes.len().div_ceil(per_page(1)));
    if let Some(codes) = decode_pdf(&pdf) {
        assert_eq!(codes, so_codes, "every label's barcode decodes to its item code");
    }

    // Goods receipts need Exact: a clear answer, not a hang.
    let started = Instant::now();
    let body = json!({"source": "goods_receipt", "ids": [receipt_line["ID"]], "type": "receipts"});
    let res = w.post_json("/api/v1/labels", body).await;
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    assert_eq!(res.status(), 503);
    let answer: Value = res.json().await.unwrap();
    assert_eq!(answer["error"]["code"], "provider_unreachable");
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(message.starts_with("Exact Online cannot be reached, and goods receipt labels need it"), "{answer}");

    // Printing takes the same way, where a test printer is at hand.
    if tools_present() {
        let dir = tempfile::tempdir().expect("temp dir");
        let port = free_port();
        let device = IppEve::start(port, "esm-outage-test", "application/pdf", &dir.path().join("spool"));
        let registry = w.server.running.as_ref().unwrap().state().printing.as_ref().expect("print service").registry();
        registry.add_discovered(Printer {
            name: "labels".into(),
            uri: format!("ipp://localhost:{port}/ipp/print"),
            label_types: vec![],
            insecure_tls: false,
            source: PrinterSource::Discovered,
            accepted: false,
        });
        registry.accept("labels");
        let body = json!({"source": "item_direct", "ids": [item["ID"]], "type": "receipts", "printer": "labels"});
        let res = w.post_json("/api/v1/labels/print", body).await;
        assert_eq!(res.status(), 202);
        assert_eq!(summary(&res)["messages"][0], headline.as_str());
        let answer: Value = res.json().await.unwrap();
        assert_eq!(answer["result"]["status"], "WARNING", "{answer}");
        assert_eq!(answer["result"]["messages"][0], headline.as_str());
        assert_eq!(answer["job"]["labels"], 1);
        let job = job_until_final(&w, answer["job"]["id"].as_u64().expect("job id")).await;
        assert_eq!(job["state"], "completed", "{job}");
        let kept = kept_documents(&device, 1).await;
        assert_eq!(decode_kept(&kept[0], dir.path()), vec![code.clone()]);
    }
    w.sim.handle().set_serving(true);
    w.stop().await;
}

#[actix_web::test]
async fn exact_too_slow_to_answer_gives_way_to_the_local_copy() {
    let w = World::start(sim_options()).await;
    w.sync(Some(vec!["items"])).await;
    let item = items_without_zv(&w).into_iter().next().expect("an item");
    w.sim.handle().set_faults(Faults { latency_ms: 15_000, ..Faults::default() });
    let started = Instant::now();
    let res = w.post_json("/api/v1/labels", json!({"source": "item_direct", "ids": [item["ID"]], "type": 1})).await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(10), "gave up on Exact after a few seconds, not {took:?}");
    assert_eq!(res.status(), 200);
    let result = summary(&res);
    assert_eq!(result["status"], "WARNING", "{result}");
    let first = result["messages"][0].as_str().unwrap();
    assert!(first.starts_with("Made from the local copy as of ") && first.ends_with("Exact Online cannot be reached"));
    let pdf = res.bytes().await.unwrap();
    assert_eq!(page_count(&pdf), 1);
    if let Some(codes) = decode_pdf(&pdf) {
        assert_eq!(codes, vec![field_text(&item, "Code")]);
    }
    w.sim.handle().set_faults(Faults::default());
    w.stop().await;
}
