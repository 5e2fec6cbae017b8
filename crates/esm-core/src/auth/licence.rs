//! Licence codes: offline and tamper-evident. A code is an ed25519 signature over the division,
//! the customer name, an optional expiry date and the product, verified with the vendor's public
//! key built into the binary (or one from the config, for self-hosted licensing).
//!
//! Format: `ESM1.{base64url(payload JSON)}.{base64url(signature)}`; the signature covers the
//! exact payload bytes, so any change to the payload breaks it.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use chrono::NaiveDate;
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier as _, VerifyingKey};
use serde::{Deserialize, Serialize};

/// The product a code is for; codes for other products are refused.
pub const PRODUCT: &str = "stock-manager";
const PREFIX: &str = "ESM1";
/// The first line of a signing-key file written by `license keygen`.
const KEY_FILE_HEADER: &str = "Stock Manager licence signing key v1";

/// The vendor's public key, built in at release time from `ESM_VENDOR_PUBLIC_KEY` (the public
/// half of the vendor's `license keygen` key; the private half never enters the source tree).
/// A build without it trusts only `licence.public_key` from the config.
pub const VENDOR_PUBLIC_KEY: Option<&str> = option_env!("ESM_VENDOR_PUBLIC_KEY");

/// The demo key's seed. It is public on purpose: only `stock-manager demo` trusts this key, so
/// codes it signs are worthless anywhere else.
const DEMO_SEED: [u8; 32] = *b"stock-manager demo licence key!!";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Licence {
    pub product: String,
    pub division: i64,
    pub customer: String,
    /// Last valid day; `None` = no expiry.
    pub expires: Option<NaiveDate>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LicenceError {
    #[error("This is not a valid licence code: check that it was copied completely")]
    Malformed,
    #[error("This licence code was not issued by the vendor of this installation")]
    BadSignature,
    #[error("This licence code is for another product")]
    OtherProduct,
    #[error("This licence code is for division {0}, not for this organization")]
    OtherDivision(i64),
    #[error("This licence code is for another customer ({0})")]
    OtherCustomer(String),
    #[error("This licence code expired on {0}")]
    Expired(NaiveDate),
    #[error("invalid signing key: {0}")]
    BadKey(String),
    #[error("This installation has no licence key: set licence.public_key in the configuration")]
    NoKey,
}

/// Signs licences (the vendor's side).
pub struct Issuer {
    key: SigningKey,
}

impl Issuer {
    /// A fresh random key pair.
    pub fn generate() -> Issuer {
        Issuer { key: SigningKey::from_bytes(&rand::random::<[u8; 32]>()) }
    }

    /// The demo issuer (see [`DEMO_SEED`]).
    pub fn demo() -> Issuer {
        Issuer { key: SigningKey::from_bytes(&DEMO_SEED) }
    }

    /// Reads a key file written by [`Issuer::to_key_file`].
    pub fn from_key_file(text: &str) -> Result<Issuer, LicenceError> {
        let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
        if lines.next() != Some(KEY_FILE_HEADER) {
            return Err(LicenceError::BadKey("not a Stock Manager licence signing key file".into()));
        }
        let seed = lines.next().ok_or_else(|| LicenceError::BadKey("the key line is missing".into()))?;
        let bytes = STANDARD.decode(seed).map_err(|_| LicenceError::BadKey("the key is not base64".into()))?;
        let seed: [u8; 32] = bytes.try_into().map_err(|_| LicenceError::BadKey("the key must be 32 bytes".into()))?;
        Ok(Issuer { key: SigningKey::from_bytes(&seed) })
    }

    /// The private key file's text. Keep it secret: whoever has it can issue licences.
    pub fn to_key_file(&self) -> String {
        format!("{KEY_FILE_HEADER}\n{}\n", STANDARD.encode(self.key.to_bytes()))
    }

    /// The public key, base64, for `licence.public_key` or the built-in constant.
    pub fn public_key(&self) -> String {
        STANDARD.encode(self.key.verifying_key().to_bytes())
    }

    pub fn issue(&self, division: i64, customer: &str, expires: Option<NaiveDate>) -> String {
        let licence =
            Licence { product: PRODUCT.to_string(), division, customer: customer.trim().to_string(), expires };
        let payload = serde_json::to_vec(&licence).unwrap_or_default();
        let signature = self.key.sign(&payload);
        format!("{PREFIX}.{}.{}", URL_SAFE_NO_PAD.encode(&payload), URL_SAFE_NO_PAD.encode(signature.to_bytes()))
    }
}

/// Checks codes against the trusted public keys.
pub struct Verifier {
    keys: Vec<VerifyingKey>,
}

fn parse_key(b64: &str) -> Result<VerifyingKey, LicenceError> {
    let bytes = STANDARD.decode(b64.trim()).map_err(|_| LicenceError::BadKey("the public key is not base64".into()))?;
    let bytes: [u8; 32] =
        bytes.try_into().map_err(|_| LicenceError::BadKey("the public key must be 32 bytes".into()))?;
    VerifyingKey::from_bytes(&bytes).map_err(|e| LicenceError::BadKey(e.to_string()))
}

impl Verifier {
    /// Trusts the configured key if any, else the vendor's; `demo` also trusts the demo key.
    pub fn new(configured: Option<&str>, demo: bool) -> Result<Verifier, LicenceError> {
        let mut keys = Vec::new();
        match configured.filter(|k| !k.trim().is_empty()).or(VENDOR_PUBLIC_KEY) {
            Some(k) => keys.push(parse_key(k)?),
            None if demo => {}
            None => return Err(LicenceError::NoKey),
        }
        if demo {
            keys.push(Issuer::demo().key.verifying_key());
        }
        Ok(Verifier { keys })
    }

    /// Verifies `code` for this organization on `today`.
    pub fn verify(&self, code: &str, division: i64, customer: &str, today: NaiveDate) -> Result<Licence, LicenceError> {
        let mut parts = code.trim().split('.');
        let (Some(PREFIX), Some(payload), Some(sig), None) = (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(LicenceError::Malformed);
        };
        let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| LicenceError::Malformed)?;
        let sig = URL_SAFE_NO_PAD.decode(sig).map_err(|_| LicenceError::Malformed)?;
        let sig: [u8; 64] = sig.try_into().map_err(|_| LicenceError::Malformed)?;
        let signature = Signature::from_bytes(&sig);
        if !self.keys.iter().any(|k| k.verify(&payload, &signature).is_ok()) {
            return Err(LicenceError::BadSignature);
        }
        let licence: Licence = serde_json::from_slice(&payload).map_err(|_| LicenceError::Malformed)?;
        if licence.product != PRODUCT {
            return Err(LicenceError::OtherProduct);
        }
        if licence.division != division {
            return Err(LicenceError::OtherDivision(licence.division));
        }
        if !licence.customer.trim().eq_ignore_ascii_case(customer.trim()) {
            return Err(LicenceError::OtherCustomer(licence.customer));
        }
        if let Some(exp) = licence.expires
            && today > exp
        {
            return Err(LicenceError::Expired(exp));
        }
        Ok(licence)
    }
}

/// When a licence ends.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct LicenceExpiry {
    /// The last day the licence holds, or null for no end.
    #[schema(value_type = Option<String>, format = Date, example = "2027-12-31")]
    pub expires: Option<chrono::NaiveDate>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn a_code_verifies_for_its_organization_only() {
        let issuer = Issuer::generate();
        let verifier = Verifier::new(Some(&issuer.public_key()), false).unwrap();
        let code = issuer.issue(3154102, "Van Dijk Machinebouw B.V.", Some(day("2027-12-31")));
        let today = day("2026-11-21");
        let ok = verifier.verify(&code, 3154102, " van dijk machinebouw b.v. ", today).unwrap();
        assert_eq!(ok.division, 3154102);
        assert_eq!(
            verifier.verify(&code, 1, "Van Dijk Machinebouw B.V.", today),
            Err(LicenceError::OtherDivision(3154102))
        );
        assert!(matches!(verifier.verify(&code, 3154102, "Other B.V.", today), Err(LicenceError::OtherCustomer(_))));
        assert_eq!(
            verifier.verify(&code, 3154102, "Van Dijk Machinebouw B.V.", day("2028-01-01")),
            Err(LicenceError::Expired(day("2027-12-31")))
        );
    }

    #[test]
    fn tampering_breaks_the_signature() {
        let issuer = Issuer::generate();
        let verifier = Verifier::new(Some(&issuer.public_key()), false).unwrap();
        let code = issuer.issue(1, "A", None);
        let parts: Vec<&str> = code.split('.').collect();
        let forged_payload =
            URL_SAFE_NO_PAD.encode(br#"{"product":"stock-manager","division":2,"customer":"A","expires":null}"#);
        let forged = format!("{}.{}.{}", parts[0], forged_payload, parts[2]);
        assert_eq!(verifier.verify(&forged, 2, "A", day("2026-01-01")), Err(LicenceError::BadSignature));
        assert_eq!(verifier.verify("ESM1.garbage", 1, "A", day("2026-01-01")), Err(LicenceError::Malformed));
        assert_eq!(verifier.verify("", 1, "A", day("2026-01-01")), Err(LicenceError::Malformed));
    }

    #[test]
    fn other_keys_and_the_demo_key_are_refused_outside_demo() {
        let vendorless = Verifier::new(Some(&Issuer::generate().public_key()), false).unwrap();
        let demo_code = Issuer::demo().issue(1, "A", None);
        assert_eq!(vendorless.verify(&demo_code, 1, "A", day("2026-01-01")), Err(LicenceError::BadSignature));
        let demo = Verifier::new(None, true).unwrap();
        assert!(demo.verify(&demo_code, 1, "A", day("2026-01-01")).is_ok());
        let stranger = Issuer::generate().issue(1, "A", None);
        assert_eq!(demo.verify(&stranger, 1, "A", day("2026-01-01")), Err(LicenceError::BadSignature));
    }

    #[test]
    fn key_files_round_trip() {
        let issuer = Issuer::generate();
        let again = Issuer::from_key_file(&issuer.to_key_file()).unwrap();
        assert_eq!(again.public_key(), issuer.public_key());
        assert!(Issuer::from_key_file("nonsense").is_err());
    }

    #[test]
    fn the_vendor_key_parses_when_built_in() {
        if let Some(k) = VENDOR_PUBLIC_KEY {
            parse_key(k).unwrap();
        } else {
            assert_eq!(Verifier::new(None, false).err(), Some(LicenceError::NoKey));
        }
    }
}
