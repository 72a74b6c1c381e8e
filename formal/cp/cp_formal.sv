// cp_formal - properties of CP (golden/src/cp.rs) around the emitted ccrtl_cp.
//
// The wrapper instantiates `ccrtl_cp` from the file `ccrtl emit` writes (the
// file that ships) and checks it against the contract of the golden model's
// module docs. Its inputs are free: the solver drives every port of CP in
// every cycle. The only assumption on them is the contract's own: `rst` in
// the first cycle. Parameter loads are not restricted to valid sets (a load
// that fails the checks still has a defined behaviour), so every rule below
// is stated for raw register values.
//
// Shape and reset values come from `ccrtl_cp_params.vh`, which `ccrtl
// formal` writes from the emitted file's header (`CCRTL_<KEY>` for every
// `key = value` line of "Generation-time parameters", and `CCRTL_<KEY>_<VALUE>`
// so that a value can be tested with `ifdef: `CCRTL_QUEUES_2`,
// `CCRTL_MARK_AT_DEQUEUE`). The wrapper is written for every shape of the
// menu: any widths, Q = 1, 2, 4 or 8 queues, marking at enqueue or dequeue.
//
// One sby task per property (formal/cp/cp.sby); the task defines CHECK_Pn and
// only that property is asserted. Numbered rules, as in wb2axip. Every rule
// is per queue: an event is judged on its own queue's depth and profile.
//
//   P1 mark_thresholds  the event that can be marked (an admitted ECT enqueue,
//                       or with mark_at = dequeue an ECT dequeue) is never
//                       marked at a depth of its queue below kmin (and below
//                       kmax), always at or above kmax; nothing else is ever
//                       marked (with mark_at = enqueue no dequeue, with
//                       mark_at = dequeue no enqueue, and never a CE or
//                       not-ECT dequeue); the probabilistic ramp in between is
//                       left to the lockstep (docs/formal.md)
//   P2 wred             a not-ECT packet is WRED-dropped iff q >= kdrop; no
//                       other packet is
//   P3 depth            (a, buffer_limit) a packet not WRED-dropped is
//                       tail-dropped iff q + len > buf_max, so no admission
//                       takes its queue above the buf_max in force for it
//                       (and no depth register above D bits);
//                       (b, depth_count) each queue's depth is what the
//                       decisions admitted to it minus what was dequeued from
//                       it, clamped at 0, with its underflow bit set exactly
//                       when a clamp happened on it: events of another queue
//                       never change it (queue isolation); q_depth shows the
//                       queue depth_sel named 3 cycles before
//   P4 latency          exactly one decision per enqueue and one per dequeue,
//                       12 cycles after it, none without one; idle outputs
//                       are 0
//   P5 ecn              the ECN a packet leaves with follows its decision: a CE
//                       packet never leaves not-CE, marks (11) only for ECT,
//                       drops leave 00, admits and unmarked dequeues keep
//                       their ECN
//   P6 reset            no decision for events in or before a reset cycle;
//                       q_depth 0 and err_underflow 0 for the 4 cycles after
//                       it (then the first post-reset events show)
//
// "q" is the depth of the event's queue as CP holds it at the start of the
// event's cycle (golden/src/cp.rs "Timing"): its depth register 3 cycles
// later, which q_depth shows then if depth_sel named that queue. With one
// queue it is what the port shows; with several, q_depth shows only the
// selected one, so the wrapper reads every queue's depth register (below).
// The register is S = D + 3 bits wide; each rule reads it as CP's own logic
// does: the marking compares its low D bits (what q_depth shows) with kmin
// and kmax, the WRED and tail tests the whole register. P3a proves the three
// bits above D are 0, so the two readings are one. P3b proves that each
// register is the depth implied by the decisions and the dequeues of its
// queue and that q_depth shows the selected one, so P1, P2 and P3 together
// state the rules for the true depth; split this way a depth bug fails P3b
// and a decision bug fails the rule it breaks, not every property at once.
//
// Assume-guarantee: P1, P2, P3 and P5 pair a decision with the event of 12
// cycles before, which is P4's statement; those tasks assume P4 (the
// `P4_RULE` macro) and P4's own task asserts it with nothing assumed but the
// inputs' contract. So a decision one cycle late fails P4; the tasks that
// assume it are then not proven (docs/formal.md), rather than failing each
// on a pairing that is off by one.
//
// Internal signals. yosys 0.70's read_verilog has no hierarchical references
// (`dut.kdrop$0$q` becomes an undriven implicit wire) and no `bind`; the task
// script runs `expose` on ccrtl_cp's per-queue registers `kmin$<i>$q
// kmax$<i>$q kdrop$<i>$q buf_max$<i>$q depth$<i>$q`, which makes them output
// ports, and this wrapper connects them by name, for i < Q. The shipped file
// is read unchanged; a renamed register stops the elaboration (no such
// port) instead of leaving a helper undriven. They are used for two things:
//   - the parameter registers, tied to the loads the wrapper saw on the
//     ports (induction needs it: a register that nothing observes before
//     the next load could hold anything in an unreachable state);
//   - the depth registers: the q of an event on a queue depth_sel did not
//     name (P1-P3a), and P3b's statement that every queue's depth is right,
//     not only the selected one (which induction needs too).

`default_nettype none
`include "ccrtl_cp_params.vh"

// P4 is asserted in its own task, assumed where ASSUME_P4 is defined (the
// tasks that pair decisions with events, and the covers), absent elsewhere.
`ifdef CHECK_P4
`define P4_RULE assert
`define P4_ON
`elsif ASSUME_P4
`define P4_RULE assume
`define P4_ON
`endif

// Queues beyond the first that the emitted file has (its Vec registers are
// `<name>$<i>`, i < Q).
`ifdef CCRTL_QUEUES_8
`define F_Q2
`define F_Q4
`define F_Q8
`elsif CCRTL_QUEUES_4
`define F_Q2
`define F_Q4
`elsif CCRTL_QUEUES_2
`define F_Q2
`endif

// The exposed registers of queue i, connected to slice i of the helpers.
`define F_QUEUE_REGS(i) \
        .kmin$``i``$q(h_kmin[(i)*D +: D]), \
        .kmax$``i``$q(h_kmax[(i)*D +: D]), \
        .kdrop$``i``$q(h_kdrop[(i)*S +: S]), \
        .buf_max$``i``$q(h_buf_max[(i)*S +: S]), \
        .depth$``i``$q(h_depth[(i)*S +: S]),

module cp_formal #(
    // Number of queues, and the width of a queue index port: log2(Q), at
    // least 1 (fixed by the header; parameters only so that the ports can
    // use them).
    parameter Q = `CCRTL_QUEUES,
    parameter QB = (`CCRTL_QUEUES > 1) ? $clog2(`CCRTL_QUEUES) : 1
) (
    input wire clk,
    input wire rst,
    input wire s_enq_valid,
    input wire [`CCRTL_LEN_BITS-1:0] s_enq_len,
    input wire [1:0] s_enq_ecn,
    input wire [QB-1:0] s_enq_queue,
    input wire s_deq_valid,
    input wire [`CCRTL_LEN_BITS-1:0] s_deq_len,
    input wire [1:0] s_deq_ecn,
    input wire [QB-1:0] s_deq_queue,
    input wire s_cfg_valid,
    input wire [QB-1:0] s_cfg_queue,
    input wire [`CCRTL_DEPTH_BITS-1:0] s_cfg_kmin,
    input wire [`CCRTL_DEPTH_BITS-1:0] s_cfg_kmax,
    input wire [16:0] s_cfg_pmax,
    input wire [`CCRTL_DEPTH_BITS-1:0] s_cfg_kdrop,
    input wire [`CCRTL_DEPTH_BITS-1:0] s_cfg_buf_max,
    input wire [31:0] s_cfg_seed,
    input wire [QB-1:0] depth_sel
);
    localparam D = `CCRTL_DEPTH_BITS;
    localparam L = `CCRTL_LEN_BITS;
    // Width of CP's depth registers (the loop's signed sums).
    localparam S = D + 3;
    localparam N = 12;  // decision latency (golden LATENCY)
    localparam LAG = 3; // q_depth lag (golden DEPTH_LAG)
`ifdef CCRTL_MARK_AT_DEQUEUE
    localparam MARK_DEQ = 1;
`else
    localparam MARK_DEQ = 0;
`endif

    wire m_dec_valid;
    wire [1:0] m_dec_action;
    wire [1:0] m_dec_ecn;
    wire m_deq_valid;
    wire m_deq_mark;
    wire [1:0] m_deq_ecn;
    wire [D-1:0] q_depth;
    wire [Q-1:0] err_underflow;
    // Registers of CP, exposed by the task script: queue i's in slice i.
    // kdrop and buf_max are held S bits wide in CP (their top three bits 0),
    // compared below with the loaded value widened to S bits.
    wire [Q*D-1:0] h_kmin, h_kmax;
    wire [Q*S-1:0] h_kdrop, h_buf_max, h_depth;

    ccrtl_cp dut (
        .clk(clk),
        .rst(rst),
        .s_enq_valid(s_enq_valid),
        .s_enq_len(s_enq_len),
        .s_enq_ecn(s_enq_ecn),
        .s_enq_queue(s_enq_queue),
        .s_deq_valid(s_deq_valid),
        .s_deq_len(s_deq_len),
        .s_deq_ecn(s_deq_ecn),
        .s_deq_queue(s_deq_queue),
        .s_cfg_valid(s_cfg_valid),
        .s_cfg_queue(s_cfg_queue),
        .s_cfg_kmin(s_cfg_kmin),
        .s_cfg_kmax(s_cfg_kmax),
        .s_cfg_pmax(s_cfg_pmax),
        .s_cfg_kdrop(s_cfg_kdrop),
        .s_cfg_buf_max(s_cfg_buf_max),
        .s_cfg_seed(s_cfg_seed),
        .depth_sel(depth_sel),
        .m_dec_valid(m_dec_valid),
        .m_dec_action(m_dec_action),
        .m_dec_ecn(m_dec_ecn),
        .m_deq_valid(m_deq_valid),
        .m_deq_mark(m_deq_mark),
        .m_deq_ecn(m_deq_ecn),
        .q_depth(q_depth),
        `F_QUEUE_REGS(0)
`ifdef F_Q2
        `F_QUEUE_REGS(1)
`endif
`ifdef F_Q4
        `F_QUEUE_REGS(2)
        `F_QUEUE_REGS(3)
`endif
`ifdef F_Q8
        `F_QUEUE_REGS(4)
        `F_QUEUE_REGS(5)
        `F_QUEUE_REGS(6)
        `F_QUEUE_REGS(7)
`endif
        .err_underflow(err_underflow)
    );

    // The queue an index names: its low log2(Q) bits; with one queue, 0.
    function [QB-1:0] queue_of(input [QB-1:0] index);
        queue_of = (Q == 1) ? {QB{1'b0}} : index;
    endfunction

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

    // ---- Each queue's profile in force, as loaded through the ports --------
    // (queue i's in slice i; a load replaces the profile of s_cfg_queue)
    reg [Q*D-1:0] f_kmin, f_kmax, f_kdrop, f_buf_max;
    wire [QB-1:0] cfg_q = queue_of(s_cfg_queue);
    genvar gi;
    generate
        for (gi = 0; gi < Q; gi = gi + 1) begin : gp
            always @(posedge clk)
                if (rst) begin
                    f_kmin[gi*D +: D] <= `CCRTL_RESET_KMIN;
                    f_kmax[gi*D +: D] <= `CCRTL_RESET_KMAX;
                    f_kdrop[gi*D +: D] <= `CCRTL_RESET_KDROP;
                    f_buf_max[gi*D +: D] <= `CCRTL_RESET_BUF_MAX;
                end else if (s_cfg_valid && cfg_q == gi) begin
                    f_kmin[gi*D +: D] <= s_cfg_kmin;
                    f_kmax[gi*D +: D] <= s_cfg_kmax;
                    f_kdrop[gi*D +: D] <= s_cfg_kdrop;
                    f_buf_max[gi*D +: D] <= s_cfg_buf_max;
                end
        end
    endgenerate

    // The drop thresholds widened to CP's S-bit registers (slice i: queue i).
    wire [Q*S-1:0] f_kdrop_s, f_buf_max_s;
    generate
        for (gi = 0; gi < Q; gi = gi + 1) begin : gw
            assign f_kdrop_s[gi*S +: S] = {3'b000, f_kdrop[gi*D +: D]};
            assign f_buf_max_s[gi*S +: S] = {3'b000, f_buf_max[gi*D +: D]};
        end
    endgenerate

    // ---- The events of the last N cycles ------------------------------------
    // Slot k holds, during cycle n, the events of cycle n - k: `live` (not a
    // reset cycle and no reset since), the enqueue and the dequeue with their
    // queues, depth_sel, and the thresholds of the enqueue's queue (and the
    // ramp of the dequeue's) in force in its cycle. When the events reach
    // slot LAG, CP's depth registers hold the depths at the start of their
    // cycle (q_depth shows the selected one): slot LAG+1 on keeps the
    // comparisons the rules need instead of the thresholds, and for P3b every
    // queue's depth, q_depth and err_underflow.
    reg [N:1] s_live, s_ev, s_dv;
    // (Arrays read at constant indices only: yosys makes them registers.)
    (* mem2reg *) reg [QB-1:0] s_eq [1:N];
    (* mem2reg *) reg [QB-1:0] s_dq [1:N];
    (* mem2reg *) reg [QB-1:0] s_sel [1:N];
    (* mem2reg *) reg [L-1:0] s_len [1:N];
    (* mem2reg *) reg [1:0] s_ecn [1:N];
    (* mem2reg *) reg [L-1:0] s_dlen [1:N];
    (* mem2reg *) reg [1:0] s_decn [1:N];
    (* mem2reg *) reg [D-1:0] s_kmin [1:LAG];
    (* mem2reg *) reg [D-1:0] s_kmax [1:LAG];
    (* mem2reg *) reg [D-1:0] s_kdrop [1:LAG];
    (* mem2reg *) reg [D-1:0] s_buf_max [1:LAG];
    (* mem2reg *) reg [D-1:0] s_dkmin [1:LAG];
    (* mem2reg *) reg [D-1:0] s_dkmax [1:LAG];
    // For P3b: every queue's depth register, q_depth, err_underflow.
    (* mem2reg *) reg [Q*S-1:0] s_qall [LAG+1:N];
    (* mem2reg *) reg [D-1:0] s_qshow [LAG+1:N];
    (* mem2reg *) reg [Q-1:0] s_ufc [LAG+1:N];
    // The enqueue's comparisons, on its queue's depth q.
    reg [N:LAG+1] s_ge_kmin, s_ge_kmax, s_ge_kdrop, s_over;
    // For the covers only: q + len == buf_max, q > buf_max, q != 0.
    reg [N:LAG+1] s_full, s_above, s_qnz;
    // The dequeue's comparisons, on its queue's depth; q != 0 (covers).
    reg [N:LAG+1] s_d_ge_kmin, s_d_ge_kmax, s_d_qnz;

    // The depth of the event's queue at the start of its cycle, for the
    // events in slot LAG (S bits: the whole register).
    wire [QB-1:0] f_eq3 = queue_of(s_eq[LAG]);
    wire [QB-1:0] f_dq3 = queue_of(s_dq[LAG]);
    wire [S-1:0] f_qe = h_depth[f_eq3*S +: S];
    wire [S-1:0] f_qd = h_depth[f_dq3*S +: S];
    // The same, as q_depth would show them (the low D bits: what the marking
    // compares with kmin and kmax).
    wire [D-1:0] f_qe_d = f_qe[D-1:0];
    wire [D-1:0] f_qd_d = f_qd[D-1:0];
    // q + len of the enqueue in slot LAG (S + 1 bits, no wrap)
    wire [S:0] f_q_len = {1'b0, f_qe} + {{(S+1-L){1'b0}}, s_len[LAG]};
    // The drop thresholds, S bits.
    wire [S-1:0] t_kdrop = {3'b000, s_kdrop[LAG]};
    wire [S-1:0] t_buf_max = {3'b000, s_buf_max[LAG]};

    wire [QB-1:0] enq_q = queue_of(s_enq_queue);
    wire [QB-1:0] deq_q = queue_of(s_deq_queue);
    integer k;
    always @(posedge clk) begin
        for (k = N; k > 1; k = k - 1) begin
            s_eq[k] <= s_eq[k-1];
            s_dq[k] <= s_dq[k-1];
            s_sel[k] <= s_sel[k-1];
            s_len[k] <= s_len[k-1];
            s_ecn[k] <= s_ecn[k-1];
            s_dlen[k] <= s_dlen[k-1];
            s_decn[k] <= s_decn[k-1];
        end
        s_live <= {s_live[N-1:1], 1'b1};
        s_ev <= {s_ev[N-1:1], s_enq_valid};
        s_dv <= {s_dv[N-1:1], s_deq_valid};
        s_eq[1] <= s_enq_queue;
        s_dq[1] <= s_deq_queue;
        s_sel[1] <= depth_sel;
        s_len[1] <= s_enq_len;
        s_ecn[1] <= s_enq_ecn;
        s_dlen[1] <= s_deq_len;
        s_decn[1] <= s_deq_ecn;
        for (k = LAG; k > 1; k = k - 1) begin
            s_kmin[k] <= s_kmin[k-1];
            s_kmax[k] <= s_kmax[k-1];
            s_kdrop[k] <= s_kdrop[k-1];
            s_buf_max[k] <= s_buf_max[k-1];
            s_dkmin[k] <= s_dkmin[k-1];
            s_dkmax[k] <= s_dkmax[k-1];
        end
        s_kmin[1] <= f_kmin[enq_q*D +: D];
        s_kmax[1] <= f_kmax[enq_q*D +: D];
        s_kdrop[1] <= f_kdrop[enq_q*D +: D];
        s_buf_max[1] <= f_buf_max[enq_q*D +: D];
        s_dkmin[1] <= f_kmin[deq_q*D +: D];
        s_dkmax[1] <= f_kmax[deq_q*D +: D];
        for (k = N; k > LAG + 1; k = k - 1) begin
            s_qall[k] <= s_qall[k-1];
            s_qshow[k] <= s_qshow[k-1];
            s_ufc[k] <= s_ufc[k-1];
        end
        s_qall[LAG+1] <= h_depth;
        s_qshow[LAG+1] <= q_depth;
        s_ufc[LAG+1] <= err_underflow;
        s_ge_kmin <= {s_ge_kmin[N-1:LAG+1], f_qe_d >= s_kmin[LAG]};
        s_ge_kmax <= {s_ge_kmax[N-1:LAG+1], f_qe_d >= s_kmax[LAG]};
        s_ge_kdrop <= {s_ge_kdrop[N-1:LAG+1], f_qe >= t_kdrop};
        s_over <= {s_over[N-1:LAG+1], f_q_len > {1'b0, t_buf_max}};
        s_full <= {s_full[N-1:LAG+1], f_q_len == {1'b0, t_buf_max}};
        s_above <= {s_above[N-1:LAG+1], f_qe > t_buf_max};
        s_qnz <= {s_qnz[N-1:LAG+1], f_qe_d != 0};
        s_d_ge_kmin <= {s_d_ge_kmin[N-1:LAG+1], f_qd_d >= s_dkmin[LAG]};
        s_d_ge_kmax <= {s_d_ge_kmax[N-1:LAG+1], f_qd_d >= s_dkmax[LAG]};
        s_d_qnz <= {s_d_qnz[N-1:LAG+1], f_qd_d != 0};
        if (rst) begin
            s_live <= 0;
            s_ev <= 0;
            s_dv <= 0;
        end
    end

    // ---- The decisions of this cycle and the events they belong to ----------
    wire e_live = s_live[N];
    wire e_enq = s_live[N] && s_ev[N];
    wire e_deq = s_live[N] && s_dv[N];
    wire [QB-1:0] e_q = queue_of(s_eq[N]);
    wire [QB-1:0] e_dq = queue_of(s_dq[N]);
    wire [1:0] e_ecn = s_ecn[N];
    wire e_ect = e_ecn == 2'b01 || e_ecn == 2'b10;
    wire e_admitted = m_dec_action == 2'd0 || m_dec_action == 2'd1;
    wire [1:0] e_decn = s_decn[N];
    wire e_dect = e_decn == 2'b01 || e_decn == 2'b10;

    // ---- Each queue's depth implied by the decisions and dequeues ------------
    // f_q (slice i: queue i) is the depth the events in slot N saw: it starts
    // at 0 after a reset and follows every event of its queue in order as
    // its decision leaves: the enqueue's length if it was admitted, minus
    // the dequeue's, and 0 (with the queue's underflow flag) if that is
    // negative, that is if the dequeue is longer than the queue after the
    // enqueue. Events of other queues leave it alone. S bits, two's
    // complement (the width of CP's depth registers): exact while the depth
    // is below 2^(S-1) = 2^(D+2); P3a proves it stays at most buf_max < 2^D.
    reg [Q*S-1:0] f_q = 0;
    reg [Q-1:0] f_uf = 0;
    generate
        for (gi = 0; gi < Q; gi = gi + 1) begin : gq
            wire [S-1:0] len_in = (e_enq && m_dec_valid && e_admitted && e_q == gi)
                                  ? {{(S-L){1'b0}}, s_len[N]} : {S{1'b0}};
            wire [S-1:0] len_out = (s_dv[N] && e_dq == gi)
                                   ? {{(S-L){1'b0}}, s_dlen[N]} : {S{1'b0}};
            wire [S-1:0] next = f_q[gi*S +: S] + (len_in - len_out);
            always @(posedge clk)
                if (rst) begin
                    f_q[gi*S +: S] <= 0;
                    f_uf[gi] <= 1'b0;
                end else if (e_live) begin
                    f_q[gi*S +: S] <= next;
                    if (next[S-1]) begin
                        f_q[gi*S +: S] <= 0;
                        f_uf[gi] <= 1'b1;
                    end
                end
        end
    endgenerate

    // CP's depth registers hold D-bit depths: the three bits above are 0 (an
    // admission never takes a queue above buf_max < 2^D). P3a asserts it: it
    // is that rule said of the registers, and its induction needs it (in an
    // unreachable state a register could hold 2^D or more, where CP's tail
    // test, exact only below 2^D, may admit).
    //
    // P2's task assumes it, as it assumes P4: P3a's task proves it with
    // nothing assumed but P4 and the inputs' contract, so the assumption
    // removes only unreachable states. P2 needs it: CP's next-event tests
    // are precomputed sums on the depth, exact while the depth cannot carry
    // into the sign bit; from a start state with a depth near 2^(S-1) the
    // induction step of P2 found a sum whose carry reached the sign (read as
    // an underflow, the depth clamped to 0) while the WRED test's sum did
    // not. The depth tasks (P3a, P3b) and the covers do not assume it.
    reg f_depths_fit;
    integer j;
    always @(*) begin
        f_depths_fit = 1'b1;
        for (j = 0; j < Q; j = j + 1)
            if (h_depth[j*S + D +: 3] != 3'b000) f_depths_fit = 1'b0;
    end
`ifdef CHECK_P2
    always @(*)
        if (f_past_valid)
            a_depth_registers_fit: assume (f_depths_fit);
`endif

    // ---- P4: one decision per event, latency N ------------------------------
    // From the 12th cycle after a reset, every slot holds a live event.
    wire f_steady = f_age > N;
`ifdef P4_ON
    always @(*)
        if (f_past_valid && f_steady) begin
            p4_decision_iff_enqueue: `P4_RULE (m_dec_valid == s_ev[N]);
            if (!m_dec_valid)
                p4_idle_outputs_zero: `P4_RULE (m_dec_action == 2'd0 && m_dec_ecn == 2'd0);
            p4_dequeue_decision_iff_dequeue: `P4_RULE (m_deq_valid == s_dv[N]);
            if (!m_deq_valid)
                p4_idle_dequeue_outputs_zero: `P4_RULE (!m_deq_mark && m_deq_ecn == 2'd0);
        end
`endif

`ifdef CHECK_P1
    // ---- P1: marking thresholds ------------------------------------------
    generate
        if (MARK_DEQ) begin : p1_deq
            // The departing packet is the one that can be marked, on the
            // depth of its queue at the start of its cycle.
            always @(*)
                if (f_past_valid && e_enq && m_dec_valid)
                    p1_no_mark_at_enqueue: assert (m_dec_action != 2'd1);
            always @(*)
                if (f_past_valid && e_deq && m_deq_valid) begin
                    if (m_deq_mark) begin
                        p1_deq_mark_only_ect: assert (e_dect);
                        p1_deq_no_mark_below_kmin: assert (s_d_ge_kmin[N] || s_d_ge_kmax[N]);
                    end
                    if (e_dect && s_d_ge_kmax[N])
                        p1_deq_mark_at_kmax: assert (m_deq_mark);
                end
        end else begin : p1_enq
            always @(*)
                if (f_past_valid && e_enq && m_dec_valid && e_ect && e_admitted) begin
                    // below kmin and below kmax (if kmin > kmax the ramp is
                    // empty and the step is at kmax): never marked
                    if (m_dec_action == 2'd1)
                        p1_no_mark_below_kmin: assert (s_ge_kmin[N] || s_ge_kmax[N]);
                    // at or above kmax: always marked
                    if (s_ge_kmax[N])
                        p1_mark_at_kmax: assert (m_dec_action == 2'd1);
                end
            always @(*)
                if (f_past_valid && e_deq && m_deq_valid)
                    p1_no_mark_at_dequeue: assert (!m_deq_mark);
        end
    endgenerate
    // Every queue's thresholds are those loaded for it (slice i: queue i).
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
            p2_kdrop_register: assert (h_kdrop == f_kdrop_s);
`endif

`ifdef CHECK_P3A
    // ---- P3a: the buffer limit ---------------------------------------------
    // A packet that is not WRED-dropped is admitted iff q + len <= buf_max,
    // with the buf_max of its queue in its own cycle: no admission takes the
    // queue above it (a load may lower buf_max below the depth; then every
    // enqueue to that queue is tail-dropped until it drains).
    always @(*)
        if (f_past_valid && e_enq && m_dec_valid) begin
            if (e_admitted)
                p3_no_admission_above_buf_max: assert (!s_over[N]);
            if (m_dec_action == 2'd3)
                p3_tail_drop_only_above_buf_max: assert (s_over[N]);
        end
    always @(*)
        if (f_past_valid)
            p3_buf_max_register: assert (h_buf_max == f_buf_max_s);
    always @(*)
        if (f_past_valid)
            p3_depth_registers_fit: assert (f_depths_fit);
`endif

`ifdef CHECK_P3B
    // ---- P3b: the depth count, per queue -------------------------------------
    // Each queue's depth (the register, which is what q_depth shows for it)
    // is what the decisions admitted to it minus what was dequeued from it,
    // clamped at 0; its err_underflow bit rises exactly with its first clamp
    // and stays; q_depth shows the queue depth_sel named 3 cycles before.
    always @(*)
        if (f_past_valid && e_live) begin
            p3_depth_is_admitted_minus_dequeued: assert (s_qall[N] == f_q);
            p3_q_depth_shows_depth_sel: assert (s_qshow[N] == f_q[queue_of(s_sel[N])*S +: D]);
            p3_underflow_exactly_on_clamp: assert (s_ufc[N] == f_uf);
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
    generate
        if (MARK_DEQ) begin : p5_deq
            always @(*)
                if (f_past_valid && e_deq && m_deq_valid) begin
                    if (m_deq_mark)
                        p5_deq_mark_is_ce_of_ect: assert (m_deq_ecn == 2'b11 && e_dect);
                    else
                        p5_deq_unmarked_keeps_ecn: assert (m_deq_ecn == e_decn);
                end
        end else begin : p5_enq
            always @(*)
                if (f_past_valid && e_deq && m_deq_valid)
                    p5_deq_keeps_ecn: assert (m_deq_ecn == e_decn);
        end
    endgenerate
`endif

`ifdef CHECK_P6
    // ---- P6: reset -----------------------------------------------------------
    always @(*)
        if (f_past_valid && f_age != 0 && !f_steady) begin
            p6_no_decision_from_before_reset:
                assert (!m_dec_valid && m_dec_action == 2'd0 && m_dec_ecn == 2'd0);
            p6_no_dequeue_decision_from_before_reset:
                assert (!m_deq_valid && !m_deq_mark && m_deq_ecn == 2'd0);
        end
    always @(*)
        if (f_past_valid && f_age != 0 && f_age <= LAG + 1)
            p6_depth_zero_after_reset: assert (q_depth == 0 && err_underflow == 0);
`endif

`ifdef COVER
    // ---- Covers: every kind of decision, and the corners, are reachable -------
    // under the same input contract (so no proof above passes vacuously).
    wire [QB-1:0] last_q = Q - 1;
    always @(*)
        if (f_past_valid && e_enq && m_dec_valid) begin
            c_admit_not_ect: cover (e_ecn == 2'b00 && m_dec_action == 2'd0);
            c_admit_ce: cover (e_ecn == 2'b11 && m_dec_action == 2'd0);
            c_admit_ect_unmarked: cover (e_ect && m_dec_action == 2'd0);
            c_wred_drop: cover (m_dec_action == 2'd2);
            c_tail_drop_ect: cover (e_ect && m_dec_action == 2'd3);
            c_tail_drop_ce: cover (e_ecn == 2'b11 && m_dec_action == 2'd3);
            c_fill_to_buf_max: cover (e_admitted && s_full[N] && s_qnz[N]);
            c_tail_drop_above_buf_max: cover (m_dec_action == 2'd3 && s_above[N]);
        end
    generate
        if (MARK_DEQ) begin : c_deq
            // Marking at dequeue: the marks, on the ramp and at the step.
            always @(*)
                if (f_past_valid && e_deq && m_deq_valid) begin
                    c_deq_mark_ect: cover (e_dect && m_deq_mark);
                    c_deq_mark_on_ramp: cover (e_dect && m_deq_mark && s_d_ge_kmin[N]
                                               && !s_d_ge_kmax[N]);
                    c_deq_unmarked_on_ramp: cover (e_dect && !m_deq_mark && s_d_ge_kmin[N]
                                                   && !s_d_ge_kmax[N] && s_d_qnz[N]);
                    c_deq_step_mark_kmin_above_kmax: cover (e_dect && m_deq_mark && s_d_ge_kmax[N]
                                                            && !s_d_ge_kmin[N]);
                    c_deq_ce_above_kmax: cover (e_decn == 2'b11 && s_d_ge_kmax[N]);
                    c_deq_not_ect_above_kmax: cover (e_decn == 2'b00 && s_d_ge_kmax[N]);
                end
            always @(*)
                if (f_past_valid && e_enq && m_dec_valid)
                    c_admit_ect_above_kmax: cover (e_ect && m_dec_action == 2'd0 && s_ge_kmax[N]);
        end else begin : c_enq
            always @(*)
                if (f_past_valid && e_enq && m_dec_valid) begin
                    c_mark_ect: cover (e_ect && m_dec_action == 2'd1);
                    c_mark_on_ramp: cover (e_ect && m_dec_action == 2'd1 && s_ge_kmin[N]
                                           && !s_ge_kmax[N]);
                    c_unmarked_on_ramp: cover (e_ect && m_dec_action == 2'd0 && s_ge_kmin[N]
                                               && !s_ge_kmax[N] && s_qnz[N]);
                    c_step_mark_kmin_above_kmax: cover (e_ect && m_dec_action == 2'd1
                                                        && s_ge_kmax[N] && !s_ge_kmin[N]);
                end
            always @(*)
                if (f_past_valid && e_deq && m_deq_valid)
                    c_deq_ect_above_kmax: cover (e_dect && s_d_ge_kmax[N]);
        end
        if (Q > 1) begin : c_queues
            // The queues apart: a decision on the last queue with a profile
            // loaded for it alone (a WRED drop below queue 0's kdrop); the
            // depth of the last queue on q_depth while queue 0 is empty; an
            // underflow of the last queue alone; an enqueue and a dequeue
            // of different queues in one cycle, both taking effect.
            always @(*)
                if (f_past_valid && e_enq && m_dec_valid)
                    c_profile_of_its_own_queue:
                        cover (e_q == last_q && m_dec_action == 2'd2
                               && f_kdrop[0 +: D] == `CCRTL_RESET_KDROP
                               && f_q[e_q*S +: S] < `CCRTL_RESET_KDROP);
            always @(*)
                if (f_past_valid && e_live) begin
                    c_q_depth_shows_another_queue:
                        cover (queue_of(s_sel[N]) == last_q && s_qshow[N] != 0
                               && f_q[0 +: S] == 0);
                    c_enqueue_and_dequeue_of_two_queues:
                        cover (e_enq && e_admitted && e_deq && e_q != e_dq
                               && f_q[e_dq*S +: S] != 0);
                end
            always @(*)
                c_underflow_of_one_queue: cover (f_past_valid && f_age > LAG + 1
                                                 && err_underflow == (1 << (Q - 1)));
        end
    endgenerate
    always @(*) begin
        c_underflow: cover (f_past_valid && f_age > LAG + 1 && err_underflow != 0);
        c_reset_with_enqueues_in_flight: cover (f_past_valid && f_steady && rst && s_ev[N] && s_ev[1]);
        c_reset_with_dequeues_in_flight: cover (f_past_valid && f_steady && rst && s_dv[N] && s_dv[1]);
        c_first_decision_after_reset: cover (f_past_valid && f_age == N + 1 && m_dec_valid);
        c_first_dequeue_decision_after_reset: cover (f_past_valid && f_age == N + 1 && m_deq_valid);
    end
`endif

endmodule
