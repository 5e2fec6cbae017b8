//! How a row's JSON text is kept on disk: LZ4-compressed against its table's dictionary.
//!
//! Why: rows of one table repeat the same field names and much the same values, but a single
//! row (about 1 KB of JSON) gives LZ4 little to match within itself: alone it shrank rows to
//! about 60%. Compressed against a dictionary (the text of the table's first stored row) the
//! names and common values become back-references and rows shrink to about a quarter, so a
//! 4 KB B-tree page holds 10+ rows instead of 2 to 4, and a sync writes, and the cache holds,
//! far fewer pages. Compressing and decompressing cost no more than without a dictionary.
//!
//! Format: JSON text never starts with byte 0x02, so a stored value that does is packed:
//! `0x02`, the dictionary's hash (u32 LE, checked on reading: a row is never decoded against
//! another dictionary), the text's length (u32 LE), then one LZ4 block. Anything else is the
//! text itself (short rows, and rows that did not shrink).
//!
//! Each table's dictionary lives in the `dicts` table, made from the first row the table
//! stores and removed when the table is cleared (with all its rows).

use super::error::{StoreError, StoreResult};
use super::tables::DICTS;
use redb::{ReadTransaction, ReadableTable, TableError, WriteTransaction};
use std::borrow::Cow;

const PACKED: u8 = 0x02;
/// Header: tag, dictionary hash, text length.
const HEADER: usize = 9;
/// Rows shorter than this are kept as text: the block's overhead eats the gain.
const MIN_PACK: usize = 64;
/// No stored row is larger; a length beyond it means the file is damaged.
const MAX_ROW: usize = 64 * 1024 * 1024;
/// A longer first row gives only its start: LZ4 reads the whole dictionary for every row
/// it compresses, and field names come first in provider rows anyway.
const MAX_DICT: usize = 8 * 1024;

/// A table's compression dictionary.
#[derive(Debug)]
pub(crate) struct Dict {
    hash: u32,
    bytes: Vec<u8>,
}

impl Dict {
    fn new(bytes: Vec<u8>) -> Dict {
        // FNV-1a: a stable fingerprint, stored in every packed row to catch a mismatch.
        let hash = bytes.iter().fold(0x811C_9DC5u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193));
        Dict { hash, bytes }
    }

    /// A dictionary made from a table's first row.
    fn from_sample(sample: &[u8]) -> Dict {
        Dict::new(sample[..sample.len().min(MAX_DICT)].to_vec())
    }
}

/// The dictionary of `table` as stored, if it has one.
fn load(dicts: &impl ReadableTable<&'static str, &'static [u8]>, table: &str) -> StoreResult<Option<Dict>> {
    Ok(dicts.get(table)?.map(|g| Dict::new(g.value().to_vec())))
}

/// Unpacks the rows of one table in one read transaction.
pub(crate) struct Unpacker(Option<Dict>);

impl Unpacker {
    /// Reads the table's dictionary once, for every row the transaction reads of it.
    pub(crate) fn open(txn: &ReadTransaction, table: &str) -> StoreResult<Unpacker> {
        match txn.open_table(DICTS) {
            Ok(t) => Ok(Unpacker(load(&t, table)?)),
            Err(TableError::TableDoesNotExist(_)) => Ok(Unpacker(None)),
            Err(e) => Err(e.into()),
        }
    }

    /// A stored row's JSON text.
    pub(crate) fn unpack<'a>(&self, stored: &'a [u8]) -> StoreResult<Cow<'a, [u8]>> {
        unpack(stored, self.0.as_ref())
    }
}

/// The table's dictionary inside a write transaction, if it has one.
pub(crate) fn dict_in_write(txn: &WriteTransaction, table: &str) -> StoreResult<Option<Dict>> {
    load(&txn.open_table(DICTS)?, table)
}

/// The dictionary to pack a table's rows with, made from `sample` (the first row written)
/// when the table has none yet.
pub(crate) fn dict_for_write(txn: &WriteTransaction, table: &str, sample: &[u8]) -> StoreResult<Dict> {
    let mut dicts = txn.open_table(DICTS)?;
    if let Some(d) = load(&dicts, table)? {
        return Ok(d);
    }
    let dict = Dict::from_sample(sample);
    dicts.insert(table, dict.bytes.as_slice())?;
    Ok(dict)
}

/// Forgets a table's dictionary (its rows are gone): the next first row makes a new one.
pub(crate) fn remove_dict(txn: &WriteTransaction, table: &str) -> StoreResult<()> {
    txn.open_table(DICTS)?.remove(table)?;
    Ok(())
}

/// The bytes to store for a row's JSON text, written into `buf` (reused across rows).
pub(crate) fn pack<'a>(text: &'a [u8], dict: &Dict, buf: &'a mut Vec<u8>) -> &'a [u8] {
    if text.len() < MIN_PACK || text.len() > MAX_ROW {
        return text;
    }
    buf.clear();
    buf.push(PACKED);
    buf.extend_from_slice(&dict.hash.to_le_bytes());
    buf.extend_from_slice(&(text.len() as u32).to_le_bytes());
    buf.resize(HEADER + lz4_flex::block::get_maximum_output_size(text.len()), 0);
    match lz4_flex::block::compress_into_with_dict(text, &mut buf[HEADER..], &dict.bytes) {
        Ok(n) if HEADER + n < text.len() => {
            buf.truncate(HEADER + n);
            buf
        }
        _ => text,
    }
}

/// A stored row's JSON text, unpacked with its table's dictionary.
pub(crate) fn unpack<'a>(stored: &'a [u8], dict: Option<&Dict>) -> StoreResult<Cow<'a, [u8]>> {
    let Some((&PACKED, _)) = stored.split_first() else { return Ok(Cow::Borrowed(stored)) };
    let damaged = |why: &str| StoreError::Corrupt(format!("stored row: {why}"));
    let header = stored.get(1..HEADER).ok_or_else(|| damaged("packed row too short"))?;
    let word = |i: usize| u32::from_le_bytes([header[i], header[i + 1], header[i + 2], header[i + 3]]);
    let dict = dict.ok_or_else(|| damaged("packed row of a table without a dictionary"))?;
    if word(0) != dict.hash {
        return Err(damaged("packed row of another dictionary"));
    }
    let len = word(4) as usize;
    if len > MAX_ROW {
        return Err(damaged("packed row length out of range"));
    }
    let mut out = vec![0u8; len];
    match lz4_flex::block::decompress_into_with_dict(&stored[HEADER..], &mut out, &dict.bytes) {
        Ok(n) if n == len => Ok(Cow::Owned(out)),
        Ok(_) => Err(damaged("packed row shorter than its length")),
        Err(e) => Err(damaged(&format!("packed row: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(i: usize) -> String {
        format!(
            r#"{{"ID":"{i:08}-aaaa-bbbb-cccc-dddddddddddd","Code":"ITEM-{i}","Description":"Bolt M8x{i}","ItemGroupDescription":"Fasteners","Stock":{i}.5,"Created":"/Date(1773136805000)/","IsStockItem":true}}"#
        )
    }

    #[test]
    fn rows_round_trip_packed_against_the_dictionary_or_as_text() {
        let dict = Dict::from_sample(item(1).as_bytes());
        let mut buf = Vec::new();
        let row = item(2);
        let stored = pack(row.as_bytes(), &dict, &mut buf).to_vec();
        assert_eq!(stored[0], PACKED);
        // Field names and repeated values come from the dictionary.
        assert!(stored.len() < row.len() / 3, "{} of {}", stored.len(), row.len());
        assert_eq!(unpack(&stored, Some(&dict)).expect("unpack").as_ref(), row.as_bytes());
        // Short rows and rows that do not shrink stay text, and read back as they are.
        let short = br#"{"ID":"b"}"#;
        assert_eq!(pack(short, &dict, &mut buf), short);
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let noise: Vec<u8> = (0..400)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 56) as u8
            })
            .collect();
        assert_eq!(pack(&noise, &dict, &mut buf), noise.as_slice());
        assert!(matches!(unpack(short, None).expect("text"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_long_first_row_gives_only_its_start() {
        let long = "x".repeat(3 * MAX_DICT);
        assert_eq!(Dict::from_sample(long.as_bytes()).bytes.len(), MAX_DICT);
    }

    #[test]
    fn damaged_or_foreign_packed_rows_are_errors_not_panics() {
        let dict = Dict::from_sample(item(1).as_bytes());
        let mut buf = Vec::new();
        let stored = pack(item(2).as_bytes(), &dict, &mut buf).to_vec();
        let mut too_long = stored[..HEADER].to_vec();
        too_long[5..9].copy_from_slice(&u32::MAX.to_le_bytes());
        for bad in [&stored[..3], &stored[..stored.len() - 2], &too_long] {
            assert!(matches!(unpack(bad, Some(&dict)), Err(StoreError::Corrupt(_))));
        }
        let mut longer = stored.clone();
        longer[5] = longer[5].wrapping_add(1);
        assert!(matches!(unpack(&longer, Some(&dict)), Err(StoreError::Corrupt(_))));
        // Never decoded against another table's dictionary, or none.
        let other = Dict::from_sample(item(3).as_bytes());
        assert!(matches!(unpack(&stored, Some(&other)), Err(StoreError::Corrupt(_))));
        assert!(matches!(unpack(&stored, None), Err(StoreError::Corrupt(_))));
    }
}
