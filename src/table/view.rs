//! A view of the table placed in rows: per seat, the Front Row in placement order (left to right
//! as the seat sees it) and the Back Row, each a list of entities (a card and the modifier
//! overlapping it), plus the deck and the top of the discard pile. This is what the referee
//! compares with what the rules predict.

use serde::{Deserialize, Serialize};

use crate::cards::Card;
use crate::geometry::Pt;

/// Face up or face down.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Face {
    Up,
    Down,
}

impl From<crate::vision::cards::Face> for Face {
    fn from(face: crate::vision::cards::Face) -> Face {
        match face {
            crate::vision::cards::Face::Up => Face::Up,
            crate::vision::cards::Face::Down => Face::Down,
        }
    }
}

/// One physical card as the settled view sees it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CardView {
    pub face: Face,
    /// Face up: the card read (`None` when unread). Face down: the card this physical card was
    /// last seen as, if the view followed it since it was face up; else `None`.
    pub card: Option<Card>,
    /// Centre on the table, millimetres.
    pub centre: Pt,
}

impl CardView {
    pub fn up(card: Card, centre: Pt) -> CardView {
        CardView { face: Face::Up, card: Some(card), centre }
    }

    pub fn down(centre: Pt) -> CardView {
        CardView { face: Face::Down, card: None, centre }
    }

    /// The identity the view is sure of now: the reading of a face-up card.
    pub fn shown(&self) -> Option<Card> {
        match self.face {
            Face::Up => self.card,
            Face::Down => None,
        }
    }
}

/// A card with at most one modifier overlapping its lower part.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EntityView {
    pub base: CardView,
    pub modifier: Option<CardView>,
}

impl EntityView {
    pub fn single(base: CardView) -> EntityView {
        EntityView { base, modifier: None }
    }
}

/// One seat's two rows, each in order along the row (Front Row: placement order).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeatView {
    pub front: Vec<EntityView>,
    pub back: Vec<EntityView>,
}

impl TableView {
    /// Every card read face up in the view: in the rows, on the discard pile and loose.
    pub fn shown_cards(&self) -> Vec<Card> {
        let rows = self.seats.iter().flat_map(|s| s.front.iter().chain(&s.back));
        let cards = rows.flat_map(|e| std::iter::once(&e.base).chain(&e.modifier));
        cards.chain(&self.discard).chain(&self.loose).filter_map(CardView::shown).collect()
    }

    /// Whether `seat`'s Back Row shows `card` read face up as one of its bases.
    pub fn back_row_shows(&self, seat: usize, card: Card) -> bool {
        self.seats.get(seat).is_some_and(|s| s.back.iter().any(|e| e.base.shown() == Some(card)))
    }

    /// The same view with every position cleared: what lies where in the rows, which way up,
    /// read as what. Two settlings of one table differ by a millimetre here and there; their
    /// skeletons are equal.
    pub fn skeleton(&self) -> TableView {
        let mut out = self.clone();
        let clear = |c: &mut CardView| c.centre = Pt::new(0.0, 0.0);
        for e in out.seats.iter_mut().flat_map(|s| s.front.iter_mut().chain(s.back.iter_mut())) {
            clear(&mut e.base);
            if let Some(m) = &mut e.modifier {
                clear(m);
            }
        }
        out.discard.iter_mut().chain(out.loose.iter_mut()).for_each(clear);
        out
    }
}

/// Everything placed: the seats in seat order, the deck, the discard pile, and the cards that lie
/// in no zone (held, dropped between rows): those are reported, never guessed into a row.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TableView {
    pub seats: Vec<SeatView>,
    /// Whether a face-down pile lies in the deck's zone.
    pub deck: bool,
    /// The top card of the discard pile, if one lies there.
    pub discard: Option<CardView>,
    /// Cards outside every zone.
    pub loose: Vec<CardView>,
}
