//! Measures enrolment from unlabelled photos: `cargo run --release --example symbols_unlabelled_eval
//! -- ENROL_DIR TEST_DIR DECK.json`. The labels of ENROL_DIR are read here only to score the
//! clustering and to play the user who names the classes the tool asks for (the name of the symbol
//! in the exemplar crop); the enrolment itself never sees them.

use std::collections::HashMap;
use std::path::Path;

use card_referee::symbols::deck::Deck;
use card_referee::vision::symbols::SymbolRecognizer;
use card_referee::vision::symbols::enroll::{CardObservation, enroll_labelled};
use card_referee::vision::symbols::eval::evaluate;
use card_referee::vision::symbols::labels::read_labels;
use card_referee::vision::symbols::unlabelled::{Unlabelled, exemplar, observe_folder};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [enrol, test, deck] = &args[..] else { anyhow::bail!("usage: ENROL_DIR TEST_DIR DECK.json") };
    let deck = Deck::load(Path::new(deck))?;
    let start = std::time::Instant::now();
    let (photos, skipped) = observe_folder(Path::new(enrol))?;
    let un = Unlabelled::new(&deck, photos);
    let secs = start.elapsed().as_secs_f64();
    // Ground truth per crop: the labelled enrolment's assignment on the same crops.
    let labels: HashMap<String, u32> =
        read_labels(Path::new(enrol))?.into_iter().filter_map(|i| Some((i.file, *i.cards.first()?))).collect();
    let obs: Vec<CardObservation> = un
        .photos
        .iter()
        .map(|p| CardObservation { card: labels[&p.file], blobs: p.blobs.clone(), descriptors: p.descriptors.clone() })
        .collect();
    let (_, truth) = enroll_labelled(&deck, &obs)?;
    let crops: usize = un.photos.iter().map(|p| p.descriptors.len()).sum();
    let (mut clustered, mut pure) = (0, 0);
    for class in &un.clustering.classes {
        let mut counts: HashMap<Option<usize>, usize> = HashMap::new();
        for &(p, b) in class {
            *counts.entry(truth[p][b]).or_default() += 1;
        }
        clustered += class.len();
        pure += counts.iter().filter(|e| e.0.is_some()).map(|e| *e.1).max().unwrap_or(0);
    }
    let (none, many) = un.clustering.sharing_faults();
    println!(
        "{enrol}: {} photos ({} skipped), {crops} crops; {} classes (deck: {} symbols); {clustered} crops clustered, \
         {pure} in their class's majority symbol ({:.1} %); photo pairs sharing no class {none}, several {many}; {secs:.1} s",
        un.photos.len(),
        skipped.len(),
        un.clustering.classes.len(),
        deck.symbols().len(),
        100.0 * pure as f64 / clustered.max(1) as f64,
    );
    // The simulated user names the asked classes by their exemplar crop.
    let given: Vec<(usize, usize)> = un
        .ask
        .iter()
        .filter_map(|&c| {
            let (p, b) = exemplar(&un.photos, &un.clustering.classes[c]);
            truth[p][b].map(|s| (c, s))
        })
        .collect();
    let (profile, naming) = un.finish(&deck, &given)?;
    let named = naming.class_symbol.iter().flatten().count();
    let identified: Vec<(usize, u32)> =
        naming.photo_card.iter().enumerate().filter_map(|(p, c)| c.map(|c| (p, c))).collect();
    let right = identified.iter().filter(|(p, c)| labels[&un.photos[*p].file] == *c).count();
    println!(
        "names asked {}: classes named {named}/{}, photos identified {}/{} ({right} right)",
        given.len(),
        un.clustering.classes.len(),
        identified.len(),
        un.photos.len()
    );
    let recognizer = SymbolRecognizer::new(deck, &profile)?;
    let report = evaluate(&recognizer, Path::new(test))?;
    println!("eval on {test}:\n{}", report.text());
    Ok(())
}
