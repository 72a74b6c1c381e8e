// rp_formal - properties of RP's rate engine (golden/src/rp.rs, docs/rp.md)
// around the emitted visit pipeline `ccrtl_rp__visit` (hdl/src/rp_visit.rs),
// taken from the same ccrtl_rp.v that ships.
//
// The visit is where a flow's rates change: the top reads a flow's words,
// feeds them here with the visit's context, and writes back what comes out
// (or, when it forgets every flow, zeros: a flow not limited). So a bound
// that every visit keeps, for every flow state inside it and every context,
// holds of every flow's stored rates and of every rate update the top
// sends, for as long as the registers hold still (docs/formal.md "RP").
//
// The model (visit.ys): every flip-flop of the visit made transparent
// (Q = D). The pipeline is feed-forward and reads its ports at stage 0
// only (the registers below are constant), so the model's outputs are the
// outputs of the visit that entered with the model's inputs: one
// evaluation covers every visit of every cycle. rst and kill only clear a
// visit's valid bit; the model takes a visit that is neither killed nor
// reset (a killed visit leaves nothing).
//
// Assumptions: the registers the engine reads are constant (anyconst)
// with r_min <= line_rate, as the loader and the register writes take them
// (a write waits for the visits in flight, so a visit sees one value of
// each); a visit that enters with its flow limited has r_min <= Rc <= Rt
// <= line_rate. Everything else is free: fill, the flow, alpha, the
// counters, the stamps, the tick, the period number, the CNP and
// byte-counter events, and a flow not limited (any rates: they are not
// read).
//
// The products (alpha's two decays md1/md2, the cut's reductions mc1/mc2,
// the decrease tick's stamp mb) are cut to free values by visit.ys: the
// bounds do not depend on them. A cut leaves max(r_min, Rc - red) with red
// saturating, between r_min and Rc for any red (the wrapper bounds mc1/mc2
// by their operands' widths, which the 32-bit difference needs); alpha's
// value only reaches Rc through red; the decrease tick's stamp only moves
// increases between the two chains, and each increase keeps the bounds.
// The power table's RAMs are read with CCRTL_FORMAL_RAM (hdl/src/ram.rs):
// any word.
//
// One task per property and profile (rp.sat.toml); the task defines
// CHECK_<n> and a CASE_<profile>:
//
//   P1 floor         a visit leaving with its flow limited leaves Rc >= r_min
//   P2 below_target  ... and Rc <= Rt
//   P3 line_rate     ... and Rt <= line_rate
//   lemma A          after chain A (stage 18), a visit of a limited flow or
//                    with a CNP has r_min <= Rc <= Rt <= line_rate
//                    (CHECK_LEMMA_A proves it; LEMMA_A assumes it)
//
// The reach tasks (REACH_<n>) assert that a condition is never met; `sat`
// must find an input that meets it (as a cover statement would).
//
// alpha <= 1 holds by representation: alpha is a/2^14 with a in 14 bits.

`default_nettype none
// Proving lemma A needs its signals as assuming it does.
`ifdef CHECK_LEMMA_A
`ifndef LEMMA_A
`define LEMMA_A
`endif
`endif
`include "ccrtl_rp_params.vh"

module rp_formal (
    input wire clk,
    input wire rst,
    input wire kill,
    input wire fill,
    input wire in_valid,
    input wire [`CCRTL_FLOW_BITS-1:0] in_flow,
    input wire [18:0] in_rc,
    input wire [18:0] in_rt,
    input wire [13:0] in_alpha,
    input wire [4:0] in_t,
    input wire [4:0] in_bc,
    input wire [`CCRTL_STAMP_BITS-1:0] in_inc_stamp,
    input wire [`CCRTL_STAMP_BITS-1:0] in_a_stamp,
    input wire in_limited,
    input wire in_inc_on,
    input wire in_amark,
    input wire in_dmark,
    input wire [`CCRTL_STAMP_BITS-1:0] in_tick,
    input wire [`CCRTL_STAMP_BITS-1:0] in_apn,
    input wire in_cnp,
    input wire in_bc_event
);
    localparam FB = `CCRTL_FLOW_BITS;
    localparam W = `CCRTL_STAMP_BITS;

    // The registers the engine reads, constant.
    (* anyconst *) reg [1:0] profile;
    (* anyconst *) reg [18:0] line_rate;
    (* anyconst *) reg [18:0] r_min;
    (* anyconst *) reg [18:0] r_ai;
    (* anyconst *) reg [18:0] r_hai;
    (* anyconst *) reg [18:0] first_cnp_rate;
    (* anyconst *) reg [15:0] g;
    (* anyconst *) reg [13:0] alpha_init;
    (* anyconst *) reg [15:0] alpha_period;
    (* anyconst *) reg [3:0] dec_shift;
    (* anyconst *) reg [15:0] t_inc;
    (* anyconst *) reg byte_counter_on;
    (* anyconst *) reg [4:0] f;
    (* anyconst *) reg [3:0] gd;
    (* anyconst *) reg [12:0] max_dec;
    (* anyconst *) reg clamp_tgt_rate;
    (* anyconst *) reg clamp_after_time_inc;

    wire out_valid;
    wire [FB-1:0] out_flow;
    wire [18:0] out_rc;
    wire [18:0] out_rt;
    wire [13:0] out_alpha;
    wire [4:0] out_t;
    wire [4:0] out_bc;
    wire [W-1:0] out_inc_stamp;
    wire [W-1:0] out_a_stamp;
    wire out_limited;
    wire out_inc_on;
    wire out_amark;
    wire out_dmark;
    wire out_changed;
    wire fill_busy;

    // The cut's two products, exposed (the task script cuts them to free
    // values): an n-bit times an m-bit number is below 2^(n+m).
    wire [47:0] mc1_p;
    wire [47:0] mc2_p;
`ifdef LEMMA_A
    // After chain A (stage 18), for a visit of a limited flow or a CNP.
    wire [18:0] s18_rca;
    wire [18:0] s18_rta;
    wire lemma_a = !(in_valid && (in_limited || in_cnp))
        || (r_min <= s18_rca && s18_rca <= s18_rta && s18_rta <= line_rate);
`endif

    ccrtl_rp__visit dut (
        .\mc1$p (mc1_p), .\mc2$p (mc2_p),
`ifdef LEMMA_A
        .\s18_rca$q (s18_rca), .\s18_rta$q (s18_rta),
`endif
        .clk(clk), .rst(rst), .kill(kill), .fill(fill),
        .in_valid(in_valid), .in_flow(in_flow), .in_rc(in_rc), .in_rt(in_rt),
        .in_alpha(in_alpha), .in_t(in_t), .in_bc(in_bc),
        .in_inc_stamp(in_inc_stamp), .in_a_stamp(in_a_stamp),
        .in_limited(in_limited), .in_inc_on(in_inc_on), .in_amark(in_amark),
        .in_dmark(in_dmark), .in_tick(in_tick), .in_apn(in_apn),
        .in_cnp(in_cnp), .in_bc_event(in_bc_event),
        .profile(profile), .line_rate(line_rate), .r_min(r_min), .r_ai(r_ai),
        .r_hai(r_hai), .first_cnp_rate(first_cnp_rate), .g(g),
        .alpha_init(alpha_init), .alpha_period(alpha_period),
        .dec_shift(dec_shift), .t_inc(t_inc), .byte_counter_on(byte_counter_on),
        .f(f), .gd(gd), .max_dec(max_dec), .clamp_tgt_rate(clamp_tgt_rate),
        .clamp_after_time_inc(clamp_after_time_inc),
        .out_valid(out_valid), .out_flow(out_flow), .out_rc(out_rc),
        .out_rt(out_rt), .out_alpha(out_alpha), .out_t(out_t), .out_bc(out_bc),
        .out_inc_stamp(out_inc_stamp), .out_a_stamp(out_a_stamp),
        .out_limited(out_limited), .out_inc_on(out_inc_on),
        .out_amark(out_amark), .out_dmark(out_dmark),
        .out_changed(out_changed), .fill_busy(fill_busy)
    );

    always @(*) begin
        // A visit that enters, neither reset nor killed.
        assume (!rst && !kill && in_valid);
        assume (r_min <= line_rate);
`ifdef CASE_PAPER
        assume (profile == 2'd0);
`endif
`ifdef CASE_NVIDIA
        assume (profile == 2'd1);
`endif
`ifdef CASE_NOCNP
        assume (!in_cnp);
`endif
`ifdef CASE_NS3
        assume (profile[1]);
`endif
        assume (mc1_p < 48'd1 << 33 && mc2_p < 48'd1 << 32);
        if (in_valid && in_limited)
            assume (r_min <= in_rc && in_rc <= in_rt && in_rt <= line_rate);
    end

    wire leaves = out_valid && out_limited;

    always @(*) begin
`ifdef CHECK_LEMMA_A
        la_chain_a: assert (lemma_a);
`elsif LEMMA_A
        assume (lemma_a);
`endif
`ifdef CHECK_P1
        if (leaves) p1_floor: assert (r_min <= out_rc);
`endif
`ifdef CHECK_P2
        if (leaves) p2_below_target: assert (out_rc <= out_rt);
`endif
`ifdef CHECK_P3
        if (leaves) p3_line_rate: assert (out_rt <= line_rate);
`endif
    end

    // Reach tasks: each assertion claims the condition is never met; the
    // task passes when `sat` breaks it. A limited visit leaves with its
    // rates changed strictly inside the bounds, at the floor, and at the
    // line rate.
    always @(*) begin
`ifdef REACH_INSIDE
        r_inside: assert (!(leaves && out_changed
            && r_min < out_rc && out_rc < out_rt && out_rt < line_rate));
`endif
`ifdef REACH_FLOOR
        r_floor: assert (!(leaves && out_rc == r_min && r_min != 0 && out_rc < out_rt));
`endif
`ifdef REACH_LINE_RATE
        r_line_rate: assert (!(leaves && out_rt == line_rate && out_rc == line_rate
            && line_rate > r_min));
`endif
    end
endmodule
