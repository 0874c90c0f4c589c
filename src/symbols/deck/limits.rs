//! Limits no real deck reaches, checked as a deck file is read, so that a hostile or careless
//! file costs little: a few milliseconds and a few megabytes, and one error line naming the limit
//! and where in the file it was passed.
//!
//! The largest deck this program knows is the projective plane of order 16 (273 cards of 17
//! symbols); printed decks have 55 to 57 cards of 8. The limits leave room above both.

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::{DeckProblem, RawCard, SymbolId};

/// The largest deck file read (bytes).
pub const MAX_DECK_BYTES: u64 = 1 << 20;
/// The most cards in a deck. Checking every pair of them takes a few milliseconds.
pub const MAX_CARDS: usize = 500;
/// The most symbols in a deck's symbol list.
pub const MAX_SYMBOLS: usize = 1000;
/// The most symbols on one card.
pub const MAX_SYMBOLS_PER_CARD: usize = 64;
/// The most synonyms of one symbol.
pub const MAX_SYNONYMS: usize = 32;
/// The longest name of a deck, card, symbol or synonym, in characters.
pub const MAX_NAME_CHARS: usize = 100;
/// The most problems a check lists; the rest are counted.
pub const MAX_LISTED: usize = 10;

/// How every limit error begins (the deck's JSON errors say "malformed" instead).
pub const LIMIT_MARK: &str = "past a limit: ";

/// A name read from a deck file, at most [`MAX_NAME_CHARS`] characters long.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Name(String);

impl Name {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A name that did not come from a file (a deck built in code, written out): no limit.
    pub fn unchecked(text: String) -> Name {
        Name(text)
    }
}

impl TryFrom<String> for Name {
    type Error = String;

    fn try_from(text: String) -> Result<Name, String> {
        let chars = text.chars().count();
        if chars > MAX_NAME_CHARS {
            return Err(format!("{LIMIT_MARK}a name of {chars} characters, more than {MAX_NAME_CHARS}"));
        }
        Ok(Name(text))
    }
}

impl From<Name> for String {
    fn from(name: Name) -> String {
        name.0
    }
}

/// A JSON list read element by element, refused at the first element past `limit`.
struct BoundedSeq<T> {
    limit: usize,
    what: &'static str,
    item: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for BoundedSeq<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a list of {}", self.what)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut out = Vec::new();
        while let Some(item) = seq.next_element()? {
            if out.len() == self.limit {
                return Err(de::Error::custom(format!("{LIMIT_MARK}more than {} {}", self.limit, self.what)));
            }
            out.push(item);
        }
        Ok(out)
    }
}

fn bounded<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
    limit: usize,
    what: &'static str,
) -> Result<Vec<T>, D::Error> {
    d.deserialize_seq(BoundedSeq { limit, what, item: PhantomData })
}

pub(super) fn bounded_names<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Name>, D::Error> {
    bounded(d, MAX_SYMBOLS, "symbols in a deck")
}

pub(super) fn bounded_cards<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<RawCard>, D::Error> {
    bounded(d, MAX_CARDS, "cards in a deck")
}

pub(super) fn bounded_card_symbols<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Name>, D::Error> {
    bounded(d, MAX_SYMBOLS_PER_CARD, "symbols on a card")
}

/// The synonyms map: at most one entry per symbol of the largest deck, each list bounded.
pub(super) fn bounded_synonyms<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<Name, Vec<Name>>, D::Error> {
    struct Synonyms(Vec<Name>);
    impl<'de> Deserialize<'de> for Synonyms {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Synonyms, D::Error> {
            bounded(d, MAX_SYNONYMS, "synonyms of a symbol").map(Synonyms)
        }
    }
    struct MapVisitor;
    impl<'de> Visitor<'de> for MapVisitor {
        type Value = BTreeMap<Name, Vec<Name>>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a map from symbol names to lists of synonyms")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some((name, Synonyms(list))) = map.next_entry::<Name, Synonyms>()? {
                if out.len() == MAX_SYMBOLS {
                    return Err(de::Error::custom(format!("{LIMIT_MARK}synonyms for more than {MAX_SYMBOLS} symbols")));
                }
                out.insert(name, list);
            }
            Ok(out)
        }
    }
    d.deserialize_map(MapVisitor)
}

/// Problems found by a check: the first [`MAX_LISTED`] kept, the rest only counted (a problem is
/// built only when it will be listed, so that counting a million bad pairs allocates nothing).
#[derive(Default)]
pub(super) struct Found {
    listed: Vec<DeckProblem>,
    more: usize,
}

impl Found {
    pub(super) fn push(&mut self, problem: impl FnOnce() -> DeckProblem) {
        if self.listed.len() < MAX_LISTED {
            self.listed.push(problem());
        } else {
            self.more += 1;
        }
    }

    /// Counts `count` problems that are not listed.
    pub(super) fn skip(&mut self, count: usize) {
        self.more += count;
    }

    pub(super) fn into_list(mut self) -> Vec<DeckProblem> {
        if self.more > 0 {
            self.listed.push(DeckProblem::More { count: self.more });
        }
        self.listed
    }
}

/// A card's symbols as a bit set over the deck's symbol ids.
pub(super) struct SymbolSet(Vec<u64>);

impl SymbolSet {
    pub(super) fn new(symbols: &[SymbolId], deck_symbols: usize) -> SymbolSet {
        let mut words = vec![0u64; deck_symbols.div_ceil(64)];
        for &s in symbols {
            words[s / 64] |= 1 << (s % 64);
        }
        SymbolSet(words)
    }

    pub(super) fn shared_count(&self, other: &SymbolSet) -> u32 {
        self.0.iter().zip(&other.0).map(|(a, b)| (a & b).count_ones()).sum()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::{Deck, DeckError, problem_count};
    use super::*;

    fn deck_json(cards: usize, per_card: impl Fn(usize) -> Vec<String>, symbols: usize) -> String {
        let symbols: Vec<String> = (0..symbols).map(|s| format!("\"s{s}\"")).collect();
        let cards: Vec<String> = (0..cards)
            .map(|c| {
                let names: Vec<String> = per_card(c).iter().map(|s| format!("\"{s}\"")).collect();
                format!("{{\"id\":{},\"symbols\":[{}]}}", c + 1, names.join(","))
            })
            .collect();
        format!("{{\"symbols\":[{}],\n\"cards\":[\n{}]}}", symbols.join(","), cards.join(",\n"))
    }

    #[test]
    fn too_many_cards_are_refused_as_read_naming_the_line() {
        let json = deck_json(MAX_CARDS + 1, |c| vec![format!("s{}", c % 10)], 10);
        let err = Deck::parse(&json, Path::new("d.json")).unwrap_err();
        let DeckError::Json { line, message, .. } = &err else { panic!("{err}") };
        // The 501st card, the last, is on line 503 (a card followed by a comma is reported at the
        // start of the next line: serde_json has looked past the comma).
        assert_eq!(*line, MAX_CARDS + 3, "{err}");
        assert_eq!(message, "past a limit: more than 500 cards in a deck");
    }

    #[test]
    fn long_names_and_crowded_cards_are_refused() {
        let long = format!("{{\"symbols\":[\"{}\"],\"cards\":[]}}", "x".repeat(MAX_NAME_CHARS + 1));
        assert!(
            Deck::parse(&long, Path::new("d"))
                .unwrap_err()
                .to_string()
                .contains("past a limit: a name of 101 characters, more than 100")
        );
        let crowded = deck_json(2, |_| (0..=MAX_SYMBOLS_PER_CARD).map(|s| format!("s{s}")).collect(), 70);
        assert!(Deck::parse(&crowded, Path::new("d")).unwrap_err().to_string().contains("symbols on a card"));
    }

    #[test]
    fn a_deck_of_the_most_cards_all_bad_lists_a_few_and_counts_the_rest() {
        // No two cards share a symbol: every pair is a problem.
        let json = deck_json(MAX_CARDS, |c| vec![format!("s{c}")], MAX_CARDS);
        let err = Deck::from_json_str(&json, Path::new("d.json")).unwrap_err();
        let DeckError::Invalid { problems, .. } = &err else { panic!("{err}") };
        assert_eq!(problems.len(), MAX_LISTED + 1);
        assert_eq!(problem_count(problems), MAX_CARDS * (MAX_CARDS - 1) / 2);
        let text = err.to_string();
        assert!(text.ends_with("… and 124747 more"), "{text}");
    }
}
