//! Symbol decks: symbols with synonyms, cards as sets of symbols, loading `deck.json`
//! (see `shared/spec/formats.md`) and checking the one rule that makes the games work:
//! every two cards share exactly one symbol.

pub mod decode;
pub mod field;
pub mod limits;
pub mod plane;

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use decode::{Decoded, decode};
pub use limits::{MAX_CARDS, MAX_DECK_BYTES, MAX_LISTED, MAX_NAME_CHARS, MAX_SYMBOLS, MAX_SYMBOLS_PER_CARD};
pub use plane::{projective_plane, subset};

use crate::text_input::{TextError, escaped, few, read_text, shortened};
use limits::{Found, Name, bounded_cards, bounded_names, bounded_synonyms};

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
    /// Malformed JSON, or a list or name past a limit (`limits`).
    #[error("{path}:{line}:{column}: {message}")]
    Json { path: PathBuf, line: usize, column: usize, message: String },
    #[error("{path}: invalid deck: {}", first_problems(.problems))]
    Invalid { path: PathBuf, problems: Vec<DeckProblem> },
    /// Too large, not UTF-8.
    #[error("{0}")]
    Text(TextError),
    /// A name that looks like a built-in deck's but is none, and no such file exists.
    #[error(
        "{}: no such deck file, and no built-in deck of this name{reason}; built-in decks: {}",
        crate::text_input::shortened(.name, 60),
        crate::symbols::builtin_names()
    )]
    NoSuchBuiltin { name: String, reason: String },
}

/// The first three problems, then how many more (the last entry of a long list says so itself).
fn first_problems(problems: &[DeckProblem]) -> String {
    let total = problem_count(problems);
    let shown: Vec<String> = problems.iter().filter(|p| !p.is_more()).take(3).map(|p| p.to_string()).collect();
    let more = total - shown.len();
    if more > 0 { format!("{}; … and {more} more", shown.join("; ")) } else { shown.join("; ") }
}

/// How many problems a list stands for: its entries, the "… and N more" entry counting N.
pub fn problem_count(problems: &[DeckProblem]) -> usize {
    problems.iter().map(|p| if let DeckProblem::More { count } = p { *count } else { 1 }).sum()
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
    /// More cards than the pair check takes (only a deck built in code can have them: a file is
    /// refused as it is read).
    TooManyCards {
        cards: usize,
    },
    /// The last entry of a list cut at [`MAX_LISTED`]: how many problems were not listed.
    More {
        count: usize,
    },
}

impl DeckProblem {
    fn is_more(&self) -> bool {
        matches!(self, DeckProblem::More { .. })
    }
}

impl fmt::Display for DeckProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeckProblem::NoCards => write!(f, "the deck has no cards"),
            DeckProblem::DuplicateSymbol { name } => write!(f, "symbol {} is listed twice", escaped(name)),
            DeckProblem::DuplicateCardId { id } => write!(f, "card id {id} is used twice"),
            DeckProblem::UnknownSymbol { card, name } => {
                write!(f, "{card} shows {}, which is not in the deck's symbol list", escaped(name))
            }
            DeckProblem::RepeatedSymbolOnCard { card, name } => {
                write!(f, "{card} shows {} twice", escaped(name))
            }
            DeckProblem::SynonymOfUnknownSymbol { name } => {
                write!(f, "synonyms are given for {}, which is not in the deck's symbol list", escaped(name))
            }
            DeckProblem::WrongSize { card, has, expected } => {
                write!(f, "{card} has {has} symbols; the other cards have {expected}")
            }
            DeckProblem::PairShares { a, b, shared } if shared.is_empty() => {
                write!(f, "{a} and {b} share no symbol (they must share exactly one)")
            }
            DeckProblem::PairShares { a, b, shared } => {
                let names: Vec<String> = shared.iter().map(|s| plain_or_escaped(s)).collect();
                write!(
                    f,
                    "{a} and {b} share {} symbols ({}); they must share exactly one",
                    shared.len(),
                    few(&names, 5)
                )
            }
            DeckProblem::TooManyCards { cards } => {
                write!(f, "the deck has {cards} cards, more than {MAX_CARDS}, the most a deck may have")
            }
            DeckProblem::More { count } => write!(f, "… and {count} more problems"),
        }
    }
}

/// A symbol name as a list shows it: plain when it is a plain word, else quoted and escaped.
fn plain_or_escaped(name: &str) -> String {
    let plain = name.chars().count() <= 40 && name.chars().all(|c| c.is_alphanumeric() || " -_'.".contains(c));
    if plain && !name.is_empty() { name.to_string() } else { escaped(name) }
}

/// A deck file as read: every list bounded as it is read ([`limits`]), every name bounded in length.
#[derive(Deserialize, Serialize)]
struct RawDeck {
    #[serde(default)]
    name: Name,
    #[serde(deserialize_with = "bounded_names")]
    symbols: Vec<Name>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty", deserialize_with = "bounded_synonyms")]
    synonyms: BTreeMap<Name, Vec<Name>>,
    #[serde(deserialize_with = "bounded_cards")]
    cards: Vec<RawCard>,
}

#[derive(Deserialize, Serialize)]
pub(crate) struct RawCard {
    id: CardId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<Name>,
    #[serde(deserialize_with = "limits::bounded_card_symbols")]
    symbols: Vec<Name>,
}

/// How a card is named in messages: its id, and its name when the deck gives one.
fn card_label(id: CardId, name: Option<&str>) -> String {
    match name {
        Some(name) => format!("card {id} {}", escaped(name)),
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
        let (deck, problems) = Deck::parse(text, path)?;
        let problems = join_problems(problems, deck.validate());
        if problems.is_empty() { Ok(deck) } else { Err(DeckError::Invalid { path: path.to_path_buf(), problems }) }
    }

    /// Reads and validates a deck file.
    pub fn load(path: &Path) -> Result<Deck, DeckError> {
        let text = read(path)?;
        Deck::from_json_str(&text, path)
    }

    /// Reads a deck file and lists its problems (empty when the deck is valid): at most
    /// [`MAX_LISTED`], then a [`DeckProblem::More`] saying how many more.
    /// Only an unreadable, malformed or oversized file is an error.
    pub fn check_file(path: &Path) -> Result<Vec<DeckProblem>, DeckError> {
        let text = read(path)?;
        let (deck, problems) = Deck::parse(&text, path)?;
        Ok(join_problems(problems, deck.validate()))
    }

    /// Parses the JSON and resolves symbol names. Problems with names (unknown, repeated) are
    /// returned beside whatever could be resolved, so that a check can list everything at once.
    pub fn parse(text: &str, path: &Path) -> Result<(Deck, Vec<DeckProblem>), DeckError> {
        let raw: RawDeck = serde_json::from_str(text).map_err(|e| DeckError::Json {
            path: path.to_path_buf(),
            line: e.line(),
            // serde_json gives column 0 when it stopped at a line's end.
            column: e.column().max(1),
            // The message may quote a long string of the file, or control characters from it.
            message: match shortened(&strip_position(&e.to_string()), MAX_JSON_MESSAGE) {
                m if m.starts_with(limits::LIMIT_MARK) => m,
                m => format!("malformed deck JSON: {m}"),
            },
        })?;
        Ok(Deck::resolve(raw))
    }

    fn resolve(raw: RawDeck) -> (Deck, Vec<DeckProblem>) {
        let mut problems = Found::default();
        let symbol_names: Vec<String> = raw.symbols.into_iter().map(String::from).collect();
        let mut index: HashMap<&str, SymbolId> = HashMap::new();
        for (i, name) in symbol_names.iter().enumerate() {
            if index.insert(name.as_str(), i).is_some() {
                problems.push(|| DeckProblem::DuplicateSymbol { name: name.clone() });
            }
        }
        let mut seen_ids = HashMap::new();
        let mut cards = Vec::new();
        for rc in raw.cards {
            if seen_ids.insert(rc.id, ()).is_some() {
                problems.push(|| DeckProblem::DuplicateCardId { id: rc.id });
                continue;
            }
            let name = rc.name.map(String::from);
            let label = || card_label(rc.id, name.as_deref());
            let mut symbols = Vec::new();
            for symbol in &rc.symbols {
                let symbol = symbol.as_str();
                match index.get(symbol) {
                    None => problems.push(|| DeckProblem::UnknownSymbol { card: label(), name: symbol.to_string() }),
                    Some(&s) if symbols.contains(&s) => {
                        problems.push(|| DeckProblem::RepeatedSymbolOnCard { card: label(), name: symbol.to_string() })
                    }
                    Some(&s) => symbols.push(s),
                }
            }
            cards.push(Card { id: rc.id, name, symbols });
        }
        let synonyms: Vec<(SymbolId, Vec<String>)> = raw
            .synonyms
            .into_iter()
            .filter_map(|(name, list)| match index.get(name.as_str()) {
                Some(&s) => Some((s, list.into_iter().map(String::from).collect())),
                None => {
                    problems.push(|| DeckProblem::SynonymOfUnknownSymbol { name: name.as_str().to_string() });
                    None
                }
            })
            .collect();
        drop(index);
        let mut deck = Deck::new(String::from(raw.name), symbol_names, cards);
        for (s, list) in synonyms {
            deck.add_synonyms(s, list);
        }
        (deck, problems.into_list())
    }

    /// Checks the game's rules: same number of symbols on every card, and every pair of cards
    /// sharing exactly one symbol. Lists at most [`MAX_LISTED`] problems, each pair named, then a
    /// [`DeckProblem::More`] counting the rest. A deck of more than [`MAX_CARDS`] cards is not
    /// checked pair by pair (a file that large is refused as it is read).
    pub fn validate(&self) -> Vec<DeckProblem> {
        let mut problems = Found::default();
        if self.cards.is_empty() {
            problems.push(|| DeckProblem::NoCards);
            return problems.into_list();
        }
        if self.cards.len() > MAX_CARDS {
            problems.push(|| DeckProblem::TooManyCards { cards: self.cards.len() });
            return problems.into_list();
        }
        let expected = self.usual_card_size();
        for card in &self.cards {
            if card.symbols.len() != expected {
                problems.push(|| DeckProblem::WrongSize { card: self.label(card), has: card.symbols.len(), expected });
            }
        }
        // Each card as a bit set of its symbols: a pair's shared count is a few AND and popcounts,
        // and the whole check at most MAX_CARDS²/2 × MAX_SYMBOLS/64 word operations.
        let sets: Vec<limits::SymbolSet> =
            self.cards.iter().map(|c| limits::SymbolSet::new(&c.symbols, self.symbols.len())).collect();
        for (i, a) in self.cards.iter().enumerate() {
            for (j, b) in self.cards.iter().enumerate().skip(i + 1) {
                if sets[i].shared_count(&sets[j]) != 1 {
                    problems.push(|| {
                        let shared = shared_symbols(a, b).iter().map(|&s| self.symbols[s].clone()).collect();
                        DeckProblem::PairShares { a: self.label(a), b: self.label(b), shared }
                    });
                }
            }
        }
        problems.into_list()
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
            .map(|(i, syn)| {
                (Name::unchecked(self.symbols[i].clone()), syn.iter().cloned().map(Name::unchecked).collect())
            })
            .collect();
        let cards = self
            .cards
            .iter()
            .map(|c| RawCard {
                id: c.id,
                name: c.name.clone().map(Name::unchecked),
                symbols: c.symbols.iter().map(|&s| Name::unchecked(self.symbols[s].clone())).collect(),
            })
            .collect();
        let symbols = self.symbols.iter().cloned().map(Name::unchecked).collect();
        let raw = RawDeck { name: Name::unchecked(self.name.clone()), symbols, synonyms, cards };
        serde_json::to_string_pretty(&raw).expect("a deck always serialises")
    }
}

fn shared_symbols(a: &Card, b: &Card) -> Vec<SymbolId> {
    a.symbols.iter().copied().filter(|s| b.has(*s)).collect()
}

/// Two lists of problems as one, still cut at [`MAX_LISTED`] with the rest counted.
fn join_problems(first: Vec<DeckProblem>, second: Vec<DeckProblem>) -> Vec<DeckProblem> {
    let mut found = Found::default();
    for p in first.into_iter().chain(second) {
        match p {
            DeckProblem::More { count } => found.skip(count),
            p => found.push(|| p),
        }
    }
    found.into_list()
}

fn read(path: &Path) -> Result<String, DeckError> {
    read_text(path, MAX_DECK_BYTES, "a deck file").map_err(|e| match e {
        TextError::Io { path, source } => DeckError::Io { path, source },
        other => DeckError::Text(other),
    })
}

/// serde_json appends " at line L column C" to its messages; we print the position ourselves.
/// The longest JSON error message shown, in characters.
const MAX_JSON_MESSAGE: usize = 200;

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
