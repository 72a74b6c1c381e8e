//! SplitMix64: the stimulus generators' random source. Written here (not
//! taken from a crate) so that `--seed S` gives the same stimulus forever.

#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    #[inline]
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform in `0..=max`.
    #[inline]
    pub fn upto(&mut self, max: u32) -> u32 {
        (((self.next_u64() >> 32) * (max as u64 + 1)) >> 32) as u32
    }

    /// Uniform in `lo..=hi` (`lo <= hi`).
    #[inline]
    pub fn range(&mut self, lo: u32, hi: u32) -> u32 {
        lo + self.upto(hi - lo)
    }

    /// True with probability `num / 256`.
    #[inline]
    pub fn chance(&mut self, num: u32) -> bool {
        (self.next_u64() & 0xff) < num as u64
    }

    /// A random element.
    #[inline]
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.upto(xs.len() as u32 - 1) as usize]
    }
}
