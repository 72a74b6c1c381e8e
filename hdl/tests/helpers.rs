//! Unit checks of the hdl crate's helpers: ports read from a struct, the
//! emitted text's clean-up, block RAM geometry. Integration tests, so that
//! `cargo test` compiles the hdl crate once (see Cargo.toml).

mod ports {
    use ccrtl_golden::cp::CpConfig;

    #[test]
    fn cp_ports_are_read_from_the_struct() {
        let p = ccrtl_hdl::cp::ports(&CpConfig::default());
        let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names[0], "clk");
        assert!(names.contains(&"s_enq_len") && names.contains(&"q_depth"));
        let len = p.iter().find(|p| p.name == "s_enq_len").unwrap();
        assert!(len.input && len.width == 14);
        let depth = p.iter().find(|p| p.name == "q_depth").unwrap();
        assert!(!depth.input && depth.width == 24);
        // Registers and local signals are not ports.
        assert!(!names.iter().any(|n| n.contains("s1_") || *n == "sum"));
    }
}

mod emit {
    use ccrtl_hdl::emit::*;

    #[test]
    fn initial_blocks_and_their_comment_are_removed() {
        let raw = "module r(d,q);\n    // Update code (custom)\n    initial begin\n       q = 24'h0;\n    end\n    \n    always @(posedge clock) begin\n       q <= d;\n    end\nendmodule\n";
        assert_eq!(
            strip_initial_blocks(raw),
            "module r(d,q);\n    \n    always @(posedge clock) begin\n       q <= d;\n    end\nendmodule\n"
        );
    }

    #[test]
    fn rename_touches_module_names_only() {
        let raw = "module top(a);\n top$r r(.d(r$d));\nendmodule // top\nmodule top$r(d);\nendmodule // top$r\n";
        let got = rename_modules(raw, "ccrtl_x");
        assert_eq!(
            got,
            "module ccrtl_x(a);\n ccrtl_x__r r(.d(r$d));\nendmodule // ccrtl_x\nmodule ccrtl_x__r(d);\nendmodule // ccrtl_x__r\n"
        );
    }
}

mod ram {
    use ccrtl_hdl::ram::*;

    #[test]
    fn banks_and_slices_fit_one_block_ram_each() {
        let g = Geometry::of(18, 16);
        assert_eq!((g.bank_bits, g.banks, g.slice_width), (14, 4, 1));
        assert_eq!(g.slices(18).len(), 18);
        let g = Geometry::of(14, 12);
        assert_eq!((g.bank_bits, g.banks, g.slice_width), (12, 1, 4));
        assert_eq!(g.slices(14), vec![(0, 4), (4, 4), (8, 4), (12, 2)]);
        let g = Geometry::of(1, 8);
        assert_eq!((g.bank_bits, g.banks, g.slice_width), (8, 1, 1));
        // Every slice fits 16 kbit.
        for n in 4..=17 {
            for w in 1..=40 {
                let g = Geometry::of(w, n);
                assert!(
                    (1usize << g.bank_bits) * g.slice_width <= 18 * 1024,
                    "{w} x 2^{n}"
                );
            }
        }
    }
}
