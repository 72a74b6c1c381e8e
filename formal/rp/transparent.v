// Every flip-flop of the visit pipeline made transparent (Q = D): with
// the pipeline feed-forward, the netlist becomes the visit's function from
// its stage-0 inputs to its outputs.
(* techmap_celltype = "$dff" *)
module _t_dff (CLK, D, Q);
    parameter WIDTH = 1;
    parameter CLK_POLARITY = 1'b1;
    input CLK;
    input [WIDTH-1:0] D;
    output [WIDTH-1:0] Q;
    assign Q = D;
endmodule
