//! Print-ready sheets: round 9 cm cards, six to an A4 or Letter page, each with a thin grey cut
//! circle, then one legend page naming every symbol beside its picture.
//!
//! Each page is composed as one SVG (in millimetres) and converted to vector PDF by svg2pdf, then
//! the pages are joined with pdf-writer. Vector output keeps the pictures sharp on any printer
//! and the file small; it also means the printed card is exactly the SVG the raster renderer
//! draws, so the ground truth of one is the ground truth of the other.

use std::collections::HashMap;
use std::fmt::Write as _;

use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref};

use super::{PictureDeck, RenderError, SymbolPlacement, card_svg, parse_svg, svg_body, unique_ids};
use crate::symbols::deck::CardId;
use crate::symbols::names::normalise;

/// Card diameter on paper.
pub const CARD_MM: f32 = 90.0;
const COLUMNS: usize = 2;
const ROWS: usize = 3;
/// Printers leave an unprinted edge of about this much.
const MIN_MARGIN_MM: f32 = 4.5;
const MM_TO_PT: f32 = 72.0 / 25.4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paper {
    A4,
    Letter,
}

impl Paper {
    /// Width and height in millimetres, portrait.
    pub fn size_mm(self) -> (f32, f32) {
        match self {
            Paper::A4 => (210.0, 297.0),
            Paper::Letter => (215.9, 279.4),
        }
    }
}

/// A card as printed: where on its page (millimetres from the top-left corner) and its symbols.
#[derive(Clone, Debug, PartialEq)]
pub struct PrintedCard {
    pub card: CardId,
    pub center_mm: (f32, f32),
    /// The symbols' placements in millimetres on the page.
    pub symbols: Vec<SymbolPlacement>,
}

/// One page of the print: its cards (empty on the legend page) and its SVG.
#[derive(Clone, Debug)]
pub struct PrintedPage {
    pub cards: Vec<PrintedCard>,
    pub is_legend: bool,
    pub svg: String,
}

/// The deck as PDF bytes.
pub fn print_deck(deck: &PictureDeck, paper: Paper) -> Result<Vec<u8>, RenderError> {
    write_pdf(&print_pages(deck, paper), paper)
}

/// The pages of the print, card pages first, then the legend: what [`print_deck`] writes.
pub fn print_pages(deck: &PictureDeck, paper: Paper) -> Vec<PrintedPage> {
    let per_page = COLUMNS * ROWS;
    let cards = deck.deck.cards();
    let total_pages = cards.len().div_ceil(per_page) + 1;
    let mut pages: Vec<PrintedPage> = cards
        .chunks(per_page)
        .enumerate()
        .map(|(i, chunk)| card_page(deck, paper, chunk.iter().map(|c| c.id).collect(), i + 1, total_pages))
        .collect();
    pages.push(legend_page(deck, paper));
    pages
}

/// Centres of the card slots on a page: two columns, three rows, spread evenly.
fn slot_centres(paper: Paper) -> Vec<(f32, f32)> {
    let (w, h) = paper.size_mm();
    let gap_x = (w - COLUMNS as f32 * CARD_MM) / (COLUMNS + 1) as f32;
    let spare_y = h - ROWS as f32 * CARD_MM;
    let gap_y = ((spare_y - 2.0 * MIN_MARGIN_MM) / (ROWS - 1) as f32).clamp(0.0, 8.0);
    let margin_y = (spare_y - gap_y * (ROWS - 1) as f32) / 2.0;
    let mut centres = Vec::new();
    for row in 0..ROWS {
        for col in 0..COLUMNS {
            let x = gap_x * (col + 1) as f32 + CARD_MM * (col as f32 + 0.5);
            let y = margin_y + (gap_y + CARD_MM) * row as f32 + CARD_MM / 2.0;
            centres.push((x, y));
        }
    }
    centres
}

fn page_open(paper: Paper) -> String {
    let (w, h) = paper.size_mm();
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="{w}" height="{h}" viewBox="0 0 {w} {h}"><rect width="{w}" height="{h}" fill="#ffffff"/>"##
    )
}

fn card_page(deck: &PictureDeck, paper: Paper, ids: Vec<CardId>, page: usize, pages: usize) -> PrintedPage {
    let (w, h) = paper.size_mm();
    let mut svg = page_open(paper);
    let mut cards = Vec::new();
    for (slot, (id, (cx, cy))) in ids.iter().zip(slot_centres(paper)).enumerate() {
        let Some(card) = deck.deck.card(*id) else {
            continue;
        };
        let (x0, y0) = (cx - CARD_MM / 2.0, cy - CARD_MM / 2.0);
        let (body, symbols) = card_svg(deck, card, CARD_MM, &format!("p{page}c{slot}"));
        let _ = write!(svg, r#"<g transform="translate({x0} {y0})">{body}</g>"#);
        let symbols = symbols
            .into_iter()
            .map(|mut s| {
                s.center = (s.center.0 + x0, s.center.1 + y0);
                s
            })
            .collect();
        cards.push(PrintedCard { card: *id, center_mm: (cx, cy), symbols });
    }
    let first = ids.first().copied().unwrap_or(0);
    let last = ids.last().copied().unwrap_or(0);
    let _ = write!(
        svg,
        r##"<text x="{}" y="{}" font-size="2.4" text-anchor="middle" fill="#8a8a8a">{} · cards {first}–{last} of {} · cut along the grey circles · page {page} of {pages}</text></svg>"##,
        w / 2.0,
        h - 1.6,
        xml_escape(&deck.deck.name),
        deck.deck.cards().len()
    );
    PrintedPage { cards, is_legend: false, svg }
}

/// Every symbol with its picture, name and synonyms, in alphabetical order, three columns.
fn legend_page(deck: &PictureDeck, paper: Paper) -> PrintedPage {
    let (w, h) = paper.size_mm();
    let mut svg = page_open(paper);
    let _ = write!(
        svg,
        r##"<text x="12" y="16" font-size="7" fill="#202020">{} — the {} symbols</text>"##,
        xml_escape(&deck.deck.name),
        deck.deck.symbols().len()
    );
    let mut order: Vec<usize> = (0..deck.deck.symbols().len()).collect();
    order.sort_by_key(|&s| normalise(deck.deck.symbol_name(s)));
    let columns = 3;
    let rows = order.len().div_ceil(columns).max(1);
    let (col_w, row_h) = ((w - 24.0) / columns as f32, (h - 32.0) / rows as f32);
    let picture = (row_h * 0.82).min(13.0);
    for (i, &symbol) in order.iter().enumerate() {
        let (x, y) = (12.0 + col_w * (i / rows) as f32, 24.0 + row_h * (i % rows) as f32);
        let scale = picture / 128.0;
        let body = unique_ids(svg_body(deck.picture(symbol)), &format!("l{i}"));
        let _ = write!(svg, r#"<g transform="translate({x} {y}) scale({scale})">{body}</g>"#);
        let text_x = x + picture + 2.5;
        let _ = write!(
            svg,
            r##"<text x="{text_x}" y="{}" font-size="3.6" fill="#202020">{}</text>"##,
            y + picture * 0.5,
            xml_escape(deck.deck.symbol_name(symbol))
        );
        let synonyms = deck.deck.synonyms(symbol);
        if !synonyms.is_empty() {
            let _ = write!(
                svg,
                r##"<text x="{text_x}" y="{}" font-size="2.4" fill="#7a7a7a">also: {}</text>"##,
                y + picture * 0.5 + 3.6,
                xml_escape(&synonyms.join(", "))
            );
        }
    }
    svg.push_str("</svg>");
    PrintedPage { cards: Vec::new(), is_legend: true, svg }
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Converts each page's SVG to a PDF page.
fn write_pdf(pages: &[PrintedPage], paper: Paper) -> Result<Vec<u8>, RenderError> {
    let (w, h) = paper.size_mm();
    let (w_pt, h_pt) = (w * MM_TO_PT, h * MM_TO_PT);
    let mut alloc = Ref::new(1);
    let catalog_id = alloc.bump();
    let tree_id = alloc.bump();
    let mut pdf = Pdf::new();
    let mut page_ids = Vec::new();
    // Text becomes outlines: the PDF then needs no fonts at all.
    let options = svg2pdf::ConversionOptions { embed_text: false, ..Default::default() };
    for page in pages {
        let tree = parse_svg(&page.svg)?;
        let (chunk, root) = svg2pdf::to_chunk(&tree, options).map_err(|e| RenderError::Pdf(e.to_string()))?;
        let mut map = HashMap::new();
        let chunk = chunk.renumber(|old| *map.entry(old).or_insert_with(|| alloc.bump()));
        let svg_id = map[&root];
        let (page_id, content_id) = (alloc.bump(), alloc.bump());
        let mut pdf_page = pdf.page(page_id);
        pdf_page.media_box(Rect::new(0.0, 0.0, w_pt, h_pt));
        pdf_page.parent(tree_id);
        pdf_page.contents(content_id);
        pdf_page.resources().x_objects().pair(Name(b"P"), svg_id);
        pdf_page.finish();
        // The converted SVG is a 1 x 1 pt form: stretch it over the page.
        let mut content = Content::new();
        content.transform([w_pt, 0.0, 0.0, h_pt, 0.0, 0.0]).x_object(Name(b"P"));
        pdf.stream(content_id, &content.finish());
        pdf.extend(&chunk);
        page_ids.push(page_id);
    }
    pdf.catalog(catalog_id).pages(tree_id);
    pdf.pages(tree_id).kids(page_ids.iter().copied()).count(page_ids.len() as i32);
    Ok(pdf.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_fit_the_paper_without_overlap() {
        for paper in [Paper::A4, Paper::Letter] {
            let (w, h) = paper.size_mm();
            let centres = slot_centres(paper);
            for (i, &(x, y)) in centres.iter().enumerate() {
                let r = CARD_MM / 2.0;
                assert!(x - r >= MIN_MARGIN_MM && x + r <= w - MIN_MARGIN_MM, "{paper:?}");
                assert!(y - r >= MIN_MARGIN_MM - 0.01 && y + r <= h - MIN_MARGIN_MM + 0.01, "{paper:?} {y}");
                for &(x2, y2) in &centres[i + 1..] {
                    assert!(((x - x2).powi(2) + (y - y2).powi(2)).sqrt() >= CARD_MM - 1e-3);
                }
            }
        }
    }

    #[test]
    fn every_card_is_printed_once() {
        let deck = PictureDeck::cipher();
        let pages = print_pages(&deck, Paper::Letter);
        assert_eq!(pages.len(), 11);
        assert!(pages.last().unwrap().is_legend);
        let printed: Vec<CardId> = pages.iter().flat_map(|p| p.cards.iter().map(|c| c.card)).collect();
        assert_eq!(printed, (1..=57).collect::<Vec<_>>());
    }
}
