//! Projective-plane decks. The points of the plane PG(2, q) are the symbols and its lines are
//! the cards: two lines always meet in exactly one point, which is the game's rule. A plane of
//! order q has q^2 + q + 1 symbols and as many cards, each with q + 1 symbols.
//!
//! We build PG(2, q) over the finite field GF(q), so q must be a prime power (2, 3, 4, 5, 7, 8,
//! 9, 11, ...). No plane of order 6 exists, and none of order 10 (shown by exhaustive search);
//! no plane of non-prime-power order is known at all.

use super::field::{Field, prime_power};
use super::{Card, CardId, Deck};

/// The largest order we generate (a deck of 273 cards with 17 symbols each).
pub const MAX_PLANE_ORDER: usize = 16;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PlaneError {
    #[error("order {0} is too small: a symbol deck needs order 2 or more")]
    TooSmall(usize),
    #[error("order {0} is larger than {MAX_PLANE_ORDER}, the largest this generator builds")]
    TooLarge(usize),
    #[error("no projective plane of order {0} can be built here: {0} is not a prime power")]
    NotPrimePower(usize),
    #[error("cannot keep {keep} cards of a deck of {total}")]
    Subset { keep: usize, total: usize },
}

/// The orders from 2 to `max` that have a plane we can build.
pub fn plane_orders(max: usize) -> Vec<usize> {
    (2..=max.min(MAX_PLANE_ORDER)).filter(|&q| prime_power(q).is_some()).collect()
}

/// The deck of PG(2, order): symbols "S1".., cards numbered from 1.
pub fn projective_plane(order: usize) -> Result<Deck, PlaneError> {
    if order < 2 {
        return Err(PlaneError::TooSmall(order));
    }
    if order > MAX_PLANE_ORDER {
        return Err(PlaneError::TooLarge(order));
    }
    let field = Field::new(order).ok_or(PlaneError::NotPrimePower(order))?;
    let points = normalised_triples(order);
    let cards = points
        .iter()
        .enumerate()
        .map(|(i, line)| Card {
            id: (i + 1) as CardId,
            name: None,
            symbols: (0..points.len()).filter(|&p| incident(&field, line, &points[p])).collect(),
        })
        .collect();
    let symbols = (1..=points.len()).map(|i| format!("S{i}")).collect();
    Ok(Deck::new(format!("projective plane of order {order}"), symbols, cards))
}

/// The first `keep` cards of a deck: any subset of a valid deck is still valid. The commercial
/// game sells 55 of the 57 cards of the order-7 plane: `subset(&projective_plane(7)?, 55)`.
pub fn subset(deck: &Deck, keep: usize) -> Result<Deck, PlaneError> {
    let total = deck.cards().len();
    if keep == 0 || keep > total {
        return Err(PlaneError::Subset { keep, total });
    }
    let mut out = Deck::new(
        format!("{} ({keep} of {total} cards)", deck.name),
        deck.symbols().to_vec(),
        deck.cards()[..keep].to_vec(),
    );
    for s in 0..deck.symbols().len() {
        out.add_synonyms(s, deck.synonyms(s).iter().cloned());
    }
    Ok(out)
}

/// One representative of each 1-dimensional subspace of GF(q)^3: the first non-zero coordinate is 1.
/// Points and lines of the plane are both given by these triples.
fn normalised_triples(q: usize) -> Vec<[usize; 3]> {
    let mut out = Vec::with_capacity(q * q + q + 1);
    for y in 0..q {
        for z in 0..q {
            out.push([1, y, z]);
        }
    }
    for z in 0..q {
        out.push([0, 1, z]);
    }
    out.push([0, 0, 1]);
    out
}

/// Point p lies on line l when their dot product is zero in GF(q).
fn incident(field: &Field, l: &[usize; 3], p: &[usize; 3]) -> bool {
    let dot = (0..3).fold(0, |acc, i| field.add(acc, field.mul(l[i], p[i])));
    dot == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_up_to_eleven() {
        assert_eq!(plane_orders(11), vec![2, 3, 4, 5, 7, 8, 9, 11]);
    }

    #[test]
    fn rejects_impossible_orders() {
        assert_eq!(projective_plane(6), Err(PlaneError::NotPrimePower(6)));
        assert_eq!(projective_plane(10), Err(PlaneError::NotPrimePower(10)));
        assert_eq!(projective_plane(1), Err(PlaneError::TooSmall(1)));
        assert_eq!(projective_plane(17), Err(PlaneError::TooLarge(17)));
    }

    #[test]
    fn plane_sizes() {
        let deck = projective_plane(7).unwrap();
        assert_eq!(deck.cards().len(), 57);
        assert_eq!(deck.symbols().len(), 57);
        assert!(deck.cards().iter().all(|c| c.symbols.len() == 8));
        let small = subset(&deck, 55).unwrap();
        assert_eq!(small.cards().len(), 55);
        assert!(small.validate().is_empty());
        assert!(subset(&deck, 58).is_err());
    }
}
