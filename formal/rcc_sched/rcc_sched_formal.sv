// rcc_sched_formal - properties of RCC_SCHED (golden/src/rcc_sched.rs,
// docs/rcc_sched.md) around the emitted ccrtl_rcc_sched.
//
// The wrapper instantiates `ccrtl_rcc_sched` from the file `ccrtl emit`
// writes. Every input is free in every cycle; the only assumption on them
// is the contract's: `rst` in the first cycle. Shape and reset values come
// from `ccrtl_rcc_sched_params.vh` (written by `ccrtl formal` from the
// emitted file's header).
//
// The contract is restated here from the ports, not from the RTL:
// - `c_win`, the `window` register in force: a write of cycle t (address
//   0, the data's low win_bits bits) is staged two cycles (`v1`, `v2`) and
//   in force from t + 3; a reset in t + 1 or t + 2 drops it; a reset
//   restores the reset value. `W` is `c_win` read as 1 when 0.
// - the windows: in window mode (`m_window` high in the cycle) a grant of
//   L bytes (the granted class's 14-bit length) adds L to `sent`, and to
//   `sent_c` if it went to c while c was eligible (`sent_c < Lw`); the
//   window ends when `sent >= Ww`. A window starts in the cycle after one
//   ends, and in the cycle `m_window` rises (an entry). It takes `Ww`, the
//   W in force in its first cycle, and `Lw`, `m_wc` of its first cycle
//   (the status shows min(Wc, W) of the registers in force in window
//   mode, which P2's invariants tie to the RTL), and keeps them to its
//   end (docs/rcc_sched.md, "A window keeps the W and min(Wc, W) in
//   force in its first cycle"). Wc itself is not modelled: the
//   properties hold for any Wc, so the cut's multiplier is cut out of
//   the proofs (rcc_sched.sby).
//
// One sby task per property (formal/rcc_sched/rcc_sched.sby); the task
// defines CHECK_Pn.
//
//   P1 grant   at most one of m_c_ready, m_n_ready; neither without its
//              valid, with s_out_ready low or in a reset cycle; one of them
//              whenever a class is valid, s_out_ready high and no reset.
//   P2 split   m_wc + m_wnc = W (the W in force), m_wc <= W; in normal mode
//              m_wc = W and m_wnc = 0.
//   P3 share   in window mode: c is granted while n is valid only if
//              sent_c < Lw (c yields to n once it has sent the window's
//              Wc); sent_c <= Lw + L_MAX - 1 (c never exceeds the window's
//              Wc by a whole packet); sent < Ww.
//   cover      an entry, a window ending exactly, n granted over an
//              ineligible c, a cut changing m_wc, a quit, a write landing
//              mid-window, sent_c past Lw.
//
// Invariants (L1, asserted with P2 and P3; L2 and L3 with P3): the RTL's W
// registers and the write staging equal the contract's (`w` is W, `w1`
// next cycle's W, `nw1` its negation, `q_wr_w`, `q_de` the staged
// write of t - 1, whose negation the RTL computes from `q_de`); `lim1 = min(wc1, w1)`; the status is
// m_wc is min(wc, w) in window mode and w in normal mode (L1).
// The degree pipeline holds one update, its stage the busy count's, and
// an update in flight is an entry iff it is not a quit and the mode is
// normal (L2). In window mode the running differences are the window's:
// nl = sent - Ww, cr = Lw - sent_c - 1 (L3). Internal registers come
// through `expose` in the task script (yosys 0.70's read_verilog has no
// hierarchical references).

`default_nettype none
`include "ccrtl_rcc_sched_params.vh"

module rcc_sched_formal (
    input wire clk,
    input wire rst,
    input wire s_c_valid,
    input wire [13:0] s_c_len,
    input wire s_n_valid,
    input wire [13:0] s_n_len,
    input wire s_out_ready,
    input wire s_fb_valid,
    input wire [7:0] s_fb,
    input wire s_cfg_valid,
    input wire [1:0] s_cfg_addr,
    input wire [23:0] s_cfg_data
);
    localparam WB = `CCRTL_WIN_BITS;
    localparam N = WB + 2;
    // Model counters: wide enough that no sum of the model wraps.
    localparam CB = WB + 4;
    localparam [CB-1:0] L_MAX = 16383;

    wire m_c_ready, m_n_ready, m_window;
    wire [WB-1:0] m_wc, m_wnc;
    wire [WB-1:0] r_w, r_w1, r_wc, r_wc1, r_lim1, r_de;
    wire [N-1:0] r_nw1, r_nl, r_cr;
    wire r_wr_w;
    wire [3:0] r_busy;
    wire k0_v, k0_quit, k0_entry, k6_v, k6_quit, k6_entry, k7_v, k7_quit, k7_entry;
    wire [2:0] t1, t2, t3, t4, t5;

    ccrtl_rcc_sched dut (
        .clk(clk),
        .rst(rst),
        .s_c_valid(s_c_valid),
        .s_c_len(s_c_len),
        .s_n_valid(s_n_valid),
        .s_n_len(s_n_len),
        .s_out_ready(s_out_ready),
        .s_fb_valid(s_fb_valid),
        .s_fb(s_fb),
        .s_cfg_valid(s_cfg_valid),
        .s_cfg_addr(s_cfg_addr),
        .s_cfg_data(s_cfg_data),
        .m_c_ready(m_c_ready),
        .m_n_ready(m_n_ready),
        .m_window(m_window),
        .m_wc(m_wc),
        .m_wnc(m_wnc),
        .\w$q (r_w),
        .\w1$q (r_w1),
        .\nw1$q (r_nw1),
        .\wc$q (r_wc),
        .\wc1$q (r_wc1),
        .\lim1$q (r_lim1),
        .\nl$q (r_nl),
        .\cr$q (r_cr),
        .\q_wr_w$q (r_wr_w),
        .\q_de$q (r_de),
        .\busy$q (r_busy),
        .\k0_v$q (k0_v),
        .\k0_quit$q (k0_quit),
        .\k0_entry$q (k0_entry),
        .\mul.t1$q (t1),
        .\mul.t2$q (t2),
        .\mul.t3$q (t3),
        .\mul.t4$q (t4),
        .\mul.t5$q (t5),
        .\k6_v$q (k6_v),
        .\k6_quit$q (k6_quit),
        .\k6_entry$q (k6_entry),
        .\k7_v$q (k7_v),
        .\k7_quit$q (k7_quit),
        .\k7_entry$q (k7_entry)
    );

    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @(*) if (init) assume (rst);

    // ---- The window register in force, from the ports ---------------------
    reg [WB-1:0] c_win;
    reg v1, v2;            // a write of address 0 staged in t - 1, t - 2
    reg [WB-1:0] d1, d2;
    always @(posedge clk) begin
        if (rst) begin
            c_win <= `CCRTL_RESET_WINDOW;
            v1 <= 1'b0;
            v2 <= 1'b0;
        end else begin
            if (v2) c_win <= d2;
            v2 <= v1;
            v1 <= s_cfg_valid && s_cfg_addr == 2'd0;
        end
        d2 <= d1;
        d1 <= s_cfg_data[WB-1:0];
    end
    // W in force this cycle and (no reset) the next.
    wire [WB-1:0] W_now = (c_win == 0) ? 1 : c_win;
    wire [WB-1:0] c_win1 = v2 ? d2 : c_win;
    wire [WB-1:0] W_next = (c_win1 == 0) ? 1 : c_win1;
    wire [WB-1:0] W_d1 = (d1 == 0) ? 1 : d1;

    // ---- The windows, from the ports ----------------------------------------
    reg pw;                // m_window in the previous cycle
    reg ended;             // the previous cycle's accounting ended a window
    reg [CB-1:0] s_sent, s_sentc;
    reg [WB-1:0] s_ww, s_lim;
    wire start = m_window && (!pw || ended);
    wire [CB-1:0] sent = start ? 0 : s_sent;
    wire [CB-1:0] sent_c = start ? 0 : s_sentc;
    wire [WB-1:0] ww = start ? W_now : s_ww;
    wire [WB-1:0] lim = start ? m_wc : s_lim;
    wire elig = sent_c < lim;
    wire grant = !rst && (m_c_ready || m_n_ready);
    wire [CB-1:0] len = m_c_ready ? s_c_len : s_n_len;
    wire acc = m_window && grant;
    wire [CB-1:0] sent_n = sent + len;
    wire [CB-1:0] sent_c_n = (m_c_ready && elig) ? sent_c + len : sent_c;
    wire end_now = acc && sent_n >= ww;
    always @(posedge clk) begin
        pw <= m_window;
        ended <= end_now;
        s_ww <= ww;
        s_lim <= lim;
        s_sent <= end_now ? 0 : acc ? sent_n : sent;
        s_sentc <= end_now ? 0 : acc ? sent_c_n : sent_c;
    end

    // ---- Properties ---------------------------------------------------------
`ifdef CHECK_P1
    always @(*) begin
        p1_one: assert (!(m_c_ready && m_n_ready));
        if (m_c_ready) p1_c_needs: assert (s_c_valid && s_out_ready && !rst);
        if (m_n_ready) p1_n_needs: assert (s_n_valid && s_out_ready && !rst);
        if ((s_c_valid || s_n_valid) && s_out_ready && !rst)
            p1_some: assert (m_c_ready || m_n_ready);
    end
`endif

`ifdef CHECK_P2
    always @(*) if (!init) begin
        p2_sum: assert ({1'b0, m_wc} + {1'b0, m_wnc} == {1'b0, W_now});
        p2_wc_le_w: assert (m_wc <= W_now);
        if (!m_window) p2_normal: assert (m_wc == W_now && m_wnc == 0);
    end
`endif

`ifdef CHECK_P3
    always @(*) if (!init && m_window) begin
        if (m_c_ready && s_n_valid) p3_c_yields: assert (elig);
        p3_c_overshoot: assert (sent_c < {4'b0, lim} + L_MAX);
        p3_window_end: assert (sent < {4'b0, ww});
    end
`endif

`ifdef CHECK_P2
`define RCC_L1
`endif
`ifdef CHECK_P3
`define RCC_L1
`define RCC_L2
`define RCC_L3
`endif
`ifdef RCC_L1
    // The W registers, the staging and the status are the contract's.
    wire [WB-1:0] min_wc_w = (r_wc < r_w) ? r_wc : r_w;
    wire [WB-1:0] min_wc1_w1 = (r_wc1 < r_w1) ? r_wc1 : r_w1;
    always @(*) if (!init) begin
        l1_w: assert (r_w == W_now);
        l1_w1: assert (r_w1 == W_next);
        l1_nw1: assert (r_nw1 == -{2'b0, r_w1});
        l1_staged: assert (r_wr_w == v1);
        if (v1) l1_staged_data: assert (r_de == W_d1);
        l1_lim1: assert (r_lim1 == min_wc1_w1);
        l1_status: assert (m_wc == (m_window ? min_wc_w : r_w));
    end
`endif
`ifdef RCC_L2
    // One update in flight, at the stage the busy count says; an entry iff
    // not a quit, in normal mode (nothing else changes the mode meanwhile).
    always @(*) if (!init) begin
        l2_busy: assert (r_busy <= 8 && k0_v == (r_busy == 8) && t1[0] == (r_busy == 7)
                         && t2[0] == (r_busy == 6) && t3[0] == (r_busy == 5)
                         && t4[0] == (r_busy == 4) && t5[0] == (r_busy == 3)
                         && k6_v == (r_busy == 2) && k7_v == (r_busy == 1));
        l2_entry: assert ((!k0_v || k0_entry == (!k0_quit && !m_window))
                          && (!t1[0] || t1[2] == (!t1[1] && !m_window))
                          && (!t2[0] || t2[2] == (!t2[1] && !m_window))
                          && (!t3[0] || t3[2] == (!t3[1] && !m_window))
                          && (!t4[0] || t4[2] == (!t4[1] && !m_window))
                          && (!t5[0] || t5[2] == (!t5[1] && !m_window))
                          && (!k6_v || k6_entry == (!k6_quit && !m_window))
                          && (!k7_v || k7_entry == (!k7_quit && !m_window)));
    end
`endif
`ifdef RCC_L3
    // The running differences are the window's.
    wire [CB-1:0] nl_m = sent - {4'b0, ww};
    wire [CB-1:0] cr_m = {4'b0, lim} - sent_c - 1;
    always @(*) if (!init && m_window) begin
        l3_nl: assert (r_nl == nl_m[N-1:0]);
        l3_cr: assert (r_cr == cr_m[N-1:0]);
        l3_sent_c: assert (sent_c <= sent);
    end
`endif

`ifdef COVER
    reg prst;
    reg [WB-1:0] pW, pwc;
    reg last_n;            // the class granted last was n
    always @(posedge clk) begin
        prst <= rst;
        pW <= W_now;
        pwc <= m_wc;
        if (rst) last_n <= 1'b0;
        else if (m_n_ready) last_n <= 1'b1;
        else if (m_c_ready) last_n <= 1'b0;
    end
    always @(*) if (!init) begin
        // An entry into window mode.
        c1_entry: cover (m_window && !pw);
        // A window ending exactly at its W.
        c2_window_exact: cover (acc && sent_n == {4'b0, ww});
        // c ineligible: n granted over c where the alternation gives c.
        c3_n_over_c: cover (m_window && s_c_valid && s_n_valid && m_n_ready && last_n && !elig);
        // A cut changes m_wc in window mode with W unchanged.
        c4_cut: cover (m_window && pw && !prst && W_now == pW && m_wc != pwc);
        // A quit: back to normal mode without a reset.
        c5_quit: cover (pw && !m_window && !prst);
        // A write of window landing mid-window: the running window keeps
        // its Ww, the W in force is another.
        c6_write_mid_window: cover (m_window && !start && ww != W_now);
        // c past the window's Lw (a packet that started below it).
        c7_c_past_lim: cover (m_window && sent_c > {4'b0, lim});
    end
`endif
endmodule
