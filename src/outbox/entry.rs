//! One write waiting for, or done with, its trip to the provider.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Reconcile {
    /// Sending again has the same effect (PUT of fields, DELETE).
    Idempotent,
    /// The entity was created with a key we chose: it exists iff `{path}?$filter={field} eq guid'{value}'` finds it.
    Key { path: String, field: String, value: String },
    /// A text field carries our marker: it exists iff `substringof('{marker}', {field})` finds it.
    Marker { path: String, field: String, marker: String },
    /// A processed transfer or count has reached `status` in `{path}({field}=guid'{value}')`.
    Status { path: String, field: String, value: String, status: i64 },
    /// No way to look: a lost answer leaves the entry for the user to check.
    Unknown,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    pub id: u64,
    /// Stable id of the write (markers, client-chosen keys).
    pub uid: String,
    /// The API action that made it, e.g. `createGoodsReceipt`.
    pub action: String,
    pub method: Method,
    /// Provider path after `/api/v1/{division}/`, with the key for PUT and DELETE.
    pub path: String,
    pub body: Option<Value>,
    pub reconcile: Reconcile,
    /// Local tables to sync once it is delivered.
    pub tables: Vec<String>,
    /// Provider user whose token sends it (the one who made the write).
    pub user: String,
    pub user_name: String,
    pub state: State,
    pub attempts: u32,
    /// The provider's message (refusals) or why it waits.
    pub error: Option<String>,
    pub created_ms: i64,
    pub sent_ms: Option<i64>,
    pub done_ms: Option<i64>,
    /// The provider's key of a created entity.
    pub result_key: Option<String>,
}
