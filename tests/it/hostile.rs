//! Hostile or careless requests (issue 18): each is answered with a 4xx from the catalogue that
//! names the limit, the server answers its health check after every one, and the whole suite
//! leaves the process's memory within a generous bound.

use crate::provider::World;
use esm_sim::SimOptions;
use reqwest::Method;
use serde_json::{Value, json};
use stock_manager::config::{Config, PrinterConfig};
use stock_manager::limits::{
    FILTER_MAX_CONDITIONS, FILTER_MAX_TEXT, JSON_BODY_MAX_SIGNED_IN, LABEL_MAX_IDS, LABEL_MAX_PER_JOB,
};

/// One hostile request: what is sent and what must come back.
struct Scenario {
    name: &'static str,
    method: Method,
    path: String,
    body: Option<Value>,
    status: u16,
    code: &'static str,
    /// A piece of the message that names the limit.
    says: &'static str,
}

fn get(name: &'static str, path: String, status: u16, code: &'static str, says: &'static str) -> Scenario {
    Scenario { name, method: Method::GET, path, body: None, status, code, says }
}

fn post(name: &'static str, path: &str, body: Value, status: u16, code: &'static str, says: &'static str) -> Scenario {
    Scenario { name, method: Method::POST, path: path.into(), body: Some(body), status, code, says }
}

fn guid(n: usize) -> String {
    format!("{n:08x}-0000-4000-8000-{n:012x}")
}

/// Resident memory of this process (the server runs in it), in kB.
fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn scenarios() -> Vec<Scenario> {
    let deep = format!("({}a.eq.1{})", "and(".repeat(3000), ")".repeat(3000));
    let long = format!("eq.{}", "x".repeat(FILTER_MAX_TEXT + 1000));
    let many = format!("({})", vec!["Code.eq.1"; FILTER_MAX_CONDITIONS + 1].join(","));
    let self_join = r#"[{"source":"items","joinOn":["IsStockItem"],"joinOnSelf":["IsStockItem"]}]"#;
    let ids: Vec<String> = (0..100_000).map(guid).collect();
    let ids = &ids;
    let enc = |s: &str| urlencoding::encode(s).into_owned();
    vec![
        get(
            "3000-deep and() nesting",
            format!("/api/v1/db/items?or={}", enc(&deep)),
            400,
            "bad_request",
            "nested too deeply",
        ),
        get(
            "deep nesting in a joins query",
            format!("/api/v1/db/joins?table=items&not.or={}", enc(&deep)),
            400,
            "bad_request",
            "nested too deeply",
        ),
        get("a very long filter", format!("/api/v1/db/items?Code={}", enc(&long)), 400, "bad_request", "too long"),
        get(
            "too many conditions",
            format!("/api/v1/db/items?or={}", enc(&many)),
            400,
            "bad_request",
            "too many conditions",
        ),
        get(
            "a self-join on a flag copies the table into every row",
            format!("/api/v1/db/joins?table=items&limit=1000&joins={}", enc(self_join)),
            400,
            "bad_request",
            "The join",
        ),
        post(
            "100,000 label ids",
            "/api/v1/labels",
            json!({"source": "item_direct", "ids": ids, "type": "receipts"}),
            400,
            "bad_request",
            "ids per label request",
        ),
        post(
            "a print count past the job limit",
            "/api/v1/labels",
            json!({"source": "item_direct", "ids": [{"id": guid(1), "print_count": 4_000_000_000u32}]}),
            400,
            "bad_request",
            "Too many labels",
        ),
        post(
            "print counts that add up past the job limit",
            "/api/v1/labels",
            json!({"source": "item_direct", "ids": (0..LABEL_MAX_IDS).map(|n| json!({"id": guid(n), "print_count": 100})).collect::<Vec<_>>()}),
            400,
            "bad_request",
            "Too many labels",
        ),
        post(
            "print count × copies past the job limit",
            "/api/v1/labels/print",
            json!({"source": "item_direct", "ids": [{"id": guid(1), "print_count": 100}], "type": "receipts", "printer": "labels", "copies": 100}),
            400,
            "bad_request",
            "Too many labels",
        ),
        post(
            "100,000 ids to print",
            "/api/v1/labels/print",
            json!({"source": "item_direct", "ids": ids, "type": "receipts", "printer": "labels"}),
            400,
            "bad_request",
            "ids per label request",
        ),
        post(
            "an oversized JSON body on a signed-in route",
            "/api/v1/license/activate",
            json!({"division": 1, "customer": "x".repeat(JSON_BODY_MAX_SIGNED_IN + 1), "code": "x"}),
            413,
            "payload_too_large",
            "too large",
        ),
    ]
}

/// A printer that is set up but never answers: print requests get as far as the limits.
fn with_printer(c: &mut Config) {
    c.printers.push(PrinterConfig {
        name: "labels".into(),
        uri: format!("ipp://127.0.0.1:{}/ipp/print", crate::printing::free_port()),
        label_types: vec!["receipts".into()],
        insecure_tls: false,
    });
}

#[actix_web::test]
async fn hostile_requests_get_a_4xx_and_the_server_stays_up() {
    let w = World::start_with(SimOptions { rate_limits: false, ..Default::default() }, with_printer).await;
    w.sync(Some(vec!["items"])).await;
    const { assert!(LABEL_MAX_IDS * 100 > LABEL_MAX_PER_JOB, "the summed print counts exceed the job limit") };
    let before = rss_kb();
    let mut failures = Vec::new();
    for s in scenarios() {
        let mut req = w.request(s.method.clone(), &s.path);
        if let Some(body) = &s.body {
            req = req.json(body);
        }
        match req.send().await {
            Ok(res) => {
                let status = res.status().as_u16();
                let body: Value = res.json().await.unwrap_or(Value::Null);
                let code = body["error"]["code"].as_str().unwrap_or_default().to_string();
                let message = body["error"]["message"].as_str().unwrap_or_default().to_string();
                if status != s.status || code != s.code || !message.contains(s.says) {
                    failures.push(format!("{}: {status} {code} {message:?}", s.name));
                }
            }
            Err(e) => failures.push(format!("{}: no answer: {e}", s.name)),
        }
        let health = w.get("/api/v1/health").await;
        assert_eq!(health.status(), 200, "the server answers its health check after '{}'", s.name);
    }
    assert!(failures.is_empty(), "{failures:#?}");
    // The joins that stay within the limits still answer.
    let small = w
        .get(&format!(
            "/api/v1/db/joins?table=items&limit=1&joins={}",
            urlencoding::encode(r#"[{"source":"items","joinOn":["ID"],"joinOnSelf":["ID"]}]"#)
        ))
        .await;
    assert_eq!(small.status(), 200);
    let after = rss_kb();
    eprintln!("resident memory: {before} kB before the hostile requests, {after} kB after");
    assert!(after < before + 200 * 1024, "memory stays bounded: {before} kB before, {after} kB after");
    w.stop().await;
}
