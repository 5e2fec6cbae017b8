//! The serial and batch numbers a booking of a tracked item carries, in Exact's own shape on every
//! write (`"SerialNumbers": [{"SerialNumber": "…"}]`, `"BatchNumbers": [{"BatchNumber": "…",
//! "Quantity": n}]`), checked before anything is queued: one serial per unit, batch quantities
//! adding up to the booking's quantity, nothing given twice.
//!
//! Goods receipt, transfer and count lines send the collections to Exact as they are. Material
//! issues and shop order receipts cannot: Exact takes their numbers only as a reservation made
//! first (`inventory/StockSerialNumbers` / `StockBatchNumbers` under one
//! `DraftStockTransactionID`), so those bookings carry a [`Reservation`] that the outbox sends
//! before the booking, in the same entry (`super::reserve`).

use super::actions::Invalid;
use esm_base::texts::{NumberKind, Text};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::HashSet;
use utoipa::ToSchema;

pub const SERIALS: &str = "SerialNumbers";
pub const BATCHES: &str = "BatchNumbers";
/// Exact's reservation endpoints.
pub const SERIAL_PATH: &str = "inventory/StockSerialNumbers";
pub const BATCH_PATH: &str = "inventory/StockBatchNumbers";

/// Exact's StockTransactionType of the bookings that take reserved numbers.
pub const MATERIAL_ISSUE: i64 = 150;
pub const SHOP_ORDER_RECEIPT: i64 = 140;
pub const BY_PRODUCT_RECEIPT: i64 = 147;

/// Quantities closer than this are equal (the provider keeps about 8 decimals).
const EPSILON: f64 = 1e-6;

/// How an item is tracked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Tracking {
    Serial,
    Batch,
}

/// One reserved number: its reservation row's ID (ours, so a try after a lost answer finds it),
/// the number, and for a batch the quantity taken from it and, for a new batch received, its
/// expiry date.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Reserved {
    #[schema(example = "0badc0de-0000-4000-8000-0000000000a1")]
    pub id: String,
    #[schema(example = "B-2026-0412")]
    pub number: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = 2.5)]
    pub quantity: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(example = "2027-06-30")]
    pub expiry: Option<String>,
}

/// The numbers a material issue or shop order receipt reserves at Exact before it is booked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Reservation {
    pub tracking: Tracking,
    /// The reservation group, sent as the booking's `DraftStockTransactionID`.
    #[schema(example = "0badc0de-0000-4000-8000-0000000000a0")]
    pub draft: String,
    /// Exact's StockTransactionType: 150 material issue, 140 shop order receipt.
    #[schema(example = 150)]
    pub transaction_type: i64,
    /// The item and warehouse, from the local copy when the booking is queued.
    #[schema(required = true)]
    pub item: Option<String>,
    #[schema(required = true)]
    pub warehouse: Option<String>,
    #[schema(required = true)]
    pub location: Option<String>,
    pub numbers: Vec<Reserved>,
    /// Reservations have been sent: a later try first looks which ones Exact already has.
    #[serde(default)]
    pub started: bool,
    /// Exact refused the reservation or the booking: the numbers are released before the entry
    /// ends as refused with this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

impl Reservation {
    pub fn path(&self) -> &'static str {
        match self.tracking {
            Tracking::Serial => SERIAL_PATH,
            Tracking::Batch => BATCH_PATH,
        }
    }

    /// The reservation rows to POST, in Exact's shape.
    pub fn rows(&self) -> Vec<Value> {
        self.numbers
            .iter()
            .map(|n| {
                let mut row = Map::new();
                row.insert("ID".into(), json!(n.id));
                if let Some(item) = &self.item {
                    row.insert("Item".into(), json!(item));
                }
                match self.tracking {
                    Tracking::Serial => {
                        row.insert("SerialNumber".into(), json!(n.number));
                    }
                    Tracking::Batch => {
                        row.insert("BatchNumber".into(), json!(n.number));
                        row.insert("Quantity".into(), json!(n.quantity.unwrap_or(0.0)));
                        if let Some(expiry) = &n.expiry {
                            row.insert("EndDate".into(), json!(expiry));
                        }
                    }
                }
                row.insert("StockTransactionType".into(), json!(self.transaction_type));
                row.insert("DraftStockTransactionID".into(), json!(self.draft));
                if let Some(w) = &self.warehouse {
                    row.insert("Warehouse".into(), json!(w));
                }
                if let Some(l) = &self.location {
                    row.insert("StorageLocation".into(), json!(l));
                }
                Value::Object(row)
            })
            .collect()
    }
}

/// A batch of a booking line: its number, the quantity, and the expiry date given with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    pub number: String,
    pub quantity: f64,
    pub expiry: Option<String>,
}

/// The numbers of one booking line.
#[derive(Debug, Clone, PartialEq)]
pub enum Numbers {
    Serial(Vec<String>),
    Batch(Vec<Batch>),
}

fn invalid(msg: impl Into<String>) -> Invalid {
    Invalid::Plain(msg.into())
}

fn said(text: Text) -> Invalid {
    Invalid::Said(text)
}

/// A number's text: a non-empty string, trimmed.
fn number_text(entry: &Value, kind: NumberKind) -> Result<String, Invalid> {
    let field = match kind {
        NumberKind::Serial => "SerialNumber",
        NumberKind::Batch => "BatchNumber",
    };
    entry
        .get(field)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .ok_or(said(Text::NumberEmpty { kind }))
}

fn list<'a>(obj: &'a Map<String, Value>, field: &str) -> Result<Option<&'a Vec<Value>>, Invalid> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) if a.is_empty() => Ok(None),
        Some(Value::Array(a)) => Ok(Some(a)),
        Some(_) => Err(invalid(format!("{field} must be a list"))),
    }
}

/// The numbers of a line booking `quantity` units (its sign is the direction; a return counts
/// the same), checked against it; `None` when it carries none.
pub fn read(obj: &Map<String, Value>, quantity: f64) -> Result<Option<Numbers>, Invalid> {
    let serials = list(obj, SERIALS)?;
    let batches = list(obj, BATCHES)?;
    let units = quantity.abs();
    match (serials, batches) {
        (None, None) => Ok(None),
        (Some(_), Some(_)) => Err(said(Text::SerialsOrBatches)),
        (Some(list), None) => {
            let mut seen = HashSet::new();
            let mut out = Vec::with_capacity(list.len());
            for s in list {
                let n = number_text(s, NumberKind::Serial)?;
                if !seen.insert(n.to_lowercase()) {
                    return Err(said(Text::SerialTwice { number: n }));
                }
                out.push(n);
            }
            if (units - out.len() as f64).abs() > EPSILON {
                return Err(said(Text::SerialsPerUnit { count: out.len(), quantity: units }));
            }
            Ok(Some(Numbers::Serial(out)))
        }
        (None, Some(list)) => {
            let mut seen = HashSet::new();
            let mut out = Vec::with_capacity(list.len());
            for b in list {
                let n = number_text(b, NumberKind::Batch)?;
                let q = match b.get("Quantity") {
                    Some(Value::Number(q)) => q.as_f64(),
                    Some(Value::String(s)) => s.trim().parse().ok(),
                    _ => None,
                }
                .filter(|q: &f64| q.is_finite() && *q > 0.0)
                .ok_or_else(|| said(Text::BatchNeedsQuantity { number: n.clone() }))?;
                if !seen.insert(n.to_lowercase()) {
                    return Err(said(Text::BatchTwice { number: n }));
                }
                let fields = b.as_object().cloned().unwrap_or_default();
                super::actions::optional_date(&fields, "EndDate")
                    // a date's refusal is a plain (English) one: said as it is, after the batch
                    .map_err(|e| invalid(format!("batch {n}: {e}")))?;
                let expiry = fields.get("EndDate").and_then(Value::as_str).map(|d| d.trim().to_string());
                out.push(Batch { number: n, quantity: q, expiry });
            }
            let sum: f64 = out.iter().map(|b| b.quantity).sum();
            if (sum - units).abs() > EPSILON {
                return Err(said(Text::BatchesAddUp { sum, quantity: units }));
            }
            Ok(Some(Numbers::Batch(out)))
        }
    }
}

/// Takes the numbers out of a material issue's or shop order receipt's body and turns them into
/// the reservation its entry sends first; the body gets the reservation's group as its
/// `DraftStockTransactionID`. `None` (and the body unchanged) when it carries no numbers.
pub fn reservation(
    body: &mut Map<String, Value>,
    quantity: f64,
    transaction_type: i64,
) -> Result<Option<Reservation>, Invalid> {
    let Some(numbers) = read(body, quantity)? else {
        body.remove(SERIALS);
        body.remove(BATCHES);
        return Ok(None);
    };
    if body.get("DraftStockTransactionID").is_some_and(|v| !v.is_null()) {
        return Err(invalid("give the numbers or a DraftStockTransactionID, not both"));
    }
    body.remove(SERIALS);
    body.remove(BATCHES);
    let id = || uuid::Uuid::new_v4().to_string();
    let (tracking, numbers) = match numbers {
        Numbers::Serial(list) => {
            let reserved = list.into_iter().map(|number| Reserved { id: id(), number, quantity: None, expiry: None });
            (Tracking::Serial, reserved.collect())
        }
        Numbers::Batch(list) => (
            Tracking::Batch,
            list.into_iter()
                .map(|b| Reserved { id: id(), number: b.number, quantity: Some(b.quantity), expiry: b.expiry })
                .collect(),
        ),
    };
    let draft = id();
    body.insert("DraftStockTransactionID".into(), Value::String(draft.clone()));
    let location = body.get("StorageLocation").and_then(Value::as_str).map(str::to_ascii_lowercase);
    Ok(Some(Reservation {
        tracking,
        draft,
        transaction_type,
        item: None,
        warehouse: None,
        location,
        numbers,
        started: false,
        refused: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("an object")
    }

    /// The numbers, or the refusal as said in English.
    fn read(obj: &Map<String, Value>, quantity: f64) -> Result<Option<Numbers>, String> {
        super::read(obj, quantity).map_err(|e| e.to_string())
    }

    fn reservation(body: &mut Map<String, Value>, quantity: f64, kind: i64) -> Result<Option<Reservation>, String> {
        super::reservation(body, quantity, kind).map_err(|e| e.to_string())
    }

    #[test]
    fn a_user_s_mistake_is_said_in_dutch_and_a_programmer_s_in_english() {
        use esm_base::language::Language;
        let twice = obj(json!({"SerialNumbers": [{"SerialNumber": "A-1"}, {"SerialNumber": "a-1"}]}));
        match super::read(&twice, 2.0) {
            Err(Invalid::Said(text)) => {
                assert_eq!(text.said_in(Language::Nl), "serienummer a-1 is twee keer opgegeven")
            }
            other => panic!("{other:?}"),
        }
        let b = obj(json!({"BatchNumbers": [{"BatchNumber": "B1", "Quantity": 2.5}]}));
        match super::read(&b, 3.0) {
            Err(Invalid::Said(text)) => assert_eq!(
                text.said_in(Language::Nl),
                "de hoeveelheden van de batchnummers zijn samen 2,5, de hoeveelheid is 3"
            ),
            other => panic!("{other:?}"),
        }
        let list = obj(json!({"SerialNumbers": "A-1"}));
        assert!(matches!(super::read(&list, 1.0), Err(Invalid::Plain(_))));
    }

    #[test]
    fn serial_numbers_are_one_per_unit_and_never_twice() {
        let two = obj(json!({"SerialNumbers": [{"SerialNumber": "A-1"}, {"SerialNumber": " A-2 "}]}));
        assert_eq!(read(&two, 2.0), Ok(Some(Numbers::Serial(vec!["A-1".into(), "A-2".into()]))));
        assert_eq!(read(&two, -2.0), Ok(Some(Numbers::Serial(vec!["A-1".into(), "A-2".into()]))));
        assert_eq!(
            read(&two, 3.0),
            Err("2 serial numbers for a quantity of 3: one serial number per unit".to_string())
        );
        assert_eq!(read(&two, 1.5), Err("2 serial numbers for a quantity of 1.5: one serial number per unit".into()));
        let twice = obj(json!({"SerialNumbers": [{"SerialNumber": "A-1"}, {"SerialNumber": "a-1"}]}));
        assert_eq!(read(&twice, 2.0), Err("serial number a-1 is given twice".to_string()));
        let blank = obj(json!({"SerialNumbers": [{"SerialNumber": "  "}]}));
        assert_eq!(read(&blank, 1.0), Err("each of the serial numbers needs a SerialNumber".to_string()));
        assert_eq!(read(&obj(json!({"SerialNumbers": []})), 4.0), Ok(None));
        assert_eq!(read(&obj(json!({"SerialNumbers": "A-1"})), 1.0), Err("SerialNumbers must be a list".to_string()));
    }

    #[test]
    fn batch_quantities_add_up_to_the_quantity() {
        let b = obj(
            json!({"BatchNumbers": [{"BatchNumber": "B1", "Quantity": 2.5}, {"BatchNumber": "B2", "Quantity": "1.5"}]}),
        );
        let batch = |number: &str, quantity: f64, expiry: Option<&str>| Batch {
            number: number.into(),
            quantity,
            expiry: expiry.map(str::to_string),
        };
        assert_eq!(read(&b, 4.0), Ok(Some(Numbers::Batch(vec![batch("B1", 2.5, None), batch("B2", 1.5, None)]))));
        let dated = obj(json!({"BatchNumbers": [{"BatchNumber": "B1", "Quantity": 1, "EndDate": "2027-06-30"}]}));
        assert_eq!(read(&dated, 1.0), Ok(Some(Numbers::Batch(vec![batch("B1", 1.0, Some("2027-06-30"))]))));
        let undated = obj(json!({"BatchNumbers": [{"BatchNumber": "B1", "Quantity": 1, "EndDate": "next June"}]}));
        assert_eq!(
            read(&undated, 1.0),
            Err("batch B1: EndDate must be a date such as 2026-11-21, not 'next June'".to_string())
        );
        assert_eq!(read(&b, 5.0), Err("the batch quantities add up to 4, the quantity is 5".to_string()));
        let zero = obj(json!({"BatchNumbers": [{"BatchNumber": "B1", "Quantity": 0}]}));
        assert_eq!(read(&zero, 0.0), Err("batch B1 needs a Quantity of more than 0".to_string()));
        let twice =
            obj(json!({"BatchNumbers": [{"BatchNumber": "B1", "Quantity": 1}, {"BatchNumber": "b1", "Quantity": 1}]}));
        assert_eq!(read(&twice, 2.0), Err("batch b1 is given twice".to_string()));
        let both = obj(
            json!({"BatchNumbers": [{"BatchNumber": "B1", "Quantity": 1}], "SerialNumbers": [{"SerialNumber": "S"}]}),
        );
        assert_eq!(read(&both, 1.0), Err("give serial numbers or batch numbers, not both".to_string()));
    }

    #[test]
    fn a_reservation_takes_the_numbers_out_of_the_booking_and_names_its_group() {
        let mut body = obj(json!({
            "ShopOrderMaterialPlan": "0badc0de-0000-4000-8000-000000000006", "Quantity": 3,
            "StorageLocation": "0BADC0DE-0000-4000-8000-0000000000AA",
            "BatchNumbers": [{"BatchNumber": "B1", "Quantity": 2, "EndDate": "2027-06-30"}, {"BatchNumber": "B2", "Quantity": 1}]
        }));
        let r = reservation(&mut body, 3.0, MATERIAL_ISSUE).expect("valid").expect("numbers");
        assert!(!body.contains_key(BATCHES));
        assert_eq!(body["DraftStockTransactionID"], json!(r.draft));
        assert_eq!(r.path(), BATCH_PATH);
        assert_eq!(r.location.as_deref(), Some("0badc0de-0000-4000-8000-0000000000aa"));
        let r = Reservation { item: Some("i".into()), warehouse: Some("w".into()), ..r };
        let rows = r.rows();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0]["BatchNumber"], "B1");
        assert_eq!(rows[0]["Quantity"], 2.0);
        assert_eq!((&rows[0]["EndDate"], rows[1].get("EndDate")), (&json!("2027-06-30"), None));
        assert_eq!(rows[1]["StockTransactionType"], 150);
        assert_eq!(rows[1]["DraftStockTransactionID"], json!(r.draft));
        assert_eq!(rows[1]["Item"], "i");
        assert_eq!(rows[1]["Warehouse"], "w");
        assert_ne!(rows[0]["ID"], rows[1]["ID"]);

        let mut plain = obj(json!({"Quantity": 1, "SerialNumbers": []}));
        assert_eq!(reservation(&mut plain, 1.0, SHOP_ORDER_RECEIPT), Ok(None));
        assert!(!plain.contains_key(SERIALS));
        let mut given =
            obj(json!({"Quantity": 1, "DraftStockTransactionID": "x", "SerialNumbers": [{"SerialNumber": "S"}]}));
        assert_eq!(
            reservation(&mut given, 1.0, SHOP_ORDER_RECEIPT),
            Err("give the numbers or a DraftStockTransactionID, not both".to_string())
        );
    }
}
