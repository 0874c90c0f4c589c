//! The built-in "Cipher deck": 57 symbols named after cryptography, each with a Noto Emoji
//! picture (Apache-2.0, see `assets/cipher/README.md`), on the 57 cards of the projective plane
//! of order 7. The pictures are compiled into the binary, so the deck needs no files.

use super::deck::{Card, Deck, projective_plane};

/// One symbol of the Cipher deck.
#[derive(Clone, Copy, Debug)]
pub struct CipherSymbol {
    pub name: &'static str,
    pub synonyms: &'static [&'static str],
    /// The picture's file name in `assets/cipher/`, without `.svg`.
    pub picture: &'static str,
    /// The picture, an SVG document with a 128 x 128 view box.
    pub svg: &'static str,
}

macro_rules! symbol {
    ($name:literal, [$($syn:literal),*], $picture:literal) => {
        CipherSymbol {
            name: $name,
            synonyms: &[$($syn),*],
            picture: $picture,
            svg: include_str!(concat!("../../../assets/cipher/", $picture, ".svg")),
        }
    };
}

/// The symbols, in the order they are given to the points of the plane.
pub const SYMBOLS: [CipherSymbol; 57] = [
    symbol!("Alice", [], "woman-red-hair"),
    symbol!("Bob", [], "man-beard"),
    symbol!("Eve", ["Eavesdropper", "Ear"], "ear"),
    symbol!("Mallory", ["Ogre"], "ogre"),
    symbol!("Meet-in-the-Middle", ["MITM", "Handshake"], "handshake"),
    symbol!("Cloud", [], "cloud"),
    symbol!("Even-Mansour", ["Scales", "Balance"], "balance-scale"),
    symbol!("Enigma", ["Puzzle", "Puzzle piece"], "puzzle-piece"),
    symbol!("Key", [], "key"),
    symbol!("Lock", ["Padlock"], "locked"),
    symbol!("Salt", ["Salt shaker"], "salt"),
    symbol!("Hash", ["Waffle"], "waffle"),
    symbol!("Feistel", ["Ladder", "Feistel network"], "ladder"),
    symbol!("Nonce", ["Die", "Dice"], "game-die"),
    symbol!("Oracle", ["Random oracle", "Crystal ball"], "crystal-ball"),
    symbol!("Sponge", ["Keccak", "SHA-3"], "sponge"),
    symbol!("Seed", ["Seedling"], "seedling"),
    symbol!("Pepper", ["Chili"], "hot-pepper"),
    symbol!("Cookie", [], "cookie"),
    symbol!("Honeypot", ["Honey"], "honey-pot"),
    symbol!("Trojan Horse", ["Trojan", "Horse"], "horse-face"),
    symbol!("Bug", ["Ladybug", "Ladybird"], "lady-beetle"),
    symbol!("Firewall", ["Fire"], "fire"),
    symbol!("Shield", [], "shield"),
    symbol!("Certificate", ["Scroll"], "scroll"),
    symbol!("Token", ["Coin"], "coin"),
    symbol!("Bitcoin", ["Money bag", "Money"], "money-bag"),
    symbol!("Onion", ["Tor"], "onion"),
    symbol!("Spectre", ["Ghost"], "ghost"),
    symbol!("Heartbleed", ["Broken heart"], "broken-heart"),
    symbol!("Rainbow Table", ["Rainbow"], "rainbow"),
    symbol!("Birthday Attack", ["Birthday", "Cake"], "birthday-cake"),
    symbol!("Logic Bomb", ["Bomb"], "bomb"),
    symbol!("Zero Knowledge", ["ZK", "Monkey", "See no evil"], "see-no-evil-monkey"),
    symbol!("Quantum", ["Atom"], "atom-symbol"),
    symbol!("Backdoor", ["Door"], "door"),
    symbol!("Phishing", ["Fishing rod"], "fishing-pole"),
    symbol!("Botnet", ["Robot", "Bot"], "robot"),
    symbol!("Virus", ["Microbe"], "microbe"),
    symbol!("Diffie-Hellman", ["DH", "Palette", "Paint"], "artist-palette"),
    symbol!("Carrier Pigeon", ["Pigeon", "Dove"], "dove"),
    symbol!("Collision", ["Boom"], "collision"),
    symbol!("Merkle Tree", ["Merkle", "Tree"], "deciduous-tree"),
    symbol!("Blowfish", ["Pufferfish"], "blowfish"),
    symbol!("Serpent", ["Snake"], "snake"),
    symbol!("Rabbit", [], "rabbit-face"),
    symbol!("Grøstl", ["Groestl", "Potato"], "potato"),
    symbol!("Lucifer", ["Devil"], "smiling-face-with-horns"),
    symbol!("Bacon", [], "bacon"),
    symbol!("Pigpen", ["Pig"], "pig-face"),
    symbol!("Vigenère", ["Grapes"], "grapes"),
    symbol!("Secret Sharing", ["Shamir", "Pizza"], "pizza"),
    symbol!("Fault Attack", ["Lightning", "Zap"], "high-voltage"),
    symbol!("Whirlpool", ["Cyclone", "Spiral"], "cyclone"),
    symbol!("Trust Anchor", ["Anchor"], "anchor"),
    symbol!("Capture the Flag", ["CTF", "Flag"], "triangular-flag"),
    symbol!("Camellia", ["Hibiscus", "Flower"], "hibiscus"),
];

/// The name `deck shared --deck cipher` and match records use for this deck.
pub const NAME: &str = "cipher";

/// The Cipher deck: 57 cards of 8 symbols, cards numbered 1 to 57.
pub fn cipher_deck() -> Deck {
    let plane = projective_plane(7).expect("the plane of order 7 exists");
    let names = SYMBOLS.iter().map(|s| s.name.to_string()).collect();
    let cards: Vec<Card> = plane.cards().to_vec();
    let mut deck = Deck::new("Cipher deck", names, cards);
    for (i, s) in SYMBOLS.iter().enumerate() {
        deck.add_synonyms(i, s.synonyms.iter().map(|s| s.to_string()));
    }
    deck
}

/// The picture of a Cipher symbol, by exact name.
pub fn picture(name: &str) -> Option<&'static CipherSymbol> {
    SYMBOLS.iter().find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::names::{NameMatch, NameMatcher};

    #[test]
    fn deck_is_valid_with_the_required_symbols() {
        let deck = cipher_deck();
        assert!(deck.validate().is_empty());
        assert_eq!(deck.cards().len(), 57);
        for name in ["Meet-in-the-Middle", "Cloud", "Even-Mansour", "Bob", "Enigma"] {
            assert!(deck.symbol_id(name).is_some(), "{name} missing");
        }
    }

    #[test]
    fn pictures_are_distinct_svgs() {
        let mut pictures: Vec<&str> = SYMBOLS.iter().map(|s| s.picture).collect();
        pictures.sort_unstable();
        pictures.dedup();
        assert_eq!(pictures.len(), 57);
        assert!(SYMBOLS.iter().all(|s| s.svg.starts_with("<svg") && s.svg.contains("viewBox=\"0 0 128 128\"")));
    }

    /// Every spelling a player may use resolves to its own symbol and no other.
    #[test]
    fn names_and_synonyms_are_unambiguous() {
        let deck = cipher_deck();
        let matcher = NameMatcher::new(&deck);
        for (i, s) in SYMBOLS.iter().enumerate() {
            for spelling in std::iter::once(&s.name).chain(s.synonyms) {
                assert_eq!(matcher.resolve(spelling), NameMatch::Exact(i), "{spelling}");
            }
        }
        assert_eq!(matcher.resolve("meet in the middle"), NameMatch::Exact(4));
    }
}
