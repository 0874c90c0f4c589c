//! The index networks: small convolutional networks that read a patch (see `patch`) as a rank
//! and a suit, or as no index at all. One reads the corner windows of card outlines, one the
//! candidates of the loose index search. They are trained on rendered tables only
//! (`models/train/`, `models/README.md`) and run through OpenCV's DNN module; the ONNX files are
//! compiled into the program.
//!
//! Each network reads its patches transposed (`models/train/transpose_net.py`): the same function
//! of the patch, but OpenCV runs convolutions and pooling row by row, and the patches are taller
//! than wide, so long rows run a fifth faster (the corner networks) or a tenth (the loose ones).

use std::sync::Mutex;

use opencv::{core, dnn, prelude::*};

use super::patch::{CORNER_H, CORNER_W, INDEX_H, INDEX_W, PLANES, Patch};
use crate::cards::{Card, Rank, Suit};

const CORNER_MODEL: &[u8] = include_bytes!("../../../../models/card_index_corner.onnx");
const LOOSE_MODEL: &[u8] = include_bytes!("../../../../models/card_index_loose.onnx");
/// Smaller networks distilled from those two, which read first (see `QuickFirst`).
const CORNER_QUICK_MODEL: &[u8] = include_bytes!("../../../../models/card_index_corner_quick.onnx");
const LOOSE_QUICK_MODEL: &[u8] = include_bytes!("../../../../models/card_index_loose_quick.onnx");

/// A quick network's reading stands when it reads a card at least this surely (its own bar,
/// `QuickFirst::sure_card`), or no index at least `SURE_NOTHING` surely (as sure as the loose
/// search needs to leave a candidate unread by the templates: `SURE_BLANK`). Each bar is
/// chosen on the held-out typefaces' patches so that the readings left standing add no more
/// than a few errors in ten thousand to the full network's (models/README.md, "The quick
/// networks" and "Strided quick networks"). Lower bars misread cards on real photos that the
/// full network reads right.
const SURE_CARD_CORNER: f32 = 0.91;
const SURE_CARD_LOOSE: f32 = 0.92;
const SURE_NOTHING: f32 = SURE_BLANK;

/// How sure the loose network must be that a candidate shows no index for the templates to
/// leave it unread. The templates read it anyway below this: they catch thin serif indices the
/// network reads unsure; above it they mostly misread pips and pictures (models/README.md,
/// "Tuning measurements": `SURE_BLANK`). The quick networks' bar for "none" is this one
/// (`SURE_NOTHING`).
pub(in crate::vision::cards) const SURE_BLANK: f32 = 0.95;

/// The two corners of one card outline read by the quick network stand together, without the
/// full network, when both name the same card at least this surely (`QuickFirst::read_paired`):
/// two windows on opposite ends of a card agreeing is evidence a single window lacks. Chosen on
/// rendered tables in the held-out typefaces (`examples/corner_pair_bar.rs`, models/README.md,
/// "Corners that agree").
const SURE_PAIR_CORNER: f32 = 0.85;

/// Where the quick network settles neither corner of an outline (naming one card at both below
/// the pair bar, or two cards), the full network reads the less sure corner first; when it names
/// the surer corner's card at least this surely, that corner's quick reading stands without a
/// full reading of its own (`QuickFirst::read_paired`). Chosen on rendered tables in the held-out
/// typefaces (`examples/corner_pair_bar.rs`, models/README.md, "A pair confirmed by one full
/// reading", "A settled corner's partner, and pairs read apart"). With outlines named from 0.7,
/// 3,168 such outlines named no card wrong more from 0.85 down to
/// 0.7 and two more at 0.6; 0.75 leaves a step to spare and reads 7 % fewer corners in full.
const SURE_CONFIRM_CORNER: f32 = 0.75;

/// Where the quick network settles one corner of an outline on its own and names the same card
/// at the other corner at least this surely (below the pair bar), both readings stand without
/// the full network (`QuickFirst::read_paired`). Chosen on rendered tables in the held-out
/// typefaces (`examples/corner_pair_bar.rs`, models/README.md, "A settled corner's partner, and
/// pairs read apart").
const SURE_PARTNER_CORNER: f32 = 0.5;

/// Outputs: 13 ranks (A..K) and "none", then 4 suits (`Suit::ALL` order) and "none".
const RANKS: usize = 14;

const SUITS: usize = 5;

/// A short name for the two shipped networks (a hash of their files): enrolled embeddings are
/// only comparable within one version of them.
/// Hashed once (2 MB of networks): every profile read compares it.
pub fn fingerprint() -> String {
    static FINGERPRINT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    FINGERPRINT
        .get_or_init(|| {
            // FNV-1a, 64 bits.
            let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
            for &b in CORNER_MODEL.iter().chain(LOOSE_MODEL) {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
            }
            format!("{hash:016x}")
        })
        .clone()
}

/// What the network makes of one patch: a probability for each rank and "none", and for each
/// suit and "none"; and the hidden layer they are read from, scaled to length 1 (patches of one
/// index lie close together there: an enrolled deck is compared by it).
#[derive(Clone, Debug, PartialEq)]
pub struct NetReading {
    pub ranks: [f32; RANKS],
    pub suits: [f32; SUITS],
    pub embedding: Vec<f32>,
}

impl NetReading {
    /// The likeliest card and its probability (rank's times suit's); `None` when "none" is the
    /// likeliest rank or suit.
    pub fn card(&self) -> Option<(Card, f32)> {
        let (rank, p_rank) = best(&self.ranks)?;
        let (suit, p_suit) = best(&self.suits)?;
        let rank = Rank::new(rank as u8 + 1)?;
        Some((Card::new(rank, Suit::ALL[suit]), p_rank * p_suit))
    }

    /// The likeliest card that is none of `ruled_out` (cards known to lie elsewhere), and its
    /// probability once they are ruled out; `None` when "none" is the likeliest rank or suit.
    pub fn card_other_than(&self, ruled_out: &[Card]) -> Option<(Card, f32)> {
        self.card()?;
        let left = 1.0 - ruled_out.iter().map(|c| self.probability(*c)).sum::<f32>();
        let (card, p) = (1..=13)
            .filter_map(Rank::new)
            .flat_map(|rank| Suit::ALL.map(|suit| Card::new(rank, suit)))
            .filter(|card| !ruled_out.contains(card))
            .map(|card| (card, self.probability(card)))
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        Some((card, p / left.max(1e-6)))
    }

    /// The probability that the patch shows `card` (its rank's times its suit's).
    pub fn probability(&self, card: Card) -> f32 {
        self.ranks[usize::from(card.rank.value()) - 1] * self.suits[card.suit.index()]
    }

    /// How sure the network is that the patch shows no index.
    pub fn nothing(&self) -> f32 {
        self.ranks[RANKS - 1].max(self.suits[SUITS - 1])
    }

    /// Whether a quick network's reading is sure enough to stand, a card being read at
    /// `sure_card` or more (see `QuickFirst`).
    fn settled(&self, sure_card: f32) -> bool {
        match self.card() {
            Some((_, p)) => p >= sure_card,
            None => self.nothing() >= SURE_NOTHING,
        }
    }
}

/// The largest value's position and value, unless the last ("none") is the largest.
fn best(values: &[f32]) -> Option<(usize, f32)> {
    let (i, &p) = values.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1))?;
    (i + 1 < values.len()).then_some((i, p))
}

/// `v` scaled to length 1 (zero stays zero).
fn unit(v: &[f32]) -> Vec<f32> {
    let length = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if length > 0.0 { v.iter().map(|x| x / length).collect() } else { v.to_vec() }
}

/// One index network and the patch size it reads.
pub struct IndexNet {
    /// OpenCV's `forward` needs the network mutably; one frame's patches go through at once.
    net: Mutex<dnn::Net>,
    w: i32,
    h: i32,
    /// Whether the network gives its hidden layer as a second output, `embedding`.
    embeds: bool,
}

impl IndexNet {
    /// The network that reads card outlines' corner windows.
    pub fn corner() -> opencv::Result<IndexNet> {
        IndexNet::from_onnx(CORNER_MODEL, CORNER_W, CORNER_H)
    }

    /// The network that reads the loose index search's candidates.
    pub fn loose() -> opencv::Result<IndexNet> {
        IndexNet::from_onnx(LOOSE_MODEL, INDEX_W, INDEX_H)
    }

    /// A network from ONNX bytes that reads `w x h` patches, transposed (its input is `h` wide and
    /// `w` high: see the module's comment).
    pub fn from_onnx(bytes: &[u8], w: i32, h: i32) -> opencv::Result<IndexNet> {
        let mut net = dnn::read_net_from_onnx_buffer(&core::Vector::<u8>::from_slice(bytes))?;
        net.set_preferable_backend(dnn::DNN_BACKEND_OPENCV)?;
        net.set_preferable_target(dnn::DNN_TARGET_CPU)?;
        let embeds = net.get_layer_id("embedding")? >= 0;
        Ok(IndexNet { net: Mutex::new(net), w, h, embeds })
    }

    /// How many values the network's embedding has (0 when it gives none): what an enrolled
    /// profile's embeddings must have to be compared with its readings.
    pub fn embedding_len(&self) -> opencv::Result<usize> {
        let blank = Patch { w: self.w, h: self.h, bytes: vec![0; PLANES * (self.w * self.h) as usize] };
        Ok(self.read(&[&blank])?.first().map_or(0, |r| if self.embeds { r.embedding.len() } else { 0 }))
    }

    /// Reads patches (all of this network's size) in one batch.
    pub fn read(&self, patches: &[&Patch]) -> opencv::Result<Vec<NetReading>> {
        if patches.is_empty() {
            return Ok(Vec::new());
        }
        let per = PLANES * (self.w * self.h) as usize;
        let shape = [patches.len() as i32, PLANES as i32, self.w, self.h];
        let mut blob = Mat::new_nd_with_default(&shape, core::CV_32F, core::Scalar::all(0.0))?;
        let data = blob.data_typed_mut::<f32>()?;
        for (chunk, patch) in data.chunks_exact_mut(per).zip(patches) {
            if patch.w != self.w || patch.h != self.h {
                let message = format!("a {}x{} patch for a {}x{} network", patch.w, patch.h, self.w, self.h);
                return Err(opencv::Error::new(core::StsBadArg, message));
            }
            transpose_into(chunk, &patch.bytes, self.w as usize, self.h as usize);
        }
        let mut net = self.net.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        net.set_input(&blob, "", 1.0, core::Scalar::default())?;
        let mut outs = core::Vector::<Mat>::new();
        let names: &[&str] = if self.embeds { &["reading", "embedding"] } else { &["reading"] };
        net.forward(&mut outs, &core::Vector::<String>::from_iter(names.iter().copied()))?;
        let n = patches.len();
        let reading = outs.get(0)?;
        let embedding = if self.embeds {
            outs.get(1)?
        } else {
            Mat::new_rows_cols_with_default(n as i32, 1, core::CV_32F, core::Scalar::all(0.0))?
        };
        let (values, hidden) = (reading.data_typed::<f32>()?, embedding.data_typed::<f32>()?);
        if values.len() != n * (RANKS + SUITS) || hidden.is_empty() || hidden.len() % n != 0 {
            let message =
                format!("the index network gave {} and {} values for {n} patches", values.len(), hidden.len());
            return Err(opencv::Error::new(core::StsError, message));
        }
        Ok(values
            .chunks_exact(RANKS + SUITS)
            .zip(hidden.chunks_exact(hidden.len() / n))
            .map(|(v, e)| NetReading {
                ranks: std::array::from_fn(|i| v[i]),
                suits: std::array::from_fn(|i| v[RANKS + i]),
                embedding: unit(e),
            })
            .collect())
    }
}

/// Each `w x h` plane of `bytes` (row by row), transposed into `out` (column by column), as 0..1.
fn transpose_into(out: &mut [f32], bytes: &[u8], w: usize, h: usize) {
    for (out, plane) in out.chunks_exact_mut(w * h).zip(bytes.chunks_exact(w * h)) {
        for (y, row) in plane.chunks_exact(w).enumerate() {
            for (x, &b) in row.iter().enumerate() {
                out[x * h + y] = f32::from(b) / 255.0;
            }
        }
    }
}

/// An index network with a smaller one distilled from it that reads first: the full network
/// reads only the patches the quick one is unsure of. Most patches of a frame are plain cards
/// or plain paper, which the quick network reads as well as the full one at a third of the cost.
pub struct QuickFirst {
    quick: IndexNet,
    pub full: IndexNet,
    /// How surely the quick network must read a card for its reading to stand.
    sure_card: f32,
    /// How surely it must read the same card at both corners of an outline for the two to stand
    /// together (`read_paired`); above 1, never.
    sure_pair: f32,
    /// How surely the full network must read, at one corner of an outline, the card the quick
    /// network names at both, for the other corner's quick reading to stand (`read_paired`);
    /// above 1, never.
    sure_confirm: f32,
    /// How surely the quick network must name, at one corner of an outline, the card it settles
    /// at the other, for the two to stand together (`read_paired`); above 1, never.
    sure_partner: f32,
    /// Whether a pair the quick network reads as two cards is confirmed as one read alike is.
    confirm_apart: bool,
}

impl QuickFirst {
    /// The corner windows' pair of networks.
    pub fn corner() -> opencv::Result<QuickFirst> {
        Ok(QuickFirst {
            quick: IndexNet::from_onnx(CORNER_QUICK_MODEL, CORNER_W, CORNER_H)?,
            full: IndexNet::corner()?,
            sure_card: SURE_CARD_CORNER,
            sure_pair: SURE_PAIR_CORNER,
            sure_confirm: SURE_CONFIRM_CORNER,
            sure_partner: SURE_PARTNER_CORNER,
            confirm_apart: true,
        })
    }

    /// The loose candidates' pair of networks.
    pub fn loose() -> opencv::Result<QuickFirst> {
        Ok(QuickFirst {
            quick: IndexNet::from_onnx(LOOSE_QUICK_MODEL, INDEX_W, INDEX_H)?,
            full: IndexNet::loose()?,
            sure_card: SURE_CARD_LOOSE,
            sure_pair: f32::INFINITY,
            sure_confirm: f32::INFINITY,
            sure_partner: f32::INFINITY,
            confirm_apart: false,
        })
    }

    /// The same networks with another bar for agreeing pairs (see `read_paired`), to measure
    /// bars by.
    pub fn with_pair_bar(mut self, bar: f32) -> QuickFirst {
        self.sure_pair = bar;
        self
    }

    /// The same networks with another bar for a pair confirmed by one full reading (see
    /// `read_paired`), to measure bars by.
    pub fn with_confirm_bar(mut self, bar: f32) -> QuickFirst {
        self.sure_confirm = bar;
        self
    }

    /// The same networks with another bar for a settled corner's partner (see `read_paired`),
    /// to measure bars by.
    pub fn with_partner_bar(mut self, bar: f32) -> QuickFirst {
        self.sure_partner = bar;
        self
    }

    /// The same networks confirming pairs read as two cards or not (see `read_paired`), to
    /// measure by.
    pub fn with_confirm_apart(mut self, on: bool) -> QuickFirst {
        self.confirm_apart = on;
        self
    }

    /// Reads patches, quick network first unless `full_only`: a reading of it stands where it is
    /// settled (sure of a card, or sure of none). Its embeddings are of its own hidden layer, so
    /// anything compared by embedding (an enrolled deck) must read `full_only`.
    pub fn read(&self, patches: &[&Patch], full_only: bool) -> opencv::Result<Vec<NetReading>> {
        self.read_paired(patches, &[], full_only)
    }

    /// `read`, where each of `pairs` names two patches that are the two corners of one card
    /// outline, read together:
    /// - when the quick network reads the same card in both at the pair bar or more, both
    ///   readings stand as they are;
    /// - when it settles one corner on its own and names the same card at the other at the
    ///   partner bar or more, both stand too: the surer corner needs no second opinion, and the
    ///   other agrees with it;
    /// - when it settles neither, the full network reads the less sure corner first, and only
    ///   if that reading does not name the surer corner's card at the confirmation bar does it
    ///   read the surer corner too. This holds whether the quick network named one card at both
    ///   or two (commonly a club at one corner and a spade at the other): two windows on
    ///   opposite ends of a card naming one card, the full network surely, is as much evidence
    ///   as two full readings that must agree, at half the cost.
    pub fn read_paired(
        &self,
        patches: &[&Patch],
        pairs: &[(usize, usize)],
        full_only: bool,
    ) -> opencv::Result<Vec<NetReading>> {
        if full_only {
            return self.full.read(patches);
        }
        let mut readings = self.quick.read(patches)?;
        let mut settled: Vec<bool> = readings.iter().map(|r| r.settled(self.sure_card)).collect();
        // (held back, read first, the held corner's card): the held corner waits on the first's
        // full reading.
        let mut waiting = Vec::new();
        for &(a, b) in pairs {
            let (Some((x, p)), Some((y, q))) = (readings[a].card(), readings[b].card()) else { continue };
            let (alike, least) = (x == y, p.min(q));
            if alike && (least >= self.sure_pair || (settled[a] != settled[b] && least >= self.sure_partner)) {
                (settled[a], settled[b]) = (true, true);
            } else if (alike || self.confirm_apart) && a != b && !settled[a] && !settled[b] && self.sure_confirm <= 1.0
            {
                let (held, first, card) = if p >= q { (a, b, x) } else { (b, a, y) };
                settled[held] = true;
                waiting.push((held, first, card));
            }
        }
        self.read_unsettled_in_full(patches, &mut readings, &settled)?;
        // A held corner whose partner the full network did not confirm is read in full too.
        let mut done = vec![true; readings.len()];
        for &(held, first, card) in &waiting {
            done[held] = readings[first].card().is_some_and(|(c, p)| c == card && p >= self.sure_confirm);
        }
        self.read_unsettled_in_full(patches, &mut readings, &done)?;
        Ok(readings)
    }

    /// The full network's readings of the patches not `settled`, in one batch, in place of the
    /// quick network's.
    fn read_unsettled_in_full(
        &self,
        patches: &[&Patch],
        readings: &mut [NetReading],
        settled: &[bool],
    ) -> opencv::Result<()> {
        let unsure: Vec<usize> = (0..readings.len()).filter(|&i| !settled[i]).collect();
        let again = self.full.read(&unsure.iter().map(|&i| patches[i]).collect::<Vec<_>>())?;
        for (i, reading) in unsure.into_iter().zip(again) {
            readings[i] = reading;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The corner patches of the face-up cards of a rendered table whose corners all show, with
    /// their cards.
    fn rendered_corners() -> (Vec<Patch>, Vec<Card>) {
        rendered_corners_of(7)
    }

    /// The same for the rendered table of `seed`.
    fn rendered_corners_of(seed: u64) -> (Vec<Patch>, Vec<Card>) {
        use crate::render::{Renderer, SceneOptions, random_scene};
        use crate::vision::cards::readers::patch::{corner_window, cut};
        let rendered = Renderer::new().render(&random_scene(seed, &SceneOptions::default())).unwrap();
        let (mut patches, mut cards) = (Vec::new(), Vec::new());
        for t in rendered.truth.iter().filter(|t| t.face_up && t.index_visible == [true, true]) {
            let quad = t.quad.map(|p| [p.x as f32, p.y as f32]);
            for far in [false, true] {
                patches.push(cut(&rendered.image, &corner_window(&quad, far), CORNER_W, CORNER_H).unwrap());
                cards.push(t.card);
            }
        }
        (patches, cards)
    }

    #[test]
    fn the_quick_network_s_sure_readings_stand_and_the_full_network_reads_the_rest() {
        let nets = QuickFirst::corner().unwrap();
        let (patches, cards) = rendered_corners();
        assert!(patches.len() >= 6, "{} corners", patches.len());
        let all: Vec<&Patch> = patches.iter().collect();
        let quick = nets.quick.read(&all).unwrap();
        let full = nets.full.read(&all).unwrap();
        let read = nets.read(&all, false).unwrap();
        for i in 0..patches.len() {
            let expected = if quick[i].settled(nets.sure_card) { &quick[i] } else { &full[i] };
            assert_eq!(&read[i], expected, "corner {i}");
        }
        // Both ways read the cards the same, and rightly: a plain rendered corner is easy.
        let cards_of = |readings: &[NetReading]| readings.iter().map(|r| r.card().map(|c| c.0)).collect::<Vec<_>>();
        assert_eq!(cards_of(&read), cards_of(&full));
        assert_eq!(cards_of(&read), cards.iter().map(|c| Some(*c)).collect::<Vec<_>>());
        // Most were the quick network's alone: otherwise it only adds time.
        let settled = quick.iter().filter(|r| r.settled(nets.sure_card)).count();
        assert!(settled * 2 > patches.len(), "{settled} of {} settled", patches.len());
        // Full only: the full network's readings, embeddings and all.
        assert_eq!(nets.read(&all, true).unwrap(), full);
    }

    #[test]
    fn patches_are_transposed_plane_by_plane() {
        // Two planes of 3 x 2: rows (0 1 2) (3 4 5), and the same plus 10.
        let bytes: Vec<u8> = [0, 1, 2, 3, 4, 5].iter().chain(&[10, 11, 12, 13, 14, 15]).map(|v| v * 17).collect();
        let mut out = vec![0.0; 12];
        transpose_into(&mut out, &bytes, 3, 2);
        let back: Vec<u8> = out.iter().map(|v| (v * 255.0 / 17.0).round() as u8).collect();
        assert_eq!(back, [0, 3, 1, 4, 2, 5, 10, 13, 11, 14, 12, 15]);
    }

    #[test]
    fn two_corners_agreeing_at_the_pair_bar_stand_without_the_full_network() {
        let nets = QuickFirst::corner().unwrap();
        let (patches, _) = rendered_corners();
        let all: Vec<&Patch> = patches.iter().collect();
        let quick = nets.quick.read(&all).unwrap();
        let full = nets.full.read(&all).unwrap();
        // Each patch paired with itself: a pair agrees whenever the quick reading names a card.
        let pairs: Vec<(usize, usize)> = (0..all.len()).map(|i| (i, i)).collect();
        let bars = |pair: f32| {
            let nets = QuickFirst::corner()
                .unwrap()
                .with_pair_bar(pair)
                .with_partner_bar(f32::INFINITY)
                .with_confirm_bar(f32::INFINITY);
            nets.read_paired(&all, &pairs, false).unwrap()
        };
        let (never, always) = (bars(f32::INFINITY), bars(0.0));
        for i in 0..all.len() {
            let settled = quick[i].settled(SURE_CARD_CORNER);
            assert_eq!(never[i], if settled { quick[i].clone() } else { full[i].clone() }, "corner {i}");
            let stands = settled || quick[i].card().is_some();
            assert_eq!(always[i], if stands { quick[i].clone() } else { full[i].clone() }, "corner {i}");
        }
        // Corners of two different cards paired never stand together, however low the bar.
        let (patches, cards) = rendered_corners();
        let crossed: Vec<(usize, usize)> = (0..cards.len())
            .flat_map(|i| (0..cards.len()).map(move |j| (i, j)))
            .filter(|&(i, j)| cards[i] != cards[j])
            .collect();
        assert!(!crossed.is_empty());
        let all: Vec<&Patch> = patches.iter().collect();
        let nets = QuickFirst::corner()
            .unwrap()
            .with_pair_bar(0.0)
            .with_partner_bar(f32::INFINITY)
            .with_confirm_bar(f32::INFINITY);
        let read = nets.read_paired(&all, &crossed, false).unwrap();
        let named_apart = |i: usize| {
            crossed
                .iter()
                .all(|&(a, b)| (a != i && b != i) || quick[a].card().map(|c| c.0) != quick[b].card().map(|c| c.0))
        };
        let apart: Vec<usize> = (0..all.len()).filter(|&i| named_apart(i)).collect();
        assert!(apart.len() * 2 > all.len(), "{} of {} corners named apart from every partner", apart.len(), all.len());
        for i in apart {
            let settled = quick[i].settled(SURE_CARD_CORNER);
            assert_eq!(read[i], if settled { quick[i].clone() } else { full[i].clone() }, "corner {i}");
        }
    }

    /// Bars to read pairs by: the pair bar, the partner bar, the confirmation bar, and whether
    /// pairs read as two cards are confirmed.
    type Bars = (f32, f32, f32, bool);

    /// What `read_paired` gives, worked out pair by pair from the two networks' readings of every
    /// patch (each patch in one pair at most); and how many pairs stood by the pair bar, by the
    /// partner bar, and by a confirmation of a pair read alike and of one read apart.
    fn paired_by_hand(
        quick: &[NetReading],
        full: &[NetReading],
        pairs: &[(usize, usize)],
        (pair, partner, confirm, apart): Bars,
    ) -> (Vec<NetReading>, [usize; 4]) {
        let settled = |i: usize| quick[i].settled(SURE_CARD_CORNER);
        let mut out: Vec<NetReading> =
            (0..quick.len()).map(|i| if settled(i) { quick[i].clone() } else { full[i].clone() }).collect();
        let mut used = [0; 4];
        for &(a, b) in pairs {
            let (Some((x, p)), Some((y, q))) = (quick[a].card(), quick[b].card()) else { continue };
            if x == y && p.min(q) >= pair {
                used[0] += 1;
                (out[a], out[b]) = (quick[a].clone(), quick[b].clone());
            } else if x == y && settled(a) != settled(b) && p.min(q) >= partner {
                used[1] += 1;
                (out[a], out[b]) = (quick[a].clone(), quick[b].clone());
            } else if (x == y || apart) && !settled(a) && !settled(b) && confirm <= 1.0 {
                // The surer corner waits on the full reading of the other.
                let (held, first, card) = if p >= q { (a, b, x) } else { (b, a, y) };
                if full[first].card().is_some_and(|(c, r)| c == card && r >= confirm) {
                    used[if x == y { 2 } else { 3 }] += 1;
                    out[held] = quick[held].clone();
                }
            }
        }
        (out, used)
    }

    #[test]
    fn pairs_of_corners_are_read_as_the_pair_partner_and_confirmation_bars_say() {
        // The two corners of each card of a few rendered tables, as they are, one or both
        // shrunk to a few pixels and scaled back (the index blurred as in a far, soft photo),
        // so that the quick network is unsure of some corners; and of the real photos of a
        // deck's cards, each shrunk to 100 px across, where it reads some clubs as spades at one
        // corner.
        let mut patches = Vec::new();
        for seed in [7, 8, 9, 10, 11, 12] {
            for (i, pair) in rendered_corners_of(seed).0.chunks_exact(2).enumerate() {
                let (a, b) = (pair[0].clone(), pair[1].clone());
                let k = 3 + i % 3;
                patches.extend(match i % 4 {
                    0 => [a, b],
                    1 => [a, coarse_by(&b, k)],
                    2 => [coarse_by(&a, k), b],
                    _ => [coarse_by(&a, k), coarse_by(&b, k)],
                });
            }
        }
        patches.extend(real_corners(100.0));
        let all: Vec<&Patch> = patches.iter().collect();
        let pairs: Vec<(usize, usize)> = (0..all.len() / 2).map(|i| (2 * i, 2 * i + 1)).collect();
        let nets = QuickFirst::corner().unwrap();
        let (quick, full) = (nets.quick.read(&all).unwrap(), nets.full.read(&all).unwrap());
        let shipped: Bars = (SURE_PAIR_CORNER, SURE_PARTNER_CORNER, SURE_CONFIRM_CORNER, true);
        let never = f32::INFINITY;
        let mut used = [0; 4];
        for bars in [
            shipped,
            (never, never, never, false),
            (never, 0.0, 0.0, true),
            (0.9, 0.5, 0.9, false),
            (1.0, 0.3, 0.6, true),
        ] {
            let (pair, partner, confirm, apart) = bars;
            let nets = QuickFirst::corner()
                .unwrap()
                .with_pair_bar(pair)
                .with_partner_bar(partner)
                .with_confirm_bar(confirm)
                .with_confirm_apart(apart);
            let read = nets.read_paired(&all, &pairs, false).unwrap();
            let (expected, by) = paired_by_hand(&quick, &full, &pairs, bars);
            for i in 0..all.len() {
                assert_eq!(read[i], expected[i], "corner {i} with bars {bars:?}");
            }
            used = std::array::from_fn(|k| used[k] + by[k]);
        }
        // Each way of standing without a second full reading happened: otherwise the test shows
        // nothing of it.
        assert!(used.iter().all(|&n| n > 0), "pairs stood by pair, partner, confirmed alike, apart: {used:?}");
    }

    /// The two corners of each of the 52 real photos of ../shared/data/cards/bidly-deck (read in
    /// place: each photo is one card, edge to edge), the card shrunk to `width` pixels across.
    fn real_corners(width: f32) -> Vec<Patch> {
        use crate::vision::cards::readers::patch::{corner_window, cut};
        use opencv::{imgcodecs, imgproc};
        let deck = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/cards/bidly-deck");
        let height = width * 1.54;
        let quad = [[0.0, 0.0], [width, 0.0], [width, height], [0.0, height]];
        let mut patches = Vec::new();
        for rank in (1..=13).filter_map(Rank::new) {
            for suit in Suit::ALL {
                let path = format!("{deck}/{}.jpg", Card::new(rank, suit));
                let photo = imgcodecs::imread(&path, imgcodecs::IMREAD_COLOR).unwrap();
                assert!(!photo.empty(), "no photo {path}");
                let mut card = Mat::default();
                let size = core::Size::new(width as i32, height as i32);
                imgproc::resize(&photo, &mut card, size, 0.0, 0.0, imgproc::INTER_AREA).unwrap();
                for far in [false, true] {
                    patches.push(cut(&card, &corner_window(&quad, far), CORNER_W, CORNER_H).unwrap());
                }
            }
        }
        patches
    }

    /// A patch shrunk to a `k`th and scaled back: the index blurred as in a far, soft photo.
    fn coarse_by(patch: &Patch, k: usize) -> Patch {
        let (w, h) = (patch.w as usize, patch.h as usize);
        let mut bytes = patch.bytes.clone();
        for plane in bytes.chunks_exact_mut(w * h) {
            let source = plane.to_vec();
            for y in 0..h {
                for x in 0..w {
                    let (bx, by) = (x / k * k, y / k * k);
                    let block: Vec<u32> = (by..(by + k).min(h))
                        .flat_map(|yy| (bx..(bx + k).min(w)).map(move |xx| (xx, yy)))
                        .map(|(xx, yy)| u32::from(source[yy * w + xx]))
                        .collect();
                    plane[y * w + x] = (block.iter().sum::<u32>() / block.len() as u32) as u8;
                }
            }
        }
        Patch { w: patch.w, h: patch.h, bytes }
    }

    #[test]
    fn a_reading_is_settled_when_sure_of_a_card_or_of_no_index() {
        let mut reading = NetReading { ranks: [0.0; RANKS], suits: [0.0; SUITS], embedding: Vec::new() };
        reading.ranks[6] = 0.96; // 7
        reading.ranks[RANKS - 1] = 0.04;
        reading.suits[1] = 0.96; // diamonds: 0.92 in all
        reading.suits[SUITS - 1] = 0.04;
        assert!(reading.settled(0.9));
        reading.suits[1] = 0.86; // 0.83: unsure
        reading.suits[0] = 0.1;
        assert!(!reading.settled(0.9));
        // No index, surely.
        reading.ranks[6] = 0.02;
        reading.ranks[RANKS - 1] = 0.98;
        assert!(reading.settled(0.9));
        // No index, but not surely enough.
        reading.ranks[6] = 0.07;
        reading.ranks[RANKS - 1] = 0.93;
        assert!(!reading.settled(0.9));
    }

    #[test]
    fn a_card_ruled_out_leaves_the_likeliest_other_card_at_its_share_of_the_rest() {
        let mut reading = NetReading { ranks: [0.0; RANKS], suits: [0.0; SUITS], embedding: Vec::new() };
        reading.ranks[11] = 0.7; // Q
        reading.ranks[10] = 0.3; // J
        reading.suits[0] = 0.8; // clubs
        reading.suits[3] = 0.2; // spades
        let (card, p) = reading.card().unwrap();
        assert_eq!((card.to_string(), (p * 100.0).round()), ("QC".to_string(), 56.0));
        assert_eq!(reading.card_other_than(&[]), reading.card());
        // Without QC: JC 0.24, QS 0.14, JS 0.06 of the 0.44 left.
        let (card, p) = reading.card_other_than(&[card]).unwrap();
        assert_eq!(card.to_string(), "JC");
        assert!((p - 0.24 / 0.44).abs() < 1e-4, "{p}");
        // "None" the likeliest rank: no card at all, whatever is ruled out.
        reading.ranks[RANKS - 1] = 0.9;
        assert_eq!(reading.card_other_than(&["JC".parse().unwrap()]), None);
    }
}
