//! Item pictures against the simulator: fetched after an items sync until they equal the
//! simulator's, placeholders without a picture, caching headers, thumbnails, the batch, set and
//! remove calls, and a provider that fails while pictures are fetched.

use crate::provider::World;
use base64::Engine;
use esm_sim::{Faults, SimOptions};
use reqwest::Method;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const PLACEHOLDER: &str = "https://start.exactonline.nl//docs/images/placeholder_item.png";

async fn start() -> World {
    World::start(SimOptions { rate_limits: false, ..Default::default() }).await
}

async fn status(w: &World) -> Value {
    let res = w.get("/api/v1/pictures/status").await;
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

/// Waits until more than `before` picture passes have finished and none is running or queued.
async fn wait_for_pass(w: &World, before: u64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let s = status(w).await;
        if s["passes"].as_u64().unwrap_or(0) > before && s["running"] == false && s["queued"] == false {
            return s;
        }
        assert!(Instant::now() < deadline, "picture pass finished in time: {s}");
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Syncs items and waits for the picture pass it starts.
async fn sync_items(w: &World) -> Value {
    let before = status(w).await["passes"].as_u64().unwrap_or(0);
    let s = w.sync(Some(vec!["items"])).await;
    assert!(s["tables"]["items"]["error"].is_null(), "{s}");
    wait_for_pass(w, before).await
}

struct SimItem {
    id: String,
    url: String,
}

impl SimItem {
    fn has_picture(&self) -> bool {
        self.url != PLACEHOLDER
    }

    /// The bytes and type the simulator serves for this item at a thumbnail size.
    fn picture(&self, thumb: u32) -> (Vec<u8>, &'static str) {
        esm_sim::pictures::render(uuid::Uuid::parse_str(&self.id).unwrap().as_u128(), thumb)
    }
}

fn sim_items(w: &World) -> Vec<SimItem> {
    w.sim
        .handle()
        .rows(w.division as i32, "logistics/Items")
        .unwrap()
        .iter()
        .map(|r| SimItem {
            id: r["ID"].as_str().unwrap().to_lowercase(),
            url: r["PictureUrl"].as_str().unwrap_or_default().to_string(),
        })
        .collect()
}

fn header(res: &reqwest::Response, name: &str) -> String {
    res.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_string()
}

async fn put(w: &World, path: &str, body: Value) -> reqwest::Response {
    w.request(Method::PUT, path).json(&body).send().await.unwrap()
}

/// Stored pictures equal the simulator's for every item with a picture; the others have none.
async fn assert_pictures_equal_the_simulators(w: &World, items: &[SimItem]) {
    for item in items {
        let res = w.get(&format!("/api/v1/getItemPictureDBStorage?itemid={}", item.id)).await;
        if item.has_picture() {
            assert_eq!(res.status(), 200, "{}", item.id);
            let (bytes, mime) = item.picture(500);
            assert_eq!(header(&res, "content-type"), mime);
            assert!(res.bytes().await.unwrap() == bytes, "picture of {} equals the simulator's", item.id);
        } else {
            assert_eq!(res.status(), 404, "placeholder item {} has no picture", item.id);
            let body: Value = res.json().await.unwrap();
            assert_eq!(body["error"]["code"], "not_found");
        }
    }
}

#[actix_web::test]
async fn after_an_items_sync_the_pictures_equal_the_simulators_and_placeholders_have_none() {
    let w = start().await;
    let items = sim_items(&w);
    let real = items.iter().filter(|i| i.has_picture()).count();
    assert!(real > 20 && real < items.len(), "the simulator has items with and without pictures");

    let s = sync_items(&w).await;
    assert_eq!(s["last"]["fetched"], real as u64, "{s}");
    assert_eq!(s["stored"], real as u64, "{s}");
    assert_eq!(s["last"]["error"], Value::Null, "{s}");
    assert_pictures_equal_the_simulators(&w, &items).await;
    // The UI's URL serves the same.
    let one = items.iter().find(|i| i.has_picture()).unwrap();
    let res = w.get(&format!("/api/v1/pictures/{}", one.id.to_uppercase())).await;
    assert_eq!(res.status(), 200);
    assert!(res.bytes().await.unwrap() == one.picture(500).0);

    // Unchanged URLs are not fetched again.
    let served = w.sim.handle().counters().pictures;
    let s = sync_items(&w).await;
    assert_eq!((s["last"]["fetched"].as_u64(), s["last"]["unchanged"].as_u64()), (Some(0), Some(real as u64)));
    assert_eq!(w.sim.handle().counters().pictures, served, "no picture downloaded twice");

    // A picture stored for an item whose URL is the placeholder is removed by the next pass.
    let bare = items.iter().find(|i| !i.has_picture()).unwrap();
    let res = put(&w, "/api/v1/setItemPictureDBStorage", json!({"itemID": bare.id, "imageURL": one.url})).await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    assert_eq!(w.get(&format!("/api/v1/pictures/{}", bare.id)).await.status(), 200);
    let s = sync_items(&w).await;
    assert_eq!(s["last"]["removed"], 1, "{s}");
    assert_eq!(w.get(&format!("/api/v1/pictures/{}", bare.id)).await.status(), 404);
    assert_pictures_equal_the_simulators(&w, &items).await;
    w.stop().await;
}

#[actix_web::test]
async fn pictures_carry_caching_headers_revalidate_to_304_and_thumbnails_are_real_images() {
    let w = start().await;
    sync_items(&w).await;
    let items = sim_items(&w);
    let one = items.iter().find(|i| i.has_picture()).unwrap();
    let path = format!("/api/v1/pictures/{}", one.id);

    let res = w.get(&path).await;
    assert_eq!(res.status(), 200);
    let etag = header(&res, "etag");
    assert!(etag.starts_with('"') && etag.len() > 10, "{etag}");
    let cache = header(&res, "cache-control");
    assert!(cache.contains("private") && cache.contains("max-age="), "{cache}");
    let res = w.request(Method::GET, &path).header("if-none-match", &etag).send().await.unwrap();
    assert_eq!(res.status(), 304);
    assert_eq!(header(&res, "etag"), etag);
    assert!(res.bytes().await.unwrap().is_empty());
    let res = w
        .request(Method::GET, &format!("/api/v1/getItemPictureDBStorage?itemid={}", one.id))
        .header("if-none-match", &etag);
    assert_eq!(res.send().await.unwrap().status(), 304, "both read routes revalidate");

    // The provider's thumbnail (ThumbSize=100), with its own ETag.
    let res = w.get(&format!("{path}?thumbnail=true")).await;
    assert_eq!(res.status(), 200);
    assert_ne!(header(&res, "etag"), etag);
    let bytes = res.bytes().await.unwrap();
    assert!(bytes == one.picture(100).0, "the provider's thumbnail");
    let img = image::load_from_memory(&bytes).expect("a real image");
    assert_eq!((img.width(), img.height()), (100, 100));

    // Without a provider thumbnail the server makes one of the same size.
    let other = items.iter().filter(|i| i.has_picture()).nth(1).unwrap();
    let res = put(&w, "/api/v1/setItemPictureDBStorage", json!({"itemID": other.id, "imageURL": other.url})).await;
    assert_eq!(res.status(), 200);
    let set: Value = res.json().await.unwrap();
    assert_eq!(set["status"], "stored", "{set}");
    let res = w.get(&format!("/api/v1/getItemPictureDBStorage?itemid={}&thumbnail=true", other.id)).await;
    assert_eq!(header(&res, "content-type"), set["thumbnailContentType"].as_str().unwrap());
    let img = image::load_from_memory(&res.bytes().await.unwrap()).expect("a real image");
    assert_eq!((img.width(), img.height()), (100, 100), "fits the thumbnail square");
    w.stop().await;
}

#[actix_web::test]
async fn batch_reads_answer_data_urls_and_refuse_bad_input() {
    let w = start().await;
    sync_items(&w).await;
    let items = sim_items(&w);
    let with: Vec<&SimItem> = items.iter().filter(|i| i.has_picture()).take(2).collect();
    let without = items.iter().find(|i| !i.has_picture()).unwrap();
    let list = format!("{},{},{}", with[0].id, with[1].id.to_uppercase(), without.id);

    let res = w.get(&format!("/api/v1/getItemPictureDBStorageBatch?items={list}&thumbnails=true")).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    let pics = body["itemsPictures"].as_array().unwrap();
    assert_eq!(pics.len(), 3);
    for (got, want) in pics.iter().zip(&with) {
        assert_eq!(got["itemID"], want.id.as_str());
        let (bytes, mime) = want.picture(100);
        let data = got["imageData"].as_str().unwrap();
        let b64 = data.strip_prefix(&format!("data:{mime};base64,")).expect("a data URL");
        assert_eq!(base64::engine::general_purpose::STANDARD.decode(b64).unwrap(), bytes);
    }
    assert_eq!(pics[2]["imageData"], Value::Null);
    assert_eq!(pics[2]["message"], "No picture is stored for this item");

    let res = w.get(&format!("/api/v1/getItemPictureDBStorageBatch?items={}", with[0].id)).await;
    let body: Value = res.json().await.unwrap();
    let data = body["itemsPictures"][0]["imageData"].as_str().unwrap();
    assert!(data.len() > 1000 && data.starts_with("data:image/"), "originals without thumbnails=true");

    let res = w.get("/api/v1/getItemPictureDBStorageBatch?items=").await;
    assert_eq!(res.json::<Value>().await.unwrap(), json!({"itemsPictures": []}), "an empty list answers empty");
    for bad in [format!("{},not-a-guid", with[0].id), vec![with[0].id.as_str(); 101].join(",")] {
        let res = w.get(&format!("/api/v1/getItemPictureDBStorageBatch?items={bad}")).await;
        assert_eq!(res.status(), 400);
        assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "bad_request");
    }
    for bad in ["itemid=nope", "", "itemid=%7B..%7D"] {
        assert_eq!(w.get(&format!("/api/v1/getItemPictureDBStorage?{bad}")).await.status(), 400, "{bad}");
    }
    assert_eq!(w.get("/api/v1/pictures/nope").await.status(), 400);
    w.stop().await;
}

#[actix_web::test]
async fn set_and_remove_calls_store_validate_and_delete() {
    let w = start().await;
    let items = sim_items(&w);
    let with: Vec<&SimItem> = items.iter().filter(|i| i.has_picture()).take(3).collect();
    let served = w.sim.handle().counters().pictures;

    // Refused before anything is fetched: bad ids, other hosts, other organizations, bad shapes.
    let bad_bodies = [
        json!({"itemID": "x", "imageURL": with[0].url}),
        json!({"itemID": with[0].id, "imageURL": "https://evil.example/docs/SysImage.aspx?ID=1"}),
        json!({"itemID": with[0].id, "imageURL": with[0].url.replace(&format!("={}", w.division), "=1")}),
        json!({"itemID": with[0].id, "imageURL": with[0].url, "thumbnailURL": "http://127.0.0.1:1/x.png"}),
        json!({"itemID": with[0].id}),
        json!({"itemID": with[0].id, "imageURL": with[0].url, "extra": 1}),
    ];
    for body in bad_bodies {
        let res = put(&w, "/api/v1/setItemPictureDBStorage", body.clone()).await;
        assert_eq!(res.status(), 400, "{body}");
        assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "bad_request", "{body}");
    }
    let res = put(&w, "/api/v1/setBatchItemPictureDBStorage", json!({"itemsData": []})).await;
    assert_eq!(res.status(), 400);
    assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "empty_payload");
    let res = put(&w, "/api/v1/removePictureDBStorageBatch", json!({"IDs": []})).await;
    assert_eq!(res.json::<Value>().await.unwrap()["error"]["code"], "empty_payload");
    let too_many: Vec<String> = (0..1001).map(|_| with[0].id.clone()).collect();
    let res = put(&w, "/api/v1/removePictureDBStorageBatch", json!({"IDs": too_many})).await;
    assert_eq!(res.status(), 400);
    let message = res.json::<Value>().await.unwrap()["error"]["message"].as_str().unwrap_or_default().to_string();
    assert!(message.contains("at most 1000 IDs per call, got 1001"), "{message}");
    let res = put(
        &w,
        "/api/v1/setBatchItemPictureDBStorage",
        json!({"itemsData": [{"itemID": with[0].id, "imageURL": with[0].url}, {"itemID": "bad", "imageURL": ""}]}),
    )
    .await;
    assert_eq!(res.status(), 400);
    assert!(res.text().await.unwrap().contains("itemsData[1].itemID"));
    assert_eq!(w.sim.handle().counters().pictures, served, "nothing fetched for refused calls");
    assert_eq!(status(&w).await["stored"], 0);

    // One, then a batch (with the spec's field names and a placeholder that removes).
    let res = put(
        &w,
        "/api/v1/setItemPictureDBStorage",
        json!({"itemID": with[0].id, "imageURL": with[0].url, "thumbnailURL": with[0].url.replace("ThumbSize=500", "ThumbSize=100")}),
    )
    .await;
    assert_eq!(res.status(), 200);
    let set: Value = res.json().await.unwrap();
    assert_eq!(
        (set["status"].as_str(), set["size"].as_u64()),
        (Some("stored"), Some(with[0].picture(500).0.len() as u64))
    );
    let res = put(
        &w,
        "/api/v1/setBatchItemPictureDBStorage",
        json!({"itemsData": [
            {"ItemID": with[1].id, "Url": with[1].url},
            {"itemID": with[2].id, "imageURL": with[2].url},
            {"itemID": with[0].id, "imageURL": PLACEHOLDER},
        ]}),
    )
    .await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    let statuses: Vec<&str> =
        body["itemsPictures"].as_array().unwrap().iter().map(|r| r["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["stored", "stored", "removed"], "{body}");
    assert_eq!(w.get(&format!("/api/v1/pictures/{}", with[0].id)).await.status(), 404);
    for item in &with[1..] {
        let res = w.get(&format!("/api/v1/pictures/{}", item.id)).await;
        assert!(res.bytes().await.unwrap() == item.picture(500).0);
    }

    // Removal: one, then a batch; removing again finds nothing.
    let res = put(&w, "/api/v1/removePictureDBStorage", json!({"ID": with[1].id})).await;
    assert_eq!(res.json::<Value>().await.unwrap()["removed"], true);
    let res = put(&w, "/api/v1/removePictureDBStorage", json!({"ID": with[1].id})).await;
    assert_eq!(res.json::<Value>().await.unwrap()["removed"], false);
    let res =
        put(&w, "/api/v1/removePictureDBStorageBatch", json!({"IDs": [with[1].id, with[2].id.to_uppercase()]})).await;
    assert_eq!(res.json::<Value>().await.unwrap()["removed"], 1);
    assert_eq!(status(&w).await["stored"], 0);
    for bad in [json!({"IDs": []}), json!({"IDs": ["nope"]}), json!({"IDs": vec![with[0].id.clone(); 1001]}), json!({})]
    {
        let res = put(&w, "/api/v1/removePictureDBStorageBatch", bad.clone()).await;
        assert_eq!(res.status(), 400, "{bad}");
    }
    assert_eq!(put(&w, "/api/v1/removePictureDBStorage", json!({"ID": 5})).await.status(), 400);
    w.stop().await;
}

#[actix_web::test]
async fn a_provider_error_while_fetching_waits_and_the_pictures_still_end_up_complete() {
    let w = start().await;
    let items = sim_items(&w);
    // Enough failures that every picture of the first batch of 20 fails all of the client's tries.
    w.sim.handle().set_faults(Faults { picture_error_calls: 20 * 6, ..Default::default() });
    let s = sync_items(&w).await;
    assert!(s["last"]["errorWaits"].as_u64().unwrap() >= 1, "the fetcher waited after the errors: {s}");
    assert_eq!(s["last"]["failed"], 0, "{s}");
    assert_eq!(w.sim.handle().faults().picture_error_calls, 0, "every fault was met");
    assert!(w.sim.handle().counters().sent_500 >= 120);
    assert_pictures_equal_the_simulators(&w, &items).await;
    w.stop().await;
}

#[actix_web::test]
async fn picture_routes_refuse_without_a_session() {
    let w = start().await;
    let id = sim_items(&w)[0].id.clone();
    for (method, path) in [
        (Method::GET, format!("/api/v1/pictures/{id}")),
        (Method::GET, format!("/api/v1/getItemPictureDBStorage?itemid={id}")),
        (Method::GET, "/api/v1/pictures/status".to_string()),
        (Method::PUT, "/api/v1/removePictureDBStorageBatch".to_string()),
    ] {
        let res = w.server.client.request(method.clone(), w.server.at(&path)).send().await.unwrap();
        assert_eq!(res.status(), 401, "{method} {path}");
    }
    w.stop().await;
}

#[actix_web::test]
async fn a_picture_pass_waits_while_a_sync_of_the_organization_runs() {
    let w = start().await;
    // Slow answers keep the sync going for seconds after its items are in.
    w.sim.handle().set_faults(Faults { latency_ms: 150, ..Default::default() });
    let tables = ["items", "shopOrders", "shopOrderMaterialPlans", "stockPositions", "storageLocationStockPositions"];
    let res = w.post_json("/api/v1/sync", json!({ "endpoints": tables })).await;
    assert_eq!(res.status(), 202);
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut waited_while_syncing = 0;
    loop {
        let sync: Value = w.get("/api/v1/sync").await.json().await.unwrap();
        if sync["running"] != true {
            break;
        }
        if status(&w).await["running"] == true {
            // the pass has started (the items are in) and the sync goes on: no picture yet
            assert_eq!(w.sim.handle().counters().pictures, 0, "a picture was fetched while the sync ran");
            waited_while_syncing += 1;
        }
        assert!(Instant::now() < deadline, "the sync finished in time");
        actix_web::rt::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(waited_while_syncing >= 5, "the pass was seen waiting for the sync: {waited_while_syncing}");
    w.sim.handle().set_faults(Faults::default());
    let s = wait_for_pass(&w, 0).await;
    assert!(w.sim.handle().counters().pictures > 0, "fetched once the sync was done: {s}");
    w.stop().await;
}
