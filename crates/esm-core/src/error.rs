//! The one error type of the HTTP boundary, carrying the spec §8 catalogue.
//!
//! Handlers return `Result<_, AppError>`; the JSON body is always
//! `{"error": {"code": "...", "message": "..."}}`. Internal causes are logged, never sent.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use std::fmt;

mod store;

/// Every error the product reports, with its stable machine code, message and HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Code {
    /// Timeout or abort while talking to the provider or a printer.
    Timeout,
    /// Malformed input from the caller.
    BadRequest,
    /// The work was cancelled on purpose; nothing to worry about.
    Canceled,
    /// An option has a value the product does not accept.
    BadOption,
    /// Anything unforeseen: the generic code "-".
    Unknown,
    /// The session cannot continue; the UI logs out and goes Home.
    Critical,
    /// No valid session, or the provider token is no longer valid.
    NotAuthorized,
    /// The session is valid but below the route's access tier.
    Forbidden,
    /// No such route or record.
    NotFound,
    /// The method is not allowed on this route.
    MethodNotAllowed,
    /// A state-changing request's body is not JSON (nor the route's documented upload type).
    UnsupportedMediaType,
    /// Join parameters `joinOn` and `joinOnSelf` differ in length.
    JoinLengthMismatch,
    /// A local table could not be read, deleted or joined.
    TableInfo,
    /// The warehouses could not be read from the provider.
    Warehouses,
    /// The division could not be read from the provider.
    DivisionInfo,
    /// A sync endpoint was asked for through the live (non-sync) path.
    SyncEndpointLive,
    /// No provider token is stored for the session.
    NoToken,
    /// The sign-in's `state` did not match the browser that started it (login CSRF).
    LoginState,
    /// A licence code that does not activate this organization; the message says why.
    LicenceInvalid,
    /// A sync for this organization is already running.
    SyncRunning,
    /// Label generation left no labels.
    NoLabels,
    /// A write or upload had nothing in it.
    EmptyPayload,
    /// The provider answered with an error of its own; the message is the provider's.
    Provider,
    /// Too many requests (our own throttle, e.g. licence attempts).
    TooManyRequests,
    /// The request body is larger than allowed.
    PayloadTooLarge,
    /// The service is not ready (store rebuilding, shutting down).
    Unavailable,
    /// Exact Online no longer accepts the user's sign-in (or no account of the organization has
    /// one): the session goes on for local work, this call needs a new Exact sign-in.
    ProviderSignIn,
    /// What was asked needs Exact Online right now, it cannot be reached and nothing of it is
    /// kept locally.
    ProviderUnreachable,
    /// An `Idempotency-Key` already used for a different request (another route or body).
    IdempotencyKeyReused,
    /// The operator timer a booking was made from is no longer running: booked or removed on
    /// another device, so its hours are not booked again.
    TimerGone,
    /// An administrator action asked for by someone who is not one (now).
    AdminOnly,
    /// One write asked to queue more entries than one request may (`write::MAX_ENTRIES`).
    TooManyEntries,
    /// Exact Online refused the user's sign-in while it answered (access withdrawn, removed from
    /// the company): the session has ended; a new sign-in lets the user's waiting changes go.
    SignInRefused,
    /// A request body arrived too slowly (`api::slow_bodies`).
    RequestTimeout,
    /// An item counted again at the same place with another quantity: which count stands is the
    /// counter's to say (`crate::counts`).
    CountConflict,
    /// A count session that was sent to Exact Online takes no more changes.
    CountClosed,
}

impl Code {
    /// The whole catalogue, in its order (the OpenAPI document lists it).
    pub const ALL: [Code; 36] = [
        Code::Timeout,
        Code::BadRequest,
        Code::Canceled,
        Code::BadOption,
        Code::Unknown,
        Code::Critical,
        Code::NotAuthorized,
        Code::Forbidden,
        Code::NotFound,
        Code::MethodNotAllowed,
        Code::UnsupportedMediaType,
        Code::JoinLengthMismatch,
        Code::TableInfo,
        Code::Warehouses,
        Code::DivisionInfo,
        Code::SyncEndpointLive,
        Code::NoToken,
        Code::LoginState,
        Code::LicenceInvalid,
        Code::SyncRunning,
        Code::NoLabels,
        Code::EmptyPayload,
        Code::Provider,
        Code::TooManyRequests,
        Code::PayloadTooLarge,
        Code::Unavailable,
        Code::ProviderSignIn,
        Code::ProviderUnreachable,
        Code::IdempotencyKeyReused,
        Code::TimerGone,
        Code::AdminOnly,
        Code::TooManyEntries,
        Code::SignInRefused,
        Code::RequestTimeout,
        Code::CountConflict,
        Code::CountClosed,
    ];

    /// The code as it appears in the JSON body.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Timeout => "timeout",
            Code::BadRequest => "bad_request",
            Code::Canceled => "canceled",
            Code::BadOption => "bad_option",
            Code::Unknown => "-",
            Code::Critical => "critical",
            Code::NotAuthorized => "not_authorized",
            Code::Forbidden => "forbidden",
            Code::NotFound => "not_found",
            Code::MethodNotAllowed => "method_not_allowed",
            Code::UnsupportedMediaType => "unsupported_media_type",
            Code::JoinLengthMismatch => "join_length_mismatch",
            Code::TableInfo => "table_info",
            Code::Warehouses => "warehouses",
            Code::DivisionInfo => "division_info",
            Code::SyncEndpointLive => "sync_endpoint_live",
            Code::NoToken => "no_token",
            Code::LoginState => "login_state",
            Code::LicenceInvalid => "licence_invalid",
            Code::SyncRunning => "sync_running",
            Code::NoLabels => "no_labels",
            Code::EmptyPayload => "empty_payload",
            Code::Provider => "provider",
            Code::TooManyRequests => "too_many_requests",
            Code::PayloadTooLarge => "payload_too_large",
            Code::Unavailable => "unavailable",
            Code::ProviderSignIn => "provider_sign_in",
            Code::ProviderUnreachable => "provider_unreachable",
            Code::IdempotencyKeyReused => "idempotency_key_reused",
            Code::TimerGone => "timer_gone",
            Code::AdminOnly => "admin_only",
            Code::TooManyEntries => "too_many_entries",
            Code::SignInRefused => "sign_in_refused",
            Code::RequestTimeout => "request_timeout",
            Code::CountConflict => "count_conflict",
            Code::CountClosed => "count_closed",
        }
    }

    /// The catalogue's message (spec §8) for this code.
    pub fn message(self) -> &'static str {
        match self {
            Code::Timeout => "Function code timed out or there was a network issue / try executing the call again",
            Code::BadRequest => "The input provided was bad",
            Code::Canceled => "The error that occurred has no impact or is expected to occur",
            Code::BadOption => {
                "An option has a value that is not supported: please contact support with the option name and value"
            }
            Code::Unknown => {
                "UNKNOWN ERROR OCCURRED: Please provide your local programmer with details about: how the error occurred so that they can fix it"
            }
            Code::Critical => "A CRITICAL error occurred, you will be returned to the login screen",
            Code::NotAuthorized => "not authorized",
            Code::Forbidden => "You do not have access to this page",
            Code::NotFound => "Not found",
            Code::MethodNotAllowed => "Method not allowed",
            Code::UnsupportedMediaType => "The request body must be JSON (Content-Type: application/json)",
            Code::JoinLengthMismatch => "Join parameters lengths must match",
            Code::TableInfo => "Error while getting table info",
            Code::Warehouses => "Error while getting Warehouses from Exact",
            Code::DivisionInfo => "Could not get division information from exact",
            Code::SyncEndpointLive => {
                "ESM - 'getEndpointDataExact' cannot be called on a sync endpoint, use the database instead"
            }
            Code::NoToken => "no token, was not able to get division and name from exact",
            Code::LoginState => "The sign-in could not be verified; please sign in again",
            Code::LicenceInvalid => "This licence code is not valid for this organization",
            Code::SyncRunning => "A sync is already running for this organization",
            Code::NoLabels => "There are no labels to print that fit the desired criteria",
            Code::EmptyPayload => "The payload is empty",
            Code::Provider => "Exact Online returned an error",
            Code::TooManyRequests => "Too many attempts, please wait a moment and try again",
            Code::PayloadTooLarge => "The request is too large",
            Code::Unavailable => "The service is temporarily unavailable, try again shortly",
            Code::ProviderSignIn => {
                "Exact Online no longer accepts the sign-in: sign in with Exact Online again (local work goes on)"
            }
            Code::ProviderUnreachable => {
                "Exact Online cannot be reached right now: this needs Exact Online, local data and queued changes keep working"
            }
            Code::IdempotencyKeyReused => {
                "This Idempotency-Key was already used for a different request: make a new key for a new booking"
            }
            Code::TimerGone => {
                "This timer was already booked or removed on another device; its hours are not booked twice"
            }
            Code::AdminOnly => {
                "Only an administrator may do this: confirm with the admin password, or ask an administrator of this installation"
            }
            Code::TooManyEntries => "One request may queue at most 200 entries: split it into smaller ones",
            Code::SignInRefused => {
                "Exact Online no longer accepts your sign-in (your access was withdrawn or you left the company): sign in again; your waiting changes are sent once you do"
            }
            Code::RequestTimeout => "The request arrived too slowly: check the connection and send it again",
            Code::CountConflict => "This item was counted here before with another quantity: say which count stands",
            Code::CountClosed => "This count was sent to Exact Online: start a new count for more lines",
        }
    }

    /// The catalogue's message in Dutch, for a caller whose UI is in Dutch (`Accept-Language`).
    pub fn message_nl(self) -> &'static str {
        match self {
            Code::Timeout => "Er ging iets mis met de verbinding of de functie duurde te lang / probeer het opnieuw",
            Code::BadRequest => "De invoer is niet juist",
            Code::Canceled => "De fout die optrad heeft geen gevolgen of wordt verwacht",
            Code::BadOption => {
                "Een optie heeft een waarde die niet wordt ondersteund: neem contact op met support en noem de optie en de waarde"
            }
            Code::Unknown => "ONBEKENDE FOUT: geef uw programmeur door hoe de fout optrad, zodat die hem kan verhelpen",
            Code::Critical => "Er trad een KRITIEKE fout op, u gaat terug naar het aanmeldscherm",
            Code::NotAuthorized => "niet aangemeld",
            Code::Forbidden => "U hebt geen toegang tot deze pagina",
            Code::NotFound => "Niet gevonden",
            Code::MethodNotAllowed => "Deze methode is hier niet toegestaan",
            Code::UnsupportedMediaType => "De inhoud van het verzoek moet JSON zijn (Content-Type: application/json)",
            Code::JoinLengthMismatch => "De join-parameters moeten even lang zijn",
            Code::TableInfo => "Fout bij het lezen van de tabelgegevens",
            Code::Warehouses => "Fout bij het ophalen van de magazijnen uit Exact",
            Code::DivisionInfo => "De administratiegegevens konden niet uit Exact worden gehaald",
            Code::SyncEndpointLive => {
                "ESM - 'getEndpointDataExact' kan niet op een sync-endpoint worden aangeroepen, gebruik de database"
            }
            Code::NoToken => "geen token: de administratie en naam konden niet uit Exact worden gehaald",
            Code::LoginState => "De aanmelding kon niet worden gecontroleerd; meld u opnieuw aan",
            Code::LicenceInvalid => "Deze licentiecode is niet geldig voor deze organisatie",
            Code::SyncRunning => "Er loopt al een synchronisatie voor deze organisatie",
            Code::NoLabels => "Er zijn geen etiketten om te printen die aan de criteria voldoen",
            Code::EmptyPayload => "Het verzoek is leeg",
            Code::Provider => "Exact Online gaf een fout",
            Code::TooManyRequests => "Te veel pogingen, wacht even en probeer het opnieuw",
            Code::PayloadTooLarge => "Het verzoek is te groot",
            Code::Unavailable => "De dienst is even niet beschikbaar, probeer het zo opnieuw",
            Code::ProviderSignIn => {
                "Exact Online accepteert de aanmelding niet meer: meld u opnieuw aan bij Exact Online (lokaal werk gaat door)"
            }
            Code::ProviderUnreachable => {
                "Exact Online is nu niet bereikbaar: hiervoor is Exact Online nodig, lokale gegevens en wachtende wijzigingen werken gewoon"
            }
            Code::IdempotencyKeyReused => {
                "Deze Idempotency-Key is al gebruikt voor een ander verzoek: maak een nieuwe sleutel voor een nieuwe boeking"
            }
            Code::TimerGone => {
                "Deze timer is al geboekt of op een ander apparaat verwijderd; de uren worden niet twee keer geboekt"
            }
            Code::AdminOnly => {
                "Alleen een beheerder mag dit: bevestig met het beheerderswachtwoord, of vraag een beheerder van deze installatie"
            }
            Code::TooManyEntries => {
                "Eén verzoek mag hoogstens 200 regels in de wachtrij zetten: splits het in kleinere"
            }
            Code::SignInRefused => {
                "Exact Online accepteert uw aanmelding niet meer (uw toegang is ingetrokken of u bent uit dienst): meld u opnieuw aan; uw wachtende wijzigingen gaan dan alsnog"
            }
            Code::RequestTimeout => {
                "Het verzoek kwam te traag binnen: controleer de verbinding en verstuur het opnieuw"
            }
            Code::CountConflict => {
                "Dit artikel is hier al eerder met een ander aantal geteld: geef aan welke telling geldt"
            }
            Code::CountClosed => {
                "Deze telling is naar Exact Online verstuurd: begin een nieuwe telling voor meer regels"
            }
        }
    }

    /// The catalogue's message in `language`.
    pub fn message_in(self, language: Language) -> &'static str {
        match language {
            Language::En => self.message(),
            Language::Nl => self.message_nl(),
        }
    }

    /// The HTTP status the code is answered with.
    pub fn status(self) -> StatusCode {
        match self {
            Code::BadRequest
            | Code::BadOption
            | Code::JoinLengthMismatch
            | Code::SyncEndpointLive
            | Code::EmptyPayload
            | Code::LoginState
            | Code::LicenceInvalid
            | Code::TooManyEntries => StatusCode::BAD_REQUEST,
            Code::NotAuthorized | Code::NoToken | Code::Critical | Code::SignInRefused => StatusCode::UNAUTHORIZED,
            Code::Forbidden | Code::ProviderSignIn | Code::AdminOnly => StatusCode::FORBIDDEN,
            Code::NotFound => StatusCode::NOT_FOUND,
            Code::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Code::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Code::SyncRunning
            | Code::Canceled
            | Code::IdempotencyKeyReused
            | Code::TimerGone
            | Code::CountConflict
            | Code::CountClosed => StatusCode::CONFLICT,
            Code::NoLabels => StatusCode::UNPROCESSABLE_ENTITY,
            Code::Timeout => StatusCode::GATEWAY_TIMEOUT,
            Code::Warehouses | Code::DivisionInfo | Code::Provider => StatusCode::BAD_GATEWAY,
            Code::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
            Code::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            Code::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Code::Unavailable | Code::ProviderUnreachable => StatusCode::SERVICE_UNAVAILABLE,
            Code::Unknown | Code::TableInfo => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// An error answered to an HTTP caller.
pub struct AppError {
    code: Code,
    /// Overrides the catalogue message with a more precise one (e.g. naming the bad column).
    detail: Option<String>,
    /// The internal cause, logged and never sent.
    cause: Option<anyhow::Error>,
    /// Seconds to send as `Retry-After` (a throttled caller knows when to come back).
    retry_after: Option<u64>,
    /// The precise message as a catalogue text, so it can be said in the caller's language.
    /// (Boxed: errors travel in every `Result`, and most have no text.)
    text: Option<Box<Text>>,
}

impl AppError {
    pub fn new(code: Code) -> Self {
        AppError { code, detail: None, cause: None, retry_after: None, text: None }
    }

    /// A catalogue error with a precise message for the caller.
    pub fn with_message(code: Code, message: impl Into<String>) -> Self {
        AppError { code, detail: Some(message.into()), cause: None, retry_after: None, text: None }
    }

    /// A catalogue error with a precise message from the text catalogue: said in English here
    /// and in the log, and in the caller's language by the server's error handler.
    pub fn said(code: Code, text: Text) -> Self {
        AppError { code, detail: Some(text.to_string()), cause: None, retry_after: None, text: Some(Box::new(text)) }
    }

    /// Shorthand for a 400 that says what was wrong.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::with_message(Code::BadRequest, message)
    }

    /// An internal failure: the caller sees the catalogue's message, the log sees the cause.
    pub fn internal(cause: impl Into<anyhow::Error>) -> Self {
        AppError { code: Code::Unknown, detail: None, cause: Some(cause.into()), retry_after: None, text: None }
    }

    /// A throttled sign-in, password or licence attempt: how long to wait, also as `Retry-After`.
    pub fn too_many_attempts(wait: std::time::Duration) -> Self {
        AppError::with_message(
            Code::TooManyRequests,
            format!("Too many attempts, please wait {} seconds and try again", wait.as_secs().max(1)),
        )
        .retry_after(wait)
    }

    /// Answers with `Retry-After` (whole seconds, at least 1).
    pub fn retry_after(mut self, wait: std::time::Duration) -> Self {
        self.retry_after = Some(wait.as_secs().max(1));
        self
    }

    /// Attaches an internal cause for the log.
    pub fn caused_by(mut self, cause: impl Into<anyhow::Error>) -> Self {
        self.cause = Some(cause.into());
        self
    }

    pub fn code(&self) -> Code {
        self.code
    }

    pub fn message(&self) -> &str {
        self.detail.as_deref().unwrap_or_else(|| self.code.message())
    }
}

impl fmt::Debug for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AppError")
            .field("code", &self.code.as_str())
            .field("message", &self.message())
            .field("cause", &self.cause.as_ref().map(|c| format!("{c:#}")))
            .finish()
    }
}

impl fmt::Display for AppError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message(), self.code.as_str())
    }
}

impl std::error::Error for AppError {}

impl From<Code> for AppError {
    fn from(code: Code) -> Self {
        AppError::new(code)
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorInner<'a>,
}

#[derive(Serialize)]
struct ErrorInner<'a> {
    code: &'a str,
    message: &'a str,
}

impl ResponseError for AppError {
    fn status_code(&self) -> StatusCode {
        self.code.status()
    }

    fn error_response(&self) -> HttpResponse {
        let status = self.status_code();
        match &self.cause {
            Some(cause) if status.is_server_error() => {
                tracing::error!(code = self.code.as_str(), cause = %format!("{cause:#}"), "request failed")
            }
            Some(cause) => tracing::warn!(code = self.code.as_str(), cause = %format!("{cause:#}"), "request refused"),
            None if status.is_server_error() => {
                tracing::error!(code = self.code.as_str(), message = self.message(), "request failed")
            }
            None => tracing::debug!(code = self.code.as_str(), message = self.message(), "request refused"),
        }
        let mut res = HttpResponse::build(status);
        if let Some(seconds) = self.retry_after {
            res.insert_header((actix_web::http::header::RETRY_AFTER, seconds.to_string()));
        }
        let mut res = res.json(ErrorBody { error: ErrorInner { code: self.code.as_str(), message: self.message() } });
        // said again in the caller's language by `server`'s error handler: the catalogue's own
        // words, or a catalogue text; any other precise message stays as it is
        match (&self.detail, &self.text) {
            (None, _) => {
                res.extensions_mut().insert(Catalogued { code: self.code, text: None });
            }
            (Some(_), Some(text)) => {
                res.extensions_mut().insert(Catalogued { code: self.code, text: Some(text.as_ref().clone()) });
            }
            (Some(_), None) => {}
        }
        res
    }
}

/// Marks an error answer whose message is from a catalogue (the code's own, or a [`Text`]), so it
/// can be given in the caller's language.
#[derive(Debug, Clone)]
pub struct Catalogued {
    pub code: Code,
    pub text: Option<Text>,
}

impl Catalogued {
    /// The JSON body of the error answer in `language`.
    pub fn body_in(&self, language: Language) -> Vec<u8> {
        let said;
        let message = match &self.text {
            Some(text) => {
                said = text.said_in(language);
                said.as_str()
            }
            None => self.code.message_in(language),
        };
        serde_json::to_vec(&ErrorBody { error: ErrorInner { code: self.code.as_str(), message } })
            .expect("an error body serialises")
    }
}

pub use esm_base::language::Language;
pub use esm_base::texts::Text;

/// Result type of HTTP handlers.
pub type AppResult<T> = Result<T, AppError>;

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::body::MessageBody;

    /// Exhaustive, so a new code fails to compile here until it is placed in `Code::ALL` too.
    fn position(code: Code) -> usize {
        match code {
            Code::Timeout => 0,
            Code::BadRequest => 1,
            Code::Canceled => 2,
            Code::BadOption => 3,
            Code::Unknown => 4,
            Code::Critical => 5,
            Code::NotAuthorized => 6,
            Code::Forbidden => 7,
            Code::NotFound => 8,
            Code::MethodNotAllowed => 9,
            Code::UnsupportedMediaType => 10,
            Code::JoinLengthMismatch => 11,
            Code::TableInfo => 12,
            Code::Warehouses => 13,
            Code::DivisionInfo => 14,
            Code::SyncEndpointLive => 15,
            Code::NoToken => 16,
            Code::LoginState => 17,
            Code::LicenceInvalid => 18,
            Code::SyncRunning => 19,
            Code::NoLabels => 20,
            Code::EmptyPayload => 21,
            Code::Provider => 22,
            Code::TooManyRequests => 23,
            Code::PayloadTooLarge => 24,
            Code::Unavailable => 25,
            Code::ProviderSignIn => 26,
            Code::ProviderUnreachable => 27,
            Code::IdempotencyKeyReused => 28,
            Code::TimerGone => 29,
            Code::AdminOnly => 30,
            Code::TooManyEntries => 31,
            Code::SignInRefused => 32,
            Code::RequestTimeout => 33,
            Code::CountConflict => 34,
            Code::CountClosed => 35,
        }
    }

    #[test]
    fn every_code_has_its_message_in_dutch_too() {
        for code in Code::ALL {
            let (en, nl) = (code.message_in(Language::En), code.message_in(Language::Nl));
            assert!(!nl.trim().is_empty(), "{code:?}");
            assert_ne!(en, nl, "{code:?} is said in Dutch");
        }
    }

    #[test]
    fn all_lists_every_code_once() {
        for (i, code) in Code::ALL.iter().enumerate() {
            assert_eq!(position(*code), i, "{code:?}");
        }
        let names: std::collections::HashSet<_> = Code::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(names.len(), Code::ALL.len(), "codes are unique");
    }

    #[test]
    fn catalogue_messages_match_the_spec() {
        assert_eq!(
            Code::Timeout.message(),
            "Function code timed out or there was a network issue / try executing the call again"
        );
        assert_eq!(Code::BadRequest.message(), "The input provided was bad");
        assert_eq!(Code::Canceled.message(), "The error that occurred has no impact or is expected to occur");
        assert!(Code::Unknown.message().starts_with("UNKNOWN ERROR OCCURRED: Please provide your local programmer"));
        assert_eq!(Code::Critical.message(), "A CRITICAL error occurred, you will be returned to the login screen");
        assert_eq!(Code::JoinLengthMismatch.message(), "Join parameters lengths must match");
        assert_eq!(Code::TableInfo.message(), "Error while getting table info");
        assert_eq!(Code::Warehouses.message(), "Error while getting Warehouses from Exact");
        assert_eq!(Code::DivisionInfo.message(), "Could not get division information from exact");
        assert!(
            Code::SyncEndpointLive
                .message()
                .starts_with("ESM - 'getEndpointDataExact' cannot be called on a sync endpoint")
        );
        assert_eq!(Code::NoToken.message(), "no token, was not able to get division and name from exact");
        assert_eq!(Code::NoLabels.message(), "There are no labels to print that fit the desired criteria");
        assert_eq!(Code::EmptyPayload.message(), "The payload is empty");
        assert_eq!(Code::Unknown.as_str(), "-");
        assert_eq!(Code::ProviderUnreachable.as_str(), "provider_unreachable");
        assert_eq!(Code::ProviderUnreachable.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            Code::ProviderUnreachable.message(),
            "Exact Online cannot be reached right now: this needs Exact Online, local data and queued changes keep working"
        );
    }

    #[test]
    fn response_has_the_catalogue_shape_and_hides_the_cause() {
        let err = AppError::internal(anyhow::anyhow!("secret-token-123 leaked in cause"));
        let resp = err.error_response();
        assert_eq!(resp.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let body = resp.into_body().try_into_bytes().expect("sized body");
        let json: serde_json::Value = serde_json::from_slice(&body).expect("json");
        assert_eq!(json["error"]["code"], "-");
        assert_eq!(json["error"]["message"], Code::Unknown.message());
        assert!(!String::from_utf8_lossy(&body).contains("secret-token-123"));
    }

    #[test]
    fn detail_overrides_the_message() {
        let err = AppError::bad_request("unknown column 'Foo'");
        assert_eq!(err.message(), "unknown column 'Foo'");
        assert_eq!(err.code().status(), StatusCode::BAD_REQUEST);
    }
}
