//! A register of a block's configuration map (`cfg_addr` / `cfg_data`).

/// One register of the map: its address, name, width and meaning.
#[derive(Debug, Clone, Copy)]
pub struct Register {
    pub addr: u32,
    pub name: &'static str,
    pub bits: u32,
    pub doc: &'static str,
}
