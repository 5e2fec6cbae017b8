//! The catalogue of what the server says to people, beside the error codes' own messages: label
//! warnings, the local-copy notes on labels, sync progress and the precise error messages that
//! name what was wrong (counts, hours, checked writes, scanned references, the outbox). Each text
//! is a [`Text`] with its values, said in a [`Language`] only when it leaves the server (a
//! header, a body, an event), so a batch built for one caller can be said in that caller's
//! language.
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

    // Count sessions (`counts`).
    CountNotFound,
    CountsOpenAtMost {
        max: usize,
    },
    CountItemNotInCopy,
    /// An item tracked by serial or batch number, counted without its numbers.
    CountNeedsNumbers {
        item: String,
        by: NumberKind,
    },
    /// Numbers given for an item that is tracked by none.
    CountNumbersUntracked {
        item: String,
    },
    CountLinesAtMost {
        max: usize,
    },
    CountLineNotFound,
    CountNothingCounted,
    CountReopenOnlyRefused,
    CountItemNotInGroup {
        item: String,
        group: String,
    },
    CountItemNotListed {
        item: String,
    },
    CountOfOtherLocation {
        location: String,
    },
    CountSayLocation {
        warehouse: String,
        item: String,
    },
    CountLineTakesNoLocation {
        warehouse: String,
    },
    CountLocationWithoutLocations {
        warehouse: String,
    },

    // Hour registrations' timers (`hours`).
    TimerStartsInFuture,
    TimerStartedOverAYearAgo,
    TimersAtMost {
        max: usize,
    },
    TimerNotRunning,

    // Writes checked before they are queued (`outbox::actions`, `numbers`, `locations`).
    /// A refusal of one line of a booking: `n` counts from 1.
    OnLine {
        line: Line,
        n: usize,
        text: Box<Text>,
    },
    QuantityNotZero,
    QuantityAboveZero,
    QuantityReceivedAboveZero,
    LeadDaysWhole {
        days: f64,
    },
    SerialsOrBatches,
    /// A serial or batch number left empty.
    NumberEmpty {
        kind: NumberKind,
    },
    SerialTwice {
        number: String,
    },
    SerialsPerUnit {
        count: usize,
        quantity: f64,
    },
    BatchNeedsQuantity {
        number: String,
    },
    BatchTwice {
        number: String,
    },
    BatchesAddUp {
        sum: f64,
        quantity: f64,
    },
    WarehouseWithoutLocations {
        warehouse: String,
        field: String,
    },
    LocationNotInWarehouse {
        field: String,
        location: String,
        warehouse: String,
    },
    TransferWithinWarehouseWithoutLocations {
        warehouse: String,
    },

    // Scanned references put in from the local copy (`scanning::references`).
    ScannedItemNotInCopy {
        code: String,
    },
    ScannedShopOrderNotInCopy {
        number: String,
    },
    ScannedMaterialLineNotInCopy {
        number: String,
        line: String,
    },

    // The outbox and repeated writes (`api::write`).
    KeyEntriesGone,
    KeyGone,
    KeyStillAnswering,
    OutboxOnlyOwnEntries,
    OutboxNoFailedEntry,
    OutboxNoFailedOrWaitingEntry,
    OutboxDiscardAtMost {
        max: usize,
    },
}

/// Serial or batch numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberKind {
    Serial,
    Batch,
}

/// The line of a booking a refusal is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    MaterialIssue,
    StockCountLine,
    GoodsReceiptLine,
    TransferLine,
}

impl Line {
    pub fn said_in(self, language: Language) -> &'static str {
        match (self, language) {
            (Line::MaterialIssue, Language::En) => "material issue",
            (Line::MaterialIssue, Language::Nl) => "materiaaluitgifte",
            (Line::StockCountLine, Language::En) => "stock count line",
            (Line::StockCountLine, Language::Nl) => "telregel",
            (Line::GoodsReceiptLine, Language::En) => "goods receipt line",
            (Line::GoodsReceiptLine, Language::Nl) => "ontvangstregel",
            (Line::TransferLine, Language::En) => "transfer line",
            (Line::TransferLine, Language::Nl) => "overboekingsregel",
        }
    }
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
            Text::CountNotFound => "No such count: it was removed, or it is another organization's".into(),
            Text::CountsOpenAtMost { max } => {
                format!("{max} counts are open in this organization: send or remove one first")
            }
            Text::CountItemNotInCopy => "This item is not in the local copy: sync the items, then count it".into(),
            Text::CountNeedsNumbers { item, by } => match by {
                NumberKind::Serial => {
                    format!("{item} is tracked by serial number: give one serial number per unit counted")
                }
                NumberKind::Batch => {
                    format!("{item} is tracked by batch number: give the batches counted, adding up to the quantity")
                }
            },
            Text::CountNumbersUntracked { item } => {
                format!("{item} is not tracked by serial or batch number: count it without numbers")
            }
            Text::CountLinesAtMost { max } => {
                format!("A count holds at most {max} lines: send this one and start another")
            }
            Text::CountLineNotFound => "No such line in this count".into(),
            Text::CountNothingCounted => "Nothing is counted yet: add a line first".into(),
            Text::CountReopenOnlyRefused => "Only a count Exact Online refused can be reopened".into(),
            Text::CountItemNotInGroup { item, group } => {
                format!("{item} is not in item group {group}: this count is of that group")
            }
            Text::CountItemNotListed { item } => format!("{item} is not one of the items this count is of"),
            Text::CountOfOtherLocation { location } => {
                format!("This count is of location {location}: count other locations in a count of their own")
            }
            Text::CountSayLocation { warehouse, item } => format!(
                "Warehouse {warehouse} keeps its stock at storage locations: say at which one {item} was counted"
            ),
            Text::CountLineTakesNoLocation { warehouse } => {
                format!("Warehouse {warehouse} does not use storage locations: the line takes no location")
            }
            Text::CountLocationWithoutLocations { warehouse } => {
                format!("Warehouse {warehouse} does not use storage locations: count the warehouse instead")
            }
            Text::TimerStartsInFuture => "'startedMs' lies in the future".into(),
            Text::TimerStartedOverAYearAgo => "'startedMs' lies more than a year back".into(),
            Text::TimersAtMost { max } => {
                format!("This organization has {max} running timers, the most it keeps: stop some first")
            }
            Text::TimerNotRunning => "That timer is not running (any more)".into(),
            Text::OnLine { line, n, text } => format!("{} {n}: {}", line.said_in(en), text.english()),
            Text::QuantityNotZero => "Quantity must not be 0".into(),
            Text::QuantityAboveZero => "Quantity must be more than 0".into(),
            Text::QuantityReceivedAboveZero => "QuantityReceived must be more than 0".into(),
            // `{days}` as before: the field takes a number as the API writes it
            Text::LeadDaysWhole { days } => format!("ProductionLeadDays must be a whole number of days, not {days}"),
            Text::SerialsOrBatches => "give serial numbers or batch numbers, not both".into(),
            Text::NumberEmpty { kind: NumberKind::Serial } => "each of the serial numbers needs a SerialNumber".into(),
            Text::NumberEmpty { kind: NumberKind::Batch } => "each of the batch numbers needs a BatchNumber".into(),
            Text::SerialTwice { number } => format!("serial number {number} is given twice"),
            Text::SerialsPerUnit { count, quantity } => {
                format!(
                    "{count} serial numbers for a quantity of {}: one serial number per unit",
                    decimal(*quantity, en)
                )
            }
            Text::BatchNeedsQuantity { number } => format!("batch {number} needs a Quantity of more than 0"),
            Text::BatchTwice { number } => format!("batch {number} is given twice"),
            Text::BatchesAddUp { sum, quantity } => format!(
                "the batch quantities add up to {}, the quantity is {}",
                decimal(*sum, en),
                decimal(*quantity, en)
            ),
            Text::WarehouseWithoutLocations { warehouse, field } => {
                format!("Warehouse {warehouse} does not use storage locations: leave {field} empty")
            }
            Text::LocationNotInWarehouse { field, location, warehouse } => {
                format!("{field}: storage location {location} is not in warehouse {warehouse}")
            }
            Text::TransferWithinWarehouseWithoutLocations { warehouse } => format!(
                "Warehouse {warehouse} does not use storage locations: a transfer within it has nothing to move \
                 between; choose another warehouse to transfer to"
            ),
            Text::ScannedItemNotInCopy { code } => format!("Item {code} is not in the local copy of Exact Online"),
            Text::ScannedShopOrderNotInCopy { number } => {
                format!("Shop order {number} is not in the local copy of Exact Online")
            }
            Text::ScannedMaterialLineNotInCopy { number, line } => {
                format!("Line {line} of shop order {number} is not in the local copy of Exact Online")
            }
            Text::KeyEntriesGone => "The write made with this Idempotency-Key is no longer in the outbox".into(),
            Text::KeyGone => "This Idempotency-Key is no longer known".into(),
            Text::KeyStillAnswering => {
                "The first request with this Idempotency-Key is still being answered; try again shortly".into()
            }
            Text::OutboxOnlyOwnEntries => {
                "Only who booked this entry, or an administrator, may retry or discard it".into()
            }
            Text::OutboxNoFailedEntry => "No failed entry with that number".into(),
            Text::OutboxNoFailedOrWaitingEntry => "No failed or waiting entry with that number".into(),
            Text::OutboxDiscardAtMost { max } => {
                format!("One request may discard at most {max} entries: split it into smaller ones")
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
                format!("{item}{place} is geteld als {} door {by}: welke telling geldt?", decimal(*quantity, nl))
            }
            Text::CountNotFound => {
                "Deze telling bestaat niet: ze is verwijderd, of ze is van een andere organisatie".into()
            }
            Text::CountsOpenAtMost { max } => {
                format!("Er staan {max} tellingen open in deze organisatie: verstuur of verwijder er eerst een")
            }
            Text::CountItemNotInCopy => {
                "Dit artikel staat niet in de lokale kopie: synchroniseer de artikelen en tel het dan".into()
            }
            Text::CountNeedsNumbers { item, by } => match by {
                NumberKind::Serial => {
                    format!("{item} wordt bijgehouden op serienummer: geef één serienummer per getelde eenheid")
                }
                NumberKind::Batch => {
                    format!("{item} wordt bijgehouden op batchnummer: geef de getelde batches, samen het aantal")
                }
            },
            Text::CountNumbersUntracked { item } => {
                format!("{item} wordt niet op serie- of batchnummer bijgehouden: tel het zonder nummers")
            }
            Text::CountLinesAtMost { max } => {
                format!("Een telling heeft ten hoogste {max} regels: verstuur deze en begin een nieuwe")
            }
            Text::CountLineNotFound => "Deze regel staat niet in deze telling".into(),
            Text::CountNothingCounted => "Er is nog niets geteld: voeg eerst een regel toe".into(),
            Text::CountReopenOnlyRefused => {
                "Alleen een telling die Exact Online heeft geweigerd, kan weer worden geopend".into()
            }
            Text::CountItemNotInGroup { item, group } => {
                format!("{item} hoort niet bij artikelgroep {group}: deze telling is van die groep")
            }
            Text::CountItemNotListed { item } => format!("{item} is geen van de artikelen van deze telling"),
            Text::CountOfOtherLocation { location } => {
                format!("Deze telling is van locatie {location}: tel andere locaties in een eigen telling")
            }
            Text::CountSayLocation { warehouse, item } => format!(
                "Magazijn {warehouse} houdt de voorraad op locaties bij: geef aan op welke locatie {item} is geteld"
            ),
            Text::CountLineTakesNoLocation { warehouse } => {
                format!("Magazijn {warehouse} gebruikt geen locaties: de regel krijgt geen locatie")
            }
            Text::CountLocationWithoutLocations { warehouse } => {
                format!("Magazijn {warehouse} gebruikt geen locaties: tel in plaats daarvan het hele magazijn")
            }
            Text::TimerStartsInFuture => "De starttijd ('startedMs') ligt in de toekomst".into(),
            Text::TimerStartedOverAYearAgo => "De starttijd ('startedMs') ligt meer dan een jaar terug".into(),
            Text::TimersAtMost { max } => {
                format!("Deze organisatie heeft {max} lopende timers, het maximum: stop er eerst een paar")
            }
            Text::TimerNotRunning => "Die timer loopt niet (meer)".into(),
            Text::OnLine { line, n, text } => format!("{} {n}: {}", line.said_in(nl), text.dutch()),
            Text::QuantityNotZero => "De hoeveelheid (Quantity) mag niet 0 zijn".into(),
            Text::QuantityAboveZero => "De hoeveelheid (Quantity) moet meer dan 0 zijn".into(),
            Text::QuantityReceivedAboveZero => {
                "De ontvangen hoeveelheid (QuantityReceived) moet meer dan 0 zijn".into()
            }
            Text::LeadDaysWhole { days } => format!(
                "De doorlooptijd (ProductionLeadDays) moet een geheel aantal dagen zijn, niet {}",
                decimal(*days, nl)
            ),
            Text::SerialsOrBatches => "geef serienummers of batchnummers, niet allebei".into(),
            Text::NumberEmpty { kind: NumberKind::Serial } => {
                "elk serienummer moet ingevuld zijn (SerialNumber)".into()
            }
            Text::NumberEmpty { kind: NumberKind::Batch } => "elk batchnummer moet ingevuld zijn (BatchNumber)".into(),
            Text::SerialTwice { number } => format!("serienummer {number} is twee keer opgegeven"),
            Text::SerialsPerUnit { count, quantity } => format!(
                "{count} serienummers voor een hoeveelheid van {}: één serienummer per eenheid",
                decimal(*quantity, nl)
            ),
            Text::BatchNeedsQuantity { number } => {
                format!("batchnummer {number} heeft een hoeveelheid (Quantity) van meer dan 0 nodig")
            }
            Text::BatchTwice { number } => format!("batchnummer {number} is twee keer opgegeven"),
            Text::BatchesAddUp { sum, quantity } => format!(
                "de hoeveelheden van de batchnummers zijn samen {}, de hoeveelheid is {}",
                decimal(*sum, nl),
                decimal(*quantity, nl)
            ),
            Text::WarehouseWithoutLocations { warehouse, field } => {
                format!("Magazijn {warehouse} gebruikt geen locaties: laat {field} leeg")
            }
            Text::LocationNotInWarehouse { field, location, warehouse } => {
                format!("{field}: locatie {location} hoort niet bij magazijn {warehouse}")
            }
            Text::TransferWithinWarehouseWithoutLocations { warehouse } => format!(
                "Magazijn {warehouse} gebruikt geen locaties: binnen dit magazijn valt niets over te boeken; kies \
                 een ander magazijn om naartoe over te boeken"
            ),
            Text::ScannedItemNotInCopy { code } => {
                format!("Artikel {code} staat niet in de lokale kopie van Exact Online")
            }
            Text::ScannedShopOrderNotInCopy { number } => {
                format!("Productieorder {number} staat niet in de lokale kopie van Exact Online")
            }
            Text::ScannedMaterialLineNotInCopy { number, line } => {
                format!("Regel {line} van productieorder {number} staat niet in de lokale kopie van Exact Online")
            }
            Text::KeyEntriesGone => {
                "De wijziging met deze Idempotency-Key staat niet meer in de uitgaande wachtrij".into()
            }
            Text::KeyGone => "Deze Idempotency-Key is niet meer bekend".into(),
            Text::KeyStillAnswering => {
                "Het eerste verzoek met deze Idempotency-Key wordt nog beantwoord; probeer het zo opnieuw".into()
            }
            Text::OutboxOnlyOwnEntries => {
                "Alleen wie deze boeking heeft gemaakt, of een beheerder, mag haar opnieuw versturen of verwijderen"
                    .into()
            }
            Text::OutboxNoFailedEntry => "Er is geen geweigerde boeking met dat nummer".into(),
            Text::OutboxNoFailedOrWaitingEntry => "Er is geen geweigerde of wachtende boeking met dat nummer".into(),
            Text::OutboxDiscardAtMost { max } => {
                format!("Eén verzoek mag ten hoogste {max} boekingen verwijderen: verdeel het in kleinere verzoeken")
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
            Text::CountNotFound,
            Text::CountsOpenAtMost { max: 4321 },
            Text::CountItemNotInCopy,
            Text::CountNeedsNumbers { item: "BOLT-8".into(), by: NumberKind::Serial },
            Text::CountNeedsNumbers { item: "BOLT-8".into(), by: NumberKind::Batch },
            Text::CountNumbersUntracked { item: "BOLT-8".into() },
            Text::CountLinesAtMost { max: 4321 },
            Text::CountLineNotFound,
            Text::CountNothingCounted,
            Text::CountReopenOnlyRefused,
            Text::CountItemNotInGroup { item: "BOLT-8".into(), group: "GRP-5".into() },
            Text::CountItemNotListed { item: "BOLT-8".into() },
            Text::CountOfOtherLocation { location: "A-01".into() },
            Text::CountSayLocation { warehouse: "WH-3".into(), item: "BOLT-8".into() },
            Text::CountLineTakesNoLocation { warehouse: "WH-3".into() },
            Text::CountLocationWithoutLocations { warehouse: "WH-3".into() },
            Text::TimerStartsInFuture,
            Text::TimerStartedOverAYearAgo,
            Text::TimersAtMost { max: 4321 },
            Text::TimerNotRunning,
            Text::OnLine { line: Line::MaterialIssue, n: 4321, text: Box::new(Text::QuantityNotZero) },
            Text::OnLine { line: Line::StockCountLine, n: 4321, text: Box::new(Text::SerialsOrBatches) },
            Text::OnLine { line: Line::GoodsReceiptLine, n: 4321, text: Box::new(Text::QuantityReceivedAboveZero) },
            Text::OnLine { line: Line::TransferLine, n: 4321, text: Box::new(Text::QuantityAboveZero) },
            Text::QuantityNotZero,
            Text::QuantityAboveZero,
            Text::QuantityReceivedAboveZero,
            Text::LeadDaysWhole { days: 98.0 },
            Text::SerialsOrBatches,
            Text::NumberEmpty { kind: NumberKind::Serial },
            Text::NumberEmpty { kind: NumberKind::Batch },
            Text::SerialTwice { number: "SN-4".into() },
            Text::SerialsPerUnit { count: 4321, quantity: 98.0 },
            Text::BatchNeedsQuantity { number: "B-6".into() },
            Text::BatchTwice { number: "B-6".into() },
            Text::BatchesAddUp { sum: 4321.0, quantity: 98.0 },
            Text::WarehouseWithoutLocations { warehouse: "WH-3".into(), field: "StorageLocationTo".into() },
            Text::LocationNotInWarehouse {
                field: "StorageLocationTo".into(),
                location: "A-01".into(),
                warehouse: "WH-3".into(),
            },
            Text::TransferWithinWarehouseWithoutLocations { warehouse: "WH-3".into() },
            Text::ScannedItemNotInCopy { code: "CODE-1".into() },
            Text::ScannedShopOrderNotInCopy { number: "4321".into() },
            Text::ScannedMaterialLineNotInCopy { number: "4321".into(), line: "98".into() },
            Text::KeyEntriesGone,
            Text::KeyGone,
            Text::KeyStillAnswering,
            Text::OutboxOnlyOwnEntries,
            Text::OutboxNoFailedEntry,
            Text::OutboxNoFailedOrWaitingEntry,
            Text::OutboxDiscardAtMost { max: 4321 },
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
            | Text::CountConflict { .. }
            | Text::CountNotFound
            | Text::CountsOpenAtMost { .. }
            | Text::CountItemNotInCopy
            | Text::CountNeedsNumbers { .. }
            | Text::CountNumbersUntracked { .. }
            | Text::CountLinesAtMost { .. }
            | Text::CountLineNotFound
            | Text::CountNothingCounted
            | Text::CountReopenOnlyRefused
            | Text::CountItemNotInGroup { .. }
            | Text::CountItemNotListed { .. }
            | Text::CountOfOtherLocation { .. }
            | Text::CountSayLocation { .. }
            | Text::CountLineTakesNoLocation { .. }
            | Text::CountLocationWithoutLocations { .. }
            | Text::TimerStartsInFuture
            | Text::TimerStartedOverAYearAgo
            | Text::TimersAtMost { .. }
            | Text::TimerNotRunning
            | Text::OnLine { .. }
            | Text::QuantityNotZero
            | Text::QuantityAboveZero
            | Text::QuantityReceivedAboveZero
            | Text::LeadDaysWhole { .. }
            | Text::SerialsOrBatches
            | Text::NumberEmpty { .. }
            | Text::SerialTwice { .. }
            | Text::SerialsPerUnit { .. }
            | Text::BatchNeedsQuantity { .. }
            | Text::BatchTwice { .. }
            | Text::BatchesAddUp { .. }
            | Text::WarehouseWithoutLocations { .. }
            | Text::LocationNotInWarehouse { .. }
            | Text::TransferWithinWarehouseWithoutLocations { .. }
            | Text::ScannedItemNotInCopy { .. }
            | Text::ScannedShopOrderNotInCopy { .. }
            | Text::ScannedMaterialLineNotInCopy { .. }
            | Text::KeyEntriesGone
            | Text::KeyGone
            | Text::KeyStillAnswering
            | Text::OutboxOnlyOwnEntries
            | Text::OutboxNoFailedEntry
            | Text::OutboxNoFailedOrWaitingEntry
            | Text::OutboxDiscardAtMost { .. } => true,
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
            for value in [
                "CODE-1",
                "ZV-9",
                "ID-7",
                "2026-12-02 08:00 UTC",
                "BOLT-8",
                "A-01",
                "Jan",
                "98",
                "4321",
                "GRP-5",
                "WH-3",
                "SN-4",
                "B-6",
                "StorageLocationTo",
            ] {
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
    fn a_refused_line_is_named_and_its_quantities_take_the_decimal_comma() {
        let text = Text::OnLine {
            line: Line::TransferLine,
            n: 2,
            text: Box::new(Text::SerialsPerUnit { count: 2, quantity: 2.5 }),
        };
        assert_eq!(
            text.to_string(),
            "transfer line 2: 2 serial numbers for a quantity of 2.5: one serial number per unit"
        );
        assert_eq!(
            text.said_in(Language::Nl),
            "overboekingsregel 2: 2 serienummers voor een hoeveelheid van 2,5: één serienummer per eenheid"
        );
        let days = Text::LeadDaysWhole { days: 1.5 };
        assert_eq!(days.to_string(), "ProductionLeadDays must be a whole number of days, not 1.5");
        assert!(days.said_in(Language::Nl).ends_with("niet 1,5"));
    }

    #[test]
    fn the_reasons_follow_the_language() {
        let text = Text::LocalCopyNeverSynced { why: LocalCopyWhy::Unreachable };
        assert!(text.said_in(Language::Nl).ends_with("Exact Online is niet bereikbaar"));
        assert!(text.said_in(Language::En).ends_with("Exact Online cannot be reached"));
    }
}
