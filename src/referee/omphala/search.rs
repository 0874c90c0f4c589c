//! Which inputs explain a change of the table. From a game state, inputs are tried breadth
//! first: the legal actions of the player to act, and the observations the engine waits for as
//! the view supplies them (the card a player drew is a new face-up card in their Back Row; a
//! revealed card is a face-up card at the awaited Front Row position). An action is followed only
//! where it brings the predicted table nearer the view, or where it is invisible until its
//! observation (a draw, an attack on a face-down card, the end of a turn, an end by agreement
//! that a tie-break reveal follows). The explanations kept are the shortest ones that predict
//! the view exactly, and the ones a few inputs longer that tell another story (`beyond`).

use super::expect::{Expected, conflicts_judged, distance_judged, expected};
use crate::cards::{Card, Suit};
use crate::rules::omphala::state::Pending;
use crate::rules::omphala::{Action, Awaited, GameState, Input, Observation, Phase, actor, apply, awaited};
use crate::table::TableView;

/// How far the search looks: the longest chain of inputs one change of the table may need, and
/// the nodes tried per hypothesis and view before it gives up.
#[derive(Clone, Copy, Debug)]
pub struct Reach {
    pub depth: usize,
    pub nodes: usize,
    /// Whether one draw nobody saw may stand in an explanation (`unseen`).
    pub unseen_draw: bool,
}

/// One move between settled views: an end of turn, its draws, the next player's draw before
/// the turn and an action fit.
pub const NEAR: Reach = Reach { depth: 7, nodes: 4000, unseen_draw: false };
/// Several moves between settled views (a view missed while hands moved): tried only on a view
/// the near search could not explain that is still there a moment later (a view between two
/// moves of one hand passes quickly).
/// A card drawn and discarded while the camera was stalled is never seen: the far search lets
/// one draw stand unseen, and the operator names its card.
pub const FAR: Reach = Reach { depth: 14, nodes: 15_000, unseen_draw: true };

/// A way the game may stand: the state after some inputs not yet committed, and the table as
/// the players may still show it while they carry out what a ruling asks (a revealed target
/// lying face up until the cards are moved).
#[derive(Clone, Debug)]
pub struct Hypothesis {
    pub state: GameState,
    pub inputs: Vec<Input>,
    pub lag: Vec<Expected>,
    /// The stand-in card of a draw nobody saw, left for the operator to name
    /// (`stand_ins`): such an explanation is only ever put to the operator.
    pub unseen: Option<Card>,
    /// The player whose turn it is in the committed game: the one who may have laid a shield
    /// nobody saw drawn (`expect::distance_judged`); set by the referee before each search.
    pub shielder: Option<usize>,
}

impl Hypothesis {
    pub fn new(state: GameState) -> Hypothesis {
        Hypothesis { state, inputs: Vec::new(), lag: Vec::new(), unseen: None, shielder: None }
    }

    /// The table this state calls for. While an attack awaits its target's reveal the attacker
    /// lies slid out of its row: the game without the attack is another hypothesis.
    fn table(&self) -> Expected {
        let table = expected(&self.state);
        match self.state.pending {
            Pending::Reveal(attack) => table.with_held_out(attack.attacker, attack.with),
            _ => table,
        }
    }

    /// Whether the view is this hypothesis's table (or the table it may still lag at).
    pub fn matches(&self, view: &TableView) -> bool {
        self.distance(view) == 0
    }

    /// Where the view differs from this hypothesis's table, in words (`expect::conflicts`).
    pub fn conflicts(&self, view: &TableView) -> Vec<String> {
        conflicts_judged(&self.table(), view, self.shielder)
    }

    pub fn distance(&self, view: &TableView) -> usize {
        let now = distance_judged(&self.table(), view, self.shielder);
        if now == 0 {
            return 0;
        }
        self.lag.iter().map(|lag| distance_judged(lag, view, self.shielder)).fold(now, usize::min)
    }
}

/// The input chains from `start` that explain `view`, each as the hypothesis it leads to (inputs
/// appended to `start.inputs`): the shortest ones, and the ones a little longer that tell
/// another story (`beyond`). Empty when nothing within reach explains it.
/// `shown_before` holds Front Row cards seen turned up (seat, position, card) while no
/// explanation held: a target whose reveal the table no longer shows (destroyed, under its
/// shield on the discard pile).
pub fn explain(
    start: &Hypothesis,
    view: &TableView,
    names: &[String],
    first: Option<usize>,
    reach: Reach,
    shown_before: &[(usize, usize, Card)],
) -> Vec<Hypothesis> {
    let mut frontier = vec![start.clone()];
    let mut tried = 0;
    let mut found: Vec<Hypothesis> = Vec::new();
    let mut shortest = 0;
    // The search goes past its depth only for the longer stories `beyond` keeps.
    let mut last = reach.depth;
    for depth in 0.. {
        let (mut goals, rest): (Vec<Hypothesis>, Vec<Hypothesis>) =
            frontier.into_iter().partition(|h| is_goal(h, view));
        // Once the table shows the ruling carried out, the in-between table is over.
        for goal in &mut goals {
            if distance_judged(&expected(&goal.state), view, goal.shielder) == 0 {
                goal.lag.clear();
            }
        }
        let shortest_now = found.is_empty();
        if let (true, Some(goal)) = (shortest_now, goals.first()) {
            last = depth + beyond(&goal.state);
        }
        for goal in goals {
            if found.iter().any(|f| same_but_passes(f, &goal)) {
                continue;
            }
            // A longer story is kept only where it tells the shortest moves in another order or
            // split into other turns; one with moves more (an attack that left no trace) is not.
            if shortest_now || found[..shortest].iter().any(|f| same_moves(f, &goal)) {
                found.push(goal);
            }
        }
        if shortest_now {
            shortest = found.len();
        }
        if depth >= last {
            break;
        }
        // A goal is not followed further: a longer chain through it only adds passes or moves
        // the table does not show yet.
        let mut next = Vec::new();
        for node in &rest {
            for child in children(node, view, names, first, reach, shown_before) {
                tried += 1;
                next.push(child);
            }
        }
        if next.is_empty() || tried > reach.nodes {
            break;
        }
        frontier = dedupe(next);
    }
    dedupe(found)
}

/// How many inputs past the shortest explanation another one may take and still be kept: one
/// (a draw taken as an action, then the end of the turn, shows the table that ending the turn
/// and drawing shows), and with an empty deck a round of passes (which leaves no trace: two
/// players' moves seen at once may lie either side of it).
fn beyond(state: &GameState) -> usize {
    if state.deck == 0 { state.players.len().max(1) } else { 1 }
}

/// Whether two explanations hold the same moves in any order, leaving aside what only splits
/// the turns (ends of turn, a draw taken as an action: its card is drawn either way).
fn same_moves(a: &Hypothesis, b: &Hypothesis) -> bool {
    let moves = |h: &Hypothesis| -> Vec<Input> {
        h.inputs
            .iter()
            .filter(|i| !matches!(i, Input::Act { action: Action::EndTurn | Action::Draw, .. }))
            .cloned()
            .collect()
    };
    let (a, mut b) = (moves(a), moves(b));
    a.len() == b.len()
        && a.iter().all(|input| match b.iter().position(|other| other == input) {
            Some(k) => {
                b.swap_remove(k);
                true
            }
            None => false,
        })
}

fn visible(h: &Hypothesis) -> Vec<&Input> {
    h.inputs.iter().filter(|i| !matches!(i, Input::Act { action: Action::EndTurn, .. })).collect()
}

/// Whether two explanations differ only by passes (ends of turn). With an empty deck a pass
/// leaves no trace, and one explanation with fewer passes can always be made into the other
/// by passing later: the referee keeps the one with the fewest.
pub fn same_but_passes(a: &Hypothesis, b: &Hypothesis) -> bool {
    visible(a) == visible(b)
}

/// A node explains the view when the view is its table and it does not still owe an
/// observation the view already shows (a drawn card in sight must be taken in).
fn is_goal(h: &Hypothesis, view: &TableView) -> bool {
    h.matches(view) && observations(&h.state, view, &[], &[]).is_empty()
}

/// Keeps one hypothesis per distinct state, in-between table and record (passes aside; the
/// first found: inputs are tried in a stable order, cards along a row from its start). Two
/// records that reach the same state stay apart: an attack that destroyed an unknown card at
/// position 1 or 2 leaves the same rows, and only a question may tell which it was.
fn dedupe(nodes: Vec<Hypothesis>) -> Vec<Hypothesis> {
    let mut kept: Vec<Hypothesis> = Vec::new();
    for node in nodes {
        // A failed attack leaves the same state whoever attacked: the table in between (which
        // card was slid forward) tells them apart.
        if !kept.iter().any(|k| k.state == node.state && k.lag == node.lag && same_but_passes(k, &node)) {
            kept.push(node);
        }
    }
    kept
}

fn children(
    node: &Hypothesis,
    view: &TableView,
    names: &[String],
    first: Option<usize>,
    reach: Reach,
    shown_before: &[(usize, usize, Card)],
) -> Vec<Hypothesis> {
    let mut out = Vec::new();
    let here = node.distance(view);
    if awaited(&node.state).is_some() {
        let seen = observations(&node.state, view, names, shown_before);
        // A card in sight may be a later draw: the one awaited now may have been laid at once
        // (a Diamond shielding) before the next was drawn.
        if reach.unseen_draw {
            out.extend(unseen_draws(node, view));
        }
        for input in seen {
            if let (Some(first), Input::Observe(Observation::Deal(deal))) = (first, &input)
                && deal.first != first
            {
                continue;
            }
            if let Some(child) = step(node, input) {
                out.push(child);
            }
        }
        return out;
    }
    let Some(player) = actor(&node.state) else {
        return out;
    };
    let mut nudged = false;
    for action in crate::rules::omphala::legal_actions(&node.state) {
        let Some(mut child) = step(node, Input::Act { player, action }) else {
            continue;
        };
        // An attack on a face-down card waits for its reveal, the attacker slid out of its row
        // meanwhile. A card slid out and put back is no attack, so the game as it was stays
        // open beside (once) until the reveal tells.
        if let (Action::Attack { with, .. }, Pending::Reveal(_)) = (action, child.state.pending)
            && observations(&child.state, view, names, &[]).is_empty()
        {
            let held = expected(&node.state).with_held_out(player, with);
            if distance_judged(&held, view, node.shielder) == 0 {
                child.lag = vec![held.clone()];
                if !nudged {
                    out.push(Hypothesis { lag: vec![held], ..node.clone() });
                    nudged = true;
                }
            }
        }
        let invisible = matches!(action, Action::EndTurn | Action::Draw)
            || awaited(&child.state).is_some_and(|_| !observations(&child.state, view, names, shown_before).is_empty());
        if invisible || child.distance(view) < here {
            out.push(child);
        }
    }
    // The players may end the game by agreement at any time. That leaves no trace on the table
    // unless the scores tie: then the tie-break's first reveal shows it.
    if let Some(child) = step(node, Input::EndByAgreement)
        && awaited(&child.state).is_some_and(|_| !observations(&child.state, view, names, &[]).is_empty())
    {
        out.push(child);
    }
    out
}

/// The draw awaited, of a card nobody saw (a stand-in), once per explanation: one stand-in of
/// each suit, since the suit says what the card may do at once (a Spade steal, a Diamond
/// shield) before anyone reads it.
fn unseen_draws(node: &Hypothesis, view: &TableView) -> Vec<Hypothesis> {
    let Some(Awaited::DrawnCard { player }) = awaited(&node.state) else { return Vec::new() };
    if node.unseen.is_some() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for card in stand_ins(&node.state, view, player) {
        if let Some(mut child) = step(node, Input::Observe(Observation::Drawn { player, card })) {
            child.unseen = Some(card);
            out.push(child);
        }
    }
    out
}

/// `state` with no input, and with an empty deck (where a pass leaves no trace) after each
/// player in turn passed, up to all but one: each with the passes that lead to it. A move seen
/// is judged, or an attack nobody saw put, in the turn it may have been made in.
pub fn after_passes(state: &GameState) -> Vec<(Vec<Input>, GameState)> {
    let mut out = vec![(Vec::new(), state.clone())];
    if state.deck != 0 {
        return out;
    }
    let (mut passes, mut passed) = (Vec::new(), state.clone());
    for _ in 1..state.players.len() {
        let Some(player) = actor(&passed) else { break };
        let pass = Input::Act { player, action: Action::EndTurn };
        if apply(&mut passed, pass.clone()).is_err() || awaited(&passed).is_some() || passed.phase != Phase::Playing {
            break;
        }
        passes.push(pass);
        out.push((passes.clone(), passed.clone()));
    }
    out
}

/// Applies one input; `None` when the engine refuses it.
fn step(node: &Hypothesis, input: Input) -> Option<Hypothesis> {
    step_or_refusal(node, input).ok()
}

/// Applies one input, with the table the players may still show after it (`Hypothesis::lag`);
/// the engine's reason when it refuses the input.
pub fn step_or_refusal(node: &Hypothesis, input: Input) -> Result<Hypothesis, String> {
    let mut state = node.state.clone();
    let before = expected(&node.state);
    apply(&mut state, input.clone()).map_err(|e| e.to_string())?;
    let lag = match (&input, node.state.pending) {
        // The target lies face up until the ruling's moves are made, the attacker slid forward
        // out of its row or still in it; so too when the ruling ends the game (the last attack
        // failed, and a tie-break follows).
        (Input::Observe(Observation::Revealed { player, position, card }), Pending::Reveal(attack)) => {
            let shown = before.with_front_shown(*player, *position, *card);
            // After a failed attack the target may be turned down before the attacker is back.
            let turned_down = before.with_held_out(attack.attacker, attack.with);
            vec![shown.with_held_out(attack.attacker, attack.with), shown, turned_down]
        }
        _ => Vec::new(),
    };
    let mut inputs = node.inputs.clone();
    inputs.push(input);
    Ok(Hypothesis { state, inputs, lag, unseen: node.unseen, shielder: node.shielder })
}

/// The observations the engine waits for that the view supplies now, or, for a reveal, that
/// was seen before at that place (`shown_before`).
pub fn observations(
    state: &GameState,
    view: &TableView,
    names: &[String],
    shown_before: &[(usize, usize, Card)],
) -> Vec<Input> {
    match awaited(state) {
        Some(Awaited::Deal) => super::deal::deals(view, names),
        Some(Awaited::DrawnCard { player }) => new_cards(state, view, player)
            .into_iter()
            .map(|card| Input::Observe(Observation::Drawn { player, card }))
            .collect(),
        Some(Awaited::Reveal { player, position }) => {
            // The target face up in place, or, when the view caught it only once the cards were
            // moved, on top of the discard pile.
            // A shield lies face down: a face-up card at the position is the target, whichever of
            // the two overlapping cards the row finder took for the base.
            let entity = view.seats.get(player).and_then(|s| s.front.get(position));
            let shown = entity.into_iter().flat_map(|e| [e.base.shown(), e.modifier.and_then(|m| m.shown())]).flatten();
            let discarded = view.discard.and_then(|c| c.shown());
            let before = shown_before.iter().filter(|&&(s, p, _)| (s, p) == (player, position)).map(|&(_, _, c)| c);
            let mut cards: Vec<Card> = Vec::new();
            for card in shown.chain(discarded).chain(before) {
                if !cards.contains(&card) {
                    cards.push(card);
                }
            }
            cards
                .into_iter()
                .filter(|c| state.seen_cards() & (1u64 << c.index()) == 0)
                .map(|card| Input::Observe(Observation::Revealed { player, position, card }))
                .collect()
        }
        None => Vec::new(),
    }
}

/// Face-up cards in `player`'s Back Row that the game has not seen anywhere: the card drawn.
/// Also the discard pile's top when the game has not seen it: a card drawn into a full Back
/// Row and discarded at once may never be seen in the row (a hand over it, a camera stalled).
fn new_cards(state: &GameState, view: &TableView, player: usize) -> Vec<Card> {
    let Some(seat) = view.seats.get(player) else {
        return Vec::new();
    };
    let seen = state.seen_cards();
    let discarded = view.discard.and_then(|c| c.shown());
    let mut cards: Vec<Card> = seat
        .back
        .iter()
        .filter_map(|e| e.base.shown())
        .chain(discarded)
        .filter(|c| seen & (1u64 << c.index()) == 0)
        .collect();
    cards.dedup();
    cards
}

/// The cards that stand for an unseen draw by `drawer`: of each suit, the highest the game has
/// not seen and the view does not show (no card on the table is taken for it, and the highest
/// power is refused by the fewest rules; the operator names the real card); and each card the
/// view shows for the first time outside the drawer's Back Row (drawn, then taken at once by
/// another player's steal, while nobody saw).
fn stand_ins(state: &GameState, view: &TableView, drawer: usize) -> Vec<Card> {
    let seen = state.seen_cards();
    let shown = view.shown_cards();
    let first_seen_elsewhere =
        shown.iter().copied().filter(|&c| seen & (1u64 << c.index()) == 0 && !view.back_row_shows(drawer, c));
    // Cards run by suit, each suit's ranks rising: from the top down, a suit's first unseen card
    // is its highest.
    let unseen = |suit: Suit| {
        (0..52)
            .rev()
            .filter_map(Card::from_index)
            .find(|c| c.suit == suit && seen & (1u64 << c.index()) == 0 && !shown.contains(c))
    };
    Suit::ALL.into_iter().filter_map(unseen).chain(first_seen_elsewhere).collect()
}
