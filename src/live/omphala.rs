//! One Omphala game refereed live: the table watched frame by frame (`table::watch`), each
//! settled view ruled on by the referee, `confirm` questions answered by the operator (the
//! window's buttons) or by a script that knows the game (the demo's), and everything said kept
//! for the screen.

use crate::capture::Frame;
use crate::referee::omphala::oracle::Oracle;
use crate::referee::omphala::{Moment, OmphalaReferee, RefereeConfig, RefereeEvent};
use crate::rules::omphala::RuleOptions;
use crate::rules::omphala::notation::input_lines;
use crate::table::{TableLayout, TableWatch, Watched};
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
    /// Answers `confirm` questions without asking (the demo's script).
    script: Option<Oracle>,
    log: Vec<Said>,
    /// The candidates the operator is asked to choose from, while unanswered.
    question: Option<Vec<String>>,
    last_at: Moment,
}

impl OmphalaSession {
    /// A new game for `names`; `layout` as in `TableWatch::new`.
    pub fn new(names: Vec<String>, layout: Option<TableLayout>, fps: f64) -> opencv::Result<OmphalaSession> {
        let players = names.len();
        let referee = OmphalaReferee::new(names, RuleOptions::default(), RefereeConfig::default());
        let watch = TableWatch::new(CardDetector::new()?, layout, players, fps, false);
        Ok(OmphalaSession { watch, referee, script: None, log: Vec::new(), question: None, last_at: Moment::default() })
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

    pub fn log(&self) -> &[Said] {
        &self.log
    }

    pub fn question(&self) -> Option<&[String]> {
        self.question.as_deref()
    }

    /// Watches one frame and rules on the view it settles, if any.
    pub fn push(&mut self, frame: &Frame) -> opencv::Result<Watched> {
        let watched = self.watch.push(&frame.image, frame.index, frame.time.as_secs_f64())?;
        if let Some(view) = &watched.view {
            let at = Moment { frame: watched.frame, ms: watched.ms };
            self.last_at = at;
            let events = self.referee.observe(view, at);
            self.say(events, at);
        }
        Ok(watched)
    }

    /// The operator's answer to the open question: one of its candidates.
    pub fn answer(&mut self, line: &str) {
        self.question = None;
        let at = self.last_at;
        let events = self.referee.answer(line, at);
        self.say(events, at);
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

    /// Keeps what the referee said, answering its questions from the script where there is one.
    fn say(&mut self, events: Vec<RefereeEvent>, at: Moment) {
        let mut queue = events;
        while !queue.is_empty() {
            let mut more = Vec::new();
            for event in queue {
                let mut said = Said { event, answered_by_script: None };
                if let RefereeEvent::Confirm { candidates, .. } = &said.event {
                    match self.script_answer(candidates) {
                        Some(answer) => {
                            more.extend(self.referee.answer(&answer, at));
                            said.answered_by_script = Some(answer);
                        }
                        None => self.question = Some(candidates.clone()),
                    }
                }
                self.log.push(said);
            }
            queue = more;
        }
        if self.log.len() > LOG_LIMIT {
            self.log.drain(..self.log.len() - LOG_LIMIT);
        }
    }

    fn script_answer(&self, candidates: &[String]) -> Option<String> {
        let names = self.referee.names();
        let committed: Vec<String> = self.referee.record().iter().flat_map(|i| input_lines(names, i)).collect();
        self.script.as_ref()?.answer(&committed, candidates)
    }
}
