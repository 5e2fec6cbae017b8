//! The admin password: stored as an Argon2 PHC string (`stock-manager hash-password`), or as
//! plain text for configurations written before hashes were accepted.

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};

/// Whether a configured password is a hash rather than the password itself.
pub fn is_hash(configured: &str) -> bool {
    configured.starts_with("$argon2")
}

/// Checks that a configured hash is a PHC string Argon2 can verify against.
pub fn check_hash(configured: &str) -> Result<(), String> {
    let hash = PasswordHash::new(configured).map_err(|e| format!("is not a valid Argon2 hash: {e}"))?;
    argon2::Algorithm::try_from(hash.algorithm).map_err(|e| format!("is not a valid Argon2 hash: {e}"))?;
    if hash.salt.is_none() || hash.hash.is_none() {
        return Err("is not a whole Argon2 hash (no salt or hash part): paste all of hash-password's output".into());
    }
    argon2::Params::try_from(&hash).map_err(|e| format!("has Argon2 parameters that do not work: {e}"))?;
    Ok(())
}

/// Hashes a password with Argon2id and a random salt, as a PHC string.
pub fn hash(password: &str) -> Result<String, String> {
    let salt = SaltString::encode_b64(&rand::random::<[u8; 16]>()).map_err(|e| e.to_string())?;
    Argon2::default().hash_password(password.as_bytes(), &salt).map(|h| h.to_string()).map_err(|e| e.to_string())
}

/// Whether `given` is the configured password (hash or plain; never true for an empty one).
/// Argon2 is slow on purpose: call this off the async workers.
pub fn verify(configured: &str, given: &str) -> bool {
    if configured.is_empty() {
        return false;
    }
    if is_hash(configured) {
        return PasswordHash::new(configured)
            .is_ok_and(|hash| Argon2::default().verify_password(given.as_bytes(), &hash).is_ok());
    }
    constant_time_eq(configured.as_bytes(), given.as_bytes())
}

/// Compares secrets without leaking where they differ through timing.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only() {
        let phc = hash("correct horse").expect("hashes");
        assert!(phc.starts_with("$argon2id$"), "{phc}");
        assert!(is_hash(&phc));
        check_hash(&phc).expect("a valid hash");
        assert!(verify(&phc, "correct horse"));
        assert!(!verify(&phc, "correct horse "));
        assert!(!verify(&phc, ""));
        assert_ne!(hash("correct horse").expect("hashes"), phc, "every hash has its own salt");
    }

    #[test]
    fn plain_passwords_still_work_and_empty_never_does() {
        assert!(verify("plain", "plain"));
        assert!(!verify("plain", "plai"));
        assert!(!verify("", ""));
        assert!(!is_hash("plain"));
    }

    #[test]
    fn broken_hashes_are_refused() {
        assert!(check_hash("$argon2id$v=19$m=19456,t=2,p=1$bad").is_err());
        assert!(check_hash("$argon2id$nonsense").is_err());
        assert!(check_hash("$argon2xx$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA").is_err());
        assert!(!verify("$argon2id$nonsense", "nonsense"));
    }
}
