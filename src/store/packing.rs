//! How a row's JSON text is kept on disk: LZ4-compressed when that saves space.
//!
//! Why: provider rows are about 1.5 KB of JSON, so a 4 KB B-tree page held two of them and a
//! quarter of every page was left over; compressed (about a quarter of the size) a page holds
//! eight or more, and a sync writes and the cache holds a third of the pages. Decompressing a
//! 1000-row page costs well under a millisecond.
//!
//! Format: JSON text never starts with byte 0x01, so a stored value that does is packed:
//! `0x01`, the text's length (u32, little endian), then one LZ4 block. Anything else is the
//! text itself (short rows, and rows that did not shrink).

use super::error::{StoreError, StoreResult};
use std::borrow::Cow;

const PACKED: u8 = 0x01;
/// Rows shorter than this are kept as text: the block's overhead eats the gain.
const MIN_PACK: usize = 128;
/// No stored row is larger; a length beyond it means the file is damaged.
const MAX_ROW: usize = 64 * 1024 * 1024;

/// The bytes to store for a row's JSON text, written into `buf` (reused across rows).
pub(crate) fn pack<'a>(text: &'a [u8], buf: &'a mut Vec<u8>) -> &'a [u8] {
    if text.len() < MIN_PACK || text.len() > MAX_ROW {
        return text;
    }
    buf.clear();
    buf.push(PACKED);
    buf.extend_from_slice(&(text.len() as u32).to_le_bytes());
    let head = buf.len();
    buf.resize(head + lz4_flex::block::get_maximum_output_size(text.len()), 0);
    match lz4_flex::block::compress_into(text, &mut buf[head..]) {
        Ok(n) if head + n < text.len() => {
            buf.truncate(head + n);
            buf
        }
        _ => text,
    }
}

/// A stored row's JSON text.
pub(crate) fn unpack(stored: &[u8]) -> StoreResult<Cow<'_, [u8]>> {
    let Some((&PACKED, rest)) = stored.split_first() else { return Ok(Cow::Borrowed(stored)) };
    let damaged = |why: &str| StoreError::Corrupt(format!("stored row: {why}"));
    let (len, block) = rest.split_at_checked(4).ok_or_else(|| damaged("packed row too short"))?;
    let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
    if len > MAX_ROW {
        return Err(damaged("packed row length out of range"));
    }
    let mut out = vec![0u8; len];
    match lz4_flex::block::decompress_into(block, &mut out) {
        Ok(n) if n == len => Ok(Cow::Owned(out)),
        Ok(_) => Err(damaged("packed row shorter than its length")),
        Err(e) => Err(damaged(&format!("packed row: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_packed_or_as_text() {
        let long = format!(r#"{{"ID":"a","Description":"{}","Stock":12.5}}"#, "Bolt M8x40 ".repeat(40));
        let mut buf = Vec::new();
        let stored = pack(long.as_bytes(), &mut buf).to_vec();
        assert_eq!(stored[0], PACKED);
        assert!(stored.len() < long.len() / 3, "{} of {}", stored.len(), long.len());
        assert_eq!(unpack(&stored).expect("unpack").as_ref(), long.as_bytes());
        // Short rows and rows that do not shrink stay text, and read back as they are.
        let short = br#"{"ID":"b"}"#;
        assert_eq!(pack(short, &mut buf), short);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let noise: Vec<u8> = (0..400)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 56) as u8
            })
            .collect();
        assert_eq!(pack(&noise, &mut buf), noise.as_slice());
        assert!(matches!(unpack(short).expect("text"), Cow::Borrowed(_)));
    }

    #[test]
    fn damaged_packed_rows_are_errors_not_panics() {
        let long = "x".repeat(1000);
        let mut buf = Vec::new();
        let stored = pack(long.as_bytes(), &mut buf).to_vec();
        for bad in [&stored[..3], &stored[..stored.len() - 2], &[PACKED, 0xFF, 0xFF, 0xFF, 0x7F, 0][..]] {
            assert!(matches!(unpack(bad), Err(StoreError::Corrupt(_))));
        }
        let mut longer = stored.clone();
        longer[1] = longer[1].wrapping_add(1);
        assert!(matches!(unpack(&longer), Err(StoreError::Corrupt(_))));
    }
}
