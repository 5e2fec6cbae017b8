//! The picture file of an organization (`pictures-{division}.redb`), apart from the data store
//! so that picture bytes never weigh on table queries and the file can be dropped and refetched.
//! Per item: a small record (source, content types, ETags, time) and the original and thumbnail
//! bytes in their own tables, so planning a pass reads no image bytes.

use super::plan::{Source, item_key};
use anyhow::{Context, Result};
use redb::{Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const RECORDS: TableDefinition<&str, &[u8]> = TableDefinition::new("records");
const ORIGINALS: TableDefinition<&str, &[u8]> = TableDefinition::new("originals");
const THUMBNAILS: TableDefinition<&str, &[u8]> = TableDefinition::new("thumbnails");

/// What is known about a stored picture, without its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub item_id: String,
    pub source: Source,
    pub content_type: String,
    pub etag: String,
    pub size: u64,
    pub thumbnail_content_type: String,
    pub thumbnail_etag: String,
    pub fetched_ms: i64,
}

/// A picture ready to store: original and thumbnail.
#[derive(Debug, Clone)]
pub struct Picture {
    pub item_id: String,
    pub source: Source,
    pub content_type: String,
    pub bytes: Vec<u8>,
    pub thumbnail_content_type: String,
    pub thumbnail: Vec<u8>,
    pub fetched_ms: i64,
}

/// One image as served: bytes, content type and ETag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub content_type: String,
    pub etag: String,
    pub bytes: Vec<u8>,
}

/// A strong ETag from the content (quoted, as HTTP wants it).
pub fn etag_of(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    format!("\"{}\"", hex::encode(&digest[..16]))
}

pub fn path_of(data_dir: &Path, division: i64) -> PathBuf {
    data_dir.join(format!("pictures-{division}.redb"))
}

pub struct PictureDb {
    db: Database,
}

impl PictureDb {
    pub fn open(path: &Path) -> Result<PictureDb> {
        let db = Database::create(path).with_context(|| format!("opening {}", path.display()))?;
        let tx = db.begin_write()?;
        tx.open_table(RECORDS)?;
        tx.open_table(ORIGINALS)?;
        tx.open_table(THUMBNAILS)?;
        tx.commit()?;
        Ok(PictureDb { db })
    }

    pub fn database(&self) -> &Database {
        &self.db
    }

    /// Stores pictures in one transaction (a batch lands whole or not at all).
    pub fn put_many(&self, pictures: &[Picture]) -> Result<()> {
        if pictures.is_empty() {
            return Ok(());
        }
        let tx = self.db.begin_write()?;
        {
            let mut records = tx.open_table(RECORDS)?;
            let mut originals = tx.open_table(ORIGINALS)?;
            let mut thumbnails = tx.open_table(THUMBNAILS)?;
            for p in pictures {
                let key = item_key(&p.item_id);
                let record = Record {
                    item_id: key.clone(),
                    source: p.source.clone(),
                    content_type: p.content_type.clone(),
                    etag: etag_of(&p.bytes),
                    size: p.bytes.len() as u64,
                    thumbnail_content_type: p.thumbnail_content_type.clone(),
                    thumbnail_etag: etag_of(&p.thumbnail),
                    fetched_ms: p.fetched_ms,
                };
                records.insert(key.as_str(), serde_json::to_vec(&record)?.as_slice())?;
                originals.insert(key.as_str(), p.bytes.as_slice())?;
                thumbnails.insert(key.as_str(), p.thumbnail.as_slice())?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// Removes pictures in one transaction; answers how many there were.
    pub fn remove_many(&self, item_ids: &[String]) -> Result<usize> {
        if item_ids.is_empty() {
            return Ok(0);
        }
        let tx = self.db.begin_write()?;
        let mut removed = 0;
        {
            let mut records = tx.open_table(RECORDS)?;
            let mut originals = tx.open_table(ORIGINALS)?;
            let mut thumbnails = tx.open_table(THUMBNAILS)?;
            for id in item_ids {
                let key = item_key(id);
                if records.remove(key.as_str())?.is_some() {
                    removed += 1;
                }
                originals.remove(key.as_str())?;
                thumbnails.remove(key.as_str())?;
            }
        }
        tx.commit()?;
        Ok(removed)
    }

    pub fn record(&self, item_id: &str) -> Result<Option<Record>> {
        let tx = self.db.begin_read()?;
        let t = tx.open_table(RECORDS)?;
        match t.get(item_key(item_id).as_str())? {
            Some(v) => Ok(Some(serde_json::from_slice(v.value()).context("decoding a picture record")?)),
            None => Ok(None),
        }
    }

    /// The original or the thumbnail of an item, read in one transaction with its record.
    pub fn image(&self, item_id: &str, thumbnail: bool) -> Result<Option<Image>> {
        let key = item_key(item_id);
        let tx = self.db.begin_read()?;
        let Some(raw) = tx.open_table(RECORDS)?.get(key.as_str())?.map(|v| v.value().to_vec()) else {
            return Ok(None);
        };
        let record: Record = serde_json::from_slice(&raw).context("decoding a picture record")?;
        let table = tx.open_table(if thumbnail { THUMBNAILS } else { ORIGINALS })?;
        let Some(bytes) = table.get(key.as_str())?.map(|v| v.value().to_vec()) else { return Ok(None) };
        Ok(Some(if thumbnail {
            Image { content_type: record.thumbnail_content_type, etag: record.thumbnail_etag, bytes }
        } else {
            Image { content_type: record.content_type, etag: record.etag, bytes }
        }))
    }

    /// The source of every stored picture, for planning a pass.
    pub fn sources(&self) -> Result<HashMap<String, Source>> {
        let tx = self.db.begin_read()?;
        let t = tx.open_table(RECORDS)?;
        let mut out = HashMap::new();
        for row in t.iter()? {
            let (k, v) = row?;
            let record: Record = serde_json::from_slice(v.value()).context("decoding a picture record")?;
            out.insert(k.value().to_string(), record.source);
        }
        Ok(out)
    }

    pub fn count(&self) -> Result<u64> {
        let tx = self.db.begin_read()?;
        Ok(tx.open_table(RECORDS)?.len()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture(id: &str, bytes: &[u8]) -> Picture {
        Picture {
            item_id: id.into(),
            source: Source { url: format!("u/{id}"), thumbnail_url: None, version: None },
            content_type: "image/png".into(),
            bytes: bytes.to_vec(),
            thumbnail_content_type: "image/jpeg".into(),
            thumbnail: b"small".to_vec(),
            fetched_ms: 1,
        }
    }

    #[test]
    fn pictures_are_stored_read_and_removed_by_item_in_any_case() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = PictureDb::open(&path_of(dir.path(), 7)).expect("open");
        db.put_many(&[picture("AB-1", b"big"), picture("cd-2", b"other")]).expect("put");
        assert_eq!(db.count().expect("count"), 2);

        let original = db.image("ab-1", false).expect("read").expect("stored");
        assert_eq!(original, Image { content_type: "image/png".into(), etag: etag_of(b"big"), bytes: b"big".to_vec() });
        let thumb = db.image("AB-1", true).expect("read").expect("stored");
        assert_eq!((thumb.content_type.as_str(), thumb.bytes.as_slice()), ("image/jpeg", &b"small"[..]));
        assert_ne!(original.etag, thumb.etag);
        assert_eq!(db.record("ab-1").expect("record").expect("some").size, 3);
        assert_eq!(db.sources().expect("sources")["ab-1"].url, "u/AB-1");

        assert_eq!(db.remove_many(&["Ab-1".into(), "missing".into()]).expect("remove"), 1);
        assert!(db.image("ab-1", false).expect("read").is_none());
        assert_eq!(db.count().expect("count"), 1);
    }

    #[test]
    fn a_new_picture_replaces_the_old_one_and_survives_reopening() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = path_of(dir.path(), 7);
        {
            let db = PictureDb::open(&path).expect("open");
            db.put_many(&[picture("a", b"one")]).expect("put");
            db.put_many(&[picture("a", b"two")]).expect("put");
        }
        let db = PictureDb::open(&path).expect("reopen");
        let img = db.image("a", false).expect("read").expect("stored");
        assert_eq!((img.bytes.as_slice(), img.etag), (&b"two"[..], etag_of(b"two")));
    }

    #[test]
    fn etags_are_quoted_content_hashes() {
        assert_eq!(etag_of(b"x"), etag_of(b"x"));
        assert_ne!(etag_of(b"x"), etag_of(b"y"));
        assert!(etag_of(b"x").starts_with('"') && etag_of(b"x").ends_with('"'));
    }
}
