//! Reserving a tracked item's numbers at Exact and booking with them, as one outbox entry.
//!
//! Exact takes the serial or batch numbers of a material issue or shop order receipt only as
//! reservation rows (`inventory/StockSerialNumbers` / `StockBatchNumbers`) made first under one
//! `DraftStockTransactionID` that the booking then names. The entry carries both: its
//! [`Reservation`] is sent first (rows keyed by IDs we chose, so a try after a lost answer sends
//! only the rows Exact does not have yet), then the booking. When Exact refuses either, the rows
//! it holds are deleted again before the entry ends as refused, so nothing half-booked stays
//! reserved; while Exact cannot be reached for that, the entry waits (still open) and tries again.

use super::entry::{Entry, State};
use super::numbers::Reservation;
use super::{OrgOutbox, OutboxService, Step};
use crate::exact::ExactError;
use crate::exact::tokens::UserToken;
use crate::store::{OrgStore, Query, StoreResult};
use anyhow::Result;
use reqwest::Method;
use serde_json::Value;
use std::collections::HashSet;
use std::ops::ControlFlow;

/// Why a reservation's item and warehouse could not be found in the local copy.
#[derive(Debug, thiserror::Error)]
pub enum LocateError {
    #[error("{0} is not in the local copy of Exact Online: refresh it, then book again")]
    NotFound(String),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

/// One row of `table` by its ID, with the fields asked for.
fn row(store: &OrgStore, table: &str, id: &str, fields: &str) -> StoreResult<Option<serde_json::Map<String, Value>>> {
    let query = Query::from_pairs([("ID", format!("eq.{id}").as_str()), ("select", fields), ("limit", "1")])?;
    let rows = store.query(table, &query)?.to_values()?;
    Ok(rows.into_iter().next().and_then(|r| r.as_object().cloned()))
}

fn guid_field(row: &serde_json::Map<String, Value>, field: &str) -> Option<String> {
    row.get(field).and_then(Value::as_str).map(str::to_ascii_lowercase)
}

/// Fills in the item and warehouse of each entry's reservation from the local copy: a material
/// issue's from its material line (and the line's shop order), a receipt's from its shop order.
pub fn locate(store: &OrgStore, entries: &mut [Entry]) -> Result<(), LocateError> {
    for e in entries.iter_mut() {
        let Some(reserve) = e.reserve.as_mut() else { continue };
        let body = e.body.as_ref().and_then(Value::as_object);
        let text = |f: &str| body.and_then(|b| b.get(f)).and_then(Value::as_str).map(str::to_ascii_lowercase);
        let order = if let Some(plan) = text("ShopOrderMaterialPlan") {
            let line = row(store, "shopOrderMaterialPlans", &plan, "ID,Item,ShopOrder")?
                .ok_or_else(|| LocateError::NotFound(format!("Material line {plan}")))?;
            reserve.item = guid_field(&line, "Item");
            guid_field(&line, "ShopOrder")
        } else {
            text("ShopOrder")
        };
        if reserve.item.is_none() || reserve.warehouse.is_none() {
            let id = order.ok_or_else(|| LocateError::NotFound("The booking's shop order".into()))?;
            let so = row(store, "shopOrders", &id, "ID,Item,Warehouse")?
                .ok_or_else(|| LocateError::NotFound(format!("Shop order {id}")))?;
            reserve.item = reserve.item.take().or_else(|| guid_field(&so, "Item"));
            reserve.warehouse = reserve.warehouse.take().or_else(|| guid_field(&so, "Warehouse"));
        }
    }
    Ok(())
}

/// A refused entry sent again by its user: its numbers were released, so they are reserved anew
/// under a new group and new row IDs (Exact need not take a deleted row's ID again).
pub fn renew(entry: &mut Entry) {
    let Some(r) = entry.reserve.as_mut() else { return };
    r.draft = uuid::Uuid::new_v4().to_string();
    for n in &mut r.numbers {
        n.id = uuid::Uuid::new_v4().to_string();
    }
    r.started = false;
    r.refused = None;
    if let Some(body) = entry.body.as_mut().and_then(Value::as_object_mut) {
        body.insert("DraftStockTransactionID".into(), Value::String(r.draft.clone()));
    }
    if let super::Reconcile::Reserved { draft, .. } = &mut entry.reconcile {
        draft.clone_from(&r.draft);
    }
}

impl OutboxService {
    /// Reserves the entry's numbers (those Exact does not hold yet): `Continue` with the entry to
    /// send the booking, else how the step ended. An entry whose reservation or booking was
    /// refused releases its numbers first and then ends as refused.
    pub(super) async fn reserve_numbers(
        &self,
        division: i64,
        org: &OrgOutbox,
        token: &UserToken,
        mut entry: Entry,
    ) -> Result<ControlFlow<Step, Entry>> {
        let Some(reserve) = entry.reserve.clone() else { return Ok(ControlFlow::Continue(entry)) };
        if let Some(why) = reserve.refused.clone() {
            return self.release_then_fail(division, org, token, entry, why).await.map(ControlFlow::Break);
        }
        let held = if reserve.started {
            match self.held_rows(division, token, &reserve).await {
                Ok(held) => held,
                Err(e) => return self.reservation_trouble(org, entry, e).await.map(ControlFlow::Break),
            }
        } else {
            HashSet::new()
        };
        if let Some(r) = entry.reserve.as_mut() {
            r.started = true;
        }
        org.db.put(&entry)?;
        for row in reserve.rows() {
            let id = row.get("ID").and_then(Value::as_str).map(str::to_ascii_lowercase).unwrap_or_default();
            if held.contains(&id) {
                continue;
            }
            // Discarded by its user meanwhile: what went out so far is released, nothing more.
            if org.db.is_discarded(entry.id)? {
                return self.drop_discarded(division, org, token, entry).await.map(ControlFlow::Break);
            }
            match self.exact.write_once(division, token, Method::POST, reserve.path(), Some(&row)).await {
                Ok(_) => {}
                Err(ExactError::Rejected { message, .. } | ExactError::Forbidden(message)) => {
                    tracing::warn!(division, id = entry.id, %message, "outbox: Exact refused a reservation");
                    return self.release_then_fail(division, org, token, entry, message).await.map(ControlFlow::Break);
                }
                Err(e) => return self.reservation_trouble(org, entry, e).await.map(ControlFlow::Break),
            }
        }
        Ok(ControlFlow::Continue(entry))
    }

    /// The IDs of the group's rows Exact holds (sent by an earlier try whose answer was lost).
    async fn held_rows(
        &self,
        division: i64,
        token: &UserToken,
        reserve: &Reservation,
    ) -> Result<HashSet<String>, ExactError> {
        let filter = format!("DraftStockTransactionID eq guid'{}'", reserve.draft);
        let url = self
            .exact
            .api_url(division, &format!("{}?$filter={}&$select=ID", reserve.path(), urlencoding::encode(&filter)));
        let rows = self.exact.get_all(division, token, &url).await?;
        Ok(rows.iter().filter_map(|r| r.get("ID").and_then(Value::as_str)).map(str::to_ascii_lowercase).collect())
    }

    /// Exact refused the booking of an entry that reserved numbers: remember why, release them,
    /// then end it as refused.
    pub(super) async fn refused_with_reservation(
        &self,
        division: i64,
        org: &OrgOutbox,
        token: &UserToken,
        mut entry: Entry,
        why: String,
    ) -> Result<Step> {
        if let Some(r) = entry.reserve.as_mut() {
            r.refused = Some(why.clone());
        }
        entry.state = State::Pending;
        org.db.put(&entry)?;
        self.release_then_fail(division, org, token, entry, why).await
    }

    /// Deletes the group's rows at Exact, then ends the entry as refused with `why`; while Exact
    /// cannot be reached for that, the entry waits and the next round releases them.
    pub(super) async fn release_then_fail(
        &self,
        division: i64,
        org: &OrgOutbox,
        token: &UserToken,
        mut entry: Entry,
        why: String,
    ) -> Result<Step> {
        let Some(reserve) = entry.reserve.clone() else { return self.failed(org, entry, why) };
        if let Some(r) = entry.reserve.as_mut() {
            r.refused = Some(why.clone());
        }
        for n in &reserve.numbers {
            let path = format!("{}(guid'{}')", reserve.path(), n.id);
            match self.exact.write_once(division, token, Method::DELETE, &path, None).await {
                // Gone already, or never made: nothing stays reserved.
                Ok(_) | Err(ExactError::Rejected { status: 404, .. }) => {}
                Err(ExactError::Rejected { message, .. } | ExactError::Forbidden(message)) => {
                    tracing::warn!(division, id = entry.id, %message, "outbox: Exact refused to release a reservation");
                }
                Err(e) => {
                    entry.state = State::Pending;
                    let wait = format!("{why} (releasing the reserved numbers: waiting for Exact Online: {e})");
                    return self.waiting(org, entry, wait, Step::TryAgain);
                }
            }
        }
        if org.db.is_discarded(entry.id)? {
            tracing::info!(division, id = entry.id, "outbox: a discarded entry's reserved numbers are released");
            org.db.remove(entry.id)?;
            return Ok(Step::Refused);
        }
        if let Some(r) = entry.reserve.as_mut() {
            r.started = false;
        }
        self.failed(org, entry, why)
    }

    /// A reservation call that Exact did not answer with a refusal: try again later (a lost
    /// answer is found by [`Self::held_rows`] then).
    async fn reservation_trouble(&self, org: &OrgOutbox, mut entry: Entry, e: ExactError) -> Result<Step> {
        entry.state = State::Pending;
        match e {
            // Refused even with the token the client renewed after the first refusal: the next
            // round checks the sign-in again.
            ExactError::Unauthorized(_) | ExactError::NoToken => {
                org.db.put(&entry)?;
                Ok(Step::TryAgain)
            }
            ExactError::RateLimited => {
                self.waiting(org, entry, "Waiting for Exact Online's call limit".into(), Step::TryAgain)
            }
            e => self.waiting(org, entry, format!("Waiting for Exact Online: {e}"), Step::TryAgain),
        }
    }
}
