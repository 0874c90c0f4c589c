//! Plane geometry for the renderer: points and 3×3 homographies in plain f64, so that the scene
//! maths needs no OpenCV types until the final warp.

use opencv::core::{Mat, Point2f};

/// A point in some plane (table millimetres, card pixels or image pixels).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Pt {
    pub x: f64,
    pub y: f64,
}

impl Pt {
    pub const fn new(x: f64, y: f64) -> Pt {
        Pt { x, y }
    }

    pub fn lerp(self, other: Pt, t: f64) -> Pt {
        Pt::new(self.x + (other.x - self.x) * t, self.y + (other.y - self.y) * t)
    }

    pub fn distance(self, other: Pt) -> f64 {
        (self.x - other.x).hypot(self.y - other.y)
    }
}

/// A 3×3 projective transform, row-major: `[x', y', w'] = H · [x, y, 1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Homography(pub [[f64; 3]; 3]);

impl Homography {
    pub const IDENTITY: Homography = Homography([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);

    pub fn translation(dx: f64, dy: f64) -> Homography {
        Homography([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])
    }

    pub fn scale(sx: f64, sy: f64) -> Homography {
        Homography([[sx, 0.0, 0.0], [0.0, sy, 0.0], [0.0, 0.0, 1.0]])
    }

    /// Rotation by `angle` radians about the origin (clockwise on screen, since y points down).
    pub fn rotation(angle: f64) -> Homography {
        let (s, c) = angle.sin_cos();
        Homography([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    }

    /// `self ∘ other`: apply `other` first, then `self`.
    pub fn then_after(&self, other: &Homography) -> Homography {
        let (a, b) = (&self.0, &other.0);
        let mut out = [[0.0; 3]; 3];
        for (r, row) in out.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                *cell = (0..3).map(|k| a[r][k] * b[k][c]).sum();
            }
        }
        Homography(out)
    }

    pub fn apply(&self, p: Pt) -> Pt {
        let m = &self.0;
        let w = m[2][0] * p.x + m[2][1] * p.y + m[2][2];
        Pt::new((m[0][0] * p.x + m[0][1] * p.y + m[0][2]) / w, (m[1][0] * p.x + m[1][1] * p.y + m[1][2]) / w)
    }

    /// `apply` with one division instead of two, for per-pixel loops (a division's wait is much
    /// of their time); the result may differ from `apply`'s in its last bit.
    pub fn apply_quick(&self, p: Pt) -> Pt {
        let m = &self.0;
        let inv = 1.0 / (m[2][0] * p.x + m[2][1] * p.y + m[2][2]);
        Pt::new((m[0][0] * p.x + m[0][1] * p.y + m[0][2]) * inv, (m[1][0] * p.x + m[1][1] * p.y + m[1][2]) * inv)
    }

    /// The transform taking the four `from` points onto the four `to` points (direct linear solve).
    pub fn from_quads(from: &[Pt; 4], to: &[Pt; 4]) -> Option<Homography> {
        // Eight equations in the eight unknowns h00..h21 (h22 = 1), solved by Gaussian elimination.
        let mut a = [[0.0f64; 9]; 8];
        for i in 0..4 {
            let (x, y, u, v) = (from[i].x, from[i].y, to[i].x, to[i].y);
            a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
            a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
        }
        let h = solve_8x8(&mut a)?;
        Some(Homography([[h[0], h[1], h[2]], [h[3], h[4], h[5]], [h[6], h[7], 1.0]]))
    }

    /// The inverse transform; `None` when singular.
    pub fn inverse(&self) -> Option<Homography> {
        let m = &self.0;
        let cof = |r0: usize, r1: usize, c0: usize, c1: usize| m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0];
        let adj = [
            [cof(1, 2, 1, 2), -cof(0, 2, 1, 2), cof(0, 1, 1, 2)],
            [-cof(1, 2, 0, 2), cof(0, 2, 0, 2), -cof(0, 1, 0, 2)],
            [cof(1, 2, 0, 1), -cof(0, 2, 0, 1), cof(0, 1, 0, 1)],
        ];
        let det = m[0][0] * adj[0][0] + m[0][1] * adj[1][0] + m[0][2] * adj[2][0];
        (det.abs() > 1e-15).then(|| Homography(adj.map(|row| row.map(|v| v / det))))
    }

    pub fn to_mat(&self) -> opencv::Result<Mat> {
        Mat::from_slice_2d(&self.0)
    }
}

/// Solves the augmented 8×9 system in place with partial pivoting; `None` when singular.
fn solve_8x8(a: &mut [[f64; 9]; 8]) -> Option<[f64; 8]> {
    for col in 0..8 {
        let pivot = (col..8).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        for row in 0..8 {
            if row != col {
                let f = a[row][col] / a[col][col];
                let pivot_row = a[col];
                for (cell, p) in a[row].iter_mut().zip(pivot_row).skip(col) {
                    *cell -= f * p;
                }
            }
        }
    }
    let mut x = [0.0; 8];
    for (i, xi) in x.iter_mut().enumerate() {
        *xi = a[i][8] / a[i][i];
    }
    Some(x)
}

pub fn to_point2f(p: Pt) -> Point2f {
    Point2f::new(p.x as f32, p.y as f32)
}

/// Whether `p` lies inside the convex quad `q` (either winding).
pub fn quad_contains(q: &[Pt; 4], p: Pt) -> bool {
    let mut sign = 0.0;
    for i in 0..4 {
        let (a, b) = (q[i], q[(i + 1) % 4]);
        let cross = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
        if cross != 0.0 {
            if sign != 0.0 && cross.signum() != sign {
                return false;
            }
            sign = cross.signum();
        }
    }
    true
}

/// A card's face pixel (in a face `face_width` px wide) → table millimetres, for a card lying
/// at `centre` turned by `angle` (radians).
pub fn face_to_table(centre: Pt, angle: f64, face_width: i32) -> Homography {
    let px_to_mm = crate::cards::CARD_MM.0 / f64::from(face_width);
    let (w, h) = crate::cards::physical::face_size(face_width);
    Homography::translation(centre.x, centre.y)
        .then_after(&Homography::rotation(angle))
        .then_after(&Homography::scale(px_to_mm, px_to_mm))
        .then_after(&Homography::translation(-f64::from(w) / 2.0, -f64::from(h) / 2.0))
}

/// The corners of a card lying on the table at `centre`, turned by `angle` (radians), clockwise
/// from the top-left corner of its face, in table millimetres.
pub fn card_corners(centre: Pt, angle: f64) -> [Pt; 4] {
    let width = 100;
    let to_table = face_to_table(centre, angle, width);
    let (w, h) = crate::cards::physical::face_size(width);
    let (w, h) = (f64::from(w), f64::from(h));
    [Pt::new(0.0, 0.0), Pt::new(w, 0.0), Pt::new(w, h), Pt::new(0.0, h)].map(|p| to_table.apply(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rectangle and a skewed quad to map it onto.
    fn sample_quads() -> ([Pt; 4], [Pt; 4]) {
        let rect = [(0.0, 0.0), (10.0, 0.0), (10.0, 20.0), (0.0, 20.0)].map(|(x, y)| Pt::new(x, y));
        let skewed = [(5.0, 7.0), (90.0, 12.0), (80.0, 99.0), (2.0, 70.0)].map(|(x, y)| Pt::new(x, y));
        (rect, skewed)
    }

    #[test]
    fn quad_solve_maps_corners_exactly() {
        let (from, to) = sample_quads();
        let h = Homography::from_quads(&from, &to).unwrap();
        for (f, t) in from.iter().zip(&to) {
            assert!(h.apply(*f).distance(*t) < 1e-9);
        }
    }

    #[test]
    fn composition_applies_right_then_left() {
        let h = Homography::translation(3.0, 4.0).then_after(&Homography::scale(2.0, 2.0));
        assert_eq!(h.apply(Pt::new(1.0, 1.0)), Pt::new(5.0, 6.0));
    }

    #[test]
    fn inverse_undoes_the_transform() {
        let (from, to) = sample_quads();
        let h = Homography::from_quads(&from, &to).unwrap();
        let back = h.inverse().unwrap();
        let p = Pt::new(3.5, 11.0);
        assert!(back.apply(h.apply(p)).distance(p) < 1e-9);
    }

    #[test]
    fn degenerate_quads_have_no_homography() {
        let line = [Pt::new(0.0, 0.0), Pt::new(1.0, 0.0), Pt::new(2.0, 0.0), Pt::new(3.0, 0.0)];
        assert!(Homography::from_quads(&line, &line).is_none());
    }

    #[test]
    fn containment_in_a_rotated_quad() {
        let q = [Pt::new(0.0, 5.0), Pt::new(5.0, 0.0), Pt::new(10.0, 5.0), Pt::new(5.0, 10.0)];
        assert!(quad_contains(&q, Pt::new(5.0, 5.0)));
        assert!(!quad_contains(&q, Pt::new(0.5, 0.5)));
    }
}
