//! Planted bugs: textual mutants of an emitted Verilog file, to show that the
//! checks fail when the hardware is wrong.
//!
//! Only the combinational body of the top module (its `always @(*)` block,
//! where rust-hdl writes the block's logic) is mutated, one change per mutant:
//! - a binary operator replaced (`>=`<->`>`, `<`->`<=`, `==`<->`!=`, `+`<->`-`,
//!   `&`<->`|`, `^`->`|`, `<<`<->`>>`);
//! - a negation `~x` dropped;
//! - a hexadecimal literal incremented (`32'h3` -> `32'h4`);
//! - an assignment statement deleted (the register defaults `r$d = r$q;` and
//!   the clock fan-out `r$clock = clk;` are left alone: deleting them gives a
//!   latch or a dead block, not a plausible bug).

/// One planted bug.
#[derive(Debug, Clone)]
pub struct Mutant {
    /// 1-based line of the change in the original file.
    pub line: usize,
    /// What was changed, e.g. `>= -> >` or `delete statement`.
    pub change: String,
    /// The original line, trimmed.
    pub original: String,
    /// The whole mutated file.
    pub text: String,
}

impl Mutant {
    /// A stable identifier: `L<line>:<change>`.
    pub fn id(&self) -> String {
        format!("L{}:{}", self.line, self.change)
    }
}

const BINARY: &[(&str, &str)] = &[
    (" >= ", " > "),
    (" > ", " >= "),
    (" < ", " <= "),
    (" == ", " != "),
    (" != ", " == "),
    (" + ", " - "),
    (" - ", " + "),
    (" & ", " | "),
    (" | ", " & "),
    (" ^ ", " | "),
    (" << ", " >> "),
    (" >> ", " << "),
];

/// Every mutant of the combinational body of module `top` in `verilog`.
pub fn mutants(verilog: &str, top: &str) -> Vec<Mutant> {
    let lines: Vec<&str> = verilog.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&format!("module {top}(")));
    let Some(start) = start else { return vec![] };
    let mut in_body = false;
    let mut out = vec![];
    for (n, line) in lines.iter().enumerate().skip(start) {
        let t = line.trim();
        if t.starts_with("endmodule") {
            break;
        }
        if t.starts_with("always @(*)") {
            in_body = true;
            continue;
        }
        if !in_body {
            continue;
        }
        let mut emit = |change: String, new_line: Option<String>| {
            let mut text = String::with_capacity(verilog.len());
            for (k, l) in lines.iter().enumerate() {
                if k == n {
                    if let Some(nl) = &new_line {
                        text.push_str(nl);
                        text.push('\n');
                    }
                } else {
                    text.push_str(l);
                    text.push('\n');
                }
            }
            out.push(Mutant {
                line: n + 1,
                change,
                original: t.to_string(),
                text,
            });
        };
        // Binary operators. ` > ` must not match inside ` >= ` or ` >> `;
        // the spaces around each pattern make the matches exact.
        for (from, to) in BINARY {
            for (pos, _) in line.match_indices(from) {
                let new = format!("{}{}{}", &line[..pos], to, &line[pos + from.len()..]);
                emit(format!("{} -> {}", from.trim(), to.trim()), Some(new));
            }
        }
        // Negations.
        for (pos, _) in line.match_indices('~') {
            let new = format!("{}{}", &line[..pos], &line[pos + 1..]);
            emit("drop ~".to_string(), Some(new));
        }
        // Literals.
        for (pos, _) in line.match_indices("'h") {
            let digits: String = line[pos + 2..]
                .chars()
                .take_while(|c| c.is_ascii_hexdigit())
                .collect();
            let width: String = line[..pos]
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_digit())
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            if digits.is_empty() || digits.len() > 16 {
                continue;
            }
            let Ok(v) = u64::from_str_radix(&digits, 16) else {
                continue;
            };
            let bits: u32 = width.parse().unwrap_or(32);
            let next = if bits < 64 && v + 1 >= (1u64 << bits) {
                0
            } else {
                v + 1
            };
            let new = format!(
                "{}'h{:x}{}",
                &line[..pos],
                next,
                &line[pos + 2 + digits.len()..]
            );
            emit(format!("{width}'h{digits} -> {width}'h{next:x}"), Some(new));
        }
        // Statement deletion.
        if let Some((lhs, rhs)) = t.strip_suffix(';').and_then(|s| s.split_once(" = ")) {
            let default = rhs == lhs.replace("$d", "$q") || lhs.ends_with("$clock");
            if !default {
                emit("delete statement".to_string(), None);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_literals_and_statements_are_mutated_once_each() {
        let v = "module t(a);\n  always @(*) begin\n    r$d = r$q;\n    x = a >= b;\n    y = ~a & 32'h3;\n  end\nendmodule\n";
        let m = mutants(v, "t");
        let ids: Vec<String> = m.iter().map(|m| m.id()).collect();
        assert_eq!(
            ids,
            vec![
                "L4:>= -> >",
                "L4:delete statement",
                "L5:& -> |",
                "L5:drop ~",
                "L5:32'h3 -> 32'h4",
                "L5:delete statement",
            ]
        );
        assert!(m[0].text.contains("x = a > b;"));
        assert!(!m[1].text.contains("x = a"));
    }
}
