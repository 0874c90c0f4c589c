//! The deal as the views show it. The deal is seen whole in one view (every seat's rows as
//! dealt), or, where hands were over the rows or the first move began as the deal settled, put
//! together: from one view with a card already slid out of its row (`first_moved`), or from
//! each seat's rows as first seen dealt (`DealSeen`). Who plays first is never seen: one deal
//! per seat, and the first moves tell them apart.

use crate::cards::Card;
use crate::geometry::Pt;
use crate::rules::omphala::input::SeatDeal;
use crate::rules::omphala::{Deal, Input, Observation};
use crate::table::{Face, SeatView, TableView};

/// The deal as the view shows it: every seat 2 face-down Front Row cards and 5 face-up Back Row
/// cards, all read and all different. Who plays first cannot be seen: one deal per seat, and
/// the first moves tell them apart. When no view shows the deal whole (the first player slid a
/// card out to attack as the deal settled), the deal as the first move left it (`first_moved`).
pub fn deals(view: &TableView, names: &[String]) -> Vec<Input> {
    if view.seats.len() < 2 || names.len() != view.seats.len() {
        return Vec::new();
    }
    let mut backs = Vec::new();
    for seat in &view.seats {
        let back: Vec<Card> = seat.back.iter().filter_map(|e| e.base.shown()).collect();
        if !laid_as_dealt(seat) || back.len() != 5 {
            backs.clear();
            break;
        }
        backs.push(back);
    }
    let candidates = if backs.is_empty() { first_moved(view) } else { vec![backs] };
    candidates.into_iter().flat_map(|backs| each_first(names, backs)).collect()
}

/// The deal of these Back Rows with each player first in turn.
fn each_first(names: &[String], backs: Vec<Vec<Card>>) -> Vec<Input> {
    let seats: Vec<SeatDeal> = names
        .iter()
        .zip(backs)
        .map(|(name, back)| SeatDeal { name: name.clone(), front: vec![None, None], back })
        .collect();
    (0..seats.len()).map(|first| Input::Observe(Observation::Deal(Deal { seats: seats.clone(), first }))).collect()
}

/// Each seat's Back Row as first seen dealt: 5 cards read face up, none carrying another. A
/// hand over one seat's rows (or a forearm the row finder takes for a card) may keep every view
/// from showing the whole deal at once while each seat shows its own part of it in turn.
#[derive(Clone, Debug, Default)]
pub struct DealSeen {
    backs: Vec<Option<Vec<Card>>>,
}

impl DealSeen {
    /// Takes in the seats a view shows dealt that no view showed dealt before.
    pub fn remember(&mut self, view: &TableView) {
        self.backs.resize(view.seats.len(), None);
        for (seat, kept) in view.seats.iter().zip(&mut self.backs) {
            let back: Vec<Card> =
                seat.back.iter().filter(|e| e.modifier.is_none()).filter_map(|e| e.base.shown()).collect();
            if kept.is_none() && seat.back.len() == 5 && back.len() == 5 {
                *kept = Some(back);
            }
        }
    }

    /// The deal put together from every seat's Back Row as first seen dealt, when each seat has
    /// shown one and no card lies in two of them.
    pub fn deals(&self, names: &[String]) -> Vec<Input> {
        let backs: Option<Vec<Vec<Card>>> = self.backs.iter().cloned().collect();
        let Some(backs) = backs.filter(|b| b.len() == names.len() && b.len() >= 2) else { return Vec::new() };
        if !all_different(backs.iter().flatten()) {
            return Vec::new();
        }
        each_first(names, backs)
    }
}

/// Most cards out of their rows a deal is looked for in (`first_moved`).
const MOST_OUT_OF_ROWS: usize = 2;

/// The deals a view may show once the first move has begun: each seat's Back Row cards read
/// face up (a Heart laid on another counts among them) and no more than a deal's 5, the cards
/// lying in no row making up what the rows lack, and at most 2 Front Row entities per seat
/// (a target may lie turned up). Each way of giving the loose cards back to the rows short of
/// them is one deal, a card going back where it lies along the row (slid out to attack, it
/// left its place straight ahead); only the search, which must explain the view from it with
/// legal moves, tells them apart.
fn first_moved(view: &TableView) -> Vec<Vec<Vec<Card>>> {
    let pile_shows = view.discard.is_some_and(|c| c.face == Face::Up);
    let loose: Vec<(Card, Pt)> = view.loose.iter().filter_map(|c| c.shown().map(|card| (card, c.centre))).collect();
    if pile_shows || loose.len() > MOST_OUT_OF_ROWS {
        return Vec::new();
    }
    let read_up = |c: &crate::table::CardView| c.face == Face::Up && c.card.is_some();
    let mut rows: Vec<Vec<(f64, Card)>> = Vec::new();
    let mut axes = Vec::new();
    for seat in &view.seats {
        let all_read = seat.back.iter().all(|e| read_up(&e.base) && e.modifier.as_ref().is_none_or(read_up));
        if !all_read || seat.front.len() > 2 {
            return Vec::new();
        }
        let axis = RowAxis::of(seat);
        let cards = seat.back.iter().flat_map(|e| {
            let along = axis.along(e.base.centre);
            std::iter::once(e.base).chain(e.modifier).filter_map(move |c| c.card.map(|card| (along, card)))
        });
        rows.push(cards.collect());
        axes.push(axis);
    }
    if rows.iter().any(|r| r.len() > 5) || rows.iter().map(|r| 5 - r.len()).sum::<usize>() != loose.len() {
        return Vec::new();
    }
    let mut found = Vec::new();
    give_back(&mut rows, &axes, &loose, &mut found);
    let mut out = Vec::new();
    for mut deal in found {
        if !all_different(deal.iter().flatten().map(|(_, c)| c)) {
            continue;
        }
        deal.iter_mut().for_each(|row| row.sort_by(|a, b| a.0.total_cmp(&b.0)));
        out.push(deal.into_iter().map(|row| row.into_iter().map(|(_, c)| c).collect()).collect());
    }
    out
}

/// Whether no card comes twice: a deal holds each card once.
fn all_different<'a>(cards: impl Iterator<Item = &'a Card>) -> bool {
    let mut seen = 0u64;
    cards.into_iter().all(|c| {
        let bit = 1u64 << c.index();
        let new = seen & bit == 0;
        seen |= bit;
        new
    })
}

/// Where cards lie along a seat's Back Row: measured from its first card toward its last.
struct RowAxis {
    from: Pt,
    to: Option<Pt>,
}

impl RowAxis {
    fn of(seat: &SeatView) -> RowAxis {
        let centres: Vec<Pt> = seat.back.iter().map(|e| e.base.centre).collect();
        let from = centres.first().copied().unwrap_or(Pt::new(0.0, 0.0));
        RowAxis { from, to: centres.last().copied().filter(|&to| to.distance(from) > 1.0) }
    }

    /// How far along the row `at` lies; with fewer than two cards to tell the row's direction,
    /// after all of them.
    fn along(&self, at: Pt) -> f64 {
        let Some(to) = self.to else { return if at == self.from { 0.0 } else { f64::MAX } };
        let (dx, dy) = (to.x - self.from.x, to.y - self.from.y);
        ((at.x - self.from.x) * dx + (at.y - self.from.y) * dy) / (dx * dx + dy * dy)
    }
}

/// Every way of putting `loose` into the rows short of 5 cards, each where it lies along the row.
fn give_back(
    rows: &mut Vec<Vec<(f64, Card)>>,
    axes: &[RowAxis],
    loose: &[(Card, Pt)],
    out: &mut Vec<Vec<Vec<(f64, Card)>>>,
) {
    let Some((&(card, at), rest)) = loose.split_first() else {
        out.push(rows.clone());
        return;
    };
    for seat in 0..rows.len() {
        if rows[seat].len() < 5 {
            rows[seat].push((axes[seat].along(at), card));
            give_back(rows, axes, rest, out);
            rows[seat].pop();
        }
    }
}

/// Whether a seat's rows lie as the deal leaves them: 2 face-down Front Row cards and 5 face-up
/// Back Row cards, none of them carrying another (read or not).
pub fn laid_as_dealt(seat: &SeatView) -> bool {
    let bare = |row: &[crate::table::EntityView], n: usize, face: Face| {
        row.len() == n && row.iter().all(|e| e.base.face == face && e.modifier.is_none())
    };
    bare(&seat.front, 2, Face::Down) && bare(&seat.back, 5, Face::Up)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{CardView, EntityView};

    fn card(name: &str) -> Card {
        name.parse().unwrap()
    }

    /// A seat's rows: 2 face-down Front Row cards and these Back Row cards, 72 mm apart along
    /// x from `x0` (a step of -72 runs the row the other way, as a seat across the table sees it).
    fn seat(back: &[&str], x0: f64, step: f64) -> SeatView {
        let down = |x: f64| EntityView::single(CardView::down(Pt::new(x, 100.0)));
        let up = |k: usize, c: &&str| EntityView::single(CardView::up(card(c), Pt::new(x0 + step * k as f64, 0.0)));
        SeatView { front: vec![down(0.0), down(72.0)], back: back.iter().enumerate().map(|(k, c)| up(k, c)).collect() }
    }

    fn names() -> Vec<String> {
        vec!["Alice".into(), "Bob".into()]
    }

    fn backs(inputs: &[Input]) -> Vec<Vec<Vec<Card>>> {
        inputs
            .iter()
            .filter_map(|i| match i {
                Input::Observe(Observation::Deal(d)) if d.first == 0 => {
                    Some(d.seats.iter().map(|s| s.back.clone()).collect())
                }
                _ => None,
            })
            .collect()
    }

    fn row(cards: &str) -> Vec<Card> {
        cards.split(' ').map(card).collect()
    }

    #[test]
    fn a_whole_deal_is_one_deal_per_first_player() {
        let view = TableView {
            seats: vec![
                seat(&["5H", "9D", "7S", "2C", "KC"], 0.0, 72.0),
                seat(&["QS", "4D", "8H", "6C", "3S"], 0.0, -72.0),
            ],
            ..TableView::default()
        };
        let deals = deals(&view, &names());
        assert_eq!(deals.len(), 2);
        assert_eq!(backs(&deals), [vec![row("5H 9D 7S 2C KC"), row("QS 4D 8H 6C 3S")]]);
    }

    #[test]
    fn a_card_slid_out_goes_back_where_it_lies_along_its_row() {
        // Bob's row runs toward -x: his third card (8H) slid out straight ahead of its slot.
        let mut view = TableView {
            seats: vec![seat(&["5H", "9D", "7S", "2C", "KC"], 0.0, 72.0), seat(&["QS", "4D", "6C", "3S"], 0.0, -72.0)],
            ..TableView::default()
        };
        view.seats[1].back[2].base.centre.x = -216.0;
        view.seats[1].back[3].base.centre.x = -288.0;
        view.loose.push(CardView::up(card("8H"), Pt::new(-144.0, -60.0)));
        assert_eq!(backs(&deals(&view, &names())), [vec![row("5H 9D 7S 2C KC"), row("QS 4D 8H 6C 3S")]]);
    }

    #[test]
    fn loose_cards_are_given_back_every_way_the_short_rows_allow() {
        let mut view = TableView {
            seats: vec![seat(&["5H", "9D", "7S", "2C"], 0.0, 72.0), seat(&["QS", "4D", "8H", "6C"], 0.0, -72.0)],
            ..TableView::default()
        };
        view.loose = vec![CardView::up(card("KC"), Pt::new(400.0, 0.0)), CardView::up(card("3S"), Pt::new(400.0, 0.0))];
        assert_eq!(backs(&deals(&view, &names())).len(), 2, "KC to Alice and 3S to Bob, or the other way");
        // A third card out of its rows is more than a first move leaves: no deal.
        view.seats[0].back.pop();
        view.loose.push(CardView::up(card("2C"), Pt::new(400.0, 0.0)));
        assert!(deals(&view, &names()).is_empty());
    }

    #[test]
    fn no_deal_with_a_card_twice_or_a_card_on_the_pile() {
        let mut view = TableView {
            seats: vec![seat(&["5H", "9D", "7S", "2C"], 0.0, 72.0), seat(&["QS", "4D", "8H", "6C", "3S"], 0.0, -72.0)],
            ..TableView::default()
        };
        view.loose = vec![CardView::up(card("3S"), Pt::new(400.0, 0.0))];
        assert!(deals(&view, &names()).is_empty(), "3S read in Bob's row and loose");
        view.loose = vec![CardView::up(card("KC"), Pt::new(400.0, 0.0))];
        assert_eq!(deals(&view, &names()).len(), 2);
        view.discard = Some(CardView::up(card("JD"), Pt::new(0.0, 0.0)));
        assert!(deals(&view, &names()).is_empty(), "a card discarded: more than the first move");
    }

    #[test]
    fn each_seat_is_remembered_as_first_seen_dealt() {
        let alice = seat(&["5H", "9D", "7S", "2C", "KC"], 0.0, 72.0);
        let bob = seat(&["QS", "4D", "8H", "6C", "3S"], 0.0, -72.0);
        let mut seen = DealSeen::default();
        let mut covered = bob.clone();
        covered.back.truncate(3);
        seen.remember(&TableView { seats: vec![alice.clone(), covered], ..TableView::default() });
        assert!(seen.deals(&names()).is_empty(), "Bob's row not seen dealt yet");
        let mut drawn = alice.clone();
        drawn.back.push(EntityView::single(CardView::up(card("4S"), Pt::new(360.0, 0.0))));
        seen.remember(&TableView { seats: vec![drawn, bob], ..TableView::default() });
        assert_eq!(backs(&seen.deals(&names())), [vec![row("5H 9D 7S 2C KC"), row("QS 4D 8H 6C 3S")]]);
    }
}
