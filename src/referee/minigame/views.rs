//! Settled views of the piles over time, kept so that a claim is judged against the view that
//! stood when it was made.
//!
//! A view counts once the piles' tops stayed the same, with no card loose, for `quiet_ms`. A claim
//! is judged on the last view settled when it was made, so the verdict is known as soon as the
//! frame of its moment is seen, and it is the same whenever the claim is judged. Frames with a
//! card loose (a hand carrying it) or tops that keep changing settle nothing, so a claim made
//! while a hand moves a card is judged on the view before the move.

use super::piles::{FrameTops, PlaceName, RoundCard, Top};

/// A settled view: the tops of every pile, and from when it stood.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    /// The first of the quiet frames.
    pub since_ms: u64,
    /// The frame that settled it.
    pub settled_ms: u64,
    /// The last frame of the run of quiet frames that settled it (it may stand longer).
    pub until_ms: u64,
    pub frame: u64,
    pub tops: Vec<(PlaceName, Top)>,
    pub evidence: Vec<(PlaceName, RoundCard)>,
}

impl View {
    pub fn top(&self, place: PlaceName) -> Top {
        self.tops.iter().find(|t| t.0 == place).map_or(Top::Empty, |t| t.1)
    }

    pub fn evidence(&self, place: PlaceName) -> Option<&RoundCard> {
        self.evidence.iter().find(|e| e.0 == place).map(|e| &e.1)
    }
}

/// Settles frames into views and keeps them.
#[derive(Clone, Debug)]
pub struct Views {
    quiet_ms: u64,
    run: Option<(u64, u64, FrameTops)>,
    settled: Vec<View>,
    /// Views kept; older ones are dropped (a claim is never judged that late).
    keep: usize,
    last_ms: Option<u64>,
}

impl Views {
    pub fn new(quiet_ms: u64) -> Views {
        Views { quiet_ms, run: None, settled: Vec::new(), keep: 256, last_ms: None }
    }

    /// Adds one frame; returns the view it settled, if it settled a new one.
    pub fn push(&mut self, frame: u64, ms: u64, tops: FrameTops) -> Option<&View> {
        self.last_ms = Some(ms);
        if tops.loose > 0 {
            self.run = None;
            return None;
        }
        match &mut self.run {
            Some((since, _, run)) if run.tops == tops.tops => {
                let since = *since;
                // Keep the most whole reading of each top as the evidence.
                for (place, card) in tops.evidence {
                    match run.evidence.iter_mut().find(|e| e.0 == place) {
                        Some(old) if old.1.symbols.len() >= card.symbols.len() => {}
                        Some(old) => old.1 = card,
                        None => run.evidence.push((place, card)),
                    }
                }
                if ms.saturating_sub(since) < self.quiet_ms {
                    return None;
                }
                let run = run.clone();
                self.settle(frame, since, ms, run)
            }
            _ => {
                self.run = Some((ms, frame, tops));
                if self.quiet_ms == 0 {
                    let (since, _, run) = self.run.clone().expect("just set");
                    return self.settle(frame, since, ms, run);
                }
                None
            }
        }
    }

    fn settle(&mut self, frame: u64, since: u64, ms: u64, run: FrameTops) -> Option<&View> {
        if let Some(last) = self.settled.last_mut()
            && last.tops == run.tops
            && last.since_ms == since
        {
            last.until_ms = ms;
            last.evidence = run.evidence;
            return None;
        }
        if let Some(last) = self.settled.last_mut()
            && last.tops == run.tops
        {
            // The same tops again after a disturbance: the view went on standing.
            last.until_ms = ms;
            return None;
        }
        self.settled.push(View {
            since_ms: since,
            settled_ms: ms,
            until_ms: ms,
            frame,
            tops: run.tops,
            evidence: run.evidence,
        });
        if self.settled.len() > self.keep {
            self.settled.remove(0);
        }
        self.settled.last()
    }

    /// The view that stood at `ms`: the last one settled by then.
    pub fn at(&self, ms: u64) -> Option<&View> {
        self.settled.iter().rev().find(|v| v.settled_ms <= ms)
    }

    /// The first view that began after `since_ms` and stood at least `stood_ms`.
    pub fn after(&self, since_ms: u64, stood_ms: u64) -> Option<&View> {
        self.settled.iter().find(|v| v.since_ms > since_ms && v.until_ms.saturating_sub(v.since_ms) >= stood_ms)
    }

    /// What lay at `place` while `view` could not read it (a hand or an arm over it): the card
    /// read there in the nearest views before and after, when both read the same card. `None`
    /// while no later view has read the place.
    pub fn bridge(&self, view: &View, place: PlaceName) -> Option<Top> {
        let k = self.settled.iter().position(|v| v.since_ms == view.since_ms)?;
        let read = |v: &View| Some(v.top(place)).filter(|t| *t != Top::Unread);
        let before = self.settled[..k].iter().rev().find_map(read);
        let after = self.settled[k + 1..].iter().find_map(read)?;
        Some(match (before, after) {
            (Some(Top::Card(a)), Top::Card(b)) if a == b => Top::Card(a),
            _ => Top::Unread,
        })
    }

    /// The latest reading of `card` at `place`, with where its symbols lie.
    pub fn evidence(&self, place: PlaceName, card: crate::symbols::deck::CardId) -> Option<&RoundCard> {
        self.settled.iter().rev().find_map(|v| v.evidence(place).filter(|e| e.card == Some(card)))
    }

    pub fn latest(&self) -> Option<&View> {
        self.settled.last()
    }

    /// The time of the last frame seen: a claim made by then can be judged.
    pub fn seen_until(&self) -> Option<u64> {
        self.last_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(tops: &[(PlaceName, Top)], loose: usize) -> FrameTops {
        FrameTops { tops: tops.to_vec(), loose, evidence: Vec::new() }
    }

    #[test]
    fn a_view_settles_after_quiet_frames_and_stands_from_the_first() {
        let mut views = Views::new(300);
        let a = [(PlaceName::Draw, Top::Card(1))];
        let b = [(PlaceName::Draw, Top::Card(2))];
        assert!(views.push(0, 0, frame(&a, 0)).is_none());
        assert!(views.push(1, 100, frame(&a, 0)).is_none());
        assert_eq!(views.push(3, 300, frame(&a, 0)).unwrap().since_ms, 0);
        // A hand carries a card: nothing settles; then the new top.
        assert!(views.push(4, 400, frame(&b, 1)).is_none());
        assert!(views.push(5, 500, frame(&b, 0)).is_none());
        assert!(views.push(7, 700, frame(&b, 0)).is_none());
        assert_eq!(views.push(8, 800, frame(&b, 0)).unwrap().since_ms, 500);
        assert_eq!(views.at(450).unwrap().top(PlaceName::Draw), Top::Card(1));
        assert_eq!(views.at(750).unwrap().top(PlaceName::Draw), Top::Card(1));
        assert_eq!(views.at(800).unwrap().top(PlaceName::Draw), Top::Card(2));
        assert_eq!(views.after(0, 0).unwrap().since_ms, 500);
        assert!(views.after(0, 400).is_none(), "it has stood 300 ms so far");
        views.push(9, 900, frame(&b, 0));
        assert_eq!(views.after(0, 400).unwrap().since_ms, 500);
    }

    #[test]
    fn a_place_covered_for_a_while_is_bridged_by_the_same_card_either_side() {
        let mut views = Views::new(0);
        let seen = |t| [(PlaceName::Seat(0), t), (PlaceName::Draw, Top::Card(9))];
        views.push(0, 0, frame(&seen(Top::Card(4)), 0));
        let covered = views.push(1, 100, frame(&seen(Top::Unread), 0)).unwrap().clone();
        assert_eq!(views.bridge(&covered, PlaceName::Seat(0)), None, "nothing read after it yet");
        views.push(2, 200, frame(&seen(Top::Card(4)), 0));
        assert_eq!(views.bridge(&covered, PlaceName::Seat(0)), Some(Top::Card(4)));
        let covered = views.push(3, 300, frame(&seen(Top::Unread), 0)).unwrap().clone();
        views.push(4, 400, frame(&seen(Top::Card(5)), 0));
        assert_eq!(views.bridge(&covered, PlaceName::Seat(0)), Some(Top::Unread), "the card changed under the hand");
    }

    #[test]
    fn the_same_view_after_a_disturbance_goes_on_standing() {
        let mut views = Views::new(0);
        let a = [(PlaceName::Draw, Top::Card(1))];
        assert!(views.push(0, 0, frame(&a, 0)).is_some());
        assert!(views.push(1, 100, frame(&a, 1)).is_none());
        assert!(views.push(2, 200, frame(&a, 0)).is_none());
        assert_eq!(views.latest().unwrap().until_ms, 200);
    }
}
