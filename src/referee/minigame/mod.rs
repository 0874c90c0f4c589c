//! The live mini-game referee: the piles seen by the camera, claims judged against the cards
//! that lay on them when the claim was made, the moves a right claim calls for checked, and the
//! game scored.
//!
//! Frames come in as round cards ([`RoundCard`]); claims come in with their time and wait until
//! the views around that time are known. Every change of state is an [`Event`], applied by
//! [`MiniGameReferee::apply`], so that a journal of events resumes the game exactly.

pub mod events;
pub mod piles;
pub mod rules;
pub mod views;

pub use events::{Compared, Event, Evidence, Move, Outcome};
pub use piles::{PileMap, PlaceName, RoundCard, Top};

use crate::symbols::deck::{CardId, Deck, SymbolId};
use crate::symbols::games::claim::seconds;
use crate::symbols::games::{GameKind, Seat};
use crate::symbols::names::{NameMatch, NameMatcher};
use rules::{Open, Pair};
use views::{View, Views};

/// A claim as made at the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatClaim {
    pub ms: u64,
    pub seat: Seat,
    pub called: String,
    /// The other player meant, when the called symbol is on several players' cards.
    pub target: Option<Seat>,
}

/// House rules and timing.
#[derive(Clone, Debug, PartialEq)]
pub struct MiniGameOptions {
    /// Claims this soon after a right claim are on the exchange already won.
    pub window_ms: u64,
    /// Cards counted against a player for each wrong call.
    pub penalty: u32,
    /// How long the piles must stay the same for a view to count.
    pub quiet_ms: u64,
    /// How long a view after a won exchange must stand to be judged on.
    pub after_win_ms: u64,
    /// How long after its time a claim waits for a covered pile to be seen again (or for a
    /// view after a won exchange); then it is answered on what was seen, so that one pile
    /// wrongly taken for covered holds up no other claim.
    pub wait_ms: u64,
    /// The Well: play on for places after the first player has emptied their pile.
    pub well_places: bool,
}

impl Default for MiniGameOptions {
    fn default() -> Self {
        MiniGameOptions {
            window_ms: 500,
            penalty: 0,
            quiet_ms: 250,
            after_win_ms: 500,
            wait_ms: 3000,
            well_places: false,
        }
    }
}

/// The referee of one mini-game.
#[derive(Clone)]
pub struct MiniGameReferee {
    kind: GameKind,
    deck: Deck,
    matcher: NameMatcher,
    names: Vec<String>,
    options: MiniGameOptions,
    piles: Option<PileMap>,
    /// Piles learnt from the deal, and since when they were seen the same.
    learning: Option<(u64, PileMap)>,
    views: Views,
    claims: Vec<SeatClaim>,
    /// The last right claim: when it was made and when the view it won began.
    won: Option<(u64, u64)>,
    expecting: Option<Move>,
    /// The Tower, The Poisoned Gift: cards each seat holds; Hot Potato: cards collected; The
    /// Well: cards given to the centre.
    cards: Vec<usize>,
    /// Hot Potato: cards in each seat's hand this round.
    hands: Vec<usize>,
    wrong_calls: Vec<u32>,
    /// The Well: seats in the order they emptied their piles.
    emptied: Vec<Seat>,
    over: bool,
    /// Places a move may have emptied, with the card it took: elsewhere a pile seen empty is
    /// covered (an arm over it), not empty.
    may_empty: Vec<(PlaceName, CardId)>,
    /// Claims judged up to this time (a resumed game skips them).
    judged_until: Option<u64>,
    last_frame: Option<u64>,
}

impl MiniGameReferee {
    pub fn new(kind: GameKind, deck: Deck, names: Vec<String>, options: MiniGameOptions) -> MiniGameReferee {
        let seats = names.len();
        let start = if matches!(kind, GameKind::Tower | GameKind::PoisonedGift) { 1 } else { 0 };
        MiniGameReferee {
            kind,
            matcher: NameMatcher::new(&deck),
            deck,
            names,
            views: Views::new(options.quiet_ms),
            options,
            piles: None,
            learning: None,
            claims: Vec::new(),
            won: None,
            expecting: None,
            cards: vec![start; seats],
            hands: vec![0; seats],
            wrong_calls: vec![0; seats],
            emptied: Vec::new(),
            over: false,
            may_empty: Vec::new(),
            judged_until: None,
            last_frame: None,
        }
    }

    /// The journal's first line.
    pub fn start_event(&self) -> Event {
        Event::Start { game: self.kind.code().to_string(), players: self.names.clone() }
    }

    pub fn kind(&self) -> GameKind {
        self.kind
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn piles(&self) -> Option<&PileMap> {
        self.piles.as_ref()
    }

    pub fn is_over(&self) -> bool {
        self.over
    }

    /// The last frame ruled on (after a resume: the journal's).
    pub fn last_frame(&self) -> Option<u64> {
        self.last_frame
    }

    /// Queues a claim; it is judged once the views around its time are known. Claims already
    /// judged before a resume are dropped.
    pub fn claim(&mut self, claim: SeatClaim) {
        if self.judged_until.is_some_and(|t| claim.ms <= t) {
            return;
        }
        let at = self.claims.partition_point(|c| c.ms <= claim.ms);
        self.claims.insert(at, claim);
    }

    /// One frame's round cards, at `ms`.
    pub fn observe(&mut self, frame: u64, ms: u64, cards: &[RoundCard]) -> Vec<Event> {
        let mut said = Vec::new();
        if self.piles.is_none() {
            let Some(map) = self.learn(ms, cards) else { return said };
            self.say(Event::Piles { piles: map.piles, radius: map.radius }, &mut said);
        }
        self.observe_tops(frame, ms, cards, &mut said);
        said
    }

    /// The piles, once the same layout of the deal has been seen for `quiet_ms`.
    fn learn(&mut self, ms: u64, cards: &[RoundCard]) -> Option<PileMap> {
        let Ok(map) = PileMap::learn(self.kind, self.names.len(), cards) else {
            self.learning = None;
            return None;
        };
        match &self.learning {
            Some((since, earlier)) if earlier.same_as(&map) => {
                (ms.saturating_sub(*since) >= self.options.quiet_ms).then_some(map)
            }
            _ => {
                self.learning = Some((ms, map));
                None
            }
        }
    }

    /// A frame seen again after a resume, before the journal's last frame: it only rebuilds the
    /// views that later claims are judged on.
    pub fn warm(&mut self, frame: u64, ms: u64, cards: &[RoundCard]) {
        let Some(piles) = &self.piles else { return };
        let mut tops = piles.tops(cards);
        self.covered_not_empty(&mut tops);
        if let Some(view) = self.views.push(frame, ms, tops).cloned() {
            self.refilled(&view);
        }
    }

    fn observe_tops(&mut self, frame: u64, ms: u64, cards: &[RoundCard], said: &mut Vec<Event>) {
        let Some(piles) = &self.piles else { return };
        let mut tops = piles.tops(cards);
        self.covered_not_empty(&mut tops);
        if let Some(view) = self.views.push(frame, ms, tops).cloned() {
            self.refilled(&view);
            self.on_view(&view, said);
        }
        self.judge_ready(false, said);
    }

    /// A pile no move has emptied is covered when nothing is seen on it.
    fn covered_not_empty(&self, tops: &mut piles::FrameTops) {
        for (place, top) in &mut tops.tops {
            if *top == Top::Empty && !self.may_empty.iter().any(|(p, _)| p == place) {
                *top = Top::Unread;
            }
        }
    }

    /// A new card settled on a pile a move emptied means it is no longer empty. (A settled view,
    /// not a frame: a card half lifted by a hand is sometimes misread for a frame.)
    fn refilled(&mut self, view: &View) {
        for (place, top) in &view.tops {
            if let Top::Card(c) = *top {
                self.may_empty.retain(|(p, moved)| p != place || *moved == c);
            }
        }
    }

    /// The source has ended: every claim left is judged on what was seen, and the game scored.
    pub fn finish(&mut self, ms: u64) -> Vec<Event> {
        let mut said = Vec::new();
        self.judge_ready(true, &mut said);
        if let Some(m) = self.expecting {
            let message = format!("card {} was never seen on {}", m.card, self.place_name(m.to));
            self.say(Event::WrongMove { ms, card: m.card, expected: m.to, seen: None, message }, &mut said);
        }
        if !self.over {
            self.say(self.over_event(ms), &mut said);
        }
        said
    }

    /// Applies one event to the referee's state: the one path by which the state changes, so
    /// that replaying a journal's events resumes the game.
    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::Start { .. } => {}
            Event::Piles { piles, radius } => self.piles = Some(PileMap { piles: piles.clone(), radius: *radius }),
            Event::Verdict { ms, seat, outcome, moves, view_ms, .. } => {
                self.judged_until = Some(self.judged_until.map_or(*ms, |t| t.max(*ms)));
                match outcome {
                    Outcome::Right => self.on_right(*ms, *seat, *moves, *view_ms),
                    Outcome::Wrong => self.wrong_calls[*seat] += 1,
                    _ => {}
                }
            }
            Event::Moved { .. } | Event::WrongMove { .. } => self.expecting = None,
            Event::Emptied { place, .. } => {
                if let PlaceName::Seat(seat) = place
                    && self.kind == GameKind::Well
                    && !self.emptied.contains(seat)
                {
                    self.emptied.push(*seat);
                }
            }
            Event::Round { seats, .. } => {
                self.hands.iter_mut().for_each(|h| *h = 0);
                for &s in seats {
                    self.hands[s] = 1;
                }
            }
            Event::Over { .. } => self.over = true,
            Event::Frame { frame } => self.last_frame = Some(*frame),
        }
    }

    fn on_right(&mut self, ms: u64, seat: Seat, moves: Option<Move>, view_ms: Option<u64>) {
        self.won = Some((ms, view_ms.unwrap_or(ms)));
        self.expecting = moves;
        let Some(m) = moves else { return };
        self.may_empty.push((m.from, m.card));
        match (self.kind, m.to) {
            (GameKind::Tower, _) => self.cards[seat] += 1,
            (GameKind::Well, _) => self.cards[seat] += 1,
            (GameKind::PoisonedGift, PlaceName::Seat(to)) => self.cards[to] += 1,
            (GameKind::HotPotato, PlaceName::Seat(to)) => {
                self.hands[to] += std::mem::take(&mut self.hands[seat]);
                let holding: Vec<Seat> = (0..self.hands.len()).filter(|&s| self.hands[s] > 0).collect();
                if let [winner] = holding[..] {
                    // The round's winner takes its cards off the table.
                    self.cards[winner] += std::mem::take(&mut self.hands[winner]);
                    self.may_empty.push((PlaceName::Seat(winner), m.card));
                }
            }
            _ => {}
        }
    }

    fn say(&mut self, event: Event, said: &mut Vec<Event>) {
        self.apply(&event);
        said.push(event);
    }

    /// A new settled view: the move awaited, piles emptied, a new round, the end of the game.
    fn on_view(&mut self, view: &View, said: &mut Vec<Event>) {
        let ms = view.since_ms;
        if let Some(m) = self.expecting {
            let seen = view.tops.iter().find(|t| t.1 == Top::Card(m.card)).map(|t| t.0);
            match seen {
                Some(place) if place == m.to => {
                    let message = format!("card {} moved to {}", m.card, self.place_name(m.to));
                    self.say(Event::Moved { ms, card: m.card, from: m.from, to: m.to, message }, said);
                }
                Some(place) if place != m.from => {
                    let message = format!(
                        "card {} should have gone to {}; it lies on {}",
                        m.card,
                        self.place_name(m.to),
                        self.place_name(place)
                    );
                    self.say(Event::WrongMove { ms, card: m.card, expected: m.to, seen: Some(place), message }, said);
                }
                _ => {}
            }
        }
        if self.expecting.is_some() || self.over {
            return;
        }
        self.check_piles(view, said);
    }

    fn check_piles(&mut self, view: &View, said: &mut Vec<Event>) {
        let ms = view.since_ms;
        let seats = self.names.len();
        match self.kind {
            GameKind::Tower | GameKind::PoisonedGift => {
                if view.top(PlaceName::Draw) == Top::Empty {
                    self.say(Event::Emptied { ms, place: PlaceName::Draw }, said);
                    self.say(self.over_event(ms), said);
                }
            }
            GameKind::Well => {
                for seat in 0..seats {
                    if view.top(PlaceName::Seat(seat)) == Top::Empty && !self.emptied.contains(&seat) {
                        self.say(Event::Emptied { ms, place: PlaceName::Seat(seat) }, said);
                    }
                }
                let done =
                    if self.options.well_places { self.emptied.len() + 1 >= seats } else { !self.emptied.is_empty() };
                if done {
                    self.say(self.over_event(ms), said);
                }
            }
            GameKind::HotPotato => {
                let dealt: Vec<Seat> =
                    (0..seats).filter(|&s| matches!(view.top(PlaceName::Seat(s)), Top::Card(_))).collect();
                if self.hands.iter().all(|&h| h == 0) && dealt.len() >= 2 {
                    self.say(Event::Round { ms, seats: dealt }, said);
                }
            }
        }
    }

    /// Judges the claims whose time the views now cover (all of them at the end).
    fn judge_ready(&mut self, at_end: bool, said: &mut Vec<Event>) {
        while let Some(claim) = self.claims.first().cloned() {
            // A claim waits until the frame of its moment is seen, or the source has ended.
            let seen = self.views.seen_until();
            if !at_end && seen.is_none_or(|seen| seen < claim.ms) {
                return;
            }
            let overdue = seen.is_some_and(|seen| seen >= claim.ms.saturating_add(self.options.wait_ms));
            let Some(event) = self.judge(&claim, at_end || overdue) else { return };
            self.claims.remove(0);
            self.say(event, said);
        }
    }

    /// The verdict on one claim, or `None` while the view it needs is still to come.
    fn judge(&self, claim: &SeatClaim, last_chance: bool) -> Option<Event> {
        let verdict = |outcome, compared, moves, view_ms, message| Event::Verdict {
            ms: claim.ms,
            seat: claim.seat,
            player: self.names.get(claim.seat).cloned().unwrap_or_default(),
            called: claim.called.clone(),
            outcome,
            compared,
            moves,
            view_ms,
            message,
        };
        if claim.seat >= self.names.len() {
            return Some(verdict(
                Outcome::NotAllowed,
                vec![],
                None,
                None,
                format!("seat {} is not playing", claim.seat + 1),
            ));
        }
        if let Some((won, _)) = self.won.filter(|&(t, _)| claim.ms < t.saturating_add(self.options.window_ms)) {
            let message = format!("too late: this exchange was won at {}", seconds(won));
            return Some(verdict(Outcome::TooLate, vec![], None, None, message));
        }
        if self.over {
            return Some(verdict(Outcome::NotAllowed, vec![], None, None, "the game is over".into()));
        }
        let symbol = match self.matcher.resolve(&claim.called) {
            NameMatch::Exact(s) | NameMatch::Typo(s) => s,
            NameMatch::Ambiguous(options) => {
                return Some(verdict(
                    Outcome::Ambiguous,
                    vec![],
                    None,
                    None,
                    self.matcher.ambiguity_question(&options),
                ));
            }
            NameMatch::Unknown => {
                let message = format!("no symbol is called \"{}\"", claim.called);
                return Some(verdict(Outcome::UnknownName, vec![], None, None, message));
            }
        };
        let Some(view) = self.view_for(claim.ms, last_chance) else {
            if last_chance {
                return Some(verdict(Outcome::CannotSee, vec![], None, None, "no settled view of the piles".into()));
            }
            return None;
        };
        // A place covered by a hand is read through it when the same card lies there before
        // and after; the claim waits for the hand to leave.
        let mut tops: Vec<(PlaceName, Top)> = Vec::new();
        for (place, top) in &view.tops {
            let top = match (top, self.views.bridge(view, *place)) {
                (Top::Unread, Some(bridged)) => bridged,
                (Top::Unread, None) if !last_chance => return None,
                (top, _) => *top,
            };
            tops.push((*place, top));
        }
        let top = |p: PlaceName| tops.iter().find(|t| t.0 == p).map_or(Top::Empty, |t| t.1);
        let mut open = rules::open(self.kind, self.names.len(), claim.seat, top);
        if let Some(target) = claim.target {
            open.retain(|o| match o {
                Open::Pair(p) => p.target == Some(target),
                Open::Unread(place) => *place == PlaceName::Seat(target) || *place == PlaceName::Draw,
            });
        }
        let pairs: Vec<Pair> =
            open.iter().filter_map(|o| if let Open::Pair(p) = o { Some(*p) } else { None }).collect();
        let mut unread: Vec<PlaceName> = Vec::new();
        for o in &open {
            // (The claimer's own pile is in every pair of Hot Potato: name it once.)
            if let Open::Unread(p) = o
                && !unread.contains(p)
            {
                unread.push(*p);
            }
        }
        let shared: Vec<(Pair, SymbolId)> =
            pairs.iter().filter_map(|p| Some((*p, self.deck.shared_symbol(p.left.1, p.right.1)?))).collect();
        let compared: Vec<Compared> = shared.iter().map(|(p, s)| self.compared(p, *s)).collect();
        let hits: Vec<&Pair> = shared.iter().filter(|(_, s)| *s == symbol).map(|(p, _)| p).collect();
        let name = self.deck.symbol_name(symbol).to_string();
        Some(match hits[..] {
            [hit] => {
                let (card, from, to) = rules::movement(self.kind, claim.seat, hit);
                let message = format!("right: {} share {name}", self.describe(hit));
                let moves = Some(Move { card, from, to });
                verdict(Outcome::Right, compared, moves, Some(view.since_ms), message)
            }
            [] if !unread.is_empty() => {
                let places: Vec<String> = unread.iter().map(|p| self.place_name(*p)).collect();
                verdict(Outcome::CannotSee, compared, None, None, format!("cannot see: {} not read", places.join(", ")))
            }
            [] if shared.is_empty() => {
                let message = format!("{} has no card to compare now", self.names[claim.seat]);
                verdict(Outcome::NotAllowed, compared, None, None, message)
            }
            [] => {
                let real: Vec<String> = shared
                    .iter()
                    .map(|(p, s)| format!("{} share {}", self.describe(p), self.deck.symbol_name(*s)))
                    .collect();
                verdict(Outcome::Wrong, compared, None, None, format!("wrong: {}, not {name}", real.join("; ")))
            }
            _ => {
                let whose: Vec<String> = hits.iter().filter_map(|p| p.target).map(|s| self.names[s].clone()).collect();
                let message = format!("ambiguous: {name} is on {}'s cards; say whose", whose.join(" and "));
                verdict(Outcome::Ambiguous, compared, None, None, message)
            }
        })
    }

    /// The view a claim at `ms` is judged on: the one standing then, unless its exchange was
    /// already won (the winner's hand was on its way), when it is the next view that differs.
    /// After a won exchange only views that stood [`MiniGameOptions::after_win_ms`] count: while
    /// a hand moves a card, an arm lying still over the piles for a moment settles a view that is
    /// not the table. On its last chance a claim takes the next view however long it stood.
    fn view_for(&self, ms: u64, last_chance: bool) -> Option<&View> {
        let standing = self.views.at(ms)?;
        let Some((_, won_view)) = self.won else { return Some(standing) };
        // The first view that may count: the standing one itself when it began after the win.
        let from = if standing.since_ms <= won_view { won_view } else { standing.since_ms - 1 };
        self.views
            .after(from, self.options.after_win_ms)
            .or_else(|| if last_chance { self.views.after(from, 0) } else { None })
    }

    fn compared(&self, pair: &Pair, shared: SymbolId) -> Compared {
        let evidence = |(place, card): (PlaceName, u32)| {
            let symbol_at =
                self.views.evidence(place, card).and_then(|e| e.symbols.iter().find(|s| s.0 == shared).map(|s| s.1));
            Evidence { place, card, symbol_at }
        };
        Compared {
            left: evidence(pair.left),
            right: evidence(pair.right),
            shared: self.deck.symbol_name(shared).into(),
        }
    }

    fn describe(&self, pair: &Pair) -> String {
        format!(
            "{}'s card {} and {}'s card {}",
            self.place_name(pair.left.0),
            pair.left.1,
            self.place_name(pair.right.0),
            pair.right.1
        )
    }

    /// "Alice", "the draw pile", "the centre".
    pub fn place_name(&self, place: PlaceName) -> String {
        match place {
            PlaceName::Draw => "the draw pile".into(),
            PlaceName::Centre => "the centre".into(),
            PlaceName::Seat(s) => self.names.get(s).cloned().unwrap_or_else(|| format!("seat {}", s + 1)),
        }
    }

    /// Places from first to last (equal scores share a place), as the game ranks them.
    pub fn ranking(&self) -> Vec<Vec<Seat>> {
        let seats = self.names.len();
        let penalty = |s: Seat| i64::from(self.wrong_calls[s]) * i64::from(self.options.penalty);
        let score = |s: Seat| -> i64 {
            match self.kind {
                GameKind::Tower => self.cards[s] as i64 - penalty(s),
                GameKind::HotPotato | GameKind::PoisonedGift => -(self.cards[s] as i64) - penalty(s),
                // Who emptied their pile first; the others share the last place.
                GameKind::Well => match self.emptied.iter().position(|&e| e == s) {
                    Some(k) => (seats - k) as i64 * 1000 - penalty(s),
                    None => -penalty(s),
                },
            }
        };
        let mut order: Vec<Seat> = (0..seats).collect();
        order.sort_by_key(|&s| std::cmp::Reverse(score(s)));
        let mut places: Vec<Vec<Seat>> = Vec::new();
        for seat in order {
            match places.last_mut() {
                Some(place) if score(place[0]) == score(seat) => place.push(seat),
                _ => places.push(vec![seat]),
            }
        }
        places
    }

    fn over_event(&self, ms: u64) -> Event {
        let places = self.ranking().iter().map(|p| p.iter().map(|&s| self.names[s].clone()).collect()).collect();
        Event::Over { ms, places, cards: self.cards.clone(), wrong_calls: self.wrong_calls.clone() }
    }

    /// The game's result for the match table.
    pub fn result(&self) -> crate::symbols::games::GameResult {
        crate::symbols::games::GameResult {
            kind: self.kind,
            places: self.ranking(),
            cards: self.cards.clone(),
            wrong_calls: self.wrong_calls.clone(),
        }
    }

    /// Notes the last frame ruled on (for the journal: a video resumes after it).
    pub fn frame_done(&mut self, frame: u64) -> Event {
        let event = Event::Frame { frame };
        self.apply(&event);
        event
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symbols::cipher::cipher_deck;

    fn card(id: CardId, x: f32, y: f32) -> RoundCard {
        RoundCard { card: Some(id), center: (x, y), radius: 80.0, symbols: Vec::new() }
    }

    fn verdict_at(events: &[Event], at: u64) -> Option<(Outcome, String)> {
        events.iter().find_map(|e| match e {
            Event::Verdict { ms, outcome, message, .. } if *ms == at => Some((*outcome, message.clone())),
            _ => None,
        })
    }

    /// The Poisoned Gift with 2 players: after a right claim an arm lies still over the draw
    /// pile and the claimer's pile for 300 ms while the card is carried; a claim made then is
    /// judged on the table after the move, not on that moment.
    #[test]
    fn a_view_after_a_won_exchange_counts_once_it_has_stood() {
        let deck = cipher_deck();
        let ids: Vec<CardId> = deck.cards().iter().map(|c| c.id).take(4).collect();
        let (a, b, c, d) = (ids[0], ids[1], ids[2], ids[3]);
        let name = |x, y| deck.symbol_name(deck.shared_symbol(x, y).unwrap()).to_string();
        let (first, second) = (name(a, c), name(d, b));
        let names = vec!["P1".to_string(), "P2".to_string()];
        let mut referee = MiniGameReferee::new(GameKind::PoisonedGift, deck, names, MiniGameOptions::default());
        referee.claim(SeatClaim { ms: 1000, seat: 0, called: first, target: None });
        referee.claim(SeatClaim { ms: 1550, seat: 1, called: second, target: None });
        let mut events = Vec::new();
        for k in 0..=30u64 {
            let ms = k * 100;
            let cards = match ms {
                0..=1000 => vec![card(a, 640.0, 360.0), card(b, 640.0, 600.0), card(c, 640.0, 110.0)],
                1100..=1400 => vec![card(c, 640.0, 110.0)],
                _ => vec![card(d, 640.0, 360.0), card(b, 640.0, 600.0), card(a, 640.0, 110.0)],
            };
            events.extend(referee.observe(k, ms, &cards));
        }
        assert_eq!(verdict_at(&events, 1000).map(|v| v.0), Some(Outcome::Right), "{events:?}");
        let (outcome, message) = verdict_at(&events, 1550).expect("judged before the end");
        assert_eq!(outcome, Outcome::Right, "{message}");
        assert!(message.contains(&format!("card {d}")), "{message}");
    }

    /// Hot Potato with 3 players: P1 gives their card to P2, and for one frame the card half
    /// lifted is misread as another. P1's pile is empty afterwards, not covered: a later claim is
    /// judged at once.
    #[test]
    fn a_card_misread_for_a_frame_does_not_make_an_emptied_pile_look_covered() {
        let deck = cipher_deck();
        let ids: Vec<CardId> = deck.cards().iter().map(|c| c.id).take(4).collect();
        let (a, b, c, misread) = (ids[0], ids[1], ids[2], ids[3]);
        let name = |x, y| deck.symbol_name(deck.shared_symbol(x, y).unwrap()).to_string();
        let (give, later) = (name(a, b), name(c, a));
        let dealt = [card(a, 640.0, 600.0), card(b, 300.0, 200.0), card(c, 980.0, 200.0)];
        let map = PileMap::learn(GameKind::HotPotato, 3, &dealt).unwrap();
        let at = |place| map.piles.iter().find(|p| p.place == place).unwrap().center;
        let (s0, s1, s2) = (at(PlaceName::Seat(0)), at(PlaceName::Seat(1)), at(PlaceName::Seat(2)));
        let names: Vec<String> = (1..=3).map(|k| format!("P{k}")).collect();
        let mut referee = MiniGameReferee::new(GameKind::HotPotato, deck, names, MiniGameOptions::default());
        let on = |id, p: (f32, f32)| card(id, p.0, p.1);
        referee.claim(SeatClaim { ms: 1000, seat: 0, called: give, target: Some(1) });
        referee.claim(SeatClaim { ms: 3000, seat: 2, called: later, target: Some(1) });
        let mut judged_at = None;
        for k in 0..=40u64 {
            let ms = k * 100;
            let cards = match ms {
                0..=1000 => vec![on(a, s0), on(b, s1), on(c, s2)],
                1100 => vec![on(misread, s0), on(b, s1), on(c, s2)],
                // Carried between the piles, then laid on P2's.
                1200..=1500 => vec![on(a, (640.0, 400.0)), on(b, s1), on(c, s2)],
                _ => vec![on(a, s1), on(c, s2)],
            };
            let events = referee.observe(k, ms, &cards);
            if let Some((outcome, message)) = verdict_at(&events, 3000) {
                assert_eq!(outcome, Outcome::Right, "{message}");
                judged_at = Some(ms);
            }
        }
        assert_eq!(judged_at, Some(3000), "judged on the frame of its moment");
    }
}
