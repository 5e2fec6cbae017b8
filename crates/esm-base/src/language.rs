//! The languages the server speaks: the UI's (English and Dutch), and how a request names its own.

/// A language of the UI, and so of every text the server sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Language {
    #[default]
    En,
    Nl,
}

impl Language {
    pub const ALL: [Language; 2] = [Language::En, Language::Nl];

    /// The caller's language from `Accept-Language` (`nl`, `nl-NL`, `en;q=0.8, nl`): the first of
    /// English and Dutch by preference, English when it names neither.
    pub fn from_accept_language(header: &str) -> Language {
        let mut best: Option<(f32, Language)> = None;
        for part in header.split(',') {
            let mut pieces = part.split(';');
            let tag = pieces.next().unwrap_or_default().trim().to_ascii_lowercase();
            let q = pieces
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            let language = match tag.split('-').next() {
                Some("nl") => Language::Nl,
                Some("en") => Language::En,
                _ => continue,
            };
            if q > 0.0 && best.is_none_or(|(b, _)| q > b) {
                best = Some((q, language));
            }
        }
        best.map_or(Language::En, |(_, l)| l)
    }

    /// The language a short code names (`nl`, `en`, `nl-NL`), as a `?lang=` parameter gives it
    /// where a request cannot carry headers (an `EventSource`); `None` for any other.
    pub fn from_code(code: &str) -> Option<Language> {
        match code.split('-').next().map(str::to_ascii_lowercase).as_deref() {
            Some("nl") => Some(Language::Nl),
            Some("en") => Some(Language::En),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_language_is_the_first_of_english_and_dutch_the_caller_prefers() {
        for (header, want) in [
            ("nl", Language::Nl),
            ("nl-NL,nl;q=0.9,en;q=0.8", Language::Nl),
            ("en-GB,en;q=0.9,nl;q=0.8", Language::En),
            ("de-DE, nl;q=0.5", Language::Nl),
            ("en;q=0.3, NL;q=0.7", Language::Nl),
            ("nl;q=0, en", Language::En),
            ("fr, de", Language::En),
            ("", Language::En),
        ] {
            assert_eq!(Language::from_accept_language(header), want, "{header}");
        }
    }

    #[test]
    fn a_code_names_english_or_dutch_or_nothing() {
        assert_eq!(Language::from_code("nl"), Some(Language::Nl));
        assert_eq!(Language::from_code("NL-be"), Some(Language::Nl));
        assert_eq!(Language::from_code("en"), Some(Language::En));
        assert_eq!(Language::from_code("de"), None);
        assert_eq!(Language::from_code(""), None);
    }
}
