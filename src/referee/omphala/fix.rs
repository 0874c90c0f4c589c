//! The operator fixes what the camera got wrong at one place, while the referee is lost: a card
//! misread or unread there is the card they type (`fix Alice back 3 7H`), or a card the camera
//! sees where none lies is not there (`fix Alice front 6 none`, a hand's shadow or a sleeve).
//! The fix holds while the camera keeps reading the place as it did, and ends once the place
//! shows something else (the card was moved).

use crate::cards::Card;
use crate::table::{Face, TableView};

/// One place fixed by the operator.
#[derive(Clone, Debug, PartialEq)]
pub struct Fix {
    pub seat: usize,
    pub front: bool,
    /// 0-based position in the row.
    pub position: usize,
    /// The card the camera reads there (`None`: unread or face down), as when the fix was made.
    pub read: Option<Option<Card>>,
    /// The card that lies there, or `None`: no card lies there.
    pub is: Option<Card>,
}

/// Reads `fix NAME front|back P CARD|none` (P from 1).
pub fn parse(line: &str, names: &[String]) -> Result<Fix, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [_, name, row, position, card] = words[..] else {
        return Err(format!("'{}': a fix is 'fix NAME front|back POSITION CARD|none'", line.trim()));
    };
    let seat = names.iter().position(|n| n == name).ok_or_else(|| format!("'{name}' is none of the players"))?;
    let front = match row {
        "front" => true,
        "back" => false,
        other => return Err(format!("'{other}': the row is front or back")),
    };
    let position = match position.parse::<usize>() {
        Ok(p) if p >= 1 => p - 1,
        _ => return Err(format!("'{position}' is not a position (1 for the first card in the row)")),
    };
    let is = match card {
        "none" => None,
        code => Some(code.parse::<Card>().map_err(|e| e.to_string())?),
    };
    Ok(Fix { seat, front, position, read: None, is })
}

impl Fix {
    /// What the camera reads at the fixed place of `view`, if an entity lies there.
    fn reading(&self, view: &TableView) -> Option<Option<Card>> {
        let seat = view.seats.get(self.seat)?;
        let row = if self.front { &seat.front } else { &seat.back };
        row.get(self.position).map(|e| e.base.shown())
    }

    /// Remembers what the camera reads at the place now; `false` when nothing lies there.
    pub fn take_reading(&mut self, view: &TableView) -> bool {
        self.read = self.reading(view);
        self.read.is_some()
    }

    /// Applies the fix to `view` where the place reads as it did; `false` once another card is
    /// read there (the card was moved: the fix has ended). A place hidden for a moment (under a
    /// hand, unread) keeps the fix for when it shows again.
    pub fn apply(&self, view: &mut TableView) -> bool {
        let now = self.reading(view);
        if now != self.read {
            return !matches!(now, Some(Some(_)));
        }
        let seat = &mut view.seats[self.seat];
        let row = if self.front { &mut seat.front } else { &mut seat.back };
        match self.is {
            None => {
                row.remove(self.position);
            }
            Some(card) => {
                let base = &mut row[self.position].base;
                base.face = Face::Up;
                base.card = Some(card);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Pt;
    use crate::table::{CardView, EntityView, SeatView};

    fn view(backs: &[&str]) -> TableView {
        let up = |c: &&str| EntityView::single(CardView::up(c.parse().unwrap(), Pt::new(0.0, 0.0)));
        let seat = SeatView { front: Vec::new(), back: backs.iter().map(up).collect() };
        TableView { seats: vec![seat.clone(), seat], ..TableView::default() }
    }

    #[test]
    fn a_fix_holds_while_the_place_reads_as_it_did_and_ends_after() {
        let names = ["Ann".to_string(), "Ben".to_string()];
        let mut fix = parse("fix Ben back 2 7H", &names).unwrap();
        assert!(fix.take_reading(&view(&["2C", "6H"])));
        let mut seen = view(&["2C", "6H"]);
        assert!(fix.apply(&mut seen));
        assert_eq!(seen.seats[1].back[1].base.card, Some("7H".parse().unwrap()));
        assert_eq!(seen.seats[0].back[1].base.card, Some("6H".parse().unwrap()), "only Ben's row");
        assert!(fix.apply(&mut view(&["2C"])), "hidden for a moment: the fix holds");
        assert!(!fix.apply(&mut view(&["2C", "9S"])), "another card lies there now");
        let mut gone = parse("fix Ann back 1 none", &names).unwrap();
        assert!(gone.take_reading(&view(&["2C", "6H"])));
        let mut seen = view(&["2C", "6H"]);
        assert!(gone.apply(&mut seen));
        assert_eq!(seen.seats[0].back.len(), 1);
    }

    #[test]
    fn a_bad_fix_says_what_is_wrong() {
        let names = ["Ann".to_string()];
        assert!(parse("fix Ann back 3", &names).unwrap_err().contains("fix NAME front|back"));
        assert!(parse("fix Cy back 3 7H", &names).unwrap_err().contains("'Cy'"));
        assert!(parse("fix Ann side 3 7H", &names).unwrap_err().contains("front or back"));
        assert!(parse("fix Ann back 0 7H", &names).unwrap_err().contains("not a position"));
        assert!(parse("fix Ann back 1 7X", &names).is_err());
    }
}
