// cfr_cam_formal - properties of CFR_CAM (golden/src/cfr_cam.rs,
// docs/cfr_cam.md) around the emitted ccrtl_cfr_cam.
//
// The wrapper instantiates `ccrtl_cfr_cam` from the file `ccrtl emit`
// writes. Every input is free in every cycle; the only assumption on them
// is the contract's: `rst` in the first cycle. Shape and reset value come
// from `ccrtl_cfr_cam_params.vh` (written by `ccrtl formal` from the
// emitted file's header).
//
// One sby task per property (formal/cfr_cam/cfr_cam.sby); the task defines
// CHECK_P1A, CHECK_P1B, CHECK_P1C, CHECK_P2 or COVER.
//
//   P1 hit rule   for the tracked key K (any key: an anyconst), a lookup of
//                 K accepted in cycle m is answered in cycle m + 11, and the
//                 answer is a hit if and only if at least T of the last D
//                 keys sampled before cycle m since the last reset are K,
//                 T the threshold in force in m. Which packets are sampled
//                 and which T is in force is restated here from the
//                 contract (one in S, counted from the last reset or load;
//                 none with S = 0; loads and reset values), not taken from
//                 the RTL. Proven in three tasks, each without the others'
//                 properties (docs/formal.md):
//     P1a compare the answer in m + 11 is `q_cmp`: whether the number of
//                 used entries holding its key, as the lookup of cycle m
//                 saw them, is at least the threshold register of cycle
//                 m (the lookup pipeline: compares, the adder tree, the
//                 delays; L1 equates that register with the contract's T);
//     P1b state   the invariants L1-L3 below;
//     P1c link    assuming L1-L3 in the same cycle: the number of used
//                 entries holding K is the number of K among the last D
//                 samples.
//                 For a lookup of K in cycle m, `q_cmp` (P1a) compares the
//                 number of used entries holding K with T, and that number
//                 is P1's count (P1c): the last step substitutes K for the
//                 key looked up, by hand (docs/formal.md).
//   P2 answers    `m_hit_valid` is high in cycle m + 11 exactly for the
//                 lookups accepted in m (any key), and `m_hit` is 0 when
//                 `m_hit_valid` is low.
//
// "The last D samples" are kept as a shift register: `hist[j]`, the sample
// j before the newest was K (0 for samples before the last reset, so the
// count is the number of ones of `hist`).
//
// Invariants (L*, asserted by P1b, assumed by P1c; k-induction needs them: the CAM's
// entries outlive any window of k cycles without packets). They speak of
// the entries with the write in flight applied (`w1_sel`, `w1_key`: a
// sample of cycle n lands in its entry at the end of n + 1), which are the
// entries a lookup issued now compares against:
//   L1 the period, threshold and count registers equal the contract's, and
//      the flags kept beside them (period != 0, period == 1, count == 0)
//      agree with them;
//   L2 the write pointer (one-hot) selects entry `sp`, the contract's count of
//      samples modulo D; an entry is used iff it was written since reset
//      (all once `full`, else those below `sp`); the write in flight, if
//      any, is to the entry just behind the pointer;
//   L3 entry i is used and holds K iff hist[sp - 1 - i] (the sample that
//      wrote it was K).
// Internal registers come through `expose` in the task script (yosys 0.70's
// read_verilog has no hierarchical references); the connections below are
// written for D = 8 (the configuration of this folder).

`default_nettype none
`include "ccrtl_cfr_cam_params.vh"

module cfr_cam_formal (
    input wire clk,
    input wire rst,
    input wire s_pkt_valid,
    input wire [`CCRTL_KEY_BITS-1:0] s_pkt_key,
    input wire s_look_valid,
    input wire [`CCRTL_KEY_BITS-1:0] s_look_key,
    input wire s_cfg_valid,
    input wire [15:0] s_cfg_period,
    input wire [8:0] s_cfg_thresh
);
    localparam KW = `CCRTL_KEY_BITS;
    localparam D = `CCRTL_DEPTH;
    localparam DB = $clog2(D);
    localparam LAT = 11;

    wire m_hit_valid, m_hit;
    wire [D-1:0] wp, w1_sel, used;
    wire p_nz, p_one, s_zero;
    wire [KW-1:0] ent [0:D-1];
    wire [KW-1:0] w1_key;
    wire [15:0] period, skip;
    wire [8:0] thr;

`ifndef CCRTL_DEPTH_8
    initial $error("cfr_cam_formal connects the entries of D = 8 only");
`endif

    ccrtl_cfr_cam dut (
        .clk(clk),
        .rst(rst),
        .s_pkt_valid(s_pkt_valid),
        .s_pkt_key(s_pkt_key),
        .s_look_valid(s_look_valid),
        .s_look_key(s_look_key),
        .s_cfg_valid(s_cfg_valid),
        .s_cfg_period(s_cfg_period),
        .s_cfg_thresh(s_cfg_thresh),
        .m_hit_valid(m_hit_valid),
        .m_hit(m_hit),
        .\period$q (period),
        .\thr$q (thr),
        .\skip$q (skip),
        .\w1_key$q (w1_key),
        .\p_nz$q (p_nz),
        .\p_one$q (p_one),
        .\s_zero$q (s_zero),
        .\wp$0$q (wp[0]),
        .\wp$1$q (wp[1]),
        .\wp$2$q (wp[2]),
        .\wp$3$q (wp[3]),
        .\wp$4$q (wp[4]),
        .\wp$5$q (wp[5]),
        .\wp$6$q (wp[6]),
        .\wp$7$q (wp[7]),
        .\w1_sel$0$q (w1_sel[0]),
        .\w1_sel$1$q (w1_sel[1]),
        .\w1_sel$2$q (w1_sel[2]),
        .\w1_sel$3$q (w1_sel[3]),
        .\w1_sel$4$q (w1_sel[4]),
        .\w1_sel$5$q (w1_sel[5]),
        .\w1_sel$6$q (w1_sel[6]),
        .\w1_sel$7$q (w1_sel[7]),
        .\ent$0.used$q (used[0]),
        .\ent$1.used$q (used[1]),
        .\ent$2.used$q (used[2]),
        .\ent$3.used$q (used[3]),
        .\ent$4.used$q (used[4]),
        .\ent$5.used$q (used[5]),
        .\ent$6.used$q (used[6]),
        .\ent$7.used$q (used[7]),
        .\ent$0.key$q (ent[0]),
        .\ent$1.key$q (ent[1]),
        .\ent$2.key$q (ent[2]),
        .\ent$3.key$q (ent[3]),
        .\ent$4.key$q (ent[4]),
        .\ent$5.key$q (ent[5]),
        .\ent$6.key$q (ent[6]),
        .\ent$7.key$q (ent[7])
    );

    // ---- The contract -------------------------------------------------------
    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @(*) if (init) assume (rst);

    (* anyconst *) reg [KW-1:0] K;

    reg [15:0] c_period, c_skip;
    reg [8:0] c_thr;
    reg [DB-1:0] sp;       // samples since reset, modulo D
    reg full;              // D samples or more since reset
    reg [D-1:0] hist;      // hist[j]: the sample j before the newest was K
    wire sampled = !rst && s_pkt_valid && c_period != 16'd0 && c_skip == 16'd0;

    always @(posedge clk) begin
        if (rst) begin
            c_period <= `CCRTL_RESET_PERIOD;
            c_thr <= `CCRTL_RESET_THRESH;
            c_skip <= 16'd0;
            sp <= 0;
            full <= 1'b0;
            hist <= 0;
        end else begin
            if (s_pkt_valid && c_period != 16'd0)
                c_skip <= c_skip == 16'd0 ? c_period - 16'd1 : c_skip - 16'd1;
            if (s_cfg_valid) begin
                c_period <= s_cfg_period;
                c_thr <= s_cfg_thresh;
                c_skip <= 16'd0;
            end
            if (sampled) begin
                sp <= sp + 1'b1;
                if (sp == D - 1) full <= 1'b1;
                hist <= {hist[D-2:0], s_pkt_key == K};
            end
        end
    end

    // The lookups in flight: accepted, of K, and the contract's answer.
    reg [LAT-1:0] q_valid, q_k;
    always @(posedge clk) begin
        q_valid <= {q_valid[LAT-2:0], s_look_valid && !rst};
        q_k <= {q_k[LAT-2:0], s_look_key == K};
        if (rst) q_valid <= 0;
    end

    // ---- Properties -----------------------------------------------------------
    // The entries as a lookup issued now sees them.
    wire [KW-1:0] eff [0:D-1];
    wire [D-1:0] eff_used;
    // eq_look[i], eq_k[i]: entry i is used and holds the key looked up now,
    // or K.
    wire [D-1:0] eq_look, eq_k;
    genvar i;
    generate
        for (i = 0; i < D; i = i + 1) begin : e
            assign eff[i] = w1_sel[i] ? w1_key : ent[i];
            assign eff_used[i] = used[i] | w1_sel[i];
            assign eq_look[i] = eff_used[i] && eff[i] == s_look_key;
            assign eq_k[i] = eff_used[i] && eff[i] == K;
        end
    endgenerate
    // Number of ones of a D-bit word.
    function automatic [DB:0] ones(input [D-1:0] w);
        integer j;
        begin
            ones = 0;
            for (j = 0; j < D; j = j + 1) ones = ones + w[j];
        end
    endfunction
    // The answer the entries give a lookup, per lookup in flight.
    reg [LAT-1:0] q_cmp;
    always @(posedge clk) q_cmp <= {q_cmp[LAT-2:0], {8'd0, ones(eq_look)} >= thr};

    always @(posedge clk) if (!init) begin
`ifdef CHECK_P1A
        if (q_valid[LAT-1])
            p1a_compare: assert (m_hit_valid && m_hit == q_cmp[LAT-1]);
`endif
`ifdef CHECK_P2
        p2_valid: assert (m_hit_valid == q_valid[LAT-1]);
        if (!m_hit_valid) p2_zero: assert (!m_hit);
`endif
    end

`ifdef CHECK_P1B
`define CFR_CAM_INV assert
`define CFR_CAM_WITH_INV
`endif
`ifdef CHECK_P1C
`define CFR_CAM_INV assume
`define CFR_CAM_WITH_INV
`endif
`ifdef CFR_CAM_WITH_INV
    always @(*) if (!init && !rst) begin
        l1_period: `CFR_CAM_INV (period == c_period);
        l1_thresh: `CFR_CAM_INV (thr == c_thr);
        l1_skip: `CFR_CAM_INV (skip == c_skip);
        l1_flags: `CFR_CAM_INV (p_nz == (period != 16'd0) && p_one == (period == 16'd1)
                                && s_zero == (skip == 16'd0));
        l2_pointer: `CFR_CAM_INV (wp == (1 << sp));
        l2_used: `CFR_CAM_INV (eff_used == (full ? {D{1'b1}} : (1 << sp) - 1));
        l2_w1: `CFR_CAM_INV (w1_sel == 0 || w1_sel == (1 << (sp - 1'b1)));
    end
    // k_aged[i]: the sample that wrote entry i (sp - 1 - i samples before
    // the newest) was K. Indexing the 8-bit `hist` by entry, rather than
    // the entries' 32-bit compares by age, keeps the solver's problem
    // small (the other way, the induction step had not finished in 25
    // minutes).
    wire [D-1:0] k_aged;
    generate
        for (i = 0; i < D; i = i + 1) begin : l3
            wire [DB-1:0] age = sp - 1'b1 - i;
            assign k_aged[i] = hist[age];
        end
    endgenerate
    always @(*) if (!init && !rst) l3_hist: `CFR_CAM_INV (eq_k == k_aged);
`endif
`ifdef CHECK_P1C
    always @(*) if (!init && !rst) begin
        p1c_k_count: assert (ones(eq_k) == ones(hist));
    end
`endif

`ifdef COVER
    // K hits as the oldest entry only (seven other samples after it); K
    // held by exactly T = 2 entries hits, by T - 1 = 1 misses; K held by
    // every entry hits at T = D.
    reg [LAT-1:0] q_oldest, q_two, q_one, q_all;
    always @(posedge clk) begin
        q_oldest <= {q_oldest[LAT-2:0], hist == 1 << (D - 1) && c_thr == 1};
        q_two <= {q_two[LAT-2:0], ones(hist) == 2 && c_thr == 2};
        q_one <= {q_one[LAT-2:0], ones(hist) == 1 && c_thr == 2};
        q_all <= {q_all[LAT-2:0], hist == {D{1'b1}} && c_thr == D};
    end
    always @(posedge clk) if (!init) begin
        c1_hit_oldest: cover (q_valid[LAT-1] && q_k[LAT-1] && q_oldest[LAT-1] && m_hit);
        c2_count_at_t: cover (q_valid[LAT-1] && q_k[LAT-1] && q_two[LAT-1] && m_hit);
        c3_count_below_t: cover (q_valid[LAT-1] && q_k[LAT-1] && q_one[LAT-1] && !m_hit);
        c4_all_entries: cover (q_valid[LAT-1] && q_k[LAT-1] && q_all[LAT-1] && m_hit);
    end
`endif
endmodule
