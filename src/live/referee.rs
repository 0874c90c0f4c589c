//! One live game as the window referees it: a real table's Omphala game, or the demo table's
//! loop of rendered games, each game refereed as it plays (a new one starts when the loop moves
//! on) with questions answered from its script.

use std::path::Path;

use opencv::core::Size;

use super::minigame::MiniGameSession;
use super::omphala::OmphalaSession;
use super::orders::{Finished, LiveGame, Order};
use crate::capture::Frame;
use crate::referee::minigame::RoundCard;
use crate::render::DemoTable;
use crate::rules::omphala::notation::{Record, parse as parse_record};
use crate::table::TableLayout;
use crate::vision::cards::CardDetection;

/// What the referee says once a finished game is in the scorebook (followed by its number).
pub const KEPT_IN_BOOK: &str = "the game is kept in the scorebook";

/// The game being refereed: one of these at a time.
pub enum Game {
    /// None (it could not start: `LiveReferee::error` says why).
    None,
    /// Omphala at a real table.
    Omphala(OmphalaSession),
    /// A spot-the-symbol game, with the round cards of the last frame.
    MiniGame { session: MiniGameSession, round_cards: Vec<RoundCard> },
    /// The demo's loop, which of its games plays (`usize::MAX` before the first frame), and
    /// that game's session.
    Demo { table: DemoTable, playing: usize, session: Option<OmphalaSession> },
}

/// The game being refereed and how it came to be.
pub struct LiveReferee {
    pub game: Game,
    pub names: Vec<String>,
    pub title: String,
    pub finished: Option<Finished>,
    pub error: Option<String>,
    /// The layout file the game uses, if one.
    pub layout_file: Option<std::path::PathBuf>,
    /// The scorebook finished games are kept in (the window's), if any.
    pub scorebook: Option<std::path::PathBuf>,
    /// Whether the game refereed now is in the scorebook.
    kept: bool,
}

impl LiveReferee {
    pub fn start(game: LiveGame) -> LiveReferee {
        let mut current = LiveReferee {
            game: Game::None,
            names: Vec::new(),
            title: String::new(),
            finished: None,
            error: None,
            layout_file: None,
            scorebook: None,
            kept: false,
        };
        match game {
            LiveGame::Omphala { names, layout, journal, deck } => {
                let layout = current.load_layout(layout.as_deref());
                let names = seated(names, layout.as_ref());
                current.title = format!("Omphala, {} seats", names.len());
                let session = current.open(names, layout, None).map(|s| current.read_with(s, deck.as_deref()));
                let session = match (session, journal) {
                    (Some(session), Some(path)) => session.journalled(&path).map_err(|e| current.error = Some(e)).ok(),
                    (session, _) => session,
                };
                current.game = session.map_or(Game::None, Game::Omphala);
            }
            LiveGame::MiniGame { kind, names, deck, profile, journal, claims } => {
                current.title = format!("{kind}, {} players", names.len());
                current.names = names.clone();
                let session = MiniGameSession::new(kind, names, &deck, profile.as_deref());
                let session = match (session, journal) {
                    (Ok(session), Some(path)) => session.journalled(&path),
                    (other, _) => other,
                };
                match session {
                    Ok(mut session) => {
                        for claim in claims {
                            session.claim(claim.seat, &claim.called, claim.ms);
                        }
                        current.game = Game::MiniGame { session, round_cards: Vec::new() };
                    }
                    Err(e) => current.error = Some(e),
                }
            }
            LiveGame::Resume { journal, layout, deck } => {
                match OmphalaSession::resume(&journal, current.load_layout(layout.as_deref()), 30.0) {
                    Ok(session) => {
                        current.names = session.referee().names().to_vec();
                        current.title = format!("Omphala, {} seats (resumed)", current.names.len());
                        current.game = Game::Omphala(current.read_with(session, deck.as_deref()));
                    }
                    Err(e) => current.error = Some(e),
                }
            }
            LiveGame::Demo { width, height } => {
                let table = DemoTable::new(Size::new(width, height), crate::render::demo::SEED);
                current.game = Game::Demo { table, playing: usize::MAX, session: None };
            }
        }
        current
    }

    /// The layout file's layout; one that cannot be read is said, and the standard layout is
    /// fitted to the deal instead.
    fn load_layout(&mut self, path: Option<&Path>) -> Option<TableLayout> {
        let path = path?;
        match TableLayout::load(path) {
            Ok(layout) => {
                self.layout_file = Some(path.to_path_buf());
                Some(layout)
            }
            Err(e) => {
                self.error = Some(format!("{e}; the standard layout is fitted to the deal instead"));
                None
            }
        }
    }

    /// The session reading with the deck profile at `path`; one that cannot be read is said,
    /// and the built-in reader reads alone.
    fn read_with(&mut self, mut session: OmphalaSession, path: Option<&Path>) -> OmphalaSession {
        let Some(path) = path else { return session };
        match crate::vision::cards::decks::enroll::DeckProfile::load(path) {
            Ok(profile) => {
                session.read_with(&profile);
                self.title.push_str(&format!(", deck {}", file_name(path)));
            }
            Err(e) => self.error = Some(format!("{e}; the cards are read without the deck's profile")),
        }
        session
    }

    /// A new Omphala session for `names`; `None`, said, when the card detector does not start.
    fn open(
        &mut self,
        names: Vec<String>,
        layout: Option<TableLayout>,
        script: Option<&str>,
    ) -> Option<OmphalaSession> {
        self.names = names.clone();
        match OmphalaSession::new(names, layout, 30.0) {
            Ok(session) => Some(match script {
                Some(record) => session.answered_from(record),
                None => session,
            }),
            Err(e) => {
                self.error = Some(format!("the card detector did not start: {e}"));
                None
            }
        }
    }

    /// The Omphala session being refereed (a real table's or the demo's game), if one.
    pub fn session(&self) -> Option<&OmphalaSession> {
        match &self.game {
            Game::Omphala(session) => Some(session),
            Game::Demo { session, .. } => session.as_ref(),
            Game::None | Game::MiniGame { .. } => None,
        }
    }

    fn session_mut(&mut self) -> Option<&mut OmphalaSession> {
        match &mut self.game {
            Game::Omphala(session) => Some(session),
            Game::Demo { session, .. } => session.as_mut(),
            Game::None | Game::MiniGame { .. } => None,
        }
    }

    /// The spot-the-symbol game being refereed and the round cards of its last frame, if one.
    pub fn minigame(&self) -> Option<(&MiniGameSession, &[RoundCard])> {
        match &self.game {
            Game::MiniGame { session, round_cards } => Some((session, round_cards)),
            _ => None,
        }
    }

    /// The demo moves on to its next game at `t` seconds: the game playing ends by agreement
    /// and the next one starts with its own seats.
    fn follow_demo(&mut self, t: f64) {
        let Game::Demo { table, playing, .. } = &self.game else { return };
        let (game, _) = table.locate(t);
        if game == *playing {
            return;
        }
        let record = table.record(game).to_string();
        let names = parse_record(&record).map(|r| r.names()).unwrap_or_default();
        // The demo's camera is known: its table is calibrated, as a real one is by the wizard.
        let layout = table.games()[game].layout.clone();
        self.end_game();
        self.title = format!("Demo: Omphala, {} seats (the demo's script answers questions)", names.len());
        let next = self.open(names, Some(layout), Some(&record));
        if let Game::Demo { playing, session, .. } = &mut self.game {
            *playing = game;
            *session = next;
        }
    }

    pub fn end_game(&mut self) {
        let Some(session) = self.session_mut() else { return };
        session.end_by_agreement();
        // A tie-break still waiting for reveals is said as such: the demo moves on without it.
        let state = session.referee().state();
        let standings = state.standings().map_or_else(
            || vec![crate::rules::omphala::replay::progress_line(state)],
            |s| crate::rules::omphala::replay::standings_lines(state, s),
        );
        self.finished = Some(Finished { names: self.names.clone(), standings });
    }

    /// Writes a real table's game (Omphala or a mini-game) into the scorebook once it is over,
    /// saying so (the demo's scripted games are not kept); returns whether it wrote one now.
    /// Written once per game; a book that cannot be written is said, and the game stays in its
    /// journal.
    pub fn keep_finished(&mut self) -> bool {
        use crate::scorebook::Scorebook;
        if self.kept {
            return false;
        }
        let Some(path) = &self.scorebook else { return false };
        let written = match &self.game {
            Game::Omphala(session) if session.referee().state().standings().is_some() => {
                let state = session.referee().state();
                let text = Record::from_inputs(state.options, session.referee().record()).to_string();
                Scorebook::open(path).and_then(|mut book| book.add_refereed(&text, session.journal_path()))
            }
            Game::MiniGame { session, .. } if session.referee().is_over() => {
                let referee = session.referee();
                Scorebook::open(path)
                    .and_then(|mut book| book.add_mini_game(&referee.result(), referee.names(), session.journal_path()))
            }
            _ => return false,
        };
        self.kept = true;
        let said = match &written {
            Ok((id, _)) => format!("{KEPT_IN_BOOK} as game {id}"),
            Err(e) => format!("the scorebook: {e}; the game stays in its journal"),
        };
        match &mut self.game {
            Game::Omphala(session) => session.note(said),
            // A mini-game's log holds the game's own events: only a failure is said.
            _ if written.is_err() => self.error = Some(said),
            _ => {}
        }
        written.is_ok()
    }

    /// Which game of the demo's loop is refereed (`None` off the demo).
    pub fn demo_game(&self) -> Option<usize> {
        match &self.game {
            Game::Demo { playing, .. } => Some(*playing),
            _ => None,
        }
    }

    /// Writes the layout in use to `path` (the table calibrated from the deal), saying so.
    fn save_layout(&mut self, path: &Path) {
        let Some(session) = self.session_mut() else { return };
        let Some(mut layout) = session.watch().layout().cloned() else {
            session.note("no layout to save yet: it is fitted once a deal lies on the table".into());
            return;
        };
        // The layout remembers who sits where, for the next game at this table.
        layout.names = session.referee().names().to_vec();
        let written =
            path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(path, layout.to_toml()));
        match written {
            Ok(()) => session.note(format!("the table layout is saved in {}", path.display())),
            Err(e) => return session.note(format!("{}: cannot save the layout: {e}", path.display())),
        }
        self.layout_file = Some(path.to_path_buf());
    }

    /// Referees one frame: the demo's game followed, the table watched, the view ruled on.
    /// Returns the cards as followed over frames (each named from many readings).
    pub fn push(&mut self, frame: &Frame) -> Vec<CardDetection> {
        if let Game::MiniGame { session, round_cards } = &mut self.game {
            match session.push(frame) {
                Ok(cards) => *round_cards = cards,
                Err(e) => self.error = Some(e),
            }
            return Vec::new();
        }
        self.follow_demo(frame.time.as_secs_f64());
        let Some(session) = self.session_mut() else { return Vec::new() };
        match session.push(frame) {
            Ok(watched) => watched.cards,
            Err(e) => {
                self.error = Some(format!("frame {}: {e}", frame.index));
                Vec::new()
            }
        }
    }

    /// Carries out an order of the operator (a new game is `start`ed instead).
    pub fn order(&mut self, order: Order) {
        match order {
            Order::Answer(reply) => {
                if let Some(session) = self.session_mut() {
                    session.answer(&reply);
                }
            }
            Order::EndByAgreement => match &mut self.game {
                Game::MiniGame { session, .. } => session.finish(),
                _ => self.end_game(),
            },
            Order::SaveLayout(path) => self.save_layout(&path),
            Order::UseLayout(layout) => {
                if let Some(session) = self.session_mut() {
                    session.use_layout(layout);
                    self.layout_file = None;
                }
            }
            Order::Undo => {
                if let Some(session) = self.session_mut() {
                    session.undo();
                }
            }
            Order::Reveal { player, position, card } => {
                if let Some(session) = self.session_mut() {
                    session.reveal_by_hand(player, position, &card);
                }
            }
            Order::Claim { seat, called, ms } => {
                if let Game::MiniGame { session, .. } = &mut self.game {
                    session.claim(seat, &called, ms);
                }
            }
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

/// The players' names: those typed, or, when none were typed (the defaults P1, P2, …), those a
/// layout saved with an earlier game at this table remembers for its seats.
fn seated(names: Vec<String>, layout: Option<&TableLayout>) -> Vec<String> {
    let defaults: Vec<String> = (1..=names.len()).map(|k| format!("P{k}")).collect();
    match layout {
        Some(layout) if names == defaults && layout.names.len() == names.len() => layout.names.clone(),
        _ => names,
    }
}

/// A path's last part, for saying which file is in use.
pub fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_not_typed_come_from_the_layout_saved_with_the_last_game() {
        let mut layout = TableLayout::standard(2);
        layout.names = vec!["Ann".into(), "Ben".into()];
        let defaults = vec!["P1".to_string(), "P2".to_string()];
        assert_eq!(seated(defaults.clone(), Some(&layout)), ["Ann", "Ben"]);
        assert_eq!(seated(vec!["Cy".into(), "Di".into()], Some(&layout)), ["Cy", "Di"], "typed names win");
        assert_eq!(seated(defaults.clone(), Some(&TableLayout::standard(2))), defaults);
        let three = vec!["P1".to_string(), "P2".to_string(), "P3".to_string()];
        assert_eq!(seated(three.clone(), Some(&layout)), three, "another table's count");
    }
}
