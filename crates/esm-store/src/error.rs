//! The store's one error type; `stock_manager::error` maps it onto the HTTP catalogue.

/// Everything the store can refuse or fail with.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The table is not in the registry the store was opened with.
    #[error("unknown table '{0}'")]
    UnknownTable(String),
    /// One or more columns are not known for the table.
    #[error("unknown column(s) {columns} in table '{table}'")]
    UnknownColumn { table: String, columns: String },
    /// A filter, order, select or paging parameter could not be parsed.
    #[error("bad query: {0}")]
    BadQuery(String),
    /// A join's `joinOn` and `joinOnSelf` lists differ in length.
    #[error("Join parameters lengths must match")]
    JoinLengthMismatch,
    /// A join would attach more rows or bytes than the limits allow; the message says which.
    #[error("{0}")]
    JoinTooLarge(String),
    /// A row handed to a write has no usable key.
    #[error("row for table '{table}' has no usable key field '{key}'")]
    MissingKey { table: String, key: String },
    /// A stored value could not be decoded (a corrupt or foreign file).
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    /// A bulk load's writer thread ended before its work was done.
    #[error("bulk load stopped: {0}")]
    LoadStopped(String),
    /// redb failed.
    #[error("database error: {0}")]
    Db(#[from] redb::Error),
    /// The file system failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}

impl StoreError {
    pub(crate) fn bad_query(msg: impl Into<String>) -> Self {
        StoreError::BadQuery(msg.into())
    }
}

/// redb reports through several error types; they all funnel into `redb::Error`.
macro_rules! from_redb {
    ($($t:ty),+) => {$(
        impl From<$t> for StoreError {
            fn from(e: $t) -> Self {
                StoreError::Db(e.into())
            }
        }
    )+};
}
from_redb!(
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError,
    redb::SetDurabilityError
);

/// Result type of the store.
pub type StoreResult<T> = Result<T, StoreError>;
