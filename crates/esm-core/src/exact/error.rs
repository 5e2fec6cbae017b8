//! Errors of the provider boundary, and how they reach the caller (spec §8).

use crate::error::{AppError, Code};

#[derive(Debug, thiserror::Error)]
pub enum ExactError {
    /// No answer in time, or the connection failed (retried per spec §9 before this is returned).
    #[error("network error talking to Exact Online: {0}")]
    Network(String),
    /// The provider refused the token (expired, revoked, or the refresh chain is broken).
    #[error("Exact Online refused the token: {0}")]
    Unauthorized(String),
    /// The user may not reach this division or resource.
    #[error("Exact Online refused access: {0}")]
    Forbidden(String),
    /// Too many calls, still after waiting and retrying.
    #[error("Exact Online rate limit reached")]
    RateLimited,
    /// A 4xx with the provider's own message (validation, bad query).
    #[error("Exact Online rejected the request ({status}): {message}")]
    Rejected { status: u16, message: String },
    /// A 5xx with the provider's message.
    #[error("Exact Online failed ({status}): {message}")]
    Server { status: u16, message: String },
    /// The body was not what the API promises.
    #[error("{0}")]
    Malformed(String),
    /// No provider token is stored for this user or organization.
    #[error("no provider token")]
    NoToken,
    /// A read over every page found more rows than one read may gather.
    #[error("Exact Online has more than {limit} rows for this read: narrow it with a filter")]
    TooManyRows { limit: usize },
}

impl ExactError {
    /// Whether waiting and trying again may help (network trouble, 429, 5xx).
    pub fn is_transient(&self) -> bool {
        matches!(self, ExactError::Network(_) | ExactError::RateLimited | ExactError::Server { .. })
    }

    /// The provider's own message, for showing to the user.
    pub fn provider_message(&self) -> Option<&str> {
        match self {
            ExactError::Rejected { message, .. } | ExactError::Server { message, .. } => Some(message),
            _ => None,
        }
    }
}

impl From<ExactError> for AppError {
    fn from(e: ExactError) -> Self {
        match &e {
            ExactError::Network(_) => AppError::new(Code::Timeout).caused_by(e),
            // Exact refused the provider sign-in, not this server's session: no 401, which
            // would end the session in the browser.
            ExactError::Unauthorized(_) => AppError::new(Code::ProviderSignIn).caused_by(e),
            ExactError::NoToken => AppError::new(Code::NoToken),
            ExactError::Forbidden(m) => AppError::with_message(Code::Forbidden, format!("Exact Online: {m}")),
            ExactError::RateLimited => AppError::with_message(
                Code::TooManyRequests,
                "Exact Online's call limit is reached; try again in a minute",
            ),
            // what was asked for is not there: the caller's request, not a failing provider
            ExactError::Rejected { status: 404, message } => {
                AppError::with_message(Code::NotFound, format!("Exact Online: {message}"))
            }
            ExactError::Rejected { message, .. } | ExactError::Server { message, .. } => {
                AppError::with_message(Code::Provider, message.clone())
            }
            ExactError::Malformed(_) => AppError::new(Code::Provider).caused_by(e),
            ExactError::TooManyRows { .. } => AppError::bad_request(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Code;

    #[test]
    fn a_provider_404_is_not_found_and_other_refusals_are_the_providers() {
        let gone = AppError::from(ExactError::Rejected { status: 404, message: "Not found".into() });
        assert_eq!((gone.code(), gone.message()), (Code::NotFound, "Exact Online: Not found"));
        let refused = AppError::from(ExactError::Rejected { status: 400, message: "Invalid filter".into() });
        assert_eq!((refused.code(), refused.message()), (Code::Provider, "Invalid filter"));
    }
}
