//! The card reader on the renderer's synthetic tables, on seeds no threshold was tuned on.

use card_referee::cli::vision_cards::evaluate_synthetic;

#[test]
fn synthetic_tables_read_well_enough() {
    // Cascades, tilt up to 45 degrees, a hand over the table, blur and noise.
    let s = evaluate_synthetic(12, 9_000_000).expect("renders and evaluates");
    eprintln!("synthetic 9000000+12: P {} R {}", s.score.precision(), s.score.recall());
    // Measured 0.953 / 0.953.
    assert!(s.score.precision() >= 0.92, "precision {}", s.score.precision());
    assert!(s.score.recall() >= 0.92, "recall {}", s.score.recall());
}
