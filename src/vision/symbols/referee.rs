//! The referee's check: two cards in view and a called symbol.

use super::identify::SymbolCardDetection;
use crate::symbols::deck::{CardId, Deck, SymbolId};

/// The answer to "these two cards share the called symbol".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefereeVerdict {
    /// The called symbol is the one the cards share.
    Correct { shared: SymbolId },
    /// It is not: the real shared symbol.
    Wrong { called: SymbolId, shared: SymbolId },
    /// One card (by id) is not recognised in view.
    CannotSee { card: CardId },
}

/// Checks a called symbol against cards `a` and `b`, which must be recognised among `seen`.
pub fn referee_check(
    deck: &Deck,
    seen: &[SymbolCardDetection],
    a: CardId,
    b: CardId,
    called: SymbolId,
) -> RefereeVerdict {
    for card in [a, b] {
        if !seen.iter().any(|d| d.card == Some(card)) {
            return RefereeVerdict::CannotSee { card };
        }
    }
    match deck.shared_symbol(a, b) {
        Some(shared) if shared == called => RefereeVerdict::Correct { shared },
        Some(shared) => RefereeVerdict::Wrong { called, shared },
        None => RefereeVerdict::CannotSee { card: b },
    }
}

/// The symbol two recognised detections share, by the deck (`None` unless both are identified).
pub fn shared_between(deck: &Deck, a: &SymbolCardDetection, b: &SymbolCardDetection) -> Option<SymbolId> {
    deck.shared_symbol(a.card?, b.card?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::deck::projective_plane;
    use crate::vision::symbols::detect::CardRegion;

    fn seen(card: CardId) -> SymbolCardDetection {
        SymbolCardDetection {
            card: Some(card),
            confidence: 1.0,
            region: CardRegion { center: (0.0, 0.0), axes: (1.0, 1.0), angle_deg: 0.0 },
            symbols: Vec::new(),
        }
    }

    #[test]
    fn correct_wrong_and_unseen() {
        let deck = projective_plane(3).unwrap();
        let (a, b) = (deck.cards()[0].id, deck.cards()[5].id);
        let shared = deck.shared_symbol(a, b).unwrap();
        let other = (0..deck.symbols().len()).find(|&s| s != shared).unwrap();
        let view = [seen(a), seen(b)];
        assert_eq!(referee_check(&deck, &view, a, b, shared), RefereeVerdict::Correct { shared });
        assert_eq!(referee_check(&deck, &view, a, b, other), RefereeVerdict::Wrong { called: other, shared });
        assert_eq!(referee_check(&deck, &view[..1], a, b, shared), RefereeVerdict::CannotSee { card: b });
    }
}
