//! What the table should look like for a game state, and how far a seen view is from it.
//! Front Rows are compared in placement order; Back Rows as sets (players keep them in any
//! order); the discard pile by its top card. A card the view could not read matches any card
//! (it is no evidence either way); a card read as another is a conflict.

use crate::cards::Card;
use crate::rules::omphala::{GameState, Phase};
use crate::table::{EntityView, Face, TableView};

/// One card as the rules expect it to lie.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpectedCard {
    pub face: Face,
    /// The card, when the table has seen it.
    pub card: Option<Card>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExpectedEntity {
    pub base: ExpectedCard,
    pub modifier: Option<ExpectedCard>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExpectedSeat {
    pub front: Vec<ExpectedEntity>,
    pub back: Vec<ExpectedEntity>,
}

/// The whole table as the rules expect it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    pub names: Vec<String>,
    pub seats: Vec<ExpectedSeat>,
    /// The cards that may be read on top of the discard pile, the engine's last first: those put
    /// there together last (an entity's base and modifier, laid in either order) and the cards
    /// under them (a pile's cards lie askew: the index of a card under the top may show beside
    /// it and be the one read).
    pub discard_tops: Vec<Card>,
    /// At the end (tie-break, standings) Front Row cards may lie face up: they are being shown.
    pub front_may_show: bool,
    /// Cards held out of their rows, face up, where the view should find them among its loose
    /// cards: an attacker slid forward while its attack is ruled.
    pub held: Vec<Card>,
    /// The modifiers of held cards. A Heart overlaps its base toward the seat, so a base slid a
    /// short way forward leaves its Heart over the row line: it may be seen loose beside its base
    /// or as a lone card in the row it left, and neither is a difference.
    pub carried: Vec<Card>,
    /// The seat whose drawn card the game waits to see: it may lie in their Back Row unread.
    pub drawing: Option<usize>,
}

/// How many cards under the last discarded group may show their index beside the top: two
/// cards discarded onto the same spot may both lie squarer than the one under them.
const PILE_SHOWS_UNDER: usize = 2;

/// The cards that may be read on top of the discard pile (see `Expected::discard_tops`).
pub(super) fn pile_tops(state: &GameState) -> Vec<Card> {
    let mut tops = state.discard_tops();
    let under = state.discard.iter().rev().skip(tops.len()).take(PILE_SHOWS_UNDER);
    tops.extend(under);
    tops
}

/// The table a state calls for: Front Row entities face down (a shield face down over its
/// base), Back Row entities face up (a Heart face up over its base).
pub fn expected(state: &GameState) -> Expected {
    let seats = state
        .players
        .iter()
        .map(|p| ExpectedSeat {
            front: p.front.iter().map(|e| entity(e, Face::Down)).collect(),
            back: p.back.iter().map(|e| entity(e, Face::Up)).collect(),
        })
        .collect();
    Expected {
        names: state.players.iter().map(|p| p.name.clone()).collect(),
        seats,
        discard_tops: pile_tops(state),
        front_may_show: matches!(state.phase, Phase::TieBreak(_) | Phase::Over(_)),
        held: Vec::new(),
        carried: Vec::new(),
        drawing: match crate::rules::omphala::awaited(state) {
            Some(crate::rules::omphala::Awaited::DrawnCard { player }) => Some(player),
            _ => None,
        },
    }
}

fn entity(e: &crate::rules::omphala::Entity, face: Face) -> ExpectedEntity {
    ExpectedEntity {
        base: ExpectedCard { face, card: e.card },
        modifier: e.modifier.map(|m| ExpectedCard { face, card: Some(m) }),
    }
}

impl Expected {
    /// The same table with one Front Row entity turned face up showing `card`: an attack's
    /// target as it lies while the attack is ruled, before the cards are moved.
    pub fn with_front_shown(&self, seat: usize, position: usize, card: Card) -> Expected {
        let mut shown = self.clone();
        if let Some(e) = shown.seats.get_mut(seat).and_then(|s| s.front.get_mut(position)) {
            e.base = ExpectedCard { face: Face::Up, card: Some(card) };
        }
        shown
    }
}

/// Differences found: counted always, put in words only when asked for.
struct Diff {
    count: usize,
    words: Option<Vec<String>>,
}

impl Diff {
    fn add(&mut self, say: impl FnOnce() -> String) {
        self.count += 1;
        if let Some(words) = &mut self.words {
            words.push(say());
        }
    }
}

impl Expected {
    /// Whether the table has `card` in a row (as a base or a modifier) or on the discard pile.
    pub fn places(&self, card: Card) -> bool {
        let rows = self.seats.iter().flat_map(|s| s.front.iter().chain(&s.back));
        let cards = rows.flat_map(|e| std::iter::once(e.base.card).chain(e.modifier.map(|m| m.card)));
        self.discard_tops.contains(&card) || cards.flatten().any(|c| c == card)
    }

    /// The same table with a Back Row entity of `seat` slid out of its row: the attacker while
    /// its attack on a face-down card is ruled.
    pub fn with_held_out(&self, seat: usize, card: Card) -> Expected {
        let mut held = self.clone();
        if let Some(s) = held.seats.get_mut(seat)
            && let Some(i) = s.back.iter().position(|e| e.base.card == Some(card))
        {
            let entity = s.back.remove(i);
            held.held.extend(entity.base.card);
            held.carried.extend(entity.modifier.and_then(|m| m.card));
        }
        held
    }
}

/// Where a view differs from the expected table, each difference in words
/// ("Bob's Back Row: 7H missing").
pub fn conflicts(expected: &Expected, view: &TableView) -> Vec<String> {
    conflicts_judged(expected, view, None)
}

/// `conflicts`, with a second back seen in `shielding`'s Front Row counted (see
/// `front_entity_conflicts`).
pub fn conflicts_judged(expected: &Expected, view: &TableView, shielding: Option<usize>) -> Vec<String> {
    let mut diff = Diff { count: 0, words: Some(Vec::new()) };
    compare(expected, view, shielding, &mut diff);
    diff.words.unwrap_or_default()
}

/// How many differences: 0 means the view is the expected table.
pub fn distance(expected: &Expected, view: &TableView) -> usize {
    distance_judged(expected, view, None)
}

/// `distance`, with a second back seen in `shielding`'s Front Row counted.
pub fn distance_judged(expected: &Expected, view: &TableView, shielding: Option<usize>) -> usize {
    let mut diff = Diff { count: 0, words: None };
    compare(expected, view, shielding, &mut diff);
    diff.count
}

fn compare(expected: &Expected, view: &TableView, shielding: Option<usize>, out: &mut Diff) {
    if view.seats.len() != expected.seats.len() {
        out.add(|| format!("the view has {} seats, the game {}", view.seats.len(), expected.seats.len()));
        return;
    }
    for (seat, (want, seen)) in expected.seats.iter().zip(&view.seats).enumerate() {
        let name = expected.names.get(seat).map_or("?", String::as_str);
        let row = FrontRow { name, may_show: expected.front_may_show, shielding: shielding == Some(seat) };
        front_conflicts(&row, &want.front, &seen.front, out);
        let back = BackRow { name, drawing: expected.drawing == Some(seat), carried: &expected.carried, view };
        back_conflicts(&back, &want.back, &seen.back, out);
    }
    let top = view.discard.filter(|c| c.face == Face::Up).and_then(|c| c.card);
    // A card held out of its row must be seen out of it: a row merely lacking it may be a row
    // misread (a slid card lying over its neighbour hides it, and its own index is read there).
    // Slid out beside the discard pile, it may lie over the pile and be read as its top.
    let held_on_pile = top.is_some_and(|t| expected.held.contains(&t));
    for card in &expected.held {
        if !view.loose.iter().any(|c| c.shown() == Some(*card)) && top != Some(*card) {
            out.add(|| format!("{card} should be held out of its row"));
        }
    }
    // A card lying loose that the game has in a row is not there: a card is in one place.
    for card in view.loose.iter().filter_map(|c| c.shown()) {
        if !expected.held.contains(&card) && !expected.carried.contains(&card) && expected.places(card) {
            out.add(|| format!("{card} lies out of its row"));
        }
    }
    match (expected.discard_tops.first(), view.discard, top) {
        _ if held_on_pile => {}
        // Discarded cards lie face up: a face-down card where the pile should be is the deck
        // (the fitted layout may put the pile's place over it), no discard.
        (None, Some(pile), _) if pile.face == Face::Up => out.add(|| "the discard pile should be empty".to_string()),
        (Some(want), _, Some(seen)) if !expected.discard_tops.contains(&seen) && !suit_misread(*want, seen) => {
            out.add(|| format!("the discard pile shows {seen} on top, not {want}"))
        }
        _ => {}
    }
}

/// Whether `seen` may be `known` read in another suit: the same rank. A suit is the reader's
/// likeliest mistake (a small index's spade and club, heart and diamond), and a pile's top lies
/// askew and half under a hand more than most: the card the game put there, read so, is no
/// difference. (A card drawn unseen and discarded onto its twin still explains the pile where
/// a draw is awaited: the search takes in a drawn card in sight.)
pub fn suit_misread(known: Card, seen: Card) -> bool {
    known.rank == seen.rank && known.suit != seen.suit
}

/// What a Front Row is compared in: its owner's name, whether its cards may lie face up (being
/// shown at the end), and whether a second back seen in it counts (`distance_judged`).
struct FrontRow<'a> {
    name: &'a str,
    may_show: bool,
    shielding: bool,
}

fn front_conflicts(row: &FrontRow, want: &[ExpectedEntity], seen: &[EntityView], out: &mut Diff) {
    for k in 0..want.len().max(seen.len()) {
        let slot = FrontSlot(row.name, k + 1);
        match (want.get(k), seen.get(k)) {
            (Some(_), None) => out.add(|| format!("{slot}: no card")),
            (None, Some(_)) => out.add(|| format!("{slot}: a card that should not be there")),
            (Some(w), Some(s)) => {
                // A target turned up under its shield may be split the other way round by the
                // row finder (the face-down shield taken as the base): either way is the entity.
                let swapped = s.modifier.map(|m| EntityView { base: m, modifier: Some(s.base) });
                let count = |e: &EntityView| {
                    let mut d = Diff { count: 0, words: None };
                    front_entity_conflicts(&slot, w, e, row, &mut d);
                    d.count
                };
                match swapped {
                    Some(other) if count(&other) < count(s) => front_entity_conflicts(&slot, w, &other, row, out),
                    _ => front_entity_conflicts(&slot, w, s, row, out),
                }
            }
            (None, None) => {}
        }
    }
}

fn front_entity_conflicts(slot: &FrontSlot, w: &ExpectedEntity, s: &EntityView, row: &FrontRow, out: &mut Diff) {
    let may_show = row.may_show;
    let shown = s.base.shown();
    match (s.base.face, w.base.face) {
        // A card seen face up but unread where a face-down one lies is no evidence either (as a
        // shield below): the reader takes a stack of backs for a face now and then, and a card
        // turned up counts only once it is read.
        (Face::Up, Face::Down) if shown.is_none() => {}
        (Face::Up, Face::Down) if may_show => {
            if let (Some(seen), Some(known)) = (shown, w.base.card)
                && seen != known
            {
                out.add(|| format!("{slot}: shows {seen}, known to be {known}"));
            }
        }
        (a, b) if a != b => out.add(|| format!("{slot}: face {}, expected face {}", word(a), word(b))),
        _ => {
            if let (Some(seen), Some(known)) = (shown, w.base.card)
                && seen != known
            {
                out.add(|| format!("{slot}: shows {seen}, expected {known}"));
            }
        }
    }
    // A second back seen under a face-down card where the game has none is no evidence: the row
    // finder sees one in the shadow at a row's end now and then (most often under a card just
    // retired there), and a shield is told by its Diamond leaving the Back Row. Under a card
    // dealt face down (its card unknown) in the row of the player whose turn it is in the
    // committed game (`distance_judged`), it may be a shield whose Diamond was drawn and laid
    // while the camera saw nothing, and it counts. A shield missing, or a face-up card laid on
    // a Front Row card, is a difference.
    let dealt_and_shieldable = row.shielding && w.base.card.is_none();
    match (w.modifier, s.modifier) {
        (Some(_), None) => out.add(|| format!("{slot}: its modifier is missing")),
        (None, Some(m)) if m.face == Face::Up || dealt_and_shieldable => {
            out.add(|| format!("{slot}: an unexpected modifier"))
        }
        // A shield seen face up but unread is no evidence: the reader takes a stack's top for a
        // face now and then, and a face-up card laid there would be read.
        (Some(wm), Some(m)) if m.face == Face::Up && m.card.is_some() && wm.face == Face::Down && !may_show => {
            out.add(|| format!("{slot}: its modifier face up, expected face down"))
        }
        _ => {}
    }
}

/// What a Back Row is compared in: its owner's name, whether they are drawing, the cards carried
/// with a held attacker, and the whole view.
struct BackRow<'a> {
    name: &'a str,
    drawing: bool,
    carried: &'a [Card],
    view: &'a TableView,
}

fn back_conflicts(row: &BackRow, want: &[ExpectedEntity], seen: &[EntityView], out: &mut Diff) {
    let BackRow { name, drawing, carried, view } = *row;
    let mut unmatched: Vec<&ExpectedEntity> = want.iter().collect();
    let mut unread = 0;
    for s in seen {
        if s.base.face == Face::Down {
            out.add(|| format!("{name}'s Back Row: a face-down card"));
            continue;
        }
        let Some(card) = s.base.card else {
            unread += 1;
            continue;
        };
        let Some(i) = unmatched.iter().position(|w| w.base.card == Some(card)) else {
            if carried.contains(&card) && s.modifier.is_none() {
                continue;
            }
            out.add(|| format!("{name}'s Back Row: {card} should not be there"));
            continue;
        };
        let w = unmatched.remove(i);
        match (w.modifier.and_then(|m| m.card), s.modifier) {
            (Some(m), None) => out.add(|| format!("{name}'s Back Row: {card} should carry {m}")),
            (None, Some(_)) => out.add(|| format!("{name}'s Back Row: {card} should carry nothing")),
            (Some(m), Some(sm)) => {
                // A modifier never leaves its base alone: read as another card while the known
                // one is nowhere else on the table, it is the known card misread.
                if let Some(seen) = sm.shown()
                    && seen != m
                    && shows_anywhere(view, m)
                {
                    out.add(|| format!("{name}'s Back Row: {card} carries {seen}, expected {m}"));
                }
            }
            _ => {}
        }
    }
    // Unread cards stand for any of the cards still unmatched.
    let missing = unmatched.len().saturating_sub(unread);
    for w in unmatched.iter().take(missing) {
        let card = w.base.card.map_or("?".to_string(), |c| c.to_string());
        out.add(|| format!("{name}'s Back Row: {card} missing"));
    }
    // The card a player drew lies face up in their row before it is read.
    let room = unmatched.len() + usize::from(drawing);
    if unread > room {
        out.add(|| format!("{name}'s Back Row: {} cards too many", unread - room));
    }
}

/// Whether `card` is read anywhere in `view`: in a row, loose, or on top of the discard pile.
fn shows_anywhere(view: &TableView, card: Card) -> bool {
    view.shown_cards().contains(&card)
}

/// "Bob's Front Row 2", written only when a difference is put in words.
struct FrontSlot<'a>(&'a str, usize);

impl std::fmt::Display for FrontSlot<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}'s Front Row {}", self.0, self.1)
    }
}

fn word(face: Face) -> &'static str {
    match face {
        Face::Up => "up",
        Face::Down => "down",
    }
}

/// The view a perfect camera would give of the expected table, laid out as `layout` places
/// cards: for tests, and for the renderer's ground truth.
pub fn ideal_view(expected: &Expected, layout: &crate::table::TableLayout) -> TableView {
    use crate::table::{CardView, SeatView};
    let card = |c: &ExpectedCard, at| CardView { face: c.face, card: c.card, centre: at };
    let row = |entities: &[ExpectedEntity], row: &crate::table::Row| {
        entities
            .iter()
            .enumerate()
            .map(|(k, e)| {
                let at = row.slot(k);
                EntityView { base: card(&e.base, at), modifier: e.modifier.map(|m| card(&m, row.modifier_at(at))) }
            })
            .collect()
    };
    let seats = expected
        .seats
        .iter()
        .zip(&layout.seats)
        .map(|(s, zones)| SeatView { front: row(&s.front, &zones.front), back: row(&s.back, &zones.back) })
        .collect();
    // A card held out lies between the rows and the middle of the table.
    let loose = expected
        .held
        .iter()
        .chain(&expected.carried)
        .map(|&c| CardView::up(c, crate::geometry::Pt::new(0.0, 0.0)))
        .collect();
    TableView {
        seats,
        deck: true,
        discard: expected.discard_tops.first().map(|&c| CardView::up(c, layout.discard.centre)),
        loose,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::omphala::notation::parse;
    use crate::rules::omphala::replay::replay;
    use crate::table::{CardView, TableLayout};

    /// Alice's KC destroyed Bob's first Front Row card, the 2D: both lie on the pile, the 2D on top.
    const ATTACKED: &str = "seat Alice front ? ? back 5H 9D 7S 2C KC\nseat Bob front ? ? back QS 4D 8H 6C 3S\n\
                                       first Alice\nAlice attack KC Bob 1\nBob revealed 1 2D\n";

    #[test]
    fn the_pile_s_top_read_in_another_suit_is_the_card_put_there() {
        let state = replay(&parse(ATTACKED).unwrap()).state;
        let want = expected(&state);
        assert_eq!(want.discard_tops.first(), Some(&"2D".parse().unwrap()));
        let mut view = ideal_view(&want, &TableLayout::standard(2));
        let pile = view.discard.expect("the pile is drawn").centre;
        view.discard = Some(CardView::up("2H".parse().unwrap(), pile));
        assert_eq!(distance(&want, &view), 0, "{:?}", conflicts(&want, &view));
        view.discard = Some(CardView::up("3D".parse().unwrap(), pile));
        assert_eq!(conflicts(&want, &view), ["the discard pile shows 3D on top, not 2D"]);
    }
}
