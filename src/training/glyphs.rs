//! Training glyphs made by the project's own face renderer: random designs and fonts, then the
//! damage a camera does (small size, an outline found a few pixels off, blur, light, noise), cut
//! by the same corner reader the detector uses, so that templates look like what it will see.
//! No photograph is used.

use std::sync::Arc;

use opencv::core::{self, Mat, Scalar, Size};
use opencv::imgproc;
use opencv::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::cards::Card;
use crate::geometry::{Homography, Pt};
use crate::render::face::draw_face;
use crate::render::random::random_face_style;
use crate::vision::cards::readers::classify::{GlyphClass, GlyphFeature, GlyphTemplates};
use crate::vision::cards::stages::corners::corner_glyphs;
use crate::vision::cards::types::{CARD_H, CARD_W, Corner};

/// Glyphs cut from `rounds` damaged renderings of every card, both corners: ranks, suits, and
/// the digits of each "10" printed as two glyphs.
pub fn damaged_glyphs(rounds: usize, seed: u64, fonts: &[Arc<[u8]>]) -> opencv::Result<GlyphTemplates> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut templates = Vec::new();
    for _ in 0..rounds {
        for card in Card::deck() {
            let style = random_face_style(&mut rng, fonts);
            let face = draw_face(card, &style, CARD_W)?;
            let seen = camera_damage(&face, &mut rng)?;
            for corner in [Corner::TopLeft, Corner::BottomRight] {
                let Some(glyphs) = corner_glyphs(&seen, corner)? else { continue };
                templates.push((GlyphClass::Rank(card.rank), glyphs.rank));
                templates.push((GlyphClass::Suit(card.suit), glyphs.suit));
                if card.rank.value() == 10
                    && let [one, zero] = glyphs.parts.as_slice()
                {
                    templates.push((GlyphClass::Digit(1), one.clone()));
                    templates.push((GlyphClass::Digit(0), zero.clone()));
                }
            }
        }
    }
    Ok(GlyphTemplates { templates })
}

/// What a camera and an imperfect outline do to a face: it ends rectified at `CARD_W x CARD_H`.
pub fn camera_damage(face: &Mat, rng: &mut ChaCha8Rng) -> opencv::Result<Mat> {
    // Seen small: a card 60..250 px wide in the frame.
    let width = rng.random_range(60..=CARD_W);
    let height = (f64::from(width) * f64::from(CARD_H) / f64::from(CARD_W)) as i32;
    let mut small = Mat::default();
    imgproc::resize(face, &mut small, Size::new(width, height), 0.0, 0.0, imgproc::INTER_AREA)?;
    let sigma = rng.random_range(0.0..1.0);
    if sigma > 0.3 {
        let mut blurred = Mat::default();
        imgproc::gaussian_blur_def(&small, &mut blurred, Size::new(0, 0), sigma)?;
        small = blurred;
    }
    // The outline found in a frame is off by a few pixels at each corner.
    let (w, h) = (f64::from(width), f64::from(height));
    let from = [Pt::new(0.0, 0.0), Pt::new(w, 0.0), Pt::new(w, h), Pt::new(0.0, h)];
    let found = from.map(|p| Pt::new(p.x + rng.random_range(-0.02..0.02) * w, p.y + rng.random_range(-0.02..0.02) * w));
    let (cw, ch) = (f64::from(CARD_W), f64::from(CARD_H));
    let target = [Pt::new(0.0, 0.0), Pt::new(cw, 0.0), Pt::new(cw, ch), Pt::new(0.0, ch)];
    let rectify = Homography::from_quads(&found, &target).unwrap_or(Homography::IDENTITY).to_mat()?;
    let mut rectified = Mat::default();
    imgproc::warp_perspective(
        &small,
        &mut rectified,
        &rectify,
        Size::new(CARD_W, CARD_H),
        imgproc::INTER_LINEAR,
        core::BORDER_REPLICATE,
        Scalar::all(0.0),
    )?;
    let mut lit = Mat::default();
    rectified.convert_to(&mut lit, -1, rng.random_range(0.6..1.1), rng.random_range(-20.0..20.0))?;
    let mut noise = Mat::new_rows_cols_with_default(CARD_H, CARD_W, core::CV_8UC3, Scalar::all(0.0))?;
    core::set_rng_seed(rng.random::<i32>())?;
    core::randn(&mut noise, &Scalar::all(128.0), &Scalar::all(rng.random_range(0.0..6.0)))?;
    let mut noisy = Mat::default();
    core::add_weighted(&lit, 1.0, &noise, 1.0, -128.0, &mut noisy, -1)?;
    Ok(noisy)
}

/// Condenses a template set to at most `per_class` templates per class: the centres of k-means
/// clusters of each class's glyphs (pixels, edges and log-aspect together). Comparing with a few
/// hundred centres instead of thousands of samples keeps the reader fast while keeping the
/// variety the samples brought.
pub fn condensed(set: &GlyphTemplates, per_class: usize) -> opencv::Result<GlyphTemplates> {
    let mut classes: Vec<GlyphClass> = Vec::new();
    for (class, _) in &set.templates {
        if !classes.contains(class) {
            classes.push(*class);
        }
    }
    let mut out = Vec::new();
    for class in classes {
        let members: Vec<&GlyphFeature> = set.templates.iter().filter(|(c, _)| *c == class).map(|(_, g)| g).collect();
        if members.len() <= per_class {
            out.extend(members.into_iter().map(|g| (class, g.clone())));
            continue;
        }
        for centre in cluster_centres(&members, per_class)? {
            out.push((class, centre));
        }
    }
    Ok(GlyphTemplates { templates: out })
}

fn cluster_centres(members: &[&GlyphFeature], k: usize) -> opencv::Result<Vec<GlyphFeature>> {
    let (np, ne) = (members[0].pixels.len(), members[0].edges.len());
    let dims = np + ne + 1;
    let mut data = Vec::with_capacity(members.len() * dims);
    for g in members {
        data.extend_from_slice(&g.pixels);
        data.extend_from_slice(&g.edges);
        data.push(g.aspect.ln());
    }
    let samples = Mat::new_rows_cols_with_data(members.len() as i32, dims as i32, &data)?.try_clone()?;
    let mut labels = Mat::default();
    let mut centres = Mat::default();
    core::set_rng_seed(12_345)?;
    let criteria = core::TermCriteria::new(core::TermCriteria_COUNT + core::TermCriteria_EPS, 30, 1e-4)?;
    core::kmeans(&samples, k as i32, &mut labels, criteria, 2, core::KMEANS_PP_CENTERS, &mut centres)?;
    let mut out = Vec::with_capacity(k);
    for row in 0..centres.rows() {
        let v: &[f32] = centres.at_row::<f32>(row)?;
        let mut glyph = GlyphFeature::normalised(v[..np].to_vec(), v[np + ne].exp());
        let norm = v[np..np + ne].iter().map(|x| x * x).sum::<f32>().sqrt().max(f32::MIN_POSITIVE);
        glyph.edges = v[np..np + ne].iter().map(|x| x / norm).collect();
        out.push(glyph);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_faces_give_labelled_glyphs_and_condensing_caps_each_class() {
        let set = damaged_glyphs(1, 3, &[]).unwrap();
        // Both corners of most of the 52 cards are cut: a rank and a suit each.
        let ranks = set.templates.iter().filter(|(c, _)| matches!(c, GlyphClass::Rank(_))).count();
        assert!(ranks >= 80, "{ranks} rank glyphs");
        let small = condensed(&set, 2).unwrap();
        for class in
            [GlyphClass::Suit(crate::cards::Suit::Hearts), GlyphClass::Rank(crate::cards::Rank::new(10).unwrap())]
        {
            let n = small.templates.iter().filter(|(c, _)| *c == class).count();
            assert!((1..=2).contains(&n), "{class:?}: {n}");
        }
        // A centre is still a unit-length glyph, so it compares like any template.
        let (_, g) = &small.templates[0];
        assert!((g.similarity(g) - 1.0).abs() < 1e-3);
    }
}
