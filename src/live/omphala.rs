//! One Omphala game refereed: the table watched frame by frame (`table::watch`), each settled
//! view ruled on by the referee, `confirm` questions answered from answers given ahead
//! (`--answers`), by a script that knows the game (the demo's, `--oracle`) or by the operator (the
//! window's buttons), everything said kept for the screen, handed to an echo (the command line
//! prints it) and appended to the journal as it is said, so that a crash loses nothing ruled
//! (`resume` goes on from it). The window and `referee omphala` run this same session.

use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;

use crate::capture::Frame;
use crate::geometry::Pt;
use crate::referee::journal::{self, Entry, Journal};
use crate::referee::omphala::oracle::Oracle;
use crate::referee::omphala::question::{Question, Reply};
use crate::referee::omphala::{Moment, OmphalaReferee, RefereeConfig, RefereeEvent};
use crate::rules::omphala::{Observation, RuleOptions};
use crate::table::{TableLayout, TableView, TableWatch, Watched};
use crate::vision::cards::CardDetector;

/// Most things said kept for the screen (the journal keeps them all).
const LOG_LIMIT: usize = 400;

/// One thing the referee said, and who answered it when it was a question.
#[derive(Clone, Debug, PartialEq)]
pub struct Said {
    pub event: RefereeEvent,
    /// For a `confirm` the script answered: the answer it gave.
    pub answered_by_script: Option<String>,
}

pub struct OmphalaSession {
    watch: TableWatch,
    referee: OmphalaReferee,
    /// Answers given ahead, one record line per question in order, used before the script.
    answers: VecDeque<String>,
    /// Answers `confirm` questions without asking (the demo's script, `--oracle`).
    script: Option<Oracle>,
    log: Vec<Said>,
    /// The question the operator is asked, while unanswered.
    question: Option<Question>,
    last_at: Moment,
    journal: Option<Journal>,
    /// The view the last ruled move was seen on, and what that move moved (table millimetres).
    ruled_view: Option<TableView>,
    last_moves: Vec<(Pt, Pt)>,
    /// The journal could not be written: said once on screen, the game goes on.
    journal_error: Option<String>,
    /// The table layout the journal holds last.
    journalled_layout: Option<TableLayout>,
    /// Whether who sits where was said once the layout was fitted to the deal.
    seating_said: bool,
    /// Frames up to this one were ruled on before a restart: a resumed video goes on after it.
    resume_after: Option<u64>,
    /// Each thing said is handed here as it is said (the command line prints it).
    echo: Option<fn(&RefereeEvent)>,
    /// Where each settled view ruled on is written (`--save-views`).
    views_out: Option<std::io::BufWriter<std::fs::File>>,
}

impl OmphalaSession {
    /// A new game for `names`; `layout` as in `TableWatch::new`.
    pub fn new(names: Vec<String>, layout: Option<TableLayout>, fps: f64) -> opencv::Result<OmphalaSession> {
        let referee = OmphalaReferee::new(names, RuleOptions::default(), RefereeConfig::default());
        Self::with_referee(referee, layout, fps)
    }

    fn with_referee(referee: OmphalaReferee, layout: Option<TableLayout>, fps: f64) -> opencv::Result<Self> {
        let players = referee.names().len();
        let watch = TableWatch::new(CardDetector::new()?, layout, players, fps, false);
        Ok(Self::with_parts(referee, watch))
    }

    /// A session of `referee` (new or resumed) watching the table with `watch`.
    pub fn with_parts(referee: OmphalaReferee, watch: TableWatch) -> OmphalaSession {
        OmphalaSession {
            watch,
            referee,
            answers: VecDeque::new(),
            script: None,
            log: Vec::new(),
            question: None,
            last_at: Moment::default(),
            journal: None,
            ruled_view: None,
            last_moves: Vec::new(),
            journal_error: None,
            journalled_layout: None,
            seating_said: false,
            resume_after: None,
            echo: None,
            views_out: None,
        }
    }

    /// Appends to `journal`, which holds `layout` last (a resumed game's), going on after frame
    /// `resume_after` of the source (a resumed video).
    pub fn with_journal(mut self, journal: Journal, layout: Option<TableLayout>, resume_after: Option<u64>) -> Self {
        self.journal = Some(journal);
        self.journalled_layout = layout;
        self.resume_after = resume_after;
        self
    }

    /// Answers the questions with these record lines, in order, before any script.
    pub fn with_answers(mut self, answers: Vec<String>) -> Self {
        self.answers = answers.into();
        self
    }

    /// Hands each thing said to `echo` as it is said.
    pub fn echoing(mut self, echo: fn(&RefereeEvent)) -> Self {
        self.echo = Some(echo);
        self
    }

    /// Writes each settled view ruled on to `out`, in the `--views` format.
    pub fn saving_views(mut self, out: std::fs::File) -> Self {
        self.views_out = Some(std::io::BufWriter::new(out));
        self
    }

    /// Reads the table's cards with this deck's enrolled profile.
    pub fn read_with(&mut self, profile: &crate::vision::cards::decks::enroll::DeckProfile) {
        self.watch.read_with(profile);
    }

    /// Journals the game at `path` from its start (the file is created; one that exists is
    /// appended to).
    pub fn journalled(mut self, path: &Path) -> Result<OmphalaSession, String> {
        let mut journal = Journal::open(path)?;
        let names = self.referee.names().to_vec();
        let options = journal::options_line(self.referee.state().options);
        journal.append(&Entry::Start { names, options })?;
        self.journal = Some(journal);
        Ok(self)
    }

    /// Goes on with the game journalled at `path`: its committed inputs replayed, its journal
    /// appended to. Without `layout`, the one the journal kept (fitted to the deal) is used.
    pub fn resume(path: &Path, layout: Option<TableLayout>, fps: f64) -> Result<OmphalaSession, String> {
        let resumed = journal::read(path)?;
        let referee = OmphalaReferee::resume(resumed.names, resumed.options, RefereeConfig::default(), &resumed.inputs)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let layout = layout.or_else(|| resumed.layout.clone());
        let mut session =
            Self::with_referee(referee, layout, fps).map_err(|e| format!("the card detector did not start: {e}"))?;
        session.journal = Some(Journal::open(path)?);
        session.journalled_layout = resumed.layout;
        Ok(session)
    }

    /// The journal this game is kept in, if one.
    pub fn journal_path(&self) -> Option<&Path> {
        self.journal.as_ref().map(Journal::path)
    }

    /// Why the journal stopped being written, if it did.
    pub fn journal_error(&self) -> Option<&str> {
        self.journal_error.as_deref()
    }

    /// Questions are answered from this game record (the script a rendered game acts out).
    pub fn answered_from(mut self, record: &str) -> OmphalaSession {
        self.script = Some(Oracle::from_record(record));
        self
    }

    pub fn referee(&self) -> &OmphalaReferee {
        &self.referee
    }

    pub fn watch(&self) -> &TableWatch {
        &self.watch
    }

    /// Uses a layout the operator adjusted on the live image, saying so.
    pub fn use_layout(&mut self, layout: TableLayout) {
        self.watch.set_layout(layout);
        self.note("the table layout was adjusted by hand".into());
    }

    pub fn log(&self) -> &[Said] {
        &self.log
    }

    /// The differences of the last desync, while the referee is still lost (nothing ruled or
    /// restored since).
    pub fn differences(&self) -> Option<&[String]> {
        for said in self.log.iter().rev() {
            match &said.event {
                RefereeEvent::Desync { differences, .. } => return Some(differences),
                RefereeEvent::Input { .. } | RefereeEvent::Restored { .. } => return None,
                _ => {}
            }
        }
        None
    }

    pub fn question(&self) -> Option<&Question> {
        self.question.as_ref()
    }

    /// Watches one frame and rules on the view it settles, if any. A frame ruled on before a
    /// restart is passed over.
    pub fn push(&mut self, frame: &Frame) -> opencv::Result<Watched> {
        if self.resume_after.is_some_and(|done| frame.index <= done) {
            return Ok(Watched::default());
        }
        let watched = self.watch.push(&frame.image, frame.index, frame.time.as_secs_f64())?;
        self.journal_layout();
        if !self.seating_said && self.watch.fitted() && self.watch.layout().is_some() {
            self.seating_said = true;
            let text = crate::table::calibrate::seating(self.referee.names());
            let at = Moment { frame: watched.frame, ms: watched.ms };
            self.say(vec![RefereeEvent::Note { text, at }], at);
        }
        if let Some(view) = &watched.view {
            let at = Moment { frame: watched.frame, ms: watched.ms };
            self.rule_on(view, at, Some(&frame.image));
        }
        Ok(watched)
    }

    /// Rules on a settled view given without its frame (`--views`); one of a frame ruled on
    /// before a restart is passed over.
    pub fn observe_view(&mut self, view: &TableView, at: Moment) {
        if self.resume_after.is_none_or(|done| at.frame > done) {
            self.rule_on(view, at, None);
        }
    }

    /// The source has ended: the view it ended on is ruled on, if it had not settled.
    pub fn finish(&mut self) {
        if let Some(Watched { view: Some(view), frame, ms, .. }) = self.watch.finish() {
            self.rule_on(&view, Moment { frame, ms }, None);
        }
    }

    fn rule_on(&mut self, view: &TableView, at: Moment, image: Option<&opencv::core::Mat>) {
        self.save_view(view, at);
        self.last_at = at;
        let events = self.referee.observe(view, at);
        if events.iter().any(|e| matches!(e, RefereeEvent::Input { .. })) {
            self.note_moves(view);
            if let Some(image) = image {
                self.save_thumbnail(image, at.frame);
            }
        }
        self.say(events, at);
    }

    fn save_view(&mut self, view: &TableView, at: Moment) {
        if let Some(out) = &mut self.views_out {
            let line = serde_json::json!({"frame": at.frame, "ms": at.ms, "view": view});
            let _ = writeln!(out, "{line}");
            let _ = out.flush();
        }
    }

    /// A small picture of the frame a commit came from, for a disputed ruling: written beside
    /// the journal (`JOURNAL.thumbs/frame-N.jpg`). Best effort: a picture not written loses no
    /// ruling.
    fn save_thumbnail(&self, image: &opencv::core::Mat, frame: u64) {
        use opencv::prelude::*;
        let Some(journal) = &self.journal else { return };
        let dir = journal.thumbnail_dir();
        if std::fs::create_dir_all(&dir).is_err() {
            return;
        }
        let width = 240;
        let height = (f64::from(image.rows()) * f64::from(width) / f64::from(image.cols().max(1))).round() as i32;
        let mut small = opencv::core::Mat::default();
        let size = opencv::core::Size::new(width, height.max(1));
        if opencv::imgproc::resize(image, &mut small, size, 0.0, 0.0, opencv::imgproc::INTER_AREA).is_err() {
            return;
        }
        let path = dir.join(format!("frame-{frame:08}.jpg"));
        let params = opencv::core::Vector::from_slice(&[opencv::imgcodecs::IMWRITE_JPEG_QUALITY, 80]);
        let _ = opencv::imgcodecs::imwrite(&path, &small, &params);
    }

    /// The operator's answer to the open question: one of its candidates (with the card where
    /// it leaves one to name), or a fix. One that answers nothing is said, and the question
    /// stays open.
    pub fn answer(&mut self, reply: &Reply) {
        let Some(question) = &self.question else { return };
        match question.line(reply) {
            Ok(line) => self.answer_line(&line),
            Err(why) => self.note(why),
        }
    }

    /// The open question answered with a record line, as `--answers` files give them.
    pub fn answer_line(&mut self, line: &str) {
        self.question = None;
        let at = self.last_at;
        let answer = serde_json::json!({"event": "answer", "line": line, "frame": at.frame, "ms": at.ms});
        self.append(&Entry::Said { event: answer });
        let events = self.referee.answer(line, at);
        self.say(events, at);
    }

    /// The operator read a card the camera could not (a tie-break reveal): `player`'s Front Row
    /// entity `position` (0-based) is `card` (a code such as `QS`).
    pub fn reveal_by_hand(&mut self, player: usize, position: usize, card: &str) {
        let at = self.last_at;
        let events = match card.trim().parse() {
            Ok(card) => self.referee.observe_by_hand(Observation::Revealed { player, position, card }, at),
            Err(e) => vec![RefereeEvent::Note { text: format!("{}: {e}", card.trim()), at }],
        };
        self.say(events, at);
    }

    /// Withdraws the last committed ruling (journalled, so a resume withdraws it too).
    pub fn undo(&mut self) {
        let at = self.last_at;
        self.question = None;
        let (events, lines) = self.referee.undo(at);
        if !lines.is_empty() {
            self.append(&Entry::Undo { lines: lines.len() });
        }
        self.say(events, at);
    }

    /// What the last ruled move moved, table millimetres (arrows on the screen).
    pub fn last_moves(&self) -> &[(Pt, Pt)] {
        &self.last_moves
    }

    fn note_moves(&mut self, view: &TableView) {
        if let (Some(before), Some(layout)) = (&self.ruled_view, self.watch.layout()) {
            self.last_moves = crate::live::marks::moves(before, view, layout);
        }
        self.ruled_view = Some(view.clone());
    }

    /// Says something on the referee's behalf (the window's own doings, such as a file saved).
    pub fn note(&mut self, text: String) {
        let at = self.last_at;
        self.say(vec![RefereeEvent::Note { text, at }], at);
    }

    /// The players stop here: the game is scored as it stands.
    pub fn end_by_agreement(&mut self) {
        if self.referee.state().is_over() {
            return;
        }
        let at = self.last_at;
        let events = self.referee.end_by_agreement(at);
        self.say(events, at);
    }

    /// Keeps what the referee said, answering its questions from the answers given ahead or
    /// the script where there is one. A video resumed after a crash goes on from the frame of
    /// the last commit: the views since may be what tells two explanations apart, and the
    /// referee keeps no memory of them across a crash, so that frame is journalled.
    fn say(&mut self, events: Vec<RefereeEvent>, at: Moment) {
        let mut queue = events;
        let mut committed = false;
        while !queue.is_empty() {
            let mut more = Vec::new();
            for event in queue {
                committed |= matches!(event, RefereeEvent::Input { .. });
                if let Some(echo) = self.echo {
                    echo(&event);
                }
                let mut said = Said { event, answered_by_script: None };
                if let RefereeEvent::Confirm { candidates, .. } = &said.event {
                    let ahead = self.answers.pop_front();
                    match ahead.or_else(|| self.script_answer(candidates)) {
                        Some(answer) => {
                            more.extend(self.referee.answer(&answer, at));
                            said.answered_by_script = Some(answer);
                        }
                        None => self.question = Question::of(&said.event),
                    }
                }
                if let Some(journal) = &mut self.journal
                    && let Err(e) = journal.append_said(&said.event)
                {
                    self.journal_error.get_or_insert(e);
                }
                self.log.push(said);
            }
            queue = more;
        }
        // A question the referee settled on its own leaves the screen.
        if !self.referee.asking() {
            self.question = None;
        }
        if committed {
            self.append(&Entry::Frame { frame: at.frame });
        }
        if self.log.len() > LOG_LIMIT {
            self.log.drain(..self.log.len() - LOG_LIMIT);
        }
    }

    /// Journals the layout in use when it is new (fitted to the deal, adjusted by hand).
    fn journal_layout(&mut self) {
        let Some(layout) = self.watch.layout() else { return };
        if self.journal.is_none() || self.journalled_layout.as_ref() == Some(layout) {
            return;
        }
        let layout = layout.clone();
        self.append(&journal::layout_entry(&layout));
        self.journalled_layout = Some(layout);
    }

    fn append(&mut self, entry: &Entry) {
        let Some(journal) = &mut self.journal else { return };
        if let Err(e) = journal.append(entry) {
            self.journal_error.get_or_insert(e);
        }
    }

    fn script_answer(&self, candidates: &[String]) -> Option<String> {
        self.script.as_ref()?.answer_for(&self.referee, candidates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{CardView, EntityView, SeatView};

    /// The deal of two seats as the table shows it once dealt.
    fn dealt() -> TableView {
        let card = |code: &str| code.parse().expect("a card");
        let seat = |backs: [&str; 5]| SeatView {
            front: (0..2).map(|_| EntityView::single(CardView::down(Pt::new(0.0, 0.0)))).collect(),
            back: backs.iter().map(|c| EntityView::single(CardView::up(card(c), Pt::new(0.0, 0.0)))).collect(),
        };
        TableView {
            seats: vec![seat(["2C", "3C", "4C", "5C", "6C"]), seat(["2D", "3D", "4D", "5D", "6D"])],
            deck: true,
            ..TableView::default()
        }
    }

    #[test]
    fn a_journalled_game_resumes_with_what_was_committed() {
        let dir = std::env::temp_dir().join(format!("live-omphala-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let path = dir.join("game.jsonl");
        let _ = std::fs::remove_file(&path);
        let names = vec!["Ann".to_string(), "Ben".to_string()];
        // Who plays first is known (lots were drawn), so the deal alone is committed.
        let config = RefereeConfig { first: Some(0), ..RefereeConfig::default() };
        let referee = OmphalaReferee::new(names, RuleOptions::default(), config);
        let session = OmphalaSession::with_referee(referee, None, 30.0).expect("a detector");
        let mut session = session.journalled(&path).expect("a journal");
        let at = Moment { frame: 10, ms: 333 };
        let events = session.referee.observe(&dealt(), at);
        session.say(events, at);
        let committed = session.referee().record().to_vec();
        assert!(!committed.is_empty(), "the deal was not committed: {:?}", session.log());
        drop(session);
        let resumed = OmphalaSession::resume(&path, None, 30.0).expect("the journal reads back");
        assert_eq!(resumed.referee().record(), &committed[..]);
        assert_eq!(resumed.referee().names(), ["Ann", "Ben"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
