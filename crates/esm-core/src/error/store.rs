//! The store's refusals as the catalogue's answers: a caller's bad query is a 400 that names the
//! culprit, a fault of the store is the catalogue's "table info" error with its cause kept.

use super::{AppError, Code};
use crate::store::StoreError;

impl From<StoreError> for AppError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::UnknownTable(_)
            | StoreError::UnknownColumn { .. }
            | StoreError::BadQuery(_)
            | StoreError::MissingKey { .. } => AppError::bad_request(e.to_string()),
            StoreError::JoinLengthMismatch => AppError::new(Code::JoinLengthMismatch),
            StoreError::JoinTooLarge(message) => AppError::bad_request(message),
            StoreError::Corrupt(_) | StoreError::LoadStopped(_) | StoreError::Db(_) | StoreError::Io(_) => {
                AppError::new(Code::TableInfo).caused_by(anyhow::Error::new(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caller_errors_are_400_and_name_the_culprit() {
        let app: AppError = StoreError::UnknownColumn { table: "items".into(), columns: "'Foo'".into() }.into();
        assert_eq!(app.code(), Code::BadRequest);
        assert!(app.message().contains("Foo"), "{}", app.message());
        let app: AppError = StoreError::UnknownTable("nope".into()).into();
        assert!(app.message().contains("nope"));
    }

    #[test]
    fn join_mismatch_and_internal_errors_use_the_catalogue() {
        let app: AppError = StoreError::JoinLengthMismatch.into();
        assert_eq!(app.code(), Code::JoinLengthMismatch);
        assert_eq!(app.message(), "Join parameters lengths must match");
        let app: AppError = StoreError::Corrupt("x".into()).into();
        assert_eq!(app.code(), Code::TableInfo);
        assert_eq!(app.message(), "Error while getting table info");
        let app: AppError = StoreError::JoinTooLarge("The join answer is too large".into()).into();
        assert_eq!(app.code(), Code::BadRequest);
        assert_eq!(app.message(), "The join answer is too large");
    }
}
