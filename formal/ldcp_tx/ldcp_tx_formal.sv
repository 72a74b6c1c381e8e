// ldcp_tx_formal - properties of LDCP_TX (golden/src/ldcp_tx.rs,
// docs/ldcp_tx.md) around the emitted ccrtl_ldcp_tx.
//
// The wrapper instantiates `ccrtl_ldcp_tx` from the file `ccrtl emit`
// writes. Every input is free in every cycle; the only assumption on them
// is the contract's: `rst` in the first cycle. Shape and reset values come
// from `ccrtl_ldcp_tx_params.vh`, which `ccrtl formal` writes from the
// emitted file's header.
//
// The loop's table `tl` is read with CCRTL_FORMAL_RAM defined: its block
// RAM keeps only the word of one address (`formal_addr`, an anyconst: the
// tracked flow f, any flow), and a read of any other address, or one that
// collides with a write, returns any value (hdl/src/ram.rs). Every
// behaviour of the real RAM is one of the abstraction's, so what is proven
// holds of the real RAM, for every flow.
//
// One sby task per property (formal/ldcp_tx/ldcp_tx.sby); the task defines
// CHECK_<n>. For f:
//
//   P1  cw_floor     every result of f has m_cc_cw >= 2^17 (the smallest
//                    gamma, 2^-7 packets), and every result of an event
//                    of f that sets the window (an ACK of n >= 1 packets
//                    or a LOSS in the stable stage, and every result in
//                    fast start, whose window is clamp(iw)) has m_cc_cw >=
//                    gamma = 2^24 >> gamma_shift of the registers in force
//                    in the event's cycle. So with gamma_shift held, cw
//                    never falls below gamma. The stored word of f (the
//                    RAM's tracked word, and a write of it in flight) is
//                    at least 2^17 whenever it is stable.
//   P2  ready        s_ev_ready is low in the 2^flow_bits cycles after a
//                    reset and high otherwise.
//
// The task of P1 makes free in every cycle (cutpoint, in the task script)
// the products n * beta256 and the increase inc (before the registers that
// carry them down the pipeline, so that the loop's thresholds and operands
// stay consistent): P1 holds for any decrease and any increase below 2^33,
// so the reciprocal, its table and the multipliers are out of the proof.
// That only adds behaviours.
//
// Internal signals come through `expose` in the task script: registers as
// `<name>$q`, the table's RAM as `tl.ram.<name>` (escaped identifiers).

`default_nettype none
`include "ccrtl_ldcp_tx_params.vh"

module ldcp_tx_formal (
    input wire clk,
    input wire rst,
    input wire s_ev_valid,
    input wire [`CCRTL_FLOW_BITS-1:0] s_ev_flow,
    input wire [1:0] s_ev_kind,
    input wire [7:0] s_ev_n,
    input wire s_ev_ece,
    input wire s_ev_last,
    input wire [23:0] s_ev_rtt,
    input wire s_cfg_valid,
    input wire [2:0] s_cfg_addr,
    input wire [15:0] s_cfg_data
);
    localparam FB = `CCRTL_FLOW_BITS;
    localparam LAT = 22;           // result latency (golden LATENCY)
    localparam [FB:0] F = 1 << FB; // flows, and the cycles of the clearing
    localparam [2:0] R_GS = `CCRTL_RESET_GAMMA_SHIFT;
    localparam [39:0] FLOOR = 40'h20000; // 2^17, gamma at gamma_shift 7

    wire s_ev_ready;
    wire m_cc_valid, m_cc_stable, m_cc_ect;
    wire [FB-1:0] m_cc_flow;
    wire [1:0] m_cc_kind;
    wire [39:0] m_cc_cw;
    wire [31:0] m_cc_interval;

    // Exposed registers and the table's RAM: the tracked address and word,
    // the write registered once (we, wa, wd) and twice (a_we0, a_wa0, a_wd0).
    wire h_busy;
    wire [2:0] h_gs;
    wire [FB-1:0] fa, wa, aa;
    wire [40:0] w, wd, ad;
    wire we, ae;

    ccrtl_ldcp_tx dut (
        .clk(clk),
        .rst(rst),
        .s_ev_valid(s_ev_valid),
        .s_ev_ready(s_ev_ready),
        .s_ev_flow(s_ev_flow),
        .s_ev_kind(s_ev_kind),
        .s_ev_n(s_ev_n),
        .s_ev_ece(s_ev_ece),
        .s_ev_last(s_ev_last),
        .s_ev_rtt(s_ev_rtt),
        .s_cfg_valid(s_cfg_valid),
        .s_cfg_addr(s_cfg_addr),
        .s_cfg_data(s_cfg_data),
        .m_cc_valid(m_cc_valid),
        .m_cc_flow(m_cc_flow),
        .m_cc_kind(m_cc_kind),
        .m_cc_cw(m_cc_cw),
        .m_cc_stable(m_cc_stable),
        .m_cc_ect(m_cc_ect),
        .m_cc_interval(m_cc_interval),
        .busy$q(h_busy),
        .r_gs$q(h_gs),
        .\tl.ram.formal_addr (fa), .\tl.ram.formal_word_a (w),
        .\tl.ram.we (we), .\tl.ram.wa (wa), .\tl.ram.wd (wd),
        .\tl.ram.a_we0 (ae), .\tl.ram.a_wa0 (aa), .\tl.ram.a_wd0 (ad)
    );

    // ---- The contract's assumption ----------------------------------------
    reg f_past = 1'b0;
    always @(posedge clk) f_past <= 1'b1;
    always @(*) if (!f_past) assume(rst);

    // The tracked flow: the address the table's RAM keeps.
    (* anyconst *) wire [FB-1:0] f;
    always @(*) assume(fa == f);

    integer k;

    // ---- The spec: the clearing, gamma_shift in force ------------------------
    reg [FB:0] sh_left;
    always @(posedge clk)
        if (rst)
            sh_left <= F;
        else if (sh_left != 0)
            sh_left <= sh_left - 1'b1;
    wire sh_busy = sh_left != 0;
    // The clearing has written f's word into the RAM (flow p is written in
    // the p-th cycle after the reset, and the RAM takes a write 3 cycles
    // after it is issued). From then on the word is one the block wrote:
    // sticky, since a later reset's clearing writes it again.
    reg [FB+2:0] sh_since;
    reg armed;
    always @(posedge clk) begin
        if (rst)
            sh_since <= 0;
        else if (sh_since != {(FB+3){1'b1}})
            sh_since <= sh_since + 1'b1;
        if (!f_past)
            armed <= 1'b0;
        else if (!rst && sh_since >= {3'b0, f} + 3'd2)
            armed <= 1'b1;
    end

    reg [2:0] sh_gs;
    always @(posedge clk)
        if (rst)
            sh_gs <= R_GS;
        else if (s_cfg_valid && s_cfg_addr == 3'd2)
            sh_gs <= s_cfg_data[2:0];

    // f's events down a line of LAT stages: accepted, whether it sets the
    // window in the stable stage, the gamma of its cycle's registers.
    wire accept = s_ev_valid && s_ev_ready && !rst;
    wire ev_f = accept && s_ev_flow == f;
    wire sets = s_ev_kind == 2'd2 || (s_ev_kind == 2'd1 && s_ev_n != 8'd0);
    reg d_ev [1:LAT];
    reg d_set [1:LAT];
    reg [39:0] d_g [1:LAT];
    always @(posedge clk) begin
        d_ev[1] <= ev_f;
        d_set[1] <= sets;
        d_g[1] <= 40'h1000000 >> sh_gs;
        for (k = 2; k <= LAT; k = k + 1) begin
            d_ev[k] <= d_ev[k-1] && !rst;
            d_set[k] <= d_set[k-1];
            d_g[k] <= d_g[k-1];
        end
    end

    // A stored word of f: stable words hold at least 2^17.
    function ok_word(input [40:0] x);
        ok_word = !x[40] || x[39:0] >= FLOOR;
    endfunction

`ifdef CHECK_P1
    always @(*) if (f_past) begin
        // The registers in force are the contract's.
        p1_regs: assert (h_gs == sh_gs);
        // The tracked word and the writes of it in flight, once the
        // clearing has written it.
        if (armed) begin
            p1_word: assert (ok_word(w));
            p1_wd: assert (!(we && wa == f) || ok_word(wd));
            p1_ad: assert (!(ae && aa == f) || ok_word(ad));
        end
        // The results of f.
        if (d_ev[LAT]) begin
            p1_result: assert (m_cc_valid && m_cc_flow == f);
            p1_floor: assert (m_cc_cw >= FLOOR);
            if (!m_cc_stable || d_set[LAT])
                p1_gamma: assert (m_cc_cw >= d_g[LAT]);
        end
    end
`endif

`ifdef CHECK_P2
    always @(*) if (f_past) begin
        p2_ready: assert (s_ev_ready == !sh_busy);
        p2_busy: assert (h_busy == sh_busy);
    end
`endif

`ifdef COVER
    // Results of f: below one packet, at the floor gamma, back at one packet.
    always @(*) if (f_past) begin
        c_below_one: cover (d_ev[LAT] && m_cc_stable && m_cc_cw < 40'h1000000);
        c_at_gamma: cover (d_ev[LAT] && m_cc_stable && m_cc_cw == d_g[LAT] && d_set[LAT]);
        c_stable: cover (d_ev[LAT] && m_cc_stable && m_cc_cw >= 40'h1000000);
    end
`endif
endmodule
