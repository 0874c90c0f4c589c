//! Finite fields GF(q), q = p^k, small enough for lookup tables. Orders 4, 8 and 9 have projective
//! planes only through such fields: arithmetic modulo q is not a field when q is not prime.
//!
//! An element is an integer 0..q whose base-p digits are the coefficients of a polynomial over
//! GF(p) (digit i = coefficient of x^i). Sums add digits mod p; products multiply polynomials and
//! reduce modulo a monic irreducible polynomial of degree k.

/// A finite field with its addition and multiplication tables.
#[derive(Clone, Debug)]
pub struct Field {
    q: usize,
    add: Vec<u16>,
    mul: Vec<u16>,
}

/// The largest field order we build tables for (tables are q*q entries).
pub const MAX_ORDER: usize = 256;

impl Field {
    /// GF(q), or `None` when q is not a prime power (or is larger than [`MAX_ORDER`]).
    pub fn new(q: usize) -> Option<Field> {
        if q > MAX_ORDER {
            return None;
        }
        let (p, k) = prime_power(q)?;
        let modulus = irreducible(p, k);
        let mut add = vec![0; q * q];
        let mut mul = vec![0; q * q];
        for a in 0..q {
            for b in 0..q {
                add[a * q + b] = encode(&digit_sum(&digits(a, p, k), &digits(b, p, k), p), p) as u16;
                let product = poly_rem(&poly_mul(&digits(a, p, k), &digits(b, p, k), p), &modulus, p);
                mul[a * q + b] = encode(&product, p) as u16;
            }
        }
        Some(Field { q, add, mul })
    }

    pub fn order(&self) -> usize {
        self.q
    }

    pub fn add(&self, a: usize, b: usize) -> usize {
        self.add[a * self.q + b] as usize
    }

    pub fn mul(&self, a: usize, b: usize) -> usize {
        self.mul[a * self.q + b] as usize
    }
}

/// (p, k) with q = p^k and p prime, or `None`.
pub fn prime_power(q: usize) -> Option<(usize, u32)> {
    if q < 2 {
        return None;
    }
    let p = (2..=q).find(|d| q.is_multiple_of(*d))?;
    let mut rest = q;
    let mut k = 0;
    while rest.is_multiple_of(p) {
        rest /= p;
        k += 1;
    }
    (rest == 1).then_some((p, k))
}

fn digits(mut n: usize, p: usize, k: u32) -> Vec<usize> {
    (0..k)
        .map(|_| {
            let d = n % p;
            n /= p;
            d
        })
        .collect()
}

fn encode(coefficients: &[usize], p: usize) -> usize {
    coefficients.iter().rev().fold(0, |acc, &c| acc * p + c)
}

fn digit_sum(a: &[usize], b: &[usize], p: usize) -> Vec<usize> {
    a.iter().zip(b).map(|(x, y)| (x + y) % p).collect()
}

fn poly_mul(a: &[usize], b: &[usize], p: usize) -> Vec<usize> {
    let mut out = vec![0; a.len() + b.len()];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            out[i + j] = (out[i + j] + x * y) % p;
        }
    }
    out
}

/// Remainder of `a` divided by the monic polynomial `m` (coefficients low degree first).
fn poly_rem(a: &[usize], m: &[usize], p: usize) -> Vec<usize> {
    let deg = m.len() - 1;
    let mut r = a.to_vec();
    for top in (deg..r.len()).rev() {
        let c = r[top];
        if c == 0 {
            continue;
        }
        // r -= c * x^(top-deg) * m; m is monic so this clears r[top].
        for (i, &mi) in m.iter().enumerate() {
            let at = top - deg + i;
            r[at] = (r[at] + p * p - (c * mi) % p) % p;
        }
    }
    r.resize(deg, 0);
    r
}

/// The first monic irreducible polynomial of degree k over GF(p), low degree first.
fn irreducible(p: usize, k: u32) -> Vec<usize> {
    if k == 1 {
        return vec![0, 1];
    }
    let lower = p.pow(k);
    (0..lower)
        .map(|n| {
            let mut m = digits(n, p, k);
            m.push(1);
            m
        })
        .find(|m| is_irreducible(m, p))
        .expect("an irreducible polynomial of every degree exists")
}

/// True when no monic polynomial of degree 1..=deg/2 divides `m`.
fn is_irreducible(m: &[usize], p: usize) -> bool {
    let deg = (m.len() - 1) as u32;
    (1..=deg / 2).all(|d| {
        (0..p.pow(d)).all(|n| {
            let mut divisor = digits(n, p, d);
            divisor.push(1);
            poly_rem(m, &divisor, p).iter().any(|&c| c != 0)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prime_powers() {
        assert_eq!(prime_power(8), Some((2, 3)));
        assert_eq!(prime_power(9), Some((3, 2)));
        assert_eq!(prime_power(11), Some((11, 1)));
        assert_eq!(prime_power(6), None);
        assert_eq!(prime_power(10), None);
        assert_eq!(prime_power(1), None);
    }

    /// Every non-zero element has an inverse and the distributive law holds: a real field.
    #[test]
    fn field_axioms_hold() {
        for q in [2, 3, 4, 5, 7, 8, 9, 11, 16, 25, 27] {
            let f = Field::new(q).unwrap();
            for a in 1..q {
                assert_eq!((1..q).filter(|&b| f.mul(a, b) == 1).count(), 1, "GF({q}): {a} has no unique inverse");
            }
            for a in 0..q {
                assert_eq!(f.add(a, 0), a);
                assert_eq!(f.mul(a, 1), a);
                for b in 0..q {
                    for c in 0..q {
                        assert_eq!(f.mul(a, f.add(b, c)), f.add(f.mul(a, b), f.mul(a, c)));
                    }
                }
            }
        }
        assert!(Field::new(6).is_none());
    }
}
