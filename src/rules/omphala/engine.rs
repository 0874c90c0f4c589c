//! The referee: `legal_actions` says what the player to act may do, `apply` rules on one input.
//! Both ask the same checks (`check_action`), so they cannot disagree.

use thiserror::Error;

use super::battle::{TieBreakState, TieBreakStep};
use super::input::{Action, Deal, Event, Input, Observation, Outcome};
use super::score::{Decider, Standings, leaders, scores};
use super::state::{
    ACTIONS_PER_TURN, Awaited, BACK_DEAL, BACK_ROW_LIMIT, DECK_SIZE, Entity, FRONT_DEAL, GameState, MAX_PLAYERS,
    MIN_PLAYERS, Pending, PendingAttack, Phase, Player, Seat, Step, Turn,
};
use crate::cards::{Card, Suit};

/// Cards drawn after a red reset.
const RED_RESET_DRAW: u8 = 5;

/// A refused input, with a sentence a player understands that cites the rule, and the rule's
/// stable id (`heart-on-diamond`) for the window and for scripts.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct Illegal {
    pub rule: &'static str,
    pub message: String,
}

/// Why an input is refused, cheap to build (no text) so `legal_actions` can ask freely.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Why {
    NotDealt,
    AlreadyDealt,
    GameOver,
    Waiting(Awaited),
    NoSuchSeat(Seat),
    NotYourTurn { player: Seat, current: Seat },
    DiscardOwed(Seat),
    NoDiscardOwed,
    NoActionsLeft(Seat),
    DeckEmpty,
    NotInBackRow { player: Seat, card: Card },
    AttackerNotBlack(Card),
    ThiefNotSpade(Card),
    OwnRow,
    NoFrontEntity { player: Seat, position: usize },
    CertainFailure { with: Card, power: u8, target_power: u8 },
    NotShield(Card),
    OthersFrontRow { card: Card, owner: Seat },
    ShieldTaken { position: usize, modifier: Card },
    NotHeart(Card),
    HeartOnItself,
    HeartOnDiamond { target: Card },
    TargetModified { target: Card, modifier: Card },
    NoRedReset { player: Seat },
    NothingAwaited,
    WrongObservation(Awaited),
    AlreadySeen(Card),
    BadDeal(String),
    BadCorrection(String),
}

impl Why {
    fn illegal(&self, state: &GameState) -> Illegal {
        Illegal { rule: self.rule(), message: self.sentence(state) }
    }

    /// The rule's stable id: one per kind of refusal, never reworded.
    fn rule(&self) -> &'static str {
        match self {
            Why::NotDealt => "not-dealt",
            Why::AlreadyDealt => "already-dealt",
            Why::GameOver => "game-over",
            Why::Waiting(_) => "waiting-for-observation",
            Why::NoSuchSeat(_) => "no-such-seat",
            Why::NotYourTurn { .. } => "not-your-turn",
            Why::DiscardOwed(_) => "discard-owed",
            Why::NoDiscardOwed => "no-discard-owed",
            Why::NoActionsLeft(_) => "two-actions-per-turn",
            Why::DeckEmpty => "deck-empty",
            Why::NotInBackRow { .. } => "not-in-back-row",
            Why::AttackerNotBlack(_) => "attacker-not-black",
            Why::ThiefNotSpade(_) => "thief-not-spade",
            Why::OwnRow => "target-own-row",
            Why::NoFrontEntity { .. } => "no-front-entity",
            Why::CertainFailure { .. } => "certain-failure",
            Why::NotShield(_) => "shield-not-diamond",
            Why::OthersFrontRow { .. } => "shield-own-front-row",
            Why::ShieldTaken { .. } => "one-modifier",
            Why::NotHeart(_) => "enhance-not-heart",
            Why::HeartOnItself => "heart-on-itself",
            Why::HeartOnDiamond { .. } => "heart-on-diamond",
            Why::TargetModified { .. } => "one-modifier",
            Why::NoRedReset { .. } => "red-reset-needs-seven-red",
            Why::NothingAwaited => "nothing-awaited",
            Why::WrongObservation(_) => "wrong-observation",
            Why::AlreadySeen(_) => "card-already-seen",
            Why::BadDeal(_) => "bad-deal",
            Why::BadCorrection(_) => "bad-correction",
        }
    }

    fn sentence(&self, state: &GameState) -> String {
        let name = |seat: Seat| state.name(seat).to_string();
        match self {
            Why::NotDealt => "The cards have not been dealt yet: the game starts with the deal.".into(),
            Why::AlreadyDealt => "The cards have already been dealt: a game has one deal.".into(),
            Why::GameOver => "The game is over: no more moves.".into(),
            Why::Waiting(awaited) => {
                format!("The referee is waiting for {} before any action.", describe_awaited(state, *awaited))
            }
            Why::NoSuchSeat(seat) => {
                format!("There is no player {} at this table of {}.", seat + 1, state.players.len())
            }
            Why::NotYourTurn { player, current } => {
                format!("It is {}'s turn, not {}'s.", name(*current), name(*player))
            }
            Why::DiscardOwed(player) => format!(
                "{}'s Back Row holds {} entities, over the limit of {BACK_ROW_LIMIT}: discard one first.",
                name(*player),
                BACK_ROW_LIMIT + 1
            ),
            Why::NoDiscardOwed => format!(
                "Nothing to discard: a discard is owed only when a draw takes the Back Row over {BACK_ROW_LIMIT} entities."
            ),
            Why::NoActionsLeft(player) => format!(
                "{} has used both actions of this turn (a turn has at most {ACTIONS_PER_TURN}): end the turn.",
                name(*player)
            ),
            Why::DeckEmpty => "The deck is empty: there is nothing to draw.".into(),
            Why::NotInBackRow { player, card } => {
                format!("{card} is not an entity of {}'s Back Row.", name(*player))
            }
            Why::AttackerNotBlack(card) => {
                format!("Only a Club or Spade entity can attack, and {card} is a {}.", suit_name(card.suit))
            }
            Why::ThiefNotSpade(card) => {
                format!("Only a Spade entity can steal, and {card} is a {}.", suit_name(card.suit))
            }
            Why::OwnRow => "Attacks and steals target an opponent, never your own rows.".into(),
            Why::NoFrontEntity { player, position } => format!(
                "{}'s Front Row has no entity at position {} (it holds {}).",
                name(*player),
                position + 1,
                state.players.get(*player).map_or(0, |p| p.front.len())
            ),
            Why::CertainFailure { with, power, target_power } => format!(
                "That would certainly fail: {with} has power {power} and the target's known power is \
                 {target_power}; an attack or steal needs power at least equal to its target's."
            ),
            Why::NotShield(card) => {
                format!("Only an unmodified Diamond can shield, and {card} is not one.")
            }
            Why::OthersFrontRow { card, owner } if card.suit == Suit::Diamonds => format!(
                "A Diamond shields one of its owner's own Front Row entities, never another player's: {card} lies on {}'s Front Row.",
                name(*owner)
            ),
            Why::OthersFrontRow { card, owner } => {
                format!(
                    "Only a Diamond can shield, and only its owner's own Front Row: {card} lies on {}'s.",
                    name(*owner)
                )
            }
            Why::ShieldTaken { position, modifier } => format!(
                "Front Row position {} already carries {modifier}: an entity holds at most one modifier.",
                position + 1
            ),
            Why::NotHeart(card) => {
                format!("Only an unmodified Heart can enhance, and {card} is not one.")
            }
            Why::HeartOnItself => "A Heart cannot enhance itself: choose another Back Row entity.".into(),
            Why::HeartOnDiamond { target } => {
                format!("A Heart cannot be placed on a Diamond, and {target} is a Diamond.")
            }
            Why::TargetModified { target, modifier } => {
                format!("{target} already carries {modifier}: an entity holds at most one modifier.")
            }
            Why::NoRedReset { player } => {
                let back = state.players.get(*player).map_or(&[][..], |p| &p.back[..]);
                let black = back.iter().filter(|e| e.card.is_some_and(|c| !c.is_red())).count();
                format!(
                    "A red reset needs a Back Row of exactly {BACK_ROW_LIMIT} entities, all red; {}'s holds {} ({} black).",
                    name(*player),
                    back.len(),
                    black
                )
            }
            Why::NothingAwaited => "The referee is not waiting for any card to be seen now.".into(),
            Why::WrongObservation(awaited) => {
                format!("The referee is waiting for {}, not for this.", describe_awaited(state, *awaited))
            }
            Why::AlreadySeen(card) => format!(
                "{card} cannot be seen here: it is already in {}, and the deck has one of each card.",
                state.whereabouts(*card).unwrap_or_else(|| "play".into())
            ),
            Why::BadDeal(sentence) => sentence.clone(),
            Why::BadCorrection(why) => format!("The correction cannot be taken: {why}."),
        }
    }
}

fn suit_name(suit: Suit) -> &'static str {
    match suit {
        Suit::Clubs => "Club",
        Suit::Diamonds => "Diamond",
        Suit::Hearts => "Heart",
        Suit::Spades => "Spade",
    }
}

/// The awaited observation in words: "the card Bob drew".
pub fn describe_awaited(state: &GameState, awaited: Awaited) -> String {
    match awaited {
        Awaited::Deal => "the deal".into(),
        Awaited::DrawnCard { player } => format!("the card {} draws", state.name(player)),
        Awaited::Reveal { player, position } => {
            format!("{}'s Front Row entity {} to be turned face up", state.name(player), position + 1)
        }
    }
}

/// What observation the engine needs before the game can go on, if any.
pub fn awaited(state: &GameState) -> Option<Awaited> {
    match &state.phase {
        Phase::Setup => Some(Awaited::Deal),
        Phase::Playing => match state.pending {
            Pending::DrawnCard { player } => Some(Awaited::DrawnCard { player }),
            Pending::Reveal(attack) => Some(Awaited::Reveal { player: attack.defender, position: attack.position }),
            Pending::Nothing | Pending::Discard { .. } => None,
        },
        Phase::TieBreak(tie) => tie.awaited().map(|(player, position)| Awaited::Reveal { player, position }),
        Phase::Over(_) => None,
    }
}

/// The player whose action the engine waits for: the one owing a discard, else the turn's player.
pub fn actor(state: &GameState) -> Option<Seat> {
    match (&state.phase, state.pending) {
        (Phase::Playing, Pending::Discard { player }) => Some(player),
        (Phase::Playing, Pending::Nothing) => Some(state.turn.player),
        _ => None,
    }
}

/// Every action the player to act may take now, in a stable order. Empty while an observation
/// is awaited (see `awaited`) or once the game is over.
pub fn legal_actions(state: &GameState) -> Vec<Action> {
    let mut actions = Vec::new();
    let Some(player) = actor(state) else {
        return actions;
    };
    let back = &state.players[player].back;
    if let Pending::Discard { .. } = state.pending {
        actions.extend(back.iter().filter_map(|e| e.card).map(Action::Discard));
        return actions;
    }
    if state.turn.actions_used < ACTIONS_PER_TURN {
        if state.deck > 0 {
            actions.push(Action::Draw);
        }
        for_each_move(state, player, |action| {
            actions.push(action);
            false
        });
    }
    if red_reset_allowed(state, player) {
        actions.push(Action::RedReset);
    }
    actions.push(Action::EndTurn);
    actions
}

/// Rules on one input. On `Err` the state is unchanged.
pub fn apply(state: &mut GameState, input: Input) -> Result<Vec<Event>, Illegal> {
    let mut events = Vec::new();
    match input {
        Input::Act { player, action } => {
            check_action(state, player, &action).map_err(|why| why.illegal(state))?;
            perform(state, player, action, &mut events);
        }
        Input::Observe(observation) => {
            observe(state, observation, &mut events).map_err(|why| why.illegal(state))?;
        }
        Input::EndByAgreement => match state.phase {
            Phase::Setup => return Err(Why::NotDealt.illegal(state)),
            Phase::Playing => end_game(state, true, &mut events),
            _ => return Err(Why::GameOver.illegal(state)),
        },
        Input::Correct(correction) => {
            match state.phase {
                Phase::Setup => return Err(Why::NotDealt.illegal(state)),
                Phase::Playing => {}
                _ => return Err(Why::GameOver.illegal(state)),
            }
            super::correct::apply_correction(state, &correction).map_err(|e| Why::BadCorrection(e).illegal(state))?;
            events.push(Event::Corrected(correction));
        }
    }
    settle(state, &mut events);
    Ok(events)
}

/// Whether `action` by `player` is legal now; `Err` says why not.
pub fn check(state: &GameState, player: Seat, action: &Action) -> Result<(), Illegal> {
    check_action(state, player, action).map_err(|why| why.illegal(state))
}

/// A card of `player`'s Back Row laid on `owner`'s Front Row, which only a Diamond on its
/// owner's own row may be: the rule it breaks when `owner` is another player.
pub(super) fn check_laid_on_others_row(state: &GameState, card: Card, owner: Seat) -> Illegal {
    Why::OthersFrontRow { card, owner }.illegal(state)
}

fn check_action(state: &GameState, player: Seat, action: &Action) -> Result<(), Why> {
    match state.phase {
        Phase::Setup => return Err(Why::NotDealt),
        Phase::Playing => {}
        _ => return Err(Why::GameOver),
    }
    if player >= state.players.len() {
        return Err(Why::NoSuchSeat(player));
    }
    if let Some(waiting) = awaited(state) {
        return Err(Why::Waiting(waiting));
    }
    let current = actor(state).unwrap_or(state.turn.player);
    if player != current {
        return Err(Why::NotYourTurn { player, current });
    }
    if let Pending::Discard { .. } = state.pending {
        return match action {
            Action::Discard(card) => back_entity(state, player, *card).map(|_| ()),
            _ => Err(Why::DiscardOwed(player)),
        };
    }
    match action {
        Action::Discard(_) => Err(Why::NoDiscardOwed),
        Action::EndTurn => Ok(()),
        Action::RedReset if red_reset_allowed(state, player) => Ok(()),
        Action::RedReset => Err(Why::NoRedReset { player }),
        _ if state.turn.actions_used >= ACTIONS_PER_TURN => Err(Why::NoActionsLeft(player)),
        Action::Draw if state.deck == 0 => Err(Why::DeckEmpty),
        Action::Draw => Ok(()),
        _ => check_move(state, player, action),
    }
}

/// The rules of an attack, steal, shield or enhance themselves, whoever's turn it is: what the
/// game-over test calls a possible move.
fn check_move(state: &GameState, player: Seat, action: &Action) -> Result<(), Why> {
    let options = &state.options;
    match *action {
        Action::Attack { with, defender, position } => {
            let attacker = back_entity(state, player, with)?;
            if !matches!(with.suit, Suit::Clubs | Suit::Spades) {
                return Err(Why::AttackerNotBlack(with));
            }
            let target = opponent(state, player, defender)?
                .front
                .get(position)
                .ok_or(Why::NoFrontEntity { player: defender, position })?;
            beats_or_unknown(options, with, attacker, target)
        }
        Action::Steal { with, victim, target } => {
            let thief = back_entity(state, player, with)?;
            if with.suit != Suit::Spades {
                return Err(Why::ThiefNotSpade(with));
            }
            opponent(state, player, victim)?;
            let target = back_entity(state, victim, target)?;
            beats_or_unknown(options, with, thief, target)
        }
        Action::Shield { diamond, position } => {
            let shield = back_entity(state, player, diamond)?;
            if diamond.suit != Suit::Diamonds || shield.modifier.is_some() {
                return Err(Why::NotShield(diamond));
            }
            let target = state.players[player].front.get(position).ok_or(Why::NoFrontEntity { player, position })?;
            match target.modifier {
                Some(modifier) => Err(Why::ShieldTaken { position, modifier }),
                None => Ok(()),
            }
        }
        Action::Enhance { heart, target } => {
            let enhancer = back_entity(state, player, heart)?;
            if heart.suit != Suit::Hearts || enhancer.modifier.is_some() {
                return Err(Why::NotHeart(heart));
            }
            if heart == target {
                return Err(Why::HeartOnItself);
            }
            let base = back_entity(state, player, target)?;
            if target.suit == Suit::Diamonds {
                return Err(Why::HeartOnDiamond { target });
            }
            match base.modifier {
                Some(modifier) => Err(Why::TargetModified { target, modifier }),
                None => Ok(()),
            }
        }
        Action::Draw | Action::RedReset | Action::EndTurn | Action::Discard(_) => Ok(()),
    }
}

fn back_entity(state: &GameState, player: Seat, card: Card) -> Result<&Entity, Why> {
    let p = &state.players[player];
    p.back_index(card).map(|i| &p.back[i]).ok_or(Why::NotInBackRow { player, card })
}

fn opponent(state: &GameState, player: Seat, other: Seat) -> Result<&Player, Why> {
    if other == player {
        return Err(Why::OwnRow);
    }
    state.players.get(other).ok_or(Why::NoSuchSeat(other))
}

/// An attack or steal is possible unless the table already knows the target is stronger.
fn beats_or_unknown(
    options: &super::options::RuleOptions,
    with: Card,
    attacker: &Entity,
    target: &Entity,
) -> Result<(), Why> {
    let power = attacker.power(options).unwrap_or(0);
    match target.power(options) {
        Some(target_power) if target_power > power => Err(Why::CertainFailure { with, power, target_power }),
        _ => Ok(()),
    }
}

/// Calls `visit` with every possible attack, steal, shield and enhance of `player`, in a stable
/// order, until it returns true. Candidates are filtered by `check_move`, the same check
/// `apply` uses.
fn for_each_move(state: &GameState, player: Seat, mut visit: impl FnMut(Action) -> bool) -> bool {
    let me = &state.players[player];
    let mut offer = |action: Action| check_move(state, player, &action).is_ok() && visit(action);
    for entity in &me.back {
        let Some(card) = entity.card else { continue };
        match card.suit {
            Suit::Clubs | Suit::Spades => {
                for (defender, other) in state.players.iter().enumerate().filter(|(d, _)| *d != player) {
                    for position in 0..other.front.len() {
                        if offer(Action::Attack { with: card, defender, position }) {
                            return true;
                        }
                    }
                    if card.suit == Suit::Spades {
                        for target in other.back.iter().filter_map(|e| e.card) {
                            if offer(Action::Steal { with: card, victim: defender, target }) {
                                return true;
                            }
                        }
                    }
                }
            }
            Suit::Diamonds => {
                for position in 0..me.front.len() {
                    if offer(Action::Shield { diamond: card, position }) {
                        return true;
                    }
                }
            }
            Suit::Hearts => {
                for target in me.back.iter().filter_map(|e| e.card) {
                    if target != card && offer(Action::Enhance { heart: card, target }) {
                        return true;
                    }
                }
            }
        }
    }
    false
}

fn red_reset_allowed(state: &GameState, player: Seat) -> bool {
    let back = &state.players[player].back;
    back.len() == BACK_ROW_LIMIT && back.iter().all(|e| e.card.is_some_and(Card::is_red))
}

/// The game ends when the deck is empty and nobody has an attack, steal, shield or enhance.
/// (A red reset does not count.)
fn no_possible_move(state: &GameState) -> bool {
    state.deck == 0 && (0..state.players.len()).all(|p| !for_each_move(state, p, |_| true))
}

fn perform(state: &mut GameState, player: Seat, action: Action, events: &mut Vec<Event>) {
    let counts = !matches!(action, Action::RedReset | Action::EndTurn | Action::Discard(_));
    if counts {
        state.turn.actions_used += 1;
    }
    match action {
        Action::Draw => state.turn.draws_owed = 1,
        Action::Attack { with, defender, position } => {
            let attack = PendingAttack { attacker: player, with, defender, position };
            if state.players[defender].front[position].card.is_none() {
                state.pending = Pending::Reveal(attack);
                events.push(Event::RevealNeeded { player: defender, position });
            } else {
                resolve_attack(state, attack, events);
            }
        }
        Action::Steal { with, victim, target } => steal(state, player, with, victim, target, events),
        Action::Shield { diamond, position } => {
            if take_back(state, player, diamond).is_none() {
                return;
            }
            state.players[player].front[position].modifier = Some(diamond);
            events.push(Event::Shielded { player, diamond, position });
        }
        Action::Enhance { heart, target } => {
            if take_back(state, player, heart).is_none() {
                return;
            }
            let p = &mut state.players[player];
            if let Some(i) = p.back_index(target) {
                p.back[i].modifier = Some(heart);
            }
            events.push(Event::Enhanced { player, heart, target });
        }
        Action::RedReset => {
            let back = std::mem::take(&mut state.players[player].back);
            let cards: Vec<Card> = back.iter().flat_map(Entity::known_cards).collect();
            state.deck += cards.len();
            state.turn.draws_owed = RED_RESET_DRAW;
            events.push(Event::RedReset { player, cards });
        }
        Action::EndTurn => {
            state.turn.step = Step::DrawsAfter;
            state.turn.draws_owed = if state.players.len() == 2 { 1 } else { 2 };
            events.push(Event::TurnEnded { player });
        }
        Action::Discard(card) => {
            let Some(entity) = take_back(state, player, card) else {
                return;
            };
            state.to_discard(entity.known_cards());
            state.pending = Pending::Nothing;
            events.push(Event::Discarded { player, entity });
        }
    }
}

/// Removes a Back Row entity and returns it. `check_action` has made sure it is there; `None`
/// (nothing moves) rather than a panic if that were ever wrong.
pub(super) fn take_back(state: &mut GameState, player: Seat, card: Card) -> Option<Entity> {
    let p = &mut state.players[player];
    p.back_index(card).map(|i| p.back.remove(i))
}

/// Turns a successful attacker or thief face down at the right end of its owner's Front Row.
fn retire(state: &mut GameState, player: Seat, entity: Entity, events: &mut Vec<Event>) {
    let front = &mut state.players[player].front;
    front.push(entity);
    events.push(Event::Retired { player, entity, position: front.len() - 1 });
}

fn resolve_attack(state: &mut GameState, attack: PendingAttack, events: &mut Vec<Event>) {
    let options = state.options;
    let PendingAttack { attacker, with, defender, position } = attack;
    let Some(index) = state.players[attacker].back_index(with) else {
        return;
    };
    let entity = state.players[attacker].back[index];
    let target = state.players[defender].front[position];
    let power = entity.power(&options).unwrap_or(0);
    let target_power = target.power(&options).unwrap_or(0);
    let outcome = if power >= target_power { Outcome::Succeeded } else { Outcome::Failed };
    events.push(Event::Attacked { attacker, with: entity, power, defender, position, target, target_power, outcome });
    match outcome {
        Outcome::Succeeded => {
            let destroyed = state.players[defender].front.remove(position);
            state.to_discard(destroyed.known_cards());
            let entity = state.players[attacker].back.remove(index);
            retire(state, attacker, entity, events);
        }
        Outcome::Failed if options.failed_attacker_discarded => {
            let entity = state.players[attacker].back.remove(index);
            state.to_discard(entity.known_cards());
            events.push(Event::AttackerDiscarded { player: attacker, entity });
        }
        Outcome::Failed => {}
    }
}

fn steal(state: &mut GameState, thief: Seat, with: Card, victim: Seat, target: Card, events: &mut Vec<Event>) {
    let options = state.options;
    let (Some(thief_index), Some(target_index)) =
        (state.players[thief].back_index(with), state.players[victim].back_index(target))
    else {
        return;
    };
    let spade = state.players[thief].back.remove(thief_index);
    let stolen = state.players[victim].back.remove(target_index);
    events.push(Event::Stole {
        thief,
        with: spade,
        power: spade.power(&options).unwrap_or(0),
        victim,
        target: stolen,
        target_power: stolen.power(&options).unwrap_or(0),
    });
    state.players[thief].back.push(stolen);
    retire(state, thief, spade, events);
}

fn observe(state: &mut GameState, observation: Observation, events: &mut Vec<Event>) -> Result<(), Why> {
    match observation {
        Observation::Deal(deal) => {
            if state.phase != Phase::Setup {
                return Err(Why::AlreadyDealt);
            }
            check_deal(&deal)?;
            deal_cards(state, deal, events);
            Ok(())
        }
        Observation::Drawn { player, card } => {
            let expected = match (&state.phase, state.pending) {
                (Phase::Setup, _) => return Err(Why::NotDealt),
                (Phase::Playing, Pending::DrawnCard { player }) => player,
                (Phase::Playing, _) => {
                    return Err(awaited(state).map_or(Why::NothingAwaited, Why::WrongObservation));
                }
                _ => return Err(Why::GameOver),
            };
            if player != expected {
                return Err(Why::WrongObservation(Awaited::DrawnCard { player: expected }));
            }
            unseen(state, card)?;
            draw_card(state, player, card, events);
            Ok(())
        }
        Observation::Revealed { player, position, card } => {
            let Some(expected) = awaited(state) else {
                return Err(match state.phase {
                    Phase::Over(_) => Why::GameOver,
                    _ => Why::NothingAwaited,
                });
            };
            if expected != (Awaited::Reveal { player, position }) {
                return Err(Why::WrongObservation(expected));
            }
            unseen(state, card)?;
            state.players[player].front[position].card = Some(card);
            events.push(Event::Revealed { player, position, card });
            if let Phase::TieBreak(tie) = &mut state.phase {
                tie.reveal(player, position, card);
            } else if let Pending::Reveal(attack) = state.pending {
                state.pending = Pending::Nothing;
                resolve_attack(state, attack, events);
            }
            Ok(())
        }
    }
}

/// A card seen now must not already be somewhere the table has seen it.
fn unseen(state: &GameState, card: Card) -> Result<(), Why> {
    if state.seen_cards() & (1u64 << card.index()) != 0 {
        return Err(Why::AlreadySeen(card));
    }
    Ok(())
}

fn draw_card(state: &mut GameState, player: Seat, card: Card, events: &mut Vec<Event>) {
    state.deck -= 1;
    state.turn.draws_owed = state.turn.draws_owed.saturating_sub(1);
    state.pending = Pending::Nothing;
    let back = &mut state.players[player].back;
    back.push(Entity::known(card));
    events.push(Event::Drew { player, card });
    if back.len() > BACK_ROW_LIMIT {
        state.pending = Pending::Discard { player };
        events.push(Event::DiscardOwed { player });
    }
}

fn check_deal(deal: &Deal) -> Result<(), Why> {
    let bad = |s: String| Err(Why::BadDeal(s));
    let n = deal.seats.len();
    if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&n) {
        return bad(format!("Omphala is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n}."));
    }
    if deal.first >= n {
        return bad(format!("The first player must be one of the {n} seats."));
    }
    let mut seen = 0u64;
    for (i, seat) in deal.seats.iter().enumerate() {
        if seat.name.trim().is_empty() {
            return bad(format!("Seat {} has no name.", i + 1));
        }
        if deal.seats[..i].iter().any(|s| s.name == seat.name) {
            return bad(format!("Two seats are named {}: each player needs a distinct name.", seat.name));
        }
        if seat.front.len() != FRONT_DEAL || seat.back.len() != BACK_DEAL {
            return bad(format!(
                "{} was dealt {} Front Row and {} Back Row cards: the deal is {FRONT_DEAL} face down and {BACK_DEAL} face up.",
                seat.name,
                seat.front.len(),
                seat.back.len()
            ));
        }
        for card in seat.front.iter().flatten().chain(&seat.back) {
            let bit = 1u64 << card.index();
            if seen & bit != 0 {
                return bad(format!("{card} is dealt twice: the deck has one of each card."));
            }
            seen |= bit;
        }
    }
    Ok(())
}

fn deal_cards(state: &mut GameState, deal: Deal, events: &mut Vec<Event>) {
    let n = deal.seats.len();
    state.players = deal
        .seats
        .into_iter()
        .map(|seat| Player {
            name: seat.name,
            front: seat.front.into_iter().map(|card| Entity { card, modifier: None }).collect(),
            back: seat.back.into_iter().map(Entity::known).collect(),
        })
        .collect();
    state.deck = DECK_SIZE - n * (FRONT_DEAL + BACK_DEAL);
    // The first turn has no draw before it, even with two players.
    state.turn = Turn { player: deal.first, number: 1, step: Step::Acting, actions_used: 0, draws_owed: 0 };
    state.phase = Phase::Playing;
    events.push(Event::Dealt { players: n, first: deal.first, deck: state.deck });
    events.push(Event::TurnBegan { player: deal.first, number: 1 });
}

/// Moves the game on until it needs an input: owed draws, the next turn, the end.
fn settle(state: &mut GameState, events: &mut Vec<Event>) {
    while state.phase == Phase::Playing && state.pending == Pending::Nothing {
        let player = state.turn.player;
        if state.turn.draws_owed > 0 {
            if state.deck == 0 {
                state.turn.draws_owed = 0;
                events.push(Event::DrawSkipped { player });
                continue;
            }
            state.pending = Pending::DrawnCard { player };
            events.push(Event::DrawNeeded { player });
            return;
        }
        match state.turn.step {
            Step::DrawsBefore => state.turn.step = Step::Acting,
            Step::Acting | Step::DrawsAfter if no_possible_move(state) => end_game(state, false, events),
            Step::Acting => return,
            Step::DrawsAfter => begin_next_turn(state, events),
        }
    }
    if matches!(state.phase, Phase::TieBreak(_)) {
        run_tie_break(state, events);
    }
}

fn begin_next_turn(state: &mut GameState, events: &mut Vec<Event>) {
    let two_players = state.players.len() == 2;
    let player = (state.turn.player + 1) % state.players.len();
    let number = state.turn.number + 1;
    state.turn = Turn {
        player,
        number,
        step: if two_players { Step::DrawsBefore } else { Step::Acting },
        actions_used: 0,
        draws_owed: u8::from(two_players),
    };
    events.push(Event::TurnBegan { player, number });
}

fn end_game(state: &mut GameState, by_agreement: bool, events: &mut Vec<Event>) {
    state.pending = Pending::Nothing;
    state.turn.draws_owed = 0;
    state.ended_by_agreement = by_agreement;
    events.push(Event::GameOver { by_agreement });
    let scores = scores(&state.players);
    let tied = leaders(&scores);
    if tied.len() == 1 {
        let standings = Standings { scores, winners: tied, decided_by: Decider::FrontRowCount, tie_break: None };
        events.push(Event::Finished(standings.clone()));
        state.phase = Phase::Over(standings);
    } else {
        state.phase = Phase::TieBreak(TieBreakState::new(&state.options, scores, &tied, &state.players));
    }
}

/// Walks the tie-break as far as the known cards allow.
fn run_tie_break(state: &mut GameState, events: &mut Vec<Event>) {
    let options = state.options;
    while let Phase::TieBreak(tie) = &mut state.phase {
        match tie.step(&options) {
            TieBreakStep::NeedReveal { player, position } => {
                events.push(Event::TieBreakRevealNeeded { player, position });
                return;
            }
            TieBreakStep::Resolved(step) => events.push(Event::BattleStep(step)),
            TieBreakStep::Done(standings) => {
                events.push(Event::Finished(standings.clone()));
                state.phase = Phase::Over(standings);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::omphala::input::SeatDeal;
    use crate::rules::omphala::options::RuleOptions;

    fn card(code: &str) -> Card {
        code.parse().unwrap()
    }

    fn cards(codes: &str) -> Vec<Card> {
        codes.split_whitespace().map(card).collect()
    }

    /// Alice (first) and Bob, dealt face-down Front Rows and the given Back Rows.
    fn dealt(alice: &str, bob: &str) -> GameState {
        let seat = |name: &str, back: &str| SeatDeal { name: name.into(), front: vec![None, None], back: cards(back) };
        let deal = Deal { seats: vec![seat("Alice", alice), seat("Bob", bob)], first: 0 };
        let mut state = GameState::new(RuleOptions::default());
        apply(&mut state, Input::Observe(Observation::Deal(deal))).unwrap();
        state
    }

    fn act(state: &mut GameState, player: Seat, action: Action) -> Result<Vec<Event>, Illegal> {
        apply(state, Input::Act { player, action })
    }

    /// An end-game position: empty deck, Alice holding `alice_back`, Bob's single Front Row
    /// entity `bob_front`, nothing else anyone could use.
    fn end_position(alice_back: &str, bob_front: Entity) -> GameState {
        let mut state = dealt("QS 5H 2D 7S 9C", "KC JD 4H 6S 8C");
        state.deck = 0;
        state.players[0].back = cards(alice_back).into_iter().map(Entity::known).collect();
        state.players[0].front = vec![Entity { card: Some(card("KC")), modifier: Some(card("9D")) }];
        state.players[1].back.clear();
        state.players[1].front = vec![bob_front];
        state
    }

    #[test]
    fn the_game_ends_when_nobody_has_a_possible_move() {
        let mut state = end_position("QS", Entity::known(card("KH")));
        assert_eq!(legal_actions(&state), [Action::EndTurn], "Q♠ (12) cannot attack the known K♥ (13)");
        let events = act(&mut state, 0, Action::EndTurn).unwrap();
        assert!(events.contains(&Event::DrawSkipped { player: 0 }));
        assert!(events.contains(&Event::GameOver { by_agreement: false }));
        let standings = state.standings().expect("over");
        assert_eq!((standings.winners.as_slice(), standings.decided_by), (&[0][..], Decider::FrontRowCount));
        assert!(act(&mut state, 1, Action::EndTurn).unwrap_err().message.contains("over"));
    }

    #[test]
    fn an_attack_on_an_unseen_card_keeps_the_game_going() {
        let mut state = end_position("QS", Entity::unknown());
        let events = act(&mut state, 0, Action::EndTurn).unwrap();
        assert!(events.contains(&Event::TurnBegan { player: 1, number: 2 }), "{events:?}");
        assert_eq!(state.phase, Phase::Playing);
    }

    #[test]
    fn a_red_reset_does_not_count_as_a_possible_move() {
        let mut state = end_position("2D 3D 4D 5D 6D 7D 8D", Entity::known(card("KH")));
        assert_eq!(legal_actions(&state), [Action::RedReset, Action::EndTurn]);
        act(&mut state, 0, Action::EndTurn).unwrap();
        assert!(state.is_over());
    }

    #[test]
    fn an_attack_on_a_face_down_card_waits_for_the_reveal() {
        let mut state = dealt("QS 5H 2D 7S 9C", "KC JD 4H 6S 8C");
        let attack = Action::Attack { with: card("9C"), defender: 1, position: 1 };
        let events = act(&mut state, 0, attack).unwrap();
        assert_eq!(events, [Event::RevealNeeded { player: 1, position: 1 }]);
        assert_eq!(awaited(&state), Some(Awaited::Reveal { player: 1, position: 1 }));
        assert!(legal_actions(&state).is_empty());
        let refused = act(&mut state, 0, Action::EndTurn).unwrap_err();
        assert_eq!(
            refused.message,
            "The referee is waiting for Bob's Front Row entity 2 to be turned face up before any action."
        );
        let reveal = Observation::Revealed { player: 1, position: 1, card: card("2H") };
        apply(&mut state, Input::Observe(reveal)).unwrap();
        assert_eq!(state.players[0].front.last(), Some(&Entity::known(card("9C"))), "9♣ retired");
        assert_eq!(state.players[1].front.len(), 1);
        assert_eq!(state.discard, [card("2H")]);
        assert_eq!(state.turn.actions_used, 1);
    }

    #[test]
    fn a_discard_owed_allows_only_discards() {
        let mut state = dealt("QS 5H 2D 7S 9C", "KC JD 4H 6S 8C");
        for drawn in ["AH", "AC"] {
            act(&mut state, 0, Action::Draw).unwrap();
            apply(&mut state, Input::Observe(Observation::Drawn { player: 0, card: card(drawn) })).unwrap();
        }
        act(&mut state, 0, Action::EndTurn).unwrap();
        apply(&mut state, Input::Observe(Observation::Drawn { player: 0, card: card("AD") })).unwrap();
        let actions = legal_actions(&state);
        assert_eq!(actions.len(), 8);
        assert!(actions.iter().all(|a| matches!(a, Action::Discard(_))));
        act(&mut state, 0, Action::Discard(card("QS"))).unwrap();
        assert_eq!(state.players[0].back.len(), 7);
        assert_eq!(awaited(&state), Some(Awaited::DrawnCard { player: 1 }));
    }

    #[test]
    fn ending_by_agreement_drops_a_pending_reveal() {
        let mut state = dealt("QS 5H 2D 7S 9C", "KC JD 4H 6S 8C");
        act(&mut state, 0, Action::Attack { with: card("9C"), defender: 1, position: 0 }).unwrap();
        let events = apply(&mut state, Input::EndByAgreement).unwrap();
        assert_eq!(events[0], Event::GameOver { by_agreement: true });
        assert!(state.ended_by_agreement);
        // 2 against 2 cards, 2 entities each: the battle wants Alice's first card.
        assert_eq!(awaited(&state), Some(Awaited::Reveal { player: 0, position: 0 }));
        assert_eq!(state.card_total(), 52);
    }

    #[test]
    fn an_empty_deck_cannot_be_drawn_from_and_owed_draws_are_skipped() {
        let mut state = dealt("QS 5H 2D 7S 9C", "KC JD 4H 6S 8C");
        state.deck = 0;
        assert!(!legal_actions(&state).contains(&Action::Draw));
        let refused = act(&mut state, 0, Action::Draw).unwrap_err();
        assert_eq!(refused.message, "The deck is empty: there is nothing to draw.");
        let events = act(&mut state, 0, Action::EndTurn).unwrap();
        assert!(events.contains(&Event::DrawSkipped { player: 0 }), "{events:?}");
        // Bob's draw before his turn is skipped too, and he may act at once.
        assert!(events.contains(&Event::DrawSkipped { player: 1 }), "{events:?}");
        assert_eq!(actor(&state), Some(1));
    }

    #[test]
    fn a_bad_deal_is_refused_with_a_reason() {
        let mut state = GameState::new(RuleOptions::default());
        let seat = |name: &str, back: &str| SeatDeal { name: name.into(), front: vec![None, None], back: cards(back) };
        let deal = Deal { seats: vec![seat("A", "2C 3C 4C 5C 6C"), seat("B", "2C 7C 8C 9C 10C")], first: 0 };
        let refused = apply(&mut state, Input::Observe(Observation::Deal(deal))).unwrap_err();
        assert_eq!(refused.message, "2C is dealt twice: the deck has one of each card.");
        assert_eq!(state, GameState::new(RuleOptions::default()));
    }
}
