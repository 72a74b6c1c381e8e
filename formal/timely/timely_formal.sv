// Properties of TIMELY's rate (docs/formal.md "TIMELY"), on the emitted
// ccrtl_timely.
//
// P1 (p1_rate_bounds): every result's rate is in [min_rate, max_rate]
//    (with 12 fraction bits) of its event's registers when min_rate <=
//    max_rate, and is min_rate when min_rate > max_rate (min_rate wins).
// P2 (p2_half): every result's rate is at least min(ceil(old / 2),
//    max_rate), `old` being the rate the event's update started from: so it
//    never falls below half of it unless max_rate was written below that
//    half.
// Both hold "by construction" of step 7 (the clamps) whatever step 6 (the
// branch, the lagged product) computed: they are checked at the output port
// against the rate loop's operands of the cycle before (`old`, `minq` and
// the event's `max_rate`, `pmax$21$q`, at stage 22, exposed by the .sby's
// `expose`, registered here), for
// any state of the pipeline and the tables (k-induction). That `old` is
// the flow's previous result (the forwarding of the rate tables) is the
// lockstep's check, not this proof's.
//
// No cover yet: a search to depth 44 (a result from reset) with the
// whole pipeline did not finish in the time tried (docs/formal.md).

`default_nettype none
`include "ccrtl_timely_params.vh"

module timely_formal (
    input wire clk,
    input wire rst,
    input wire s_ev_valid,
    input wire [`CCRTL_FLOW_BITS-1:0] s_ev_flow,
    input wire [23:0] s_ev_rtt,
    input wire [31:0] s_ev_time,
    input wire s_cfg_valid,
    input wire [3:0] s_cfg_addr,
    input wire [23:0] s_cfg_data
);
    localparam FB = `CCRTL_FLOW_BITS;

    wire s_ev_ready;
    wire m_cc_valid, m_cc_hai;
    wire [FB-1:0] m_cc_flow;
    wire [30:0] m_cc_rate;
    wire [1:0] m_cc_branch;
    wire [28:0] m_cc_grad;

    // Exposed: the loop's valid, its starting rate and the clamps' bounds.
    wire h_v22;
    wire [30:0] h_old;
    wire [30:0] h_minq;
    wire [18:0] h_max;

    ccrtl_timely dut (
        .clk(clk),
        .rst(rst),
        .s_ev_valid(s_ev_valid),
        .s_ev_ready(s_ev_ready),
        .s_ev_flow(s_ev_flow),
        .s_ev_rtt(s_ev_rtt),
        .s_ev_time(s_ev_time),
        .s_cfg_valid(s_cfg_valid),
        .s_cfg_addr(s_cfg_addr),
        .s_cfg_data(s_cfg_data),
        .m_cc_valid(m_cc_valid),
        .m_cc_flow(m_cc_flow),
        .m_cc_rate(m_cc_rate),
        .m_cc_branch(m_cc_branch),
        .m_cc_hai(m_cc_hai),
        .m_cc_grad(m_cc_grad),
        .pv$21$q(h_v22),
        .old(h_old),
        .minq(h_minq),
        .pmax$21$q(h_max)
    );

    // Power-up: every register of the block is random; the properties
    // start after the first reset.
    reg f_init = 1'b1;
    reg f_past = 1'b0;
    always @(posedge clk) begin
        f_init <= 1'b0;
        if (rst)
            f_past <= 1'b1;
    end
    always @(*)
        if (f_init)
            assume(rst);

    // The loop's operands, a cycle later (when its result is on the port).
    reg q_v;
    reg [30:0] q_old;
    reg [36:0] q_min, q_max;
    always @(posedge clk) begin
        q_v <= h_v22 && !rst;
        q_old <= h_old;
        q_min <= {6'b0, h_minq};
        q_max <= {6'b0, h_max, 12'b0};
    end
    wire [36:0] rate = {6'b0, m_cc_rate};
    wire [36:0] half = ({6'b0, q_old} + 37'd1) >> 1;
    wire [36:0] floor_ = (half < q_max) ? half : q_max;

    always @(*)
        if (f_past && q_v) begin
            p0_valid: assert(m_cc_valid);
`ifdef CHECK_P1
            if (q_min <= q_max) begin
                p1_max: assert(rate <= q_max);
                p1_min: assert(rate >= q_min);
            end else
                p1_min_wins: assert(rate == q_min);
`endif
`ifdef CHECK_P2
            if (q_min <= q_max)
                p2_half: assert(rate >= floor_);
`endif
        end

endmodule
