//! Paging through any filter returns every matching row exactly once.

use super::{Sim, results};
use esm_sim::generate::{Scale, generate};
use esm_sim::odata;
use esm_sim::store::{Division, table_of};
use proptest::prelude::*;
use std::collections::HashSet;
use stock_manager::exact::schema;

fn division() -> &'static Division {
    static D: std::sync::OnceLock<Division> = std::sync::OnceLock::new();
    D.get_or_init(|| generate(Scale::Small, 7, super::START_MS, "http://sim").data.remove(0))
}

fn atom() -> impl Strategy<Value = String> {
    prop_oneof![
        (prop::sample::select(vec!["eq", "ne", "gt", "ge", "lt", "le"]), 0..45i64)
            .prop_map(|(op, v)| format!("Status {op} {v}")),
        (prop::sample::select(vec!["gt", "le"]), 0..300i64).prop_map(|(op, v)| format!("PlannedQuantity {op} {v}")),
        (1..3i64).prop_map(|t| format!("Type eq {t}")),
        (1..9i64).prop_map(|n| format!("LineNumber ge {n}")),
        Just("substringof('-1',ItemCode) eq true".to_string()),
        Just("startswith(ItemCode,'ZV') eq true".to_string()),
    ]
}

fn filter() -> impl Strategy<Value = String> {
    atom().prop_recursive(3, 8, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) and ({b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) or ({b})")),
            inner.prop_map(|a| format!("not ({a})")),
        ]
    })
}

/// Follow skiptokens until exhausted, through the same functions the HTTP server uses.
fn page_through(path: &str, base_query: &str, page: usize) -> (Vec<u128>, HashSet<u128>) {
    let d = division();
    let view = schema::entity(path).expect("view");
    let table = d.table(table_of(view)).expect("table");
    let q = odata::parse_query(view, table, base_query).expect("query");
    let expected: HashSet<u128> = table
        .rows
        .iter()
        .filter(|(_, r)| q.filter.as_ref().is_none_or(|(_, b)| odata::eval::matches(b, r)))
        .map(|(k, _)| *k)
        .collect();
    let mut seen = Vec::new();
    let mut token: Option<String> = None;
    for _ in 0..100_000 {
        let query = match &token {
            Some(t) => format!("{base_query}&$skiptoken={t}"),
            None => base_query.to_string(),
        };
        let q = odata::parse_query(view, table, &query).expect("query with token");
        let p = odata::execute(view, table, &q, page);
        assert!(p.keys.len() <= page);
        seen.extend(p.keys);
        match p.next {
            Some(t) => token = Some(t),
            None => break,
        }
    }
    (seen, expected)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn regular_paging_returns_each_match_once(f in filter(), page in 1usize..120) {
        let (seen, expected) = page_through("manufacturing/ShopOrderMaterialPlans", &format!("$filter={f}&$select=ID"), page);
        let unique: HashSet<u128> = seen.iter().copied().collect();
        prop_assert_eq!(unique.len(), seen.len(), "duplicates");
        prop_assert_eq!(unique, expected);
    }

    #[test]
    fn ordered_paging_returns_each_match_once(f in filter(), page in 1usize..120, desc in any::<bool>()) {
        let dir = if desc { "desc" } else { "asc" };
        let (seen, expected) = page_through("manufacturing/ShopOrderMaterialPlans", &format!("$filter={f}&$select=ID&$orderby=Status {dir},PlannedQuantity"), page);
        let unique: HashSet<u128> = seen.iter().copied().collect();
        prop_assert_eq!(unique.len(), seen.len());
        prop_assert_eq!(unique, expected);
    }

    #[test]
    fn sync_paging_returns_each_row_after_the_timestamp_once(after in 0i64..40_000, page in 1usize..1500) {
        let (seen, expected) = page_through("sync/Manufacturing/ShopOrderMaterialPlans", &format!("$filter=Timestamp gt {after}L&$select=ID,Timestamp"), page);
        let unique: HashSet<u128> = seen.iter().copied().collect();
        prop_assert_eq!(unique.len(), seen.len());
        prop_assert_eq!(unique, expected);
    }
}

#[actix_web::test]
async fn following_next_over_http_visits_every_sync_row_once() {
    let s = Sim::start_with(esm_sim::SimOptions { rate_limits: false, ..Default::default() }).await;
    let mut url = s.url(&format!(
        "/api/v1/{}/sync/Inventory/StorageLocationStockPositions?$filter=Timestamp gt 1L&$select=ID,Stock,Timestamp",
        super::DIV
    ));
    let mut ids = Vec::new();
    loop {
        let v: serde_json::Value = s.get_abs(&url).await.json().await.unwrap();
        ids.extend(results(&v).iter().map(|r| r["ID"].as_str().unwrap().to_string()));
        match v["d"]["__next"].as_str() {
            Some(n) => url = n.to_string(),
            None => break,
        }
    }
    let all = s.h().rows(super::DIV, "sync/Inventory/StorageLocationStockPositions").unwrap();
    let unique: HashSet<&String> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len());
    assert_eq!(ids.len(), all.len());
    assert!(ids.len() > 1000, "more than one page");
    s.stop().await;
}
