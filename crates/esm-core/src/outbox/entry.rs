//! One write waiting for, or done with, its trip to the provider.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
#[schema(as = OutboxState)]
pub enum State {
    /// Stored, not sent yet.
    Pending,
    /// Handed to the provider; if the process stops now, the answer is unknown until reconciled.
    Sending,
    /// The provider accepted it.
    Delivered,
    /// The provider refused it, or it cannot be known whether it arrived: the user decides.
    Failed,
}

/// The HTTP method the write is sent to the provider with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "UPPERCASE")]
#[schema(as = OutboxMethod)]
pub enum Method {
    Post,
    Put,
    Delete,
}

impl Method {
    pub fn as_reqwest(self) -> reqwest::Method {
        match self {
            Method::Post => reqwest::Method::POST,
            Method::Put => reqwest::Method::PUT,
            Method::Delete => reqwest::Method::DELETE,
        }
    }
}

/// How to tell, after a send whose answer was lost, whether the provider has the write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "by", rename_all = "snake_case")]
#[schema(as = OutboxReconcile)]
pub enum Reconcile {
    /// Sending again has the same effect (PUT of fields, DELETE).
    Idempotent,
    /// The entity was created with a key we chose: it exists iff `{path}?$filter={field} eq guid'{value}'` finds it.
    Key { path: String, field: String, value: String },
    /// A text field carries our marker: it exists iff `substringof('{marker}', {field})` finds it.
    Marker { path: String, field: String, marker: String },
    /// A processed transfer or count has reached `status` in `{path}({field}=guid'{value}')`.
    Status { path: String, field: String, value: String, status: i64 },
    /// The numbers reserved under `draft` at `path` were booked (`IsDraft` 0): the booking that
    /// took them arrived.
    Reserved { path: String, draft: String },
    /// No way to look: a lost answer leaves the entry for the user to check.
    Unknown,
}

/// One write in the outbox: what goes to the provider, for whom, and how far it got.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[schema(as = OutboxEntry)]
pub struct Entry {
    #[schema(example = 42)]
    pub id: u64,
    /// Stable id of the write (markers, client-chosen keys).
    #[schema(example = "7c9e6679-7425-40de-944b-e07fc1f90ae7")]
    pub uid: String,
    /// The API action that made it, e.g. `createGoodsReceipt`.
    #[schema(example = "createGoodsReceipt")]
    pub action: String,
    pub method: Method,
    /// Provider path after `/api/v1/{division}/`, with the key for PUT and DELETE.
    #[schema(example = "purchaseorder/GoodsReceipts")]
    pub path: String,
    /// The JSON sent to the provider (none for a DELETE).
    #[schema(value_type = Option<Object>)]
    #[schema(required = true)]
    pub body: Option<Value>,
    pub reconcile: Reconcile,
    /// Local tables to sync once it is delivered.
    #[schema(example = json!(["stockPositions", "storageLocationStockPositions"]))]
    pub tables: Vec<String>,
    /// Provider user whose token sends it (the one who made the write).
    #[schema(example = "0badc0de-0000-4000-8000-000000000001")]
    pub user: String,
    #[schema(example = "Anna de Vries")]
    pub user_name: String,
    pub state: State,
    pub attempts: u32,
    /// The provider's message (refusals) or why it waits.
    #[schema(required = true)]
    pub error: Option<String>,
    /// Epoch milliseconds, as are `sent_ms` and `done_ms`.
    #[schema(example = 1_780_000_000_000_i64)]
    pub created_ms: i64,
    #[schema(required = true)]
    pub sent_ms: Option<i64>,
    #[schema(required = true)]
    pub done_ms: Option<i64>,
    /// The provider's key of a created entity.
    #[schema(required = true)]
    pub result_key: Option<String>,
    /// The serial or batch numbers reserved at the provider before the booking is sent (a
    /// material issue or shop order receipt of a tracked item: `super::numbers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve: Option<super::numbers::Reservation>,
}
