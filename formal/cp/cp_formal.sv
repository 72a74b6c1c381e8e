// cp_formal - properties of CP (docs/cp.md) around the emitted ccrtl_cp.
//
// The wrapper instantiates `ccrtl_cp` from the file `ccrtl emit` writes (the
// file that ships) and checks it against the contract of docs/cp.md. Its
// inputs are free: the solver drives every port of CP in every cycle. The
// only assumption on them is the contract's own: `rst` in the first cycle.
// Parameter loads are not restricted to valid sets (docs/cp.md "Runtime
// registers": a load that fails the checks still has a defined behaviour),
// so every rule below is stated for raw register values.
//
// Shape and reset values come from `ccrtl_cp_params.vh`, which `ccrtl
// formal` writes from the emitted file's header (`CCRTL_<KEY>` for every
// `key = value` line of "Generation-time parameters").
//
// One sby task per property (formal/cp/cp.sby); the task defines CHECK_Pn and
// only that property is asserted. Numbered rules, as in wb2axip:
//
//   P1 mark_thresholds  an admitted ECT packet is never marked at a depth
//                       below kmin (and below kmax), always marked at or above
//                       kmax; the probabilistic ramp in between is left to the
//                       lockstep (docs/formal.md)
//   P2 wred             a not-ECT packet is WRED-dropped iff q >= kdrop; no
//                       other packet is
//   P3 depth            (a, buffer_limit) a packet not WRED-dropped is
//                       tail-dropped iff q + len > buf_max, so no admission
//                       takes the depth above the buf_max in force for it;
//                       (b, depth_count) q_depth equals what was admitted
//                       minus what was dequeued, clamped at 0, with
//                       err_underflow set exactly when a clamp happened
//   P4 latency          exactly one decision per enqueue, 11 cycles after it,
//                       none without an enqueue; idle outputs are 0
//   P5 ecn              the ECN a packet leaves with follows its decision: a CE
//                       packet never leaves not-CE, marks (11) only for ECT,
//                       drops leave 00, admits keep their ECN
//   P6 reset            no decision for enqueues in or before a reset cycle;
//                       q_depth 0 and err_underflow low for the 4 cycles after
//                       it (then the first post-reset events show)
//
// "q" is the depth the packet saw as CP reports it on q_depth, 3 cycles after
// the enqueue (docs/cp.md "Timing"). P3 proves that this is the depth
// implied by the decisions and the dequeues, so P1, P2 and P3 together
// state the rules for the true depth; split this way a depth bug fails P3
// and a decision bug fails the rule it breaks, not every property at once.
//
// Assume-guarantee: P1, P2, P3 and P5 pair a decision with the enqueue of 11
// cycles before, which is P4's statement; those tasks assume P4 (the
// `P4_RULE` macro) and P4's own task asserts it with nothing assumed but the
// inputs' contract. So a decision one cycle late fails P4; the tasks that
// assume it are then not proven (docs/formal.md), rather than failing each
// on a pairing that is off by one.
//
// Internal signals. Induction needs the parameter registers tied to the
// parameters this wrapper saw loaded (a register that is not observed
// before a load can hold anything in an unreachable state). yosys 0.70's
// read_verilog has no hierarchical references (`dut.kdrop$q` becomes an
// undriven implicit wire) and no `bind`; the task script runs
// `expose` on the four wires `kmin$q kmax$q kdrop$q buf_max$q` of ccrtl_cp,
// which makes them output ports, and this wrapper connects them by name.
// The shipped file is read unchanged; a renamed register stops the
// elaboration (no such port) instead of leaving a helper undriven.

`default_nettype none
`include "ccrtl_cp_params.vh"

// P4 is asserted in its own task, assumed where ASSUME_P4 is defined (the
// tasks that pair decisions with enqueues, and the covers), absent elsewhere.
`ifdef CHECK_P4
`define P4_RULE assert
`define P4_ON
`elsif ASSUME_P4
`define P4_RULE assume
`define P4_ON
`endif

module cp_formal (
    input wire clk,
    input wire rst,
    input wire s_enq_valid,
    input wire [`CCRTL_LEN_BITS-1:0] s_enq_len,
    input wire [1:0] s_enq_ecn,
    input wire s_deq_valid,
    input wire [`CCRTL_LEN_BITS-1:0] s_deq_len,
    input wire s_cfg_valid,
    input wire [`CCRTL_DEPTH_BITS-1:0] s_cfg_kmin,
    input wire [`CCRTL_DEPTH_BITS-1:0] s_cfg_kmax,
    input wire [16:0] s_cfg_pmax,
    input wire [`CCRTL_DEPTH_BITS-1:0] s_cfg_kdrop,
    input wire [`CCRTL_DEPTH_BITS-1:0] s_cfg_buf_max,
    input wire [31:0] s_cfg_seed
);
    localparam D = `CCRTL_DEPTH_BITS;
    localparam L = `CCRTL_LEN_BITS;
    localparam N = 11;  // decision latency (docs/cp.md "Timing")
    localparam LAG = 3; // q_depth lag

    wire m_dec_valid;
    wire [1:0] m_dec_action;
    wire [1:0] m_dec_ecn;
    wire [D-1:0] q_depth;
    wire err_underflow;
    // Parameter registers of CP, exposed by the task script.
    wire [D-1:0] h_kmin, h_kmax, h_kdrop, h_buf_max;

    ccrtl_cp dut (
        .clk(clk),
        .rst(rst),
        .s_enq_valid(s_enq_valid),
        .s_enq_len(s_enq_len),
        .s_enq_ecn(s_enq_ecn),
        .s_deq_valid(s_deq_valid),
        .s_deq_len(s_deq_len),
        .s_cfg_valid(s_cfg_valid),
        .s_cfg_kmin(s_cfg_kmin),
        .s_cfg_kmax(s_cfg_kmax),
        .s_cfg_pmax(s_cfg_pmax),
        .s_cfg_kdrop(s_cfg_kdrop),
        .s_cfg_buf_max(s_cfg_buf_max),
        .s_cfg_seed(s_cfg_seed),
        .m_dec_valid(m_dec_valid),
        .m_dec_action(m_dec_action),
        .m_dec_ecn(m_dec_ecn),
        .q_depth(q_depth),
        .err_underflow(err_underflow),
        .kmin$q(h_kmin),
        .kmax$q(h_kmax),
        .kdrop$q(h_kdrop),
        .buf_max$q(h_buf_max)
    );

    // ---- The input contract ----------------------------------------------
    reg f_past_valid = 1'b0;
    always @(posedge clk) f_past_valid <= 1'b1;
    // Hold rst high for at least one cycle after power-up.
    always @(*) if (!f_past_valid) assume (rst);

    // Cycles since the last reset cycle: 1 in the cycle after it, saturating
    // at 15; 0 before the first reset. Outputs during a reset cycle are the
    // normal values of that cycle, so a reset acts from the next cycle.
    reg [3:0] f_age = 4'd0;
    always @(posedge clk)
        if (rst) f_age <= 4'd1;
        else if (f_age != 4'd0 && f_age != 4'd15) f_age <= f_age + 4'd1;

    // ---- Parameters in force, as loaded through the ports -----------------
    reg [D-1:0] f_kmin, f_kmax, f_kdrop, f_buf_max;
    always @(posedge clk)
        if (rst) begin
            f_kmin <= `CCRTL_RESET_KMIN;
            f_kmax <= `CCRTL_RESET_KMAX;
            f_kdrop <= `CCRTL_RESET_KDROP;
            f_buf_max <= `CCRTL_RESET_BUF_MAX;
        end else if (s_cfg_valid) begin
            f_kmin <= s_cfg_kmin;
            f_kmax <= s_cfg_kmax;
            f_kdrop <= s_cfg_kdrop;
            f_buf_max <= s_cfg_buf_max;
        end

    // ---- The events of the last N cycles ------------------------------------
    // Slot k holds, during cycle n, the event of cycle n - k: `live` (not a
    // reset cycle and no reset since), the enqueue and dequeue, and the
    // parameters in force in its cycle. When the event reaches slot LAG, the
    // depth it saw is on q_depth: slot LAG+1 on keeps that depth (`qc`, the
    // flag `ufc`) and the four comparisons the rules need, instead of the
    // parameters.
    reg [N:1] s_live, s_ev, s_dv;
    // (Arrays read at constant indices only: yosys makes them registers.)
    (* mem2reg *) reg [L-1:0] s_len [1:N];
    (* mem2reg *) reg [1:0] s_ecn [1:N];
    (* mem2reg *) reg [L-1:0] s_dlen [1:N];
    (* mem2reg *) reg [D-1:0] s_kmin [1:LAG];
    (* mem2reg *) reg [D-1:0] s_kmax [1:LAG];
    (* mem2reg *) reg [D-1:0] s_kdrop [1:LAG];
    (* mem2reg *) reg [D-1:0] s_buf_max [1:LAG];
    (* mem2reg *) reg [D-1:0] s_qc [LAG+1:N];
    reg [N:LAG+1] s_ufc, s_ge_kmin, s_ge_kmax, s_ge_kdrop, s_over;
    // For the covers only: q + len == buf_max, q > buf_max.
    reg [N:LAG+1] s_full, s_above;

    // q + len of the event in slot LAG (D + 1 bits, no wrap)
    wire [D:0] f_q_len = {1'b0, q_depth} + {{(D+1-L){1'b0}}, s_len[LAG]};

    integer k;
    always @(posedge clk) begin
        for (k = N; k > 1; k = k - 1) begin
            s_len[k] <= s_len[k-1];
            s_ecn[k] <= s_ecn[k-1];
            s_dlen[k] <= s_dlen[k-1];
        end
        s_live <= {s_live[N-1:1], 1'b1};
        s_ev <= {s_ev[N-1:1], s_enq_valid};
        s_dv <= {s_dv[N-1:1], s_deq_valid};
        s_len[1] <= s_enq_len;
        s_ecn[1] <= s_enq_ecn;
        s_dlen[1] <= s_deq_len;
        for (k = LAG; k > 1; k = k - 1) begin
            s_kmin[k] <= s_kmin[k-1];
            s_kmax[k] <= s_kmax[k-1];
            s_kdrop[k] <= s_kdrop[k-1];
            s_buf_max[k] <= s_buf_max[k-1];
        end
        s_kmin[1] <= f_kmin;
        s_kmax[1] <= f_kmax;
        s_kdrop[1] <= f_kdrop;
        s_buf_max[1] <= f_buf_max;
        for (k = N; k > LAG + 1; k = k - 1) s_qc[k] <= s_qc[k-1];
        s_qc[LAG+1] <= q_depth;
        s_ufc <= {s_ufc[N-1:LAG+1], err_underflow};
        s_ge_kmin <= {s_ge_kmin[N-1:LAG+1], q_depth >= s_kmin[LAG]};
        s_ge_kmax <= {s_ge_kmax[N-1:LAG+1], q_depth >= s_kmax[LAG]};
        s_ge_kdrop <= {s_ge_kdrop[N-1:LAG+1], q_depth >= s_kdrop[LAG]};
        s_over <= {s_over[N-1:LAG+1], f_q_len > {1'b0, s_buf_max[LAG]}};
        s_full <= {s_full[N-1:LAG+1], f_q_len == {1'b0, s_buf_max[LAG]}};
        s_above <= {s_above[N-1:LAG+1], q_depth > s_buf_max[LAG]};
        if (rst) begin
            s_live <= 0;
            s_ev <= 0;
            s_dv <= 0;
        end
    end

    // ---- The decision of this cycle and the event it belongs to -------------
    wire e_live = s_live[N];
    wire e_enq = s_live[N] && s_ev[N];
    wire [1:0] e_ecn = s_ecn[N];
    wire e_ect = e_ecn == 2'b01 || e_ecn == 2'b10;
    wire e_admitted = m_dec_action == 2'd0 || m_dec_action == 2'd1;

    // ---- The depth implied by the decisions and dequeues ----------------------
    // f_q is the depth the event in slot N saw: it starts at 0 after a reset
    // and follows every event in order, enqueue first, as its decision
    // leaves. D+2 bits: an admission beyond the counter cannot wrap here.
    reg [D+1:0] f_q = 0;
    reg f_uf = 1'b0;
    wire [D+1:0] f_after_enq = f_q + ((e_enq && m_dec_valid && e_admitted)
                                      ? {{2{1'b0}}, {(D-L){1'b0}}, s_len[N]} : {(D+2){1'b0}});
    always @(posedge clk)
        if (rst) begin
            f_q <= 0;
            f_uf <= 1'b0;
        end else if (e_live) begin
            f_q <= f_after_enq;
            if (s_dv[N]) begin
                if ({{(D+2-L){1'b0}}, s_dlen[N]} > f_after_enq) begin
                    f_q <= 0;
                    f_uf <= 1'b1;
                end else
                    f_q <= f_after_enq - {{(D+2-L){1'b0}}, s_dlen[N]};
            end
        end

    // ---- P4: one decision per enqueue, latency N ----------------------------
    // From the 12th cycle after a reset, every slot holds a live event.
    wire f_steady = f_age > N;
`ifdef P4_ON
    always @(*)
        if (f_past_valid && f_steady) begin
            p4_decision_iff_enqueue: `P4_RULE (m_dec_valid == s_ev[N]);
            if (!m_dec_valid)
                p4_idle_outputs_zero: `P4_RULE (m_dec_action == 2'd0 && m_dec_ecn == 2'd0);
        end
`endif

`ifdef CHECK_P1
    // ---- P1: marking thresholds ------------------------------------------
    always @(*)
        if (f_past_valid && e_enq && m_dec_valid && e_ect && e_admitted) begin
            // below kmin and below kmax (if kmin > kmax the ramp is empty and
            // the step is at kmax): never marked
            if (m_dec_action == 2'd1)
                p1_no_mark_below_kmin: assert (s_ge_kmin[N] || s_ge_kmax[N]);
            // at or above kmax: always marked
            if (s_ge_kmax[N])
                p1_mark_at_kmax: assert (m_dec_action == 2'd1);
        end
    always @(*)
        if (f_past_valid) begin
            p1_kmin_register: assert (h_kmin == f_kmin);
            p1_kmax_register: assert (h_kmax == f_kmax);
        end
`endif

`ifdef CHECK_P2
    // ---- P2: WRED drop -----------------------------------------------------
    always @(*)
        if (f_past_valid && e_enq && m_dec_valid) begin
            if (e_ecn == 2'b00)
                p2_not_ect_dropped_iff_ge_kdrop: assert ((m_dec_action == 2'd2) == s_ge_kdrop[N]);
            else
                p2_only_not_ect_wred_dropped: assert (m_dec_action != 2'd2);
        end
    always @(*)
        if (f_past_valid)
            p2_kdrop_register: assert (h_kdrop == f_kdrop);
`endif

`ifdef CHECK_P3A
    // ---- P3a: the buffer limit ---------------------------------------------
    // A packet that is not WRED-dropped is admitted iff q + len <= buf_max,
    // with the buf_max of its own cycle: no admission takes the depth above
    // it (a load may lower buf_max below the depth; then every enqueue is
    // tail-dropped until the queue drains, docs/cp.md).
    always @(*)
        if (f_past_valid && e_enq && m_dec_valid) begin
            if (e_admitted)
                p3_no_admission_above_buf_max: assert (!s_over[N]);
            if (m_dec_action == 2'd3)
                p3_tail_drop_only_above_buf_max: assert (s_over[N]);
        end
    always @(*)
        if (f_past_valid)
            p3_buf_max_register: assert (h_buf_max == f_buf_max);
`endif

`ifdef CHECK_P3B
    // ---- P3b: the depth count ----------------------------------------------
    // q_depth (the depth each event saw) is what the decisions admitted minus
    // what was dequeued, clamped at 0; err_underflow rises exactly with the
    // first clamp and stays.
    always @(*)
        if (f_past_valid && e_live) begin
            p3_depth_is_admitted_minus_dequeued: assert (f_q == {2'b00, s_qc[N]});
            p3_underflow_exactly_on_clamp: assert (f_uf == s_ufc[N]);
        end
`endif

`ifdef CHECK_P5
    // ---- P5: the ECN a packet leaves with ----------------------------------
    always @(*)
        if (f_past_valid && e_enq && m_dec_valid) begin
            if (m_dec_action == 2'd2 || m_dec_action == 2'd3)
                p5_drop_leaves_00: assert (m_dec_ecn == 2'b00);
            if (m_dec_action == 2'd0)
                p5_admit_keeps_ecn: assert (m_dec_ecn == e_ecn);
            if (m_dec_action == 2'd1)
                p5_mark_is_ce_of_ect: assert (m_dec_ecn == 2'b11 && e_ect);
            if (e_ecn == 2'b11 && e_admitted)
                p5_ce_stays_ce: assert (m_dec_ecn == 2'b11);
        end
`endif

`ifdef CHECK_P6
    // ---- P6: reset -----------------------------------------------------------
    always @(*)
        if (f_past_valid && f_age != 0 && !f_steady)
            p6_no_decision_from_before_reset:
                assert (!m_dec_valid && m_dec_action == 2'd0 && m_dec_ecn == 2'd0);
    always @(*)
        if (f_past_valid && f_age != 0 && f_age <= LAG + 1)
            p6_depth_zero_after_reset: assert (q_depth == 0 && !err_underflow);
`endif

`ifdef COVER
    // ---- Covers: every kind of decision, and the corners, are reachable -------
    // under the same input contract (so no proof above passes vacuously).
    always @(*)
        if (f_past_valid && e_enq && m_dec_valid) begin
            c_admit_not_ect: cover (e_ecn == 2'b00 && m_dec_action == 2'd0);
            c_admit_ce: cover (e_ecn == 2'b11 && m_dec_action == 2'd0);
            c_admit_ect_unmarked: cover (e_ect && m_dec_action == 2'd0);
            c_mark_ect: cover (e_ect && m_dec_action == 2'd1);
            c_mark_on_ramp: cover (e_ect && m_dec_action == 2'd1 && s_ge_kmin[N] && !s_ge_kmax[N]);
            c_unmarked_on_ramp: cover (e_ect && m_dec_action == 2'd0 && s_ge_kmin[N] && !s_ge_kmax[N]
                                       && s_qc[N] != 0);
            c_wred_drop: cover (m_dec_action == 2'd2);
            c_tail_drop_ect: cover (e_ect && m_dec_action == 2'd3);
            c_tail_drop_ce: cover (e_ecn == 2'b11 && m_dec_action == 2'd3);
            c_fill_to_buf_max: cover (e_admitted && s_full[N] && s_qc[N] != 0);
            c_tail_drop_above_buf_max: cover (m_dec_action == 2'd3 && s_above[N]);
            c_step_mark_kmin_above_kmax: cover (e_ect && m_dec_action == 2'd1 && s_ge_kmax[N]
                                                && !s_ge_kmin[N]);
        end
    always @(*) begin
        c_underflow: cover (f_past_valid && f_age > LAG + 1 && err_underflow);
        c_reset_with_enqueues_in_flight: cover (f_past_valid && f_steady && rst && s_ev[N] && s_ev[1]);
        c_first_decision_after_reset: cover (f_past_valid && f_age == N + 1 && m_dec_valid);
    end
`endif

endmodule
