//! `POST /api/v1/license/activate {division, customer, code}`: checks an offline licence code
//! (ed25519, see `auth::licence`) for the session's organization and completes the login process.
//! Failed attempts are throttled per client address and per user.

use super::router::Router;
use crate::auth::licence::LicenceExpiry;
use crate::auth::orgs;
use crate::auth::tier::{Session, today};
use crate::error::{AppError, AppResult, Code};
use crate::exact::oauth::now_ms;
use crate::organization::{OrganizationDetails, organization_details};
use crate::state::AppState;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::{Deserialize, Serialize};
use std::time::Instant;
use utoipa::ToSchema;

pub fn routes(r: &mut Router) {
    r.signed_in("/license/activate", |res| {
        res.post(activate)
            .body::<ActivateBody>()
            .json::<Activated>(200, "The organization is activated and the login process complete")
            .fails(&[Code::LicenceInvalid, Code::TooManyRequests])
    });
}

/// A licence code for the session's organization.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct ActivateBody {
    /// The session's division.
    #[schema(example = 123456)]
    division: i64,
    /// The customer name the code was issued to (the provider's name counts when it has one).
    #[serde(default)]
    #[schema(example = "Demo Metaal B.V.")]
    customer: Option<String>,
    code: String,
}

/// An activated organization, with its licence's end.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
struct Activated {
    activated: bool,
    licence: LicenceExpiry,
    organization_details: OrganizationDetails,
}

async fn activate(
    state: web::Data<AppState>,
    req: HttpRequest,
    session: Session,
    body: web::Json<ActivateBody>,
) -> AppResult<HttpResponse> {
    let body = body.into_inner();
    let r = &session.record;
    if body.division != r.division {
        return Err(AppError::with_message(
            Code::Forbidden,
            "You can only activate the organization you are signed in to",
        ));
    }
    // Forwarded addresses only from trusted proxies: a client must not pick its own throttle key.
    let ip = super::client::ClientInfo::of(&req).ip.map(|ip| ip.to_string()).unwrap_or_default();
    let keys = [format!("ip:{ip}"), format!("user:{}", r.user)];
    let now = Instant::now();
    for key in &keys {
        if let Err(wait) = state.auth.licence_attempts.check(key, now) {
            tracing::warn!(division = r.division, "licence activation throttled");
            return Err(AppError::too_many_attempts(wait));
        }
    }
    let verifier =
        state.auth.verifier.as_ref().map_err(|e| AppError::with_message(Code::LicenceInvalid, e.to_string()))?;
    // The provider's customer name is the truth; the page's query only echoes it.
    let customer = if r.customer_name.is_empty() { body.customer.unwrap_or_default() } else { r.customer_name.clone() };
    let licence = match verifier.verify(&body.code, r.division, &customer, today()) {
        Ok(l) => l,
        Err(e) => {
            for key in &keys {
                state.auth.licence_attempts.fail(key, now);
            }
            tracing::warn!(division = r.division, reason = %e, "licence code refused");
            return Err(AppError::with_message(Code::LicenceInvalid, e.to_string()));
        }
    };
    for key in &keys {
        state.auth.licence_attempts.succeed(key);
    }
    orgs::activate(&state.serverdb, &licence, &body.code, now_ms()).map_err(AppError::internal)?;
    let mut updated = r.clone();
    updated.registered = true;
    state.auth.sessions.save(&session.id, &updated).map_err(AppError::internal)?;
    tracing::info!(division = r.division, expires = ?licence.expires, "organization activated");
    Ok(HttpResponse::Ok().json(Activated {
        activated: true,
        licence: LicenceExpiry { expires: licence.expires },
        organization_details: organization_details(&state.stores, r.division),
    }))
}
