//! One test per fact of the reference (shared/reference/exact-online-api.md).

use super::{DIV, DIV2, REDIRECT, Sim, results, sign_in, token};
use reqwest::Method;
use serde_json::{Value, json};

const SO_SELECT: &str = "$select=ID,ShopOrderNumber,IsReleased,PlannedDate,Timestamp,PlannedQuantity";

#[actix_web::test]
async fn sign_in_page_is_a_plain_form_whose_default_is_the_first_demo_user() {
    let s = Sim::start().await;
    let html = s
        .client
        .get(
            s.url("/api/oauth2/auth?client_id=demo-client&redirect_uri=http%3A%2F%2Fx%2Fcb&response_type=code&state=a"),
        )
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(html.contains("<form method=\"post\""));
    let fields = super::form_fields(&html);
    assert!(fields.contains(&("user".to_string(), "0".to_string())), "first user checked: {fields:?}");
    assert!(html.contains(&s.h().0.users[0].user_name));
    let wrong = s.client.get(s.url("/api/oauth2/auth?client_id=nobody&redirect_uri=x")).send().await.unwrap();
    assert_eq!(wrong.status(), 400);
    s.stop().await;
}

#[actix_web::test]
async fn token_response_has_expires_in_as_the_string_600() {
    let s = Sim::start().await;
    let page = s
        .client
        .get(s.url("/api/oauth2/auth?client_id=demo-client&redirect_uri=http%3A%2F%2Flocalhost%3A9%2Fcallback&state=q"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let res = s.client.post(s.url("/api/oauth2/auth")).form(&super::form_fields(&page)).send().await.unwrap();
    let loc = url::Url::parse(res.headers()["location"].to_str().unwrap()).unwrap();
    let code: String = loc.query_pairs().find(|(k, _)| k == "code").unwrap().1.into_owned();
    assert!(code.contains('!'), "codes contain '!'");
    let t = token(
        &s.client,
        s.sim.base_url(),
        &[("grant_type", "authorization_code"), ("code", &code), ("redirect_uri", REDIRECT)],
    )
    .await;
    let body: Value = t.json().await.unwrap();
    assert_eq!(body["expires_in"], json!("600"));
    assert!(body["token_type"].as_str().unwrap().eq_ignore_ascii_case("bearer"));
    // Codes are single use.
    let again = token(
        &s.client,
        s.sim.base_url(),
        &[("grant_type", "authorization_code"), ("code", &code), ("redirect_uri", REDIRECT)],
    )
    .await;
    assert_eq!(again.status(), 400);
    s.stop().await;
}

#[actix_web::test]
async fn codes_expire_after_three_minutes() {
    let s = Sim::start().await;
    let page = s
        .client
        .get(s.url("/api/oauth2/auth?client_id=demo-client&redirect_uri=http%3A%2F%2Flocalhost%3A9%2Fcallback&state=q"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let res = s.client.post(s.url("/api/oauth2/auth")).form(&super::form_fields(&page)).send().await.unwrap();
    let loc = url::Url::parse(res.headers()["location"].to_str().unwrap()).unwrap();
    let code: String = loc.query_pairs().find(|(k, _)| k == "code").unwrap().1.into_owned();
    s.h().advance_clock(181);
    let t = token(
        &s.client,
        s.sim.base_url(),
        &[("grant_type", "authorization_code"), ("code", &code), ("redirect_uri", REDIRECT)],
    )
    .await;
    assert_eq!(t.status(), 400);
    s.stop().await;
}

#[actix_web::test]
async fn wrong_client_secret_is_invalid_request() {
    let s = Sim::start().await;
    let res = s
        .client
        .post(s.url("/api/oauth2/token"))
        .form(&[
            ("grant_type", "refresh_token"),
            ("client_id", "demo-client"),
            ("client_secret", "nope"),
            ("refresh_token", &s.refresh),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(res.json::<Value>().await.unwrap(), json!({"error": "invalid_request"}));
    s.stop().await;
}

#[actix_web::test]
async fn refreshing_before_570_seconds_is_too_early() {
    let s = Sim::start().await;
    s.h().advance_clock(569);
    let res =
        token(&s.client, s.sim.base_url(), &[("grant_type", "refresh_token"), ("refresh_token", &s.refresh)]).await;
    assert_eq!(res.status(), 400);
    assert_eq!(res.headers()["reason"], "TooEarlyToRefreshTokens: Rate limit exceeded: access_token not expired");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"], "access_denied");
    assert_eq!(body["error_description"], "Rate limit exceeded: access_token not expired");
    s.stop().await;
}

#[actix_web::test]
async fn refresh_tokens_rotate_and_old_ones_are_refused() {
    let s = Sim::start().await;
    s.h().advance_clock(571);
    let res =
        token(&s.client, s.sim.base_url(), &[("grant_type", "refresh_token"), ("refresh_token", &s.refresh)]).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_ne!(body["refresh_token"].as_str().unwrap(), s.refresh);
    s.h().advance_clock(600);
    let old =
        token(&s.client, s.sim.base_url(), &[("grant_type", "refresh_token"), ("refresh_token", &s.refresh)]).await;
    assert_eq!(old.status(), 401);
    assert_eq!(
        old.json::<Value>().await.unwrap(),
        json!({"error": "unauthorized_client", "error_description": "Old refresh token used."})
    );
    s.stop().await;
}

#[actix_web::test]
async fn access_tokens_live_600_seconds() {
    let s = Sim::start().await;
    assert_eq!(s.get("logistics/ItemGroups").await.status(), 200);
    s.h().advance_clock(599);
    assert_eq!(s.get("logistics/ItemGroups").await.status(), 200);
    s.h().advance_clock(2);
    let r = s.get("logistics/ItemGroups").await;
    assert_eq!(r.status(), 401);
    s.stop().await;
}

#[actix_web::test]
async fn a_second_sign_in_kills_the_first_refresh_chain() {
    let s = Sim::start().await;
    let (_, _second) = sign_in(&s.client, s.sim.base_url()).await;
    s.h().advance_clock(600);
    let res =
        token(&s.client, s.sim.base_url(), &[("grant_type", "refresh_token"), ("refresh_token", &s.refresh)]).await;
    assert_eq!(res.status(), 401);
    s.stop().await;
}

#[actix_web::test]
async fn me_is_a_one_row_collection_without_rate_limit_headers() {
    let s = Sim::start().await;
    let r = s.get_abs(&s.url("/api/v1/current/Me")).await;
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("x-ratelimit-limit").is_none(), "Me is not division scoped");
    let v: Value = r.json().await.unwrap();
    let rows = results(&v);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["CurrentDivision"], DIV);
    assert_eq!(rows[0]["__metadata"]["type"], "Exact.Web.Api.System.Me");
    assert_eq!(rows[0]["PictureUrl"], "https://start.exactonline.nl//docs/images/placeholder_contact_myeol.png");
    s.stop().await;
}

#[actix_web::test]
async fn divisions_lists_two_companies_with_their_own_data() {
    let s = Sim::start().await;
    let v = s.json("system/Divisions").await;
    let codes: Vec<i64> = results(&v).iter().map(|r| r["Code"].as_i64().unwrap()).collect();
    assert_eq!(codes, vec![DIV as i64, DIV2 as i64]);
    let a = s.h().rows(DIV, "logistics/Items").unwrap();
    let b = s.h().rows(DIV2, "logistics/Items").unwrap();
    assert!(!a.is_empty() && !b.is_empty());
    assert_ne!(a[0]["ID"], b[0]["ID"]);
    s.stop().await;
}

#[actix_web::test]
async fn hrm_divisions_lists_the_licences_divisions_as_a_regular_endpoint() {
    let s = Sim::start().await;
    let v = s.json("hrm/Divisions").await;
    let rows = results(&v);
    let codes: Vec<i64> = rows.iter().map(|r| r["Code"].as_i64().unwrap()).collect();
    assert_eq!(codes, vec![DIV as i64, DIV2 as i64]);
    assert!(v["d"].get("__next").is_none(), "two divisions fit one page");
    let first = &rows[0];
    assert_eq!(first["__metadata"]["uri"], format!("{}/api/v1/{DIV}/hrm/Divisions({DIV})", s.sim.base_url()));
    assert_eq!(first["__metadata"]["type"], "Exact.Web.Api.Models.HRM.Division");
    // hrm/Divisions says HID and Main where system/Divisions says Hid and IsMainDivision.
    assert_eq!((first["HID"].as_str(), first["Main"].as_bool()), (Some("1"), Some(true)));
    assert!(first.get("Hid").is_none() && first.get("IsMainDivision").is_none() && first.get("Current").is_none());
    assert_eq!(
        (first["Currency"].as_str(), first["Country"].as_str(), first["Status"].as_i64()),
        (Some("EUR"), Some("NL"), Some(1))
    );
    assert_eq!(rows[1]["CustomerName"], first["CustomerName"], "one licence, one customer");
    assert!(first["Created"].as_str().unwrap().starts_with("/Date("));

    let v = s.json(&format!("hrm/Divisions?$select=Code,Description&$filter=Code eq {DIV2}")).await;
    let rows = results(&v);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["Code"].as_i64(), Some(DIV2 as i64));
    let keys: Vec<&str> = rows[0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["__metadata", "Code", "Description"]);

    // Paging: a page of one row names the next by the last Code.
    let v = s.json("hrm/Divisions?$select=Code&$top=1").await;
    assert_eq!(results(&v).len(), 1);
    assert!(v["d"].get("__next").is_none(), "$top=1 asked for one row only");
    let one = s.json(&format!("hrm/Divisions({DIV2})")).await;
    assert_eq!(one["d"]["Code"].as_i64(), Some(DIV2 as i64));
    let v = s.json(&format!("hrm/Divisions?$skiptoken={DIV}")).await;
    assert_eq!(results(&v).iter().map(|r| r["Code"].as_i64().unwrap()).collect::<Vec<_>>(), vec![DIV2 as i64]);

    assert_eq!(s.get("hrm/Divisions?$select=Hid").await.status(), 400);
    assert_eq!(s.send(Method::DELETE, &format!("hrm/Divisions({DIV})"), None).await.status(), 405);
    s.stop().await;
}

#[actix_web::test]
async fn collections_use_the_verbose_envelope_with_metadata() {
    let s = Sim::start().await;
    let v = s.json("inventory/Warehouses?$select=ID,Code,Description").await;
    let rows = results(&v);
    assert!(rows.len() >= 4);
    let uri = rows[0]["__metadata"]["uri"].as_str().unwrap();
    assert!(uri.starts_with(&format!("{}/api/v1/{DIV}/inventory/Warehouses(guid'", s.sim.base_url())));
    assert_eq!(rows[0]["__metadata"]["type"], "Exact.Web.Api.Models.Inventory.Warehouse");
    assert!(v["d"].get("__next").is_none(), "no __next on the last page");
    assert!(rows.iter().any(|r| r["Code"].as_str().unwrap().ends_with('3')), "a warehouse code ending in 3");
    s.stop().await;
}

#[actix_web::test]
async fn regular_pages_hold_60_rows_and_an_absolute_next() {
    let s = Sim::start().await;
    let v = s.json("logistics/Items?$filter=IsStockItem eq true&$select=ID,Code").await;
    assert_eq!(results(&v).len(), 60);
    let next = v["d"]["__next"].as_str().unwrap();
    assert!(next.starts_with(&format!("{}/api/v1/{DIV}/logistics/Items?", s.sim.base_url())));
    assert!(next.contains("$skiptoken=guid"));
    assert!(next.contains("%24select=ID%2CCode") || next.contains("$select=ID%2CCode"), "{next}");
    let page2: Value = s.get_abs(next).await.json().await.unwrap();
    assert_eq!(results(&page2).len(), 60);
    assert_ne!(results(&page2)[0]["ID"], results(&v)[0]["ID"]);
    s.stop().await;
}

#[actix_web::test]
async fn sync_pages_hold_1000_rows_with_a_timestamp_skiptoken() {
    let s = Sim::start().await;
    let v =
        s.json("sync/Inventory/StorageLocationStockPositions?$filter=Timestamp gt 1L&$select=ID,Stock,Timestamp").await;
    let rows = results(&v);
    assert_eq!(rows.len(), 1000);
    let ts: Vec<i64> = rows.iter().map(|r| r["Timestamp"].as_str().unwrap().parse().unwrap()).collect();
    assert!(ts.windows(2).all(|w| w[0] < w[1]), "ascending Timestamp");
    let next = v["d"]["__next"].as_str().unwrap();
    assert!(next.ends_with(&format!("$skiptoken={}L", ts[999])), "{next}");
    s.stop().await;
}

#[actix_web::test]
async fn select_is_mandatory_on_sync_and_bulk_and_star_is_refused() {
    let s = Sim::start().await;
    for path in [
        "sync/Logistics/Items?$filter=Timestamp gt 1",
        "sync/Logistics/Items?$filter=Timestamp gt 1&$select=*",
        "bulk/Logistics/Items",
    ] {
        let r = s.get(path).await;
        assert_eq!(r.status(), 400, "{path}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["error"]["code"], "");
        assert_eq!(v["error"]["message"]["lang"], "");
        assert!(v["error"]["message"]["value"].as_str().unwrap().contains("$select"), "{v}");
    }
    let bulk = s.json("bulk/Logistics/Items?$select=ID,Code").await;
    assert_eq!(results(&bulk).len(), 1000);
    s.stop().await;
}

#[actix_web::test]
async fn unknown_fields_in_select_filter_or_orderby_are_400() {
    let s = Sim::start().await;
    for path in [
        "inventory/Warehouses?$select=ID,Nope",
        "inventory/Warehouses?$filter=Nope eq 1",
        "inventory/Warehouses?$orderby=Nope",
        "inventory/Warehouses?$filter=Code eq",
        "inventory/Warehouses?$filter=Code",
    ] {
        assert_eq!(s.get(path).await.status(), 400, "{path}");
    }
    let v: Value = s.get("inventory/Warehouses?$filter=Code").await.json().await.unwrap();
    assert_eq!(v["error"]["message"]["value"], "Expression of type 'System.Boolean' expected at position 0.");
    s.stop().await;
}

#[actix_web::test]
async fn regular_endpoints_with_a_sync_twin_demand_a_filter() {
    let s = Sim::start().await;
    let r = s.get("manufacturing/ShopOrders?$select=ID").await;
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert!(
        v["error"]["message"]["value"]
            .as_str()
            .unwrap()
            .starts_with("A GET request for this endpoint must have a $filter")
    );
    assert_eq!(s.get("manufacturing/ShopOrders?$select=ID&$filter=Status eq 10").await.status(), 200);
    s.stop().await;
}

#[actix_web::test]
async fn sync_filters_accept_only_timestamp_and_deleted_also_entity_type() {
    let s = Sim::start().await;
    assert_eq!(s.get("sync/Manufacturing/ShopOrders?$select=ID&$filter=Status eq 10").await.status(), 400);
    assert_eq!(
        s.get("sync/Deleted?$select=EntityKey,EntityType,Timestamp&$filter=Timestamp gt 1L and EntityType eq 2")
            .await
            .status(),
        200
    );
    s.stop().await;
}

#[actix_web::test]
async fn literals_follow_their_edm_types() {
    let s = Sim::start().await;
    let v = s.json(&format!("sync/Manufacturing/ShopOrders?$filter=Timestamp gt 1L&{SO_SELECT}")).await;
    let r = &results(&v)[0];
    assert!(r["Timestamp"].is_string(), "Int64 as a string");
    assert!(r["IsReleased"].is_u64(), "Byte as 0/1");
    assert!(r["PlannedQuantity"].is_number());
    let d = r["PlannedDate"].as_str().unwrap();
    assert!(d.starts_with("/Date(") && d.ends_with(")/"));
    let ms: i64 = d[6..d.len() - 2].parse().unwrap();
    assert_eq!(ms % 86_400_000, 0, "date-only values sit at 00:00");
    assert!(r["ID"].as_str().unwrap().chars().all(|c| c == '-' || c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    let items =
        s.json("sync/Logistics/Items?$filter=Timestamp gt 1L&$select=IsStockItem,Unit,PictureUrl,Barcode").await;
    assert!(results(&items)[0]["IsStockItem"].is_boolean(), "Boolean as true/false");
    assert_eq!(results(&items)[0]["Unit"].as_str().unwrap().len(), 8, "padded unit");
    let accounts = s.json("sync/CRM/Accounts?$filter=Timestamp gt 1L&$select=Code,Name").await;
    assert_eq!(results(&accounts)[0]["Code"].as_str().unwrap().len(), 18, "account codes are 18 wide");
    assert!(results(&accounts)[0]["Code"].as_str().unwrap().starts_with(' '));
    s.stop().await;
}

#[actix_web::test]
async fn filters_understand_guid_datetime_int64_and_string_functions() {
    let s = Sim::start().await;
    let all = s.h().rows(DIV, "manufacturing/ShopOrders").unwrap();
    let id = all[0]["ID"].as_str().unwrap();
    let one = s.json(&format!("manufacturing/ShopOrders?$filter=ID eq guid'{id}'&$select=ID")).await;
    assert_eq!(results(&one).len(), 1);
    let by_number = s.json("manufacturing/ShopOrders?$filter=substringof('2400',ShopOrderNumberString) eq true&$select=ShopOrderNumber").await;
    assert!(!results(&by_number).is_empty());
    let dated = s.json("manufacturing/ShopOrders?$filter=PlannedDate ge datetime'2026-03-10T00:00:00' and not (Status eq 40)&$select=PlannedDate,Status").await;
    for r in results(&dated) {
        assert_ne!(r["Status"], 40);
    }
    let starts = s.json("logistics/Items?$filter=startswith(Code,'ZV') eq true&$select=Code").await;
    assert!(!results(&starts).is_empty());
    assert!(results(&starts).iter().all(|r| r["Code"].as_str().unwrap().starts_with("ZV")));
    let trimmed = s.json("crm/Accounts?$filter=trim(Code) eq '10000'&$select=Code").await;
    assert_eq!(results(&trimmed).len(), 1);
    let padded = s.json("crm/Accounts?$filter=Code eq '10000'&$select=Code").await;
    assert_eq!(results(&padded).len(), 0, "unpadded codes match nothing");
    s.stop().await;
}

#[actix_web::test]
async fn top_orderby_inlinecount_and_count() {
    let s = Sim::start().await;
    let v = s.json("inventory/StorageLocations?$top=5&$orderby=Code desc&$inlinecount=allpages&$select=Code").await;
    let rows = results(&v);
    assert_eq!(rows.len(), 5);
    let codes: Vec<&str> = rows.iter().map(|r| r["Code"].as_str().unwrap()).collect();
    let mut sorted = codes.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(codes, sorted);
    let total = s.h().rows(DIV, "inventory/StorageLocations").unwrap().len();
    assert_eq!(v["d"]["__count"], json!(total.to_string()));
    assert!(v["d"].get("__next").is_none(), "$top=5 is satisfied");
    let count = s
        .client
        .get(s.url(&format!("/api/v1/{DIV}/inventory/StorageLocations/$count")))
        .bearer_auth(&s.token)
        .send()
        .await
        .unwrap();
    assert_eq!(count.text().await.unwrap(), total.to_string());
    s.stop().await;
}

#[actix_web::test]
async fn without_a_json_accept_header_the_answer_is_atom() {
    let s = Sim::start().await;
    let r =
        s.client.get(s.url(&format!("/api/v1/{DIV}/inventory/Warehouses"))).bearer_auth(&s.token).send().await.unwrap();
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("application/atom+xml"));
    let body = r.text().await.unwrap();
    assert!(body.contains("<feed") && body.contains("<m:properties>") && body.contains("<d:Code"));
    s.stop().await;
}

#[actix_web::test]
async fn rate_limit_headers_are_six_epoch_ms_values() {
    let s = Sim::start().await;
    let r = s.get("logistics/ItemGroups").await;
    let h = r.headers();
    let n = |k: &str| h[k].to_str().unwrap().parse::<i64>().unwrap();
    assert_eq!(n("x-ratelimit-limit"), 5000);
    assert_eq!(n("x-ratelimit-remaining"), 4999);
    assert_eq!(n("x-ratelimit-minutely-limit"), 60);
    assert_eq!(n("x-ratelimit-minutely-remaining"), 59);
    let now = s.h().now_ms();
    let m = n("x-ratelimit-minutely-reset");
    assert_eq!(m % 60_000, 0, "whole minutes");
    assert!(m > now && m - now <= 60_000);
    assert_eq!(n("x-ratelimit-reset") % 86_400_000, 0, "daily reset at 00:00 UTC");
    s.stop().await;
}

#[actix_web::test]
async fn the_61st_call_in_a_minute_is_429_with_only_minutely_headers() {
    let s = Sim::start().await;
    for _ in 0..60 {
        assert_eq!(s.get("logistics/ItemGroups?$select=ID").await.status(), 200);
    }
    let r = s.get("logistics/ItemGroups?$select=ID").await;
    assert_eq!(r.status(), 429);
    assert!(r.headers().get("x-ratelimit-limit").is_none(), "daily headers omitted");
    assert_eq!(r.headers()["x-ratelimit-minutely-remaining"], "0");
    let v: Value = r.json().await.unwrap();
    assert!(v["error"]["message"]["value"].is_string());
    // Other companies keep their own budget.
    let other = s.get_abs(&s.url(&format!("/api/v1/{DIV2}/logistics/ItemGroups"))).await;
    assert_eq!(other.status(), 200);
    let counters = s.h().counters();
    assert_eq!(counters.sent_429, 1);
    // The counters keep each division's minute apart (62 calls: 61 of this one, 1 of the other).
    let mut per_division: Vec<u64> = counters.calls_per_minute.values().copied().collect();
    per_division.sort();
    assert_eq!(per_division, vec![1, 61], "{:?}", counters.calls_per_minute);
    assert_eq!(counters.all_calls_per_minute.values().sum::<u64>(), 62);
    s.h().advance_clock(60);
    assert_eq!(s.get("logistics/ItemGroups?$select=ID").await.status(), 200, "the next wall-clock minute opens");
    s.stop().await;
}

#[actix_web::test]
async fn rate_limits_can_be_switched_off() {
    let s = Sim::start_with(esm_sim::SimOptions { rate_limits: false, ..Default::default() }).await;
    for _ in 0..65 {
        assert_eq!(s.get("logistics/ItemGroups?$select=ID").await.status(), 200);
    }
    s.stop().await;
}

#[actix_web::test]
async fn methods_outside_the_reference_are_405() {
    let s = Sim::start().await;
    for (m, path) in [
        (Method::PUT, "manufacturing/MaterialIssues(guid'00000000-0000-0000-0000-000000000001')"),
        (Method::POST, "inventory/StorageLocations"),
        (Method::DELETE, "purchaseorder/GoodsReceipts(guid'00000000-0000-0000-0000-000000000001')"),
        (Method::POST, "sync/Manufacturing/ShopOrders"),
        (Method::GET, "inventory/ProcessWarehouseTransfer"),
        (Method::PATCH, "manufacturing/ShopOrders"),
    ] {
        let r = s.send(m.clone(), path, Some(json!({}))).await;
        assert_eq!(r.status(), 405, "{m} {path}");
    }
    assert_eq!(s.get("nope/Nothing").await.status(), 404);
    let other = s.get_abs(&s.url("/api/v1/999/inventory/Warehouses")).await;
    assert_eq!(other.status(), 403);
    assert_eq!(other.headers()["reason"], "NoDivisionAccess");
    s.stop().await;
}

#[actix_web::test]
async fn key_lookup_returns_the_object_directly_under_d() {
    let s = Sim::start().await;
    let id = s.h().rows(DIV, "inventory/Warehouses").unwrap()[0]["ID"].as_str().unwrap().to_string();
    let v = s.json(&format!("inventory/Warehouses(guid'{id}')")).await;
    assert_eq!(v["d"]["ID"], json!(id));
    assert!(v["d"].get("results").is_none());
    assert_eq!(s.get("inventory/Warehouses(guid'00000000-0000-0000-0000-000000000009')").await.status(), 404);
    s.stop().await;
}

#[actix_web::test]
async fn post_is_201_with_the_entity_and_put_delete_are_204_empty() {
    let s = Sim::start().await;
    let item = s.h().rows(DIV, "logistics/Items").unwrap().into_iter().find(|r| r["IsMakeItem"] == 1).unwrap();
    let r = s
        .send(
            Method::POST,
            "manufacturing/ShopOrders",
            Some(json!({"Item": item["ID"], "PlannedQuantity": "3", "PlannedDate": "2026-04-01T00:00:00"})),
        )
        .await;
    assert_eq!(r.status(), 201);
    let v: Value = r.json().await.unwrap();
    let id = v["d"]["ID"].as_str().unwrap().to_string();
    assert_eq!(v["d"]["ItemCode"], item["Code"]);
    assert_eq!(v["d"]["PlannedQuantity"].as_f64(), Some(3.0));
    assert!(
        v["d"]["ShopOrderMaterialPlans"]["__deferred"]["uri"].as_str().unwrap().ends_with("/ShopOrderMaterialPlans")
    );
    let before = s.h().last_timestamp(DIV).unwrap();
    let put = s
        .send(
            Method::PUT,
            &format!("manufacturing/ShopOrders(guid'{id}')"),
            Some(json!({"PlannedDate": "2026-04-08T00:00:00", "IsOnHold": 1})),
        )
        .await;
    assert_eq!(put.status(), 204);
    assert!(put.bytes().await.unwrap().is_empty());
    let after = s.h().last_timestamp(DIV).unwrap();
    assert!(after > before);
    let changed = s
        .json(&format!(
            "sync/Manufacturing/ShopOrders?$filter=Timestamp gt {before}L&$select=ID,PlannedDate,IsOnHold,Timestamp"
        ))
        .await;
    let rows = results(&changed);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["ID"], json!(id));
    assert_eq!(rows[0]["PlannedDate"], json!("/Date(1775606400000)/"));
    assert_eq!(rows[0]["IsOnHold"], 1);
    let del = s.send(Method::DELETE, &format!("manufacturing/ShopOrders(guid'{id}')"), None).await;
    assert_eq!(del.status(), 204);
    assert!(del.bytes().await.unwrap().is_empty());
    assert_eq!(s.get(&format!("manufacturing/ShopOrders(guid'{id}')")).await.status(), 404);
    let c = s.h().counters();
    assert_eq!(c.writes["POST manufacturing/ShopOrders"], 1);
    assert_eq!(c.writes["PUT manufacturing/ShopOrders"], 1);
    assert_eq!(c.writes["DELETE manufacturing/ShopOrders"], 1);
    s.stop().await;
}

#[actix_web::test]
async fn bad_bodies_and_missing_mandatory_fields_are_400() {
    let s = Sim::start().await;
    let r = s
        .client
        .post(s.url(&format!("/api/v1/{DIV}/manufacturing/ShopOrders")))
        .bearer_auth(&s.token)
        .header("Content-Type", "application/json")
        .body("[1,2]")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        v["error"]["message"]["value"],
        "Error processing request stream. The request should be a valid top-level resource object."
    );
    assert_eq!(
        s.send(Method::POST, "manufacturing/ShopOrders", Some(json!({"PlannedQuantity": 1}))).await.status(),
        400
    );
    assert_eq!(
        s.send(Method::POST, "manufacturing/ShopOrders", Some(json!({"Bogus": 1}))).await.status(),
        400,
        "Item is mandatory"
    );
    let item = s.h().rows(DIV, "logistics/Items").unwrap()[0]["ID"].clone();
    let ok = s
        .send(
            Method::POST,
            "manufacturing/ShopOrders",
            Some(json!({"Item": item, "PlannedQuantity": 1, "AccessCode": "x", "Status": 40})),
        )
        .await;
    assert_eq!(ok.status(), 201, "unknown properties are ignored");
    let v: Value = ok.json().await.unwrap();
    assert_eq!(v["d"]["Status"], 10, "read-only properties are ignored; new shop orders are open");
    assert_eq!(v["d"]["Type"], 9040);
    assert!(v["d"]["ShopOrderNumber"].as_i64().unwrap() > 24_000);
    assert_eq!(
        s.send(Method::POST, "manufacturing/ShopOrders", Some(json!({"Item": "not-a-guid", "PlannedQuantity": 1})))
            .await
            .status(),
        400
    );
    s.stop().await;
}

#[actix_web::test]
async fn deletions_land_in_sync_deleted_with_their_entity_type() {
    let s = Sim::start().await;
    let so = s.h().rows(DIV, "manufacturing/ShopOrders").unwrap()[0]["ID"].as_str().unwrap().to_string();
    let before = s.h().last_timestamp(DIV).unwrap();
    assert_eq!(s.send(Method::DELETE, &format!("manufacturing/ShopOrders(guid'{so}')"), None).await.status(), 204);
    let iw = s.h().rows(DIV, "inventory/ItemWarehouses").unwrap()[0]["ID"].as_str().unwrap().to_string();
    assert_eq!(s.send(Method::DELETE, &format!("inventory/ItemWarehouses(guid'{iw}')"), None).await.status(), 204);
    let v = s
        .json(&format!(
            "sync/Deleted?$filter=Timestamp gt {before}L&$select=EntityKey,EntityType,Timestamp,DeletedDate,Division"
        ))
        .await;
    let rows = results(&v);
    let of = |key: &str| rows.iter().find(|r| r["EntityKey"] == json!(key)).map(|r| r["EntityType"].as_i64().unwrap());
    assert_eq!(of(&so), Some(36));
    assert_eq!(of(&iw), Some(19));
    assert!(rows.iter().any(|r| r["EntityType"] == 37), "its material plans go too");
    assert!(rows.iter().any(|r| r["EntityType"] == 38), "and its routing steps");
    assert_eq!(rows[0]["Division"], DIV);
    s.stop().await;
}

#[actix_web::test]
async fn item_pictures_are_real_images_behind_the_bearer_token() {
    let s = Sim::start().await;
    let items = s.h().rows(DIV, "logistics/Items").unwrap();
    let with = items.iter().find(|r| r["PictureUrl"].as_str().unwrap().contains("SysImage.aspx")).unwrap();
    assert!(items.iter().any(|r| r["PictureUrl"] == "https://start.exactonline.nl//docs/images/placeholder_item.png"));
    let url = with["PictureUrl"].as_str().unwrap();
    assert_eq!(s.client.get(url).send().await.unwrap().status(), 401);
    let r = s.client.get(url).bearer_auth(&s.token).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let bytes = r.bytes().await.unwrap();
    assert!(image::load_from_memory(&bytes).is_ok());
    let thumb = with["PictureThumbnailUrl"].as_str().unwrap();
    let t = s.client.get(thumb).bearer_auth(&s.token).send().await.unwrap().bytes().await.unwrap();
    assert_eq!(image::load_from_memory(&t).unwrap().width(), 100);
    s.stop().await;
}

#[actix_web::test]
async fn item_extra_fields_include_bewerkingen() {
    let s = Sim::start().await;
    let all = s.h().rows(DIV, "read/logistics/ItemExtraField").unwrap();
    let b = all.iter().find(|r| r["Description"] == "Bewerkingen").unwrap();
    let item = b["ItemID"].as_str().unwrap();
    let v = s.json(&format!("read/logistics/ItemExtraField?itemId=guid'{item}'")).await;
    let rows = results(&v);
    assert!(rows.len() >= 2);
    assert!(rows.iter().all(|r| r["ItemID"] == json!(item)));
    assert!(rows.iter().any(|r| r["Description"] == "Bewerkingen" && r["Number"].is_number()));
    s.stop().await;
}

#[actix_web::test]
async fn every_endpoint_the_product_syncs_serves_its_full_select_list() {
    let s = Sim::start_with(esm_sim::SimOptions { rate_limits: false, ..Default::default() }).await;
    use stock_manager::exact::schema;
    let sync = [
        "CRM/Accounts",
        "SalesOrder/SalesOrderHeaders",
        "SalesOrder/SalesOrderLines",
        "Inventory/StorageLocationStockPositions",
        "Manufacturing/ShopOrders",
        "Logistics/Items",
        "Inventory/ItemWarehouses",
        "Project/Projects",
        "Manufacturing/ShopOrderMaterialPlans",
        "Logistics/SupplierItem",
        "Inventory/StockPositions",
        "Manufacturing/ShopOrderRoutingStepPlans",
        "Deleted",
    ];
    for path in sync {
        let e = schema::sync_entity(path).unwrap_or_else(|| panic!("{path}"));
        let v = s.json(&format!("{}?$filter=Timestamp gt 1L&$select={}", e.path, e.select_all())).await;
        let rows = results(&v);
        if path != "Deleted" {
            assert!(!rows.is_empty(), "{path} has demo data");
        }
        for r in rows.iter().take(3) {
            for f in e.fields.iter().filter(|f| f.ty.is_scalar()) {
                assert!(r.get(f.name).is_some(), "{path}.{}", f.name);
            }
        }
    }
    for path in [
        "inventory/StorageLocations",
        "inventory/Warehouses",
        "logistics/SelectionCodes",
        "logistics/ItemGroups",
        "manufacturing/Operations",
        "payroll/Employees",
    ] {
        let e = schema::entity(path).unwrap();
        let v = s.json(&format!("{path}?$select={}", e.select_all())).await;
        assert!(!results(&v).is_empty(), "{path}");
    }
    let long = format!("inventory/Warehouses?$filter={}", vec!["Code eq '1'"; 600].join(" or "));
    assert_eq!(s.get(&long).await.status(), 400, "URLs over 6000 characters are refused");
    s.stop().await;
}
