//! Small neural networks (OpenCV's multi-layer perceptron) that read one index glyph: one kind
//! tells the 13 ranks apart, the other the 4 suits, each with a class more for marks that are
//! none of them (for ranks, suit pips either way up; for suits, ranks). The templates find the
//! nearest glyph by overall overlap; a network learns which strokes tell two close classes apart
//! (the tail of a Q against the stem of a 9, a spade's point against a club's lobe). It sees the
//! same features as the templates. Trained by `examples/train_cards.rs` on glyphs of the
//! project's own renderer and fonts only (see models/README.md); stored in
//! `models/card_rank_net_*.yml` and `models/card_suit_net_*.yml`.

use opencv::core::{self, Mat};
use opencv::ml::{self, ANN_MLP};
use opencv::prelude::*;

use super::classify::{GlyphClass, GlyphFeature, GlyphTemplates, dot};
use crate::cards::{Rank, Suit};

/// The shipped networks, three of each kind: trained alike on different damaged renderings,
/// their outputs averaged (one network's readings of real photos swing with its training draw;
/// three agree better).
const RANK_MODELS: [&str; 3] = [
    include_str!("../../../../models/card_rank_net_1.yml"),
    include_str!("../../../../models/card_rank_net_2.yml"),
    include_str!("../../../../models/card_rank_net_3.yml"),
];
const SUIT_MODELS: [&str; 3] = [
    include_str!("../../../../models/card_suit_net_1.yml"),
    include_str!("../../../../models/card_suit_net_2.yml"),
    include_str!("../../../../models/card_suit_net_3.yml"),
];

/// Neurons in the hidden layer.
const HIDDEN: i32 = 64;

/// How much surer than the templates the network must be to replace their rank on a corner.
const TAKE_OVER: f32 = 0.3;

/// Template similarities closer than this are a tie, which the network may break.
const TIE: f32 = 0.03;

/// How sure of another rank the network must be to doubt a loose index.
const LOOSE_VETO: f32 = 0.9;

/// OpenCV's symmetric sigmoid with its default parameters, which `train` asks for and
/// `from_yaml` checks.
const STEEPNESS: f32 = 2.0 / 3.0;

const HEIGHT: f32 = 1.7159;

/// What a network reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    /// Outputs 0..13 the ranks A..K, then "no rank".
    Ranks,
    /// Outputs 0..4 the suits C D H S, then "no suit".
    Suits,
}

impl Reads {
    /// The number of outputs: the classes and "none".
    pub fn outputs(self) -> usize {
        match self {
            Reads::Ranks => 14,
            Reads::Suits => 5,
        }
    }

    /// The output of "none".
    pub fn none(self) -> usize {
        self.outputs() - 1
    }

    /// The output a training glyph stands for: `Some((output, true))` for a glyph of the classes
    /// read (trained with its augmented copies), `Some((none, false))` for a mark that is none
    /// of them (trained upright and turned over), `None` for one left out.
    fn target(self, class: GlyphClass) -> Option<(usize, bool)> {
        match (self, class) {
            (Reads::Ranks, GlyphClass::Rank(r)) => Some((usize::from(r.value() - 1), true)),
            (Reads::Ranks, GlyphClass::Suit(_)) => Some((self.none(), false)),
            (Reads::Suits, GlyphClass::Suit(s)) => Some((s as usize, true)),
            (Reads::Suits, GlyphClass::Rank(_)) => Some((self.none(), false)),
            (_, GlyphClass::Digit(_)) => None,
        }
    }
}

/// The networks' verdict on one glyph: their mean output for each class, then "none" (about
/// -1.7 .. 1.7).
#[derive(Clone, Debug)]
pub struct Scores(pub Vec<f32>);

impl Scores {
    /// The best of `outputs`, its output and the runner-up's output.
    fn best_of(&self, outputs: impl Iterator<Item = usize>) -> (usize, f32, f32) {
        let mut order: Vec<usize> = outputs.collect();
        order.sort_by(|&a, &b| self.0[b].total_cmp(&self.0[a]));
        let second = order.get(1).map_or(-HEIGHT, |&o| self.0[o]);
        (order[0], self.0[order[0]], second)
    }

    /// The best rank, its output and the runner-up rank's output (a rank network's scores).
    pub fn best_rank(&self) -> (Rank, f32, f32) {
        let (best, output, second) = self.best_of(0..13);
        (Rank::new(best as u8 + 1).expect("13 ranks"), output, second)
    }

    /// The best rank and a 0..1 confidence (see `sureness`).
    pub fn reading(&self) -> (Rank, f32) {
        let (rank, best, second) = self.best_rank();
        (rank, sureness(best, second))
    }

    /// The best suit among `allowed` (not empty) and a 0..1 confidence (a suit network's scores).
    pub fn suit_reading(&self, allowed: &[Suit]) -> (Suit, f32) {
        let (best, output, second) = self.best_of(allowed.iter().map(|&s| s as usize));
        (Suit::ALL[best], sureness(output, second))
    }

    /// A rank read from a card outline's corner, weighed with the rank networks' reading (these
    /// scores): when both
    /// agree, the surer confidence stands; when the network is much surer of another rank
    /// (by `TAKE_OVER`), its rank is taken; otherwise the templates' reading stands, doubted as
    /// much as the network is sure of another.
    pub fn settle(&self, rank: Rank, confidence: f32) -> (Rank, f32) {
        let (net_rank, net_confidence) = self.reading();
        if net_rank == rank {
            (rank, confidence.max(net_confidence))
        } else if net_confidence > confidence + TAKE_OVER {
            (net_rank, net_confidence * 0.9)
        } else {
            (rank, confidence * (1.0 - net_confidence))
        }
    }

    /// A rank read without an outline (the loose index search), checked by the network: only
    /// when it is all but sure of another rank is the reading doubted, never replaced. The
    /// network learnt from glyphs cut on outlines; the loose search's marks are cut otherwise
    /// (and most are no index at all): letting it replace ranks there cost precision on busy
    /// photos, and counting its agreement cost recall on fans (models/README.md, "Tuning
    /// measurements": `check_loose`).
    pub fn check_loose(&self, rank: Rank, confidence: f32) -> f32 {
        let (net_rank, net_confidence) = self.reading();
        if net_rank != rank && net_confidence >= LOOSE_VETO { confidence * (1.0 - net_confidence) } else { confidence }
    }

    /// Whether the templates, all but tied between their best rank and `runner_up` (`best` and
    /// `second` their similarities, within `TIE`), should take the runner-up: the network reads
    /// it, at least as sure as a reading must be (`min_confidence`).
    pub fn breaks_tie(&self, tie: (f32, Rank, f32), min_confidence: f32) -> bool {
        let (best, runner_up, second) = tie;
        let (net_rank, net_confidence) = self.reading();
        best - second < TIE && net_rank == runner_up && net_confidence >= min_confidence
    }

    /// A suit read by the templates, weighed with the suit networks' reading among `allowed`:
    /// they never replace it (the templates hold many pip designs, the networks learnt few);
    /// where they read another suit, its confidence falls by as much as they are sure. In the
    /// loose search (`loose`), where they agree, the surer confidence stands: a loose index has
    /// no outline to vouch for it, and a second opinion on its pip is worth having.
    pub fn weigh_suit(&self, allowed: &[Suit], suit: Suit, confidence: f32, loose: bool) -> f32 {
        let (net_suit, net_confidence) = self.suit_reading(allowed);
        if net_suit != suit {
            confidence * (1.0 - net_confidence)
        } else if loose {
            confidence.max(net_confidence)
        } else {
            confidence
        }
    }

    /// The output for "none" (the last).
    pub fn none(&self) -> f32 {
        self.0.last().copied().unwrap_or(-HEIGHT)
    }
}

/// A 0..1 confidence from the best output and the runner-up's: high when the best is high and
/// well above the runner-up.
fn sureness(best: f32, second: f32) -> f32 {
    let margin = ((best - second) / 0.8).clamp(0.0, 1.0);
    let fit = ((best - 0.2) / 0.8).clamp(0.0, 1.0);
    margin * fit
}

/// One trained network, or several of one kind whose outputs are averaged.
pub struct GlyphNet {
    reads: Reads,
    nets: Vec<core::Ptr<ANN_MLP>>,
    /// The same networks' weights, for the forward pass (see `Layers`).
    layers: Vec<Layers>,
}

impl GlyphNet {
    /// The rank networks the program ships with.
    pub fn ranks() -> opencv::Result<GlyphNet> {
        GlyphNet::shipped(Reads::Ranks, &RANK_MODELS)
    }

    /// The suit networks the program ships with.
    pub fn suits() -> opencv::Result<GlyphNet> {
        GlyphNet::shipped(Reads::Suits, &SUIT_MODELS)
    }

    fn shipped(reads: Reads, models: &[&str]) -> opencv::Result<GlyphNet> {
        let parts = models.iter().map(|m| GlyphNet::from_yaml(m, reads)).collect::<opencv::Result<Vec<_>>>()?;
        Ok(GlyphNet::ensemble(parts))
    }

    /// Several networks of one kind as one: their outputs are averaged.
    pub fn ensemble(parts: Vec<GlyphNet>) -> GlyphNet {
        let reads = parts.first().map_or(Reads::Ranks, |p| p.reads);
        let (mut nets, mut layers) = (Vec::new(), Vec::new());
        for part in parts {
            nets.extend(part.nets);
            layers.extend(part.layers);
        }
        GlyphNet { reads, nets, layers }
    }

    /// A network from the text OpenCV saves (`to_yaml`), which must read as `reads` says.
    pub fn from_yaml(text: &str, reads: Reads) -> opencv::Result<GlyphNet> {
        let storage = core::FileStorage::new(text, core::FileStorage_READ | core::FileStorage_MEMORY, "")?;
        let node = storage.get_first_top_level_node()?;
        let bad = |what: String| opencv::Error::new(core::StsParseError, format!("card {reads:?} network: {what}"));
        let activation = node.get("activation_function")?.to_string()?;
        let (p1, p2) = (node.get("f_param1")?.real()? as f32, node.get("f_param2")?.real()? as f32);
        if activation != "SIGMOID_SYM" || (p1 - STEEPNESS).abs() > 1e-6 || (p2 - HEIGHT).abs() > 1e-6 {
            return Err(bad(format!(
                "activation {activation} ({p1}, {p2}), expected SIGMOID_SYM ({STEEPNESS}, {HEIGHT})"
            )));
        }
        let mut net = ANN_MLP::create()?;
        net.read(&node)?;
        if !net.is_trained()? {
            return Err(bad("no trained layers".to_string()));
        }
        let sizes = net.get_layer_sizes()?;
        let outputs = sizes.data_typed::<i32>()?.last().copied().unwrap_or(0);
        if outputs as usize != reads.outputs() {
            return Err(bad(format!("{outputs} outputs, expected {}", reads.outputs())));
        }
        GlyphNet::of(net, reads)
    }

    /// Trains a network on labelled glyphs (see `Reads::target`: the classes read, with their
    /// augmented copies, and "none"). `seed` draws the starting weights. Training uses as many
    /// threads as OpenCV is given: with one (`core::set_num_threads(1)`), the same glyphs and
    /// seed give the same network.
    pub fn train(set: &GlyphTemplates, reads: Reads, iterations: i32, seed: u64) -> opencv::Result<GlyphNet> {
        let mut rows: Vec<(usize, Vec<f32>)> = Vec::new();
        for (class, glyph) in &set.templates {
            match reads.target(*class) {
                Some((output, true)) => rows.extend(augmented(glyph).iter().map(|g| (output, features(g)))),
                Some((none, false)) => {
                    rows.push((none, features(glyph)));
                    rows.push((none, features(&glyph.turned())));
                }
                None => {}
            }
        }
        let classes = reads.outputs();
        let dims = rows.first().map_or(0, |(_, f)| f.len());
        let mut data = Vec::with_capacity(rows.len() * dims);
        let mut targets = vec![-1f32; rows.len() * classes];
        for (i, (class, f)) in rows.iter().enumerate() {
            data.extend_from_slice(f);
            targets[i * classes + class] = 1.0;
        }
        let samples = Mat::new_rows_cols_with_data(rows.len() as i32, dims as i32, &data)?.try_clone()?;
        let responses = Mat::new_rows_cols_with_data(rows.len() as i32, classes as i32, &targets)?.try_clone()?;
        let mut net = ANN_MLP::create()?;
        let layers = Mat::from_slice(&[dims as i32, HIDDEN, classes as i32])?.try_clone()?;
        net.set_layer_sizes(&layers)?;
        net.set_activation_function(ml::ANN_MLP_SIGMOID_SYM, 0.0, 0.0)?;
        net.set_train_method(ml::ANN_MLP_RPROP, 0.1, f64::from(f32::MIN_POSITIVE))?;
        net.set_term_criteria(core::TermCriteria::new(core::TermCriteria_COUNT, iterations, 0.0)?)?;
        // The starting weights come from OpenCV's random generator (one per thread).
        core::set_rng_seed(seed as i32)?;
        net.train(&samples, ml::ROW_SAMPLE, &responses)?;
        GlyphNet::of(net, reads)
    }

    fn of(net: core::Ptr<ANN_MLP>, reads: Reads) -> opencv::Result<GlyphNet> {
        let layers = Layers::of(&net)?;
        Ok(GlyphNet { reads, nets: vec![net], layers: vec![layers] })
    }

    /// The (first) network as the text OpenCV writes (YAML).
    pub fn to_yaml(&self) -> opencv::Result<String> {
        let mut storage = core::FileStorage::new(".yml", core::FileStorage_WRITE | core::FileStorage_MEMORY, "")?;
        storage.start_write_struct("opencv_ml_ann_mlp", core::FileNode_MAP, "")?;
        self.nets[0].write(&mut storage)?;
        storage.end_write_struct()?;
        storage.release_and_get_string()
    }

    /// The networks' mean outputs for one glyph.
    pub fn scores(&self, glyph: &GlyphFeature) -> opencv::Result<Scores> {
        let f = features(glyph);
        let mut scores = vec![0f32; self.reads.outputs()];
        for layers in &self.layers {
            for (s, v) in scores.iter_mut().zip(layers.forward(&f)) {
                *s += v / self.layers.len() as f32;
            }
        }
        Ok(Scores(scores))
    }

    /// The same through OpenCV's own `predict` (slower per glyph: it allocates and scales
    /// through matrices); the forward pass is checked against it.
    pub fn scores_opencv(&self, glyph: &GlyphFeature) -> opencv::Result<Scores> {
        let f = features(glyph);
        let sample = Mat::new_rows_cols_with_data(1, f.len() as i32, &f)?;
        let mut scores = vec![0f32; self.reads.outputs()];
        for net in &self.nets {
            let mut out = Mat::default();
            net.predict(&sample, &mut out, 0)?;
            for (s, v) in scores.iter_mut().zip(out.data_typed::<f32>()?) {
                *s += v / self.nets.len() as f32;
            }
        }
        Ok(Scores(scores))
    }
}

/// A trained network's weights as OpenCV keeps them (`ANN_MLP::get_weights`): layer 0 scales the
/// input (a factor and an offset per input), the middle layers are `(inputs + 1) x outputs`
/// matrices whose last row is the bias, and the last layer scales the output. Run here because
/// OpenCV's `predict` costs some 50 us a glyph in allocations for a few thousand
/// multiplications: the detector asks for two glyphs a card, three networks each.
struct Layers {
    input_scale: Vec<f64>,
    /// Per middle layer: each output's weights (one row of `inputs` values each), and its bias.
    dense: Vec<(Vec<Vec<f32>>, Vec<f32>)>,
    output_scale: Vec<f64>,
    /// The activation's steepness and height: f(x) = height * tanh(steepness * x / 2).
    steepness: f32,
    height: f32,
}

impl Layers {
    fn of(net: &core::Ptr<ANN_MLP>) -> opencv::Result<Layers> {
        let sizes = net.get_layer_sizes()?;
        let count = sizes.rows().max(sizes.cols());
        // Each layer's values as f64 (OpenCV keeps them so), with its rows and columns.
        let read = |i: i32| -> opencv::Result<(usize, usize, Vec<f64>)> {
            let w = net.get_weights(i)?;
            let mut as_f64 = Mat::default();
            w.convert_to(&mut as_f64, core::CV_64F, 1.0, 0.0)?;
            Ok((w.rows() as usize, w.cols() as usize, as_f64.data_typed::<f64>()?.to_vec()))
        };
        let mut dense = Vec::new();
        for i in 1..count {
            let (rows, cols, values) = read(i)?;
            let all: Vec<f32> = values.into_iter().map(|v| v as f32).collect();
            // Stored input by input; kept output by output, so that each output is one dot product.
            let (weights, bias) = all.split_at((rows - 1) * cols);
            let per_output = (0..cols).map(|o| (0..rows - 1).map(|i| weights[i * cols + o]).collect()).collect();
            dense.push((per_output, bias.to_vec()));
        }
        let (input_scale, output_scale) = (read(0)?.2, read(count)?.2);
        Ok(Layers { input_scale, dense, output_scale, steepness: STEEPNESS, height: HEIGHT })
    }

    fn forward(&self, input: &[f32]) -> Vec<f32> {
        let mut x: Vec<f32> = input
            .iter()
            .enumerate()
            .map(|(j, v)| (f64::from(*v) * self.input_scale[2 * j] + self.input_scale[2 * j + 1]) as f32)
            .collect();
        for (weights, bias) in &self.dense {
            x = weights
                .iter()
                .zip(bias)
                .map(|(w, b)| self.height * (self.steepness * (dot(&x, w) + b) / 2.0).tanh())
                .collect();
        }
        x.iter()
            .enumerate()
            .map(|(j, v)| (f64::from(*v) * self.output_scale[2 * j] + self.output_scale[2 * j + 1]) as f32)
            .collect()
    }
}

/// The network's input: the glyph's pixels and edge histogram, each scaled from unit length to a
/// mean square of one, and its log-aspect.
fn features(glyph: &GlyphFeature) -> Vec<f32> {
    let px = (glyph.pixels.len() as f32).sqrt();
    let ed = (glyph.edges.len() as f32).sqrt();
    let mut f = Vec::with_capacity(glyph.pixels.len() + glyph.edges.len() + 1);
    f.extend(glyph.pixels.iter().map(|v| v * px));
    f.extend(glyph.edges.iter().map(|v| v * ed));
    f.push(glyph.ln_aspect);
    f
}

/// A glyph and copies of it as other cameras and inks give it: strokes thicker and thinner
/// (a blurred stroke raised to a power below or above one), shifted a pixel, wider and narrower.
fn augmented(glyph: &GlyphFeature) -> Vec<GlyphFeature> {
    use super::classify::{GLYPH_H, GLYPH_W};
    let (w, h) = (GLYPH_W as usize, GLYPH_H as usize);
    let peak = glyph.pixels.iter().copied().fold(f32::MIN_POSITIVE, f32::max);
    let unit: Vec<f32> = glyph.pixels.iter().map(|v| v / peak).collect();
    let mut out = vec![glyph.clone()];
    for gamma in [0.5f32, 2.0] {
        out.push(GlyphFeature::normalised(unit.iter().map(|v| v.powf(gamma)).collect(), glyph.aspect));
    }
    for (dx, dy) in [(1i32, 0i32), (-1, 0), (0, 1), (0, -1)] {
        let mut shifted = vec![0f32; w * h];
        for y in 0..h as i32 {
            for x in 0..w as i32 {
                let (sx, sy) = (x - dx, y - dy);
                if (0..w as i32).contains(&sx) && (0..h as i32).contains(&sy) {
                    shifted[(y as usize) * w + x as usize] = unit[(sy as usize) * w + sx as usize];
                }
            }
        }
        out.push(GlyphFeature::normalised(shifted, glyph.aspect));
    }
    for k in [0.8f32, 1.25] {
        out.push(GlyphFeature::normalised(unit.clone(), glyph.aspect * k));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundled_font_glyphs() -> GlyphTemplates {
        GlyphTemplates::render(&[epaint_default_fonts::UBUNTU_LIGHT, epaint_default_fonts::HACK_REGULAR], false)
            .unwrap()
    }

    #[test]
    fn the_shipped_network_reads_clean_ranks_and_calls_pips_no_rank() {
        let net = GlyphNet::ranks().unwrap();
        let (mut ranks, mut right) = (0, 0);
        for (class, glyph) in &bundled_font_glyphs().templates {
            let scores = net.scores(glyph).unwrap();
            match class {
                GlyphClass::Rank(rank) => {
                    ranks += 1;
                    right += usize::from(scores.best_rank().0 == *rank);
                }
                GlyphClass::Suit(suit) => {
                    assert!(scores.none() > scores.best_rank().1, "{suit:?} pip taken for a rank");
                }
                GlyphClass::Digit(_) => {}
            }
        }
        // Two fonts, 13 ranks at three widths each.
        assert!(ranks >= 70 && right * 100 >= ranks * 95, "{right}/{ranks} ranks read");
    }

    #[test]
    fn a_sure_network_overrules_unsure_templates_on_a_corner_but_only_doubts_a_loose_index() {
        let net = GlyphNet::ranks().unwrap();
        let queen = Rank::new(12).unwrap();
        let nine = Rank::new(9).unwrap();
        let glyph = bundled_font_glyphs()
            .templates
            .into_iter()
            .find(|(c, _)| *c == GlyphClass::Rank(queen))
            .map(|(_, g)| g)
            .unwrap();
        assert_eq!(net.scores(&glyph).unwrap().best_rank().0, queen);
        let scores = net.scores(&glyph).unwrap();
        let (rank, confidence) = scores.settle(nine, 0.1);
        assert_eq!(rank, queen);
        assert!(confidence > 0.4);
        // Agreeing keeps the surer confidence.
        let (rank, confidence) = scores.settle(queen, 0.2);
        assert_eq!(rank, queen);
        assert!(confidence >= 0.2);
        // Loose: the rank is never replaced, only doubted.
        assert!(scores.check_loose(nine, 0.9) <= 0.9);
        assert_eq!(scores.check_loose(queen, 0.7), 0.7);
        // Templates tied between a 9 and this Q: the network takes the Q; not when they are
        // clearly apart, nor for a runner-up it does not read.
        assert!(scores.breaks_tie((0.80, queen, 0.79), 0.6));
        assert!(!scores.breaks_tie((0.80, queen, 0.70), 0.6));
        assert!(!scores.breaks_tie((0.80, Rank::new(5).unwrap(), 0.79), 0.6));
    }

    #[test]
    fn the_shipped_suit_networks_read_drawn_pips_and_weigh_but_never_replace_a_suit() {
        let net = GlyphNet::suits().unwrap();
        let drawn = GlyphTemplates::drawn().unwrap();
        let (mut pips, mut right) = (0, 0);
        for (class, glyph) in &drawn.templates {
            if let GlyphClass::Suit(suit) = class {
                pips += 1;
                right += usize::from(net.scores(glyph).unwrap().suit_reading(&Suit::ALL).0 == *suit);
            }
        }
        assert!(pips >= 8 && right * 10 >= pips * 9, "{right}/{pips} drawn pips read");
        let heart = drawn.templates.iter().find(|(c, _)| *c == GlyphClass::Suit(Suit::Hearts)).unwrap().1.clone();
        let red = [Suit::Diamonds, Suit::Hearts];
        let scores = net.scores(&heart).unwrap();
        let (read, sure) = scores.suit_reading(&red);
        assert_eq!(read, Suit::Hearts);
        // Read as a diamond by the templates: doubted by as much as the networks are sure.
        let doubted = scores.weigh_suit(&red, Suit::Diamonds, 0.8, false);
        assert!((doubted - 0.8 * (1.0 - sure)).abs() < 1e-6);
        // Agreeing: a corner keeps its confidence, a loose index takes the surer.
        assert_eq!(scores.weigh_suit(&red, Suit::Hearts, 0.3, false), 0.3);
        assert_eq!(scores.weigh_suit(&red, Suit::Hearts, 0.3, true), sure.max(0.3));
    }

    #[test]
    fn the_forward_pass_gives_what_opencv_predicts() {
        for net in [GlyphNet::ranks().unwrap(), GlyphNet::suits().unwrap()] {
            for (_, glyph) in bundled_font_glyphs().templates.iter().step_by(7) {
                let (ours, theirs) = (net.scores(glyph).unwrap().0, net.scores_opencv(glyph).unwrap().0);
                assert_eq!(ours.len(), theirs.len());
                for (a, b) in ours.iter().zip(&theirs) {
                    assert!((a - b).abs() < 1e-3, "{ours:?} against {theirs:?}");
                }
            }
        }
    }

    #[test]
    fn a_trained_network_survives_its_yaml() {
        let glyphs = bundled_font_glyphs();
        let net = GlyphNet::train(&glyphs, Reads::Suits, 5, 1).unwrap();
        let again = GlyphNet::from_yaml(&net.to_yaml().unwrap(), Reads::Suits).unwrap();
        // A suit network is not a rank network.
        assert!(GlyphNet::from_yaml(&net.to_yaml().unwrap(), Reads::Ranks).is_err());
        let glyph = &glyphs.templates[0].1;
        let (a, b) = (net.scores(glyph).unwrap().0, again.scores(glyph).unwrap().0);
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-4, "{a:?} against {b:?}");
        }
        assert!(GlyphNet::from_yaml("%YAML:1.0\n---\nnothing: 1\n", Reads::Ranks).is_err());
    }
}
