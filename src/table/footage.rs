//! Real footage labelled by eye, and the settled view scored against it: which face-up cards lie
//! where at chosen moments of a video or a folder of photos, and which stretches of it show a
//! table where nothing moves. `eval track` runs the tracker over the footage and scores it here:
//! cards named right at their moments, names given that are false, events while nothing moves,
//! and how soon each card of the first moment was named.

use std::path::Path;

use serde_json::Value;

use crate::cards::Card;
use crate::geometry::Pt;

use super::view::{CardView, Face};

/// One labelled card: the codes it may be (one, or several where the eye cannot tell its index
/// apart), its centre in image pixels, and whether it may go unseen (cut by the picture's edge
/// or half under a hand).
#[derive(Clone, Debug, PartialEq)]
pub struct LabelCard {
    pub allowed: Vec<Card>,
    pub centre: Pt,
    pub optional: bool,
}

impl LabelCard {
    /// Whether naming this card is expected: its identity is sure and it lies in full view.
    pub fn counted(&self) -> bool {
        self.allowed.len() == 1 && !self.optional
    }
}

/// When a moment is: a frame number of a video, or a photo of a folder by its file name.
#[derive(Clone, Debug, PartialEq)]
pub enum At {
    Frame(u64),
    Image(String),
}

/// The face-up cards at one moment.
#[derive(Clone, Debug, PartialEq)]
pub struct Moment {
    pub at: At,
    pub cards: Vec<LabelCard>,
}

/// A labelled piece of footage.
#[derive(Clone, Debug, PartialEq)]
pub struct FootageLabels {
    /// The source, as `--source` takes it (a path relative to the repository's root).
    pub source: String,
    /// A card's length in pixels, about: how near a track must lie to a labelled card.
    pub card_px: f64,
    /// Frame ranges (inclusive) in which nothing on the table moves.
    pub still: Vec<(u64, u64)>,
    pub moments: Vec<Moment>,
}

/// Seconds after the start of a still stretch from which any event counts against the view
/// (the cards must be named by then).
pub const SETTLE_SECS: f64 = 2.0;
/// A track lies at a labelled card when nearer than this many card lengths (an index read
/// without its outline lies a third of a card from the centre).
const NEAR_LENGTHS: f64 = 0.7;

impl FootageLabels {
    pub fn load(path: &Path) -> Result<FootageLabels, String> {
        let text = crate::text_input::read_text(path, 4 << 20, "footage labels").map_err(|e| e.to_string())?;
        FootageLabels::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<FootageLabels, String> {
        let root: Value = serde_json::from_str(text).map_err(|e| crate::text_input::json_error(&e))?;
        let field = |name: &str| root.get(name).ok_or_else(|| format!("no \"{name}\""));
        let source = field("source")?.as_str().ok_or("\"source\" is not a string")?.to_string();
        let card_px = field("card_px")?.as_f64().filter(|v| *v > 0.0).ok_or("\"card_px\" is not a positive number")?;
        let mut still = Vec::new();
        if let Some(ranges) = root.get("still") {
            for (i, r) in ranges.as_array().ok_or("\"still\" is not a list")?.iter().enumerate() {
                let pair = r.as_array().and_then(|a| Some((a.first()?.as_u64()?, a.get(1)?.as_u64()?)));
                match pair {
                    Some((a, b)) if a <= b => still.push((a, b)),
                    _ => return Err(format!("still[{i}] is not [first, last] frame numbers")),
                }
            }
        }
        let mut moments = Vec::new();
        for (i, m) in field("moments")?.as_array().ok_or("\"moments\" is not a list")?.iter().enumerate() {
            moments.push(parse_moment(m).map_err(|e| format!("moments[{i}]: {e}"))?);
        }
        Ok(FootageLabels { source, card_px, still, moments })
    }
}

fn parse_moment(m: &Value) -> Result<Moment, String> {
    let at = match (m.get("frame").and_then(Value::as_u64), m.get("image").and_then(Value::as_str)) {
        (Some(frame), None) => At::Frame(frame),
        (None, Some(image)) => At::Image(image.to_string()),
        _ => return Err("needs a \"frame\" number or an \"image\" name".into()),
    };
    let mut cards = Vec::new();
    for (k, c) in m.get("cards").and_then(Value::as_array).ok_or("no \"cards\" list")?.iter().enumerate() {
        cards.push(parse_card(c).map_err(|e| format!("cards[{k}]: {e}"))?);
    }
    Ok(Moment { at, cards })
}

/// `["7S", x, y]`, `["KH|QH", x, y]`, `["8C", x, y, "optional"]`, or `["??", x, y, "optional"]`
/// (a card the eye cannot name at all).
fn parse_card(c: &Value) -> Result<LabelCard, String> {
    let items = c.as_array().ok_or("not a list [code, x, y]")?;
    let codes = items.first().and_then(Value::as_str).ok_or("no card code")?;
    let allowed = if codes == "??" {
        Card::deck()
    } else {
        codes
            .split('|')
            .map(|code| code.trim().parse::<Card>().map_err(|_| format!("'{code}' is no card code")))
            .collect::<Result<Vec<Card>, String>>()?
    };
    let number = |k: usize| items.get(k).and_then(Value::as_f64).ok_or_else(|| format!("item {k} is no number"));
    let optional = match items.get(3) {
        None => false,
        Some(Value::String(s)) if s == "optional" => true,
        Some(other) => return Err(format!("item 3 is {other}, expected \"optional\"")),
    };
    Ok(LabelCard { allowed, centre: Pt::new(number(1)?, number(2)?), optional })
}

/// How the view did at one moment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MomentScore {
    /// Labelled cards whose naming is expected.
    pub counted: usize,
    /// Of those, named right.
    pub right: usize,
    /// Names given to face-up cards that are not the card lying there (or where no face-up
    /// card lies), with where.
    pub false_names: Vec<(Card, Pt)>,
    /// Counted cards not named (unread, or not in the view).
    pub missed: Vec<Card>,
}

/// Scores the cards a view shows (image pixels) against one moment's labels: each label takes
/// the nearest track named one of its codes, then the nearest track left; a face-up track
/// named anything its label does not allow, or lying at no label, is a false name.
pub fn score_moment(labels: &[LabelCard], shown: &[CardView], card_px: f64) -> MomentScore {
    let near = NEAR_LENGTHS * card_px;
    let up: Vec<&CardView> = shown.iter().filter(|c| c.face == Face::Up).collect();
    let mut taken = vec![false; up.len()];
    let mut owner: Vec<Option<usize>> = vec![None; labels.len()];
    for named_first in [true, false] {
        let mut pairs: Vec<(f64, usize, usize)> = Vec::new();
        for (l, label) in labels.iter().enumerate() {
            for (t, c) in up.iter().enumerate() {
                let fits = c.card.is_some_and(|card| label.allowed.contains(&card));
                let d = label.centre.distance(c.centre);
                if d < near && (fits || !named_first) {
                    pairs.push((d, l, t));
                }
            }
        }
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        for (_, l, t) in pairs {
            if owner[l].is_none() && !taken[t] {
                owner[l] = Some(t);
                taken[t] = true;
            }
        }
    }
    let mut score = MomentScore::default();
    for (l, label) in labels.iter().enumerate() {
        let name = owner[l].and_then(|t| up[t].card);
        if let Some(card) = name
            && !label.allowed.contains(&card)
        {
            score.false_names.push((card, up[owner[l].unwrap_or(0)].centre));
        }
        if label.counted() {
            score.counted += 1;
            match name {
                Some(card) if label.allowed.contains(&card) => score.right += 1,
                _ => score.missed.push(label.allowed[0]),
            }
        }
    }
    for (t, c) in up.iter().enumerate() {
        if let (false, Some(card)) = (taken[t], c.card) {
            score.false_names.push((card, c.centre));
        }
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(code: &str) -> Card {
        code.parse().unwrap()
    }

    #[test]
    fn labels_parse_and_say_where_they_are_wrong() {
        let text = r#"{"source": "folder:x", "card_px": 100, "still": [[0, 10]],
            "moments": [{"image": "1.jpg", "cards": [["7S", 10, 20], ["KH|QH", 30, 40, "optional"]]}]}"#;
        let labels = FootageLabels::parse(text).unwrap();
        assert_eq!(labels.still, vec![(0, 10)]);
        assert_eq!(labels.moments[0].at, At::Image("1.jpg".into()));
        assert_eq!(labels.moments[0].cards[1].allowed, vec![card("KH"), card("QH")]);
        assert!(labels.moments[0].cards[0].counted() && !labels.moments[0].cards[1].counted());
        let bad = text.replace("KH|QH", "KX");
        assert_eq!(FootageLabels::parse(&bad).unwrap_err(), "moments[0]: cards[1]: 'KX' is no card code");
        let bad = text.replace("\"card_px\": 100", "\"card_px\": -1");
        assert!(FootageLabels::parse(&bad).unwrap_err().contains("card_px"));
    }

    #[test]
    fn a_moment_counts_right_names_misses_and_false_names() {
        let labels = vec![
            LabelCard { allowed: vec![card("7S")], centre: Pt::new(100.0, 100.0), optional: false },
            LabelCard { allowed: vec![card("9H")], centre: Pt::new(300.0, 100.0), optional: false },
            LabelCard { allowed: vec![card("KH"), card("QH")], centre: Pt::new(500.0, 100.0), optional: false },
            LabelCard { allowed: vec![card("2C")], centre: Pt::new(700.0, 100.0), optional: false },
        ];
        let shown = vec![
            CardView::up(card("7S"), Pt::new(130.0, 110.0)),
            CardView::up(card("6H"), Pt::new(300.0, 90.0)),
            CardView::up(card("QH"), Pt::new(505.0, 100.0)),
            CardView { face: Face::Up, card: None, centre: Pt::new(700.0, 100.0) },
            CardView::up(card("AD"), Pt::new(900.0, 400.0)),
            CardView { face: Face::Down, card: Some(card("5C")), centre: Pt::new(900.0, 100.0) },
        ];
        let score = score_moment(&labels, &shown, 100.0);
        assert_eq!((score.counted, score.right), (3, 1));
        assert_eq!(score.missed, vec![card("9H"), card("2C")]);
        let falses: Vec<Card> = score.false_names.iter().map(|(c, _)| *c).collect();
        assert_eq!(falses, vec![card("6H"), card("AD")]);
    }
}
