//! Random play-outs. The simulator plays the table: it shuffles and deals with `rand`, keeps
//! the real deck order and the face-down identities, answers the engine's draws and reveals,
//! and picks uniformly among `legal_actions`. The engine itself never draws a random number.

use std::time::{Duration, Instant};

use rand::Rng;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::engine::{Illegal, actor, apply, awaited, legal_actions};
use super::input::{Deal, Event, Input, Observation, SeatDeal};
use super::options::RuleOptions;
use super::score::Decider;
use super::state::{ACTIONS_PER_TURN, Awaited, BACK_DEAL, FRONT_DEAL, GameState, Seat};
use crate::cards::Card;

/// A play-out that does not end within this many inputs is a bug (a game has about 200).
pub const MAX_INPUTS: usize = 100_000;

/// The physical table: what the referee cannot see.
#[derive(Clone, Debug)]
pub struct Table {
    /// Top of the deck last.
    deck: Vec<Card>,
    /// Each seat's Front Row cards never turned up yet, in placement order.
    hidden: Vec<Vec<Card>>,
}

impl Table {
    /// Shuffles a deck and deals `players` seats named P1, P2, …; the first player is drawn
    /// by lot.
    pub fn deal(rng: &mut impl Rng, players: usize) -> (Table, Deal) {
        let mut deck = Card::deck();
        deck.shuffle(rng);
        let mut hidden = Vec::new();
        let mut seats = Vec::new();
        for seat in 0..players {
            let front: Vec<Card> = deck.split_off(deck.len().saturating_sub(FRONT_DEAL));
            let back: Vec<Card> = deck.split_off(deck.len().saturating_sub(BACK_DEAL));
            seats.push(SeatDeal { name: format!("P{}", seat + 1), front: vec![None; front.len()], back });
            hidden.push(front);
        }
        let first = rng.random_range(0..players.max(1));
        (Table { deck, hidden }, Deal { seats, first })
    }

    /// The observation the engine waits for, read off the table.
    fn answer(&mut self, state: &GameState, awaited: Awaited) -> Option<Observation> {
        match awaited {
            Awaited::Deal => None,
            Awaited::DrawnCard { player } => Some(Observation::Drawn { player, card: self.deck.pop()? }),
            Awaited::Reveal { player, position } => {
                // Face-down cards never seen keep their dealt order: the k-th unknown entity
                // of the row is the k-th still-hidden dealt card.
                let front = &state.players[player].front;
                let k = front[..position].iter().filter(|e| e.card.is_none()).count();
                let hidden = &mut self.hidden[player];
                (k < hidden.len()).then(|| Observation::Revealed { player, position, card: hidden.remove(k) })
            }
        }
    }

    /// Keeps the real deck in step with what the engine did.
    fn follow(&mut self, events: &[Event], rng: &mut impl Rng) {
        for event in events {
            if let Event::RedReset { cards, .. } = event {
                self.deck.extend(cards);
                self.deck.shuffle(rng);
            }
        }
    }
}

/// Why a play-out stopped early: a bug in the engine or the simulator.
#[derive(Clone, Debug, thiserror::Error)]
pub enum PlayOutError {
    #[error("the engine refused an input the simulator took from it: {0}")]
    Refused(#[from] Illegal),
    #[error("the table could not answer {0:?}")]
    NoAnswer(Awaited),
    #[error("the game did not end within {MAX_INPUTS} inputs")]
    TooLong,
}

/// A finished random game.
#[derive(Clone, Debug)]
pub struct PlayOut {
    pub state: GameState,
    /// Every input, the deal first (empty unless asked for).
    pub inputs: Vec<Input>,
    pub input_count: usize,
}

/// Plays one random game to its end.
pub fn play_out(
    rng: &mut impl Rng,
    players: usize,
    options: RuleOptions,
    keep_inputs: bool,
) -> Result<PlayOut, PlayOutError> {
    let (mut table, deal) = Table::deal(rng, players);
    let mut state = GameState::new(options);
    let mut inputs = Vec::new();
    let mut next = Some(Input::Observe(Observation::Deal(deal)));
    for count in 0..MAX_INPUTS {
        let Some(input) = next.take() else {
            return Ok(PlayOut { state, inputs, input_count: count });
        };
        if keep_inputs {
            inputs.push(input.clone());
        }
        let events = apply(&mut state, input)?;
        table.follow(&events, rng);
        next = choose(&mut table, &state, rng)?;
    }
    Err(PlayOutError::TooLong)
}

/// The table's next input: the awaited observation, else a random legal action, else nothing
/// (the game is over).
fn choose(table: &mut Table, state: &GameState, rng: &mut impl Rng) -> Result<Option<Input>, PlayOutError> {
    if let Some(wanted) = awaited(state) {
        let observation = table.answer(state, wanted).ok_or(PlayOutError::NoAnswer(wanted))?;
        return Ok(Some(Input::Observe(observation)));
    }
    let Some(player) = actor(state) else {
        return Ok(None);
    };
    let actions = legal_actions(state);
    let action = actions[rng.random_range(0..actions.len())];
    Ok(Some(Input::Act { player, action }))
}

/// What `simulate` measured.
#[derive(Clone, Debug)]
pub struct Summary {
    pub games: usize,
    pub turns: u64,
    pub inputs: u64,
    /// How often each decider settled the game, in `Decider::ALL` order.
    pub decided_by: [(Decider, usize); 4],
    pub elapsed: Duration,
}

impl Summary {
    pub fn average_turns(&self) -> f64 {
        self.turns as f64 / self.games.max(1) as f64
    }

    pub fn average_inputs(&self) -> f64 {
        self.inputs as f64 / self.games.max(1) as f64
    }

    pub fn games_per_second(&self) -> f64 {
        self.games as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Plays `games` random games from one seed (the same seed gives the same games).
pub fn simulate(players: usize, games: usize, seed: u64, options: RuleOptions) -> Result<Summary, PlayOutError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut decided_by = Decider::ALL.map(|d| (d, 0));
    let (mut turns, mut inputs) = (0u64, 0u64);
    let start = Instant::now();
    for _ in 0..games {
        let game = play_out(&mut rng, players, options, false)?;
        turns += u64::from(game.state.turn.number);
        inputs += game.input_count as u64;
        let decider = game.state.standings().map(|s| s.decided_by);
        if let Some(slot) = decided_by.iter_mut().find(|(d, _)| Some(*d) == decider) {
            slot.1 += 1;
        }
    }
    Ok(Summary { games, turns, inputs, decided_by, elapsed: start.elapsed() })
}

/// Names given to the seats of recorded games, in seat order.
pub const NAMES: [&str; 6] = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank"];

/// Chance, at each point where a player acts and an illegal move exists, that a recorded game
/// notes one as a `# illegal:` comment (until the game's allowance is used).
const ILLEGAL_CHANCE: f64 = 0.08;

/// How to record a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordOptions {
    /// Past this turn number the players end by agreement (random games can be long).
    pub max_turns: Option<u32>,
    /// At most this many deliberate illegal moves, as `# illegal: ...` comment lines.
    pub illegal: usize,
}

/// A random game written as a record.
#[derive(Clone, Debug)]
pub struct RecordedGame {
    pub record: super::notation::Record,
    pub state: GameState,
    /// The `# illegal:` comments written.
    pub illegal: usize,
}

impl RecordedGame {
    /// Whether the game ended in a tie-break battle.
    pub fn battle(&self) -> bool {
        self.state.standings().and_then(|s| s.tie_break.as_ref()).is_some_and(|t| !t.battle.is_empty())
    }
}

/// Plays one random game and writes it as a record: seats named Alice, Bob, …, Front Row cards
/// dealt face down as `?`, and up to `how.illegal` illegal moves the player to act could have
/// made, each refused by `engine::check`, as comment lines before the move actually made.
pub fn play_recorded(
    rng: &mut impl Rng,
    players: usize,
    options: RuleOptions,
    how: &RecordOptions,
) -> Result<RecordedGame, PlayOutError> {
    use super::notation::{Item, Line, Record, format_action, item_of_input};
    let (mut table, mut deal) = Table::deal(rng, players);
    for (seat, name) in deal.seats.iter_mut().zip(NAMES) {
        seat.name = name.to_string();
    }
    let names: Vec<String> = deal.seats.iter().map(|s| s.name.clone()).collect();
    let mut lines = vec![Line::new(Item::Options(options))];
    lines.extend(deal.seats.iter().map(|s| Line::new(Item::Seat(s.clone()))));
    lines.push(Line::new(Item::First(deal.first)));
    let mut state = GameState::new(options);
    apply(&mut state, Input::Observe(Observation::Deal(deal)))?;
    let mut illegal = 0;
    for _ in 0..MAX_INPUTS {
        let over_time = how.max_turns.is_some_and(|max| state.turn.number > max);
        let input = if over_time && awaited(&state).is_none() && actor(&state).is_some() {
            Some(Input::EndByAgreement)
        } else {
            choose(&mut table, &state, rng)?
        };
        let Some(input) = input else {
            return Ok(RecordedGame { record: Record { lines }, state, illegal });
        };
        if illegal < how.illegal
            && matches!(input, Input::Act { .. })
            && let Some((player, action)) = pick_illegal(&state, rng)
        {
            let text = format_action(&names, player, &action);
            lines.push(Line { item: Item::Blank, comment: Some(format!(" illegal: {text}")) });
            illegal += 1;
        }
        lines.push(Line::new(item_of_input(&input)));
        let events = apply(&mut state, input)?;
        table.follow(&events, rng);
    }
    Err(PlayOutError::TooLong)
}

/// Now and then (`ILLEGAL_CHANCE`), an illegal move the player to act could physically make.
fn pick_illegal(state: &GameState, rng: &mut impl Rng) -> Option<(Seat, super::input::Action)> {
    let acting = state.pending == super::state::Pending::Nothing && state.turn.actions_used < ACTIONS_PER_TURN;
    if !acting || !rng.random_bool(ILLEGAL_CHANCE) {
        return None;
    }
    let player = actor(state)?;
    let kinds = illegal_moves(state, player);
    let nonempty: Vec<&Vec<super::input::Action>> = kinds.iter().filter(|k| !k.is_empty()).collect();
    let kind = nonempty.get(rng.random_range(0..nonempty.len().max(1)))?;
    Some((player, kind[rng.random_range(0..kind.len())]))
}

/// Illegal moves `player` could make with the cards on the table, by kind: a Heart laid on a
/// Diamond, an attack by a red card, a steal by a Club, an attack or steal certain to fail, a
/// shield by a non-Diamond, an enhance by a non-Heart. Each is refused by `engine::check` (a
/// move that happens to be legal is left out).
pub fn illegal_moves(state: &GameState, player: Seat) -> Vec<Vec<super::input::Action>> {
    use super::input::Action;
    use crate::cards::Suit;
    let me = &state.players[player];
    let single = |e: &&super::state::Entity| e.modifier.is_none();
    let mine: Vec<Card> = me.back.iter().filter_map(|e| e.card).collect();
    let plain: Vec<Card> = me.back.iter().filter(single).filter_map(|e| e.card).collect();
    let opponents = (0..state.players.len()).filter(|&p| p != player);
    let mut kinds: Vec<Vec<Action>> = vec![Vec::new(); 6];
    for &heart in plain.iter().filter(|c| c.suit == Suit::Hearts) {
        for &target in plain.iter().filter(|c| c.suit == Suit::Diamonds) {
            kinds[0].push(Action::Enhance { heart, target });
        }
    }
    for other in opponents {
        let them = &state.players[other];
        for &with in &mine {
            for position in 0..them.front.len() {
                let attack = Action::Attack { with, defender: other, position };
                if with.is_red() {
                    kinds[1].push(attack);
                } else if them.front[position].card.is_some() {
                    kinds[3].push(attack);
                }
            }
            for target in them.back.iter().filter_map(|e| e.card) {
                let steal = Action::Steal { with, victim: other, target };
                match with.suit {
                    Suit::Clubs => kinds[2].push(steal),
                    Suit::Spades => kinds[3].push(steal),
                    _ => {}
                }
            }
        }
    }
    let open_front: Vec<usize> = (0..me.front.len()).filter(|&p| me.front[p].modifier.is_none()).collect();
    for &card in plain.iter().filter(|c| c.suit != Suit::Diamonds) {
        kinds[4].extend(open_front.iter().map(|&position| Action::Shield { diamond: card, position }));
        for &target in plain.iter().filter(|&&t| t != card && card.suit != Suit::Hearts) {
            kinds[5].push(Action::Enhance { heart: card, target });
        }
    }
    for kind in &mut kinds {
        kind.retain(|action| super::engine::check(state, player, action).is_err());
    }
    kinds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::omphala::notation::{Item, parse};
    use crate::rules::omphala::replay::replay;

    #[test]
    fn recorded_games_replay_legally_and_their_illegal_comments_are_refused() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut illegal_seen = 0;
        for players in [2, 3, 4, 2] {
            let how = RecordOptions { max_turns: Some(30), illegal: 3 };
            let game = play_recorded(&mut rng, players, RuleOptions::default(), &how).unwrap();
            let text = game.record.to_string();
            let record = parse(&text).unwrap();
            assert_eq!(record, game.record, "the record round-trips");
            assert!(text.contains("seat Alice front ? ? back"), "{text}");
            let judged = replay(&record);
            assert!(judged.illegal.is_none(), "{:?}", judged.illegal);
            assert!(judged.state.is_over());
            // Each illegal comment is refused at its place in the game.
            let mut state = GameState::new(record.options());
            let inputs: std::collections::HashMap<usize, Input> = record.inputs().into_iter().collect();
            let names = record.names();
            for (index, line) in record.lines.iter().enumerate() {
                if let (Item::Blank, Some(comment)) = (&line.item, &line.comment) {
                    let action_text = comment.trim().strip_prefix("illegal: ").unwrap();
                    let header: String = text
                        .lines()
                        .filter(|l| l.starts_with("seat ") || l.starts_with("first "))
                        .map(|l| format!("{l}\n"))
                        .collect();
                    let parsed = parse(&format!("{header}{action_text}\n")).unwrap();
                    let Some(Item::Act { player, action }) = parsed.lines.last().map(|l| l.item.clone()) else {
                        panic!("{action_text}")
                    };
                    assert!(
                        super::super::engine::check(&state, player, &action).is_err(),
                        "{action_text} with {names:?}"
                    );
                    illegal_seen += 1;
                }
                if let Some(input) = inputs.get(&index) {
                    apply(&mut state, input.clone()).unwrap();
                }
            }
            assert!(game.illegal <= 3);
        }
        assert!(illegal_seen > 0, "some illegal comment was written");
    }
}
