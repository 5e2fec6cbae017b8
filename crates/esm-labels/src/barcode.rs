//! Barcodes: validation with the spec's messages, then encoding to bar modules with barcoders.
//!
//! Validation runs before anything is drawn, so a bad code fails the whole request with a
//! message the user understands instead of a label that does not scan.

use barcoders::sym::{codabar::Codabar, code39::Code39, code128::Code128, ean8::EAN8, ean13::EAN13, tf::TF};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The symbologies a label can carry; Code 128 is the default (spec §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Symbology {
    #[default]
    Code128,
    /// EAN-8 or EAN-13, chosen by the data length (8, 12 or 13 digits).
    Ean,
    Ean8,
    Ean13,
    Upca,
    Itf,
    Code39,
    Codabar,
}

impl Symbology {
    pub const ALL: [Symbology; 8] = [
        Symbology::Code128,
        Symbology::Ean,
        Symbology::Ean8,
        Symbology::Ean13,
        Symbology::Upca,
        Symbology::Itf,
        Symbology::Code39,
        Symbology::Codabar,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Symbology::Code128 => "CODE128",
            Symbology::Ean => "EAN",
            Symbology::Ean8 => "EAN8",
            Symbology::Ean13 => "EAN13",
            Symbology::Upca => "UPC",
            Symbology::Itf => "ITF",
            Symbology::Code39 => "CODE39",
            Symbology::Codabar => "codabar",
        }
    }
}

impl fmt::Display for Symbology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a value cannot become a barcode; the text is what the user sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BarcodeError {
    #[error("Cannot encode '{data}' as {symbology}: {reason}")]
    CannotEncode { data: String, symbology: Symbology, reason: String },
    #[error("{symbology} must be of length {lengths}")]
    Length { symbology: Symbology, lengths: String },
}

/// A validated barcode: the text a reader returns and the bar pattern (1 = bar, 0 = space).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodedBarcode {
    pub symbology: Symbology,
    /// The text a scanner reports (EAN/UPC with their check digit).
    pub text: String,
    pub modules: Vec<u8>,
}

impl EncodedBarcode {
    /// Runs of bars as (first module, width in modules), so a renderer draws one rectangle per bar.
    pub fn bars(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, m) in self.modules.iter().enumerate() {
            match (m, start) {
                (1, None) => start = Some(i),
                (0, Some(s)) => {
                    out.push((s, i - s));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            out.push((s, self.modules.len() - s));
        }
        out
    }
}

fn cannot(data: &str, symbology: Symbology, reason: impl Into<String>) -> BarcodeError {
    BarcodeError::CannotEncode { data: data.to_string(), symbology, reason: reason.into() }
}

fn length(symbology: Symbology, lengths: &str) -> BarcodeError {
    BarcodeError::Length { symbology, lengths: lengths.to_string() }
}

fn digits_only(data: &str, symbology: Symbology) -> Result<(), BarcodeError> {
    match data.chars().find(|c| !c.is_ascii_digit()) {
        Some(c) => Err(cannot(data, symbology, format!("character '{c}' is not a digit"))),
        None => Ok(()),
    }
}

/// The GS1 mod-10 check digit of `digits` (without the check digit).
fn gs1_check_digit(digits: &str) -> u32 {
    let sum: u32 = digits
        .chars()
        .rev()
        .filter_map(|c| c.to_digit(10))
        .enumerate()
        .map(|(i, d)| if i % 2 == 0 { d * 3 } else { d })
        .sum();
    (10 - sum % 10) % 10
}

/// Completes a GS1 number with its check digit, or checks the one given.
fn with_check_digit(data: &str, body_len: usize, symbology: Symbology) -> Result<String, BarcodeError> {
    let body = &data[..body_len];
    let check = gs1_check_digit(body);
    if data.len() == body_len {
        return Ok(format!("{body}{check}"));
    }
    let given = data[body_len..].chars().next().and_then(|c| c.to_digit(10));
    if given != Some(check) {
        return Err(cannot(data, symbology, format!("the check digit must be {check}")));
    }
    Ok(data.to_string())
}

/// Validates `data` for `symbology` and encodes it; nothing is drawn for invalid data.
pub fn encode(symbology: Symbology, data: &str) -> Result<EncodedBarcode, BarcodeError> {
    if data.is_empty() {
        return Err(cannot(data, symbology, "there is nothing to encode"));
    }
    let (text, modules) = match symbology {
        Symbology::Code128 => encode_code128(data)?,
        Symbology::Ean => return encode(ean_by_length(data)?, data),
        Symbology::Ean8 => encode_gs1(data, symbology, 7)?,
        Symbology::Ean13 => encode_gs1(data, symbology, 12)?,
        Symbology::Upca => encode_gs1(data, symbology, 11)?,
        Symbology::Itf => encode_itf(data)?,
        Symbology::Code39 => encode_code39(data)?,
        Symbology::Codabar => encode_codabar(data)?,
    };
    Ok(EncodedBarcode { symbology, text, modules })
}

/// "EAN" is EAN-8 or EAN-13, told apart by the data length (12 digits get their check digit).
fn ean_by_length(data: &str) -> Result<Symbology, BarcodeError> {
    match data.len() {
        8 => Ok(Symbology::Ean8),
        12 | 13 => Ok(Symbology::Ean13),
        _ => {
            // A non-digit is the clearer message when there is one.
            digits_only(data, Symbology::Ean)?;
            Err(length(Symbology::Ean, "8, 12 or 13"))
        }
    }
}

/// EAN-8, EAN-13 and UPC-A: digits, `body_len` of them with or without the check digit.
fn encode_gs1(data: &str, symbology: Symbology, body_len: usize) -> Result<(String, Vec<u8>), BarcodeError> {
    digits_only(data, symbology)?;
    if data.len() != body_len && data.len() != body_len + 1 {
        let lengths = match symbology {
            Symbology::Ean8 => "8",
            Symbology::Ean13 => "12 or 13",
            _ => "11 or 12",
        };
        return Err(length(symbology, lengths));
    }
    let full = with_check_digit(data, body_len, symbology)?;
    let modules = match symbology {
        Symbology::Ean8 => EAN8::new(&full).map(|c| c.encode()),
        // UPC-A is EAN-13 with number system 0; readers report the 12 UPC digits.
        Symbology::Upca => EAN13::new(format!("0{full}")).map(|c| c.encode()),
        _ => EAN13::new(&full).map(|c| c.encode()),
    }
    .map_err(|e| cannot(data, symbology, e.to_string()))?;
    Ok((full, modules))
}

/// Interleaved 2 of 5: digits in pairs.
fn encode_itf(data: &str) -> Result<(String, Vec<u8>), BarcodeError> {
    let symbology = Symbology::Itf;
    digits_only(data, symbology)?;
    if !data.len().is_multiple_of(2) {
        return Err(cannot(data, symbology, "ITF needs an even number of digits"));
    }
    let code = TF::interleaved(data).map_err(|e| cannot(data, symbology, e.to_string()))?;
    Ok((data.to_string(), code.encode()))
}

/// Code 39: upper-case letters, digits and `-. $/+%`.
fn encode_code39(data: &str) -> Result<(String, Vec<u8>), BarcodeError> {
    let symbology = Symbology::Code39;
    if let Some(c) =
        data.chars().find(|c| !matches!(c, 'A'..='Z' | '0'..='9' | '-' | '.' | ' ' | '$' | '/' | '+' | '%'))
    {
        return Err(cannot(data, symbology, format!("character '{c}' is not in Code 39")));
    }
    let code = Code39::new(data).map_err(|e| cannot(data, symbology, e.to_string()))?;
    Ok((data.to_string(), code.encode()))
}

/// Codabar: framed by guard letters A–D (either case), digits and `-$:/.+` between them.
fn encode_codabar(data: &str) -> Result<(String, Vec<u8>), BarcodeError> {
    let symbology = Symbology::Codabar;
    let is_guard = |c: char| matches!(c.to_ascii_uppercase(), 'A'..='D');
    let chars: Vec<char> = data.chars().collect();
    let framed =
        chars.len() >= 3 && chars.first().copied().is_some_and(is_guard) && chars.last().copied().is_some_and(is_guard);
    if !framed {
        return Err(cannot(data, symbology, "Codabar starts and ends with A, B, C or D"));
    }
    if let Some(c) =
        chars[1..chars.len() - 1].iter().find(|c| !matches!(c, '0'..='9' | '-' | '$' | ':' | '/' | '.' | '+'))
    {
        return Err(cannot(data, symbology, format!("character '{c}' is not in Codabar")));
    }
    let upper = data.to_ascii_uppercase();
    let code = Codabar::new(swap_codabar_b_c(&upper)).map_err(|e| cannot(data, symbology, e.to_string()))?;
    Ok((upper, code.encode()))
}

/// barcoders 2.0 has the B and C guard patterns swapped (zbar reads its B as C), so the
/// letters are swapped before it draws them.
fn swap_codabar_b_c(upper: &str) -> String {
    upper
        .chars()
        .map(|c| match c {
            'B' => 'C',
            'C' => 'B',
            other => other,
        })
        .collect()
}

/// Code 128 with the character set chosen for the data: C for even digit runs, else B.
fn encode_code128(data: &str) -> Result<(String, Vec<u8>), BarcodeError> {
    if let Some(c) = data.chars().find(|c| !(' '..='~').contains(c)) {
        return Err(cannot(data, Symbology::Code128, format!("character '{c}' is not printable ASCII")));
    }
    let all_digits = data.chars().all(|c| c.is_ascii_digit());
    // barcoders needs the start set as a prefix character: Ć = set C (digit pairs), Ɓ = set B.
    let prefixed = if all_digits && data.len().is_multiple_of(2) { format!("Ć{data}") } else { format!("Ɓ{data}") };
    let code = Code128::new(&prefixed).map_err(|e| cannot(data, Symbology::Code128, e.to_string()))?;
    Ok((data.to_string(), code.encode()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code128_accepts_item_codes_and_digits() {
        assert!(encode(Symbology::Code128, "AB-1234 x").is_ok());
        assert!(encode(Symbology::Code128, "123456").is_ok());
        assert!(encode(Symbology::Code128, "12345").is_ok());
        let err = encode(Symbology::Code128, "Größe").unwrap_err().to_string();
        assert!(err.starts_with("Cannot encode 'Größe' as CODE128"), "{err}");
    }

    #[test]
    fn ean_lengths_are_8_12_or_13() {
        assert_eq!(encode(Symbology::Ean, "12345").unwrap_err().to_string(), "EAN must be of length 8, 12 or 13");
        assert_eq!(encode(Symbology::Ean, "590123412345").unwrap().text, "5901234123457");
        assert_eq!(encode(Symbology::Ean, "96385074").unwrap().text, "96385074");
        assert_eq!(encode(Symbology::Ean8, "123").unwrap_err().to_string(), "EAN8 must be of length 8");
        assert!(encode(Symbology::Ean13, "5901234123458").unwrap_err().to_string().contains("check digit must be 7"));
        assert!(encode(Symbology::Ean13, "59012341234A").unwrap_err().to_string().starts_with("Cannot encode"));
    }

    #[test]
    fn upc_itf_code39_codabar_follow_their_rules() {
        assert_eq!(encode(Symbology::Upca, "03600029145").unwrap().text, "036000291452");
        assert_eq!(encode(Symbology::Upca, "0360").unwrap_err().to_string(), "UPC must be of length 11 or 12");
        assert!(encode(Symbology::Itf, "12345").unwrap_err().to_string().contains("even number"));
        assert!(encode(Symbology::Itf, "123456").is_ok());
        assert!(encode(Symbology::Code39, "abc").unwrap_err().to_string().contains("not in Code 39"));
        assert!(encode(Symbology::Code39, "ABC-12").is_ok());
        assert!(encode(Symbology::Codabar, "12345").unwrap_err().to_string().contains("starts and ends"));
        assert!(encode(Symbology::Codabar, "A12x5B").unwrap_err().to_string().contains("'x'"));
        assert_eq!(encode(Symbology::Codabar, "a1234b").unwrap().text, "A1234B");
        assert!(encode(Symbology::Code128, "").is_err());
    }

    #[test]
    fn bars_merge_runs() {
        let b =
            EncodedBarcode { symbology: Symbology::Code128, text: String::new(), modules: vec![1, 1, 0, 1, 0, 0, 1] };
        assert_eq!(b.bars(), vec![(0, 2), (3, 1), (6, 1)]);
    }
}
