//! A question put to the operator, typed: what it is about and its candidates, each saying
//! whether it leaves a card to name. The operator answers by a candidate's index (with the card
//! where one is left to name) or with a fix; the answer becomes the record line the referee,
//! the journal and `--answers` files take (`docs/referee-events.md`, `confirm`).

pub use super::events::About;
use super::events::RefereeEvent;
use super::put_back::CARD_TO_NAME;
use crate::cards::Card;

/// One candidate answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// Its record line(s), joined by ` / `.
    pub line: String,
    /// Whether it leaves a card to name (written `?` in the line).
    pub names_card: bool,
}

/// An open question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    pub about: About,
    pub candidates: Vec<Candidate>,
}

/// The operator's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// The candidate at this index, with the card for each place it leaves to name.
    Pick { index: usize, card: Option<Card> },
    /// While lost: a place the camera got wrong (`NAME front|back POSITION CARD|none`).
    Fix(String),
}

impl Question {
    /// The question a `confirm` puts; `None` for any other event.
    pub fn of(event: &RefereeEvent) -> Option<Question> {
        let RefereeEvent::Confirm { candidates, about, .. } = event else { return None };
        let candidates = candidates
            .iter()
            .map(|line| Candidate { line: line.clone(), names_card: line.split(' ').any(|w| w == CARD_TO_NAME) })
            .collect();
        Some(Question { about: *about, candidates })
    }

    /// The record line `reply` answers with; an error says why it answers nothing.
    pub fn line(&self, reply: &Reply) -> Result<String, String> {
        match reply {
            Reply::Fix(fix) if self.about == About::TableRight => Ok(format!("fix {}", fix.trim())),
            Reply::Fix(_) => Err("a fix answers only the question whether the table is right".into()),
            Reply::Pick { index, card } => {
                let candidate = self.candidates.get(*index).ok_or_else(|| format!("no candidate {}", index + 1))?;
                match (candidate.names_card, card) {
                    (false, _) => Ok(candidate.line.clone()),
                    (true, Some(card)) => {
                        let code = card.to_string();
                        let words =
                            candidate.line.split(' ').map(|w| if w == CARD_TO_NAME { code.as_str() } else { w });
                        Ok(words.collect::<Vec<_>>().join(" "))
                    }
                    (true, None) => Err(format!("'{}' needs the card named", candidate.line)),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::referee::omphala::Moment;

    fn asked(about: About, candidates: &[&str]) -> Question {
        let event = RefereeEvent::Confirm {
            candidates: candidates.iter().map(|c| c.to_string()).collect(),
            about,
            at: Moment::default(),
        };
        Question::of(&event).expect("a confirm is a question")
    }

    #[test]
    fn a_pick_answers_with_its_line_and_a_card_fills_each_place_left_to_name() {
        let q = asked(About::MovesUnseen, &["Bob drew ? / Bob discard ? / Carol end", "none of these"]);
        assert_eq!(q.candidates.iter().map(|c| c.names_card).collect::<Vec<_>>(), [true, false]);
        let card = Some("3H".parse().unwrap());
        assert_eq!(q.line(&Reply::Pick { index: 0, card }).unwrap(), "Bob drew 3H / Bob discard 3H / Carol end");
        assert_eq!(q.line(&Reply::Pick { index: 1, card: None }).unwrap(), "none of these");
        assert!(q.line(&Reply::Pick { index: 0, card: None }).unwrap_err().contains("needs the card"));
        assert!(q.line(&Reply::Pick { index: 2, card: None }).is_err());
    }

    #[test]
    fn a_fix_answers_only_a_lost_referee() {
        let lost = asked(About::TableRight, &["the table is right, Ann to play", "the table will be put back"]);
        assert_eq!(lost.line(&Reply::Fix(" Ann back 3 7H ".into())).unwrap(), "fix Ann back 3 7H");
        let which = asked(About::WhichMove, &["Ann draw", "Ann end"]);
        assert!(which.line(&Reply::Fix("Ann back 3 7H".into())).is_err());
    }
}
