//! Which pictures a pass fetches, removes or leaves alone: a pure comparison of the items'
//! picture URLs with what the store already holds, so it is tested without any I/O.

use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};

/// Where a stored picture came from; a picture whose source is unchanged is not fetched again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// The provider URL of the original.
    pub url: String,
    /// The provider URL of the thumbnail; `None` when the server made the thumbnail.
    pub thumbnail_url: Option<String>,
    /// The item's `PictureName`: the provider keeps the URL when a picture is replaced, the
    /// name usually changes with it.
    pub version: Option<String>,
}

/// An item's picture fields as synced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ItemPicture {
    pub id: String,
    pub url: Option<String>,
    pub thumbnail_url: Option<String>,
    pub version: Option<String>,
}

/// A picture to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Want {
    pub item_id: String,
    pub source: Source,
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct Plan {
    pub fetch: Vec<Want>,
    /// Stored pictures of items that now have none (placeholder or empty URL) or are gone.
    pub remove: Vec<String>,
    pub unchanged: usize,
}

/// The provider's "no picture" images live under `/docs/images/placeholder_…`, on every
/// country host, sometimes with a double slash.
pub fn is_placeholder(url: &str) -> bool {
    url.to_ascii_lowercase().contains("/docs/images/placeholder")
}

/// A usable picture URL: not empty and not a placeholder.
pub fn real_url(url: Option<&str>) -> Option<String> {
    url.map(str::trim).filter(|u| !u.is_empty() && !is_placeholder(u)).map(str::to_string)
}

/// Item ids are GUIDs; the store keys them in lower case so any spelling finds them.
pub fn item_key(id: &str) -> String {
    id.trim().to_ascii_lowercase()
}

/// Compares the items with the stored sources. With `prune`, pictures of items that are no
/// longer in the items table are removed too (only after a complete items sync).
pub fn plan(items: impl IntoIterator<Item = ItemPicture>, stored: &HashMap<String, Source>, prune: bool) -> Plan {
    let mut out = Plan::default();
    let mut seen = HashSet::new();
    for item in items {
        let key = item_key(&item.id);
        if !seen.insert(key.clone()) {
            continue;
        }
        let Some(url) = real_url(item.url.as_deref()) else {
            if stored.contains_key(&key) {
                out.remove.push(key);
            }
            continue;
        };
        let source = Source { url, thumbnail_url: real_url(item.thumbnail_url.as_deref()), version: item.version };
        if stored.get(&key) == Some(&source) {
            out.unchanged += 1;
        } else {
            out.fetch.push(Want { item_id: key, source });
        }
    }
    if prune {
        let mut gone: Vec<String> = stored.keys().filter(|k| !seen.contains(*k)).cloned().collect();
        gone.sort();
        out.remove.extend(gone);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLACEHOLDER: &str = "https://start.exactonline.nl//docs/images/placeholder_item.png";

    fn item(id: &str, url: &str, thumb: &str) -> ItemPicture {
        ItemPicture {
            id: id.into(),
            url: Some(url.into()).filter(|u: &String| !u.is_empty()),
            thumbnail_url: Some(thumb.into()).filter(|u: &String| !u.is_empty()),
            version: None,
        }
    }

    fn source(url: &str, thumb: Option<&str>) -> Source {
        Source { url: url.into(), thumbnail_url: thumb.map(str::to_string), version: None }
    }

    #[test]
    fn placeholders_are_recognised_on_any_host() {
        assert!(is_placeholder(PLACEHOLDER));
        assert!(is_placeholder("https://start.exactonline.be/docs/images/placeholder_item.png"));
        assert!(is_placeholder("https://start.exactonline.nl//docs/images/placeholder_account_myeol.png"));
        assert!(!is_placeholder("https://start.exactonline.nl/docs/SysImage.aspx?Table=Items&ID=x"));
        assert_eq!(real_url(Some("  ")), None);
        assert_eq!(real_url(Some(PLACEHOLDER)), None);
        assert_eq!(real_url(None), None);
    }

    #[test]
    fn new_and_changed_pictures_are_fetched_unchanged_ones_are_not() {
        let stored = HashMap::from([
            ("a".to_string(), source("u/a", Some("t/a"))),
            ("b".to_string(), source("u/b-old", Some("t/b"))),
            ("c".to_string(), source("u/c", None)),
        ]);
        let p = plan(
            [item("A", "u/a", "t/a"), item("b", "u/b", "t/b"), item("c", "u/c", ""), item("d", "u/d", PLACEHOLDER)],
            &stored,
            false,
        );
        assert_eq!(p.unchanged, 2, "same URLs, in any case of the id; a made thumbnail stays made");
        let fetched: Vec<&str> = p.fetch.iter().map(|w| w.item_id.as_str()).collect();
        assert_eq!(fetched, ["b", "d"]);
        assert_eq!(p.fetch[1].source.thumbnail_url, None, "a placeholder thumbnail means: make one");
        assert!(p.remove.is_empty());
    }

    #[test]
    fn a_new_picture_name_is_fetched_again_under_the_same_url() {
        let stored = HashMap::from([("a".to_string(), source("u/a", Some("t/a")))]);
        let mut it = item("a", "u/a", "t/a");
        it.version = Some("photo-2.jpg".into());
        assert_eq!(plan([it], &stored, false).fetch.len(), 1);
    }

    #[test]
    fn placeholder_and_empty_urls_remove_what_is_stored() {
        let stored = HashMap::from([
            ("a".to_string(), source("u/a", None)),
            ("b".to_string(), source("u/b", None)),
            ("gone".to_string(), source("u/gone", None)),
        ]);
        let items = [item("a", PLACEHOLDER, PLACEHOLDER), item("b", "", ""), item("c", PLACEHOLDER, "")];
        let p = plan(items.clone(), &stored, false);
        assert_eq!(p.remove, ["a", "b"], "only stored pictures are removed; 'gone' is kept without prune");
        assert!(p.fetch.is_empty());
        let p = plan(items, &stored, true);
        assert_eq!(p.remove, ["a", "b", "gone"]);
    }

    #[test]
    fn duplicate_rows_are_planned_once() {
        let p = plan([item("a", "u/a", ""), item("A", "u/a", "")], &HashMap::new(), false);
        assert_eq!(p.fetch.len(), 1);
    }
}
