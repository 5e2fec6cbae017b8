//! The organizations this installation knows, with their licence: an organization must be
//! activated with a licence code before its data is used (spec §1).

use super::licence::Licence;
use crate::serverdb::{ORGS, ServerDb};
use anyhow::Result;
use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OrgRecord {
    pub division: i64,
    pub customer: String,
    pub licence: Option<ActiveLicence>,
}

/// The licence that activated the organization.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ActiveLicence {
    pub code: String,
    pub expires: Option<NaiveDate>,
    pub activated_ms: i64,
}

impl OrgRecord {
    /// Activated with a licence that has not expired by `today`.
    pub fn is_active(&self, today: NaiveDate) -> bool {
        self.licence.as_ref().is_some_and(|l| l.expires.is_none_or(|e| today <= e))
    }
}

pub fn get(db: &ServerDb, division: i64) -> Result<Option<OrgRecord>> {
    db.get_json(ORGS, &division.to_string())
}

/// Records an organization seen at sign-in, keeping its licence if it has one.
pub fn register(db: &ServerDb, division: i64, customer: &str) -> Result<OrgRecord> {
    let record = match get(db, division)? {
        Some(r) if r.customer == customer => return Ok(r),
        Some(mut r) => {
            r.customer = customer.to_string();
            r
        }
        None => OrgRecord { division, customer: customer.to_string(), licence: None },
    };
    db.put_json(ORGS, &division.to_string(), &record)?;
    Ok(record)
}

/// Stores a verified licence as the organization's activation.
pub fn activate(db: &ServerDb, licence: &Licence, code: &str, now_ms: i64) -> Result<OrgRecord> {
    let record = OrgRecord {
        division: licence.division,
        customer: licence.customer.clone(),
        licence: Some(ActiveLicence { code: code.trim().to_string(), expires: licence.expires, activated_ms: now_ms }),
    };
    db.put_json(ORGS, &licence.division.to_string(), &record)?;
    Ok(record)
}

/// Whether the organization is activated today.
pub fn is_active(db: &ServerDb, division: i64, today: NaiveDate) -> Result<bool> {
    Ok(get(db, division)?.is_some_and(|r| r.is_active(today)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activation_lasts_until_the_licence_expires() {
        let dir = tempfile::tempdir().unwrap();
        let db = ServerDb::open(dir.path()).unwrap();
        let day = |s: &str| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
        register(&db, 7, "Acme").unwrap();
        assert!(!is_active(&db, 7, day("2026-01-01")).unwrap());
        let licence = Licence {
            product: super::super::licence::PRODUCT.into(),
            division: 7,
            customer: "Acme".into(),
            expires: Some(day("2026-12-31")),
        };
        activate(&db, &licence, "code", 0).unwrap();
        assert!(is_active(&db, 7, day("2026-12-31")).unwrap());
        assert!(!is_active(&db, 7, day("2027-01-01")).unwrap());
        register(&db, 7, "Acme").unwrap();
        assert!(is_active(&db, 7, day("2026-06-01")).unwrap(), "signing in again keeps the licence");
        assert!(!is_active(&db, 8, day("2026-06-01")).unwrap());
    }
}
