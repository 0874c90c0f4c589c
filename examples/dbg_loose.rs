use card_referee::vision::cards::classify::GlyphTemplates;
use card_referee::vision::cards::index::find_indices;
use opencv::imgcodecs;
fn main() {
    let t = GlyphTemplates::builtin().unwrap();
    let mut s = t.clone();
    s.templates.extend(GlyphTemplates::builtin_seen().unwrap().templates);
    let a: Vec<String> = std::env::args().collect();
    let img = imgcodecs::imread(&a[1], imgcodecs::IMREAD_COLOR).unwrap();
    let (x, y, r): (i32, i32, i32) = (a[2].parse().unwrap(), a[3].parse().unwrap(), a[4].parse().unwrap());
    for h in find_indices(&img, &t, &s, 0.0, &[]).unwrap() {
        if (h.bbox.x - x).abs() < r && (h.bbox.y - y).abs() < r {
            println!("{} {:.2} {:?} size {:.1}", h.card, h.confidence, h.bbox, h.size);
        }
    }
}
