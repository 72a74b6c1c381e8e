// pacer_formal - properties of PACER (golden/src/pacer.rs, docs/pacer.md)
// around the emitted ccrtl_pacer.
//
// The wrapper instantiates `ccrtl_pacer` from the file `ccrtl emit` writes
// and checks it against the rule of docs/pacer.md ("The rule, exactly").
// Every input is free in every cycle; the only assumption on them is the
// contract's: `rst` in the first cycle. Shape and reset values come from
// `ccrtl_pacer_params.vh`, which `ccrtl formal` writes from the emitted
// file's header.
//
// One sby task per property (formal/pacer/pacer.sby); the task defines
// CHECK_Pn.
//
//   P1 rule       for the tracked flow f (any flow: the solver picks it),
//                 the decision of a request of f accepted in cycle n leaves
//                 in cycle n + 16, and only then, and grants the packet if
//                 and only if the rule's bucket holds its cost: f's bucket
//                 refilled lazily at each touch (a request, or f's refresh)
//                 at the rate in force, capped at the depth, full when f was
//                 not touched since the reset; for any rate updates,
//                 register writes, resets and power-up contents.
//   P2 idle_zero  `m_dec_flow` and `m_dec_grant` are 0 when `m_dec_valid`
//                 is low.
//   P3 ready      `s_req_ready` is low in the 2^flow_bits cycles after a
//                 reset and in refresh cycles, high otherwise;
//                 `s_rate_ready` is low in the 2^flow_bits cycles after a
//                 reset, high otherwise.
//   P4 window     the rate bound (the issue's): not here, but in
//                 p4_window.smt2, a lemma on the rule over unbounded
//                 integers (method `arith`): with P1 it holds of the RTL.
//
// The flow table's block RAMs are read with CCRTL_FORMAL_RAM defined: each
// (`tok`, `stm`, `rate`) then keeps only the word of one address
// (`formal_addr`, an anyconst) and a read of any other address, or one
// that collides with a write, returns any value (hdl/src/ram.rs;
// docs/formal.md "NP"). The tracked flow f is that address; the three are
// assumed equal.
//
// The products. The RTL multiplies with PipeMul (hdl/src/mul.rs): 17 rows
// `b[j] ? a << j : 0` summed in a tree, one level per cycle. The wrapper's
// products are `mul_rows`, the same rows summed in the same order,
// combinationally: equal to `a * b` (the sum of the rows is the product,
// in any order), and, being the same terms as the RTL's sums, seen equal
// by the solver without proving one multiplier equal to another. Their
// operands are the RTL's multiplier inputs, which assertions prove are the
// rule's (l_op_*, l_rate6, l_age6); so in every reachable state the
// wrapper's products are the rule's.
//
// The rule's arithmetic is done at stage 6 of each touch (cycle n + 6 for
// a touch in n), where the RTL's R x (n - m) has its operands; the touches
// of f are taken in order, so `lT`, the tokens after the previous touch,
// is known then.
//
// Invariants (the l_* assertions, asserted with P1, so proven with it): the registers,
// time, the clearing and the refresh counter equal the wrapper's; f's
// words as a read issued now sees them (the writes of the last two cycles,
// from the RAMs' write registers, applied) hold the rule's state as of the
// last touch whose loop has written; the forwarding records `w1`..`w14`
// hold the tokens of f's touches that wrote them; the stages' valid bits
// and flows say which touches of f are in flight; the multipliers'
// operands are the rule's; the refresh bounds the age of f's bucket below
// 2^stamp_bits, so the RTL's stamps taken modulo 2^stamp_bits are exact.
//
// Internal signals come through `expose` in the task script (yosys 0.70's
// read_verilog has no hierarchical references).

`default_nettype none
`include "ccrtl_pacer_params.vh"

module pacer_formal (
    input wire clk,
    input wire rst,
    input wire s_req_valid,
    input wire [`CCRTL_FLOW_BITS-1:0] s_req_flow,
    input wire [15:0] s_req_bytes,
    input wire s_rate_valid,
    input wire [`CCRTL_FLOW_BITS-1:0] s_rate_flow,
    input wire [18:0] s_rate_rc,
    input wire s_cfg_valid,
    input wire [4:0] s_cfg_addr,
    input wire [31:0] s_cfg_data
);
    localparam FB = `CCRTL_FLOW_BITS;
    localparam RS = `CCRTL_REFRESH_BITS;
    localparam TB = `CCRTL_STAMP_BITS;
    localparam PB = FB + RS;        // P = 2^PB: every flow refreshed this often
    localparam LAT = 16;            // decision latency (golden LATENCY)
    localparam HN = 30;             // touches remembered: the 16 in flight, the
                                    // 14 forwarding records (`w1`..`w14`), and
                                    // the 16 ahead of a touch at stage 14
    localparam [FB:0] F = 1 << FB;
    localparam [PB:0] P = 1 << PB;
    localparam [30:0] FULL = 31'h7fffffff;

    wire s_req_ready, s_rate_ready;
    wire m_dec_valid, m_dec_grant;
    wire [FB-1:0] m_dec_flow;

    // Exposed registers and RAM ports.
    wire [16:0] h_bucket;
    wire [13:0] h_byte_time;
    wire [18:0] h_init_rate;
    wire [TB-1:0] h_now;
    wire h_busy, h_sweep;
    wire [FB-1:0] h_ptr;
    wire [RS-1:0] h_rc;
    wire [15:1] pv;
    wire [15:1][FB-1:0] pf;
    wire [14:1][30:0] wr;
    wire w1v, w2v;
    wire [FB-1:0] w1f, w2f;
    wire tok_we, stm_we, rate_we;
    wire [FB-1:0] tok_wa, stm_wa, rate_wa;
    wire [30:0] tok_wd;
    wire [TB-1:0] stm_wd;
    wire [19:0] rate_wd;
    wire [FB-1:0] tok_fa, stm_fa, rate_fa;
    wire [30:0] tok_word;
    wire [TB-1:0] stm_word;
    wire [19:0] rate_word;
    wire tk_we1, tk_we2, sm_we1, sm_we2, rt_we1, rt_we2;
    wire [FB-1:0] tk_wa1, tk_wa2, sm_wa1, sm_wa2, rt_wa1, rt_wa2;
    wire [30:0] tk_wd1, tk_wd2;
    wire [TB-1:0] sm_wd1, sm_wd2;
    wire [19:0] rt_wd1, rt_wd2;
    wire [15:0] x_ml_a;
    wire [16:0] x_ml_b, x_mb_a, x_mb_b, x_ma_b;
    wire [25:0] x_ma_a;
    wire [18:0] h_rate6;
    // The multipliers' levels and tags, the RAMs' read registers, stages 1
    // to 5 and the last rate update (invariants on a touch of f).
    wire [959:0] ml_lv;  // s1_0..s1_8, s2_0..s2_4, s3_0..s3_2, s4_0, s4_1, s5
    wire [5:1] ml_t;
    wire [959:0] mb_lv;  // s1_0..s1_8, s2_0..s2_4, s3_0..s3_2, s4_0, s4_1, s5
    wire [5:1] mb_t;
    wire [5:1] ma_t;
    wire [5:1] g_fr;
    wire [5:1][18:0] g_frv, g_init;
    wire [15:0] g_e2;
    wire [5:3][4:0] g_dd;
    wire [FB-1:0] tok_ra, stm_ra, rate_ra;
    wire [5:2][30:0] tok_rd;
    wire [5:2][TB-1:0] stm_rd;
    wire [5:2][19:0] rate_rd;
    wire h_rwv;
    wire [FB-1:0] h_rwf;
    wire [18:0] h_rwr;
    // The stages 6 to 15 of the touch pipeline (invariants on a touch of f).
    wire [15:6][29:0] g_lu;
    wire [15:6][30:0] g_bu;
    wire [15:6] g_out;
    wire [14:3] g_hit;
    wire [13:3][15:0] g_h;
    wire [15:7] g_d1;
    wire [14:7] g_d2;
    wire [4:0] g_d6;
    wire [12:6][30:0] g_tram;
    wire [11:7][27:0] g_hi;
    wire [15:12][31:0] g_a;
    wire [14:13][32:0] g_bma, g_lma;
    wire [15:13][32:0] g_aml;
    wire [32:0] g_sum13;
    wire [30:0] g_aram14, g_xf14, g_bmc15, g_lmc15, g_y15;
    wire [15:14][30:0] g_bml;
    wire [15:14] g_gbl;

    ccrtl_pacer dut (
        .clk(clk),
        .rst(rst),
        .s_req_valid(s_req_valid),
        .s_req_ready(s_req_ready),
        .s_req_flow(s_req_flow),
        .s_req_bytes(s_req_bytes),
        .s_rate_valid(s_rate_valid),
        .s_rate_ready(s_rate_ready),
        .s_rate_flow(s_rate_flow),
        .s_rate_rc(s_rate_rc),
        .s_cfg_valid(s_cfg_valid),
        .s_cfg_addr(s_cfg_addr),
        .s_cfg_data(s_cfg_data),
        .m_dec_valid(m_dec_valid),
        .m_dec_flow(m_dec_flow),
        .m_dec_grant(m_dec_grant),
        .bucket$q(h_bucket),
        .byte_time$q(h_byte_time),
        .init_rate$q(h_init_rate),
        .now$q(h_now),
        .busy$q(h_busy),
        .ptr$q(h_ptr),
        .sweep_q$q(h_sweep),
        .rc$q(h_rc),
        .p1_valid$q(pv[1]), .p1_flow$q(pf[1]), .p2_valid$q(pv[2]), .p2_flow$q(pf[2]),
        .p3_valid$q(pv[3]), .p3_flow$q(pf[3]), .p4_valid$q(pv[4]), .p4_flow$q(pf[4]),
        .p5_valid$q(pv[5]), .p5_flow$q(pf[5]), .p6_valid$q(pv[6]), .p6_flow$q(pf[6]),
        .p7_valid$q(pv[7]), .p7_flow$q(pf[7]), .p8_valid$q(pv[8]), .p8_flow$q(pf[8]),
        .p9_valid$q(pv[9]), .p9_flow$q(pf[9]), .p10_valid$q(pv[10]), .p10_flow$q(pf[10]),
        .p11_valid$q(pv[11]), .p11_flow$q(pf[11]), .p12_valid$q(pv[12]), .p12_flow$q(pf[12]),
        .p13_valid$q(pv[13]), .p13_flow$q(pf[13]), .p14_valid$q(pv[14]), .p14_flow$q(pf[14]),
        .p15_valid$q(pv[15]), .p15_flow$q(pf[15]),
        .w1$q(wr[1]), .w2$q(wr[2]), .w3$q(wr[3]), .w4$q(wr[4]), .w5$q(wr[5]),
        .w6$q(wr[6]), .w7$q(wr[7]), .w8$q(wr[8]), .w9$q(wr[9]), .w10$q(wr[10]),
        .w11$q(wr[11]), .w12$q(wr[12]), .w13$q(wr[13]), .w14$q(wr[14]),
        .w1_valid$q(w1v), .w1_flow$q(w1f), .w2_valid$q(w2v), .w2_flow$q(w2f),
        .tok$write_enable(tok_we),
        .tok$write_address(tok_wa),
        .tok$write_data(tok_wd),
        .stm$write_enable(stm_we),
        .stm$write_address(stm_wa),
        .stm$write_data(stm_wd),
        .rate$write_enable(rate_we),
        .rate$write_address(rate_wa),
        .rate$write_data(rate_wd),
        .\tok.formal_addr (tok_fa),
        .\stm.formal_addr (stm_fa),
        .\rate.formal_addr (rate_fa),
        .\tok.formal_word_a (tok_word),
        .\stm.formal_word_a (stm_word),
        .\rate.formal_word_a (rate_word),
        .ml$a(x_ml_a), .ml$b(x_ml_b), .mb$a(x_mb_a), .mb$b(x_mb_b),
        .\tok.we (tk_we1), .\tok.wa (tk_wa1), .\tok.wd (tk_wd1),
        .\tok.a_we0 (tk_we2), .\tok.a_wa0 (tk_wa2), .\tok.a_wd0 (tk_wd2),
        .\stm.we (sm_we1), .\stm.wa (sm_wa1), .\stm.wd (sm_wd1),
        .\stm.a_we0 (sm_we2), .\stm.a_wa0 (sm_wa2), .\stm.a_wd0 (sm_wd2),
        .\rate.we (rt_we1), .\rate.wa (rt_wa1), .\rate.wd (rt_wd1),
        .\rate.a_we0 (rt_we2), .\rate.a_wa0 (rt_wa2), .\rate.a_wd0 (rt_wd2),
        .p6_lu$q(g_lu[6]), .p6_bu$q(g_bu[6]), .p6_out$q(g_out[6]), .p7_lu$q(g_lu[7]),
        .p7_bu$q(g_bu[7]), .p7_out$q(g_out[7]), .p8_lu$q(g_lu[8]), .p8_bu$q(g_bu[8]),
        .p8_out$q(g_out[8]), .p9_lu$q(g_lu[9]), .p9_bu$q(g_bu[9]), .p9_out$q(g_out[9]),
        .p10_lu$q(g_lu[10]), .p10_bu$q(g_bu[10]), .p10_out$q(g_out[10]), .p11_lu$q(g_lu[11]),
        .p11_bu$q(g_bu[11]), .p11_out$q(g_out[11]), .p12_lu$q(g_lu[12]), .p12_bu$q(g_bu[12]),
        .p12_out$q(g_out[12]), .p13_lu$q(g_lu[13]), .p13_bu$q(g_bu[13]), .p13_out$q(g_out[13]),
        .p14_lu$q(g_lu[14]), .p14_bu$q(g_bu[14]), .p14_out$q(g_out[14]), .p15_lu$q(g_lu[15]),
        .p15_bu$q(g_bu[15]), .p15_out$q(g_out[15]), .p6_hit$q(g_hit[6]), .p7_hit$q(g_hit[7]),
        .p8_hit$q(g_hit[8]), .p9_hit$q(g_hit[9]), .p10_hit$q(g_hit[10]), .p11_hit$q(g_hit[11]),
        .p12_hit$q(g_hit[12]), .p13_hit$q(g_hit[13]), .p14_hit$q(g_hit[14]), .p6_h$q(g_h[6]),
        .p7_h$q(g_h[7]), .p8_h$q(g_h[8]), .p9_h$q(g_h[9]), .p10_h$q(g_h[10]),
        .p11_h$q(g_h[11]), .p12_h$q(g_h[12]), .p13_h$q(g_h[13]), .p7_d1$q(g_d1[7]),
        .p7_d2$q(g_d2[7]), .p8_d1$q(g_d1[8]), .p8_d2$q(g_d2[8]), .p9_d1$q(g_d1[9]),
        .p9_d2$q(g_d2[9]), .p10_d1$q(g_d1[10]), .p10_d2$q(g_d2[10]), .p11_d1$q(g_d1[11]),
        .p11_d2$q(g_d2[11]), .p12_d1$q(g_d1[12]), .p12_d2$q(g_d2[12]), .p13_d1$q(g_d1[13]),
        .p13_d2$q(g_d2[13]), .p14_d1$q(g_d1[14]), .p14_d2$q(g_d2[14]), .p15_d1$q(g_d1[15]),
        .p6_tram$q(g_tram[6]), .p7_tram$q(g_tram[7]), .p8_tram$q(g_tram[8]), .p9_tram$q(g_tram[9]),
        .p10_tram$q(g_tram[10]), .p11_tram$q(g_tram[11]), .p12_tram$q(g_tram[12]), .p7_hi$q(g_hi[7]),
        .p8_hi$q(g_hi[8]), .p9_hi$q(g_hi[9]), .p10_hi$q(g_hi[10]), .p11_hi$q(g_hi[11]),
        .p12_a$q(g_a[12]), .p13_a$q(g_a[13]), .p14_a$q(g_a[14]), .p15_a$q(g_a[15]),
        .p6_d$q(g_d6), .p13_bma$q(g_bma[13]), .p13_aml$q(g_aml[13]), .p13_lma$q(g_lma[13]),
        .p14_bma$q(g_bma[14]), .p14_aml$q(g_aml[14]), .p14_lma$q(g_lma[14]), .p13_sum$q(g_sum13),
        .p14_aram$q(g_aram14), .p14_xf$q(g_xf14), .p14_bml$q(g_bml[14]), .p14_gbl$q(g_gbl[14]),
        .p15_bml$q(g_bml[15]), .p15_gbl$q(g_gbl[15]), .p15_aml$q(g_aml[15]), .p15_bmc$q(g_bmc15),
        .p15_lmc$q(g_lmc15), .p15_y$q(g_y15),
        .\ml.s1_0$q (ml_lv[47:0]), .\ml.s1_1$q (ml_lv[95:48]), .\ml.s1_2$q (ml_lv[143:96]),
        .\ml.s1_3$q (ml_lv[191:144]), .\ml.s1_4$q (ml_lv[239:192]), .\ml.s1_5$q (ml_lv[287:240]),
        .\ml.s1_6$q (ml_lv[335:288]), .\ml.s1_7$q (ml_lv[383:336]), .\ml.s1_8$q (ml_lv[431:384]),
        .\ml.s2_0$q (ml_lv[479:432]), .\ml.s2_1$q (ml_lv[527:480]), .\ml.s2_2$q (ml_lv[575:528]),
        .\ml.s2_3$q (ml_lv[623:576]), .\ml.s2_4$q (ml_lv[671:624]), .\ml.s3_0$q (ml_lv[719:672]),
        .\ml.s3_1$q (ml_lv[767:720]), .\ml.s3_2$q (ml_lv[815:768]), .\ml.s4_0$q (ml_lv[863:816]),
        .\ml.s4_1$q (ml_lv[911:864]), .\ml.s5$q (ml_lv[959:912]), .\ml.t1$q (ml_t[1]),
        .\ml.t2$q (ml_t[2]), .\ml.t3$q (ml_t[3]), .\ml.t4$q (ml_t[4]),
        .\ml.t5$q (ml_t[5]), .\mb.s1_0$q (mb_lv[47:0]), .\mb.s1_1$q (mb_lv[95:48]),
        .\mb.s1_2$q (mb_lv[143:96]), .\mb.s1_3$q (mb_lv[191:144]), .\mb.s1_4$q (mb_lv[239:192]),
        .\mb.s1_5$q (mb_lv[287:240]), .\mb.s1_6$q (mb_lv[335:288]), .\mb.s1_7$q (mb_lv[383:336]),
        .\mb.s1_8$q (mb_lv[431:384]), .\mb.s2_0$q (mb_lv[479:432]), .\mb.s2_1$q (mb_lv[527:480]),
        .\mb.s2_2$q (mb_lv[575:528]), .\mb.s2_3$q (mb_lv[623:576]), .\mb.s2_4$q (mb_lv[671:624]),
        .\mb.s3_0$q (mb_lv[719:672]), .\mb.s3_1$q (mb_lv[767:720]), .\mb.s3_2$q (mb_lv[815:768]),
        .\mb.s4_0$q (mb_lv[863:816]), .\mb.s4_1$q (mb_lv[911:864]), .\mb.s5$q (mb_lv[959:912]),
        .\mb.t1$q (mb_t[1]), .\mb.t2$q (mb_t[2]), .\mb.t3$q (mb_t[3]),
        .\mb.t4$q (mb_t[4]), .\mb.t5$q (mb_t[5]), .\ma.t1$q (ma_t[1]),
        .\ma.t2$q (ma_t[2]), .\ma.t3$q (ma_t[3]), .\ma.t4$q (ma_t[4]),
        .\ma.t5$q (ma_t[5]), .\tok.a_ra0 (tok_ra), .\tok.a_q0_0 (tok_rd[2]),
        .\tok.a_o0_0 (tok_rd[3]), .\tok.a_f0_0 (tok_rd[4]), .tok$read_data_a (tok_rd[5]),
        .\stm.a_ra0 (stm_ra), .\stm.a_q0_0 (stm_rd[2]), .\stm.a_o0_0 (stm_rd[3]),
        .\stm.a_f0_0 (stm_rd[4]), .stm$read_data_a (stm_rd[5]), .\rate.a_ra0 (rate_ra),
        .\rate.a_q0_0 (rate_rd[2]), .\rate.a_o0_0 (rate_rd[3]), .\rate.a_f0_0 (rate_rd[4]),
        .rate$read_data_a (rate_rd[5]), .p1_fr$q(g_fr[1]), .p1_frv$q(g_frv[1]),
        .p1_init$q(g_init[1]), .p2_fr$q(g_fr[2]), .p2_frv$q(g_frv[2]),
        .p2_init$q(g_init[2]), .p3_fr$q(g_fr[3]), .p3_frv$q(g_frv[3]),
        .p3_init$q(g_init[3]), .p4_fr$q(g_fr[4]), .p4_frv$q(g_frv[4]),
        .p4_init$q(g_init[4]), .p5_fr$q(g_fr[5]), .p5_frv$q(g_frv[5]),
        .p5_init$q(g_init[5]), .p2_e$q(g_e2), .p3_hit$q(g_hit[3]),
        .p3_h$q(g_h[3]), .p3_d$q(g_dd[3]), .p4_hit$q(g_hit[4]),
        .p4_h$q(g_h[4]), .p4_d$q(g_dd[4]), .p5_hit$q(g_hit[5]),
        .p5_h$q(g_h[5]), .p5_d$q(g_dd[5]), .rw_valid$q(h_rwv),
        .rw_flow$q(h_rwf), .rw_rc$q(h_rwr),
        .ma$a(x_ma_a), .ma$b(x_ma_b), .p6_rate$q(h_rate6)
    );

    // ---- The contract's assumption ------------------------------------------
    reg f_past = 1'b0;
    always @(posedge clk) f_past <= 1'b1;
    always @(*) if (!f_past) assume(rst);

    // The tracked flow: the address every RAM keeps.
    wire [FB-1:0] f = tok_fa;
    always @(*) assume(stm_fa == f && rate_fa == f);

    // ---- The rule (docs/pacer.md) ---------------------------------------------
    // The registers in force, time since the reset, the clearing's count,
    // and `sh_j`, the cycles since the clearing ended (the refresh's count).
    reg [16:0] sh_bucket;
    reg [13:0] sh_bt;
    reg [18:0] sh_init;
    reg [TB-1:0] sh_now;
    reg [FB:0] sh_left;
    reg [PB-1:0] sh_j;
    wire sh_busy = sh_left != 0;
    wire wr_bucket = !rst && s_cfg_valid && s_cfg_addr == 5'd0;
    wire wr_bt = !rst && s_cfg_valid && s_cfg_addr == 5'd1;
    wire wr_init = !rst && s_cfg_valid && s_cfg_addr == 5'd2;
    always @(posedge clk) begin
        if (rst) begin
            sh_bucket <= `CCRTL_RESET_BUCKET;
            sh_bt <= `CCRTL_RESET_BYTE_TIME;
            sh_init <= `CCRTL_RESET_INIT_RATE;
            sh_now <= 0;
            sh_left <= F;
            sh_j <= 0;
        end else begin
            if (wr_bucket) sh_bucket <= s_cfg_data[16:0];
            if (wr_bt) sh_bt <= s_cfg_data[13:0];
            if (wr_init) sh_init <= s_cfg_data[18:0];
            sh_now <= sh_now + 1'b1;
            if (sh_busy)
                sh_left <= sh_left - 1'b1;
            else
                sh_j <= sh_j + 1'b1;
        end
    end

    // Refresh cycles: j mod 2^RS = 2^RS - 1, flow floor(j / 2^RS) mod F.
    wire refresh = !sh_busy && sh_j[RS-1:0] == {RS{1'b1}};
    wire [FB-1:0] ref_flow = sh_j[PB-1:RS];
    wire req_ready = !sh_busy && !refresh;
    wire accept = s_req_valid && req_ready && !rst;
    wire rate_accept = s_rate_valid && !sh_busy && !rst;
    wire req_f = accept && s_req_flow == f;
    wire touch_f = req_f || (!rst && refresh && ref_flow == f);

    // f's rate: the last rate update accepted for it since the reset.
    reg sh_rv;
    reg [18:0] sh_r;
    always @(posedge clk)
        if (rst)
            sh_rv <= 1'b0;
        else if (rate_accept && s_rate_flow == f) begin
            sh_rv <= 1'b1;
            sh_r <= s_rate_rc;
        end
    wire [18:0] rate_now = sh_rv ? sh_r : sh_init;

    // PipeMul's registers for a x b (a zero-extended, b 17 bits), level by
    // level, in the layout of the exposed levels (s1_0..s1_8, s2_0..s2_4,
    // s3_0..s3_2, s4_0, s4_1, s5 from bit 0 up): the rows
    // b[j] ? a << j : 0, j = 0..16 (a b = sum_j b_j 2^j a, modulo 2^48),
    // added in pairs in PipeMul's order (hdl/src/mul.rs), which lets the
    // solver see the RTL's pipelined sums as these terms, one level per
    // cycle, instead of proving a multiplier equal to another (docs/formal.md
    // "PACER", "The multipliers"). The level invariants (l_lv_*) compare
    // them with the RTL's registers.
    function [959:0] mr_lv(input [47:0] a, input [16:0] b);
        reg [47:0] r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14, r15, r16;
        reg [47:0] s1_0, s1_1, s1_2, s1_3, s1_4, s1_5, s1_6, s1_7, s1_8;
        reg [47:0] s2_0, s2_1, s2_2, s2_3, s2_4, s3_0, s3_1, s3_2, s4_0, s4_1;
        begin
            r0 = b[0] ? a : 48'd0;   r1 = b[1] ? a : 48'd0;   r2 = b[2] ? a : 48'd0;
            r3 = b[3] ? a : 48'd0;   r4 = b[4] ? a : 48'd0;   r5 = b[5] ? a : 48'd0;
            r6 = b[6] ? a : 48'd0;   r7 = b[7] ? a : 48'd0;   r8 = b[8] ? a : 48'd0;
            r9 = b[9] ? a : 48'd0;   r10 = b[10] ? a : 48'd0; r11 = b[11] ? a : 48'd0;
            r12 = b[12] ? a : 48'd0; r13 = b[13] ? a : 48'd0; r14 = b[14] ? a : 48'd0;
            r15 = b[15] ? a : 48'd0; r16 = b[16] ? a : 48'd0;
            s1_0 = r0 + (r1 << 1);   s1_1 = r2 + (r3 << 1);   s1_2 = r4 + (r5 << 1);
            s1_3 = r6 + (r7 << 1);   s1_4 = r8 + (r9 << 1);   s1_5 = r10 + (r11 << 1);
            s1_6 = r12 + (r13 << 1); s1_7 = r14 + (r15 << 1); s1_8 = r16;
            s2_0 = s1_0 + (s1_1 << 2); s2_1 = s1_2 + (s1_3 << 2);
            s2_2 = s1_4 + (s1_5 << 2); s2_3 = s1_6 + (s1_7 << 2); s2_4 = s1_8;
            s3_0 = s2_0 + (s2_1 << 4); s3_1 = s2_2 + (s2_3 << 4); s3_2 = s2_4;
            s4_0 = s3_0 + (s3_1 << 8); s4_1 = s3_2 << 16;
            mr_lv = {s4_0 + s4_1, s4_1, s4_0, s3_2, s3_1, s3_0, s2_4, s2_3, s2_2, s2_1, s2_0,
                     s1_8, s1_7, s1_6, s1_5, s1_4, s1_3, s1_2, s1_1, s1_0};
        end
    endfunction

    // a x b: the last level of mr_lv (s5).
    function [47:0] mul_rows(input [47:0] a, input [16:0] b);
        reg [959:0] lv;
        begin
            lv = mr_lv(a, b);
            mul_rows = lv[959:912];
        end
    endfunction

    // R x age = (R mod 2^17) x age + ((R div 2^17) x age) 2^17, the second
    // by cases: 0, age, 2 age, 3 age = age + 2 age (PipeMul `ma` takes R's
    // low 17 bits, the RTL adds the rest at stage 11: hdl/src/pacer.rs).
    function [47:0] r_times_age(input [25:0] age, input [18:0] r);
        reg [27:0] age28, hi;
        begin
            age28 = {2'b0, age};
            hi = 28'd0;
            if (r[17] && !r[18])
                hi = age28;
            if (!r[17] && r[18])
                hi = age28 << 1;
            if (r[17] && r[18])
                hi = age28 + (age28 << 1);
            r_times_age = mul_rows({22'b0, age}, r[16:0]) + ({20'b0, hi} << 17);
        end
    endfunction

    // The products of the rule, D = bucket x byte_time and C = L x
    // byte_time (0 for a refresh), of the registers in force in this cycle.
    // Their operands are the RTL's multiplier inputs, which the l_op_*
    // assertions prove are the rule's: `bucket` and `byte_time` in force,
    // and f's request's L (0 for f's refresh) in a touch of f.
    wire [47:0] depth48 = mul_rows({31'b0, x_mb_a}, x_mb_b);
    wire [47:0] cost48 = mul_rows({32'b0, x_ml_a}, x_ml_b);
    wire [30:0] depth = depth48[30:0];
    wire [29:0] cost = cost48[29:0];

    // f's bucket at a touch, as bookkeeping: touched since the reset, and
    // the cycles since the last touch (1 in the cycle after; saturating).
    reg sh_touched;
    reg [TB-1:0] sh_age;
    always @(posedge clk) begin
        if (rst)
            sh_touched <= 1'b0;
        else if (touch_f)
            sh_touched <= 1'b1;
        if (!rst && touch_f)
            sh_age <= 1;
        else if (sh_age != {TB{1'b1}})
            sh_age <= sh_age + 1'b1;
    end

    // The touches of f in flight and remembered: h_t[k] in cycle n + k is
    // a touch of f in cycle n; h_req[k]: it was a request. q_*[k]: the
    // rule's values of cycle n (rate, age, touched before, D, C). A reset
    // drops the touches.
    reg [HN:1] h_t;
    reg [LAT:1] h_req;
    reg [LAT:1] q_touched;
    reg [LAT:1][18:0] q_rate;
    reg [LAT:1][TB-1:0] q_age;
    reg [LAT:1][30:0] q_depth;
    reg [LAT:1][29:0] q_cost;
    always @(posedge clk) begin
        if (rst) begin
            h_t <= 0;
            h_req <= 0;
        end else begin
            h_t <= {h_t[HN-1:1], touch_f};
            h_req <= {h_req[LAT-1:1], req_f};
        end
        q_touched <= {q_touched[LAT-1:1], sh_touched};
        q_rate <= {q_rate[LAT-1:1], rate_now};
        q_age <= {q_age[LAT-1:1], sh_age};
        q_depth <= {q_depth[LAT-1:1], depth};
        q_cost <= {q_cost[LAT-1:1], cost};
    end

    // The rule's arithmetic for the touch of f of cycle n, done in cycle
    // n + 6 (the touches of f in order, so `lT` then holds the tokens
    // after f's previous touch): avail = min(D, T + R x (n - m)), or D
    // when f was not touched since the reset; the grant; the tokens
    // after. R x (n - m) is computed on the RTL's stage-6 multiplier
    // inputs (the age, or the distance to the touch ahead, and R), which
    // l_rate6 and l_age6 prove are the rule's R and n - m.
    localparam ST = 6;
    wire [47:0] earned = r_times_age(x_ma_a, {h_rate6[18:17], x_ma_b});
    reg [30:0] lT;
    wire [48:0] filled = {18'b0, lT} + {1'b0, earned};
    wire [30:0] avail = !q_touched[ST] || filled >= {18'b0, q_depth[ST]} ? q_depth[ST] : filled[30:0];
    wire grant = avail >= q_cost[ST];
    wire [30:0] t_after = grant ? avail - q_cost[ST] : avail;
    always @(posedge clk)
        if (h_t[ST])
            lT <= t_after;
    // From stage 7 on: h_T[k] the tokens after the touch of k cycles ago,
    // h_g[k] its grant, h_av[k] its avail.
    reg [HN:ST+1][30:0] h_T;
    reg [LAT:ST+1] h_g;
    reg [LAT:ST+1][30:0] h_av;
    always @(posedge clk) begin
        h_T <= {h_T[HN-1:ST+1], t_after};
        h_g <= {h_g[LAT-1:ST+1], grant};
        h_av <= {h_av[LAT-1:ST+1], avail};
    end


    // ---- A touch of f at stages 7 to 15 --------------------------------------------
    // Recorded at stage 6 and carried along with the touch, so that each
    // stage's registers have the rule's values to be compared with (the
    // invariants l_s*, which let the induction step start in any cycle of
    // a touch instead of at its stage 0): `h_pT`, the tokens after f's
    // previous touch (`lT` at stage 6); `h_ea`, R x (n - m) (`earned`);
    // `h_hi`, its high part as the RTL carries it to stage 11.
    wire [27:0] age28 = {2'b0, x_ma_a};
    wire [27:0] hi6 = (h_rate6[17] && !h_rate6[18]) ? age28
        : (!h_rate6[17] && h_rate6[18]) ? age28 << 1
        : (h_rate6[17] && h_rate6[18]) ? age28 + (age28 << 1) : 28'd0;
    reg [LAT-1:ST+1][30:0] h_pT;
    reg [LAT-1:ST+1][47:0] h_ea;
    reg [11:ST+1][27:0] h_hi;
    always @(posedge clk) begin
        h_pT <= {h_pT[LAT-2:ST+1], lT};
        h_ea <= {h_ea[LAT-2:ST+1], earned};
        h_hi <= {h_hi[10:ST+1], hi6};
    end
    // The rule's avail from the recorded values (as `avail` at stage 6).
    function [30:0] avail_of(input touched, input [30:0] t, input [47:0] e, input [30:0] d);
        reg [48:0] fl;
        begin
            fl = {18'b0, t} + {1'b0, e};
            avail_of = !touched || fl >= {18'b0, d} ? d : fl[30:0];
        end
    endfunction
    // R x (n - m) as stage 11 saturates it.
    function [31:0] sat_a(input [47:0] e);
        sat_a = |e[47:31] ? 32'h80000000 : e[31:0];
    endfunction
    // The distance to the newest touch ahead (0: none).
    function [4:0] dist_of(input [15:0] ah);
        integer i;
        begin
            dist_of = 5'd0;
            for (i = 15; i >= 0; i = i - 1)
                if (ah[i])
                    dist_of = i + 1;
        end
    endfunction

    // ---- P1: the rule -----------------------------------------------------------
`ifdef CHECK_P1
    always @(*)
        if (f_past) begin
            p1_decided: assert((m_dec_valid && m_dec_flow == f) == h_req[LAT]);
            if (h_req[LAT])
                p1_grant: assert(m_dec_grant == h_g[LAT]);
        end
`endif

    // ---- P2: idle outputs are 0 ---------------------------------------------------
`ifdef CHECK_P2
    always @(*)
        if (f_past && !m_dec_valid)
            p2_idle_zero: assert(m_dec_flow == 0 && !m_dec_grant);
`endif

    // ---- P3: ready -------------------------------------------------------------------
`ifdef CHECK_P3
    always @(*)
        if (f_past) begin
            p3_req_ready: assert(s_req_ready == req_ready);
            p3_rate_ready: assert(s_rate_ready == !sh_busy);
        end
`endif

    // ---- Invariants (asserted with P1; the clearing's with P3 too) ---------------------
`ifdef CHECK_P1
`define F_LEMMAS
`define F_CLEAR_LEMMAS
`endif
`ifdef CHECK_P3
`define F_CLEAR_LEMMAS
`endif

`ifdef F_CLEAR_LEMMAS
    always @(*)
        if (f_past) begin
            l_busy: assert(h_busy == sh_busy);
            l_sweep: assert(h_sweep == (sh_left >= 2));
            l_now: assert(h_now == sh_now);
            if (sh_busy) begin
                l_ptr_clear: assert(h_ptr == sh_now[FB-1:0] + 1'b1);
                l_count: assert({1'b0, sh_now} + sh_left == F);
                l_j_clear: assert(sh_j == 0);
            end else begin
                l_ptr: assert(h_ptr == ref_flow);
                l_rc: assert(h_rc == sh_j[RS-1:0]);
            end
        end
`endif

`ifdef F_LEMMAS
    always @(*)
        if (f_past) begin
            l_bucket: assert(h_bucket == sh_bucket);
            l_byte_time: assert(h_byte_time == sh_bt);
            l_init_rate: assert(h_init_rate == sh_init);
        end

    // The writes to f issued in the last two cycles, newest first, as
    // the RAMs' write registers hold them (a write lands in the word two
    // cycles after it is issued): the first register (`we`, `wa`, `wd`),
    // then the copy's (`a_we0`, `a_wa0`, `a_wd0`).
    wire t1 = tk_we1 && tk_wa1 == f, t2 = tk_we2 && tk_wa2 == f;
    wire s1 = sm_we1 && sm_wa1 == f, s2 = sm_we2 && sm_wa2 == f;
    wire r1 = rt_we1 && rt_wa1 == f, r2 = rt_we2 && rt_wa2 == f;
    wire [30:0] t1d = tk_wd1, t2d = tk_wd2;
    wire [TB-1:0] s1d = sm_wd1, s2d = sm_wd2;
    wire [19:0] r1d = rt_wd1, r2d = rt_wd2;
    // f's words as a read issued now sees them.
    wire [30:0] e_tok = t1 ? t1d : t2 ? t2d : tok_word;
    wire [TB-1:0] e_stm = s1 ? s1d : s2 ? s2d : stm_word;
    wire [19:0] e_rate = r1 ? r1d : r2 ? r2d : rate_word;

    // The clearing has written f (flow 0 in the reset cycle, flow p in the
    // p-th cycle after it).
    wire [FB-1:0] clear_ptr = sh_now[FB-1:0] + 1'b1;
    wire passed = !sh_busy || clear_ptr == 0 || f < clear_ptr;

    // The newest touch of f remembered, among all (`nb`) and among those
    // whose loop has written f's words (`nw`, 16 cycles ago or more).
    wire [HN+1:1] none_b, none_w;
    assign none_b[1] = 1'b1;
    assign none_w[LAT] = 1'b1;
    genvar k, j;
    generate
        for (k = 1; k <= HN; k = k + 1) begin : g_none_b
            assign none_b[k+1] = none_b[k] && !h_t[k];
        end
        for (k = LAT; k <= HN; k = k + 1) begin : g_none_w
            assign none_w[k+1] = none_w[k] && !h_t[k];
        end
    endgenerate

    // Cycles until f's next refresh.
    wire [PB-1:0] to_refresh = {f, {RS{1'b1}}} - sh_j;

    always @(*)
        if (f_past) begin
            // The rule's own state and its memory of the touches agree.
            l_busy_untouched: assert(!sh_busy || (!sh_touched && h_t == 0 && h_req == 0));
            l_req_touch: assert((h_req & ~h_t[LAT:1]) == 0);
            if (!none_b[HN+1])
                l_touched: assert(sh_touched);
            // Every flow is touched at least every P cycles: the age of a
            // touched bucket never reaches 2^stamp_bits.
            if (sh_touched)
                l_age: assert({1'b0, sh_age} + to_refresh <= P);
            // The rate word.
            if (passed) begin
                l_rate_valid: assert(e_rate[19] == sh_rv);
                if (sh_rv)
                    l_rate: assert(e_rate[18:0] == sh_r);
            end
            // The tokens and the stamp, once the last touch's loop has
            // written them, or full when f was not touched since the reset.
            if (passed && none_w[HN+1] && none_b[LAT]) begin
                if (sh_touched) begin
                    l_tok_rule: assert(e_tok == lT);
                    l_stamp_rule: assert(sh_now - e_stm == sh_age - 5'd15);
                end else
                    l_tok_full: assert(e_tok == FULL);
            end
        end

    // Per touch remembered, as a bit per k (one labelled assertion each).
    // The newest touch of f whose arithmetic is done (stage 7 or later).
    wire [HN+1:ST+1] none_l;
    assign none_l[ST+1] = 1'b1;
    generate
        for (k = ST + 1; k <= HN; k = k + 1) begin : g_none_l
            assign none_l[k+1] = none_l[k] && !h_t[k];
        end
    endgenerate
    wire [HN:1] ok_hist_T, ok_hist_age, ok_tok, ok_stamp, ok_record, ok_stage;
    generate
        for (k = 1; k <= HN; k = k + 1) begin : g_hist
            wire newest = h_t[k] && none_b[k];
            // lT holds the tokens after the newest touch past stage 6.
            if (k > ST) begin : g_lT
                assign ok_hist_T[k] = !(h_t[k] && none_l[k]) || lT == h_T[k];
            end else begin : g_no_lT
                assign ok_hist_T[k] = 1'b1;
            end
            assign ok_hist_age[k] = !newest || sh_age == k;
            // f's words show the newest touch whose loop has written.
            if (k >= LAT) begin : g_written
                wire written = h_t[k] && none_w[k];
                assign ok_tok[k] = !written || e_tok == h_T[k];
                // Modulo 2^stamp_bits, as the RTL takes it.
                wire [TB-1:0] st_age = sh_now - e_stm;
                assign ok_stamp[k] = !written || st_age == k - 15;
            end else begin : g_flight
                assign ok_tok[k] = 1'b1;
                assign ok_stamp[k] = 1'b1;
            end
            // The forwarding records: `w(j)` holds the tokens of the loop
            // j cycles ago, the touch of 15 + j cycles ago.
            if (k >= LAT && k <= LAT + 13) begin : g_record
                assign ok_record[k] = !h_t[k] || wr[k-15] == h_T[k];
            end else begin : g_no_record
                assign ok_record[k] = 1'b1;
            end
            // The touches in flight (after the clearing, when the stages
            // hold nothing from before the reset).
            if (k <= 15) begin : g_stage
                assign ok_stage[k] = sh_busy || (pv[k] && pf[k] == f) == h_t[k];
            end else begin : g_no_stage
                assign ok_stage[k] = 1'b1;
            end
        end
    endgenerate
    always @(*)
        if (f_past) begin
            l_hist_T: assert(&ok_hist_T);
            l_hist_age: assert(&ok_hist_age);
            l_tok: assert(&ok_tok);
            l_stamp: assert(&ok_stamp);
            l_record: assert(&ok_record);
            l_stage: assert(&ok_stage);
        end
    // The multipliers' operands are the rule's: D's and C's in every cycle
    // (C's in a touch of f), R x (n - m)'s at stage 6 of a touch of f.
    always @(*)
        if (f_past) begin
            l_op_bucket: assert(x_mb_a == sh_bucket && x_mb_b == {3'b0, sh_bt});
            l_op_bt: assert(x_ml_b == {3'b0, sh_bt});
            if (touch_f)
                l_op_bytes: assert(x_ml_a == (req_f ? s_req_bytes : 16'd0));
            if (h_t[ST]) begin
                l_rate6: assert(h_rate6 == q_rate[ST]);
                if (q_touched[ST])
                    l_age6: assert(x_ma_a == {{(26-TB){1'b0}}, q_age[ST]});
            end
        end

    // ---- The stages of a touch of f -------------------------------------------------
    // For a touch of f at stage k (h_t[k]): the touches ahead of it (the
    // 16 compared at stage 1), the newest one-hot and its distance.
    wire [14:1] c_hit;
    wire [14:1][15:0] c_h;
    wire [4:0] c_d6 = dist_of(h_t[ST+16:ST+1]);
    generate
        for (k = 1; k <= 14; k = k + 1) begin : g_ahead
            wire [15:0] ah = h_t[k+16:k+1];
            assign c_hit[k] = |ah;
            assign c_h[k] = ah & (~ah + 16'd1);
        end
    endgenerate
    // The wrapper's own records agree: avail, grant and tokens after are
    // those of the recorded values, and the tokens before are those after
    // the newest touch ahead (which was then a touch, so f was touched).
    wire [15:ST+1] ok_w_av, ok_w_link;
    generate
        for (k = ST + 1; k <= 15; k = k + 1) begin : g_wrec
            wire [30:0] av = avail_of(q_touched[k], h_pT[k], h_ea[k], q_depth[k]);
            wire gr = h_av[k] >= q_cost[k];
            wire [30:0] ta = gr ? h_av[k] - q_cost[k] : h_av[k];
            assign ok_w_av[k] = !h_t[k] || (h_av[k] == av && h_g[k] == gr && h_T[k] == ta);
            wire [HN-k:1] lk;
            wire [HN-k:0] nb;
            assign nb[0] = 1'b1;
            for (j = 1; j <= HN - k; j = j + 1) begin : g_link
                assign nb[j] = nb[j-1] && !h_t[k+j];
                assign lk[j] = !(h_t[k+j] && nb[j-1])
                    || (h_pT[k] == h_T[k+j] && q_touched[k]);
            end
            assign ok_w_link[k] = !h_t[k] || &lk;
        end
    endgenerate
    // The RTL's registers of the touch at stage k.
    wire [15:ST] ok_s_ops;
    wire [14:ST] ok_s_hit;
    wire [13:ST] ok_s_h;
    wire [15:ST+1] ok_s_d;
    wire [12:ST] ok_s_tram;
    wire [11:ST+1] ok_s_hi;
    wire [15:12] ok_s_a;
    generate
        for (k = ST; k <= 15; k = k + 1) begin : g_stage_regs
            assign ok_s_ops[k] = !h_t[k]
                || (g_lu[k] == q_cost[k] && g_bu[k] == q_depth[k] && g_out[k] == h_req[k]);
            if (k <= 14) begin : gs_hit
                assign ok_s_hit[k] = !h_t[k] || g_hit[k] == c_hit[k];
            end
            if (k <= 13) begin : gs_h
                assign ok_s_h[k] = !h_t[k] || g_h[k] == c_h[k];
            end
            if (k > ST && k <= 14) begin : gs_d12
                assign ok_s_d[k] = !h_t[k]
                    || (g_d1[k] == h_t[k+1] && g_d2[k] == (!h_t[k+1] && h_t[k+2]));
            end
            if (k == 15) begin : gs_d15
                assign ok_s_d[k] = !h_t[k] || g_d1[k] == h_t[k+1];
            end
            // T_ram: the tokens after the previous touch when none is
            // ahead (it has written), full when f was not touched.
            if (k <= 12) begin : gs_tram
                if (k == ST) begin : g_t6
                    assign ok_s_tram[k] = !h_t[k] || c_hit[k]
                        || g_tram[k] == (q_touched[k] ? lT : FULL);
                end else begin : g_t7
                    assign ok_s_tram[k] = !h_t[k] || c_hit[k]
                        || g_tram[k] == (q_touched[k] ? h_pT[k] : FULL);
                end
            end
            if (k > ST && k <= 11) begin : gs_hi
                assign ok_s_hi[k] = !h_t[k] || g_hi[k] == h_hi[k];
            end
            if (k >= 12) begin : gs_a
                assign ok_s_a[k] = !h_t[k] || g_a[k] == sat_a(h_ea[k]);
            end
        end
    endgenerate
    // The sums of stages 12 to 14, from the stage's own registers.
    wire [32:0] bma15 = {2'b0, g_bu[15]} - {1'b0, g_a[15]};
    wire [32:0] lma15 = {3'b0, g_lu[15]} - {1'b0, g_a[15]};
    wire [14:13] ok_s_diff;
    generate
        for (k = 13; k <= 14; k = k + 1) begin : g_diff
            assign ok_s_diff[k] = !h_t[k]
                || (g_bma[k] == {2'b0, g_bu[k]} - {1'b0, g_a[k]}
                    && g_aml[k] == {1'b0, g_a[k]} - {3'b0, g_lu[k]}
                    && g_lma[k] == {3'b0, g_lu[k]} - {1'b0, g_a[k]});
        end
    endgenerate
    always @(*)
        if (f_past) begin
            l_w_av: assert(&ok_w_av);
            l_w_link: assert(&ok_w_link);
            l_s_ops: assert(&ok_s_ops);
            l_s_hit: assert(&ok_s_hit);
            l_s_h: assert(&ok_s_h);
            l_s_d: assert(&ok_s_d);
            l_s_d6: assert(!h_t[ST] || g_d6 == c_d6);
            l_s_tram: assert(&ok_s_tram);
            l_s_hi: assert(&ok_s_hi);
            l_s_a: assert(&ok_s_a);
            l_s_diff: assert(&ok_s_diff);
            if (h_t[13] && !c_hit[13])
                l_s_sum13: assert(g_sum13
                    == {2'b0, q_touched[13] ? h_pT[13] : FULL} + {1'b0, g_a[13]});
            if (h_t[14]) begin
                if (!c_hit[14])
                    l_s_aram14: assert(g_aram14 == h_av[14]);
                l_s_xf14: assert(g_xf14
                    == (c_hit[14] && !h_t[15] && !h_t[16] ? h_pT[14] : 31'd0));
                l_s_bml14: assert(g_bml[14] == g_bu[14] - {1'b0, g_lu[14]}
                    && g_gbl[14] == (g_bu[14] >= {1'b0, g_lu[14]}));
            end
            if (h_t[15]) begin
                l_s_bml15: assert(g_bml[15] == g_bu[15] - {1'b0, g_lu[15]}
                    && g_gbl[15] == (g_bu[15] >= {1'b0, g_lu[15]}));
                l_s_aml15: assert(g_aml[15] == {1'b0, g_a[15]} - {3'b0, g_lu[15]});
                l_s_bmc15: assert(g_bmc15 == (bma15[32] || !g_d1[15] ? 31'd0 : bma15[30:0]));
                l_s_lmc15: assert(g_lmc15 == (lma15[32] ? 31'd0 : lma15[30:0]));
                if (!h_t[16])
                    l_s_y15: assert(g_y15 == h_av[15]);
            end
        end
    // The clearing drains the stages: a reset clears stages 6 and 12 to 15
    // (and the products' tags), the loop's records follow them, and the
    // touches in stages 1 to 5 and 7 to 11 (which a reset keeps) leave
    // within 5 cycles; no touch enters while the table is cleared.
    always @(*)
        if (f_past && sh_busy) begin
            l_drain: assert(!pv[6] && pv[15:12] == 0);
            // No rate update is accepted while the table is cleared.
            l_busy_rate: assert(!sh_rv);
            if (sh_left <= F - 1)
                l_drain_w1: assert(!w1v);
            if (sh_left <= F - 2)
                l_drain_w2: assert(!w2v);
            if (sh_left <= F - 5)
                l_drained: assert(pv == 0);
        end
    always @(*)
        if (f_past && !sh_busy) begin
            l_w1: assert((w1v && w1f == f) == h_t[16]);
            l_w2: assert((w2v && w2f == f) == h_t[17]);
        end

    // ---- Stages 1 to 5, the RAMs' reads and the multipliers' levels -----------------
    // With these every register a touch of f passes through is pinned, from
    // its request to its decision, so P1's induction needs a few cycles
    // instead of the 7 that stages 0 to 5 and `ma`'s levels took.
    //
    // The multipliers: level j of `ml`, `mb` and `ma` (PipeMul's s<j>_*, s5)
    // holds the partial sums of the operands of j cycles ago, the terms of
    // mr_lv (`mul_rows`'s, in its layout), and the tags the touches' valid
    // bits.
    // `mv`: the cycles since power-up, saturating at 7: level j holds
    // from cycle j on (the registers and the records start together). The
    // first cycles are the clearing of the first reset (l_mv), so that an
    // induction step cannot start in a cycle that only looks like one of
    // them.
    reg [2:0] mv = 3'd0;
    always @(posedge clk)
        if (mv != 3'd7)
            mv <= mv + 1'b1;
    always @(*)
        if (f_past && mv != 3'd7)
            l_mv: assert(sh_busy && sh_left >= F + 1 - mv);
    // The operands as the RTL drives them: `byte_time` is 14 bits wide and
    // `ma`'s a (the age or the distance) TB bits, zero-extended; recording
    // only those bits keeps the wrapper's terms in the RTL's shape (a row of
    // a zero bit is 0 in both).
    reg [5:1][15:0] q_mla;
    reg [5:1][13:0] q_mlb, q_mbb;
    reg [5:1][16:0] q_mba;
    always @(posedge clk) begin
        q_mla <= {q_mla[4:1], x_ml_a};
        q_mlb <= {q_mlb[4:1], x_ml_b[13:0]};
        q_mba <= {q_mba[4:1], x_mb_a};
        q_mbb <= {q_mbb[4:1], x_mb_b[13:0]};
    end
    wire [5:1] ok_lv_ml, ok_lv_mb, ok_cost, ok_depth;
    generate
        for (k = 1; k <= 5; k = k + 1) begin : g_lv
            // Level k's slice of the 20 registers, 48 bits each.
            localparam LO = (k == 1 ? 0 : k == 2 ? 9 : k == 3 ? 14 : k == 4 ? 17 : 19) * 48;
            localparam HI = (k == 1 ? 9 : k == 2 ? 14 : k == 3 ? 17 : k == 4 ? 19 : 20) * 48 - 1;
            wire [959:0] e_ml = mr_lv({32'b0, q_mla[k]}, {3'b0, q_mlb[k]});
            wire [959:0] e_mb = mr_lv({31'b0, q_mba[k]}, {3'b0, q_mbb[k]});
            wire on = mv >= k;
            assign ok_lv_ml[k] = !on || ml_lv[HI:LO] == e_ml[HI:LO];
            assign ok_lv_mb[k] = !on || mb_lv[HI:LO] == e_mb[HI:LO];
            // The rule's C and D of the touch at stage k are the products of
            // the recorded operands.
            wire [47:0] c48 = mul_rows({32'b0, q_mla[k]}, {3'b0, q_mlb[k]});
            wire [47:0] d48 = mul_rows({31'b0, q_mba[k]}, {3'b0, q_mbb[k]});
            assign ok_cost[k] = !on || q_cost[k] == c48[29:0];
            assign ok_depth[k] = !on || q_depth[k] == d48[30:0];
        end
    endgenerate
    always @(*)
        if (f_past) begin
            l_lv_ml1: assert(ok_lv_ml[1]);
            l_lv_ml2: assert(ok_lv_ml[2]);
            l_lv_ml3: assert(ok_lv_ml[3]);
            l_lv_ml4: assert(ok_lv_ml[4]);
            l_lv_ml5: assert(ok_lv_ml[5]);
            l_lv_mb1: assert(ok_lv_mb[1]);
            l_lv_mb2: assert(ok_lv_mb[2]);
            l_lv_mb3: assert(ok_lv_mb[3]);
            l_lv_mb4: assert(ok_lv_mb[4]);
            l_lv_mb5: assert(ok_lv_mb[5]);
            l_q_cost: assert(&ok_cost);
            l_q_depth: assert(&ok_depth);
        end
    // The tags are the stages' valid bits once the clearing has drained
    // the stages (a reset clears the tags, not stages 1 to 5 and 7 to 11).
    always @(*)
        if (f_past && !sh_busy) begin
            l_tag_ml: assert(ml_t == pv[5:1]);
            l_tag_ma: assert(ma_t == pv[11:7]);
        end
    // A reset clears the tags, and no touch enters while the table is
    // cleared; stages 1 to 5 and 7 to 11 empty one a cycle.
    wire [5:1] ok_dr;
    generate
        for (k = 1; k <= 5; k = k + 1) begin : g_dr
            assign ok_dr[k] = sh_left > F - k || (!pv[k] && !pv[6+k]);
        end
    endgenerate
    always @(*)
        if (f_past && sh_busy) begin
            l_tag_busy: assert(ml_t == 0 && mb_t == 0 && ma_t == 0);
            l_drain_k: assert(&ok_dr);
        end

    // The RAMs' reads: the address register holds stage 1's flow; for a
    // touch of f at stage k, `*_rd[k]` is what its read returns (stage 1:
    // the word the read will take at the end of the cycle; 2 to 4: the
    // RAM's registers; 5: `read_data`).
    wire [5:1][30:0] tok_rdk;
    wire [5:1][TB-1:0] stm_rdk;
    wire [5:1][19:0] rate_rdk;
    assign tok_rdk = {tok_rd[5], tok_rd[4], tok_rd[3], tok_rd[2], tok_word};
    assign stm_rdk = {stm_rd[5], stm_rd[4], stm_rd[3], stm_rd[2], stm_word};
    assign rate_rdk = {rate_rd[5], rate_rd[4], rate_rd[3], rate_rd[2], rate_word};
    // f's rate at a touch, the rule's as of the touch's cycle: the update
    // of the cycle before (forwarded), else the RAM's word if valid, else
    // `init_rate` of that cycle.
    wire [5:1] ok_p_rate, ok_p_tok, ok_p_stm, ok_p_hit;
    // A touch with one of f ahead of it found f touched, and its age is
    // the distance to the newest one within 16.
    wire [ST:1] ok_p_touched, ok_p_age;
    generate
        for (k = 1; k <= ST; k = k + 1) begin : g_ptouched
            assign ok_p_touched[k] = !h_t[k] || !(|h_t[HN:k+1]) || q_touched[k];
            assign ok_p_age[k] = !h_t[k] || !c_hit[k]
                || q_age[k] == {{(TB-5){1'b0}}, dist_of(h_t[k+16:k+1])};
        end
    endgenerate
    generate
        for (k = 1; k <= 5; k = k + 1) begin : g_early
            wire [18:0] r = g_fr[k] ? g_frv[k] : rate_rdk[k][19] ? rate_rdk[k][18:0] : g_init[k];
            assign ok_p_rate[k] = !h_t[k] || r == q_rate[k];
            // No touch of f in the 16 ahead: the tokens and the stamp read
            // are those of f's last touch (full when none since the reset).
            assign ok_p_tok[k] = !h_t[k] || c_hit[k]
                || tok_rdk[k] == (q_touched[k] ? lT : FULL);
            localparam [TB-1:0] KT = k;
            wire [TB-1:0] st_age = sh_now - KT - stm_rdk[k];
            assign ok_p_stm[k] = !h_t[k] || c_hit[k] || !q_touched[k]
                || st_age == q_age[k] - 5'd15;
            // The compares with the touches ahead (stage 2: one bit per
            // distance; 3 to 5: the newest one-hot, its distance).
            if (k == 2) begin : g_e
                assign ok_p_hit[k] = !h_t[k] || g_e2 == h_t[18:3];
            end else if (k >= 3) begin : g_hd
                assign ok_p_hit[k] = !h_t[k] || (g_hit[k] == c_hit[k] && g_h[k] == c_h[k]
                    && g_dd[k] == dist_of(h_t[k+16:k+1]));
            end else begin : g_none
                assign ok_p_hit[k] = 1'b1;
            end
        end
    endgenerate
    always @(*)
        if (f_past) begin
            l_ra: assert(tok_ra == pf[1] && stm_ra == pf[1] && rate_ra == pf[1]);
            l_p_rate: assert(&ok_p_rate);
            l_p_tok: assert(&ok_p_tok);
            l_p_stm: assert(&ok_p_stm);
            l_p_hit: assert(&ok_p_hit);
            l_p_touched: assert(&ok_p_touched);
            l_p_age: assert(&ok_p_age);
            l_p_out: assert((mb_t & h_t[5:1]) == (h_req[5:1] & h_t[5:1]));
            // A read of f at stage 1 collides with no write unless the rate
            // is forwarded or a touch ahead will forward the tokens.
            if (h_t[1]) begin
                if (!g_fr[1])
                    l_col_rate: assert(!r2);
                if (!c_hit[1])
                    l_col_tok: assert(!t2 && !s2);
            end
            // The last cycle's rate update (forwarding's record) is f's.
            if (h_rwv && h_rwf == f)
                l_rw: assert(sh_rv && sh_r == h_rwr && r1 && r1d == {1'b1, h_rwr});
            if (!sh_busy) begin
                if (r1)
                    l_rw_r1: assert(h_rwv && h_rwf == f);
                l_wr_tok: assert(t1 == h_t[16] && s1 == h_t[16]);
            end
        end
`endif

endmodule
