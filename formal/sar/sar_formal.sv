// sar_formal - properties of SAR (golden/src/sar.rs, docs/sar.md) around
// the emitted ccrtl_sar.
//
// The wrapper instantiates `ccrtl_sar` from the file `ccrtl emit` writes.
// Every input is free in every cycle; the only assumption on them is the
// contract's: `rst` in the first cycle. Shape and reset values come from
// `ccrtl_sar_params.vh` (written by `ccrtl formal` from the emitted file's
// header).
//
// The contract's state is restated here (`c_deg`, `c_mask`, `c_margin`:
// degree updates and register writes in force from the next cycle, bits
// above a register's width ignored, unused addresses ignored), and so is
// the decision, from docs/sar.md and not from the RTL: `best` is the
// candidate of `mask[g] | {o}` with the least degree, ties to `o` if `o` is
// among the least, else to the lowest port; detour iff `best != o` and
// `deg[best] + margin < deg[o]` (9 bits); a CAM hit is never detoured.
//
// One sby task per property (formal/sar/sar.sby); the task defines CHECK_Pn.
//
//   P1 decision   the decision of a request of cycle t, on the outputs in
//                 t + 3, is the contract's on the state of the start of t.
//   P2 hit_stays  a request that hit the CAM keeps its port, undetoured
//                 (the issue's "never detours a CAM hit"; needs no
//                 invariant: only the pipeline carries it).
//   P3 in_set     the port decided is the request's own or one of its
//                 group's mask in force at the request (never a port
//                 outside the configured set), and `dec_detour` says which.
//   P4 answers    `m_dec_valid` is high in t + 3 exactly for the requests
//                 of t (reset drops those in flight), and `m_dec_port`,
//                 `m_dec_detour` are 0 when it is low.
//
// Invariants (L*, asserted with P1 and P3: the degrees and registers
// outlive any window of k cycles): the RTL's degrees (8 bits per port; the
// keys `deg * 16 + port` are wiring), masks and margin (8 bits) equal the
// contract's. Internal registers come
// through `expose` in the task script (yosys 0.70's read_verilog has no
// hierarchical references); the connections below are written for four
// ports and two groups (the configuration of this folder).

`default_nettype none
`include "ccrtl_sar_params.vh"

module sar_formal (
    input wire clk,
    input wire rst,
    input wire s_deg_valid,
    input wire [`CCRTL_PORT_BITS-1:0] s_deg_port,
    input wire [7:0] s_deg,
    input wire s_req_valid,
    input wire [`CCRTL_PORT_BITS-1:0] s_req_port,
    input wire [`CCRTL_GROUP_BITS-1:0] s_req_group,
    input wire s_req_hit,
    input wire s_cfg_valid,
    input wire [`CCRTL_GROUP_BITS:0] s_cfg_addr,
    input wire [15:0] s_cfg_data
);
    localparam PB = `CCRTL_PORT_BITS;
    localparam GB = `CCRTL_GROUP_BITS;
    localparam P = 1 << PB;
    localparam G = 1 << GB;
    localparam LAT = 3;

    wire m_dec_valid, m_dec_detour;
    wire [PB-1:0] m_dec_port;
    wire [8*P-1:0] deg;  // port p's degree at bits 8p (the RTL's `deg$p`)
    wire [P*G-1:0] mask;
    wire [7:0] margin;

`ifndef CCRTL_PORT_BITS_2
    initial $error("sar_formal connects the registers of four ports only");
`endif
`ifndef CCRTL_GROUP_BITS_1
    initial $error("sar_formal connects the registers of two groups only");
`endif

    ccrtl_sar dut (
        .clk(clk),
        .rst(rst),
        .s_deg_valid(s_deg_valid),
        .s_deg_port(s_deg_port),
        .s_deg(s_deg),
        .s_req_valid(s_req_valid),
        .s_req_port(s_req_port),
        .s_req_group(s_req_group),
        .s_req_hit(s_req_hit),
        .s_cfg_valid(s_cfg_valid),
        .s_cfg_addr(s_cfg_addr),
        .s_cfg_data(s_cfg_data),
        .m_dec_valid(m_dec_valid),
        .m_dec_port(m_dec_port),
        .m_dec_detour(m_dec_detour),
        .\deg$0$q (deg[7:0]),
        .\deg$1$q (deg[15:8]),
        .\deg$2$q (deg[23:16]),
        .\deg$3$q (deg[31:24]),
        .\mask$0$q (mask[3:0]),
        .\mask$1$q (mask[7:4]),
        .\margin$q (margin)
    );

    // ---- The contract -------------------------------------------------------
    reg init = 1'b1;
    always @(posedge clk) init <= 1'b0;
    always @(*) if (init) assume (rst);

    reg [8*P-1:0] c_deg;
    reg [P*G-1:0] c_mask;
    reg [7:0] c_margin;
    integer p, g;

    always @(posedge clk) begin
        if (rst) begin
            c_deg <= 0;
            for (g = 0; g < G; g = g + 1) c_mask[P*g +: P] <= `CCRTL_RESET_MASK;
            c_margin <= `CCRTL_RESET_MARGIN;
        end else begin
            if (s_deg_valid) c_deg[8*s_deg_port +: 8] <= s_deg;
            if (s_cfg_valid) begin
                if (s_cfg_addr < G) c_mask[P*s_cfg_addr +: P] <= s_cfg_data[P-1:0];
                else if (s_cfg_addr == G) c_margin <= s_cfg_data[7:0];
            end
        end
    end

    // The contract's decision for the request of this cycle.
    wire [P-1:0] cand = c_mask[P*s_req_group +: P] | (1 << s_req_port);
    reg [PB-1:0] best;
    reg [PB-1:0] want_port;
    reg want_detour;
    // For the covers: another candidate above `best` ties with it; the
    // margin blocks the detour by exactly one.
    reg tie_above, by_one;
    always @(*) begin
        best = s_req_port;
        for (p = 0; p < P; p = p + 1)
            if (cand[p] && c_deg[8*p +: 8] < c_deg[8*best +: 8]) best = p;
        want_detour = !s_req_hit && best != s_req_port
                      && {1'b0, c_deg[8*best +: 8]} + {1'b0, c_margin}
                         < {1'b0, c_deg[8*s_req_port +: 8]};
        want_port = want_detour ? best : s_req_port;
        tie_above = 1'b0;
        for (p = 0; p < P; p = p + 1)
            if (cand[p] && p > best && c_deg[8*p +: 8] == c_deg[8*best +: 8]) tie_above = 1'b1;
        by_one = !s_req_hit && best != s_req_port
                 && {1'b0, c_deg[8*best +: 8]} + {1'b0, c_margin}
                    == {1'b0, c_deg[8*s_req_port +: 8]};
    end

    // The requests in flight: accepted, and what the contract says of them.
    reg [LAT-1:0] q_valid, q_hit, q_detour, q_tie, q_by_one;
    reg [PB*LAT-1:0] q_port, q_orig;
    reg [P*LAT-1:0] q_cand;
    always @(posedge clk) begin
        q_valid <= {q_valid[LAT-2:0], s_req_valid && !rst};
        q_hit <= {q_hit[LAT-2:0], s_req_hit};
        q_detour <= {q_detour[LAT-2:0], want_detour};
        q_tie <= {q_tie[LAT-2:0], tie_above};
        q_by_one <= {q_by_one[LAT-2:0], by_one};
        q_port <= {q_port[PB*(LAT-1)-1:0], want_port};
        q_orig <= {q_orig[PB*(LAT-1)-1:0], s_req_port};
        q_cand <= {q_cand[P*(LAT-1)-1:0], cand};
        if (rst) q_valid <= 0;
    end
    wire o_valid = q_valid[LAT-1];
    wire o_hit = q_hit[LAT-1];
    wire o_detour = q_detour[LAT-1];
    wire [PB-1:0] o_port = q_port[PB*LAT-1 -: PB];
    wire [PB-1:0] o_orig = q_orig[PB*LAT-1 -: PB];
    wire [P-1:0] o_cand = q_cand[P*LAT-1 -: P];

    // ---- Properties -----------------------------------------------------------
    always @(posedge clk) if (!init) begin
`ifdef CHECK_P1
        if (o_valid)
            p1_decision: assert (m_dec_valid && m_dec_port == o_port && m_dec_detour == o_detour);
`endif
`ifdef CHECK_P2
        if (o_valid && o_hit)
            p2_hit_stays: assert (m_dec_valid && m_dec_port == o_orig && !m_dec_detour);
`endif
`ifdef CHECK_P3
        if (o_valid)
            p3_in_set: assert (m_dec_valid && o_cand[m_dec_port]
                               && m_dec_detour == (m_dec_port != o_orig));
`endif
`ifdef CHECK_P4
        p4_valid: assert (m_dec_valid == o_valid);
        if (!m_dec_valid) p4_zero: assert (m_dec_port == 0 && !m_dec_detour);
`endif
    end

`ifdef CHECK_P1
`define SAR_STATE_INVARIANTS
`endif
`ifdef CHECK_P3
`define SAR_STATE_INVARIANTS
`endif
`ifdef SAR_STATE_INVARIANTS
    // The RTL's state is the contract's.
    always @(*) if (!init && !rst) begin
        l1_deg: assert (deg == c_deg);
        l1_mask: assert (mask == c_mask);
        l1_margin: assert (margin == c_margin);
    end
`endif

`ifdef COVER
    always @(posedge clk) if (!init) begin
        // A detour to the lower of two tied ports; a detour the margin
        // blocks by exactly one; a hit kept although it has candidates.
        c1_detour_tie: cover (m_dec_valid && m_dec_detour && q_tie[LAT-1]);
        c2_margin_by_one: cover (m_dec_valid && !m_dec_detour && q_by_one[LAT-1]);
        c3_hit_kept: cover (m_dec_valid && o_hit && o_cand != (1 << o_orig));
    end
`endif
endmodule
