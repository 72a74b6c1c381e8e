// crd_formal - properties of CRD (golden/src/crd.rs, docs/crd.md) around
// the emitted ccrtl_crd.
//
// The wrapper instantiates `ccrtl_crd` from the file `ccrtl emit` writes.
// Every input is free in every cycle; the only assumption on them is the
// contract's: `rst` in the first cycle. Shape and reset values come from
// `ccrtl_crd_params.vh` (written by `ccrtl formal` from the emitted file's
// header).
//
// The contract's state is restated here from docs/crd.md, not from the
// RTL: per queue `c_len`, `c_old`, `c_rem`, `c_age`; the timer `c_t`; the
// registers as written (`c_period`, `c_qeq`, `c_wq`, `c_fbs`, `c_w`,
// `c_hold`). A sample of queue `q` in cycle `t` (`c_t == q`, no reset)
// computes `Fb = Qoff + floor(wq * Qdelta / 8)` as the rule is written (the
// product as the sum of its five rows); `local = Fb > 0`,
// `remote = age > 0 && rem > 0`.
//
// One sby task per property (formal/crd/crd.sby); the task defines
// CHECK_P1A, CHECK_P1B, CHECK_P1 or CHECK_P2.
//
//   P1a pairs    (lemma, m1_pairs) the six rows of S = 8 Qoff + wq Qdelta
//                summed in the RTL's pairs give S, in SW = L + 7 bits.
//   P1b sign     (lemma, m2_sign) Fb > 0 iff 8 <= S < 2^(SW-1), S in SW
//                bits (|S| < 39 * 2^L).
//   P1 flags     the result of a sample of cycle t, on the outputs in
//                t + 10, names its queue and has `fb_local` = (Fb > 0),
//                `fb_remote` = the contract's remote flag and
//                `fb_role` = {fb_remote, fb_local} (the issue's "crd's
//                flags follow Fb's sign"). Assumes P1a and P1b, for the
//                sample of each cycle.
//   P2 answers   `m_fb_valid` is high in t + 10 exactly for the samples of
//                t (reset drops those in flight; the timer samples queue q
//                when it is q), and every other output is 0 when it is
//                low.
//
// Invariants (L*, asserted with P1 and P2: the queues' state, the timer
// and the registers outlive any window of k cycles): the RTL's state
// equals the contract's, its registers hold the effective values of the
// contract's (`P_eff - 1`, `min(fb_shift, L) + 3`, `min(fb_shift + 11,
// L + 6)`, `min(w, 256)`, `256 - min(w, 256)`), and `hot[q]` is
// `c_t == q`. With P1 also (K1_*, L4, L5_*): the wrapper records, for each
// sample in flight, the rule's quantities at its sample (operands, Qoff,
// Qdelta, the pairs of rows, S, Fb > 0, the remote flag); the steps of the
// rule hold between them, the pipeline's valid bits are the samples in
// flight, and every stage's registers hold its sample's recorded
// quantities. Internal registers come through `expose` in the task script
// (yosys 0.70's read_verilog has no hierarchical references); the
// connections below are written for two queues (the configuration of this
// folder).

`default_nettype none
`include "ccrtl_crd_params.vh"

module crd_formal (
    input wire clk,
    input wire rst,
    input wire s_len_valid,
    input wire [`CCRTL_QUEUE_BITS-1:0] s_len_queue,
    input wire [`CCRTL_LEN_BITS-1:0] s_len_bytes,
    input wire s_cn_valid,
    input wire [`CCRTL_QUEUE_BITS-1:0] s_cn_queue,
    input wire [7:0] s_cn_fb,
    input wire s_cfg_valid,
    input wire [2:0] s_cfg_addr,
    input wire [23:0] s_cfg_data
);
    localparam QB = `CCRTL_QUEUE_BITS;
    localparam Q = 1 << QB;
    localparam L = `CCRTL_LEN_BITS;
    localparam LAT = 10;

    wire m_fb_valid, m_fb_local, m_fb_remote;
    wire [QB-1:0] m_fb_queue;
    wire [7:0] m_fb;
    wire [1:0] m_fb_role;
    wire [L*Q-1:0] len, old;
    wire [8*Q-1:0] rem;
    wire [4*Q-1:0] age;
    wire [Q-1:0] hot;
    wire [15:0] timer, pm1;
    wire [L-1:0] qeq;
    wire [4:0] wq, shx, e;
    wire [8:0] we, nw;
    wire [3:0] hold;
    // The sample pipeline's registers that carry the flags (P1's invariants).
    localparam SW = L + 7;
    wire a_v, b_v, c_v, d_v, e_v, f_v, g_v, h_v, i_v, o_v;
    wire [QB-1:0] a_q, b_q, c_q, d_q, e_q, f_q, g_q, h_q, i_q;
    wire [L-1:0] a_len, a_old, a_qeq;
    wire [7:0] a_rem;
    wire a_rv;
    wire [4:0] a_wq, b_wq;
    wire [SW-1:0] b_qoff, b_d, c_p0, c_p1, c_p2, d_s01, d_p2, e_s;
    wire b_remote, c_remote, d_remote, e_remote, f_remote, g_remote, h_remote, i_remote;
    wire f_local, g_local, h_local, i_local;

`ifndef CCRTL_QUEUE_BITS_1
    initial $error("crd_formal connects the registers of two queues only");
`endif

    ccrtl_crd dut (
        .clk(clk),
        .rst(rst),
        .s_len_valid(s_len_valid),
        .s_len_queue(s_len_queue),
        .s_len_bytes(s_len_bytes),
        .s_cn_valid(s_cn_valid),
        .s_cn_queue(s_cn_queue),
        .s_cn_fb(s_cn_fb),
        .s_cfg_valid(s_cfg_valid),
        .s_cfg_addr(s_cfg_addr),
        .s_cfg_data(s_cfg_data),
        .m_fb_valid(m_fb_valid),
        .m_fb_queue(m_fb_queue),
        .m_fb(m_fb),
        .m_fb_local(m_fb_local),
        .m_fb_remote(m_fb_remote),
        .m_fb_role(m_fb_role),
        .\len$0$q (len[L-1:0]),
        .\len$1$q (len[2*L-1:L]),
        .\old$0$q (old[L-1:0]),
        .\old$1$q (old[2*L-1:L]),
        .\rem$0$q (rem[7:0]),
        .\rem$1$q (rem[15:8]),
        .\age$0$q (age[3:0]),
        .\age$1$q (age[7:4]),
        .\hot$0$q (hot[0]),
        .\hot$1$q (hot[1]),
        .\timer$q (timer),
        .\pm1$q (pm1),
        .\qeq$q (qeq),
        .\wq$q (wq),
        .\shx$q (shx),
        .\e$q (e),
        .\we$q (we),
        .\nw$q (nw),
        .\hold$q (hold),
        .\a_v$q (a_v), .\b_v$q (b_v), .\c_v$q (c_v), .\d_v$q (d_v), .\e_v$q (e_v),
        .\f_v$q (f_v), .\g_v$q (g_v), .\h_v$q (h_v), .\i_v$q (i_v), .\o_v$q (o_v),
        .\a_q$q (a_q), .\b_q$q (b_q), .\c_q$q (c_q), .\d_q$q (d_q), .\e_q$q (e_q),
        .\f_q$q (f_q), .\g_q$q (g_q), .\h_q$q (h_q), .\i_q$q (i_q),
        .\a_len$q (a_len), .\a_old$q (a_old), .\a_qeq$q (a_qeq), .\a_rem$q (a_rem),
        .\a_rv$q (a_rv), .\a_wq$q (a_wq), .\b_wq$q (b_wq),
        .\b_qoff$q (b_qoff), .\b_d$q (b_d), .\c_p$0$q (c_p0), .\c_p$1$q (c_p1),
        .\c_p$2$q (c_p2), .\d_s01$q (d_s01), .\d_p2$q (d_p2), .\e_s$q (e_s),
        .\b_remote$q (b_remote), .\c_remote$q (c_remote), .\d_remote$q (d_remote),
        .\e_remote$q (e_remote), .\f_remote$q (f_remote), .\g_remote$q (g_remote),
        .\h_remote$q (h_remote), .\i_remote$q (i_remote),
        .\f_local$q (f_local), .\g_local$q (g_local), .\h_local$q (h_local),
        .\i_local$q (i_local)
    );

    // ---- The contract -------------------------------------------------------
    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @(*) if (init) assume (rst);

    reg [L*Q-1:0] c_len, c_old;
    reg [8*Q-1:0] c_rem;
    reg [4*Q-1:0] c_age;
    reg [15:0] c_t;
    reg [15:0] c_period;
    reg [L-1:0] c_qeq;
    reg [4:0] c_wq, c_fbs;
    reg [8:0] c_w;
    reg [3:0] c_hold;

    wire [16:0] c_peff = (c_period < 16) ? 17'd16 : {1'b0, c_period};
    // The sample of this cycle.
    wire smp = !rst && c_t < Q;
    wire [QB-1:0] sq = c_t[QB-1:0];
    wire [L-1:0] s_len = c_len[L*sq +: L];
    wire [L-1:0] s_old = c_old[L*sq +: L];
    wire [7:0] s_rem = c_rem[8*sq +: 8];
    wire [3:0] s_age = c_age[4*sq +: 4];

    // The rule on a sample's operands (its queue's `len`, `old`, `rem`,
    // `age` and the `qeq`, `wq` in force), in 32-bit two's complement:
    // exact, since |Fb| < 2^(L+2) and |8 Qoff + wq Qdelta| < 2^(L+6).
    function automatic [31:0] qoff_of(input [L-1:0] len, input [L-1:0] qeq);
        qoff_of = {{(32 - L){1'b0}}, len} - {{(32 - L){1'b0}}, qeq};
    endfunction
    function automatic [31:0] qdelta_of(input [L-1:0] len, input [L-1:0] old);
        qdelta_of = {{(32 - L){1'b0}}, len} - {{(32 - L){1'b0}}, old};
    endfunction
    // Row i of wq * Qdelta: binary multiplication by the 5-bit wq (a 32 x 32
    // `*` is needlessly wide for the solver).
    function automatic [31:0] row_of(input [31:0] qdelta, input [4:0] wq, input integer i);
        row_of = wq[i] ? qdelta << i : 32'd0;
    endfunction
    // wq * Qdelta, the sum of its five rows.
    function automatic [31:0] prod_of(input [L-1:0] len, input [L-1:0] old, input [4:0] wq);
        reg [31:0] qd;
        begin
            qd = qdelta_of(len, old);
            prod_of = row_of(qd, wq, 0) + row_of(qd, wq, 1) + row_of(qd, wq, 2)
                      + row_of(qd, wq, 3) + row_of(qd, wq, 4);
        end
    endfunction
    // local = Fb > 0, Fb = Qoff + floor(wq Qdelta / 8) (an arithmetic shift).
    function automatic local_of(input [L-1:0] len, input [L-1:0] old, input [L-1:0] qeq,
                                input [4:0] wq);
        // (Every operand signed: in an unsigned context `>>>` would shift
        // zeros in.)
        local_of = $signed(qoff_of(len, qeq)) + ($signed(prod_of(len, old, wq)) >>> 3) > 32'sd0;
    endfunction
    // remote = a notification in use (age > 0) with Fbr > 0.
    function automatic remote_of(input [7:0] rem, input [3:0] age);
        remote_of = age != 0 && rem != 0;
    endfunction

    always @(posedge clk) begin
        if (rst) begin
            c_len <= 0;
            c_old <= 0;
            c_rem <= 0;
            c_age <= 0;
            c_t <= 0;
            c_period <= `CCRTL_RESET_PERIOD;
            c_qeq <= `CCRTL_RESET_QEQ;
            c_wq <= `CCRTL_RESET_WQ;
            c_fbs <= `CCRTL_RESET_FB_SHIFT;
            c_w <= `CCRTL_RESET_W;
            c_hold <= `CCRTL_RESET_HOLD;
        end else begin
            if (smp) begin
                c_old[L*sq +: L] <= s_len;
                c_age[4*sq +: 4] <= (s_age != 0) ? s_age - 4'd1 : 4'd0;
            end
            c_t <= ({1'b0, c_t} + 17'd1 >= c_peff) ? 16'd0 : c_t + 16'd1;
            if (s_cn_valid) begin
                c_rem[8*s_cn_queue +: 8] <= s_cn_fb;
                c_age[4*s_cn_queue +: 4] <= c_hold;
            end
            if (s_len_valid) c_len[L*s_len_queue +: L] <= s_len_bytes;
            if (s_cfg_valid) case (s_cfg_addr)
                3'd0: c_period <= s_cfg_data[15:0];
                3'd1: c_qeq <= s_cfg_data[L-1:0];
                3'd2: c_wq <= s_cfg_data[4:0];
                3'd3: c_fbs <= s_cfg_data[4:0];
                3'd4: c_w <= s_cfg_data[8:0];
                3'd5: c_hold <= s_cfg_data[3:0];
                default: ;
            endcase
        end
    end

    // The rule's quantities for the sample of this cycle. `x_pos` (Fb > 0)
    // and `x_remote` are the contract. The others are the same arithmetic
    // in the steps the RTL takes (docs/crd.md, Pipeline), each exact in
    // SW = L + 7 bits (|S| < 39 * 2^L): Qoff, Qdelta, the six rows of S in
    // three pairs, two of them summed, and S; the pipeline invariants below
    // compare the RTL's registers with them.
    function automatic [SW-1:0] ext(input [L-1:0] x);
        ext = {{(SW - L){1'b0}}, x};
    endfunction
    function automatic [SW-1:0] row_sw(input [SW-1:0] qdelta, input [4:0] wq, input integer i);
        row_sw = wq[i] ? qdelta << i : {SW{1'b0}};
    endfunction
    // Fb > 0 iff S >= 8 (m2_sign), S taken in SW bits.
    function automatic pos_of(input [SW-1:0] s);
        pos_of = s >= 8 && s < (1 << (SW - 1));
    endfunction
    wire [SW-1:0] x_qoff = ext(s_len) - ext(c_qeq);
    wire [SW-1:0] x_qd = ext(s_len) - ext(s_old);
    wire [SW-1:0] x_p0 = (x_qoff << 3) + row_sw(x_qd, c_wq, 0);
    wire [SW-1:0] x_p1 = row_sw(x_qd, c_wq, 1) + row_sw(x_qd, c_wq, 2);
    wire [SW-1:0] x_p2 = row_sw(x_qd, c_wq, 3) + row_sw(x_qd, c_wq, 4);
    wire [SW-1:0] x_s01 = x_p0 + x_p1;
    // S = 8 Qoff + wq Qdelta, as the rule is written.
    wire [31:0] x_s32 = (qoff_of(s_len, c_qeq) << 3) + prod_of(s_len, s_old, c_wq);
    wire [SW-1:0] x_s = x_s32[SW-1:0];
    wire x_pos = local_of(s_len, s_old, c_qeq, c_wq);
    wire x_remote = remote_of(s_rem, s_age);

    // The samples in flight: stage n (0 to LAT - 1) is the sample of n + 1
    // cycles ago, with the rule's quantities as they were at it (all 0
    // after a reset). The result due now is stage LAT - 1's.
    reg [LAT-1:0] q_valid, w_rv, w_remote, w_pos;
    reg [QB*LAT-1:0] q_q;
    reg [L*LAT-1:0] w_len, w_old, w_qeq;
    reg [8*LAT-1:0] w_rem;
    reg [5*LAT-1:0] w_wq;
    reg [SW*LAT-1:0] w_qoff, w_qd, w_p0, w_p1, w_p2, w_s01, w_s;
    always @(posedge clk) begin
        q_valid <= {q_valid[LAT-2:0], smp};
        q_q <= {q_q[QB*(LAT-1)-1:0], sq};
        w_len <= {w_len[L*(LAT-1)-1:0], s_len};
        w_old <= {w_old[L*(LAT-1)-1:0], s_old};
        w_qeq <= {w_qeq[L*(LAT-1)-1:0], c_qeq};
        w_wq <= {w_wq[5*(LAT-1)-1:0], c_wq};
        w_rem <= {w_rem[8*(LAT-1)-1:0], s_rem};
        w_rv <= {w_rv[LAT-2:0], s_age != 0};
        w_qoff <= {w_qoff[SW*(LAT-1)-1:0], x_qoff};
        w_qd <= {w_qd[SW*(LAT-1)-1:0], x_qd};
        w_p0 <= {w_p0[SW*(LAT-1)-1:0], x_p0};
        w_p1 <= {w_p1[SW*(LAT-1)-1:0], x_p1};
        w_p2 <= {w_p2[SW*(LAT-1)-1:0], x_p2};
        w_s01 <= {w_s01[SW*(LAT-1)-1:0], x_s01};
        w_s <= {w_s[SW*(LAT-1)-1:0], x_s};
        w_pos <= {w_pos[LAT-2:0], x_pos};
        w_remote <= {w_remote[LAT-2:0], x_remote};
        if (rst) begin
            q_valid <= 0;
            q_q <= 0;
            w_len <= 0;
            w_old <= 0;
            w_qeq <= 0;
            w_wq <= 0;
            w_rem <= 0;
            w_rv <= 0;
            w_qoff <= 0;
            w_qd <= 0;
            w_p0 <= 0;
            w_p1 <= 0;
            w_p2 <= 0;
            w_s01 <= 0;
            w_s <= 0;
            w_pos <= 0;
            w_remote <= 0;
        end
    end
    // The contract's result of the sample of LAT cycles ago.
    wire o_valid = q_valid[LAT-1];
    wire [QB-1:0] o_q = q_q[QB*LAT-1 -: QB];
    wire o_local = w_pos[LAT-1];
    wire o_remote = w_remote[LAT-1];

    // ---- Properties (on the values of the current cycle) ------------------------
    always @(*) if (!init) begin
`ifdef CHECK_P1
        if (o_valid)
            p1_flags: assert (m_fb_valid && m_fb_queue == o_q && m_fb_local == o_local
                              && m_fb_remote == o_remote && m_fb_role == {o_remote, o_local});
`endif
`ifdef CHECK_P2
        p2_valid: assert (m_fb_valid == o_valid);
        if (!m_fb_valid)
            p2_zero: assert (m_fb_queue == 0 && m_fb == 0 && !m_fb_local && !m_fb_remote
                             && m_fb_role == 0);
`endif
    end

`ifdef CHECK_P1
`define CRD_STATE_INVARIANTS
`endif
`ifdef CHECK_P2
`define CRD_STATE_INVARIANTS
`endif
`ifdef CRD_STATE_INVARIANTS
    // The RTL's state is the contract's; its registers are the contract's
    // effective values.
    wire [4:0] w_shift = (c_fbs > L) ? L : c_fbs;
    wire [5:0] w_e6 = ({1'b0, c_fbs} + 6'd11 > L + 6) ? L + 6 : {1'b0, c_fbs} + 6'd11;
    wire [8:0] w_we = (c_w > 256) ? 9'd256 : c_w;
    reg [Q-1:0] hot_ok;
    integer q;
    always @(*) for (q = 0; q < Q; q = q + 1) hot_ok[q] = hot[q] == (c_t == q);
    always @(*) if (!init && !rst) begin
        l1_queues: assert (len == c_len && old == c_old && rem == c_rem && age == c_age);
        l2_timer: assert (timer == c_t && &hot_ok);
        l3_regs: assert ({1'b0, pm1} == c_peff - 17'd1 && qeq == c_qeq && wq == c_wq
                         && shx == w_shift + 5'd3 && e == w_e6[4:0] && we == w_we
                         && nw == 9'd256 - w_we && hold == c_hold);
    end
`endif

    // Arithmetic on the sample of this cycle (the wrapper's own
    // definitions, whatever the RTL): the RTL's pairing of the rows sums to
    // S (m1), and Fb > 0 iff S >= 8 in SW bits (m2). p1a_pairs and
    // p1b_sign prove them for every value of the contract's state (one
    // task each: asserted together in one task, yices took 159 s, against
    // 2 s for each alone); p1_flags assumes them.
`ifdef CHECK_P1A
    always @(*) m1_pairs: assert (x_s01 + x_p2 == x_s);
`endif
`ifdef CHECK_P1B
    always @(*) m2_sign: assert (pos_of(x_s) == x_pos);
`endif
`ifdef CHECK_P1
    always @(*) begin
        m1_pairs: assume (x_s01 + x_p2 == x_s);
        m2_sign: assume (pos_of(x_s) == x_pos);
    end
`endif

`ifdef CHECK_P1
    // The rule's steps hold between the quantities recorded for each
    // sample in flight (k1_*, the wrapper's registers only; each holds at
    // stage 0 by definition or by m1, m2, and moves with its sample), and
    // each pipeline stage of the RTL holds the recorded quantities of its
    // sample (l5_*, white-box, valid-gated). A stage's invariant follows
    // from the previous stage's in one cycle: no step of the induction
    // has to relate more than one adder of the RTL to the rule.
`define CRD_AT(v, w, n) v[(w)*(n) +: (w)]
    reg [LAT-1:0] k_qoff, k_qd, k_rv, k_rows, k_s01, k_s, k_pos;
    integer n;
    always @(*) for (n = 0; n < LAT; n = n + 1) begin
        k_qoff[n] = `CRD_AT(w_qoff, SW, n) == ext(`CRD_AT(w_len, L, n)) - ext(`CRD_AT(w_qeq, L, n));
        k_qd[n] = `CRD_AT(w_qd, SW, n) == ext(`CRD_AT(w_len, L, n)) - ext(`CRD_AT(w_old, L, n));
        k_rv[n] = w_remote[n] == (w_rv[n] && `CRD_AT(w_rem, 8, n) != 0);
        k_rows[n] = `CRD_AT(w_p0, SW, n) == (`CRD_AT(w_qoff, SW, n) << 3)
                                            + row_sw(`CRD_AT(w_qd, SW, n), `CRD_AT(w_wq, 5, n), 0)
                    && `CRD_AT(w_p1, SW, n) == row_sw(`CRD_AT(w_qd, SW, n), `CRD_AT(w_wq, 5, n), 1)
                                            + row_sw(`CRD_AT(w_qd, SW, n), `CRD_AT(w_wq, 5, n), 2)
                    && `CRD_AT(w_p2, SW, n) == row_sw(`CRD_AT(w_qd, SW, n), `CRD_AT(w_wq, 5, n), 3)
                                            + row_sw(`CRD_AT(w_qd, SW, n), `CRD_AT(w_wq, 5, n), 4);
        k_s01[n] = `CRD_AT(w_s01, SW, n) == `CRD_AT(w_p0, SW, n) + `CRD_AT(w_p1, SW, n);
        k_s[n] = `CRD_AT(w_s, SW, n) == `CRD_AT(w_s01, SW, n) + `CRD_AT(w_p2, SW, n);
        k_pos[n] = w_pos[n] == pos_of(`CRD_AT(w_s, SW, n));
    end
    always @(*) if (!init) begin
        // Each up to the stage that uses it.
        k1_diffs: assert (k_qoff[0] && k_qd[0] && k_rv[0]);
        k1_rows: assert (&k_rows[1:0]);
        k1_s01: assert (&k_s01[2:0]);
        k1_s: assert (&k_s[3:0]);
        k1_pos: assert (&k_pos[4:0]);
        // (The last stage's, m_fb_valid, is P2's: P1 needs it only where a
        // result is due, which i_v gives.)
        l4_valid: assert ({i_v, h_v, g_v, f_v, e_v, d_v, c_v, b_v, a_v} == q_valid[LAT-2:0]);
        if (a_v)
            l5_a: assert (a_q == q_q[QB-1:0] && a_len == w_len[L-1:0] && a_old == w_old[L-1:0]
                          && a_qeq == w_qeq[L-1:0] && a_wq == w_wq[4:0]
                          && a_rem == w_rem[7:0] && a_rv == w_rv[0]);
        if (b_v)
            l5_b: assert (b_q == `CRD_AT(q_q, QB, 1) && b_qoff == `CRD_AT(w_qoff, SW, 1)
                          && b_d == `CRD_AT(w_qd, SW, 1) && b_wq == `CRD_AT(w_wq, 5, 1)
                          && b_remote == w_remote[1]);
        if (c_v)
            l5_c: assert (c_q == `CRD_AT(q_q, QB, 2) && c_p0 == `CRD_AT(w_p0, SW, 2)
                          && c_p1 == `CRD_AT(w_p1, SW, 2) && c_p2 == `CRD_AT(w_p2, SW, 2)
                          && c_remote == w_remote[2]);
        if (d_v)
            l5_d: assert (d_q == `CRD_AT(q_q, QB, 3) && d_s01 == `CRD_AT(w_s01, SW, 3)
                          && d_p2 == `CRD_AT(w_p2, SW, 3) && d_remote == w_remote[3]);
        if (e_v)
            l5_e: assert (e_q == `CRD_AT(q_q, QB, 4) && e_s == `CRD_AT(w_s, SW, 4)
                          && e_remote == w_remote[4]);
        if (f_v)
            l5_f: assert (f_q == `CRD_AT(q_q, QB, 5) && f_local == w_pos[5]
                          && f_remote == w_remote[5]);
        if (g_v)
            l5_g: assert (g_q == `CRD_AT(q_q, QB, 6) && g_local == w_pos[6]
                          && g_remote == w_remote[6]);
        if (h_v)
            l5_h: assert (h_q == `CRD_AT(q_q, QB, 7) && h_local == w_pos[7]
                          && h_remote == w_remote[7]);
        if (i_v)
            l5_i: assert (i_q == `CRD_AT(q_q, QB, 8) && i_local == w_pos[8]
                          && i_remote == w_remote[8]);
    end
`endif

`ifdef COVER
    always @(posedge clk) if (!init) begin
        // A result of each role.
        c1_root: cover (m_fb_valid && m_fb_role == 2'd1);
        c2_edge: cover (m_fb_valid && m_fb_role == 2'd2);
        c3_inner: cover (m_fb_valid && m_fb_role == 2'd3 && m_fb != 0);
    end
`endif
endmodule
