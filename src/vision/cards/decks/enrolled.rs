//! An enrolled deck as the index networks remember it: the hidden-layer embeddings of its index
//! patches, each under its card (see `enroll`). A patch read at run time asks the enrolled
//! patches nearest it, and their vote weighs in as much as they are alike: a deck the networks
//! read poorly out of the box (an unusual typeface, a court picture close to the index) is read
//! by its own patches once enrolled.

use crate::cards::Card;
use crate::vision::cards::readers::index_net::NetReading;

/// How many enrolled patches vote.
const NEIGHBOURS: usize = 5;
/// Likeness (cosine of the embeddings) below which the enrolled patches say nothing, and from
/// which on they decide alone.
const ALIKE: f32 = 0.6;
const SAME: f32 = 0.92;

/// The enrolled patches of one network (corner windows, or loose indices).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Memory {
    patches: Vec<(Card, Vec<f32>)>,
}

impl Memory {
    /// Patches with their cards; embeddings of length 1 (as `NetReading::embedding`).
    pub fn new(patches: Vec<(Card, Vec<f32>)>) -> Memory {
        Memory { patches }
    }

    pub fn is_empty(&self) -> bool {
        self.patches.is_empty()
    }

    /// The card a reading gives once the nearest enrolled patches have voted, and its
    /// confidence; `None` when it shows no index. With nothing enrolled near it, this is the
    /// network's own reading.
    pub fn weigh(&self, reading: &NetReading) -> Option<(Card, f32)> {
        self.weigh_other_than(reading, &[])
    }

    /// As `weigh`, with the cards `ruled_out` (known to lie elsewhere) taken out of the
    /// reckoning: the likeliest of the rest, its score scaled up by what they took.
    pub fn weigh_other_than(&self, reading: &NetReading, ruled_out: &[Card]) -> Option<(Card, f32)> {
        let own = reading.card_other_than(ruled_out);
        let mut near: Vec<(f32, Card)> = self
            .patches
            .iter()
            .filter(|(_, e)| e.len() == reading.embedding.len())
            .map(|(card, e)| (e.iter().zip(&reading.embedding).map(|(a, b)| a * b).sum(), *card))
            .collect();
        near.sort_by(|a, b| b.0.total_cmp(&a.0));
        near.truncate(NEIGHBOURS);
        let Some(&(closest, _)) = near.first() else {
            return own;
        };
        let weight = ((closest - ALIKE) / (SAME - ALIKE)).clamp(0.0, 1.0);
        if weight == 0.0 {
            return own;
        }
        // Each neighbour votes with its likeness to the eighth power: the closest count most.
        let total: f32 = near.iter().map(|(s, _)| s.max(0.0).powi(8)).sum();
        let vote = |card: Card| {
            near.iter().filter(|(_, c)| *c == card).map(|(s, _)| s.max(0.0).powi(8)).sum::<f32>() / total.max(1e-9)
        };
        let mut options: Vec<Card> = near.iter().map(|(_, c)| *c).collect();
        options.extend(own.map(|(c, _)| c));
        // Whether the patch shows an index at all stays the network's call: an enrolled patch
        // only says which card it is. (A blank or a pip near an enrolled patch is no index.)
        let index = 1.0 - reading.nothing();
        let score = |c: Card| (1.0 - weight) * reading.probability(c) + weight * index * vote(c);
        let left = 1.0 - ruled_out.iter().map(|c| score(*c)).sum::<f32>();
        let (card, score) = options
            .into_iter()
            .filter(|c| !ruled_out.contains(c))
            .map(|c| (c, score(c) / left.max(1e-6)))
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        (score > reading.nothing()).then_some((card, score))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(card: Option<&str>, p: f32, embedding: Vec<f32>) -> NetReading {
        let mut ranks = [0.0; 14];
        let mut suits = [0.0; 5];
        match card.map(|c| c.parse::<Card>().unwrap()) {
            Some(c) => {
                ranks[usize::from(c.rank.value()) - 1] = p;
                ranks[13] = 1.0 - p;
                suits[c.suit.index()] = 1.0;
            }
            None => {
                ranks[13] = p;
                suits[4] = p;
            }
        }
        NetReading { ranks, suits, embedding }
    }

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn enrolled_patches_decide_when_alike_and_stay_out_when_not() {
        let qs: Card = "QS".parse().unwrap();
        let memory = Memory::new(vec![(qs, unit(&[1.0, 0.0, 0.0])), (qs, unit(&[0.98, 0.2, 0.0]))]);
        // The network unsure between QS and 8S, the patch all but the enrolled QS: QS.
        let unsure = reading(Some("8S"), 0.6, unit(&[0.99, 0.1, 0.0]));
        assert_eq!(memory.weigh(&unsure).map(|(c, _)| c), Some(qs));
        // Far from anything enrolled: the network's own reading stands.
        let far = reading(Some("8S"), 0.5, unit(&[0.0, 0.0, 1.0]));
        assert_eq!(memory.weigh(&far), far.card());
        // No index by the network, nothing enrolled near: still none.
        let blank = reading(None, 0.95, unit(&[0.0, 1.0, 1.0]));
        assert_eq!(memory.weigh(&blank), None);
        // No index by the network, though near an enrolled patch: still none.
        let blank_near = reading(None, 0.9, unit(&[1.0, 0.05, 0.0]));
        assert_eq!(memory.weigh(&blank_near), None);
        // An empty memory changes nothing.
        assert_eq!(Memory::default().weigh(&unsure), unsure.card());
    }
}
