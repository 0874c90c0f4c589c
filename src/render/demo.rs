//! The built-in demo table: rendered Omphala games on a loop (2, 3, then 4 seats in full HD, three
//! games of 2 seats in smaller frames), random games
//! played by the simulator and acted out by `render::game`. Shown when no camera is attached,
//! and a moving test input.

use opencv::core::Size;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::game::{GameOptions, GameVideo};
use super::scene::{Rendered, Scene};
use crate::rules::omphala::RuleOptions;
use crate::rules::omphala::simulate::{RecordOptions, play_recorded};

/// Frames per second of the demo.
pub const FPS: f64 = 30.0;
/// The demo's games end by agreement after this many turns (a random game runs to 60 or more).
const TURNS: u32 = 8;
/// Seats at the table in each game of the loop, by the frame's width: three or four seats in one
/// view need a full-HD frame for every card's index to be read (a 1280×720 view of three seats
/// leaves some unread, and the referee would wait at the deal for them).
fn seats_for(width: i32) -> [usize; 3] {
    if width >= 1920 { [2, 3, 4] } else { [2, 2, 2] }
}

/// Renders the demo at any time since it started.
pub struct DemoTable {
    games: Vec<GameVideo>,
    /// Each game's record (`docs/omphala-notation.md`): the script its hands act out.
    records: Vec<String>,
}

/// The seed the demo source plays (`capture::demo`), so that its scripts can be known.
pub const SEED: u64 = 1;

impl DemoTable {
    pub fn new(size: Size, seed: u64) -> DemoTable {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let how = RecordOptions { max_turns: Some(TURNS), illegal: 1 };
        let (mut games, mut records) = (Vec::new(), Vec::new());
        for (i, players) in seats_for(size.width).into_iter().enumerate() {
            let options =
                GameOptions { seed: seed.wrapping_add(i as u64), size: Some(size), fps: FPS, ..GameOptions::default() };
            // A random game is legal by construction; one that could not be filmed is left out.
            let Ok(game) = play_recorded(&mut rng, players, RuleOptions::default(), &how) else { continue };
            let record = game.record.to_string();
            if let Ok(video) = GameVideo::from_text(&record, &options) {
                games.push(video);
                records.push(record);
            }
        }
        assert!(!games.is_empty(), "the demo's simulated games could not be filmed");
        DemoTable { games, records }
    }

    /// How long the loop of games lasts, in seconds.
    pub fn loop_secs(&self) -> f64 {
        self.games.iter().map(GameVideo::frame_count).sum::<usize>() as f64 / FPS
    }

    /// The games of the loop.
    pub fn games(&self) -> &[GameVideo] {
        &self.games
    }

    /// The record of game `i` of the loop.
    pub fn record(&self, i: usize) -> &str {
        &self.records[i]
    }

    /// Which game and which of its frames show at `t` seconds.
    pub fn locate(&self, t: f64) -> (usize, usize) {
        let total: usize = self.games.iter().map(GameVideo::frame_count).sum();
        let mut frame = ((t.max(0.0) * FPS).round() as usize) % total.max(1);
        for (i, game) in self.games.iter().enumerate() {
            if frame < game.frame_count() {
                return (i, frame);
            }
            frame -= game.frame_count();
        }
        (0, 0)
    }

    /// The frame `t` seconds after the demo started, with ground truth.
    pub fn frame_at(&mut self, t: f64) -> opencv::Result<Rendered> {
        let (game, frame) = self.locate(t);
        self.games[game].render(frame)
    }

    pub fn scene_at(&self, t: f64) -> Scene {
        let (game, frame) = self.locate(t);
        self.games[game].scene_at(frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::game::Kind;

    #[test]
    fn the_loop_plays_games_of_two_three_and_four_seats_in_full_hd() {
        assert_eq!(seats_for(1280), [2, 2, 2]);
        let demo = DemoTable::new(Size::new(1920, 1080), 3);
        let seats: Vec<usize> = demo.games().iter().map(GameVideo::players).collect();
        assert_eq!(seats, [2, 3, 4]);
        for game in demo.games() {
            assert_eq!(game.timeline()[0].kind, Kind::Deal);
            assert!(game.timeline().len() > 20);
        }
        let first = demo.games()[0].frame_count() as f64 / FPS;
        assert_eq!(demo.locate(first + 0.5 / FPS).0, 1, "the second game follows the first");
        assert_eq!(demo.locate(demo.loop_secs()), (0, 0), "then the loop starts again");
    }

    #[test]
    fn a_card_is_carried_by_a_hand_mid_move_and_the_table_rests_without_one() {
        let demo = DemoTable::new(Size::new(640, 360), 1);
        let deal = &demo.games()[0].timeline()[0];
        let mid = (deal.start + deal.end) / 2;
        assert!(demo.scene_at(mid as f64 / FPS).hand.is_some());
        assert!(demo.scene_at(deal.rest_until as f64 / FPS).hand.is_none());
    }
}
