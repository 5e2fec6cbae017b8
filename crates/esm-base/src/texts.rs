//! The catalogue of what the server says to people, beside the error codes' own messages: label
//! warnings, the local-copy notes on labels, sync progress and the precise error messages that
//! name what was wrong. Each text is a [`Text`] with its values, said in a [`Language`] only when
//! it leaves the server (a header, a body, an event), so a batch built for one caller can be
//! said in that caller's language.
//!
//! Both languages are written out by one `match` each, so a text without its Dutch (or English)
//! words does not compile; the tests check that no Dutch text is left in English and that every
//! value a text carries appears in both.

use crate::language::Language;
use std::fmt;

/// A name that is said in both languages (a table of the local copy: "Shop Orders").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Name {
    pub en: &'static str,
    pub nl: &'static str,
}

impl Name {
    pub fn said_in(self, language: Language) -> &'static str {
        match language {
            Language::En => self.en,
            Language::Nl => self.nl,
        }
    }
}

/// One text the server says, with its values.
#[derive(Debug, Clone, PartialEq)]
pub enum Text {
    // Label warnings (spec §4's "messages").
    /// A line without an item; `code` is the item code when there is one.
    LabelNoItemId {
        code: Option<String>,
    },
    /// An item whose code holds `part` ('ZV'), which never gets a label.
    LabelExcludedCode {
        code: String,
        part: &'static str,
    },
    LabelShopOrderNotFound {
        id: String,
    },
    LabelItemNotFound {
        id: String,
    },
    LabelGoodsReceiptLineNotFound {
        id: String,
    },

    // Labels made from the local copy while Exact Online cannot be used.
    /// The first message of such a batch: the copy, of when (a readable time), and why.
    LocalCopyAsOf {
        when: String,
        why: LocalCopyWhy,
    },
    LocalCopyNeverSynced {
        why: LocalCopyWhy,
    },
    /// A table the labels read that was never synced.
    LocalCopyTableNeverSynced {
        table: Name,
    },
    LocalCopyNoByProductReceipts,
    LocalCopyNoPostProcessing,
    /// Goods receipts are not synced, so their labels need Exact Online.
    GoodsReceiptLabelsNeedExact,

    // Sync progress.
    /// A sync toast's line ("Refreshing Shop Orders").
    Refreshing {
        table: Name,
    },

    // Precise error messages (the error's code keeps the catalogue's meaning).
    /// An item counted again at one place with another quantity (`count_conflict`): the counter
    /// is asked which count stands. `place` is the storage location's code, when there is one.
    CountConflict {
        item: String,
        place: Option<String>,
        quantity: f64,
        by: String,
    },
}

/// Why labels come from the local copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalCopyWhy {
    /// Exact Online does not answer (network, server errors, no answer in time).
    Unreachable,
    /// No provider sign-in of the organization can be used.
    NoSignIn,
}

impl LocalCopyWhy {
    fn said_in(self, language: Language) -> &'static str {
        match (self, language) {
            (LocalCopyWhy::Unreachable, Language::En) => "Exact Online cannot be reached",
            (LocalCopyWhy::Unreachable, Language::Nl) => "Exact Online is niet bereikbaar",
            (LocalCopyWhy::NoSignIn, Language::En) => "there is no usable Exact Online sign-in for this organization",
            (LocalCopyWhy::NoSignIn, Language::Nl) => {
                "er is geen bruikbare Exact Online-aanmelding voor deze organisatie"
            }
        }
    }
}

impl Text {
    /// The text in `language`.
    pub fn said_in(&self, language: Language) -> String {
        match language {
            Language::En => self.english(),
            Language::Nl => self.dutch(),
        }
    }

    fn english(&self) -> String {
        let en = Language::En;
        match self {
            Text::LabelNoItemId { code } => {
                format!("Skipped {}: it has no item ID", code.as_deref().unwrap_or("a line"))
            }
            Text::LabelExcludedCode { code, part } => {
                format!("Skipped {code}: items with '{part}' in the code get no label")
            }
            Text::LabelShopOrderNotFound { id } => format!("Shop order {id} was not found"),
            Text::LabelItemNotFound { id } => format!("Item {id} was not found"),
            Text::LabelGoodsReceiptLineNotFound { id } => format!("Goods receipt line {id} was not found"),
            Text::LocalCopyAsOf { when, why } => format!("Made from the local copy as of {when}: {}", why.said_in(en)),
            Text::LocalCopyNeverSynced { why } => {
                format!("Made from the local copy, which has never been synced: {}", why.said_in(en))
            }
            Text::LocalCopyTableNeverSynced { table } => {
                format!("The local copy has no '{}': they were never synced", table.en)
            }
            Text::LocalCopyNoByProductReceipts => {
                "By-product receipts are not in the local copy: by-products come from the material plans only".into()
            }
            Text::LocalCopyNoPostProcessing => {
                "Post-processing ('Bewerkingen') is not in the local copy: it is left empty".into()
            }
            Text::GoodsReceiptLabelsNeedExact => "Exact Online cannot be reached, and goods receipt labels need it: \
                 goods receipts are not in the local copy. Try again when Exact Online answers"
                .into(),
            Text::Refreshing { table } => format!("Refreshing {}", table.en),
            Text::CountConflict { item, place, quantity, by } => {
                let place = place.as_deref().map(|c| format!(" at {c}")).unwrap_or_default();
                format!("{item}{place} was counted as {} by {by}: which count stands?", decimal(*quantity, en))
            }
        }
    }

    fn dutch(&self) -> String {
        let nl = Language::Nl;
        match self {
            Text::LabelNoItemId { code } => match code {
                Some(code) => format!("{code} overgeslagen: er is geen artikel-ID"),
                None => "Een regel overgeslagen: er is geen artikel-ID".into(),
            },
            Text::LabelExcludedCode { code, part } => {
                format!("{code} overgeslagen: artikelen met '{part}' in de code krijgen geen etiket")
            }
            Text::LabelShopOrderNotFound { id } => format!("Productieorder {id} is niet gevonden"),
            Text::LabelItemNotFound { id } => format!("Artikel {id} is niet gevonden"),
            Text::LabelGoodsReceiptLineNotFound { id } => format!("Ontvangstregel {id} is niet gevonden"),
            Text::LocalCopyAsOf { when, why } => {
                format!("Gemaakt uit de lokale kopie van {when}: {}", why.said_in(nl))
            }
            Text::LocalCopyNeverSynced { why } => {
                format!("Gemaakt uit de lokale kopie, die nog nooit is gesynchroniseerd: {}", why.said_in(nl))
            }
            Text::LocalCopyTableNeverSynced { table } => {
                format!("De lokale kopie heeft geen '{}': die zijn nooit gesynchroniseerd", table.nl)
            }
            Text::LocalCopyNoByProductReceipts => {
                "Ontvangsten van bijproducten staan niet in de lokale kopie: bijproducten komen alleen uit de \
                 materiaalplannen"
                    .into()
            }
            Text::LocalCopyNoPostProcessing => {
                "Nabewerking ('Bewerkingen') staat niet in de lokale kopie: die blijft leeg".into()
            }
            Text::GoodsReceiptLabelsNeedExact => "Exact Online is niet bereikbaar, en etiketten van ontvangsten \
                 hebben het nodig: ontvangsten staan niet in de lokale kopie. Probeer het opnieuw als Exact Online \
                 antwoordt"
                .into(),
            Text::Refreshing { table } => format!("{} vernieuwen", table.nl),
            Text::CountConflict { item, place, quantity, by } => {
                let place = place.as_deref().map(|c| format!(" op {c}")).unwrap_or_default();
                format!("{item}{place} is als {} geteld door {by}: welke telling geldt?", decimal(*quantity, nl))
            }
        }
    }
}

/// A quantity as people write it: at most six decimals, none trailing, and a decimal comma in
/// Dutch (no thousands marks: a count is read digit by digit).
pub fn decimal(value: f64, language: Language) -> String {
    let s = format!("{value:.6}");
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { &s };
    match language {
        Language::En => s.to_string(),
        Language::Nl => s.replace('.', ","),
    }
}

/// English, as logs and the command line say it.
impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.english())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: Name = Name { en: "Shop Orders", nl: "Productieorders" };

    /// One of every text, with values that can be found again in what is said.
    fn every_text() -> Vec<Text> {
        let all = vec![
            Text::LabelNoItemId { code: Some("CODE-1".into()) },
            Text::LabelNoItemId { code: None },
            Text::LabelExcludedCode { code: "ZV-9".into(), part: "ZV" },
            Text::LabelShopOrderNotFound { id: "ID-7".into() },
            Text::LabelItemNotFound { id: "ID-7".into() },
            Text::LabelGoodsReceiptLineNotFound { id: "ID-7".into() },
            Text::LocalCopyAsOf { when: "2026-12-02 08:00 UTC".into(), why: LocalCopyWhy::Unreachable },
            Text::LocalCopyNeverSynced { why: LocalCopyWhy::NoSignIn },
            Text::LocalCopyTableNeverSynced { table: TABLE },
            Text::LocalCopyNoByProductReceipts,
            Text::LocalCopyNoPostProcessing,
            Text::GoodsReceiptLabelsNeedExact,
            Text::Refreshing { table: TABLE },
            Text::CountConflict { item: "BOLT-8".into(), place: Some("A-01".into()), quantity: 98.0, by: "Jan".into() },
            Text::CountConflict { item: "BOLT-8".into(), place: None, quantity: 2.5, by: "Jan".into() },
        ];
        // A new text must be added above: this match fails to compile until it is listed.
        let listed = |t: &Text| match t {
            Text::LabelNoItemId { .. }
            | Text::LabelExcludedCode { .. }
            | Text::LabelShopOrderNotFound { .. }
            | Text::LabelItemNotFound { .. }
            | Text::LabelGoodsReceiptLineNotFound { .. }
            | Text::LocalCopyAsOf { .. }
            | Text::LocalCopyNeverSynced { .. }
            | Text::LocalCopyTableNeverSynced { .. }
            | Text::LocalCopyNoByProductReceipts
            | Text::LocalCopyNoPostProcessing
            | Text::GoodsReceiptLabelsNeedExact
            | Text::Refreshing { .. }
            | Text::CountConflict { .. } => true,
        };
        assert!(all.iter().all(listed));
        all
    }

    #[test]
    fn every_text_is_said_in_both_languages() {
        for text in every_text() {
            let (en, nl) = (text.said_in(Language::En), text.said_in(Language::Nl));
            assert!(!en.trim().is_empty() && !nl.trim().is_empty(), "{text:?}");
            assert_ne!(en, nl, "{text:?} is said in Dutch");
            assert_eq!(text.to_string(), en, "logs say it in English");
        }
    }

    #[test]
    fn every_value_of_a_text_is_in_both_languages() {
        for text in every_text() {
            let (en, nl) = (text.said_in(Language::En), text.said_in(Language::Nl));
            for value in ["CODE-1", "ZV-9", "ID-7", "2026-12-02 08:00 UTC", "BOLT-8", "A-01", "Jan", "98"] {
                assert_eq!(en.contains(value), nl.contains(value), "{value} in {text:?}: {en} / {nl}");
            }
        }
        let names = Text::LocalCopyTableNeverSynced { table: TABLE };
        assert!(names.said_in(Language::En).contains("Shop Orders"));
        assert!(names.said_in(Language::Nl).contains("Productieorders"));
    }

    #[test]
    fn quantities_take_the_languages_decimal_mark() {
        assert_eq!(decimal(2.5, Language::En), "2.5");
        assert_eq!(decimal(2.5, Language::Nl), "2,5");
        assert_eq!(decimal(98.0, Language::Nl), "98");
        assert_eq!(decimal(1200.125, Language::Nl), "1200,125");
        assert_eq!(decimal(0.0, Language::En), "0");
    }

    #[test]
    fn the_reasons_follow_the_language() {
        let text = Text::LocalCopyNeverSynced { why: LocalCopyWhy::Unreachable };
        assert!(text.said_in(Language::Nl).ends_with("Exact Online is niet bereikbaar"));
        assert!(text.said_in(Language::En).ends_with("Exact Online cannot be reached"));
    }
}
