//! Every redb table of an organization file, declared once, and the table registry.

use redb::TableDefinition;
use std::collections::HashMap;

/// Bump when the on-disk layout changes: a file of another version is rebuilt empty.
pub const SCHEMA_VERSION: u32 = 3;

/// Generic key/value meta data (schema version, last sync, organization, preferences).
pub(crate) const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
/// Newest synced provider `Timestamp` per table.
pub(crate) const SYNC_TIMESTAMPS: TableDefinition<&str, i64> = TableDefinition::new("sync_timestamps");
/// Per table, the dictionary its rows are compressed with (see `packing`).
pub(crate) const DICTS: TableDefinition<&str, &[u8]> = TableDefinition::new("dicts");
/// Row count per table, kept in step with every write so reading it never scans.
pub(crate) const ROW_COUNTS: TableDefinition<&str, u64> = TableDefinition::new("row_counts");
/// Last known answers of live provider reads (see `last_known`), by URL key: (fetched ms, last
/// used ms, JSON length).
pub(crate) const LAST_KNOWN: TableDefinition<&str, (i64, i64, u64)> = TableDefinition::new("last_known");
/// Their bodies, LZ4-compressed, apart so that eviction scans only the small entries above.
pub(crate) const LAST_KNOWN_BODIES: TableDefinition<&str, &[u8]> = TableDefinition::new("last_known_bodies");

/// A row's internal number: given in the order rows first arrive and kept while the row is
/// updated. Rows and index entries are keyed by it, not by the provider's key, so that a
/// sync (new rows in Timestamp order, their guids at random) appends to the end of every
/// B-tree instead of writing all over it: redb copies each page a transaction touches, and
/// random guids made a large sync rewrite most of the file on every commit.
pub(crate) type RowId = u64;

/// The rows of one table: row id → JSON object bytes (the provider row minus `__metadata`),
/// packed (see `packing`).
pub(crate) fn rows_name(table: &str) -> String {
    format!("rows/{table}")
}

/// The row ids of one table by row key (the key field's text).
pub(crate) fn keys_name(table: &str) -> String {
    format!("keys/{table}")
}

/// A secondary index: (normalised value, row id) → ().
pub(crate) fn index_name(table: &str, field: &str) -> String {
    format!("idx/{table}/{field}")
}

pub(crate) type RowsDef<'a> = TableDefinition<'a, RowId, &'static [u8]>;
pub(crate) type KeysDef<'a> = TableDefinition<'a, &'static str, RowId>;
pub(crate) type IndexDef<'a> = TableDefinition<'a, (&'static [u8], RowId), ()>;

/// One local table: its name, key field, indexed fields and known columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableSpec {
    pub name: String,
    /// The field rows are keyed by (usually `ID`).
    pub key: String,
    /// Fields with a secondary index (eq/in lookups and range scans).
    pub indexed: Vec<String>,
    /// Every column a query may name; empty means any column is accepted.
    pub columns: Vec<String>,
}

impl TableSpec {
    pub fn new(name: &str, key: &str, indexed: &[&str], columns: &[&str]) -> Self {
        TableSpec {
            name: name.to_string(),
            key: key.to_string(),
            indexed: indexed.iter().map(|s| s.to_string()).collect(),
            columns: columns.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Whether a query may name this column.
    pub fn knows_column(&self, column: &str) -> bool {
        self.columns.is_empty()
            || column == self.key
            || self.indexed.iter().any(|c| c == column)
            || self.columns.iter().any(|c| c == column)
    }

    pub fn is_indexed(&self, column: &str) -> bool {
        self.indexed.iter().any(|c| c == column)
    }
}

/// The tables an organization file holds, by name.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    specs: Vec<TableSpec>,
    by_name: HashMap<String, usize>,
}

/// What a file of an older layout of the same schema version needs (`Registry::changed_since`).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct LayoutChange {
    /// Tables held with another key or other indexes.
    pub changed: Vec<String>,
    /// Tables gone from the layout, with the fields they were indexed by.
    pub removed: Vec<(String, Vec<String>)>,
}

impl Registry {
    pub fn new(specs: Vec<TableSpec>) -> Self {
        let by_name = specs.iter().enumerate().map(|(i, s)| (s.name.clone(), i)).collect();
        Registry { specs, by_name }
    }

    pub fn get(&self, name: &str) -> Option<&TableSpec> {
        self.by_name.get(name).map(|&i| &self.specs[i])
    }

    pub fn specs(&self) -> &[TableSpec] {
        &self.specs
    }

    /// How a file written for the layout `found` differs from this one: tables it holds with
    /// another key or other indexes (`changed`: emptied, read whole by the next sync) and tables
    /// this layout no longer has (`removed`, with their indexes: dropped); the others are kept
    /// and tables new to the layout created. `None` when `found` is of another schema version (or
    /// not a fingerprint): the file is rebuilt. An upgrade that adds a table so keeps the local
    /// copy, which an installation needs while Exact Online is away and a full resync takes long.
    pub fn changed_since(&self, found: &str) -> Option<LayoutChange> {
        let (version, tables) = found.split_once(';')?;
        if version != format!("v{SCHEMA_VERSION}") {
            return None;
        }
        let before: HashMap<&str, &str> =
            tables.split('|').filter(|p| !p.is_empty()).filter_map(|p| Some((p.split_once(':')?.0, p))).collect();
        let now = self.fingerprint();
        let parts: HashMap<&str, &str> = now
            .split_once(';')
            .map_or("", |(_, t)| t)
            .split('|')
            .filter_map(|p| Some((p.split_once(':')?.0, p)))
            .collect();
        let mut change = LayoutChange::default();
        for (name, part) in &before {
            match parts.get(name) {
                Some(now) if now == part => {}
                Some(_) => change.changed.push(name.to_string()),
                None => {
                    let indexed = part.splitn(3, ':').nth(2).unwrap_or("");
                    let indexed = indexed.split(',').filter(|f| !f.is_empty()).map(String::from).collect();
                    change.removed.push((name.to_string(), indexed));
                }
            }
        }
        change.changed.sort();
        change.removed.sort();
        Some(change)
    }

    /// Describes the layout; a file written for another layout is migrated (`changed_since`).
    pub fn fingerprint(&self) -> String {
        let mut parts: Vec<String> = self
            .specs
            .iter()
            .map(|s| {
                let mut idx = s.indexed.clone();
                idx.sort();
                format!("{}:{}:{}", s.name, s.key, idx.join(","))
            })
            .collect();
        parts.sort();
        format!("v{SCHEMA_VERSION};{}", parts.join("|"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_layout_names_what_changed_since_another_of_its_version() {
        let before = Registry::new(vec![
            TableSpec::new("items", "ID", &["Code"], &[]),
            TableSpec::new("projects", "ID", &[], &[]),
            TableSpec::new("gone", "ID", &[], &[]),
        ]);
        let now = Registry::new(vec![
            TableSpec::new("items", "ID", &["Code", "ItemGroup"], &[]),
            TableSpec::new("projects", "ID", &[], &[]),
            TableSpec::new("purchaseOrders", "ID", &["Item"], &[]),
        ]);
        // items has another index; projects is as it was; purchaseOrders is new; gone is gone
        let change = now.changed_since(&before.fingerprint()).expect("same version");
        assert_eq!(change.changed, vec!["items".to_string()]);
        assert_eq!(change.removed, vec![("gone".to_string(), vec![])]);
        assert_eq!(now.changed_since(&now.fingerprint()), Some(LayoutChange::default()));
        let other_version = format!("v0;{}", before.fingerprint().split_once(';').map(|(_, t)| t).unwrap_or(""));
        assert_eq!(now.changed_since(&other_version), None);
        assert_eq!(now.changed_since("not a fingerprint"), None);
    }

    #[test]
    fn fingerprint_changes_with_indexes_not_with_order() {
        let a = Registry::new(vec![
            TableSpec::new("items", "ID", &["Code", "ItemGroup"], &[]),
            TableSpec::new("projects", "ID", &[], &[]),
        ]);
        let b = Registry::new(vec![
            TableSpec::new("projects", "ID", &[], &[]),
            TableSpec::new("items", "ID", &["ItemGroup", "Code"], &[]),
        ]);
        let c = Registry::new(vec![TableSpec::new("items", "ID", &["Code"], &[])]);
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert_ne!(a.fingerprint(), c.fingerprint());
    }

    #[test]
    fn columns_are_checked_only_when_listed() {
        let s = TableSpec::new("items", "ID", &["ItemGroup"], &["Code"]);
        assert!(s.knows_column("ID") && s.knows_column("ItemGroup") && s.knows_column("Code"));
        assert!(!s.knows_column("Foo"));
        assert!(TableSpec::new("x", "ID", &[], &[]).knows_column("Anything"));
    }
}
