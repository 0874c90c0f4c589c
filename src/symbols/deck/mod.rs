//! Symbol decks: symbols with synonyms, cards as sets of symbols, loading `deck.json`
//! (see `shared/spec/formats.md`) and checking the one rule that makes the games work:
//! every two cards share exactly one symbol.

pub mod decode;
pub mod field;
pub mod plane;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use decode::{Decoded, decode};
pub use plane::{projective_plane, subset};

/// Index of a symbol in its deck's symbol list.
pub type SymbolId = usize;
/// A card's id as written in the deck file.
pub type CardId = u32;

/// One card: its id, an optional name, and its symbols (in the file's order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Card {
    pub id: CardId,
    pub name: Option<String>,
    pub symbols: Vec<SymbolId>,
}

impl Card {
    pub fn has(&self, symbol: SymbolId) -> bool {
        self.symbols.contains(&symbol)
    }
}

/// A deck of symbol cards. Built by [`Deck::from_json_str`], [`Deck::load`] or the plane generator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deck {
    pub name: String,
    symbols: Vec<String>,
    synonyms: Vec<Vec<String>>,
    cards: Vec<Card>,
    by_id: HashMap<CardId, usize>,
}

/// Why a deck file could not be read at all (as opposed to a readable deck that breaks the rules).
#[derive(Debug, thiserror::Error)]
pub enum DeckError {
    #[error("{path}: cannot read: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}:{line}:{column}: malformed deck JSON: {message}")]
    Json { path: PathBuf, line: usize, column: usize, message: String },
    #[error("{path}: invalid deck: {}", first_problems(.problems))]
    Invalid { path: PathBuf, problems: Vec<DeckProblem> },
}

fn first_problems(problems: &[DeckProblem]) -> String {
    let shown: Vec<String> = problems.iter().take(3).map(|p| p.to_string()).collect();
    let more = problems.len().saturating_sub(3);
    if more > 0 { format!("{}; and {more} more", shown.join("; ")) } else { shown.join("; ") }
}

/// One broken rule in a deck.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeckProblem {
    NoCards,
    DuplicateSymbol {
        name: String,
    },
    DuplicateCardId {
        id: CardId,
    },
    UnknownSymbol {
        card: String,
        name: String,
    },
    RepeatedSymbolOnCard {
        card: String,
        name: String,
    },
    SynonymOfUnknownSymbol {
        name: String,
    },
    WrongSize {
        card: String,
        has: usize,
        expected: usize,
    },
    /// Two cards that share no symbol, or more than one.
    PairShares {
        a: String,
        b: String,
        shared: Vec<String>,
    },
}

impl fmt::Display for DeckProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeckProblem::NoCards => write!(f, "the deck has no cards"),
            DeckProblem::DuplicateSymbol { name } => write!(f, "symbol \"{name}\" is listed twice"),
            DeckProblem::DuplicateCardId { id } => write!(f, "card id {id} is used twice"),
            DeckProblem::UnknownSymbol { card, name } => {
                write!(f, "{card} shows \"{name}\", which is not in the deck's symbol list")
            }
            DeckProblem::RepeatedSymbolOnCard { card, name } => {
                write!(f, "{card} shows \"{name}\" twice")
            }
            DeckProblem::SynonymOfUnknownSymbol { name } => {
                write!(f, "synonyms are given for \"{name}\", which is not in the deck's symbol list")
            }
            DeckProblem::WrongSize { card, has, expected } => {
                write!(f, "{card} has {has} symbols; the other cards have {expected}")
            }
            DeckProblem::PairShares { a, b, shared } if shared.is_empty() => {
                write!(f, "{a} and {b} share no symbol (they must share exactly one)")
            }
            DeckProblem::PairShares { a, b, shared } => write!(
                f,
                "{a} and {b} share {} symbols ({}); they must share exactly one",
                shared.len(),
                shared.join(", ")
            ),
        }
    }
}

#[derive(Deserialize, Serialize)]
struct RawDeck {
    #[serde(default)]
    name: String,
    symbols: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    synonyms: BTreeMap<String, Vec<String>>,
    cards: Vec<RawCard>,
}

#[derive(Deserialize, Serialize)]
struct RawCard {
    id: CardId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    symbols: Vec<String>,
}

/// How a card is named in messages: its id, and its name when the deck gives one.
fn card_label(id: CardId, name: Option<&str>) -> String {
    match name {
        Some(name) => format!("card {id} \"{name}\""),
        None => format!("card {id}"),
    }
}

impl Deck {
    /// Builds a deck from symbol names and cards given as symbol ids. Does not validate.
    pub fn new(name: impl Into<String>, symbols: Vec<String>, cards: Vec<Card>) -> Deck {
        let synonyms = vec![Vec::new(); symbols.len()];
        let by_id = cards.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
        Deck { name: name.into(), symbols, synonyms, cards, by_id }
    }

    /// Adds synonyms for a symbol (the Cipher deck and deck files use this).
    pub fn add_synonyms(&mut self, symbol: SymbolId, synonyms: impl IntoIterator<Item = String>) {
        self.synonyms[symbol].extend(synonyms);
    }

    /// Parses a deck and validates it; any broken rule is an error.
    pub fn from_json_str(text: &str, path: &Path) -> Result<Deck, DeckError> {
        let (deck, mut problems) = Deck::parse(text, path)?;
        problems.extend(deck.validate());
        if problems.is_empty() { Ok(deck) } else { Err(DeckError::Invalid { path: path.to_path_buf(), problems }) }
    }

    /// Reads and validates a deck file.
    pub fn load(path: &Path) -> Result<Deck, DeckError> {
        let text = read(path)?;
        Deck::from_json_str(&text, path)
    }

    /// Reads a deck file and lists every problem in it (empty when the deck is valid).
    /// Only an unreadable or malformed file is an error.
    pub fn check_file(path: &Path) -> Result<Vec<DeckProblem>, DeckError> {
        let text = read(path)?;
        let (deck, mut problems) = Deck::parse(&text, path)?;
        problems.extend(deck.validate());
        Ok(problems)
    }

    /// Parses the JSON and resolves symbol names. Problems with names (unknown, repeated) are
    /// returned beside whatever could be resolved, so that a check can list everything at once.
    pub fn parse(text: &str, path: &Path) -> Result<(Deck, Vec<DeckProblem>), DeckError> {
        let raw: RawDeck = serde_json::from_str(text).map_err(|e| DeckError::Json {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        })?;
        Ok(Deck::resolve(raw))
    }

    fn resolve(raw: RawDeck) -> (Deck, Vec<DeckProblem>) {
        let mut problems = Vec::new();
        let mut index: HashMap<&str, SymbolId> = HashMap::new();
        for (i, name) in raw.symbols.iter().enumerate() {
            if index.insert(name.as_str(), i).is_some() {
                problems.push(DeckProblem::DuplicateSymbol { name: name.clone() });
            }
        }
        let mut seen_ids = HashMap::new();
        let mut cards = Vec::new();
        for rc in &raw.cards {
            if seen_ids.insert(rc.id, ()).is_some() {
                problems.push(DeckProblem::DuplicateCardId { id: rc.id });
                continue;
            }
            let label = card_label(rc.id, rc.name.as_deref());
            let mut symbols = Vec::new();
            for name in &rc.symbols {
                match index.get(name.as_str()) {
                    None => problems.push(DeckProblem::UnknownSymbol { card: label.clone(), name: name.clone() }),
                    Some(&s) if symbols.contains(&s) => {
                        problems.push(DeckProblem::RepeatedSymbolOnCard { card: label.clone(), name: name.clone() })
                    }
                    Some(&s) => symbols.push(s),
                }
            }
            cards.push(Card { id: rc.id, name: rc.name.clone(), symbols });
        }
        let mut deck = Deck::new(raw.name.clone(), raw.symbols.clone(), cards);
        for (name, synonyms) in &raw.synonyms {
            match index.get(name.as_str()) {
                Some(&s) => deck.add_synonyms(s, synonyms.iter().cloned()),
                None => problems.push(DeckProblem::SynonymOfUnknownSymbol { name: name.clone() }),
            }
        }
        (deck, problems)
    }

    /// Checks the game's rules: same number of symbols on every card, and every pair of cards
    /// sharing exactly one symbol. Returns every problem found, each pair named.
    pub fn validate(&self) -> Vec<DeckProblem> {
        let mut problems = Vec::new();
        if self.cards.is_empty() {
            problems.push(DeckProblem::NoCards);
            return problems;
        }
        let expected = self.usual_card_size();
        for card in &self.cards {
            if card.symbols.len() != expected {
                let card_name = self.label(card);
                problems.push(DeckProblem::WrongSize { card: card_name, has: card.symbols.len(), expected });
            }
        }
        for (i, a) in self.cards.iter().enumerate() {
            for b in &self.cards[i + 1..] {
                let shared = shared_symbols(a, b);
                if shared.len() != 1 {
                    let shared = shared.iter().map(|&s| self.symbols[s].clone()).collect();
                    problems.push(DeckProblem::PairShares { a: self.label(a), b: self.label(b), shared });
                }
            }
        }
        problems
    }

    /// The most common number of symbols per card (ties: the larger), against which odd cards are reported.
    fn usual_card_size(&self) -> usize {
        let mut counts: BTreeMap<usize, usize> = BTreeMap::new();
        for card in &self.cards {
            *counts.entry(card.symbols.len()).or_default() += 1;
        }
        counts.iter().max_by_key(|&(size, n)| (*n, *size)).map(|(size, _)| *size).unwrap_or(0)
    }

    /// "card 3" or "card 3 \"Sun\"", for messages.
    pub fn label(&self, card: &Card) -> String {
        card_label(card.id, card.name.as_deref())
    }

    pub fn symbols(&self) -> &[String] {
        &self.symbols
    }

    pub fn symbol_name(&self, symbol: SymbolId) -> &str {
        &self.symbols[symbol]
    }

    pub fn synonyms(&self, symbol: SymbolId) -> &[String] {
        &self.synonyms[symbol]
    }

    /// The symbol with exactly this name (no forgiveness: see [`crate::symbols::names`] for that).
    pub fn symbol_id(&self, name: &str) -> Option<SymbolId> {
        self.symbols.iter().position(|s| s == name)
    }

    pub fn cards(&self) -> &[Card] {
        &self.cards
    }

    pub fn card(&self, id: CardId) -> Option<&Card> {
        self.by_id.get(&id).map(|&i| &self.cards[i])
    }

    /// Symbols per card (of the first card; equal for every card of a valid deck).
    pub fn symbols_per_card(&self) -> usize {
        self.cards.first().map_or(0, |c| c.symbols.len())
    }

    /// The one symbol that cards `a` and `b` share; `None` when either card is unknown, when
    /// `a == b`, or when the pair breaks the rule.
    pub fn shared_symbol(&self, a: CardId, b: CardId) -> Option<SymbolId> {
        if a == b {
            return None;
        }
        let shared = shared_symbols(self.card(a)?, self.card(b)?);
        if shared.len() == 1 { Some(shared[0]) } else { None }
    }

    /// The deck as `deck.json` text.
    pub fn to_json(&self) -> String {
        let synonyms = self
            .synonyms
            .iter()
            .enumerate()
            .filter(|(_, syn)| !syn.is_empty())
            .map(|(i, syn)| (self.symbols[i].clone(), syn.clone()))
            .collect();
        let cards = self
            .cards
            .iter()
            .map(|c| RawCard {
                id: c.id,
                name: c.name.clone(),
                symbols: c.symbols.iter().map(|&s| self.symbols[s].clone()).collect(),
            })
            .collect();
        let raw = RawDeck { name: self.name.clone(), symbols: self.symbols.clone(), synonyms, cards };
        serde_json::to_string_pretty(&raw).expect("a deck always serialises")
    }
}

fn shared_symbols(a: &Card, b: &Card) -> Vec<SymbolId> {
    a.symbols.iter().copied().filter(|s| b.has(*s)).collect()
}

fn read(path: &Path) -> Result<String, DeckError> {
    std::fs::read_to_string(path).map_err(|source| DeckError::Io { path: path.to_path_buf(), source })
}

/// serde_json appends " at line L column C" to its messages; we print the position ourselves.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small(json: &str) -> Result<Deck, DeckError> {
        Deck::from_json_str(json, Path::new("test.json"))
    }

    const FANO: &str = r#"{"name":"fano","symbols":["a","b","c","d","e","f","g"],
        "synonyms":{"a":["alpha"]},
        "cards":[{"id":1,"symbols":["a","b","c"]},{"id":2,"symbols":["a","d","e"]},
                 {"id":3,"symbols":["a","f","g"]},{"id":4,"symbols":["b","d","f"]},
                 {"id":5,"symbols":["b","e","g"]},{"id":6,"symbols":["c","d","g"]},
                 {"id":7,"symbols":["c","e","f"]}]}"#;

    #[test]
    fn fano_plane_loads_and_shares() {
        let deck = small(FANO).unwrap();
        assert_eq!(deck.cards().len(), 7);
        assert_eq!(deck.symbol_name(deck.shared_symbol(4, 6).unwrap()), "d");
        assert_eq!(deck.synonyms(0), ["alpha".to_string()]);
        assert_eq!(deck.shared_symbol(4, 4), None);
        assert_eq!(deck.shared_symbol(4, 99), None);
    }

    #[test]
    fn broken_pair_is_named() {
        let broken =
            FANO.replace(r#"{"id":7,"symbols":["c","e","f"]}"#, r#"{"id":7,"name":"Seven","symbols":["c","e","g"]}"#);
        let Err(DeckError::Invalid { problems, .. }) = small(&broken) else { panic!("accepted a broken deck") };
        let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
        assert!(
            text.contains(&"card 5 and card 7 \"Seven\" share 2 symbols (e, g); they must share exactly one".into()),
            "{text:?}"
        );
        assert!(
            text.contains(&"card 4 and card 7 \"Seven\" share no symbol (they must share exactly one)".into()),
            "{text:?}"
        );
    }

    #[test]
    fn unknown_and_odd_sized_cards_are_reported() {
        let broken =
            FANO.replace(r#"["a","b","c"]"#, r#"["a","b","c","zz"]"#).replace(r#"["c","d","g"]"#, r#"["c","d"]"#);
        let (deck, problems) = Deck::parse(&broken, Path::new("x")).unwrap();
        assert_eq!(problems, vec![DeckProblem::UnknownSymbol { card: "card 1".into(), name: "zz".into() }]);
        let rules = deck.validate();
        assert!(rules.contains(&DeckProblem::WrongSize { card: "card 6".into(), has: 2, expected: 3 }));
    }

    #[test]
    fn json_errors_carry_line_and_column() {
        let err = small("{\n  \"symbols\": [\"a\",\n  }").unwrap_err();
        let DeckError::Json { line, column, .. } = err else { panic!("expected a JSON error") };
        assert_eq!((line, column), (3, 3));
    }

    #[test]
    fn round_trips_through_json() {
        let deck = small(FANO).unwrap();
        let again = small(&deck.to_json()).unwrap();
        assert_eq!(deck, again);
    }
}
