//! Operator timers kept by the server: every handheld of an organization sees them, no other
//! organization does, a restart keeps them, and bad input is refused with a clear 400.

use crate::provider::{World, browser_sign_in, server_for};
use esm_sim::SimOptions;
use reqwest::Method;
use serde_json::{Value, json};
use stock_manager::exact::oauth::now_ms;

const OTHER_DIVISION: i64 = 3154117;

fn start_body() -> Value {
    json!({
        "employee": "0BADC0DE-0000-4000-8000-00000000E001",
        "employeeName": "Anna de Vries",
        "shopOrder": "0badc0de-0000-4000-8000-0000000050a1",
        "shopOrderNumber": "24005",
        "step": "0badc0de-0000-4000-8000-0000000057e1",
        "stepLabel": "10. ZAGEN Zagen",
        "workCenter": "0badc0de-0000-4000-8000-00000000c001",
        "activity": "setup"
    })
}

async fn send(
    client: &reqwest::Client,
    method: Method,
    url: String,
    cookie: &str,
    body: Option<Value>,
) -> reqwest::Response {
    let req = client.request(method, url).header("cookie", cookie);
    let req = match body {
        Some(b) => req.json(&b),
        None => req,
    };
    req.send().await.unwrap()
}

async fn json_of(res: reqwest::Response) -> Value {
    let status = res.status();
    let text = res.text().await.unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{status}: {text}: {e}"))
}

/// The body of a successful answer.
async fn ok_json(res: reqwest::Response) -> Value {
    assert!(res.status().is_success(), "{}: {}", res.status(), res.text().await.unwrap());
    json_of(res).await
}

fn ids(list: &Value) -> Vec<&str> {
    list["timers"].as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect()
}

#[actix_web::test]
async fn operator_timers_belong_to_their_organization_and_survive_a_restart() {
    let mut w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let timers = "/api/v1/hours/timers";

    // Start: the server's clock sets the start, the server names the timer.
    let before = now_ms();
    let res = w.post_json(timers, start_body()).await;
    assert_eq!(res.status(), 201);
    let started = json_of(res).await;
    let after = now_ms();
    let id = started["id"].as_str().expect("an id").to_string();
    let at = started["startedMs"].as_i64().expect("a start");
    assert!((before..=after).contains(&at), "{at} within {before}..{after}");
    assert_eq!(started["employee"], "0badc0de-0000-4000-8000-00000000e001");
    assert_eq!(started["activity"], "setup");
    assert_eq!(started["shopOrderNumber"], "24005");

    // List: the timer and the server's time, for the elapsed time a handheld shows.
    let list = ok_json(w.get(timers).await).await;
    assert_eq!(list["timers"], json!([started]));
    assert!(list["now"].as_i64().unwrap() >= at);

    // A second handheld signed in to the same organization sees it.
    let hand = browser_sign_in(&w.server.url).await;
    assert_eq!(hand.session["division"], w.division);
    let client = w.server.client.clone();
    // every sign-in completes its login process with the organization's licence code
    let customer = hand.session["customer_name"].as_str().unwrap().to_string();
    let code = w.issuer.issue(w.division, &customer, None);
    let activate = json!({"division": w.division, "code": code});
    let res = send(&client, Method::POST, w.server.at("/api/v1/license/activate"), &hand.cookie, Some(activate)).await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    let seen = ok_json(send(&client, Method::GET, w.server.at(timers), &hand.cookie, None).await).await;
    assert_eq!(ids(&seen), [id.as_str()]);

    // A timer a browser kept before carries its id and start; posting it twice keeps one.
    let mut carried = start_body();
    carried["id"] = json!("1764100000000-ab12cd");
    carried["startedMs"] = json!(at - 90 * 60_000);
    carried["workCenter"] = Value::Null;
    let res = w.post_json(timers, carried.clone()).await;
    assert_eq!(res.status(), 201);
    assert_eq!(json_of(res).await["startedMs"], json!(at - 90 * 60_000));
    let res = w.post_json(timers, carried).await;
    assert_eq!(res.status(), 200, "the same timer again");
    let list = ok_json(w.get(timers).await).await;
    assert_eq!(ids(&list), ["1764100000000-ab12cd", id.as_str()], "oldest first, once each");

    // Bad input: a 400 in the catalogue's shape that names what is wrong.
    for (field, value, says) in [
        ("employee", json!("anna"), "'employee' must be an employee ID"),
        ("shopOrderNumber", json!("SO 24005"), "'shopOrderNumber'"),
        ("startedMs", json!(now_ms() + 3_600_000), "'startedMs' lies in the future"),
        ("activity", json!("lunch"), "unknown variant"),
    ] {
        let mut bad = start_body();
        bad[field] = value;
        let res = w.post_json(timers, bad).await;
        assert_eq!(res.status(), 400, "{field}");
        let body = json_of(res).await;
        assert_eq!(body["error"]["code"], "bad_request", "{body}");
        assert!(body["error"]["message"].as_str().unwrap().contains(says), "{field}: {body}");
    }
    let mut missing = start_body();
    missing.as_object_mut().unwrap().remove("step");
    let body = json_of(w.post_json(timers, missing).await).await;
    assert!(body["error"]["message"].as_str().unwrap().contains("missing field `step`"), "{body}");
    let res = w.request(Method::DELETE, &format!("{timers}/not%20a%20timer")).send().await.unwrap();
    assert_eq!(res.status(), 400);
    // a Dutch UI is told in Dutch
    let mut ahead = start_body();
    ahead["startedMs"] = json!(now_ms() + 3_600_000);
    let res = w.request(Method::POST, timers).header("accept-language", "nl").json(&ahead).send().await.unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(json_of(res).await["error"]["message"], "De starttijd ('startedMs') ligt in de toekomst");
    let res = w.request(Method::DELETE, &format!("{timers}/never-started")).header("accept-language", "nl").send();
    let res = res.await.unwrap();
    assert_eq!(res.status(), 404);
    assert_eq!(json_of(res).await["error"]["message"], "Die timer loopt niet (meer)");
    assert_eq!(json_of(w.get(timers).await).await["timers"].as_array().unwrap().len(), 2, "nothing bad was kept");

    // Another organization: the second handheld switches to it and sees none of them.
    let other = |path: &str| w.server.at(path);
    let res = send(
        &client,
        Method::POST,
        other("/api/v1/auth/division"),
        &hand.cookie,
        Some(json!({"division": OTHER_DIVISION})),
    )
    .await;
    assert_eq!(res.status(), 200);
    let res = send(&client, Method::GET, other(timers), &hand.cookie, None).await;
    assert_eq!(res.status(), 403, "not activated there: no full access");
    let code = w.issuer.issue(OTHER_DIVISION, "Van Dijk Machinebouw B.V.", None);
    let res = send(
        &client,
        Method::POST,
        other("/api/v1/license/activate"),
        &hand.cookie,
        Some(json!({"division": OTHER_DIVISION, "code": code})),
    )
    .await;
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    let theirs = ok_json(send(&client, Method::GET, other(timers), &hand.cookie, None).await).await;
    assert_eq!(theirs["timers"], json!([]), "another organization sees none");
    let res = send(&client, Method::DELETE, other(&format!("{timers}/{id}")), &hand.cookie, None).await;
    assert_eq!(res.status(), 404, "nor removes one");
    assert_eq!(json_of(res).await["error"]["code"], "not_found");

    // A restart on the same data directory keeps them (and the session).
    let data_dir = w.server.running.as_ref().unwrap().state().config.data_dir.clone();
    w.server.running.take().unwrap().stop(true).await.unwrap();
    let server = server_for(&w.sim, &w.issuer, |c| c.data_dir = data_dir).await;
    let kept = ok_json(send(&client, Method::GET, server.at(timers), &w.cookie, None).await).await;
    assert_eq!(kept["timers"], list["timers"]);

    // Removed (booked), it is gone; removing it again says so.
    let res = send(&client, Method::DELETE, server.at(&format!("{timers}/{id}")), &w.cookie, None).await;
    assert_eq!(res.status(), 204);
    let left = ok_json(send(&client, Method::GET, server.at(timers), &w.cookie, None).await).await;
    assert_eq!(ids(&left), ["1764100000000-ab12cd"]);
    let res = send(&client, Method::DELETE, server.at(&format!("{timers}/{id}")), &w.cookie, None).await;
    assert_eq!(res.status(), 404);

    server.stop().await;
    w.stop().await;
}

/// Two handhelds (two requests of one user here) press Book on the same timer at once: one booking is queued and takes the timer
/// off the list, the other is told the timer is gone (409), so Exact Online gets the hours once.
/// A repeat of the first booking's Idempotency-Key gets its answer, not the 409.
#[actix_web::test]
async fn a_timer_booked_on_two_handhelds_at_once_books_its_hours_once() {
    use crate::outbox::{first_id, rows, writes};
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let d = w.division;
    let employee = first_id(&w.sim, d, "payroll/Employees", |_| true);
    let order = first_id(&w.sim, d, "manufacturing/ShopOrders", |_| true);
    let mut start = start_body();
    start["employee"] = json!(employee);
    start["shopOrder"] = json!(order);
    let timer = ok_json(w.post_json("/api/v1/hours/timers", start).await).await;
    let id = timer["id"].as_str().unwrap().to_string();
    let before = rows(&w.sim, d, "manufacturing/TimeTransactions").len();

    let booking = json!({"data": {"Employee": employee, "Hours": 1.25, "ShopOrder": order, "Activity": 10}});
    let path = format!("/api/v1/exact/timeTransactions?timer={id}&wait=10");
    let book = |cookie: String, key: &'static str| {
        let (client, url, body) = (w.server.client.clone(), w.server.at(&path), booking.clone());
        async move {
            let res = client
                .post(url)
                .header("cookie", cookie)
                .header("Idempotency-Key", key)
                .json(&body)
                .send()
                .await
                .unwrap();
            let status = res.status().as_u16();
            (status, res.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    let (a, b) = tokio::join!(
        book(w.cookie.clone(), "0badc0de-0000-4000-8000-0000000000a1"),
        book(w.cookie.clone(), "0badc0de-0000-4000-8000-0000000000b2")
    );
    let first_won = a.0 != 409;
    let (won, lost) = if first_won { (a, b) } else { (b, a) };
    assert_eq!(won.0, 200, "one booking is delivered: {won:?}");
    assert_eq!(lost.0, 409, "the other is refused: {lost:?}");
    assert_eq!(lost.1["error"]["code"], "timer_gone");
    assert_eq!(writes(&w.sim, "POST manufacturing/TimeTransactions"), 1);
    assert_eq!(rows(&w.sim, d, "manufacturing/TimeTransactions").len(), before + 1);
    let list = ok_json(w.get("/api/v1/hours/timers").await).await;
    assert!(!ids(&list).contains(&id.as_str()), "the booked timer runs no more");

    // the winner's answer got lost and it sends again under its key: the first answer, no 409
    let winner =
        if first_won { "0badc0de-0000-4000-8000-0000000000a1" } else { "0badc0de-0000-4000-8000-0000000000b2" };
    let again = book(w.cookie.clone(), winner).await;
    assert_eq!(again.0, 200, "{again:?}");
    assert_eq!(again.1, won.1);
    assert_eq!(writes(&w.sim, "POST manufacturing/TimeTransactions"), 1);

    // 'timer' goes only with a new booking of hours
    let res = w.post_json(&format!("/api/v1/exact/createStockCount?timer={id}"), json!({})).await;
    assert_eq!(res.status(), 400);
    w.stop().await;
}

/// A booking Exact Online refuses at once leaves its timer running, so the hours are not lost.
#[actix_web::test]
async fn a_timer_whose_booking_is_refused_runs_on() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let timer = ok_json(w.post_json("/api/v1/hours/timers", start_body()).await).await;
    let id = timer["id"].as_str().unwrap().to_string();
    // no employee: Exact Online refuses it
    let booking = json!({"data": {"Hours": 2, "ShopOrder": "0badc0de-0000-4000-8000-0000000050a1"}});
    let res = w.post_json(&format!("/api/v1/exact/timeTransactions?timer={id}&wait=10"), booking).await;
    assert_eq!(res.status(), 422, "{}", res.text().await.unwrap());
    let list = ok_json(w.get("/api/v1/hours/timers").await).await;
    assert_eq!(list["timers"], json!([timer]), "the timer runs on with its start");
    w.stop().await;
}
