// np_formal - properties of NP (golden/src/np.rs, docs/np.md) around the
// emitted ccrtl_np.
//
// The wrapper instantiates `ccrtl_np` from the file `ccrtl emit` writes and
// checks it against the contract of the golden model's module docs. Every
// input is free in every cycle; the only assumption on them is the
// contract's: `rst` in the first cycle.
//
// Shape and reset value come from `ccrtl_np_params.vh`, which `ccrtl formal`
// writes from the emitted file's header.
//
// One sby task per property (formal/np/np.sby); the task defines CHECK_Pn.
//
//   P1 cnp_rule   for the tracked flow f (any flow: the solver picks it), a
//                 CNP request for f leaves in cycle n + 8 if and only if a
//                 CE packet of f was accepted in cycle n and no CNP was
//                 requested for f in a cycle m with n - m < N since the
//                 last reset (N the interval register in force in n). This
//                 is both halves of the rule: never two CNPs for one flow
//                 within N, always one for a CE packet of a flow with none
//                 in the last N; it holds across the timestamps' wrap, for
//                 a flow silent for any time, and after a reset with the
//                 table's power-up contents random.
//   P2 idle_zero  `m_cnp_flow` is 0 when `m_cnp_valid` is low.
//   P3 ready      `s_pkt_ready` is low in the 2^flow_bits cycles after a
//                 reset and high otherwise.
//
// The flow table's block RAMs. The three RAMs (`s`, `a`, `b`, each two
// copies) are read with CCRTL_FORMAL_RAM defined: each copy then keeps only
// the word of one address (`formal_addr`, an anyconst), and a read of any
// other address, or one that collides with a write, returns any value
// (hdl/src/ram.rs; docs/formal.md "np"). Every behaviour of the real RAM is
// one of the abstraction's, so what is proven of the abstraction holds of
// the real RAM. The tracked flow f is that address; the three RAMs' are
// assumed equal.
//
// Invariants. k-induction needs the state that outlives the pipelines tied
// to what the ports did: the interval, time, clearing and pointer
// registers, and the tracked flow's words (the L* assertions below, proven
// with P1). The words are taken with the writes still in the RAM's write
// pipeline applied (a write lands two cycles after it is issued), so that
// "the word of f" is what a read issued now will see.
//
// Internal signals come through `expose` in the task script (yosys 0.70's
// read_verilog has no hierarchical references): registers as `<name>$q`,
// the RAM write ports as `<ram>$write_*`, and after `flatten` the RAMs'
// `formal_addr` and `formal_word_<copy>` as `<ram>.formal_*` (escaped
// identifiers here).

`default_nettype none
`include "ccrtl_np_params.vh"

module np_formal (
    input wire clk,
    input wire rst,
    input wire s_pkt_valid,
    input wire [`CCRTL_FLOW_BITS-1:0] s_pkt_flow,
    input wire [1:0] s_pkt_ecn,
    input wire s_cfg_valid,
    input wire [`CCRTL_INTERVAL_BITS-1:0] s_cfg_interval
);
    localparam FB = `CCRTL_FLOW_BITS;
    localparam NB = `CCRTL_INTERVAL_BITS;
    localparam TB = `CCRTL_STAMP_BITS;
    localparam LAT = 8;            // decision latency (golden LATENCY)
    localparam [FB:0] F = 1 << FB; // flows, and the cycles of the clearing
    // The spec's age counter: wide enough for every age a valid word can
    // have (the scrubber keeps them below 2^NB + 2F), saturating.
    localparam AB = TB + 1;
    localparam [AB-1:0] AGE_MAX = {AB{1'b1}};
    localparam [AB-1:0] STALE = 1 << NB;

    wire s_pkt_ready;
    wire m_cnp_valid;
    wire [FB-1:0] m_cnp_flow;

    // Exposed registers and RAM ports.
    wire [NB-1:0] h_interval;
    wire [TB-1:0] h_now;
    wire h_busy;
    wire [FB-1:0] h_ptr;
    wire h_sweep;
    wire s_we, a_we, b_we;
    wire [FB-1:0] s_wa, a_wa, b_wa;
    wire [TB-1:0] s_wd;
    wire a_wd, b_wd;
    wire [FB-1:0] s_fa, a_fa, b_fa;
    wire [TB-1:0] s_wa_word, s_wb_word;
    wire a_wa_word, a_wb_word, b_wa_word, b_wb_word;

    ccrtl_np dut (
        .clk(clk),
        .rst(rst),
        .s_pkt_valid(s_pkt_valid),
        .s_pkt_ready(s_pkt_ready),
        .s_pkt_flow(s_pkt_flow),
        .s_pkt_ecn(s_pkt_ecn),
        .s_cfg_valid(s_cfg_valid),
        .s_cfg_interval(s_cfg_interval),
        .m_cnp_valid(m_cnp_valid),
        .m_cnp_flow(m_cnp_flow),
        .interval$q(h_interval),
        .now$q(h_now),
        .busy$q(h_busy),
        .ptr$q(h_ptr),
        .sweep_q$q(h_sweep),
        .s$write_enable(s_we),
        .s$write_address(s_wa),
        .s$write_data(s_wd),
        .a$write_enable(a_we),
        .a$write_address(a_wa),
        .a$write_data(a_wd),
        .b$write_enable(b_we),
        .b$write_address(b_wa),
        .b$write_data(b_wd),
        .\s.formal_addr (s_fa),
        .\a.formal_addr (a_fa),
        .\b.formal_addr (b_fa),
        .\s.formal_word_a (s_wa_word),
        .\s.formal_word_b (s_wb_word),
        .\a.formal_word_a (a_wa_word),
        .\a.formal_word_b (a_wb_word),
        .\b.formal_word_a (b_wa_word),
        .\b.formal_word_b (b_wb_word)
    );

    // ---- The contract's assumption ----------------------------------------
    reg f_past = 1'b0;
    always @(posedge clk) f_past <= 1'b1;
    always @(*) if (!f_past) assume(rst);

    // The tracked flow: the address every RAM copy keeps.
    wire [FB-1:0] f = s_fa;
    always @(*) assume(a_fa == f && b_fa == f);

    // ---- The spec ----------------------------------------------------------
    // The interval in force, time since the reset, the clearing's count.
    reg [NB-1:0] sh_interval;
    reg [TB-1:0] sh_now;
    reg [FB:0] sh_left;
    always @(posedge clk) begin
        if (rst) begin
            sh_interval <= `CCRTL_RESET_INTERVAL;
            sh_now <= 0;
            sh_left <= F;
        end else begin
            if (s_cfg_valid)
                sh_interval <= s_cfg_interval;
            sh_now <= sh_now + 1'b1;
            if (sh_left != 0)
                sh_left <= sh_left - 1'b1;
        end
    end
    wire sh_busy = sh_left != 0;

    // The rule for the tracked flow: `sh_seen` - a CNP was requested for f
    // since the last reset; `sh_age` - cycles since that request (1 in the
    // cycle after it), saturating.
    reg sh_seen;
    reg [AB-1:0] sh_age;
    wire accept = s_pkt_valid && s_pkt_ready && !rst;
    wire recent = sh_seen && sh_age < {{(AB-NB){1'b0}}, sh_interval};
    wire req_f = accept && s_pkt_ecn == 2'b11 && s_pkt_flow == f && !recent;
    always @(posedge clk) begin
        if (rst)
            sh_seen <= 1'b0;
        else if (req_f)
            sh_seen <= 1'b1;
        if (req_f)
            sh_age <= 1;
        else if (sh_age != AGE_MAX)
            sh_age <= sh_age + 1'b1;
    end

    // The requests for f in flight: exp[k] in cycle n + k + 1 is the
    // decision for f of the packet accepted in cycle n. A reset drops them.
    reg [LAT-1:0] exp;
    always @(posedge clk)
        if (rst)
            exp <= 0;
        else
            exp <= {exp[LAT-2:0], req_f};

    // ---- P1: the rule -------------------------------------------------------
`ifdef CHECK_P1
    always @(*)
        if (f_past)
            p1_cnp_rule: assert((m_cnp_valid && m_cnp_flow == f) == exp[LAT-1]);
`endif

    // ---- P2: idle outputs are 0 ---------------------------------------------
`ifdef CHECK_P2
    always @(*)
        if (f_past && !m_cnp_valid)
            p2_idle_zero: assert(m_cnp_flow == 0);
`endif

    // ---- P3: ready ----------------------------------------------------------
`ifdef CHECK_P3
    always @(*)
        if (f_past)
            p3_ready: assert(s_pkt_ready == !sh_busy);
`endif

    // ---- Invariants (proven with P1; the clearing's with P3 too) -------------
`ifdef CHECK_P1
`define F_LEMMAS
`define F_CLEAR_LEMMAS
`endif
`ifdef CHECK_P3
`define F_CLEAR_LEMMAS
`endif

    // The clearing: busy for the spec's count, the pointer 1 in the cycle
    // after a reset, then counting with time.
`ifdef F_CLEAR_LEMMAS
    always @(*)
        if (f_past) begin
            l_busy: assert(h_busy == sh_busy);
            l_sweep: assert(h_sweep == (sh_left >= 2));
            l_now: assert(h_now == sh_now);
            l_ptr: assert(h_ptr == sh_now[FB-1:0] + 1'b1);
            // The clearing's count and time start together at a reset.
            if (sh_busy)
                l_count: assert({1'b0, sh_now} + sh_left == F);
        end
`endif

`ifdef F_LEMMAS
    always @(*)
        if (f_past)
            l_interval: assert(h_interval == sh_interval);

    // The writes to f issued in the last two cycles, newest first: a write
    // lands in the RAM two cycles after it is issued.
    reg s1, s2, a1, a2, b1, b2;
    reg [TB-1:0] s1d, s2d;
    reg a1d, a2d, b1d, b2d;
    always @(posedge clk) begin
        s1 <= s_we && s_wa == f;
        a1 <= a_we && a_wa == f;
        b1 <= b_we && b_wa == f;
        s1d <= s_wd;
        a1d <= a_wd;
        b1d <= b_wd;
        s2 <= s1;
        a2 <= a1;
        b2 <= b1;
        s2d <= s1d;
        a2d <= a1d;
        b2d <= b1d;
    end
    // f's words as a read issued now sees them, per copy.
    wire [TB-1:0] es_a = s1 ? s1d : s2 ? s2d : s_wa_word;
    wire [TB-1:0] es_b = s1 ? s1d : s2 ? s2d : s_wb_word;
    wire ea_a = a1 ? a1d : a2 ? a2d : a_wa_word;
    wire ea_b = a1 ? a1d : a2 ? a2d : a_wb_word;
    wire eb_a = b1 ? b1d : b2 ? b2d : b_wa_word;
    wire eb_b = b1 ? b1d : b2 ? b2d : b_wb_word;
    wire ev = ea_a ^ eb_a;

    // The clearing has written f (flow 0 in the reset cycle, flow p in the
    // p-th cycle after it).
    wire [FB-1:0] sh_ptr = sh_now[FB-1:0] + 1'b1;
    wire passed = !sh_busy || sh_ptr == 0 || f < sh_ptr;
    // Cycles until the scrubber reads f.
    wire [FB-1:0] d = f - sh_ptr;
    // The RAM's age of f's word: the stamp is the time 5 cycles after the
    // packet (its stage 6), so it is the spec's age less 5.
    wire [TB-1:0] ram_age = sh_now - es_a;
    wire [AB-1:0] spec_age5 = sh_age - 5;
    // The request's write is issued 7 cycles after the packet, and in the
    // words from the cycle after.
    wire landed = sh_age >= LAT;

    always @(*)
        if (f_past) begin
            l_busy_unseen: assert(!sh_busy || !sh_seen);
            if (passed) begin
                // Both copies of a and b agree once f is cleared.
                l_copies: assert(ea_a == ea_b && eb_a == eb_b);
                if (sh_busy)
                    l_cleared: assert(!ea_a && !eb_a);
                else begin
                    l_unseen: assert(sh_seen || !ev);
                    if (sh_seen && landed) begin
                        l_fresh: assert(sh_age >= STALE || ev);
                        if (ev) begin
                            l_stamp_copies: assert(es_a == es_b);
                            l_stamp: assert(ram_age == spec_age5[TB-1:0]);
                            l_bound: assert(sh_age + d < STALE + 2 * F);
                            if (d <= F - 8)
                                l_scrubbed: assert(sh_age + d < STALE + F);
                        end
                    end
                end
            end
        end
`endif

    // ---- Covers ---------------------------------------------------------------
`ifdef COVER
    reg [7:0] f_cnps;
    always @(posedge clk)
        if (rst)
            f_cnps <= 0;
        else if (m_cnp_valid && m_cnp_flow == f && f_cnps != 8'hff)
            f_cnps <= f_cnps + 1'b1;
    wire ce_f = accept && s_pkt_ecn == 2'b11 && s_pkt_flow == f;
    always @(posedge clk) begin
        if (f_past) begin
            c_cnp: cover(m_cnp_valid && m_cnp_flow == f);
            c_two_cnps: cover(f_cnps == 2);
            // A CE packet of f held back, at each forwarding distance.
            c_held_1: cover(ce_f && sh_seen && sh_age == 1 && recent);
            c_held_2: cover(ce_f && sh_seen && sh_age == 2 && recent);
            c_held_3: cover(ce_f && sh_seen && sh_age == 3 && recent);
            c_held_4: cover(ce_f && sh_seen && sh_age == 4 && recent);
            c_held_5: cover(ce_f && sh_seen && sh_age == 5 && recent);
            c_held_6: cover(ce_f && sh_seen && sh_age == 6 && recent);
            c_held_7: cover(ce_f && sh_seen && sh_age == 7 && recent);
            c_held_8: cover(ce_f && sh_seen && sh_age == 8 && recent);
            c_held_ram: cover(ce_f && sh_seen && sh_age > 8 && recent);
            // A CE packet of f given a CNP at each distance (N small).
            c_again_1: cover(ce_f && sh_seen && sh_age == 1 && !recent);
            c_again_2: cover(ce_f && sh_seen && sh_age == 2 && !recent);
            c_again_5: cover(ce_f && sh_seen && sh_age == 5 && !recent);
            c_again_8: cover(ce_f && sh_seen && sh_age == 8 && !recent);
            c_again_ram: cover(ce_f && sh_seen && sh_age > 8 && !recent);
            // The scrubber clears f's stale word, and time wraps with f
            // requested before.
            c_scrub: cover(b_we && b_wa == f && !sh_busy && !rst && sh_seen);
            c_wrap: cover(sh_seen && sh_now == 0 && ce_f);
            // A load, and a reset during the clearing.
            c_load: cover(s_cfg_valid && !rst && ce_f);
            c_reset_busy: cover(rst && sh_busy && f_cnps == 0 && sh_left < F);
        end
    end
`endif
endmodule
