//! Streams that carry a record's rows together (`Endpoint::group_by`): Exact's purchase orders
//! come as the header's row (its key is the order's id) and one row per line, all restamped on
//! any change to the order (reference §6.2). Two consequences for the local copy:
//! - a deleted order is logged once, under the order's id, and takes all its rows with it;
//! - a line deleted in Exact never comes again, but its order's header does, restamped: once a
//!   sync has read to the end, an order whose header came has all its current rows in the rows
//!   that sync read, so the order's older rows (stamped at or before where the sync started)
//!   are gone in Exact.

use crate::exact::catalogue::Endpoint;
use crate::store::fields::{extract, raw_str};
use std::collections::BTreeSet;

/// The groups whose header row is among `rows`: rows whose key is their group's value.
#[derive(Debug, Default)]
pub struct Heads {
    groups: BTreeSet<String>,
}

impl Heads {
    /// Notes the header rows among `rows` of `ep` (no-op for endpoints without groups).
    pub fn note<'a>(&mut self, ep: &Endpoint, rows: impl IntoIterator<Item = &'a [u8]>) {
        let Some(field) = ep.group_by else { return };
        let mut raw = [None, None];
        for r in rows {
            if extract(r, &[ep.key, field], &mut raw).is_err() {
                continue;
            }
            let (Some(key), Some(group)) = (raw[0].and_then(raw_str), raw[1].and_then(raw_str)) else { continue };
            if key.eq_ignore_ascii_case(&group) {
                self.groups.insert(group.to_ascii_lowercase());
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    pub fn groups(&self) -> impl Iterator<Item = &str> {
        self.groups.iter().map(String::as_str)
    }
}

/// The query pairs for a group's rows: the value as Exact wrote it and in lower case (the
/// store keeps guids as they came).
pub fn group_filter(field: &str, value: &str) -> (String, String) {
    let lower = value.to_ascii_lowercase();
    let list = if lower == value { value.to_string() } else { format!("{value},{lower}") };
    (field.to_string(), format!("in.({list})"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exact::catalogue;

    #[test]
    fn only_rows_keyed_by_their_group_are_heads() {
        let ep = catalogue::by_table("purchaseOrders").expect("purchase orders");
        let rows = [
            r#"{"ID":"A1","PurchaseOrderID":"A1","LineNumber":0}"#,
            r#"{"ID":"b2","PurchaseOrderID":"a1","LineNumber":1}"#,
            r#"{"ID":"c3","PurchaseOrderID":"d4","LineNumber":1}"#,
            r#"{"ID":"e5"}"#,
        ];
        let mut heads = Heads::default();
        heads.note(ep, rows.iter().map(|r| r.as_bytes()));
        assert_eq!(heads.groups().collect::<Vec<_>>(), vec!["a1"]);

        let mut none = Heads::default();
        none.note(catalogue::by_table("items").expect("items"), rows.iter().map(|r| r.as_bytes()));
        assert!(none.is_empty(), "a table without groups has no heads");
    }

    #[test]
    fn a_group_is_asked_in_both_cases() {
        assert_eq!(group_filter("PurchaseOrderID", "AB-1"), ("PurchaseOrderID".into(), "in.(AB-1,ab-1)".into()));
        assert_eq!(group_filter("PurchaseOrderID", "ab-1").1, "in.(ab-1)");
    }
}
