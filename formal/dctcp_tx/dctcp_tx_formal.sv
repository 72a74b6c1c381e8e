// dctcp_tx_formal - properties of DCTCP_TX (golden/src/dctcp_tx.rs,
// docs/dctcp_tx.md) around the emitted ccrtl_dctcp_tx.
//
// The wrapper instantiates `ccrtl_dctcp_tx` from the file `ccrtl emit`
// writes. Every input is free in every cycle; the only assumption on them
// is the contract's: `rst` in the first cycle. Shape and reset values come
// from `ccrtl_dctcp_tx_params.vh`, which `ccrtl formal` writes from the
// emitted file's header.
//
// The flow tables' block RAMs are read with CCRTL_FORMAL_RAM defined: each
// keeps only the word of one address (its `formal_addr`, an anyconst), and
// a read of any other address, or one that collides with a write, returns
// any value (hdl/src/ram.rs). The six tables' addresses are assumed equal:
// the tracked flow f, any flow (the solver picks it). Every behaviour of
// the real RAM is one of the abstraction's, so what is proven here holds
// of the real RAM, for every flow.
//
// One sby task per property (formal/dctcp_tx/dctcp_tx.sby); the task
// defines CHECK_<n>. For f:
//
//   P1  cwnd_bounds  the result of an ACK of f that the contract calls
//                    acceptable, or f's first ACK, has m_cc_cwnd in
//                    [min(cwnd_min, cwnd_max), cwnd_max] of the registers
//                    in force in the ACK's cycle; the result of any other
//                    ACK of f (it changes nothing) is within the bounds of
//                    f's latest such ACK before it. So with the registers
//                    held, every cwnd f reports is within its bounds.
//   P2  cut_once     between two results of f with m_cc_cut there is one
//                    with m_cc_window_ended (the second cut's own window
//                    end counts: the rule ends the window before it cuts);
//                    a reset starts afresh (it forgets the flow).
//   P3a window       the contract's window counters of f never saturate
//                    (a window holds less than 2^32 bytes), and at every
//                    window end 1 <= acked and marked <= acked, so M <=
//                    1024; the block's sequence loop decides f's first
//                    ACKs, acceptable ACKs and window ends as the contract
//                    does and hands the divider the contract's marked and
//                    acked.
//   P3  alpha        every result of f has m_cc_alpha <= 1024, and f's
//                    stored alpha never exceeds 65536 (1.0 with 16
//                    fraction bits).
//   P4  idle_zero    every m_cc field is 0 when m_cc_valid is low.
//   P5  ready        s_ack_ready is low in the 2^flow_bits cycles after a
//                    reset and high otherwise.
//
// Assume-guarantee (docs/formal.md "DCTCP_TX"): P1 assumes P3a's
// stage-8 statement that f's first and acceptable ACKs are the contract's
// (ASSUME_ACCEPT); P3 assumes P3a's statement that the divider of a window
// end of f gets 1 <= acked and marked <= acked (ASSUME_DIVIDER). P3a
// assumes nothing but the input contract, so the chain is sound. The
// tasks of P1 to P4 make free in every cycle (cutpoint, in the task
// script) signals their property holds for any value of, among them the
// logic upstream of what P1 and P3 assume; that only adds behaviours.
//
// Internal signals come through `expose` in the task script: registers as
// `<name>$q`, a table's RAM as `<table>.ram.<name>` (escaped identifiers
// here).

`default_nettype none
`include "ccrtl_dctcp_tx_params.vh"

module dctcp_tx_formal (
    input wire clk,
    input wire rst,
    input wire s_ack_valid,
    input wire [`CCRTL_FLOW_BITS-1:0] s_ack_flow,
    input wire [31:0] s_ack_seq,
    input wire s_ack_ece,
    input wire [31:0] s_ack_snd_nxt,
    input wire s_cfg_valid,
    input wire [2:0] s_cfg_addr,
    input wire [23:0] s_cfg_data
);
    localparam FB = `CCRTL_FLOW_BITS;
    localparam LAT = 24;           // result latency (golden LATENCY)
    localparam [FB:0] F = 1 << FB; // flows, and the cycles of the clearing
    localparam [3:0] R_G = `CCRTL_RESET_GSHIFT;
    localparam [23:0] R_MIN = `CCRTL_RESET_CWND_MIN;
    localparam [23:0] R_MAX = `CCRTL_RESET_CWND_MAX;
    localparam [16:0] ALPHA_ONE = 17'h10000;

    wire s_ack_ready;
    wire m_cc_valid, m_cc_cut, m_cc_window_ended;
    wire [FB-1:0] m_cc_flow;
    wire [23:0] m_cc_cwnd;
    wire [10:0] m_cc_alpha;

    // Exposed registers (`<name>$q`).
    wire h_busy, h_sweep;
    wire [FB-1:0] h_ptr;
    wire [15:0] h_bv, h_bcdn;           // stages 8 to 23: valid, cut flag after
    wire [15:0] h_bfirst, h_bcut, h_bwe; // stages 8 to 23: first, cut, window end
    wire [16*FB-1:0] h_bf;              // stages 8 to 23: flow
    wire h_acc0;                        // stage 8: acceptable
    wire h_first0 = h_bfirst[0], h_we0 = h_bwe[0];
    wire [32:0] h_rem0, h_div0;         // stage 8: the divider's operands
    wire [3:0] h_g18, h_g19;            // gshift at stages 18 and 19
    wire [23:0] h_min20, h_max20;       // cwnd_min, cwnd_max at stage 20
    wire [31:0] h_plo, h_phi;           // the cut's partial products (stage 21's d)
    // Each table's RAM: the tracked address and word, the write registered
    // once (we, wa, wd) and twice (a_we0, a_wa0, a_wd0).
    wire [FB-1:0] fa_1a, fa_1b, fa_1c, fa_2, fa_3a, fa_3b;
    wire [63:0] w_1a, wd_1a, ad_1a, w_1b, wd_1b, ad_1b;
    wire [1:0] w_1c, wd_1c, ad_1c;
    wire [16:0] w_2, wd_2, ad_2;
    wire [47:0] w_3a, wd_3a, ad_3a;
    wire we_1a, ae_1a, we_1b, ae_1b, we_1c, ae_1c, we_2, ae_2, we_3a, ae_3a;
    wire [FB-1:0] wa_1a, aa_1a, wa_1b, aa_1b, wa_1c, aa_1c, wa_2, aa_2, wa_3a, aa_3a;

    ccrtl_dctcp_tx dut (
        .clk(clk),
        .rst(rst),
        .s_ack_valid(s_ack_valid),
        .s_ack_ready(s_ack_ready),
        .s_ack_flow(s_ack_flow),
        .s_ack_seq(s_ack_seq),
        .s_ack_ece(s_ack_ece),
        .s_ack_snd_nxt(s_ack_snd_nxt),
        .s_cfg_valid(s_cfg_valid),
        .s_cfg_addr(s_cfg_addr),
        .s_cfg_data(s_cfg_data),
        .m_cc_valid(m_cc_valid),
        .m_cc_flow(m_cc_flow),
        .m_cc_cwnd(m_cc_cwnd),
        .m_cc_alpha(m_cc_alpha),
        .m_cc_cut(m_cc_cut),
        .m_cc_window_ended(m_cc_window_ended),
        .busy$q(h_busy),
        .ptr$q(h_ptr),
        .sweep_q$q(h_sweep),
        .b_valid$0$q(h_bv[0]), .b_flow$0$q(h_bf[0*FB +: FB]), .b_cdn$0$q(h_bcdn[0]),
        .b_first$0$q(h_bfirst[0]), .b_cut$0$q(h_bcut[0]), .b_we$0$q(h_bwe[0]),
        .b_valid$1$q(h_bv[1]), .b_flow$1$q(h_bf[1*FB +: FB]), .b_cdn$1$q(h_bcdn[1]),
        .b_first$1$q(h_bfirst[1]), .b_cut$1$q(h_bcut[1]), .b_we$1$q(h_bwe[1]),
        .b_valid$2$q(h_bv[2]), .b_flow$2$q(h_bf[2*FB +: FB]), .b_cdn$2$q(h_bcdn[2]),
        .b_first$2$q(h_bfirst[2]), .b_cut$2$q(h_bcut[2]), .b_we$2$q(h_bwe[2]),
        .b_valid$3$q(h_bv[3]), .b_flow$3$q(h_bf[3*FB +: FB]), .b_cdn$3$q(h_bcdn[3]),
        .b_first$3$q(h_bfirst[3]), .b_cut$3$q(h_bcut[3]), .b_we$3$q(h_bwe[3]),
        .b_valid$4$q(h_bv[4]), .b_flow$4$q(h_bf[4*FB +: FB]), .b_cdn$4$q(h_bcdn[4]),
        .b_first$4$q(h_bfirst[4]), .b_cut$4$q(h_bcut[4]), .b_we$4$q(h_bwe[4]),
        .b_valid$5$q(h_bv[5]), .b_flow$5$q(h_bf[5*FB +: FB]), .b_cdn$5$q(h_bcdn[5]),
        .b_first$5$q(h_bfirst[5]), .b_cut$5$q(h_bcut[5]), .b_we$5$q(h_bwe[5]),
        .b_valid$6$q(h_bv[6]), .b_flow$6$q(h_bf[6*FB +: FB]), .b_cdn$6$q(h_bcdn[6]),
        .b_first$6$q(h_bfirst[6]), .b_cut$6$q(h_bcut[6]), .b_we$6$q(h_bwe[6]),
        .b_valid$7$q(h_bv[7]), .b_flow$7$q(h_bf[7*FB +: FB]), .b_cdn$7$q(h_bcdn[7]),
        .b_first$7$q(h_bfirst[7]), .b_cut$7$q(h_bcut[7]), .b_we$7$q(h_bwe[7]),
        .b_valid$8$q(h_bv[8]), .b_flow$8$q(h_bf[8*FB +: FB]), .b_cdn$8$q(h_bcdn[8]),
        .b_first$8$q(h_bfirst[8]), .b_cut$8$q(h_bcut[8]), .b_we$8$q(h_bwe[8]),
        .b_valid$9$q(h_bv[9]), .b_flow$9$q(h_bf[9*FB +: FB]), .b_cdn$9$q(h_bcdn[9]),
        .b_first$9$q(h_bfirst[9]), .b_cut$9$q(h_bcut[9]), .b_we$9$q(h_bwe[9]),
        .b_valid$10$q(h_bv[10]), .b_flow$10$q(h_bf[10*FB +: FB]), .b_cdn$10$q(h_bcdn[10]),
        .b_first$10$q(h_bfirst[10]), .b_cut$10$q(h_bcut[10]), .b_we$10$q(h_bwe[10]),
        .b_valid$11$q(h_bv[11]), .b_flow$11$q(h_bf[11*FB +: FB]), .b_cdn$11$q(h_bcdn[11]),
        .b_first$11$q(h_bfirst[11]), .b_cut$11$q(h_bcut[11]), .b_we$11$q(h_bwe[11]),
        .b_valid$12$q(h_bv[12]), .b_flow$12$q(h_bf[12*FB +: FB]), .b_cdn$12$q(h_bcdn[12]),
        .b_first$12$q(h_bfirst[12]), .b_cut$12$q(h_bcut[12]), .b_we$12$q(h_bwe[12]),
        .b_valid$13$q(h_bv[13]), .b_flow$13$q(h_bf[13*FB +: FB]), .b_cdn$13$q(h_bcdn[13]),
        .b_first$13$q(h_bfirst[13]), .b_cut$13$q(h_bcut[13]), .b_we$13$q(h_bwe[13]),
        .b_valid$14$q(h_bv[14]), .b_flow$14$q(h_bf[14*FB +: FB]), .b_cdn$14$q(h_bcdn[14]),
        .b_first$14$q(h_bfirst[14]), .b_cut$14$q(h_bcut[14]), .b_we$14$q(h_bwe[14]),
        .b_valid$15$q(h_bv[15]), .b_flow$15$q(h_bf[15*FB +: FB]), .b_cdn$15$q(h_bcdn[15]),
        .b_first$15$q(h_bfirst[15]), .b_cut$15$q(h_bcut[15]), .b_we$15$q(h_bwe[15]),
        .b_acc$0$q(h_acc0),
        .d_rem$0$q(h_rem0),
        .d_div$0$q(h_div0),
        .g18$q(h_g18),
        .g19$q(h_g19),
        .min20$q(h_min20),
        .max20$q(h_max20),
        .plo$d(h_plo),
        .phi$d(h_phi),
        .\t1a.ram.formal_addr (fa_1a), .\t1a.ram.formal_word_a (w_1a),
        .\t1a.ram.we (we_1a), .\t1a.ram.wa (wa_1a), .\t1a.ram.wd (wd_1a),
        .\t1a.ram.a_we0 (ae_1a), .\t1a.ram.a_wa0 (aa_1a), .\t1a.ram.a_wd0 (ad_1a),
        .\t1b.ram.formal_addr (fa_1b), .\t1b.ram.formal_word_a (w_1b),
        .\t1b.ram.we (we_1b), .\t1b.ram.wa (wa_1b), .\t1b.ram.wd (wd_1b),
        .\t1b.ram.a_we0 (ae_1b), .\t1b.ram.a_wa0 (aa_1b), .\t1b.ram.a_wd0 (ad_1b),
        .\t1c.ram.formal_addr (fa_1c), .\t1c.ram.formal_word_a (w_1c),
        .\t1c.ram.we (we_1c), .\t1c.ram.wa (wa_1c), .\t1c.ram.wd (wd_1c),
        .\t1c.ram.a_we0 (ae_1c), .\t1c.ram.a_wa0 (aa_1c), .\t1c.ram.a_wd0 (ad_1c),
        .\t2.ram.formal_addr (fa_2), .\t2.ram.formal_word_a (w_2),
        .\t2.ram.we (we_2), .\t2.ram.wa (wa_2), .\t2.ram.wd (wd_2),
        .\t2.ram.a_we0 (ae_2), .\t2.ram.a_wa0 (aa_2), .\t2.ram.a_wd0 (ad_2),
        .\t3a.ram.formal_addr (fa_3a), .\t3a.ram.formal_word_a (w_3a),
        .\t3a.ram.we (we_3a), .\t3a.ram.wa (wa_3a), .\t3a.ram.wd (wd_3a),
        .\t3a.ram.a_we0 (ae_3a), .\t3a.ram.a_wa0 (aa_3a), .\t3a.ram.a_wd0 (ad_3a),
        .\t3b.ram.formal_addr (fa_3b)
    );

    // ---- The contract's assumption ----------------------------------------
    reg f_past = 1'b0;
    always @(posedge clk) f_past <= 1'b1;
    always @(*) if (!f_past) assume(rst);

    // The tracked flow: the address every table's RAM keeps.
    (* anyconst *) wire [FB-1:0] f;
    always @(*)
        assume(fa_1a == f && fa_1b == f && fa_1c == f && fa_2 == f && fa_3a == f && fa_3b == f);

    integer k;

    // ---- The spec: clearing, registers in force ------------------------------
    // Time since the reset (mod F), the clearing's count.
    reg [FB-1:0] sh_now;
    reg [FB:0] sh_left;
    always @(posedge clk)
        if (rst) begin
            sh_now <= 0;
            sh_left <= F;
        end else begin
            sh_now <= sh_now + 1'b1;
            if (sh_left != 0)
                sh_left <= sh_left - 1'b1;
        end
    wire sh_busy = sh_left != 0;
    // The clearing has written f (flow 0 in the reset cycle, flow p in the
    // p-th cycle after it).
    wire [FB-1:0] sh_ptr = sh_now + 1'b1;
    wire passed = !sh_busy || sh_ptr == 0 || f < sh_ptr;

    // The registers the properties read, as in force (a write from the next
    // cycle, the reset values after a reset), and as they were j cycles ago
    // (d*[j]; a reset refills every entry with the reset value, as it drops
    // the writes in flight).
    reg [3:0] sh_g;
    reg [23:0] sh_min, sh_max;
    always @(posedge clk)
        if (rst) begin
            sh_g <= R_G;
            sh_min <= R_MIN;
            sh_max <= R_MAX;
        end else if (s_cfg_valid) begin
            if (s_cfg_addr == 3'd0) sh_g <= s_cfg_data[3:0];
            if (s_cfg_addr == 3'd3) sh_min <= s_cfg_data;
            if (s_cfg_addr == 3'd4) sh_max <= s_cfg_data;
        end
    reg [3:0] dg [1:19];
    reg [23:0] dmin [1:LAT];
    reg [23:0] dmax [1:LAT];
    always @(posedge clk) begin
        dg[1] <= rst ? R_G : sh_g;
        for (k = 2; k <= 19; k = k + 1)
            dg[k] <= rst ? R_G : dg[k-1];
        dmin[1] <= rst ? R_MIN : sh_min;
        dmax[1] <= rst ? R_MAX : sh_max;
        for (k = 2; k <= LAT; k = k + 1) begin
            dmin[k] <= rst ? R_MIN : dmin[k-1];
            dmax[k] <= rst ? R_MAX : dmax[k-1];
        end
    end
    // The bounds of the ACK accepted LAT cycles ago.
    wire [23:0] b_max = dmax[LAT];
    wire [23:0] b_lo = dmin[LAT] < dmax[LAT] ? dmin[LAT] : dmax[LAT];

    // ---- The spec: the rule for the tracked flow ------------------------------
    wire accept = s_ack_valid && s_ack_ready && !rst;
    wire ev_f = accept && s_ack_flow == f;
    // f's state: seen since the reset, SND.UNA, WindowEnd, acked, marked.
    reg sh_seen;
    reg [31:0] sh_una, sh_wend, sh_acked, sh_marked;
    // after(a, b): (a - b) mod 2^32 is positive as a signed number.
    wire [31:0] s_b = s_ack_seq - sh_una;
    wire [31:0] s_dn = s_ack_seq - s_ack_snd_nxt;
    wire [31:0] s_dw = s_ack_seq - sh_wend;
    wire aft_una = !s_b[31] && s_b != 0;
    wire aft_nxt = !s_dn[31] && s_dn != 0;
    wire aft_wend = !s_dw[31] && s_dw != 0;
    wire s_first = !sh_seen;
    wire s_acc = sh_seen && aft_una && !aft_nxt;
    wire s_we = s_acc && aft_wend;
    // Step 1: the counters, saturating at 2^32 - 1.
    wire [32:0] s_a33 = {1'b0, sh_acked} + {1'b0, s_b};
    wire [32:0] s_m33 = {1'b0, sh_marked} + {1'b0, s_b};
    wire [31:0] s_an = s_a33[32] ? 32'hffffffff : s_a33[31:0];
    wire [31:0] s_mn = !s_ack_ece ? sh_marked : s_m33[32] ? 32'hffffffff : s_m33[31:0];
    always @(posedge clk)
        if (rst)
            sh_seen <= 1'b0;
        else if (ev_f) begin
            if (s_first) begin
                sh_seen <= 1'b1;
                sh_una <= s_ack_seq;
                sh_wend <= aft_nxt ? s_ack_seq : s_ack_snd_nxt;
                sh_acked <= 0;
                sh_marked <= 0;
            end else if (s_acc) begin
                sh_una <= s_ack_seq;
                if (s_we) begin
                    sh_wend <= s_ack_snd_nxt;
                    sh_acked <= 0;
                    sh_marked <= 0;
                end else begin
                    sh_acked <= s_an;
                    sh_marked <= s_mn;
                end
            end
        end
    // Cycles since f's first ACK since the reset (0: none), saturating.
    reg [5:0] fage;
    always @(posedge clk)
        if (rst)
            fage <= 0;
        else if (ev_f && s_first)
            fage <= 1;
        else if (fage != 0 && fage != 6'h3f)
            fage <= fage + 1'b1;

    // The ACKs of f in flight: bit j in cycle n + j holds the ACK of f
    // accepted in cycle n (x_v; a reset drops them) and the rule's
    // decisions for it (first, acceptable, window end, ECE).
    reg [LAT:1] x_v, x_first, x_acc, x_we, x_ece;
    always @(posedge clk) begin
        x_v <= rst ? {LAT{1'b0}} : {x_v[LAT-1:1], ev_f};
        x_first <= {x_first[LAT-1:1], s_first};
        x_acc <= {x_acc[LAT-1:1], s_acc};
        x_we <= {x_we[LAT-1:1], s_we};
        x_ece <= {x_ece[LAT-1:1], s_ack_ece};
    end
    wire [LAT:1] x_ok = x_first | x_acc;
    // f's seen bit as it was 1 to 7 cycles ago (the table's word holds the
    // ACKs decided at stage 7 so far: those accepted up to 8 cycles ago).
    reg [7:1] h_seen;
    always @(posedge clk) h_seen <= {h_seen[6:1], sh_seen};

    // The tracked words with every write issued so far applied (a write
    // lands in the RAM two cycles after it is issued): the table's view of
    // a read issued now.
    wire [63:0] e_1a = (we_1a && wa_1a == f) ? wd_1a : (ae_1a && aa_1a == f) ? ad_1a : w_1a;
    wire [63:0] e_1b = (we_1b && wa_1b == f) ? wd_1b : (ae_1b && aa_1b == f) ? ad_1b : w_1b;
    wire [1:0] e_1c = (we_1c && wa_1c == f) ? wd_1c : (ae_1c && aa_1c == f) ? ad_1c : w_1c;
    wire [16:0] e_2 = (we_2 && wa_2 == f) ? wd_2 : (ae_2 && aa_2 == f) ? ad_2 : w_2;
    wire [47:0] e_3a = (we_3a && wa_3a == f) ? wd_3a : (ae_3a && aa_3a == f) ? ad_3a : w_3a;

    // Stage 8 holds an ACK of f; the output holds a result of f.
    wire v8 = h_bv[0] && h_bf[0 +: FB] == f;
    wire v_out = m_cc_valid && m_cc_flow == f;

    // ---- Invariants shared by several tasks ---------------------------------
`ifdef CHECK_P2
`define F_SEEN
`define F_CLEAR
`endif
`ifdef CHECK_P3A
`define F_SEEN
`define F_CLEAR
`endif
`ifdef CHECK_P3
`define F_SEEN
`define F_CLEAR
`endif
`ifdef CHECK_P1
`define F_CLEAR
`endif
`ifdef CHECK_P5
`define F_CLEAR
`endif

`ifdef F_CLEAR
    // The clearing: busy for the spec's count, the pointer 1 in the cycle
    // after a reset, then counting with time; the spec's reset state.
    always @(*)
        if (f_past) begin
            l_busy: assert(h_busy == sh_busy);
            l_sweep: assert(h_sweep == (sh_left >= 2));
            l_ptr: assert(h_ptr == sh_ptr);
            if (sh_busy) begin
                l_count: assert({1'b0, sh_now} + sh_left == F);
                l_reset_state: assert(!sh_seen && fage == 0 && x_v == 0);
            end
            l_fage: assert((fage != 0) == sh_seen);
        end
`endif

`ifdef F_SEEN
    // f's seen bit (t1c bit 0): cleared with its cut flag by the clearing,
    // then the rule's seen bit of 7 cycles before.
    always @(*)
        if (f_past) begin
            if (sh_busy && passed)
                l_t1c_cleared: assert(e_1c == 2'b00);
            if (!sh_busy)
                l_t1c_seen: assert(e_1c[0] == h_seen[7]);
        end
`endif

    // ---- P1: cwnd bounds --------------------------------------------------------
    // P3a's stage-8 guarantee: f's first and acceptable ACKs are the rule's.
`ifdef ASSUME_ACCEPT
    always @(*)
        if (f_past && v8)
            assume(h_first0 == x_first[8] && h_acc0 == x_acc[8]);
`endif
    // The cut's partial products are cut to free values in P1's task. Any
    // operands keep them at most (2^16 - 1)(2^11 - 1) (base[15:0] x
    // alpha10) and (2^8 - 1)(2^11 - 1) (base[23:16] x alpha10): the product
    // P = plo + phi 2^16 is then below 2^35 and R = P >> 11 below 2^24,
    // which the clamp's sums need (docs/formal.md "DCTCP_TX"). Loose bounds
    // (2^27, 2^19) let P reach 2^35 and R wrap: measured, a false
    // counterexample.
`ifdef ASSUME_PRODUCTS
    always @(*)
        assume(h_plo <= 32'd134150145 && h_phi <= 32'd521985);
`endif
`ifdef CHECK_P1
    // The bounds of f's latest result of a first or acceptable ACK, and
    // whether there was one since the reset.
    reg ob_ok;
    reg [23:0] ob_lo, ob_max;
    always @(posedge clk)
        if (rst)
            ob_ok <= 1'b0;
        else if (x_v[LAT] && x_ok[LAT]) begin
            ob_ok <= 1'b1;
            ob_lo <= b_lo;
            ob_max <= b_max;
        end
    // The bounds the result now out must keep.
    wire [23:0] c_lo = x_ok[LAT] ? b_lo : ob_lo;
    wire [23:0] c_max = x_ok[LAT] ? b_max : ob_max;
    always @(*)
        if (f_past) begin
            p1_latency: assert(v_out == x_v[LAT]);
            if (x_v[LAT])
                p1_cwnd_bounds: assert(m_cc_cwnd >= c_lo && m_cc_cwnd <= c_max);
            // Invariants: the registers of stage 20, f's cwnd word (the
            // table is written in the cycle the result is out).
            l1_min20: assert(h_min20 == dmin[20]);
            l1_max20: assert(h_max20 == dmax[20]);
            l1_ob_ok: assert(ob_ok == (fage >= 6'd25));
            if (ob_ok)
                l1_word: assert(e_3a[23:0] >= ob_lo && e_3a[23:0] <= ob_max);
        end
`endif

    // ---- P2: at most one cut per window ------------------------------------------
`ifdef CHECK_P2
    // A cut of f reported since f's last reported window end or the reset.
    reg obs;
    always @(posedge clk)
        if (rst)
            obs <= 1'b0;
        else if (v_out)
            obs <= m_cc_cut | (obs & !m_cc_window_ended);
    // The flag the table must hold: obs with the result out now and the
    // ACKs of f at stages 23 down to 8 applied (each carries the flag after
    // it, b_cdn); c_ch[0] is after the newest.
    reg [16:0] c_ch;
    always @(*) begin
        c_ch[16] = v_out ? (m_cc_cut | (obs & !m_cc_window_ended)) : obs;
        for (k = 15; k >= 0; k = k - 1)
            c_ch[k] = (h_bv[k] && h_bf[k*FB +: FB] == f) ? h_bcdn[k] : c_ch[k+1];
    end
    always @(*)
        if (f_past) begin
            if (v_out && m_cc_cut && !m_cc_window_ended)
                p2_cut_once: assert(!obs);
            if (!sh_busy)
                l2_word: assert(e_1c == {c_ch[0], h_seen[7]});
            if (obs)
                l2_obs_seen: assert(sh_seen && h_seen[7]);
        end
    // Each ACK of f in flight took the flag left by the ones before it
    // (c_ch[k + 1]): a first ACK clears it and finds it clear (nothing of
    // f since the reset), a window end clears it, a cut sets it and needs
    // it clear unless its own window ended.
    wire [15:0] s2_flag, s2_cut, s2_first;
    genvar gk;
    generate
        for (gk = 0; gk < 16; gk = gk + 1) begin : s2
            wire here = h_bv[gk] && h_bf[gk*FB +: FB] == f;
            assign s2_flag[gk] = !here || h_bcdn[gk] ==
                (h_bfirst[gk] ? 1'b0 : h_bcut[gk] | (c_ch[gk+1] & !h_bwe[gk]));
            assign s2_cut[gk] = !here || !h_bcut[gk] || h_bwe[gk] || !c_ch[gk+1];
            assign s2_first[gk] = !here || !h_bfirst[gk] || (!h_bcut[gk] && !h_bwe[gk] && !c_ch[gk+1]);
        end
    endgenerate
    always @(*)
        if (f_past) begin
            l2_stage_flag: assert(&s2_flag);
            l2_stage_cut: assert(&s2_cut);
            l2_stage_first: assert(&s2_first);
        end
`endif

    // ---- P3a: the window's counts --------------------------------------------------
`ifdef CHECK_P3A
    // f's state 1 to 7 cycles ago, and the counts of the ACKs of f in
    // flight to stage 8 (acked and marked after step 1).
    reg [31:0] h_una [1:7];
    reg [31:0] h_wend [1:7];
    reg [31:0] h_acked [1:7];
    reg [31:0] h_marked [1:7];
    reg [31:0] x_mk [1:8];
    reg [31:0] x_ak [1:8];
    always @(posedge clk) begin
        h_una[1] <= sh_una;
        h_wend[1] <= sh_wend;
        h_acked[1] <= sh_acked;
        h_marked[1] <= sh_marked;
        for (k = 2; k <= 7; k = k + 1) begin
            h_una[k] <= h_una[k-1];
            h_wend[k] <= h_wend[k-1];
            h_acked[k] <= h_acked[k-1];
            h_marked[k] <= h_marked[k-1];
        end
        x_mk[1] <= s_mn;
        x_ak[1] <= s_an;
        for (k = 2; k <= 8; k = k + 1) begin
            x_mk[k] <= x_mk[k-1];
            x_ak[k] <= x_ak[k-1];
        end
    end
    // The window (docs/dctcp_tx.md "Number formats"): r = SND.UNA -
    // WindowEnd is 0 or in [2^31, 2^32 - 1], and acked is at most 2^31 at
    // r = 0, r - 2^31 otherwise.
    wire [31:0] r_w = sh_una - sh_wend;
    wire [32:0] a_bound = r_w == 0 ? 33'h0_8000_0000 : {1'b0, r_w} - 33'h0_8000_0000;
    always @(*)
        if (f_past) begin
            if (sh_seen) begin
                p3a_marked_le_acked: assert(sh_marked <= sh_acked);
                p3a_window_start: assert(r_w == 0 || r_w[31]);
                p3a_window_size: assert({1'b0, sh_acked} <= a_bound);
            end
            if (ev_f && s_acc) begin
                p3a_no_saturation: assert(!s_a33[32] && !(s_ack_ece && s_m33[32]));
                if (s_we)
                    p3a_window_end: assert(s_an != 0 && s_mn <= s_an);
            end
            // f's words: SND.UNA and WindowEnd (t1a), ws = SND.UNA - acked
            // and D = marked - SND.UNA (t1b), as the rule's of 7 cycles ago.
            if (!sh_busy && h_seen[7]) begin
                l3a_t1a: assert(e_1a == {h_wend[7], h_una[7]});
                l3a_t1b: assert(e_1b == {h_marked[7] - h_una[7], h_una[7] - h_acked[7]});
            end
            // Stage 8: the sequence loop's decisions and the divider's
            // operands for the ACK of f accepted 8 cycles ago.
            l3a_v8: assert(v8 == x_v[8]);
            if (v8) begin
                p3a_first: assert(h_first0 == x_first[8]);
                p3a_acc: assert(h_acc0 == x_acc[8]);
                p3a_we: assert(h_we0 == x_we[8]);
                if (h_acc0)
                    p3a_operands: assert(h_rem0 == {1'b0, x_mk[8]} && h_div0 == {1'b0, x_ak[8]});
                if (h_acc0 && h_we0)
                    p3a_divider: assert(h_rem0 <= h_div0 && h_div0 != 0);
            end
        end
`endif

    // ---- P3: alpha in [0, 1] ----------------------------------------------------------
    // P3a's stage-8 guarantee: a window end of f divides marked <= acked,
    // acked >= 1.
`ifdef ASSUME_DIVIDER
    always @(*)
        if (f_past && v8 && h_acc0 && h_we0)
            assume(h_rem0 <= h_div0 && h_div0 != 0);
`endif
`ifdef CHECK_P3
    always @(*)
        if (f_past) begin
            if (v_out)
                p3_alpha: assert(m_cc_alpha <= 11'd1024);
            // f's alpha word once its first ACK has written it (stage 19).
            if (!sh_busy && fage >= 6'd20)
                p3_alpha_stored: assert(e_2 <= ALPHA_ONE);
            // The gshift copies of stages 18 and 19.
            l3_g18: assert(h_g18 == dg[18]);
            l3_g19: assert(h_g19 == dg[19]);
        end
`endif

    // ---- P4: idle outputs are 0 ---------------------------------------------------------
`ifdef CHECK_P4
    always @(*)
        if (f_past && !m_cc_valid)
            p4_idle_zero: assert(m_cc_flow == 0 && m_cc_cwnd == 0 && m_cc_alpha == 0
                && !m_cc_cut && !m_cc_window_ended);
`endif

    // ---- P5: ready ------------------------------------------------------------------------
`ifdef CHECK_P5
    always @(*)
        if (f_past)
            p5_ready: assert(s_ack_ready == !sh_busy);
`endif

    // ---- Covers ------------------------------------------------------------------------------
`ifdef COVER
    reg prev_ok;
    always @(posedge clk) prev_ok <= !rst && v_out && x_ok[LAT];
    always @(posedge clk) begin
        if (f_past) begin
            // A cut; a cut with its own window end; an acceptable ECE ACK
            // refused a cut (its window already cut).
            c_cut: cover(v_out && m_cc_cut);
            c_cut_at_end: cover(v_out && m_cc_cut && m_cc_window_ended);
            c_refused: cover(v_out && x_acc[LAT] && x_ece[LAT] && !m_cc_cut);
            // cwnd at each bound, the bounds crossed.
            c_at_max: cover(v_out && x_acc[LAT] && m_cc_cwnd == b_max);
            c_at_lo: cover(v_out && x_acc[LAT] && m_cc_cwnd == b_lo && b_lo < b_max);
            c_min_above_max: cover(v_out && x_ok[LAT] && dmin[LAT] > dmax[LAT]);
            // Window ends: everything marked (M = 1024), alpha moved.
            c_full_window: cover(v_out && m_cc_window_ended && m_cc_alpha == 11'd1024 && x_ece[LAT]);
            c_alpha_moved: cover(v_out && m_cc_window_ended && m_cc_alpha < 11'd1024);
            // An unacceptable ACK; two results of f back to back.
            c_unacceptable: cover(v_out && !x_ok[LAT]);
            c_back_to_back: cover(v_out && x_acc[LAT] && prev_ok);
            // A reset during the clearing.
            c_reset_busy: cover(rst && sh_busy && sh_left < F);
        end
    end
`endif
endmodule
