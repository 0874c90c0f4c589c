//! Which card is this? Decoding a card from the symbols that vision recognised on it, some of
//! which may be missing or wrong.
//!
//! Every card gets one vote per recognised symbol it shows. In a valid deck two cards share one
//! symbol, so with t correct and w wrong symbols the true card gets at least t votes and any other
//! card at most 1 + w: the true card wins whenever t > w + 1 (for instance 5 correct of 8).
//! In particular any two correct symbols and nothing wrong fix the card, as two points fix a line.

use super::{CardId, Deck, SymbolId};

/// The card that best explains the recognised symbols.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    pub card: CardId,
    /// (votes of the winner - votes of the runner-up) / number of distinct recognised symbols, in
    /// 0..=1: how much of the evidence points to this card rather than to its nearest rival.
    pub confidence: f64,
    /// Recognised symbols that are on the card.
    pub matched: Vec<SymbolId>,
    /// Recognised symbols that are not on the card (wrongly recognised).
    pub unexpected: Vec<SymbolId>,
}

/// Decodes a card from recognised symbols (duplicates are counted once). `None` when nothing was
/// recognised, or when two cards explain the evidence equally well.
pub fn decode(deck: &Deck, recognised: &[SymbolId]) -> Option<Decoded> {
    let mut seen: Vec<SymbolId> = recognised.iter().copied().filter(|&s| s < deck.symbols().len()).collect();
    seen.sort_unstable();
    seen.dedup();
    if seen.is_empty() {
        return None;
    }
    let mut votes: Vec<(usize, CardId)> =
        deck.cards().iter().map(|c| (seen.iter().filter(|&&s| c.has(s)).count(), c.id)).collect();
    // Most votes first; equal votes by id so the result does not depend on the deck's order.
    votes.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let (best, card) = votes[0];
    let runner_up = votes.get(1).map_or(0, |v| v.0);
    if best == 0 || best == runner_up {
        return None;
    }
    let on_card = deck.card(card)?;
    let (matched, unexpected) = seen.iter().partition(|&&s| on_card.has(s));
    Some(Decoded { card, confidence: (best - runner_up) as f64 / seen.len() as f64, matched, unexpected })
}

#[cfg(test)]
mod tests {
    use super::super::projective_plane;
    use super::*;

    #[test]
    fn two_correct_symbols_fix_the_card() {
        let deck = projective_plane(7).unwrap();
        let card = &deck.cards()[20];
        let got = decode(&deck, &card.symbols[3..5]).unwrap();
        assert_eq!(got.card, card.id);
        assert_eq!(got.matched.len(), 2);
    }

    #[test]
    fn one_symbol_is_ambiguous() {
        let deck = projective_plane(7).unwrap();
        assert_eq!(decode(&deck, &deck.cards()[0].symbols[..1]), None);
        assert_eq!(decode(&deck, &[]), None);
    }

    #[test]
    fn wrong_symbols_are_outvoted() {
        let deck = projective_plane(7).unwrap();
        let card = &deck.cards()[5];
        let wrong: Vec<SymbolId> = (0..57).filter(|s| !card.has(*s)).take(3).collect();
        let mut seen = card.symbols[..5].to_vec();
        seen.extend(&wrong);
        let got = decode(&deck, &seen).unwrap();
        assert_eq!(got.card, card.id);
        assert_eq!(got.unexpected, wrong);
        assert!(got.confidence > 0.0 && got.confidence <= 1.0);
        let all = decode(&deck, &card.symbols).unwrap();
        assert_eq!(all.confidence, 7.0 / 8.0);
    }
}
