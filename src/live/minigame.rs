//! One spot-the-symbol game refereed live: each frame's round cards read by the symbol
//! recognizer, the piles learnt from the deal and each claim judged by the mini-game referee
//! (`referee::minigame`) on the view that stood when it was made. A claim's time is the time of
//! the frame being refereed when the operator pressed the claimer's key.

use std::path::Path;

use crate::capture::Frame;
use crate::referee::journal::Journal;
use crate::referee::minigame::{Event, MiniGameOptions, MiniGameReferee, RoundCard, SeatClaim};
use crate::symbols::games::GameKind;
use crate::vision::symbols::SymbolRecognizer;

/// Most events kept for the screen (the journal keeps them all).
const LOG_LIMIT: usize = 400;

pub struct MiniGameSession {
    recognizer: SymbolRecognizer,
    referee: MiniGameReferee,
    log: Vec<Event>,
    journal: Option<Journal>,
    journal_error: Option<String>,
    /// The time of the last frame refereed, milliseconds since the source started.
    last_ms: u64,
}

impl MiniGameSession {
    /// A new game of `kind` for `names`, played with `deck` ("cipher", "plane-N" or a deck.json)
    /// as `profile` enrolled it (none: the Cipher deck's built-in appearance).
    pub fn new(kind: GameKind, names: Vec<String>, deck: &str, profile: Option<&Path>) -> Result<Self, String> {
        let recognizer = SymbolRecognizer::for_deck(deck, profile).map_err(|e| format!("{e:#}"))?;
        let referee = MiniGameReferee::new(kind, recognizer.deck().clone(), names, MiniGameOptions::default());
        Ok(MiniGameSession { recognizer, referee, log: Vec::new(), journal: None, journal_error: None, last_ms: 0 })
    }

    /// Journals every event at `path` from the game's start.
    pub fn journalled(mut self, path: &Path) -> Result<Self, String> {
        let mut journal = Journal::open(path)?;
        journal.append_json(&self.referee.start_event())?;
        self.journal = Some(journal);
        Ok(self)
    }

    pub fn referee(&self) -> &MiniGameReferee {
        &self.referee
    }

    pub fn log(&self) -> &[Event] {
        &self.log
    }

    /// The deck's symbol names, for the claim search.
    pub fn symbols(&self) -> &[String] {
        self.recognizer.deck().symbols()
    }

    pub fn last_ms(&self) -> u64 {
        self.last_ms
    }

    /// The journal this game is kept in, if one.
    pub fn journal_path(&self) -> Option<&Path> {
        self.journal.as_ref().map(Journal::path)
    }

    pub fn journal_error(&self) -> Option<&str> {
        self.journal_error.as_deref()
    }

    /// Reads one frame's cards and referees them; returns the cards read.
    pub fn push(&mut self, frame: &Frame) -> Result<Vec<RoundCard>, String> {
        let cards = self.recognizer.round_cards(&frame.image).map_err(|e| format!("frame {}: {e:#}", frame.index))?;
        self.last_ms = frame.time.as_millis() as u64;
        let events = self.referee.observe(frame.index, self.last_ms, &cards);
        self.say(events);
        Ok(cards)
    }

    /// `seat` called `called` at `ms`; judged once the views around that moment are in.
    pub fn claim(&mut self, seat: usize, called: &str, ms: u64) {
        self.referee.claim(SeatClaim { ms, seat, called: called.to_string(), target: None });
    }

    /// The players stop: claims still open are judged and the game is scored.
    pub fn finish(&mut self) {
        let events = self.referee.finish(self.last_ms);
        self.say(events);
    }

    fn say(&mut self, events: Vec<Event>) {
        for event in events {
            if let Some(journal) = &mut self.journal
                && let Err(e) = journal.append_json(&event)
            {
                self.journal_error.get_or_insert(e);
            }
            if !matches!(event, Event::Frame { .. }) {
                self.log.push(event);
            }
        }
        if self.log.len() > LOG_LIMIT {
            self.log.drain(..self.log.len() - LOG_LIMIT);
        }
    }
}
