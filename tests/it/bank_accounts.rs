//! Accounts are synced with their bank accounts (spec §3: Accounts expands BankAccounts), kept in
//! each account's row as an array; a copy synced without them is read again from the start.

use crate::provider::World;
use esm_sim::SimOptions;
use serde_json::Value;
use std::collections::BTreeMap;
use stock_manager::store::Commit;

/// IBANs per account id, sorted.
fn ibans_by_account(
    rows: &[Value],
    id_field: &str,
    list: impl Fn(&Value) -> Vec<Value>,
) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for row in rows {
        let id = row[id_field].as_str().unwrap().to_ascii_lowercase();
        let entry = out.entry(id).or_default();
        entry.extend(list(row).iter().map(|b| b["IBAN"].as_str().unwrap().to_string()));
        entry.sort();
    }
    out
}

#[actix_web::test]
async fn accounts_are_synced_with_their_bank_accounts() {
    let w = World::start(SimOptions { rate_limits: false, ..Default::default() }).await;
    let div = w.division as i32;
    let banks = w.sim.handle().rows(div, "crm/BankAccounts").expect("bank accounts");
    let accounts = w.sim.handle().rows(div, "crm/Accounts").expect("accounts");
    assert!(banks.len() > accounts.len(), "every account has one, some two");
    // What the provider holds, per account.
    let mut expected: BTreeMap<String, Vec<String>> =
        accounts.iter().map(|a| (a["ID"].as_str().unwrap().to_ascii_lowercase(), Vec::new())).collect();
    for (account, ibans) in ibans_by_account(&banks, "Account", |b| vec![b.clone()]) {
        expected.insert(account, ibans);
    }

    let status = w.sync(Some(vec!["accounts"])).await;
    assert!(status["tables"]["accounts"]["error"].is_null(), "{status}");
    let local: Vec<Value> = w.get("/api/v1/db/accounts?select=ID,Name,BankAccounts").await.json().await.unwrap();
    assert_eq!(local.len(), accounts.len());
    let bank_list = |a: &Value| a["BankAccounts"].as_array().expect("an array, not the provider's envelope").clone();
    assert_eq!(ibans_by_account(&local, "ID", bank_list), expected);
    let one = &local.iter().find(|a| bank_list(a).len() == 2).expect("an account with two")["BankAccounts"][0];
    assert!(one.get("__metadata").is_none(), "{one}");
    for field in ["ID", "Account", "BankAccountHolderName", "BICCode", "IBAN", "Main"] {
        assert!(one.get(field).is_some_and(|v| !v.is_null()), "{field} in {one}");
    }

    // A copy an older release synced without bank accounts: the next sync reads the table anew
    // (an incremental one would bring only the changed accounts).
    let state = w.server.running.as_ref().unwrap().state();
    let store = state.stores.get(w.division).unwrap();
    let mut bare: Vec<Value> = store.query_str("accounts", "limit=1000").unwrap().to_values().unwrap();
    for row in &mut bare {
        row.as_object_mut().unwrap().remove("BankAccounts");
    }
    store.write(Commit::Durable, |wr| wr.upsert("accounts", bare).map(|_| ())).unwrap();
    assert!(store.kv_delete("live_fetched/sync_expand/accounts").unwrap(), "the marker of the reading");
    let stripped: Vec<Value> = w.get("/api/v1/db/accounts?select=ID,BankAccounts").await.json().await.unwrap();
    assert!(stripped.iter().all(|a| a["BankAccounts"].is_null()));
    let status = w.sync(Some(vec!["accounts"])).await;
    assert!(status["tables"]["accounts"]["error"].is_null(), "{status}");
    let again: Vec<Value> = w.get("/api/v1/db/accounts?select=ID,BankAccounts").await.json().await.unwrap();
    assert_eq!(ibans_by_account(&again, "ID", bank_list), expected);
    w.stop().await;
}
