//! An operator who saw the game: answers `confirm` questions from the game's true record. For
//! evaluating the referee on rendered games, whose script is known; a real table's operator
//! answers through `--answers` or the window.

use super::put_back::{CARD_TO_NAME, NO_ATTACK};

/// How far past the committed lines an answer may lie in the record: passes with an empty deck
/// leave no trace, so the committed record may lack a few of the record's lines.
const LOOKAHEAD: usize = 8;

/// The record's lines (comments, blank lines and `options` dropped).
pub struct Oracle {
    lines: Vec<String>,
}

impl Oracle {
    pub fn from_record(text: &str) -> Oracle {
        let lines = text
            .lines()
            .map(|l| l.split('#').next().unwrap_or("").trim().to_string())
            .filter(|l| !l.is_empty() && !l.starts_with("options"))
            .collect();
        Oracle { lines }
    }

    /// The candidate the record goes on with after what `referee` has committed.
    pub fn answer_for(&self, referee: &super::OmphalaReferee, candidates: &[String]) -> Option<String> {
        let names = referee.names();
        let committed: Vec<String> =
            referee.record().iter().flat_map(|i| crate::rules::omphala::notation::input_lines(names, i)).collect();
        self.answer(&committed, candidates)
    }

    /// The candidate (record lines joined by " / ") the record goes on with after the committed
    /// lines, a card left to name filled in from the record; none when the record does not
    /// say. An attacker put back that the record has no attack for made no attack, and far
    /// explanations the record does not hold are none of what happened.
    pub fn answer(&self, committed: &[String], candidates: &[String]) -> Option<String> {
        let from = self.position_after(committed);
        (from..(from + LOOKAHEAD).min(self.lines.len()))
            .find_map(|start| candidates.iter().find_map(|c| self.filled(start, c)))
            .or_else(|| candidates.iter().find(|c| *c == NO_ATTACK || *c == super::NONE_OF_THESE).cloned())
    }

    /// `candidate` as the record's lines from `start`, when they are its lines.
    fn filled(&self, start: usize, candidate: &str) -> Option<String> {
        let parts: Vec<&str> = candidate.split(" / ").collect();
        let lines = self.lines.get(start..start + parts.len())?;
        // A card left to name stands for one word of the line, wherever it lies in it.
        let fits = |line: &String, part: &&str| {
            let (words, want): (Vec<&str>, Vec<&str>) = (line.split(' ').collect(), part.split(' ').collect());
            words.len() == want.len()
                && words.iter().zip(&want).all(|(w, p)| w == p || (*p == CARD_TO_NAME && !w.is_empty()))
        };
        lines.iter().zip(&parts).all(|(line, part)| fits(line, part)).then(|| lines.join(" / "))
    }

    /// Where the committed lines end in the record: each matched in order, skipping the record's
    /// lines the referee did not commit.
    fn position_after(&self, committed: &[String]) -> usize {
        let mut at = 0;
        for line in committed {
            if let Some(k) = self.lines[at..].iter().position(|l| l == line) {
                at += k + 1;
            }
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORD: &str = "options ace=1\nseat Alice 1 2\nfirst Alice\nAlice end # a comment\nAlice drew 4C\n\
                          Bob attack 9S Alice 1\nAlice revealed 1 3H\n";

    fn lines(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_candidate_the_record_goes_on_with_is_chosen() {
        let oracle = Oracle::from_record(RECORD);
        let committed = lines(&["seat Alice 1 2", "first Alice", "Alice end", "Alice drew 4C"]);
        let candidates = lines(&["Bob attack 9S Alice 2", "Bob attack 9S Alice 1"]);
        assert_eq!(oracle.answer(&committed, &candidates).as_deref(), Some("Bob attack 9S Alice 1"));
    }

    #[test]
    fn a_line_the_referee_missed_is_skipped() {
        let oracle = Oracle::from_record(RECORD);
        let committed = lines(&["seat Alice 1 2", "first Alice", "Alice drew 4C"]);
        let candidates = lines(&["Alice revealed 1 3H", "Bob attack 9S Alice 1"]);
        assert_eq!(oracle.answer(&committed, &candidates).as_deref(), Some("Bob attack 9S Alice 1"));
    }

    #[test]
    fn the_card_left_to_name_is_the_record_s() {
        let oracle = Oracle::from_record(RECORD);
        let committed = lines(&["seat Alice 1 2", "first Alice", "Alice end", "Alice drew 4C"]);
        let candidates = lines(&["Bob attack 9S Alice 1 / Alice revealed 1 ?", "no attack"]);
        let answer = oracle.answer(&committed, &candidates);
        assert_eq!(answer.as_deref(), Some("Bob attack 9S Alice 1 / Alice revealed 1 3H"));
        // An attack the record does not hold was not made.
        let candidates = lines(&["Alice drew ? / Bob attack ? Alice 1", "Bob attack 9S Alice 1"]);
        assert_eq!(oracle.answer(&committed, &candidates).as_deref(), Some("Bob attack 9S Alice 1"), "not Bob's draw");
        let candidates = lines(&["Bob attack ? Alice 1 / Alice revealed 1 ?"]);
        let answer = oracle.answer(&committed, &candidates);
        assert_eq!(answer.as_deref(), Some("Bob attack 9S Alice 1 / Alice revealed 1 3H"), "a card named mid-line");
        let candidates = lines(&["Bob attack 9S Alice 2 / Alice revealed 2 ?", "no attack"]);
        assert_eq!(oracle.answer(&committed, &candidates).as_deref(), Some("no attack"));
    }

    #[test]
    fn no_candidate_in_the_record_gets_no_answer() {
        let oracle = Oracle::from_record(RECORD);
        let candidates = lines(&["Bob steal 9S Alice 4C"]);
        assert_eq!(oracle.answer(&[], &candidates), None);
    }
}
