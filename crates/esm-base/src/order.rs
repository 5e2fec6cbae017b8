//! Orders that read as people expect.

use std::cmp::Ordering;

/// Compares texts as people read them: runs of digits by their value ("PO 9" before "PO 10"),
/// the rest without regard to case.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a.first(), b.first()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let run = |s: &[u8]| s.iter().take_while(|c| c.is_ascii_digit()).count();
                let (na, nb) = (run(a), run(b));
                let zeros = |s: &[u8]| s.iter().take_while(|c| **c == b'0').count();
                let (da, db) = (&a[zeros(&a[..na])..na], &b[zeros(&b[..nb])..nb]);
                let by_value = da.len().cmp(&db.len()).then_with(|| da.cmp(db));
                if by_value != Ordering::Equal {
                    return by_value;
                }
                (a, b) = (&a[na..], &b[nb..]);
            }
            (Some(x), Some(y)) => {
                let by_letter = x.to_ascii_lowercase().cmp(&y.to_ascii_lowercase());
                if by_letter != Ordering::Equal {
                    return by_letter;
                }
                (a, b) = (&a[1..], &b[1..]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_by_value_letters_in_any_case() {
        let mut v = vec!["PO 10", "po 9", "PO 9a", "A", "", "PO 010b", "0", "00"];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(v, vec!["", "0", "00", "A", "po 9", "PO 9a", "PO 10", "PO 010b"]);
    }
}
