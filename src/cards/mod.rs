//! Playing-card identities and their text codes (`AS`, `10H`, `QD`), as `shared/spec/formats.md`
//! defines them. Shared by the rules engine, the renderer and the vision code.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub mod physical;

pub use physical::{CARD_ASPECT, CARD_MM};

/// A suit. Clubs and Spades are black, Diamonds and Hearts red.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Suit {
    Clubs,
    Diamonds,
    Hearts,
    Spades,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    pub fn letter(self) -> char {
        match self {
            Suit::Clubs => 'C',
            Suit::Diamonds => 'D',
            Suit::Hearts => 'H',
            Suit::Spades => 'S',
        }
    }

    pub fn symbol(self) -> char {
        match self {
            Suit::Clubs => '♣',
            Suit::Diamonds => '♦',
            Suit::Hearts => '♥',
            Suit::Spades => '♠',
        }
    }

    pub fn is_red(self) -> bool {
        matches!(self, Suit::Diamonds | Suit::Hearts)
    }

    /// Where this suit stands in `Suit::ALL` (clubs 0, diamonds 1, hearts 2, spades 3): the
    /// order of the index networks' suit outputs and of training labels.
    pub fn index(self) -> usize {
        match self {
            Suit::Clubs => 0,
            Suit::Diamonds => 1,
            Suit::Hearts => 2,
            Suit::Spades => 3,
        }
    }

    /// The other suit of this one's colour: clubs and spades, diamonds and hearts.
    pub fn other_of_colour(self) -> Suit {
        match self {
            Suit::Clubs => Suit::Spades,
            Suit::Spades => Suit::Clubs,
            Suit::Diamonds => Suit::Hearts,
            Suit::Hearts => Suit::Diamonds,
        }
    }

    fn from_char(c: char) -> Option<Suit> {
        match c.to_ascii_uppercase() {
            'C' | '♣' | '♧' => Some(Suit::Clubs),
            'D' | '♦' | '♢' => Some(Suit::Diamonds),
            'H' | '♥' | '♡' => Some(Suit::Hearts),
            'S' | '♠' | '♤' => Some(Suit::Spades),
            _ => None,
        }
    }
}

/// A rank, Ace to King. `value()` is 1 for the Ace and 13 for the King.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank(u8);

impl Rank {
    pub const ACE: Rank = Rank(1);
    pub const JACK: Rank = Rank(11);
    pub const QUEEN: Rank = Rank(12);
    pub const KING: Rank = Rank(13);

    /// Ace = 1 … King = 13; `None` outside that range.
    pub fn new(value: u8) -> Option<Rank> {
        (1..=13).contains(&value).then_some(Rank(value))
    }

    pub fn value(self) -> u8 {
        self.0
    }

    pub fn all() -> impl Iterator<Item = Rank> {
        (1..=13).map(Rank)
    }

    pub fn is_court(self) -> bool {
        self.0 >= 11
    }

    /// The canonical text: `A 2 … 10 J Q K`.
    pub fn code(self) -> &'static str {
        const CODES: [&str; 13] = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
        CODES[usize::from(self.0 - 1)]
    }

    fn parse(text: &str) -> Option<Rank> {
        let value = match text.to_ascii_uppercase().as_str() {
            "A" => 1,
            "T" | "10" => 10,
            "J" => 11,
            "Q" => 12,
            "K" => 13,
            digit if digit.len() == 1 => digit.parse::<u8>().ok().filter(|v| (2..=9).contains(v))?,
            _ => return None,
        };
        Some(Rank(value))
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

impl FromStr for Rank {
    type Err = CodeError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Rank::parse(s.trim()).ok_or_else(|| CodeError(s.to_string()))
    }
}

/// One card of the 52-card deck.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Card {
    pub rank: Rank,
    pub suit: Suit,
}

/// A text that is not a card code.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{}' is not a card code (expected a rank A 2-10 J Q K then a suit C D H S, e.g. QS or 10H)",
    crate::text_input::shortened(.0, 40)
)]
pub struct CodeError(pub String);

impl Card {
    pub fn new(rank: Rank, suit: Suit) -> Card {
        Card { rank, suit }
    }

    /// All 52 cards, suit by suit.
    pub fn deck() -> Vec<Card> {
        Suit::ALL.iter().flat_map(|&suit| Rank::all().map(move |rank| Card { rank, suit })).collect()
    }

    /// 0..52, suit-major; the inverse of `from_index`.
    pub fn index(self) -> usize {
        (self.suit as usize) * 13 + usize::from(self.rank.0 - 1)
    }

    pub fn from_index(index: usize) -> Option<Card> {
        let suit = *Suit::ALL.get(index / 13)?;
        Some(Card { rank: Rank((index % 13) as u8 + 1), suit })
    }

    pub fn is_red(self) -> bool {
        self.suit.is_red()
    }

    /// The canonical code, as writers use it: `10H`, `QS`.
    pub fn code(self) -> String {
        format!("{}{}", self.rank.code(), self.suit.letter())
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank.code(), self.suit.letter())
    }
}

impl FromStr for Card {
    type Err = CodeError;
    /// Reads `QS`, `10h`, `Td`, `A♠`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let text = s.trim();
        let err = || CodeError(s.to_string());
        let suit_char = text.chars().last().ok_or_else(err)?;
        let suit = Suit::from_char(suit_char).ok_or_else(err)?;
        let rank = Rank::parse(&text[..text.len() - suit_char.len_utf8()]).ok_or_else(err)?;
        Ok(Card { rank, suit })
    }
}

impl Serialize for Rank {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

impl<'de> Deserialize<'de> for Rank {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_suit_pairs_with_the_other_of_its_colour() {
        for suit in Suit::ALL {
            let other = suit.other_of_colour();
            assert_ne!(other, suit);
            assert_eq!(other.is_red(), suit.is_red());
            assert_eq!(other.other_of_colour(), suit);
        }
    }

    #[test]
    fn a_suit_s_index_is_its_place_in_all() {
        for (i, suit) in Suit::ALL.into_iter().enumerate() {
            assert_eq!(suit.index(), i);
        }
    }

    #[test]
    fn reads_every_spelling_the_spec_allows() {
        let ten_hearts = Card::new(Rank::new(10).unwrap(), Suit::Hearts);
        for text in ["10H", "10h", "TH", "th", "10♥", " 10H "] {
            assert_eq!(text.parse::<Card>(), Ok(ten_hearts), "{text}");
        }
        assert_eq!("A♠".parse::<Card>().unwrap().code(), "AS");
        assert_eq!("qd".parse::<Card>().unwrap().code(), "QD");
    }

    #[test]
    fn rejects_what_is_not_a_card() {
        for text in ["", "1H", "11H", "10", "ZS", "10X", "AS?"] {
            assert!(text.parse::<Card>().is_err(), "{text}");
        }
    }

    #[test]
    fn index_and_code_round_trip_over_the_deck() {
        let deck = Card::deck();
        assert_eq!(deck.len(), 52);
        for (i, card) in deck.iter().enumerate() {
            assert_eq!(card.index(), i);
            assert_eq!(Card::from_index(i), Some(*card));
            assert_eq!(card.code().parse::<Card>(), Ok(*card));
        }
        assert_eq!(Card::from_index(52), None);
    }

    #[test]
    fn serde_uses_the_canonical_code() {
        let card: Card = serde_json::from_str("\"Th\"").unwrap();
        assert_eq!(serde_json::to_string(&card).unwrap(), "\"10H\"");
    }
}
