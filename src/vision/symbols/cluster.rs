//! Which symbol crops are the same symbol, across photos of cards whose ids are not known.
//!
//! Descriptors alone do not separate a deck's symbols (many are red, many are round), but a crop's
//! nearest crop on another photo is nearly always the same symbol (88 % on webcam photos, 97 % on
//! scans of the retail deck). So crops are joined bottom up, closest clusters first (average
//! linkage), under the deck's rules, which only get harder to meet as clusters grow:
//! - no symbol is twice on a card: a cluster never holds two crops of one photo;
//! - any two cards share exactly one symbol: no two photos share two clusters, so two clusters
//!   are not joined when a photo of one and a photo of the other already share a cluster.
//!
//! (The best-matching crop pair of two photos, by contrast, is the shared symbol only half the time
//! on webcam photos: it is not used as a link.)

use super::describe::distance;

/// A crop: (photo, blob on that photo).
pub type Crop = (usize, usize);

/// Symbol classes found among the crops of several photos.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clustering {
    /// Members of each class, by photo.
    pub classes: Vec<Vec<Crop>>,
    /// Per photo, per blob: its class (`None`: a crop no class explains).
    pub class_of: Vec<Vec<Option<usize>>>,
}

impl Clustering {
    /// Photos holding each class (sorted).
    pub fn photos_of(&self, class: usize) -> Vec<usize> {
        let mut p: Vec<usize> = self.classes[class].iter().map(|c| c.0).collect();
        p.sort_unstable();
        p
    }

    /// Classes on each photo.
    pub fn classes_on(&self, photo: usize) -> Vec<usize> {
        self.class_of[photo].iter().flatten().copied().collect()
    }

    /// Pairs of photos that share no class and pairs that share more than one: a clean
    /// clustering of a valid deck has neither.
    pub fn sharing_faults(&self) -> (usize, usize) {
        let n = self.class_of.len();
        let (mut none, mut many) = (0, 0);
        for a in 0..n {
            for b in a + 1..n {
                let ca = self.classes_on(a);
                let shared = self.classes_on(b).iter().filter(|c| ca.contains(c)).count();
                match shared {
                    0 => none += 1,
                    1 => {}
                    _ => many += 1,
                }
            }
        }
        (none, many)
    }
}

/// Clusters further apart than this (mean distance between their members) stay apart.
const LINK_CAP: f32 = 2.0;
/// Classes with fewer members are dissolved (a symbol is on several cards).
const MIN_MEMBERS: usize = 2;

/// Clusters the crops of several photos (per photo, per blob: its descriptor) into symbol classes.
pub fn cluster_crops(descriptors: &[Vec<Vec<f32>>]) -> Clustering {
    let crop_of: Vec<Crop> =
        (0..descriptors.len()).flat_map(|p| (0..descriptors[p].len()).map(move |b| (p, b))).collect();
    let total = crop_of.len();
    let desc = |c: Crop| &descriptors[c.0][c.1];
    // Average-linkage distances between clusters (Lance-Williams updates).
    let mut dist: Vec<Vec<f32>> =
        (0..total).map(|x| (0..total).map(|y| distance(desc(crop_of[x]), desc(crop_of[y]))).collect()).collect();
    let mut members: Vec<Vec<Crop>> = crop_of.iter().map(|&c| vec![c]).collect();
    let mut alive = vec![true; total];
    // Pairs whose merge broke a rule: the rules only get harder to meet as clusters grow.
    let mut forbidden = vec![vec![false; total]; total];
    for x in 0..total {
        for y in 0..total {
            forbidden[x][y] = crop_of[x].0 == crop_of[y].0;
        }
    }
    loop {
        let mut best: Option<(f32, usize, usize)> = None;
        for x in (0..total).filter(|&x| alive[x]) {
            for y in (x + 1..total).filter(|&y| alive[y] && !forbidden[x][y]) {
                if dist[x][y] < LINK_CAP && best.is_none_or(|b| dist[x][y] < b.0) {
                    best = Some((dist[x][y], x, y));
                }
            }
        }
        let Some((_, x, y)) = best else { break };
        if !mergeable(&members, &alive, x, y) {
            forbidden[x][y] = true;
            forbidden[y][x] = true;
            continue;
        }
        let (nx, ny) = (members[x].len() as f32, members[y].len() as f32);
        for z in 0..total {
            let d = (nx * dist[x][z] + ny * dist[y][z]) / (nx + ny);
            dist[x][z] = d;
            dist[z][x] = d;
            let f = forbidden[x][z] || forbidden[y][z];
            forbidden[x][z] = f;
            forbidden[z][x] = f;
        }
        let moved = std::mem::take(&mut members[y]);
        members[x].extend(moved);
        alive[y] = false;
    }
    let classes: Vec<Vec<Crop>> = members.into_iter().filter(|g| g.len() >= MIN_MEMBERS).collect();
    finish(descriptors, classes)
}

/// Whether two clusters may be one symbol: no photo holds both, and the joined cluster shares at
/// most one photo with every other cluster (two symbols are together on one card only).
fn mergeable(members: &[Vec<Crop>], alive: &[bool], x: usize, y: usize) -> bool {
    let mut photos: Vec<usize> = members[x].iter().chain(&members[y]).map(|c| c.0).collect();
    photos.sort_unstable();
    if photos.windows(2).any(|w| w[0] == w[1]) {
        return false;
    }
    (0..members.len())
        .filter(|&z| alive[z] && z != x && z != y && members[z].len() > 1)
        .all(|z| members[z].iter().filter(|c| photos.binary_search(&c.0).is_ok()).count() <= 1)
}

/// Classes in a stable order (by their first crop) with the per-crop index.
fn finish(descriptors: &[Vec<Vec<f32>>], mut classes: Vec<Vec<Crop>>) -> Clustering {
    for c in &mut classes {
        c.sort_unstable();
    }
    classes.sort();
    let mut class_of: Vec<Vec<Option<usize>>> = descriptors.iter().map(|d| vec![None; d.len()]).collect();
    for (k, c) in classes.iter().enumerate() {
        for &(p, b) in c {
            class_of[p][b] = Some(k);
        }
    }
    Clustering { classes, class_of }
}
