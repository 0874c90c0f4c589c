//! Matching what a player called out against a deck's symbol names.
//!
//! Forgiving, as the rules ask: case, spaces, hyphens, punctuation and accents are ignored, the
//! deck's synonyms count, and one typo (a wrong, missing, extra or swapped letter) is tolerated
//! when it points to a single symbol. Otherwise the referee asks: "ambiguous: Bob or Box?".

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

use super::deck::{Deck, SymbolId};

/// What a called name refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameMatch {
    /// The name, a synonym, or a spelling of them that differs only in case, spacing or accents.
    Exact(SymbolId),
    /// One typo away from exactly one symbol.
    Typo(SymbolId),
    /// Several symbols fit equally well (listed in deck order).
    Ambiguous(Vec<SymbolId>),
    Unknown,
}

impl NameMatch {
    pub fn symbol(&self) -> Option<SymbolId> {
        match self {
            NameMatch::Exact(s) | NameMatch::Typo(s) => Some(*s),
            _ => None,
        }
    }
}

/// Resolves called names against one deck.
#[derive(Clone, Debug)]
pub struct NameMatcher {
    /// (normalised spelling, symbol) for every name, synonym and short name.
    entries: Vec<(Vec<char>, SymbolId)>,
    names: Vec<String>,
}

/// Shorter calls than this must be spelled right: with two letters nearly anything is one typo away.
const MIN_LEN_FOR_TYPO: usize = 3;

impl NameMatcher {
    pub fn new(deck: &Deck) -> NameMatcher {
        let mut entries = Vec::new();
        for (id, name) in deck.symbols().iter().enumerate() {
            let mut spellings = vec![name.clone()];
            spellings.extend(deck.synonyms(id).iter().cloned());
            // "Turtle(ART)" is called "Turtle": a parenthesised note is not part of the name.
            if let Some(short) = name.split('(').next().filter(|s| s.len() < name.len()) {
                spellings.push(short.to_string());
            }
            for spelling in spellings {
                let key: Vec<char> = normalise(&spelling).chars().collect();
                if !key.is_empty() && !entries.contains(&(key.clone(), id)) {
                    entries.push((key, id));
                }
            }
        }
        NameMatcher { entries, names: deck.symbols().to_vec() }
    }

    pub fn resolve(&self, called: &str) -> NameMatch {
        let key: Vec<char> = normalise(called).chars().collect();
        if key.is_empty() {
            return NameMatch::Unknown;
        }
        let exact = self.symbols_where(|spelling| *spelling == key[..]);
        match exact.len() {
            1 => return NameMatch::Exact(exact[0]),
            n if n > 1 => return NameMatch::Ambiguous(exact),
            _ => {}
        }
        if key.len() < MIN_LEN_FOR_TYPO {
            return NameMatch::Unknown;
        }
        let near = self.symbols_where(|spelling| within_one_edit(spelling, &key));
        match near.len() {
            0 => NameMatch::Unknown,
            1 => NameMatch::Typo(near[0]),
            _ => NameMatch::Ambiguous(near),
        }
    }

    /// The referee's question for an ambiguous call: "ambiguous: Bob or Box?".
    pub fn ambiguity_question(&self, symbols: &[SymbolId]) -> String {
        let names: Vec<&str> = symbols.iter().map(|&s| self.names[s].as_str()).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => {
                format!("ambiguous: {} or {last}?", rest.join(", "))
            }
            _ => format!("ambiguous: {}?", names.join("")),
        }
    }

    fn symbols_where(&self, fits: impl Fn(&[char]) -> bool) -> Vec<SymbolId> {
        let mut out: Vec<SymbolId> = self.entries.iter().filter(|(k, _)| fits(k)).map(|(_, s)| *s).collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Lower case, accents removed, only letters and digits kept: "Meet-in-the-Middle" and
/// "meet in the middle" both become "meetinthemiddle", "Vigenère" becomes "vigenere".
pub fn normalise(text: &str) -> String {
    let mut out = String::new();
    for c in text.nfkd().filter(|c| !is_combining_mark(*c)) {
        match fold_letter(c) {
            Some(folded) => out.push_str(folded),
            None => out.extend(c.to_lowercase().filter(|c| c.is_alphanumeric())),
        }
    }
    out
}

/// Letters that carry their accent in the letter itself, so decomposition leaves them alone.
fn fold_letter(c: char) -> Option<&'static str> {
    Some(match c {
        'ø' | 'Ø' => "o",
        'æ' | 'Æ' => "ae",
        'œ' | 'Œ' => "oe",
        'ß' => "ss",
        'ł' | 'Ł' => "l",
        'đ' | 'Đ' => "d",
        'þ' | 'Þ' => "th",
        'ı' => "i",
        _ => return None,
    })
}

/// True when a and b differ by exactly one substitution, insertion, deletion or swap of two
/// neighbouring letters (equal strings are not "within one edit": they are exact).
fn within_one_edit(a: &[char], b: &[char]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    match long.len() - short.len() {
        0 => {
            let diffs: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
            match diffs[..] {
                [_] => true,
                [i, j] => j == i + 1 && a[i] == b[j] && a[j] == b[i],
                _ => false,
            }
        }
        1 => {
            let first_diff = (0..short.len()).find(|&i| short[i] != long[i]).unwrap_or(short.len());
            short[first_diff..] == long[first_diff + 1..]
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deck() -> Deck {
        let names = ["Bob", "Box", "Meet-in-the-Middle", "Vigenère", "Grøstl", "Turtle(ART)", "Key"];
        let mut deck = Deck::new("t", names.iter().map(|s| s.to_string()).collect(), Vec::new());
        deck.add_synonyms(2, ["MITM".to_string()]);
        deck
    }

    #[test]
    fn normalises_spelling() {
        assert_eq!(normalise("Meet-in-the Middle"), "meetinthemiddle");
        assert_eq!(normalise("VIGENÈRE"), "vigenere");
        assert_eq!(normalise("Grøstl"), "grostl");
    }

    #[test]
    fn resolves_names() {
        let m = NameMatcher::new(&deck());
        assert_eq!(m.resolve("meet in the middle"), NameMatch::Exact(2));
        assert_eq!(m.resolve("mitm"), NameMatch::Exact(2));
        assert_eq!(m.resolve("vigenere"), NameMatch::Exact(3));
        assert_eq!(m.resolve("groestl"), NameMatch::Typo(4));
        assert_eq!(m.resolve("turtle"), NameMatch::Exact(5));
        assert_eq!(m.resolve("Kye"), NameMatch::Typo(6));
        assert_eq!(m.resolve("meet in teh middle"), NameMatch::Typo(2));
        assert_eq!(m.resolve("Bos"), NameMatch::Ambiguous(vec![0, 1]));
        assert_eq!(m.ambiguity_question(&[0, 1]), "ambiguous: Bob or Box?");
        assert_eq!(m.resolve("Enigma"), NameMatch::Unknown);
        assert_eq!(m.resolve("Ke"), NameMatch::Unknown);
        assert_eq!(m.resolve("  "), NameMatch::Unknown);
    }

    #[test]
    fn one_edit() {
        let c = |s: &str| s.chars().collect::<Vec<_>>();
        assert!(within_one_edit(&c("salt"), &c("slat")));
        assert!(within_one_edit(&c("salt"), &c("sal")));
        assert!(within_one_edit(&c("salt"), &c("xsalt")));
        assert!(!within_one_edit(&c("salt"), &c("salt")));
        assert!(!within_one_edit(&c("salt"), &c("stla")));
        assert!(!within_one_edit(&c("salt"), &c("sa")));
    }
}
