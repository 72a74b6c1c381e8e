// dctcp_rx_formal - properties of DCTCP_RX (golden/src/dctcp_rx.rs,
// docs/dctcp_rx.md) around the emitted ccrtl_dctcp_rx, and of LDCP_RX
// (golden/src/ldcp_rx.rs, docs/ldcp_rx.md) when CCRTL_RULE_LDCP is defined.
//
// LDCP_RX is DCTCP_RX's shell with another per-packet rule, so one wrapper
// serves both: formal/ldcp_rx/ links this file, its task script defines
// CCRTL_RULE_LDCP and renames the emitted ccrtl_ldcp_rx to ccrtl_dctcp_rx
// before the wrapper is read. Only the rule's few lines below differ.
//
// The wrapper instantiates `ccrtl_dctcp_rx` from the file `ccrtl emit`
// writes and checks it against the contract of the golden model's module
// docs. Every input is free in every cycle; the only assumption on them is
// the contract's: `rst` in the first cycle.
//
// Shape and reset value come from `ccrtl_dctcp_rx_params.vh` (LDCP:
// `ccrtl_ldcp_rx_params.vh`), which
// `ccrtl formal` writes from the emitted file's header.
//
// One sby task per property (formal/dctcp_rx/dctcp_rx.sby); the task
// defines CHECK_Pn.
//
//   P1 ack_rule   for the tracked flow f (any flow: the solver picks it),
//                 the ACKs of f leaving in cycle n + 8 are exactly those
//                 the rule gives the event of f accepted in cycle n: on the
//                 flip slot the packets pending before a CE change, with
//                 the old CE as ECE (the immediate ACK of a CE flip), on
//                 the ack slot a full group, a lone packet after a change
//                 with max(m, 1) = 1, or a flush's pending packets; counts
//                 and ECE exact, nothing for f otherwise. It holds for any
//                 sequence of events, loads of m and resets, with the
//                 table's power-up contents random.
//                 LDCP: on the flip slot the unmarked packets pending
//                 before a CE packet, ECE 0; on the ack slot every CE
//                 packet at once and alone with ECE 1, a full group of
//                 unmarked packets, or a flush's pending packets, ECE 0.
//   P2 idle_zero  every field of a slot is 0 when its valid is low.
//   P3 ready      `s_evt_ready` is low in the 2^flow_bits cycles after a
//                 reset and high otherwise.
//
// The flow table's block RAM is read with CCRTL_FORMAL_RAM defined: it
// keeps only the word of one address (`formal_addr`, an anyconst), and a
// read of any other address, or one that collides with a write, returns
// any value (hdl/src/ram.rs). Every behaviour of the real RAM is one of the
// abstraction's, so what is proven of the abstraction holds of the real
// RAM. The tracked flow f is that address.
//
// Invariants. k-induction needs the state that outlives the pipeline tied
// to what the ports did: the m, clearing and pointer registers, and f's
// word (the L* assertions below, proven with P1). The word is taken with
// the writes still in the RAM's write pipeline applied (a write lands two
// cycles after it is issued).
//
// Internal signals come through `expose` in the task script: registers as
// `<name>$q`, the RAM's write port as `flow_ram$write_*`, and after
// `flatten` its `formal_addr` and `formal_word_a` as `flow_ram.formal_*`
// (escaped identifiers here).

`default_nettype none
`ifdef CCRTL_RULE_LDCP
`include "ccrtl_ldcp_rx_params.vh"
`else
`include "ccrtl_dctcp_rx_params.vh"
`endif

module dctcp_rx_formal (
    input wire clk,
    input wire rst,
    input wire s_evt_valid,
    input wire [`CCRTL_FLOW_BITS-1:0] s_evt_flow,
    input wire s_evt_flush,
    input wire s_evt_ce,
    input wire s_cfg_valid,
    input wire [3:0] s_cfg_m
);
    localparam FB = `CCRTL_FLOW_BITS;
    localparam LAT = 8;            // decision latency (golden LATENCY)
    localparam [FB:0] F = 1 << FB; // flows, and the cycles of the clearing

    wire s_evt_ready;
    wire m_flip_valid, m_flip_ece, m_ack_valid, m_ack_ece;
    wire [FB-1:0] m_flip_flow, m_ack_flow;
    wire [3:0] m_flip_count, m_ack_count;

    // Exposed registers and RAM ports.
    wire [3:0] h_m;
    wire h_busy;
    wire [FB-1:0] h_ptr;
    wire h_sweep;
    wire r_we;
    wire [FB-1:0] r_wa;
    wire [4:0] r_wd;
    wire [FB-1:0] r_fa;
    wire [4:0] r_word;

    ccrtl_dctcp_rx dut (
        .clk(clk),
        .rst(rst),
        .s_evt_valid(s_evt_valid),
        .s_evt_ready(s_evt_ready),
        .s_evt_flow(s_evt_flow),
        .s_evt_flush(s_evt_flush),
        .s_evt_ce(s_evt_ce),
        .s_cfg_valid(s_cfg_valid),
        .s_cfg_m(s_cfg_m),
        .m_flip_valid(m_flip_valid),
        .m_flip_flow(m_flip_flow),
        .m_flip_count(m_flip_count),
        .m_flip_ece(m_flip_ece),
        .m_ack_valid(m_ack_valid),
        .m_ack_flow(m_ack_flow),
        .m_ack_count(m_ack_count),
        .m_ack_ece(m_ack_ece),
        .m$q(h_m),
        .busy$q(h_busy),
        .ptr$q(h_ptr),
        .sweep_q$q(h_sweep),
        .flow_ram$write_enable(r_we),
        .flow_ram$write_address(r_wa),
        .flow_ram$write_data(r_wd),
        .\flow_ram.formal_addr (r_fa),
        .\flow_ram.formal_word_a (r_word)
    );

    // ---- The contract's assumption ----------------------------------------
    reg f_past = 1'b0;
    always @(posedge clk) f_past <= 1'b1;
    always @(*) if (!f_past) assume(rst);

    // The tracked flow: the address the RAM keeps.
    wire [FB-1:0] f = r_fa;

    // ---- The spec ----------------------------------------------------------
    // m in force, time since the reset (mod F), the clearing's count.
    reg [3:0] sh_m;
    reg [FB-1:0] sh_now;
    reg [FB:0] sh_left;
    always @(posedge clk) begin
        if (rst) begin
            sh_m <= `CCRTL_RESET_M;
            sh_now <= 0;
            sh_left <= F;
        end else begin
            if (s_cfg_valid)
                sh_m <= s_cfg_m;
            sh_now <= sh_now + 1'b1;
            if (sh_left != 0)
                sh_left <= sh_left - 1'b1;
        end
    end
    wire sh_busy = sh_left != 0;

    // The rule for the tracked flow: its CE bit and pending count.
    reg sh_ce;
    reg [3:0] sh_p;
    wire accept = s_evt_valid && s_evt_ready && !rst;
    wire ev_f = accept && s_evt_flow == f;
    wire [4:0] m_eff = sh_m == 0 ? 5'd1 : {1'b0, sh_m};
    wire [4:0] inc = {1'b0, sh_p} + 1'b1;
`ifdef CCRTL_RULE_LDCP
    // LDCP: a CE packet is ACKed at once and alone (ECE 1), after the
    // pending unmarked packets (ECE 0) on the flip slot; the CE bit stays 0.
    wire change = !s_evt_flush && s_evt_ce;
    wire d_flip = ev_f && change && sh_p != 0;
    wire d_ack = ev_f && (s_evt_flush ? sh_p != 0 : change || inc >= m_eff);
    wire [4:0] d_ack_count = s_evt_flush ? {1'b0, sh_p} : change ? 5'd1 : inc;
    wire d_ack_ece = change;
    wire ce_next = 1'b0;
`else
    wire change = !s_evt_flush && s_evt_ce != sh_ce;
    // The ACKs of an event of f in this cycle.
    wire d_flip = ev_f && change && sh_p != 0;
    wire d_ack = ev_f && (s_evt_flush ? sh_p != 0 : change ? m_eff == 1 : inc >= m_eff);
    wire [4:0] d_ack_count = s_evt_flush ? {1'b0, sh_p} : change ? 5'd1 : inc;
    wire d_ack_ece = change ? s_evt_ce : sh_ce;
    wire ce_next = change ? s_evt_ce : sh_ce;
`endif
    always @(posedge clk)
        if (rst) begin
            sh_ce <= 1'b0;
            sh_p <= 0;
        end else if (ev_f) begin
            sh_ce <= ce_next;
            if (d_ack || s_evt_flush)
                sh_p <= 0;
            else
                sh_p <= change ? 4'd1 : inc[3:0];
        end

    // The ACKs of f in flight: stage k in cycle n + k + 1 holds those of
    // the event accepted in cycle n. A reset drops them.
    reg [LAT-1:0] x_flip, x_ack;
    reg [3:0] x_flip_count [0:LAT-1];
    reg [4:0] x_ack_count [0:LAT-1];
    reg x_flip_ece [0:LAT-1];
    reg x_ack_ece [0:LAT-1];
    integer k;
    always @(posedge clk) begin
        x_flip <= rst ? 0 : {x_flip[LAT-2:0], d_flip};
        x_ack <= rst ? 0 : {x_ack[LAT-2:0], d_ack};
        x_flip_count[0] <= sh_p;
        x_flip_ece[0] <= sh_ce;
        x_ack_count[0] <= d_ack_count;
        x_ack_ece[0] <= d_ack_ece;
        for (k = 1; k < LAT; k = k + 1) begin
            x_flip_count[k] <= x_flip_count[k-1];
            x_flip_ece[k] <= x_flip_ece[k-1];
            x_ack_count[k] <= x_ack_count[k-1];
            x_ack_ece[k] <= x_ack_ece[k-1];
        end
    end

    // ---- P1: the rule -------------------------------------------------------
`ifdef CHECK_P1
    always @(*)
        if (f_past) begin
            p1_flip: assert((m_flip_valid && m_flip_flow == f) == x_flip[LAT-1]);
            if (x_flip[LAT-1])
                p1_flip_fields: assert(m_flip_count == x_flip_count[LAT-1]
                    && m_flip_ece == x_flip_ece[LAT-1]);
            p1_ack: assert((m_ack_valid && m_ack_flow == f) == x_ack[LAT-1]);
            if (x_ack[LAT-1])
                p1_ack_fields: assert({1'b0, m_ack_count} == x_ack_count[LAT-1]
                    && m_ack_ece == x_ack_ece[LAT-1]);
        end
`endif

    // ---- P2: idle outputs are 0 ---------------------------------------------
`ifdef CHECK_P2
    always @(*)
        if (f_past) begin
            if (!m_flip_valid)
                p2_flip_zero: assert(m_flip_flow == 0 && m_flip_count == 0 && !m_flip_ece);
            if (!m_ack_valid)
                p2_ack_zero: assert(m_ack_flow == 0 && m_ack_count == 0 && !m_ack_ece);
        end
`endif

    // ---- P3: ready ----------------------------------------------------------
`ifdef CHECK_P3
    always @(*)
        if (f_past)
            p3_ready: assert(s_evt_ready == !sh_busy);
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
            l_ptr: assert(h_ptr == sh_now + 1'b1);
            if (sh_busy)
                l_count: assert({1'b0, sh_now} + sh_left == F);
        end
`endif

`ifdef F_LEMMAS
    // f's state as it was 1 to 7 cycles ago: h[k] in cycle c is the state
    // at the start of cycle c - k.
    reg [4:0] h [1:LAT-1];
    always @(posedge clk) begin
        h[1] <= {sh_ce, sh_p};
        for (k = 2; k < LAT; k = k + 1)
            h[k] <= h[k-1];
    end

    // The writes to f issued in the last two cycles, newest first: a write
    // lands in the RAM two cycles after it is issued.
    reg w1, w2;
    reg [4:0] w1d, w2d;
    always @(posedge clk) begin
        w1 <= r_we && r_wa == f;
        w1d <= r_wd;
        w2 <= w1;
        w2d <= w1d;
    end
    // f's word with every write issued so far applied.
    wire [4:0] eword = w1 ? w1d : w2 ? w2d : r_word;

    // The clearing has written f (flow 0 in the reset cycle, flow p in the
    // p-th cycle after it).
    wire [FB-1:0] sh_ptr = sh_now + 1'b1;
    wire passed = !sh_busy || sh_ptr == 0 || f < sh_ptr;

`ifdef CCRTL_RULE_LDCP
    // LDCP's CE bit is 0 after a reset and stays 0 (`ce_next`), in the
    // spec and in its history: induction must not start from a state
    // where it is 1 (the RAM's word would follow it through l_word).
    always @(*)
        if (f_past) begin
            l_ldcp_ce: assert(!sh_ce);
            // (The history is the spec's own from the clearing on.)
            if (!sh_busy)
                l_ldcp_h: assert(!h[1][4] && !h[2][4] && !h[3][4] && !h[4][4]
                    && !h[5][4] && !h[6][4] && !h[7][4]);
        end
`endif

    always @(*)
        if (f_past) begin
            l_m: assert(h_m == sh_m);
            // At most 14 pending: P stays below the m' in force when it grew.
            l_p: assert(sh_p <= 14);
            if (sh_busy) begin
                l_reset_state: assert(!sh_ce && sh_p == 0);
                if (passed)
                    l_cleared: assert(eword == 0);
            end else begin
                // (The history is the spec's own from the clearing on.)
                l_h: assert(h[1][3:0] <= 14 && h[2][3:0] <= 14 && h[3][3:0] <= 14
                    && h[4][3:0] <= 14 && h[5][3:0] <= 14 && h[6][3:0] <= 14
                    && h[7][3:0] <= 14);
                // The word holds the events decided so far: those accepted
                // up to 8 cycles ago, the state at the start of the cycle
                // after the last of them.
                l_word: assert(eword == h[LAT-1]);
            end
        end
`endif

    // ---- Covers ---------------------------------------------------------------
`ifdef COVER
    // Cycles since f's last accepted event (1 in the cycle after it).
    reg [4:0] since;
    always @(posedge clk)
        if (rst)
            since <= 5'h1f;
        else if (ev_f)
            since <= 1;
        else if (since != 5'h1f)
            since <= since + 1'b1;
    always @(posedge clk) begin
        if (f_past) begin
            c_flip: cover(m_flip_valid && m_flip_flow == f);
            c_flip_of_two: cover(m_flip_valid && m_flip_flow == f && m_flip_count == 2);
            c_both: cover(m_flip_valid && m_ack_valid && m_flip_flow == f);
            c_flush: cover(ev_f && s_evt_flush && sh_p == 2);
            c_group_above_m: cover(ev_f && !s_evt_flush && !change && inc > m_eff);
            // An event of f at each forwarding distance, with packets pending.
            c_after_1: cover(ev_f && since == 1 && sh_p != 0);
            c_after_2: cover(ev_f && since == 2 && sh_p != 0);
            c_after_3: cover(ev_f && since == 3 && sh_p != 0);
            c_after_4: cover(ev_f && since == 4 && sh_p != 0);
            c_after_5: cover(ev_f && since == 5 && sh_p != 0);
            c_after_6: cover(ev_f && since == 6 && sh_p != 0);
            c_after_7: cover(ev_f && since == 7 && sh_p != 0);
            c_after_8: cover(ev_f && since == 8 && sh_p != 0);
            c_after_ram: cover(ev_f && since > 8 && since != 5'h1f && sh_p != 0);
            c_reset_busy: cover(rst && sh_busy && sh_left < F);
        end
    end
`endif
endmodule
