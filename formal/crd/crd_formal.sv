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
// computes `Fb = Qoff + floor(wq * Qdelta / 8)` with a multiplier, as the
// rule is written; `local = Fb > 0`, `remote = age > 0 && rem > 0`.
//
// One sby task per property (formal/crd/crd.sby); the task defines CHECK_Pn.
//
//   P1 flags     the result of a sample of cycle t, on the outputs in
//                t + 10, names its queue and has `fb_local` = (Fb > 0),
//                `fb_remote` = the contract's remote flag and
//                `fb_role` = {fb_remote, fb_local} (the issue's "crd's
//                flags follow Fb's sign").
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
// `c_t == q`. Internal registers come through `expose` in the task script
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
        .\hold$q (hold)
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
    wire signed [31:0] qoff = $signed({16'b0, s_len}) - $signed({16'b0, c_qeq});
    wire signed [31:0] qdelta = $signed({16'b0, s_len}) - $signed({16'b0, s_old});
    // wq * Qdelta, written as the sum of its five rows (binary
    // multiplication by the 5-bit wq; a 32 x 32 `*` is needlessly wide for
    // the solver).
    wire signed [31:0] prod = (c_wq[0] ? qdelta : 32'sd0) + (c_wq[1] ? qdelta <<< 1 : 32'sd0)
                              + (c_wq[2] ? qdelta <<< 2 : 32'sd0) + (c_wq[3] ? qdelta <<< 3 : 32'sd0)
                              + (c_wq[4] ? qdelta <<< 4 : 32'sd0);
    wire signed [31:0] fb = qoff + (prod >>> 3);
    wire want_local = fb > 0;
    wire want_remote = s_age != 0 && s_rem != 0;

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

    // The samples in flight and what the contract says of them.
    reg [LAT-1:0] q_valid, q_local, q_remote;
    reg [QB*LAT-1:0] q_q;
    always @(posedge clk) begin
        q_valid <= {q_valid[LAT-2:0], smp};
        q_local <= {q_local[LAT-2:0], want_local};
        q_remote <= {q_remote[LAT-2:0], want_remote};
        q_q <= {q_q[QB*(LAT-1)-1:0], sq};
        if (rst) q_valid <= 0;
    end
    wire o_valid = q_valid[LAT-1];
    wire o_local = q_local[LAT-1];
    wire o_remote = q_remote[LAT-1];
    wire [QB-1:0] o_q = q_q[QB*LAT-1 -: QB];

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

`ifdef COVER
    always @(posedge clk) if (!init) begin
        // A result of each role.
        c1_root: cover (m_fb_valid && m_fb_role == 2'd1);
        c2_edge: cover (m_fb_valid && m_fb_role == 2'd2);
        c3_inner: cover (m_fb_valid && m_fb_role == 2'd3 && m_fb != 0);
    end
`endif
endmodule
