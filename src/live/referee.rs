//! One live game as the window referees it: a real table's Omphala game, or the demo table's
//! loop of rendered games, each game refereed as it plays (a new one starts when the loop moves
//! on) with questions answered from its script.

use std::path::Path;

use opencv::core::Size;

use super::omphala::OmphalaSession;
use super::worker::{Finished, LiveGame, Order};
use crate::capture::Frame;
use crate::render::DemoTable;
use crate::rules::omphala::notation::parse as parse_record;
use crate::table::TableLayout;
use crate::vision::cards::CardDetection;

/// The game being refereed and how it came to be.
pub struct LiveReferee {
    pub session: Option<OmphalaSession>,
    pub names: Vec<String>,
    pub title: String,
    /// The demo's loop and which of its games plays.
    demo: Option<(DemoTable, usize)>,
    pub finished: Option<Finished>,
    pub error: Option<String>,
}

impl LiveReferee {
    pub fn start(game: LiveGame) -> LiveReferee {
        let mut current = LiveReferee {
            session: None,
            names: Vec::new(),
            title: String::new(),
            demo: None,
            finished: None,
            error: None,
        };
        match game {
            LiveGame::Omphala { names, layout, journal } => {
                current.title = format!("Omphala, {} seats", names.len());
                current.open(names, layout, None);
                if let (Some(path), Some(session)) = (journal, current.session.take()) {
                    match session.journalled(&path) {
                        Ok(session) => current.session = Some(session),
                        Err(e) => current.error = Some(e),
                    }
                }
            }
            LiveGame::Resume { journal, layout } => match OmphalaSession::resume(&journal, layout, 30.0) {
                Ok(session) => {
                    current.names = session.referee().names().to_vec();
                    current.title = format!("Omphala, {} seats (resumed)", current.names.len());
                    current.session = Some(session);
                }
                Err(e) => current.error = Some(e),
            },
            LiveGame::Demo { width, height } => {
                let table = DemoTable::new(Size::new(width, height), crate::render::demo::SEED);
                current.demo = Some((table, usize::MAX));
            }
        }
        current
    }

    fn open(&mut self, names: Vec<String>, layout: Option<TableLayout>, script: Option<&str>) {
        self.names = names.clone();
        match OmphalaSession::new(names, layout, 30.0) {
            Ok(session) => {
                self.session = Some(match script {
                    Some(record) => session.answered_from(record),
                    None => session,
                })
            }
            Err(e) => self.error = Some(format!("the card detector did not start: {e}")),
        }
    }

    /// The demo moves on to its next game at `t` seconds: the game playing ends by agreement
    /// and the next one starts with its own seats.
    fn follow_demo(&mut self, t: f64) {
        let Some((table, playing)) = &self.demo else { return };
        let (game, _) = table.locate(t);
        if game == *playing {
            return;
        }
        let record = table.record(game).to_string();
        let names = parse_record(&record).map(|r| r.names()).unwrap_or_default();
        // The demo's camera is known: its table is calibrated, as a real one is by the wizard.
        let layout = table.games()[game].layout.clone();
        self.end_game();
        if let Some((_, playing)) = &mut self.demo {
            *playing = game;
        }
        self.title = format!("Demo: Omphala, {} seats (the demo's script answers questions)", names.len());
        self.open(names, Some(layout), Some(&record));
    }

    pub fn end_game(&mut self) {
        let Some(session) = &mut self.session else { return };
        session.end_by_agreement();
        let standings =
            session.referee().state().standings().map_or_else(Vec::new, |s| {
                crate::rules::omphala::replay::standings_lines(session.referee().state(), s)
            });
        self.finished = Some(Finished { names: self.names.clone(), standings });
    }

    /// Referees one frame: the demo's game followed, the table watched, the view ruled on.
    /// Returns the cards found in the frame.
    pub fn push(&mut self, frame: &Frame) -> Vec<CardDetection> {
        self.follow_demo(frame.time.as_secs_f64());
        let Some(session) = &mut self.session else { return Vec::new() };
        match session.push(frame) {
            Ok(watched) => watched.detections,
            Err(e) => {
                self.error = Some(format!("frame {}: {e}", frame.index));
                Vec::new()
            }
        }
    }

    /// Carries out an order of the operator (a new game is `start`ed instead).
    pub fn order(&mut self, order: Order) {
        match order {
            Order::Answer(line) => {
                if let Some(session) = &mut self.session {
                    session.answer(&line);
                }
            }
            Order::EndByAgreement => self.end_game(),
            Order::NewGame(game) => *self = LiveReferee::start(game),
        }
    }
}

/// A journalled game in one line, to offer it for resuming: the seats, the turn, whether it is
/// over. `None` when the journal cannot be read or holds no ruling.
pub fn journal_summary(path: &Path) -> Option<(String, bool)> {
    let resumed = crate::referee::journal::read(path).ok()?;
    if resumed.inputs.is_empty() {
        return None;
    }
    let referee = crate::referee::omphala::OmphalaReferee::resume(
        resumed.names.clone(),
        resumed.options,
        crate::referee::omphala::RefereeConfig::default(),
        &resumed.inputs,
    )
    .ok()?;
    let state = referee.state();
    let text = format!("{}: turn {}, {} rulings", resumed.names.join(", "), state.turn.number, resumed.inputs.len());
    Some((text, state.is_over()))
}
