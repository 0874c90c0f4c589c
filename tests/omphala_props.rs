//! Property tests of the Omphala referee on random reachable games, played by the simulator
//! (which plays the table: it deals, answers draws and reveals, and picks random legal moves).

use card_referee::cards::Card;
use card_referee::rules::omphala::notation::{Record, parse};
use card_referee::rules::omphala::replay::replay;
use card_referee::rules::omphala::simulate::play_out;
use card_referee::rules::omphala::{
    Action, GameState, Input, RuleOptions, TieBreak, actor, apply, check, legal_actions,
};
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn options_strategy() -> impl Strategy<Value = RuleOptions> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(ace_high, discarded, total)| RuleOptions {
        ace_power: if ace_high {
            card_referee::rules::omphala::AcePower::Fourteen
        } else {
            card_referee::rules::omphala::AcePower::One
        },
        failed_attacker_discarded: discarded,
        tie_break: if total { TieBreak::TotalPower } else { TieBreak::BattleWhenEqualEntities },
    })
}

/// The inputs of one random game and the states after each of them.
fn game(seed: u64, players: usize, options: RuleOptions) -> (Vec<Input>, Vec<GameState>, GameState) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let played = play_out(&mut rng, players, options, true).expect("the play-out ends");
    let mut state = GameState::new(options);
    let mut states = Vec::new();
    for input in &played.inputs {
        apply(&mut state, input.clone()).expect("the simulator's inputs are legal");
        states.push(state.clone());
    }
    (played.inputs, states, played.state)
}

/// Every action worth trying in `state`: all kinds, with every card in play and every seat and
/// position, legal or not.
fn candidate_actions(state: &GameState) -> Vec<Action> {
    let cards: Vec<Card> = state
        .players
        .iter()
        .flat_map(|p| p.front.iter().chain(&p.back))
        .flat_map(|e| e.card)
        .chain(["AS", "KH", "2D"].map(|c| c.parse().unwrap()))
        .collect();
    let seats = 0..=state.players.len();
    let mut actions = vec![Action::Draw, Action::RedReset, Action::EndTurn];
    for &with in &cards {
        actions.push(Action::Discard(with));
        for seat in seats.clone() {
            for position in 0..5 {
                actions.push(Action::Attack { with, defender: seat, position });
            }
            for &target in &cards {
                actions.push(Action::Steal { with, victim: seat, target });
            }
        }
        for position in 0..5 {
            actions.push(Action::Shield { diamond: with, position });
        }
        for &target in &cards {
            actions.push(Action::Enhance { heart: with, target });
        }
    }
    actions
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn cards_are_conserved_and_never_seen_twice(seed in any::<u64>(), players in 2usize..=6, options in options_strategy()) {
        let (_, states, _) = game(seed, players, options);
        for state in &states {
            prop_assert_eq!(state.card_total(), 52);
            let known = state
                .players
                .iter()
                .flat_map(|p| p.front.iter().chain(&p.back))
                .flat_map(|e| e.known_cards())
                .count()
                + state.discard.len();
            prop_assert_eq!(known, state.seen_cards().count_ones() as usize, "a card seen in two places");
        }
    }

    #[test]
    fn every_random_play_out_ends_with_standings(seed in any::<u64>(), players in 2usize..=6, options in options_strategy()) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let played = play_out(&mut rng, players, options, false).expect("ends within the limit");
        let standings = played.state.standings().expect("finished");
        prop_assert!(!standings.winners.is_empty());
        prop_assert_eq!(played.state.deck, 0, "the game only ends by itself once the deck is empty");
        prop_assert!(legal_actions(&played.state).is_empty());
    }

    #[test]
    fn legal_actions_and_apply_agree(seed in any::<u64>(), players in 2usize..=4, pick in 0usize..1000) {
        let (_, states, _) = game(seed, players, RuleOptions::default());
        let state = &states[pick % states.len()];
        let legal = legal_actions(state);
        for action in candidate_actions(state) {
            for player in 0..=state.players.len() {
                let mut after = state.clone();
                let allowed = Some(player) == actor(state) && legal.contains(&action);
                let result = apply(&mut after, Input::Act { player, action });
                prop_assert_eq!(result.is_ok(), allowed, "{:?} by {}: {:?}", action, player, result);
                prop_assert_eq!(check(state, player, &action).is_ok(), allowed);
                match result {
                    Ok(_) => prop_assert_eq!(after.card_total(), 52),
                    Err(illegal) => {
                        prop_assert_eq!(&after, state, "a refused input changed the state");
                        prop_assert!(illegal.message.ends_with('.'), "not a sentence: {}", illegal.message);
                    }
                }
            }
        }
    }

    #[test]
    fn hiding_face_down_cards_only_adds_attacks_needing_a_reveal(seed in any::<u64>(), players in 2usize..=4, pick in 0usize..1000) {
        let (_, states, _) = game(seed, players, RuleOptions::default());
        let state = &states[pick % states.len()];
        let hidden = state.with_front_rows_hidden();
        let full = legal_actions(state);
        let fewer_known = legal_actions(&hidden);
        for action in &full {
            prop_assert!(fewer_known.contains(action), "{:?} lost by hiding", action);
        }
        for action in fewer_known.iter().filter(|a| !full.contains(a)) {
            let Action::Attack { defender, position, .. } = *action else {
                return Err(TestCaseError::fail(format!("{action:?} appeared by hiding")));
            };
            prop_assert!(state.players[defender].front[position].card.is_some(), "target was already unknown");
        }
    }

    #[test]
    fn states_inputs_and_events_survive_serde(seed in any::<u64>(), players in 2usize..=6, pick in 0usize..1000) {
        let (inputs, states, _) = game(seed, players, RuleOptions::default());
        let index = pick % states.len();
        let state = &states[index];
        let json = serde_json::to_string(state).unwrap();
        prop_assert_eq!(&serde_json::from_str::<GameState>(&json).unwrap(), state);
        let input = &inputs[index];
        let json = serde_json::to_string(input).unwrap();
        prop_assert_eq!(&serde_json::from_str::<Input>(&json).unwrap(), input);
        let mut replayed = if index == 0 { GameState::new(RuleOptions::default()) } else { states[index - 1].clone() };
        let events = apply(&mut replayed, input.clone()).unwrap();
        let json = serde_json::to_string(&events).unwrap();
        prop_assert_eq!(serde_json::from_str::<Vec<card_referee::rules::omphala::Event>>(&json).unwrap(), events);
    }

    #[test]
    fn replaying_the_record_of_a_play_out_reproduces_it(seed in any::<u64>(), players in 2usize..=6, options in options_strategy()) {
        let (inputs, _, final_state) = game(seed, players, options);
        let text = Record::from_inputs(options, &inputs).to_string();
        let record = parse(&text).expect("the written record parses");
        prop_assert_eq!(record.to_string(), text.clone(), "the text round-trips");
        let judged = replay(&record);
        prop_assert!(judged.illegal.is_none(), "{:?}", judged.illegal);
        prop_assert_eq!(judged.state, final_state);
    }
}
