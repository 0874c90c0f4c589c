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
use super::state::{Awaited, BACK_DEAL, FRONT_DEAL, GameState};
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
