//! The live Omphala referee. It is fed the settled views of the table, one at a time, and keeps
//! every way the game may stand that explains all the views so far (`Hypothesis`). Inputs all
//! hypotheses agree on are committed to the game, ruled on by the rules engine and reported;
//! where they keep disagreeing the operator is asked to `confirm`. A view nothing legal explains
//! is checked against the illegal moves a hand could have made (reported with the rule), and
//! otherwise waited out: a view between two moves explains nothing for a moment. One that stays
//! unexplained is reported as a `desync`, naming the places that differ.

pub mod correct;
pub mod deal;
pub mod events;
pub mod expect;
pub mod fix;
pub mod illegal;
pub mod oracle;
pub mod pile;
pub mod put_back;
pub mod question;
pub mod script;
pub mod search;
pub mod unseen;

use crate::cards::Card;
use crate::rules::omphala::notation::input_lines;
use crate::rules::omphala::{Action, GameState, Input, Observation, RuleOptions, apply};
use crate::table::TableView;
pub use events::{Moment, RefereeEvent};
use expect::{conflicts, expected};
use put_back::{NO_ATTACK, PutBack};
use search::{Hypothesis, explain};

/// Most hypotheses kept at once; the ones with the longest unconfirmed chains go first.
const MAX_HYPOTHESES: usize = 24;

/// Settings of the referee.
#[derive(Clone, Debug)]
pub struct RefereeConfig {
    /// A view that stays unexplained this long is reported as a desync.
    pub desync_after_ms: u64,
    /// Hypotheses that disagree over this many changes of the table are put to the operator.
    pub confirm_after_changes: usize,
    /// Who plays first, when the players drew lots before the deal; otherwise the first moves
    /// tell.
    pub first: Option<usize>,
}

impl Default for RefereeConfig {
    fn default() -> Self {
        RefereeConfig { desync_after_ms: 3000, confirm_after_changes: 4, first: None }
    }
}

/// The referee of one game.
#[derive(Clone)]
pub struct OmphalaReferee {
    names: Vec<String>,
    config: RefereeConfig,
    /// The game as committed: every input all hypotheses agreed on.
    committed: GameState,
    /// Every committed input, in order: the game record.
    record: Vec<Input>,
    hypotheses: Vec<Hypothesis>,
    last_view: Option<TableView>,
    /// Changes of the table seen while the hypotheses disagreed.
    undecided_changes: usize,
    /// What the operator was asked and has not answered.
    asked: Asked,
    /// While the table shows what no explanation explains: since when, and what was said.
    lost: Option<Lost>,
    /// The illegal move last reported: a table still showing it, read a little differently, is
    /// not the same move made again.
    last_illegal: Option<String>,
    /// Front Row cards seen turned up and read while the referee was lost (seat, position,
    /// card): the targets of attacks that may have failed meanwhile, put to the operator once
    /// the table is explained again unless the explanation reveals them.
    lost_reveals: Vec<(usize, usize, Card)>,
    /// The view the operator said none of the far explanations fits: not asked about again.
    far_refused: Option<TableView>,
    /// Places the operator fixed (a card misread, or none there), applied to every view.
    fixes: Vec<fix::Fix>,
    /// The last view as the camera gave it, before the fixes.
    last_seen: Option<TableView>,
    /// Each seat's rows as first seen dealt, until the deal is taken.
    deal_seen: deal::DealSeen,
    /// What the discard pile showed since the last commit, and a discard held for want of it.
    pile: pile::PileWatch,
}

/// What the operator was asked and has not answered (a question about a lost table is part of
/// `Lost`, and may stand beside one of these).
#[derive(Clone, Debug, Default)]
enum Asked {
    /// Nothing: the referee follows the game.
    #[default]
    Nothing,
    /// Which of these inputs came next: the explanations disagree.
    Which(Vec<Input>),
    /// Whether attackers put back with no reveal read had attacked, and with what result:
    /// nothing is committed until the operator answers.
    PutBack(Vec<PutBack>),
    /// Whether the inputs put as `line`, ending in the discard of `card` that the pile never
    /// showed, were played (or `none of these`): nothing is committed until the operator answers.
    Discard { card: Card, line: String },
}

/// The referee lost: the table has shown what no explanation explains since `since` (ms).
#[derive(Clone, Debug)]
struct Lost {
    since: u64,
    /// Whether an illegal move or a desync was said for the view now shown.
    reported: bool,
    /// Whether the view now shown was searched for several moves nobody saw.
    searched_far: bool,
    /// Whether an illegal move or a desync was said since the referee got lost.
    complained: bool,
    /// Whether the operator was asked if the table is right.
    asked_if_right: bool,
    /// Explanations of the view that take several moves nobody saw, put to the operator: the
    /// referee never guesses its way back.
    far: Option<Vec<Hypothesis>>,
    /// Explanations the operator said did not happen (their record lines): not put again.
    refused: Vec<String>,
    /// Discards the operator said were not made (`Asked::Discard`): no explanation takes them.
    discards_refused: Vec<Card>,
}

impl Lost {
    fn since(ms: u64) -> Lost {
        Lost {
            since: ms,
            reported: false,
            searched_far: false,
            complained: false,
            asked_if_right: false,
            far: None,
            refused: Vec::new(),
            discards_refused: Vec::new(),
        }
    }
}

/// The candidate that says none of the explanations put is what happened.
pub const NONE_OF_THESE: &str = "none of these";

/// Most explanations of a lost view put to the operator at once.
const MAX_FAR_CANDIDATES: usize = 6;

impl OmphalaReferee {
    pub fn new(names: Vec<String>, options: RuleOptions, config: RefereeConfig) -> OmphalaReferee {
        let committed = GameState::new(options);
        OmphalaReferee {
            names,
            config,
            hypotheses: vec![Hypothesis::new(committed.clone())],
            committed,
            record: Vec::new(),
            last_view: None,
            undecided_changes: 0,
            asked: Asked::Nothing,
            lost: None,
            last_illegal: None,
            lost_reveals: Vec::new(),
            far_refused: None,
            fixes: Vec::new(),
            last_seen: None,
            deal_seen: deal::DealSeen::default(),
            pile: pile::PileWatch::default(),
        }
    }

    /// A referee that goes on from committed inputs (a journal read back).
    pub fn resume(
        names: Vec<String>,
        options: RuleOptions,
        config: RefereeConfig,
        inputs: &[Input],
    ) -> Result<OmphalaReferee, String> {
        let mut referee = OmphalaReferee::new(names, options, config);
        for (k, input) in inputs.iter().enumerate() {
            apply(&mut referee.committed, input.clone()).map_err(|e| format!("input {}: {e}", k + 1))?;
            referee.record.push(input.clone());
        }
        referee.hypotheses = vec![Hypothesis::new(referee.committed.clone())];
        Ok(referee)
    }

    pub fn state(&self) -> &GameState {
        &self.committed
    }

    pub fn record(&self) -> &[Input] {
        &self.record
    }

    /// How many explanations of the table are still open (1 when the referee is sure).
    pub fn open_explanations(&self) -> usize {
        self.hypotheses.len()
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether a question put to the operator still waits for an answer: one the referee settled
    /// on its own (the explanations came to agree, the pile showed a held discard, the table was
    /// explained again) asks nothing more.
    pub fn asking(&self) -> bool {
        !matches!(self.asked, Asked::Nothing) || self.lost.as_ref().is_some_and(|l| l.asked_if_right || l.far.is_some())
    }

    /// Rules on one settled view of the table.
    pub fn observe(&mut self, view: &TableView, at: Moment) -> Vec<RefereeEvent> {
        let mut out = Vec::new();
        self.last_seen = Some(view.skeleton());
        // Where the cards lie is kept for the search (a card slid out of its row goes back
        // where it lies along the row); the rest compares what lies where, which way up.
        let mut placed = view.clone();
        self.fixes.retain(|f| f.apply(&mut placed));
        let view = &placed.skeleton();
        self.pile.see(view);
        if !self.dealt() {
            self.deal_seen.remember(view);
        }
        let again = self.last_view.as_ref() == Some(view);
        if again && self.lost.as_ref().is_none_or(|l| l.searched_far) {
            self.check_unexplained(view, at, &mut out);
            self.ask_held(at, &mut out);
            return out;
        }
        self.last_view = Some(view.clone());
        let mut next = match self.lost.as_mut() {
            Some(lost) if again => {
                lost.searched_far = true;
                if lost.far.is_some() || self.far_refused.as_ref() == Some(view) {
                    Vec::new()
                } else {
                    self.explain_all(&placed, search::FAR)
                }
            }
            lost => {
                if let Some(lost) = lost {
                    lost.searched_far = false;
                    lost.reported = false;
                }
                self.explain_near(&placed)
            }
        };
        if let Some(lost) = self.lost.as_ref().filter(|l| !l.refused.is_empty()) {
            next.retain(|h| !lost.refused.contains(&self.far_line(h)));
        }
        if let Some(lost) = self.lost.as_ref().filter(|l| !l.discards_refused.is_empty()) {
            let refused = |i: &Input| lost.discards_refused.iter().any(|&c| pile::is_discard_of(i, c));
            next.retain(|h| !h.inputs.iter().any(refused));
        }
        if next.is_empty() {
            self.unexplained(view, at, again, &mut out);
            return out;
        }
        if again {
            // One move the table shows, illegal, explains it better than moves nobody saw around
            // a card nobody saw (an attacker that may not attack, slid out of its row, looks like
            // an unseen card attacking after the attacker was discarded): it is ruled on.
            // Not a move judged illegal only for being made before the draw was seen: the unseen
            // draw is what makes it legal.
            let illegal_alone = self.illegal_move(view).is_some_and(|f| !AWAITING_A_DRAW.contains(&f.rule));
            if next.iter().all(|h| h.unseen.is_some()) && illegal_alone {
                self.unexplained(view, at, again, &mut out);
                return out;
            }
            // Several moves nobody saw explain the table: the operator says which, if any.
            self.ask_far(next, at, &mut out);
            return out;
        }
        // Back from a spell it complained of, by a card drawn before moves it saw: the card may
        // have been drawn later than those moves (the one really drawn then never read, a row
        // misread meanwhile), so the operator says whether that is what happened.
        if let Some(lost) = &self.lost
            && lost.complained
            && next.iter().any(|h| drawn_before_a_move(&h.inputs))
        {
            if lost.far.is_none() {
                self.ask_far(next, at, &mut out);
            }
            return out;
        }
        if self.lost.take().is_some_and(|lost| lost.complained) {
            out.push(RefereeEvent::Restored { at });
        }
        let mut put_back = self.attacks_put_back(&next);
        if put_back.is_empty() {
            put_back = self.reveals_left_out(&next);
        }
        self.lost_reveals.clear();
        if !put_back.is_empty() && !matches!(self.asked, Asked::PutBack(_)) {
            let mut candidates: Vec<String> = put_back.iter().map(|p| p.candidate(&self.names)).collect();
            candidates.push(NO_ATTACK.to_string());
            out.push(RefereeEvent::Confirm { candidates, about: question::About::PutBack, at });
            self.asked = Asked::PutBack(put_back);
        }
        next.sort_by_key(|h| h.inputs.len());
        let mut kept: Vec<Hypothesis> = Vec::new();
        for h in next {
            if !kept.iter().any(|k| search::same_but_passes(k, &h)) {
                kept.push(h);
            }
        }
        let mut next = kept;
        next.truncate(MAX_HYPOTHESES);
        // A change is a move: some explanation took an input more. A view that only reads a card
        // it could not read before changes nothing.
        let longest = |hs: &[Hypothesis]| hs.iter().map(|h| h.inputs.len()).max().unwrap_or(0);
        let changed = longest(&next) > longest(&self.hypotheses);
        self.hypotheses = next;
        self.commit_agreed(view, at, &mut out);
        if self.hypotheses.len() > 1 && changed {
            self.undecided_changes += 1;
        }
        self.ask_held(at, &mut out);
        self.ask_if_due(at, &mut out);
        self.prompt_unread_draw(view, at, &mut out);
        out
    }

    /// A card drawn face up but not read: the game cannot go on until it is.
    fn prompt_unread_draw(&self, view: &TableView, at: Moment, out: &mut Vec<RefereeEvent>) {
        let [only] = &self.hypotheses[..] else { return };
        let Some(crate::rules::omphala::Awaited::DrawnCard { player }) = crate::rules::omphala::awaited(&only.state)
        else {
            return;
        };
        let unread = view
            .seats
            .get(player)
            .is_some_and(|s| s.back.iter().any(|e| e.base.face == crate::table::Face::Up && e.base.card.is_none()));
        if unread {
            let name = self.names.get(player).map_or("?", String::as_str);
            let text = format!("{name}: hold up the card you drew until it is read");
            out.push(RefereeEvent::Prompt { seat: Some(player), text, at });
        }
    }

    /// Puts the explanations to the operator once they have disagreed over a few changes, or at
    /// once when two of them reach the same game or the game is over in one of them: no later
    /// move tells those apart (a tie-break's first reveal looks like an attack's target shown).
    fn ask_if_due(&mut self, at: Moment, out: &mut Vec<RefereeEvent>) {
        let ended = self.hypotheses.iter().any(|h| !matches!(h.state.phase, crate::rules::omphala::Phase::Playing));
        // Two records that reach the same game cannot be told apart by any later move.
        let same_game = self
            .hypotheses
            .iter()
            .enumerate()
            .any(|(i, a)| self.hypotheses[i + 1..].iter().any(|b| a.state == b.state));
        let due = self.undecided_changes >= self.config.confirm_after_changes || ended || same_game;
        if self.hypotheses.len() > 1 && due && matches!(self.asked, Asked::Nothing) {
            self.ask(at, out);
        }
    }

    /// A hypothesis as `view` is judged now: a shield nobody saw drawn can only be the committed
    /// turn's (a second back seen in another row is the row finder's shadow, whichever turn the
    /// hypothesis has reached), and only while every Diamond of that player's Back Row is still
    /// in sight: a Diamond seen leaving the row is a shield the rules place, and a second back
    /// elsewhere must not decide where.
    fn judged_now(&self, h: &Hypothesis, view: &TableView) -> Hypothesis {
        let playing = matches!(self.committed.phase, crate::rules::omphala::Phase::Playing);
        let player = self.committed.turn.player;
        let diamonds_stay = self.committed.players.get(player).is_some_and(|p| {
            let mut diamonds = p.back.iter().filter_map(|e| e.card).filter(|c| c.suit == crate::cards::Suit::Diamonds);
            diamonds.all(|card| view.back_row_shows(player, card))
        });
        Hypothesis { shielder: (playing && diamonds_stay).then_some(player), ..h.clone() }
    }

    /// Every explanation of `view` from every open hypothesis. Before the deal is taken, when
    /// no view shows it, also from the deal put together from each seat's rows as first seen
    /// dealt.
    fn explain_all(&self, view: &TableView, reach: search::Reach) -> Vec<Hypothesis> {
        let found = self.explain_from(&self.hypotheses, view, reach);
        if !found.is_empty() || self.dealt() {
            return found;
        }
        let mut dealt = Vec::new();
        for input in self.deal_seen.deals(&self.names) {
            let Input::Observe(Observation::Deal(deal)) = &input else { continue };
            if self.config.first.is_some_and(|first| first != deal.first) {
                continue;
            }
            dealt.extend(self.hypotheses.iter().filter_map(|h| search::step_or_refusal(h, input.clone()).ok()));
        }
        self.explain_from(&dealt, view, reach)
    }

    /// The explanations of a changed view by the near search. Where every one takes the card on
    /// the pile's top for a card drawn and discarded at once (in sight nowhere else), that card
    /// may be the one put there, misread (a discarded 9D read as the 7D for five seconds, taken
    /// for a turn's end with a second draw discarded unseen): the explanations of the view with
    /// the pile's top unread stand beside them, and the views to come, or the operator, tell
    /// them apart.
    fn explain_near(&self, view: &TableView) -> Vec<Hypothesis> {
        let mut found = self.explain_all(view, search::NEAR);
        let Some(top) = view.discard.and_then(|c| c.shown()) else { return found };
        if found.is_empty() || !found.iter().all(|h| draws(h, top)) {
            return found;
        }
        let mut unread = view.clone();
        if let Some(pile) = &mut unread.discard {
            pile.card = None;
        }
        for h in self.explain_all(&unread, search::NEAR) {
            add_new(&mut found, h);
        }
        found
    }

    fn explain_from(&self, starts: &[Hypothesis], view: &TableView, reach: search::Reach) -> Vec<Hypothesis> {
        let mut next: Vec<Hypothesis> = Vec::new();
        for h in starts {
            for found in
                explain(&self.judged_now(h, view), view, &self.names, self.config.first, reach, &self.lost_reveals)
            {
                add_new(&mut next, found);
            }
        }
        next
    }

    /// Puts the explanations of a lost view found only by the far search to the operator: their
    /// inputs past the committed game, and `NONE_OF_THESE`.
    fn ask_far(&mut self, mut found: Vec<Hypothesis>, at: Moment, out: &mut Vec<RefereeEvent>) {
        found.sort_by_key(|h| h.inputs.len());
        let (mut candidates, mut kept): (Vec<String>, Vec<Hypothesis>) = (Vec::new(), Vec::new());
        for h in found {
            let line = self.far_line(&h);
            if candidates.len() < MAX_FAR_CANDIDATES && !candidates.contains(&line) {
                candidates.push(line);
                kept.push(h);
            }
        }
        candidates.push(NONE_OF_THESE.to_string());
        out.push(RefereeEvent::Confirm { candidates, about: question::About::MovesUnseen, at });
        if let Some(lost) = &mut self.lost {
            lost.far = Some(kept);
        }
        // The answer goes to this question: a put-back question still open (its answer refused)
        // is about a table the game has left, and would take it.
        if matches!(self.asked, Asked::PutBack(_)) {
            self.asked = Asked::Nothing;
        }
    }

    /// A far explanation as a candidate: its record lines past the committed game, the card of
    /// a draw nobody saw left to name.
    fn far_line(&self, h: &Hypothesis) -> String {
        unseen::line(&self.names, h)
    }

    /// The far explanation the operator chose by `line`: a candidate as put, or one with the
    /// card of its unseen draw named (replayed with that card). An error says why an answer
    /// naming a card is not taken.
    /// The card named must fit the table as well as the stand-in did.
    fn far_chosen(&self, found: &[Hypothesis], line: &str, view: &TableView) -> Option<Result<Hypothesis, String>> {
        if let Some(h) = found.iter().find(|h| h.unseen.is_none() && self.far_line(h) == line) {
            return Some(Ok(h.clone()));
        }
        found.iter().filter(|h| h.unseen.is_some()).find_map(|h| {
            let card = match unseen::named_card(&self.far_line(h), line)? {
                Ok(card) => card,
                Err(why) => return Some(Err(why)),
            };
            Some(match unseen::replay(&self.committed, h, card) {
                Err(e) => Err(format!("not taken: {e}")),
                Ok(named) if named.distance(view) > h.distance(view) => {
                    Err(format!("not taken: the table shows {card} elsewhere"))
                }
                Ok(named) => Ok(named),
            })
        })
    }

    /// The operator's answer to the far explanations put: the one that happened is committed
    /// and the game goes on; with `NONE_OF_THESE` the referee stays lost on this view.
    fn answer_far(&mut self, found: Vec<Hypothesis>, line: &str, at: Moment) -> Vec<RefereeEvent> {
        let mut out = Vec::new();
        if line.trim() == NONE_OF_THESE {
            self.far_refused = self.last_view.clone();
            let lines: Vec<String> = found.iter().map(|h| self.far_line(h)).collect();
            if let Some(lost) = &mut self.lost {
                lost.refused.extend(lines);
            }
            return out;
        }
        let view = self.last_view.clone().unwrap_or_default();
        let chosen = match self.far_chosen(&found, line.trim(), &view) {
            Some(Ok(chosen)) => chosen,
            refused => {
                let text = match refused {
                    Some(Err(why)) => why,
                    _ => format!("'{}' is none of the candidates", line.trim()),
                };
                out.push(RefereeEvent::Note { text, at });
                if let Some(lost) = &mut self.lost {
                    lost.far = Some(found);
                }
                return out;
            }
        };
        // The operator saw the chain's discards made.
        for input in &chosen.inputs {
            if let Input::Act { action: Action::Discard(card), .. } = input {
                self.pile.confirm(*card);
            }
        }
        self.hypotheses = vec![chosen];
        if self.lost.take().is_some_and(|lost| lost.complained) {
            out.push(RefereeEvent::Restored { at });
        }
        self.undecided_changes = 0;
        self.asked = Asked::Nothing;
        self.commit_agreed(&view, at, &mut out);
        out
    }

    /// The operator's answer to a `confirm`: the record line of the input they chose.
    pub fn answer(&mut self, line: &str, at: Moment) -> Vec<RefereeEvent> {
        if self.lost.as_ref().is_some_and(|l| l.asked_if_right) {
            if let Some(turn) = correct::turn_in(line, &self.names) {
                return self.correct_to_table(turn, at);
            }
            if line.trim() == correct::PUT_BACK {
                if let Some(lost) = &mut self.lost {
                    lost.asked_if_right = false;
                }
                return Vec::new();
            }
            if line.trim_start().starts_with("fix ") {
                return self.fix(line, at);
            }
        }
        let asked = std::mem::take(&mut self.asked);
        if let Asked::PutBack(attacks) = asked {
            return self.answer_put_back(attacks, line, at);
        }
        if let Asked::Discard { card, line: asked } = asked {
            return self.answer_discard(card, asked, line, at);
        }
        if let Some(found) = self.lost.as_mut().and_then(|l| l.far.take()) {
            self.asked = asked;
            return self.answer_far(found, line, at);
        }
        let mut out = Vec::new();
        let Asked::Which(asked) = asked else {
            return out;
        };
        let chosen = asked.iter().find(|i| input_lines(&self.names, i).join(" / ") == line.trim());
        let Some(chosen) = chosen else {
            out.push(RefereeEvent::Note { text: format!("'{}' is none of the candidates", line.trim()), at });
            self.asked = Asked::Which(asked);
            return out;
        };
        let chosen = chosen.clone();
        self.hypotheses.retain(|h| h.inputs.first() == Some(&chosen));
        self.undecided_changes = 0;
        if let Some(view) = self.last_view.clone() {
            self.commit_agreed(&view, at, &mut out);
        }
        self.ask_if_due(at, &mut out);
        out
    }

    /// The operator fixes one place the camera got wrong (`fix NAME front|back P CARD|none`):
    /// the fix holds while the place reads as it does now, and the table is explained afresh.
    fn fix(&mut self, line: &str, at: Moment) -> Vec<RefereeEvent> {
        let note = |text: String| vec![RefereeEvent::Note { text, at }];
        let mut fix = match fix::parse(line, &self.names) {
            Ok(fix) => fix,
            Err(why) => return note(why),
        };
        let Some(seen) = self.last_seen.clone() else { return note("no view of the table yet".into()) };
        if !fix.take_reading(&seen) {
            return note(format!("'{}': no card lies there in the view", line.trim()));
        }
        self.fixes.push(fix);
        // Seen afresh with the fix: not the same view again.
        self.last_view = None;
        let mut out = note(format!("fixed: {}", line.trim()));
        out.extend(self.observe(&seen, at));
        out
    }

    /// The operator says the table is right as the last view shows it, `turn` to play: the game
    /// is corrected to it (each correction committed as a record line) and refereed on from
    /// there. Refused, saying why, before the deal or where the view does not show the table
    /// well enough to take (a card unread).
    pub fn correct_to_table(&mut self, turn: usize, at: Moment) -> Vec<RefereeEvent> {
        let mut out = Vec::new();
        let note = |text: String| vec![RefereeEvent::Note { text, at }];
        let Some(view) = self.last_view.clone() else { return note("no view of the table yet".into()) };
        if !matches!(self.committed.phase, crate::rules::omphala::Phase::Playing) {
            return note("only a game in play is corrected to the table".into());
        }
        let list = match correct::corrections(&self.committed, &view, &self.names, turn) {
            Ok(list) => list,
            Err(why) => return note(format!("the table cannot be taken as it lies: {why}")),
        };
        let inputs = list.into_iter().map(Input::Correct).collect();
        self.lost_reveals.clear();
        let (batch, refused) = self.commit_inputs(inputs, at, &mut out);
        if let Some(e) = refused {
            out.push(RefereeEvent::Note { text: format!("not taken: {e}"), at });
        }
        out.extend(events::prompts(&self.committed, &batch, at));
        self.hypotheses = vec![Hypothesis::new(self.committed.clone())];
        self.asked = Asked::Nothing;
        self.lost = None;
        self.far_refused = None;
        self.undecided_changes = 0;
        self.last_illegal = None;
        let differences = conflicts(&expected(&self.committed), &view);
        if differences.is_empty() {
            out.push(RefereeEvent::Restored { at });
        } else {
            out.push(RefereeEvent::Waiting { differences, at });
        }
        out
    }

    /// The operator withdraws the last committed input (a ruling the table did not mean): the
    /// game goes back to before it and the table is explained afresh. Returns what was said and
    /// the withdrawn input's record lines.
    pub fn undo(&mut self, at: Moment) -> (Vec<RefereeEvent>, Vec<String>) {
        let Some(input) = self.record.last().cloned() else {
            return (vec![RefereeEvent::Note { text: "nothing to undo".into(), at }], Vec::new());
        };
        let lines = input_lines(&self.names, &input);
        let kept = &self.record[..self.record.len() - 1];
        let options = self.committed.options;
        match OmphalaReferee::resume(self.names.clone(), options, self.config.clone(), kept) {
            Ok(before) => *self = before,
            Err(e) => return (vec![RefereeEvent::Note { text: format!("cannot undo: {e}"), at }], Vec::new()),
        }
        (vec![RefereeEvent::Note { text: format!("undone: {}", lines.join(" / ")), at }], lines)
    }

    /// An observation the operator enters by hand, one the camera could not read (a tie-break
    /// reveal read from the card in a player's hand, a card that would not read): ruled on by
    /// the engine and committed like a seen one. Refused while explanations disagree.
    pub fn observe_by_hand(&mut self, observation: Observation, at: Moment) -> Vec<RefereeEvent> {
        let mut out = Vec::new();
        if self.hypotheses.len() > 1 || matches!(self.asked, Asked::PutBack(_)) {
            let text = "answer the open question first: the game is not settled".to_string();
            out.push(RefereeEvent::Note { text, at });
            return out;
        }
        match self.commit_inputs(vec![Input::Observe(observation)], at, &mut out) {
            (_, Some(e)) => out.push(RefereeEvent::Note { text: format!("not taken: {e}"), at }),
            (events, None) => {
                out.extend(events::prompts(&self.committed, &events, at));
                self.hypotheses = vec![Hypothesis::new(self.committed.clone())];
            }
        }
        out
    }

    /// Rules on `inputs` in order, committing and saying each; stops at the first the engine
    /// refuses. The events of those taken, and the refusal.
    fn commit_inputs(
        &mut self,
        inputs: Vec<Input>,
        at: Moment,
        out: &mut Vec<RefereeEvent>,
    ) -> (Vec<crate::rules::omphala::Event>, Option<crate::rules::omphala::Illegal>) {
        let mut batch = Vec::new();
        for input in inputs {
            match apply(&mut self.committed, input.clone()) {
                Ok(events) => {
                    self.pile.committed();
                    self.record.push(input.clone());
                    out.push(RefereeEvent::input(&self.committed, &self.names, &input, &events, at));
                    batch.extend(events);
                }
                Err(e) => return (batch, Some(e)),
            }
        }
        (batch, None)
    }

    /// The number of leading inputs all hypotheses share.
    fn common_len(&self, hypotheses: &[Hypothesis]) -> usize {
        let Some(first) = hypotheses.first() else {
            return 0;
        };
        let mut n = first.inputs.len();
        for h in &hypotheses[1..] {
            n = n.min(first.inputs.iter().zip(&h.inputs).take_while(|(a, b)| a == b).count());
        }
        n
    }

    fn commit_agreed(&mut self, view: &TableView, at: Moment, out: &mut Vec<RefereeEvent>) {
        let n = self.common_len(&self.hypotheses);
        if n == 0 || matches!(self.asked, Asked::PutBack(_)) {
            return;
        }
        let agreed: Vec<Input> = self.hypotheses[0].inputs[..n].to_vec();
        // A discard the pile never showed waits for it, or for the operator (`pile`).
        if self.pile.hold(&self.committed, &agreed, view, at.ms).is_some() {
            return;
        }
        for h in &mut self.hypotheses {
            h.inputs.drain(..n);
        }
        let (batch, refused) = self.commit_inputs(agreed, at, out);
        if let Some(e) = refused {
            // A hypothesis was built by the same engine: this cannot be refused. Said, not hidden.
            out.push(RefereeEvent::Note { text: format!("the engine refused an agreed input: {e}"), at });
            return;
        }
        out.extend(events::prompts(&self.committed, &batch, at));
        self.undecided_changes = 0;
        self.asked = Asked::Nothing;
        if let [only] = &self.hypotheses[..]
            && let only = self.judged_now(only, view)
            && !only.matches(view)
        {
            out.push(RefereeEvent::Waiting { differences: only.conflicts(view), at });
        }
    }

    /// Puts a held discard to the operator once the pile has gone on not showing it for as long
    /// as a desync takes: the agreed inputs through it, or `none of these`.
    fn ask_held(&mut self, at: Moment, out: &mut Vec<RefereeEvent>) {
        let Some(held) = self.pile.held() else { return };
        let due = at.ms.saturating_sub(held.since) >= self.config.desync_after_ms;
        if !due || self.lost.is_some() || !matches!(self.asked, Asked::Nothing) {
            return;
        }
        let n = self.common_len(&self.hypotheses);
        let Some(first) = self.hypotheses.first() else { return };
        let chain = pile::through_discard(&first.inputs[..n], held.card).to_vec();
        if !chain.last().is_some_and(|i| pile::is_discard_of(i, held.card)) {
            return;
        }
        let line = chain.iter().flat_map(|i| input_lines(&self.names, i)).collect::<Vec<_>>().join(" / ");
        let candidates = vec![line.clone(), NONE_OF_THESE.to_string()];
        out.push(RefereeEvent::Confirm { candidates, about: question::About::DiscardUnseen, at });
        self.asked = Asked::Discard { card: held.card, line };
    }

    /// The operator's answer to a held discard: played, it is committed with the inputs before
    /// it; not played, no explanation may take it, and the referee is lost until one without it
    /// explains the table.
    fn answer_discard(&mut self, card: Card, asked: String, line: &str, at: Moment) -> Vec<RefereeEvent> {
        let mut out = Vec::new();
        let view = self.last_view.clone().unwrap_or_default();
        if line.trim() == asked {
            self.pile.confirm(card);
            self.commit_agreed(&view, at, &mut out);
            self.ask_if_due(at, &mut out);
            return out;
        }
        if line.trim() != NONE_OF_THESE {
            out.push(RefereeEvent::Note { text: format!("'{}' is none of the candidates", line.trim()), at });
            self.asked = Asked::Discard { card, line: asked };
            return out;
        }
        self.hypotheses.retain(|h| !h.inputs.iter().any(|i| pile::is_discard_of(i, card)));
        if self.hypotheses.is_empty() {
            self.hypotheses = vec![Hypothesis::new(self.committed.clone())];
            let lost = self.lost.get_or_insert_with(|| Lost::since(at.ms));
            lost.discards_refused.push(card);
            // The view is searched afresh, as far as a lost one is.
            self.last_view = None;
        }
        self.pile.committed();
        self.undecided_changes = 0;
        self.commit_agreed(&view, at, &mut out);
        out
    }

    fn ask(&mut self, at: Moment, out: &mut Vec<RefereeEvent>) {
        let n = self.common_len(&self.hypotheses);
        let mut candidates: Vec<Input> = Vec::new();
        for h in &self.hypotheses {
            if let Some(input) = h.inputs.get(n)
                && !candidates.contains(input)
            {
                candidates.push(input.clone());
            }
        }
        if candidates.len() < 2 {
            return;
        }
        let lines = candidates.iter().map(|i| input_lines(&self.names, i).join(" / ")).collect();
        out.push(RefereeEvent::Confirm { candidates: lines, about: question::About::WhichMove, at });
        self.asked = Asked::Which(candidates);
    }

    /// A view nothing legal explains. Only one that stayed (`persisted`: given again a moment
    /// later) is judged illegal: a table between two moves of one hand can pass for an illegal
    /// move for a moment.
    fn unexplained(&mut self, view: &TableView, at: Moment, persisted: bool, out: &mut Vec<RefereeEvent>) {
        let lost = self.lost.get_or_insert_with(|| Lost::since(at.ms));
        let (reported, complained) = (lost.reported, lost.complained);
        for (seat, row) in view.seats.iter().enumerate() {
            for (position, e) in row.front.iter().enumerate() {
                let shown = (e.base.face == crate::table::Face::Up).then_some(e.base.card).flatten();
                if let Some(card) = shown.filter(|&c| !self.lost_reveals.contains(&(seat, position, c))) {
                    self.lost_reveals.push((seat, position, card));
                }
            }
        }
        if !self.dealt() && !persisted {
            out.push(RefereeEvent::Note { text: awaiting_deal(view, self.names.len()), at });
            out.extend(unread_deal_prompts(view, &self.names, at));
        }
        // A Front Row card turned up but not read yet: the ruling needs it read.
        if !persisted {
            for (seat, s) in view.seats.iter().enumerate() {
                for (k, e) in s.front.iter().enumerate() {
                    if e.base.face == crate::table::Face::Up && e.base.card.is_none() {
                        let name = self.names.get(seat).map_or("?", String::as_str);
                        let text = format!("{name}: hold Front Row card {} face up until it is read", k + 1);
                        out.push(RefereeEvent::Prompt { seat: Some(seat), text, at });
                    }
                }
            }
        }
        if !self.dealt() || reported || !persisted {
            return;
        }
        if let Some(found) = self.illegal_move(view) {
            let lost = self.lost.get_or_insert_with(|| Lost::since(at.ms));
            lost.reported = true;
            if complained && self.last_illegal.as_ref() == Some(&found.text) {
                return;
            }
            lost.complained = true;
            self.last_illegal = Some(found.text.clone());
            out.push(RefereeEvent::Illegal {
                seat: found.seat,
                name: self.names.get(found.seat).cloned().unwrap_or_default(),
                action: found.text,
                rule: found.rule.to_string(),
                sentence: found.sentence,
                at,
            });
            return;
        }
        self.check_unexplained(view, at, out);
    }

    /// The attacks some explanations awaited a reveal for, when every explanation of the view
    /// now is the game without them: the attacker went back to its row with no reveal read.
    fn attacks_put_back(&self, next: &[Hypothesis]) -> Vec<PutBack> {
        use crate::rules::omphala::state::Pending;
        let mut attacks: Vec<PutBack> = Vec::new();
        for found in self.hypotheses.iter().filter_map(PutBack::of) {
            if !attacks.contains(&found) {
                attacks.push(found);
            }
        }
        let without = self.hypotheses.iter().filter(|h| !matches!(h.state.pending, Pending::Reveal(_)));
        let Some(longest) = without.map(|h| h.inputs.len()).max() else { return Vec::new() };
        let put_back = next.iter().all(|n| n.inputs.len() <= longest && !matches!(n.state.pending, Pending::Reveal(_)));
        if put_back { attacks } else { Vec::new() }
    }

    /// The attacks on the targets seen turned up while the referee was lost (`lost_reveals`)
    /// that would have failed along the explanations found now, which leave them out.
    fn reveals_left_out(&self, next: &[Hypothesis]) -> Vec<PutBack> {
        let mut out: Vec<PutBack> = Vec::new();
        for &(seat, position, card) in &self.lost_reveals {
            for h in next {
                // The same attack found at another place along another explanation reads the
                // same to the operator: asked once.
                for found in PutBack::failed_along(&self.committed, h, (seat, position), card) {
                    if !out.iter().any(|o| o.attack == found.attack) {
                        out.push(found);
                    }
                }
            }
        }
        out
    }

    /// The operator's answer to whether an attacker put back had attacked: no attack, or the
    /// attack with the card its target showed.
    fn answer_put_back(&mut self, attacks: Vec<PutBack>, line: &str, at: Moment) -> Vec<RefereeEvent> {
        let mut out = Vec::new();
        let view = self.last_view.clone().unwrap_or_default();
        if line.trim() == NO_ATTACK {
            self.commit_agreed(&view, at, &mut out);
            self.ask_if_due(at, &mut out);
            return out;
        }
        let found = attacks.iter().find_map(|a| a.card_in(&self.names, line).map(|card| (a, card)));
        let refusal = match found {
            None => format!("'{}' is none of the candidates", line.trim()),
            Some((_, Err(e))) => e,
            Some((attack, Ok(card))) => match attack.replay(&self.committed, &self.hypotheses, card) {
                Err(e) => format!("not taken: {e}"),
                Ok(next) if !next.iter().any(|h| h.matches(&view)) => {
                    format!("not taken: the table does not show a failed attack on {card}")
                }
                Ok(next) => {
                    self.hypotheses = next;
                    self.undecided_changes = 0;
                    self.commit_agreed(&view, at, &mut out);
                    self.ask_if_due(at, &mut out);
                    return out;
                }
            },
        };
        out.push(RefereeEvent::Note { text: refusal, at });
        self.asked = Asked::PutBack(attacks);
        out
    }

    /// Whether some explanation has seen the deal. Until the first move tells who plays first,
    /// the deal is open in several explanations and nothing is committed, yet the game is on.
    fn dealt(&self) -> bool {
        self.hypotheses.iter().any(|h| h.state.phase != crate::rules::omphala::Phase::Setup)
    }

    /// The illegal move the table shows in some open explanation. One in which the mover is the
    /// player to move is preferred: with who plays first still open, a first move made illegally
    /// is not also "out of turn" in the explanations where another player starts, nor where the
    /// players before its maker may have passed unseen (the deck empty: `search::after_passes`).
    fn illegal_move(&self, view: &TableView) -> Option<illegal::Found> {
        let found: Vec<(usize, illegal::Found)> = self
            .hypotheses
            .iter()
            .flat_map(|h| search::after_passes(&h.state))
            .filter_map(|(_, state)| illegal::explain(&state, view, &self.names).map(|f| (state.turn.player, f)))
            .collect();
        let in_turn = found.iter().position(|(to_move, f)| *to_move == f.seat);
        found.into_iter().nth(in_turn.unwrap_or(0)).map(|(_, f)| f)
    }

    fn check_unexplained(&mut self, view: &TableView, at: Moment, out: &mut Vec<RefereeEvent>) {
        let Some(lost) = &self.lost else {
            return;
        };
        // While far explanations are put to the operator, the question says the referee is lost.
        if lost.reported || lost.far.is_some() || at.ms.saturating_sub(lost.since) < self.config.desync_after_ms {
            return;
        }
        if !self.dealt() {
            return;
        }
        let judged: Vec<Hypothesis> = self.hypotheses.iter().map(|h| self.judged_now(h, view)).collect();
        if let Some(best) = judged.iter().min_by_key(|h| h.distance(view)) {
            out.push(RefereeEvent::Desync { differences: best.conflicts(view), at });
            let Some(lost) = &mut self.lost else { return };
            lost.reported = true;
            lost.complained = true;
            // Lost: the operator can say the table is right (and whose turn it is), or that it
            // will be put back.
            if !lost.asked_if_right {
                let candidates = correct::candidates(&self.committed, &self.names);
                out.push(RefereeEvent::Confirm { candidates, about: question::About::TableRight, at });
                lost.asked_if_right = true;
            }
        }
    }

    /// The players end the game by agreement: ended in every explanation still open; committed
    /// at once when they agree on what came before, else the operator is asked.
    pub fn end_by_agreement(&mut self, at: Moment) -> Vec<RefereeEvent> {
        let mut out = Vec::new();
        let mut ended = Vec::new();
        let mut refused = None;
        for h in &self.hypotheses {
            let mut h = h.clone();
            match apply(&mut h.state, Input::EndByAgreement) {
                Ok(_) => {
                    h.inputs.push(Input::EndByAgreement);
                    h.lag.clear();
                    ended.push(h);
                }
                Err(e) => refused = Some(e),
            }
        }
        if ended.is_empty() {
            let text = refused.map_or_else(|| "nothing to end".to_string(), |e| e.to_string());
            out.push(RefereeEvent::Note { text, at });
            return out;
        }
        self.hypotheses = ended;
        if matches!(self.asked, Asked::Which(_)) {
            self.asked = Asked::Nothing;
        }
        let view = self.last_view.clone().unwrap_or_default();
        self.commit_agreed(&view, at, &mut out);
        self.ask_if_due(at, &mut out);
        out
    }
}

/// The rules a move breaks only by being made while the game waits for a drawn card to be seen
/// (or for the discard a draw owes).
const AWAITING_A_DRAW: [&str; 2] = ["waiting-for-observation", "discard-owed"];

/// Adds `h` to `found` unless an explanation with its state and inputs is there already.
fn add_new(found: &mut Vec<Hypothesis>, h: Hypothesis) {
    if !found.iter().any(|f| f.state == h.state && f.inputs == h.inputs) {
        found.push(h);
    }
}

/// Whether `h` takes `card` for a card drawn.
fn draws(h: &Hypothesis, card: Card) -> bool {
    h.inputs.iter().any(|i| matches!(i, Input::Observe(Observation::Drawn { card: drawn, .. }) if *drawn == card))
}

/// Whether a drawn card is taken in before a move of the game (an end of turn or a draw aside).
fn drawn_before_a_move(inputs: &[Input]) -> bool {
    let drawn = inputs.iter().position(|i| matches!(i, Input::Observe(Observation::Drawn { .. })));
    drawn.is_some_and(|k| {
        inputs[k + 1..]
            .iter()
            .any(|i| matches!(i, Input::Act { action, .. } if !matches!(action, Action::EndTurn | Action::Draw)))
    })
}

/// A deal in place but for Back Row cards the camera cannot read: the game cannot start until
/// they are, so their owners are asked to straighten them.
fn unread_deal_prompts(view: &TableView, names: &[String], at: Moment) -> Vec<RefereeEvent> {
    if view.seats.len() != names.len() || !view.seats.iter().all(deal::laid_as_dealt) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (seat, (s, name)) in view.seats.iter().zip(names).enumerate() {
        let unread: Vec<String> = s
            .back
            .iter()
            .enumerate()
            .filter(|(_, e)| e.base.card.is_none())
            .map(|(k, _)| (k + 1).to_string())
            .collect();
        if !unread.is_empty() {
            let text = format!(
                "{name}: Back Row card {} cannot be read; straighten it so its corner shows",
                unread.join(", ")
            );
            out.push(RefereeEvent::Prompt { seat: Some(seat), text, at });
        }
    }
    out
}

/// What a view lacks to be the deal, in words: each seat's face-down and face-up cards (a deal
/// is 2 and 5), the cards it could not read and those lying in no row.
fn awaiting_deal(view: &TableView, players: usize) -> String {
    use crate::table::Face;
    let seats: Vec<String> = view
        .seats
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let down = s.front.iter().filter(|e| e.base.face == Face::Down).count();
            let up = s.back.iter().filter(|e| e.base.face == Face::Up).count();
            let unread = s.back.iter().filter(|e| e.base.face == Face::Up && e.base.card.is_none()).count();
            format!("seat {}: {down} face down, {up} face up ({unread} unread)", k + 1)
        })
        .collect();
    format!(
        "waiting for the deal of {players} seats (2 face down and 5 face up each): {}; {} cards in no row",
        seats.join(", "),
        view.loose.len()
    )
}
