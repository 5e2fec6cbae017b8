//! The last known answer of each live provider read (`/exact/urlDirect`), kept with the time it
//! was fetched so that the read can still answer, marked "as of", while Exact Online is away.
//!
//! Answers are keyed by a hash of their reader and normalised URL, and bounded: one larger than
//! `Limits::max_answer_bytes` of JSON is not kept, and past `max_entries` answers or
//! `max_total_bytes` the least recently used ones go (kept or served counts as a use).

use super::Commit;
use super::OrgStore;
use super::error::{StoreError, StoreResult};
use super::tables::{LAST_KNOWN, LAST_KNOWN_BODIES};
use redb::{ReadableDatabase, ReadableTable, TableError};
use sha2::{Digest, Sha256};

/// How much the last known answers of one organization may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// JSON bytes of one answer; a larger answer is not kept.
    pub max_answer_bytes: usize,
    /// Answers kept.
    pub max_entries: usize,
    /// JSON bytes of all kept answers together (stored LZ4-compressed, so the file holds less).
    pub max_total_bytes: u64,
}

/// The product's limits: a screen's read is far below 8 MB; 64 MB and 500 answers cover every
/// screen's reads many times over, while filtered URLs without end cannot grow the store.
pub const LIMITS: Limits = Limits { max_answer_bytes: 8 << 20, max_entries: 500, max_total_bytes: 64 << 20 };

/// A kept answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastKnown {
    /// When the provider gave it (epoch ms).
    pub fetched_ms: i64,
    /// The answer's JSON, as it was kept.
    pub body: Vec<u8>,
}

/// What keeping an answer did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// Kept; `evicted` older answers made room.
    Stored { evicted: usize },
    /// Over `max_answer_bytes`: not kept, and an older answer of the URL was dropped with it.
    TooLarge,
    /// A newer answer of the URL is already kept (two reads finished out of order).
    Older,
}

/// The URL as the cache sees it: absolute, query parameters percent-decoded one by one and
/// sorted, so the same read spelled another way (`%20` or a space, `$select` first or last)
/// finds the same copy. Parameters are split before decoding, so an encoded `&` or `=` in a
/// value cannot merge or split them.
pub fn normalise(url: &str) -> Vec<String> {
    let url = url.trim();
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let mut parts: Vec<String> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            format!("{}={}", decode(k), decode(v))
        })
        .collect();
    parts.sort();
    parts.insert(0, decode(path));
    parts
}

fn decode(s: &str) -> String {
    urlencoding::decode(s).map(|c| c.into_owned()).unwrap_or_else(|_| s.to_string())
}

/// The key an answer is kept under: SHA-256 of the reader and the normalised URL, each part
/// length-prefixed. The reader (the provider user whose rights the read went under) is part of
/// it: what one user may read is never served to another in an outage.
pub fn key_of(reader: &str, url: &str) -> String {
    let mut h = Sha256::new();
    for part in std::iter::once(reader.to_string()).chain(normalise(url)) {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part.as_bytes());
    }
    hex::encode(h.finalize())
}

impl OrgStore {
    /// When the last known answer of `url` was fetched, without reading it.
    pub fn last_known_fetched(&self, reader: &str, url: &str) -> StoreResult<Option<i64>> {
        let txn = self.db.begin_read()?;
        let entries = match txn.open_table(LAST_KNOWN) {
            Ok(t) => t,
            Err(TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        Ok(entries.get(key_of(reader, url).as_str())?.map(|g| g.value().0))
    }

    /// The last known answer of `url`, if one is kept.
    pub fn last_known(&self, reader: &str, url: &str) -> StoreResult<Option<LastKnown>> {
        let key = key_of(reader, url);
        let txn = self.db.begin_read()?;
        let (entries, bodies) = match (txn.open_table(LAST_KNOWN), txn.open_table(LAST_KNOWN_BODIES)) {
            (Ok(e), Ok(b)) => (e, b),
            (Err(TableError::TableDoesNotExist(_)), _) | (_, Err(TableError::TableDoesNotExist(_))) => {
                return Ok(None);
            }
            (Err(e), _) | (_, Err(e)) => return Err(e.into()),
        };
        let Some((fetched_ms, _, len)) = entries.get(key.as_str())?.map(|g| g.value()) else { return Ok(None) };
        let Some(packed) = bodies.get(key.as_str())? else { return Ok(None) };
        let len = usize::try_from(len).map_err(|_| StoreError::Corrupt("last known answer length".into()))?;
        let body = lz4_flex::block::decompress(packed.value(), len)
            .map_err(|e| StoreError::Corrupt(format!("last known answer: {e}")))?;
        Ok(Some(LastKnown { fetched_ms, body }))
    }

    /// Keeps `body` as the last known answer of `url`, fetched at `fetched_ms`, within `limits`.
    pub fn keep_last_known(
        &self,
        reader: &str,
        url: &str,
        body: &[u8],
        fetched_ms: i64,
        limits: &Limits,
    ) -> StoreResult<Kept> {
        let key = key_of(reader, url);
        let packed = (body.len() <= limits.max_answer_bytes).then(|| lz4_flex::block::compress(body));
        self.write(Commit::Fast, |w| {
            let mut entries = w.txn.open_table(LAST_KNOWN)?;
            let mut bodies = w.txn.open_table(LAST_KNOWN_BODIES)?;
            if entries.get(key.as_str())?.is_some_and(|g| g.value().0 > fetched_ms) {
                return Ok(Kept::Older);
            }
            let Some(packed) = packed else {
                entries.remove(key.as_str())?;
                bodies.remove(key.as_str())?;
                return Ok(Kept::TooLarge);
            };
            entries.insert(key.as_str(), (fetched_ms, fetched_ms, body.len() as u64))?;
            bodies.insert(key.as_str(), packed.as_slice())?;
            // Least recently used first; the answer just kept stays.
            let mut others = Vec::new();
            let (mut count, mut total) = (0usize, 0u64);
            for entry in entries.iter()? {
                let (k, v) = entry?;
                let (_, used, len) = v.value();
                count += 1;
                total += len;
                if k.value() != key {
                    others.push((used, len, k.value().to_string()));
                }
            }
            others.sort();
            let mut evicted = 0;
            for (_, len, k) in others {
                if count <= limits.max_entries && total <= limits.max_total_bytes {
                    break;
                }
                entries.remove(k.as_str())?;
                bodies.remove(k.as_str())?;
                count -= 1;
                total -= len;
                evicted += 1;
            }
            Ok(Kept::Stored { evicted })
        })
    }

    /// Records that the last known answer of `url` was served at `now_ms` (it is then the last
    /// to be evicted).
    pub fn touch_last_known(&self, reader: &str, url: &str, now_ms: i64) -> StoreResult<()> {
        let key = key_of(reader, url);
        self.write(Commit::Fast, |w| {
            let mut entries = w.txn.open_table(LAST_KNOWN)?;
            let found = entries.get(key.as_str())?.map(|g| g.value());
            if let Some((fetched, used, len)) = found
                && now_ms > used
            {
                entries.insert(key.as_str(), (fetched, now_ms, len))?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Registry;
    use std::sync::Arc;

    fn store() -> (tempfile::TempDir, OrgStore) {
        let dir = tempfile::tempdir().unwrap();
        let s = OrgStore::open(&dir.path().join("org.redb"), Arc::new(Registry::default()), 1 << 20).unwrap();
        (dir, s)
    }

    /// The reader of most reads below.
    const A: &str = "user-a";

    const URL: &str = "https://start.exactonline.nl/api/v1/1/purchaseorder/PurchaseOrderLines";

    fn url(n: usize) -> String {
        format!("{URL}?$filter=LineNumber eq {n}")
    }

    #[test]
    fn the_same_read_spelled_differently_has_one_key() {
        let a = key_of(A, &format!("{URL}?$select=ID,Item&$filter=Quantity gt 1"));
        assert_eq!(a, key_of(A, &format!("{URL}?%24filter=Quantity%20gt%201&$select=ID%2CItem")));
        assert_eq!(a, key_of(A, &format!(" {URL}?$filter=Quantity gt 1&&$select=ID,Item ")));
        assert_ne!(a, key_of(A, &format!("{URL}?$select=ID,Item&$filter=Quantity gt 2")));
        assert_ne!(a, key_of(A, &format!("{URL}?$select=ID&$filter=Quantity gt 1")));
        // An encoded `&` stays inside its value.
        assert_ne!(key_of(A, &format!("{URL}?a=1%26b%3D2")), key_of(A, &format!("{URL}?a=1&b=2")));
    }

    #[test]
    fn each_reader_has_their_own_copy_of_the_same_read() {
        let (_d, s) = store();
        assert_ne!(key_of(A, URL), key_of("user-b", URL));
        // the reader is a part of its own: it cannot run into the URL
        assert_ne!(key_of("a", &format!("b{URL}")), key_of("ab", URL));
        s.keep_last_known(A, URL, b"[1]", 100, &LIMITS).unwrap();
        assert_eq!(s.last_known("user-b", URL).unwrap(), None, "another user's answer is not theirs");
        assert_eq!(s.last_known_fetched("user-b", URL).unwrap(), None);
        assert!(s.last_known(A, URL).unwrap().is_some());
    }

    #[test]
    fn an_answer_is_kept_with_its_time_and_a_newer_one_replaces_it() {
        let (_d, s) = store();
        assert_eq!(s.last_known(A, URL).unwrap(), None);
        assert_eq!(s.last_known_fetched(A, URL).unwrap(), None);
        assert_eq!(s.keep_last_known(A, URL, b"[1]", 100, &LIMITS).unwrap(), Kept::Stored { evicted: 0 });
        assert_eq!(s.last_known(A, URL).unwrap(), Some(LastKnown { fetched_ms: 100, body: b"[1]".to_vec() }));
        assert_eq!(s.last_known_fetched(A, URL).unwrap(), Some(100));
        assert_eq!(s.keep_last_known(A, URL, b"[2]", 200, &LIMITS).unwrap(), Kept::Stored { evicted: 0 });
        assert_eq!(s.keep_last_known(A, URL, b"[old]", 150, &LIMITS).unwrap(), Kept::Older);
        assert_eq!(s.last_known(A, URL).unwrap(), Some(LastKnown { fetched_ms: 200, body: b"[2]".to_vec() }));
    }

    #[test]
    fn an_answer_over_the_size_cap_is_not_kept_and_drops_the_older_one() {
        let (_d, s) = store();
        let limits = Limits { max_answer_bytes: 10, ..LIMITS };
        s.keep_last_known(A, URL, b"[1,2,3]", 100, &limits).unwrap();
        assert_eq!(s.keep_last_known(A, URL, b"[1,2,3,4,5,6]", 200, &limits).unwrap(), Kept::TooLarge);
        assert_eq!(s.last_known(A, URL).unwrap(), None, "no copy older than the last answer is served");
    }

    #[test]
    fn past_the_entry_cap_the_least_recently_used_answers_go() {
        let (_d, s) = store();
        let limits = Limits { max_entries: 3, ..LIMITS };
        for n in 0..3 {
            s.keep_last_known(A, &url(n), b"[]", 100 + n as i64, &limits).unwrap();
        }
        // Serving 0 makes 1 the least recently used.
        s.touch_last_known(A, &url(0), 500).unwrap();
        assert_eq!(s.keep_last_known(A, &url(3), b"[]", 200, &limits).unwrap(), Kept::Stored { evicted: 1 });
        assert!(s.last_known(A, &url(1)).unwrap().is_none(), "least recently used");
        for n in [0, 2, 3] {
            assert!(s.last_known(A, &url(n)).unwrap().is_some(), "{n} stays");
        }
        assert_eq!(s.last_known(A, &url(0)).unwrap().unwrap().fetched_ms, 100, "a use keeps the fetch time");
    }

    #[test]
    fn past_the_byte_cap_old_answers_go_until_the_new_one_fits() {
        let (_d, s) = store();
        let limits = Limits { max_answer_bytes: 100, max_entries: 100, max_total_bytes: 250 };
        let body = vec![b'x'; 100];
        for n in 0..2 {
            s.keep_last_known(A, &url(n), &body, 100 + n as i64, &limits).unwrap();
        }
        // 300 bytes would be over: the oldest goes.
        assert_eq!(s.keep_last_known(A, &url(2), &body, 300, &limits).unwrap(), Kept::Stored { evicted: 1 });
        assert!(s.last_known(A, &url(0)).unwrap().is_none());
        assert_eq!(s.last_known(A, &url(2)).unwrap().unwrap().body, body);
        // Many distinct URLs never hold more than the caps.
        for n in 10..60 {
            s.keep_last_known(A, &url(n), &body, 1000 + n as i64, &limits).unwrap();
        }
        let kept = (0..60).filter(|&n| s.last_known(A, &url(n)).unwrap().is_some()).count();
        assert_eq!(kept, 2);
        assert!(s.last_known(A, &url(59)).unwrap().is_some() && s.last_known(A, &url(58)).unwrap().is_some());
    }
}
