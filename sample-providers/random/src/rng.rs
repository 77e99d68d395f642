//! Randomness: the host's secure random source, or a seeded generator when the user asks for
//! reproducible results.

use tfwasm_sdk::random_bytes;

/// A source of random numbers.
pub(crate) enum Rng {
    /// Cryptographically secure bytes from `wasi:random`, fetched 256 at a time (one host
    /// call instead of one per number).
    Secure(Box<[u8; 256]>, usize),
    /// SplitMix64, seeded: the same seed always gives the same sequence.
    Seeded(u64),
}

impl Rng {
    /// The host's secure random source.
    pub(crate) fn secure() -> Rng {
        Rng::Secure(Box::new([0; 256]), 256)
    }

    /// A generator seeded from text (FNV-1a of the seed's bytes).
    pub(crate) fn from_seed(seed: &str) -> Rng {
        let hash = seed.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        Rng::Seeded(hash)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        match self {
            Rng::Secure(buf, pos) => {
                if *pos + 8 > buf.len() {
                    random_bytes(&mut buf[..]);
                    *pos = 0;
                }
                let mut word = [0u8; 8];
                word.copy_from_slice(&buf[*pos..*pos + 8]);
                *pos += 8;
                u64::from_le_bytes(word)
            }
            Rng::Seeded(state) => {
                *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = *state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                z ^ (z >> 31)
            }
        }
    }

    /// Uniform in `0..bound` (bound > 0), without modulo bias.
    pub(crate) fn below(&mut self, bound: u64) -> u64 {
        let zone = u64::MAX - (u64::MAX % bound);
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % bound;
            }
        }
    }

    /// A uniformly chosen element.
    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// Fisher–Yates shuffle.
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_sequence() {
        let (mut a, mut b) = (Rng::from_seed("x"), Rng::from_seed("x"));
        assert_eq!(
            (0..5).map(|_| a.below(1000)).collect::<Vec<_>>(),
            (0..5).map(|_| b.below(1000)).collect::<Vec<_>>()
        );
        let mut c = Rng::from_seed("y");
        assert_ne!(Rng::from_seed("x").next_u64(), c.next_u64());
    }
}
