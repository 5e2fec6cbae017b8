//! Which provider sign-in serves an organization's own calls (sync, live reads, labels): there
//! is no single token owner. Every user who signed in to the organization is one of its
//! accounts; the administrator's chosen sync account (organization preference `sync_account`)
//! goes first, then the user who signed in last, then any other account whose sign-in Exact
//! still accepts. Writes never come here: they go under their own author's sign-in.

use crate::exact::tokens::UserToken as OrgToken;
use crate::exact::tokens::{Access, TokenManager};
use crate::serverdb::{OrgAccount, ServerDb};
use crate::store::Stores;
use serde::Serialize;
use std::sync::Arc;

/// The organization preference that names the chosen sync account ('' or absent: automatic).
pub const SYNC_ACCOUNT_PREFERENCE: &str = "sync_account";

/// One account as the Global Settings screen lists it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AccountView {
    /// The provider's user ID.
    #[schema(example = "0badc0de-0000-4000-8000-0000000000aa")]
    pub user: String,
    #[schema(example = "anna@demometaal.nl")]
    pub user_name: String,
    #[schema(example = "Anna de Vries")]
    pub full_name: String,
    pub access: Access,
}

/// The organization's chosen sync account, if one is set.
pub fn chosen_sync_account(stores: &Stores, division: i64) -> Option<String> {
    let details = stores.get(division).ok()?.org_details().ok()??;
    let chosen = details.preferences.get(SYNC_ACCOUNT_PREFERENCE)?.as_str()?.trim().to_string();
    (!chosen.is_empty()).then_some(chosen)
}

/// The accounts in the order they are tried: the chosen one, the last to sign in, the rest.
fn candidates(serverdb: &ServerDb, chosen: Option<String>, division: i64) -> Vec<String> {
    let mut order: Vec<String> = chosen.into_iter().collect();
    order.extend(serverdb.org_token_user(division).ok().flatten());
    order.extend(serverdb.org_users(division).unwrap_or_default().into_iter().map(|(user, _)| user));
    let mut seen = std::collections::HashSet::new();
    order.retain(|u| seen.insert(u.clone()));
    order
}

/// The user whose provider sign-in serves `division` now, if any account can.
pub fn sync_user(serverdb: &ServerDb, stores: &Stores, tokens: &TokenManager, division: i64) -> Option<String> {
    let chosen = chosen_sync_account(stores, division);
    candidates(serverdb, chosen, division).into_iter().find(|u| tokens.serves_others(u))
}

/// [`sync_user`] as the token the sync engine and provider lookups take.
pub fn org_token(serverdb: &ServerDb, stores: &Stores, tokens: &Arc<TokenManager>, division: i64) -> Option<OrgToken> {
    sync_user(serverdb, stores, tokens, division).map(|user| OrgToken { tokens: tokens.clone(), user })
}

/// The organization's accounts with the state of their sign-in, for choosing the sync account.
pub fn list(serverdb: &ServerDb, tokens: &TokenManager, division: i64) -> anyhow::Result<Vec<AccountView>> {
    Ok(serverdb
        .org_users(division)?
        .into_iter()
        .map(|(user, OrgAccount { user_name, full_name })| AccountView {
            access: tokens.access(&user),
            user,
            user_name,
            full_name,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Secret;
    use crate::exact::oauth::{OAuthClient, TokenSet};

    fn tokens(db: &Arc<ServerDb>) -> TokenManager {
        let http = crate::exact::ExactClient::http_client(std::time::Duration::from_secs(5)).expect("http client");
        TokenManager::new(db.clone(), OAuthClient::new(http, "http://127.0.0.1:9", "id", Secret::new("s")))
    }

    fn set() -> TokenSet {
        TokenSet { access_token: "a".into(), refresh_token: "r".into(), expires_at_ms: i64::MAX / 2 }
    }

    fn account(name: &str) -> OrgAccount {
        OrgAccount { user_name: name.into(), full_name: name.into() }
    }

    #[test]
    fn the_chosen_account_first_then_the_last_sign_in_then_any_that_works() {
        let dir = tempfile::tempdir().unwrap();
        let db = Arc::new(ServerDb::open(dir.path()).unwrap());
        let stores = Stores::new(dir.path(), crate::exact::catalogue::table_specs());
        let tokens = tokens(&db);
        for u in ["u1", "u2", "u3"] {
            db.add_org_user(7, u, &account(u)).unwrap();
            tokens.store(u, &set()).unwrap();
        }
        db.set_org_token_user(7, "u2").unwrap();
        assert_eq!(sync_user(&db, &stores, &tokens, 7).as_deref(), Some("u2"), "the last sign-in");
        assert_eq!(candidates(&db, Some("u3".into()), 7), vec!["u3", "u2", "u1"]);
        tokens.keep_for_queued_writes("u2").unwrap();
        assert_eq!(sync_user(&db, &stores, &tokens, 7).as_deref(), Some("u1"), "a signed-out user serves nobody");
        db.remove_org_user("u1").unwrap();
        assert_eq!(sync_user(&db, &stores, &tokens, 7).as_deref(), Some("u3"));
        assert_eq!(db.org_users(7).unwrap().len(), 2);
        assert_eq!(sync_user(&db, &stores, &tokens, 8), None, "another organization has no accounts");
        assert_eq!(db.org_divisions().unwrap(), vec![7]);
    }
}
