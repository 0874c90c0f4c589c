//! The physical card: its size and where its index sits. Facts of cards, shared by the renderer
//! (which draws them), the reader (which looks for the index there) and the table (which places
//! cards by their index).

/// Card size on the table, width × height in millimetres (poker size).
pub const CARD_MM: (f64, f64) = (63.0, 88.0);
/// Height : width of a poker-size card.
pub const CARD_ASPECT: f64 = 88.0 / 63.0;

/// Where a usual deck puts its top-left index, each as a fraction of the card's width: the index
/// box's left and top edges, and its rank glyph's height.
pub const INDEX_X: f64 = 0.035;
pub const INDEX_Y: f64 = 0.045;
pub const INDEX_GLYPH: f64 = 0.15;

/// The top-left index box (rank above suit) of a face `width` pixels wide whose index sits at
/// `x`, `y` with glyphs `glyph` high (fractions of the width): left, top, width and height in
/// face pixels. The bottom-right index is the same box turned 180° about the card's centre.
pub fn index_box(width: i32, x: f64, y: f64, glyph: f64) -> (i32, i32, i32, i32) {
    let w = f64::from(width);
    let height = glyph * w * 2.3 + 0.05 * w;
    ((x * w) as i32, (y * w) as i32, (0.19 * w) as i32, height as i32)
}

/// Face size in pixels for a given width.
pub fn face_size(width: i32) -> (i32, i32) {
    (width, (f64::from(width) * CARD_ASPECT).round() as i32)
}

/// Where a card's centre lies from its top-left index box's centre on an upright card, in
/// millimetres (x right, y down), for a usual deck's index.
pub fn index_to_centre() -> (f64, f64) {
    // Worked out on a face 600 px wide, as the renderer would draw it.
    let width = 600;
    let (bx, by, bw, bh) = index_box(width, INDEX_X, INDEX_Y, INDEX_GLYPH);
    let (w, h) = face_size(width);
    let mm = CARD_MM.0 / f64::from(width);
    let index = (f64::from(bx) + f64::from(bw) / 2.0, f64::from(by) + f64::from(bh) / 2.0);
    ((f64::from(w) / 2.0 - index.0) * mm, (f64::from(h) / 2.0 - index.1) * mm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_usual_index_lies_up_and_left_of_the_centre() {
        let (x, y) = index_to_centre();
        assert!(x > 20.0 && x < CARD_MM.0 / 2.0, "{x}");
        assert!(y > 20.0 && y < CARD_MM.1 / 2.0, "{y}");
    }
}
