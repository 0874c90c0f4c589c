//! The book written out: CSV (one row per player per game, for a spreadsheet) and JSON (every
//! game whole, with its record and tie-break).

use super::Kept;

/// The CSV columns, in order.
pub const CSV_HEADER: &str = "game,played_at,table,kind,player,seat,place,points,won,decided_by";

/// One row per player per game, under `CSV_HEADER`.
pub fn csv(games: &[Kept]) -> String {
    let mut out = format!("{CSV_HEADER}\n");
    for game in games {
        for r in &game.entry.results {
            let fields = [
                game.id.to_string(),
                game.played_at.clone(),
                game.table.clone(),
                game.entry.kind.clone(),
                r.player.clone(),
                (r.seat + 1).to_string(),
                r.place.to_string(),
                r.points.to_string(),
                r.won.to_string(),
                game.entry.decided_by.clone(),
            ];
            let quoted: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
            out.push_str(&quoted.join(","));
            out.push('\n');
        }
    }
    out
}

/// A field quoted when it holds a comma, a quote or a line break (RFC 4180).
fn csv_field(field: &str) -> String {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\""))
    } else {
        field.to_string()
    }
}

/// Every game whole, as a JSON array.
pub fn json(games: &[Kept]) -> String {
    serde_json::to_string_pretty(games).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_with_a_comma_or_quote_is_quoted() {
        assert_eq!(csv_field("Ann"), "Ann");
        assert_eq!(csv_field("Smith, Ann"), "\"Smith, Ann\"");
        assert_eq!(csv_field("the \"Ace\""), "\"the \"\"Ace\"\"\"");
    }
}
