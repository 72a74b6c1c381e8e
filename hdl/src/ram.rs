//! [`PipeRam`]: a block RAM with one write port and two read ports, each
//! read pipelined for line rate on FPGA block RAM.
//!
//! # Timing (one clock, all ports registered)
//! - A read issued in cycle `n` (`read_address_x` during `n`) gives its word
//!   on `read_data_x` during cycle `n + 5` ([`READ_LATENCY`]).
//! - A write issued in cycle `t` (`write_enable` high during `t`) is seen by
//!   reads issued in `t + 2` and later, not by reads issued in `t` or
//!   before. A read of the same address issued in `t + 1` collides with the
//!   write inside the RAM and its word is undefined: block RAMs do not
//!   define a read of one port during a write of the other. The simulation
//!   models (the Verilog when `SYNTHESIS` is not defined, and rust-hdl's)
//!   return the old word in one collision and the old word inverted in the
//!   next (a register toggling every cycle picks), so that a design using
//!   that word fails its lockstep whether the write changes one bit or all
//!   of them; synthesis sees a plain read.
//!
//! # Structure (what the Verilog asks of the synthesis tool)
//! - The write (address, data, one enable per bank decoded from the
//!   address) is registered once, the address and data loaded only with a
//!   write (so they are not merged with a user's register), then once more
//!   per copy and bank, so that each group of RAMs gets its write from
//!   flip-flops of its own, wherever the placer puts it (one register
//!   driving the write address of both copies' RAMs took 5.5 to 6.6 ns of
//!   routing on ECP5-85). The second registers of the two copies power up
//!   to inverse values, which keeps synthesis from merging them.
//! - Each read address is registered too, once per bank, loaded only when
//!   the read is for that bank: each bank's block RAMs get their address
//!   from a flip-flop of their own (one flip-flop driving every bank's
//!   address pins, across the device, took 5.5 ns of routing on ECP5-85),
//!   and registers so enabled are not merged with each other or with the
//!   user's.
//! - The memory is cut into banks of at most 2^14 words and each bank into
//!   slices as wide as one 16-kbit block RAM holds at that depth (1 bit at
//!   16K words, 2 at 8K, 4 at 4K, 9 at 2K, 18 at 1K, 36 at 512 and below):
//!   every slice is one block RAM with no multiplexer behind it, declared
//!   with `no_rw_check` (no collision logic: see above).
//! - Each slice's read is registered twice: the RAM's read register, then a
//!   plain register that tools place in the block RAM's own output register
//!   (ECP5 DP16KD `REGMODE = OUTREG`: 0.72 ns clock-to-out instead of 4.26 ns
//!   in nextpnr's model; `ccrtl synth` does it for yosys, which does not).
//! - A third register per slice, in the fabric, gives each word a cycle of
//!   its own to travel from its block RAM: the default NP flow table fills
//!   160 of ECP5-85's 208 block RAMs, all over the device, and a route
//!   across it takes 3.5 to 4.6 ns of the 5 ns at 200 MHz.
//! - The banks' words are selected by the bank bits of the address,
//!   delayed to match, into the output register.
//! - Every read port has its own copy of the memory, written through the
//!   one write port (two copies cannot drift apart).
//!
//! # Formal abstraction (`CCRTL_FORMAL_RAM`)
//! With `CCRTL_FORMAL_RAM` defined (the proofs of formal/np/ define it; no
//! simulation or synthesis does), each slice of each copy keeps only the
//! word of one address, `formal_addr` (an `anyconst`), and a read of any
//! other address, or one colliding with a write, returns any value; the
//! registers around the memory are unchanged, and `formal_word_<copy>` is
//! the tracked word for the proofs' invariants. Every behaviour of the
//! memory is one of the abstraction's, so what is proven with it holds of
//! the RAM; docs/formal.md ("NP") has the argument.

use rust_hdl::prelude::*;

/// Cycles from a read's address to its word.
pub const READ_LATENCY: usize = 5;

#[derive(LogicBlock, Default)]
pub struct PipeRam<const W: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_data: Signal<In, Bits<W>>,
    pub write_enable: Signal<In, Bit>,
    pub read_address_a: Signal<In, Bits<N>>,
    pub read_data_a: Signal<Out, Bits<W>>,
    pub read_address_b: Signal<In, Bits<N>>,
    pub read_data_b: Signal<Out, Bits<W>>,
    _sim: Box<PipeRamState>,
}

/// The rust-hdl simulation's state: the words and the pipeline registers.
#[derive(Default)]
struct PipeRamState {
    mem: Vec<u64>,
    /// The write registered once, and twice (it lands at the next edge).
    write1: Option<(usize, u64)>,
    write: Option<(usize, u64)>,
    /// Per read port: the address register.
    addr: [usize; 2],
    /// Per read port: the RAM's read register, its output register and
    /// the fabric register after it.
    read: [u64; 2],
    out: [u64; 2],
    sel: [u64; 2],
    /// Toggles every cycle: a colliding read returns the old word when
    /// false, the old word inverted when true.
    garble: bool,
}

impl PipeRamState {
    /// One rising edge of a memory of `2^n` words (`mask`: the word's bits),
    /// the read ports' addresses `addrs` presented and `write` (address,
    /// data) presented if the write is enabled. The caller has read the
    /// outputs (`sel`) before.
    fn edge(&mut self, n: usize, mask: u64, addrs: &[usize], write: Option<(usize, u64)>) {
        if self.mem.is_empty() {
            self.mem = vec![0; 1 << n];
        }
        for (p, &next) in addrs.iter().enumerate() {
            let addr = std::mem::replace(&mut self.addr[p], next);
            self.sel[p] = self.out[p];
            self.out[p] = self.read[p];
            let word = self.mem[addr];
            self.read[p] = match self.write {
                Some((wa, _)) if wa == addr && self.garble => !word & mask,
                _ => word,
            };
        }
        self.garble = !self.garble;
        if let Some((wa, wd)) = self.write {
            self.mem[wa] = wd;
        }
        self.write = self.write1.take();
        self.write1 = write;
    }
}

/// Geometry of the banks and slices for a `W`-bit, `2^N`-word memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Words per bank: 2^bank_bits.
    pub bank_bits: usize,
    /// Number of banks: 2^(N - bank_bits).
    pub banks: usize,
    /// Bits per slice (the last slice may be narrower).
    pub slice_width: usize,
}

impl Geometry {
    pub fn of(width: usize, address_bits: usize) -> Geometry {
        let bank_bits = address_bits.min(14);
        let slice_width = match bank_bits {
            14 => 1,
            13 => 2,
            12 => 4,
            11 => 9,
            10 => 18,
            _ => 36,
        }
        .min(width);
        Geometry {
            bank_bits,
            banks: 1 << (address_bits - bank_bits),
            slice_width,
        }
    }

    /// The slices as (low bit, width).
    pub fn slices(&self, width: usize) -> Vec<(usize, usize)> {
        (0..width)
            .step_by(self.slice_width)
            .map(|lo| (lo, self.slice_width.min(width - lo)))
            .collect()
    }
}

fn range(lo: usize, width: usize) -> String {
    if width == 1 {
        format!("[{lo}]")
    } else {
        format!("[{}:{lo}]", lo + width - 1)
    }
}

impl<const W: usize, const N: usize> PipeRam<W, N> {
    fn mask() -> u64 {
        if W == 64 {
            u64::MAX
        } else {
            (1u64 << W) - 1
        }
    }

    /// The module body (rust-hdl writes the module line and the ports).
    fn body() -> String {
        ram_body(W, N, &["a", "b"])
    }
}

/// The Verilog body of a `w`-bit, `2^n`-word [`PipeRam`] (read ports `ports`,
/// each with its own copy of the memory).
fn ram_body(w_bits: usize, n: usize, ports: &[&str]) -> String {
    let g = Geometry::of(w_bits, n);
    let bb = n - g.bank_bits;
    let lo_addr = |sig: &str| {
        if g.bank_bits == n {
            sig.to_string()
        } else {
            format!("{sig}{}", range(0, g.bank_bits))
        }
    };
    let mut v = String::new();
    v += "// Write: registered once here, each bank's enable decoded before the\n// register, then once more per copy and bank (below).\n";
    v += &format!(
        "reg [{}:0] wa;\nreg [{}:0] wd;\nreg [{}:0] we;\n",
        g.bank_bits - 1,
        w_bits - 1,
        g.banks - 1
    );
    // The address and data are loaded only with a write: a register so
    // enabled is never merged with a user's register of the same
    // value, which would pull the user's logic to the block RAMs.
    v += &format!(
        "always @(posedge clock) begin\n   if (write_enable) begin\n      wa <= {};\n      wd <= write_data;\n   end\n",
        lo_addr("write_address")
    );
    if g.banks == 1 {
        v += "   we <= write_enable;\n";
    } else {
        for k in 0..g.banks {
            v += &format!(
                "   we[{k}] <= write_enable & (write_address{} == {bb}'d{k});\n",
                range(g.bank_bits, bb)
            );
        }
    }
    v += "end\n";
    v += "`ifndef SYNTHESIS\n// Simulation only: which garbage a colliding read returns.\n\
          reg garble;\nalways @(posedge clock) garble <= ~garble;\n`endif\n";
    // The formal abstraction (docs/formal.md "Block RAM"): every slice
    // keeps only the word of one address the solver picks, and any
    // other read, or a read colliding with a write, returns any value.
    let bank_of = |k: usize| {
        if g.banks == 1 {
            String::new()
        } else {
            format!(" && formal_addr{} == {bb}'d{k}", range(g.bank_bits, bb))
        }
    };
    v += &format!(
        "`ifdef CCRTL_FORMAL_RAM\n// Formal only: the address whose word every copy keeps.\n\
         (* anyconst *) wire [{}:0] formal_addr;\n`endif\n",
        n - 1
    );
    for &port in ports {
        let ra = format!("read_address_{port}");
        v += &format!("\n// Read port {port}: its own copy of the memory.\n");
        if g.banks > 1 {
            v += &format!(
                "reg [{m}:0] {port}_sel1;\nreg [{m}:0] {port}_sel2;\nreg [{m}:0] {port}_sel3;\n\
                 reg [{m}:0] {port}_sel4;\n\
                 always @(posedge clock) begin\n   {port}_sel1 <= {ra}{r};\n   {port}_sel2 <= {port}_sel1;\n   \
                 {port}_sel3 <= {port}_sel2;\n   {port}_sel4 <= {port}_sel3;\nend\n",
                m = bb - 1,
                r = range(g.bank_bits, bb)
            );
        }
        // Per bank, the tracked word of this copy (formal only).
        let mut words = Vec::new();
        for k in 0..g.banks {
            let mut tracked = Vec::new();
            // The bank's address register, loaded for its own reads.
            v += &format!("reg [{}:0] {port}_ra{k};\n", g.bank_bits - 1);
            if g.banks > 1 {
                v += &format!(
                    "always @(posedge clock)\n   if ({ra}{} == {bb}'d{k})\n      {port}_ra{k} <= {};\n",
                    range(g.bank_bits, bb),
                    lo_addr(&ra)
                );
            } else {
                v += &format!("always @(posedge clock)\n   {port}_ra{k} <= {ra};\n");
            }
            let mut parts = Vec::new();
            // The bank's write, registered a second time (by its RAMs).
            // This copy's registers power up to the inverse of the other
            // copy's (the enable is kept inverted in copy b, so that
            // both power up with no write), so synthesis keeps the two
            // apart, near their own RAMs.
            let (init, we_d, we_on) = if port == "a" {
                ("1'b0", format!("we[{k}]"), format!("{port}_we{k}"))
            } else {
                ("1'b1", format!("~we[{k}]"), format!("~{port}_we{k}"))
            };
            v += &format!(
                "reg [{ab}:0] {port}_wa{k} = {{{abw}{{{init}}}}};\nreg [{wb}:0] {port}_wd{k} = {{{w_bits}{{{init}}}}};\n\
                 reg {port}_we{k} = {init};\n\
                 always @(posedge clock) begin\n   {port}_we{k} <= {we_d};\n   if (we[{k}]) begin\n      \
                 {port}_wa{k} <= wa;\n      {port}_wd{k} <= wd;\n   end\nend\n",
                ab = g.bank_bits - 1,
                abw = g.bank_bits,
                wb = w_bits - 1,
            );
            for (s, (lo, w)) in g.slices(w_bits).into_iter().enumerate() {
                let m = format!("{port}_m{k}_{s}");
                let q = format!("{port}_q{k}_{s}");
                let o = format!("{port}_o{k}_{s}");
                let f = format!("{port}_f{k}_{s}");
                let wr = if w == 1 {
                    String::new()
                } else {
                    format!("[{}:0] ", w - 1)
                };
                let addr = format!("{port}_ra{k}");
                let waddr = format!("{port}_wa{k}");
                v += &format!(
                    "`ifdef CCRTL_FORMAL_RAM\n\
                     reg {wr}{m}_t;\n(* anyseq *) wire {wr}{m}_x;\n\
                     `else\n\
                     (* no_rw_check *) reg {wr}{m} [0:{depth}];\n\
                     `endif\n\
                     reg {wr}{q};\nreg {wr}{o};\nreg {wr}{f};\n\
                     always @(posedge clock) begin\n\
                     `ifdef CCRTL_FORMAL_RAM\n\
                     \x20  if ({we_on} && {waddr} == {flo}{bank})\n      {m}_t <= {port}_wd{k}{wbits};\n\
                     \x20  {q} <= ({addr} == {flo}{bank} && !({we_on} && {waddr} == {addr})) ? {m}_t : {m}_x;\n\
                     `else\n\
                     \x20  if ({we_on})\n      {m}[{waddr}] <= {port}_wd{k}{wbits};\n\
                     `ifdef SYNTHESIS\n\
                     \x20  {q} <= {m}[{addr}];\n\
                     `else\n\
                     \x20  // A read colliding with the write of this cycle: undefined.\n\
                     \x20  {q} <= ({we_on} && {waddr} == {addr}) ? {m}[{addr}] ^ {{{w}{{garble}}}} : {m}[{addr}];\n\
                     `endif\n\
                     `endif\n\
                     \x20  {o} <= {q};\n\
                     \x20  {f} <= {o};\n\
                     end\n",
                    depth = (1usize << g.bank_bits) - 1,
                    wbits = range(lo, w),
                    flo = lo_addr("formal_addr"),
                    bank = bank_of(k),
                );
                parts.push(f);
                tracked.push(format!("{m}_t"));
            }
            parts.reverse();
            tracked.reverse();
            words.push(tracked.join(", "));
            v += &format!(
                "wire [{}:0] {port}_bank{k} = {{{}}};\n",
                w_bits - 1,
                parts.join(", ")
            );
        }
        v += "always @(posedge clock) begin\n";
        if g.banks == 1 {
            v += &format!("   read_data_{port} <= {port}_bank0;\n");
        } else {
            v += &format!("   case ({port}_sel4)\n");
            for k in 0..g.banks {
                let label = if k + 1 == g.banks {
                    "default".to_string()
                } else {
                    format!("{bb}'d{k}")
                };
                v += &format!("      {label}: read_data_{port} <= {port}_bank{k};\n");
            }
            v += "   endcase\n";
        }
        v += "end\n";
        // The word this copy holds at `formal_addr` (for the proofs'
        // invariants, which `expose` this wire).
        let mut word = format!("{{{}}}", words[g.banks - 1]);
        for k in (0..g.banks - 1).rev() {
            word = format!(
                "formal_addr{} == {bb}'d{k} ? {{{}}} : {word}",
                range(g.bank_bits, bb),
                words[k]
            );
        }
        v += &format!(
            "`ifdef CCRTL_FORMAL_RAM\nwire [{}:0] formal_word_{port} = {word};\n`endif\n",
            w_bits - 1
        );
    }
    v
}

impl<const W: usize, const N: usize> Logic for PipeRam<W, N> {
    fn update(&mut self) {
        if !self.clock.pos_edge() {
            return;
        }
        let st = &mut *self._sim;
        self.read_data_a.next = st.sel[0].to_bits();
        self.read_data_b.next = st.sel[1].to_bits();
        let addrs = [
            self.read_address_a.val().to_u64() as usize,
            self.read_address_b.val().to_u64() as usize,
        ];
        let write = self.write_enable.val().then(|| {
            (
                self.write_address.val().to_u64() as usize,
                self.write_data.val().to_u64(),
            )
        });
        st.edge(N, Self::mask(), &addrs, write);
    }

    fn connect(&mut self) {
        self.read_data_a.connect();
        self.read_data_b.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(Self::body())
    }
}

/// [`PipeRam`] with read port A only: the same timing and structure, one
/// copy of the memory, for a block that reads each word in one place (no
/// second copy for synthesis to remove, and no unread port to waive).
#[derive(LogicBlock, Default)]
pub struct PipeRam1<const W: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_data: Signal<In, Bits<W>>,
    pub write_enable: Signal<In, Bit>,
    pub read_address_a: Signal<In, Bits<N>>,
    pub read_data_a: Signal<Out, Bits<W>>,
    _sim: Box<PipeRamState>,
}

impl<const W: usize, const N: usize> Logic for PipeRam1<W, N> {
    fn update(&mut self) {
        if !self.clock.pos_edge() {
            return;
        }
        let st = &mut *self._sim;
        self.read_data_a.next = st.sel[0].to_bits();
        let write = self.write_enable.val().then(|| {
            (
                self.write_address.val().to_u64() as usize,
                self.write_data.val().to_u64(),
            )
        });
        st.edge(
            N,
            PipeRam::<W, N>::mask(),
            &[self.read_address_a.val().to_u64() as usize],
            write,
        );
    }

    fn connect(&mut self) {
        self.read_data_a.connect();
    }

    fn hdl(&self) -> Verilog {
        Verilog::Custom(ram_body(W, N, &["a"]))
    }
}

/// A block RAM of `2^N` words of `W` bits with one write port and one read
/// port on one clock, read in one cycle: a read issued in cycle `n` gives
/// its word during `n + 1` (as rust-hdl's `RAM`), and sees the writes
/// issued before `n`. A read of the address written in the same cycle is
/// undefined: the memory is declared with `no_rw_check`, so synthesis adds
/// no collision logic behind the read, and the simulation models return
/// the old word in one collision and the old word inverted in the next,
/// as [`PipeRam`]'s do. With no collision logic, a register loaded from
/// `read_data` with nothing between becomes the block RAM's output
/// register on ECP5 (`ccrtl synth`'s outreg pass); behind rust-hdl's `RAM`
/// yosys puts a LUT of collision logic, which keeps the register out.
/// It has no `CCRTL_FORMAL_RAM` abstraction (its one user, rp's visit
/// FIFO, is in no proof): a proof that takes it in gets the full memory.
#[derive(LogicBlock, Default)]
pub struct SyncRam<const W: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub write_address: Signal<In, Bits<N>>,
    pub write_data: Signal<In, Bits<W>>,
    pub write_enable: Signal<In, Bit>,
    pub read_address: Signal<In, Bits<N>>,
    pub read_data: Signal<Out, Bits<W>>,
    _sim: Box<SyncRamState>,
}

/// The rust-hdl simulation's state of a [`SyncRam`].
#[derive(Default)]
struct SyncRamState {
    mem: Vec<u64>,
    /// Toggles every cycle: a colliding read returns the old word when
    /// false, the old word inverted when true.
    garble: bool,
}

impl<const W: usize, const N: usize> Logic for SyncRam<W, N> {
    fn update(&mut self) {
        if !self.clock.pos_edge() {
            return;
        }
        let st = &mut *self._sim;
        if st.mem.is_empty() {
            st.mem = vec![0; 1 << N];
        }
        let mask = PipeRam::<W, N>::mask();
        let ra = self.read_address.val().to_u64() as usize;
        let word = st.mem[ra];
        let we = self.write_enable.val();
        let wa = self.write_address.val().to_u64() as usize;
        let read = if we && wa == ra && st.garble {
            !word & mask
        } else {
            word
        };
        self.read_data.next = read.to_bits();
        if we {
            st.mem[wa] = self.write_data.val().to_u64() & mask;
        }
        st.garble = !st.garble;
    }

    fn connect(&mut self) {
        self.read_data.connect();
    }

    fn hdl(&self) -> Verilog {
        let mut v = format!(
            "(* no_rw_check *) reg [{}:0] mem [0:{}];\n",
            W - 1,
            (1usize << N) - 1
        );
        v += "`ifndef SYNTHESIS\n// Simulation only: which garbage a colliding read returns.\n\
              reg garble;\nalways @(posedge clock) garble <= ~garble;\n`endif\n";
        v += "always @(posedge clock) begin\n   if (write_enable)\n      mem[write_address] <= write_data;\n";
        v += "`ifdef SYNTHESIS\n   read_data <= mem[read_address];\n`else\n";
        v += "   // A read colliding with the write of this cycle: undefined.\n";
        v += &format!(
            "   read_data <= (write_enable && write_address == read_address) ? \
             mem[read_address] ^ {{{W}{{garble}}}} : mem[read_address];\n"
        );
        v += "`endif\nend\n";
        Verilog::Custom(v)
    }
}
