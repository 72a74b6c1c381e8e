//! Planted bugs: textual mutants of an emitted Verilog file, to show that the
//! checks fail when the hardware is wrong.
//!
//! Every module of the file is read: the top module (named by the caller) and
//! all others (rust-hdl writes one register submodule per register). Code is
//! what sits in `always` blocks; `initial` blocks (power-up values, which the
//! block's reset overrides and which the emitter no longer writes) are not mutated.
//! Nor is code under `` `ifdef SYNTHESIS ``/`` `ifndef SYNTHESIS ``: there a
//! block RAM's read differs between simulation (which models a read that
//! collides with a write as garbage) and synthesis (a plain read), so a
//! mutant there is either not hardware or not what Verilator runs. Under a
//! section on another macro (`CCRTL_FORMAL_RAM`, the block RAM's abstraction
//! for the formal proofs) the branch taken without the macro is the hardware
//! and is mutated; the other is not.
//! One change per mutant, each of one [`MutantClass`]:
//! - [`OperatorSwap`](MutantClass::OperatorSwap), in any `always` block: a
//!   binary operator replaced (`>=`<->`>`, `<`->`<=`, `==`<->`!=`, `+`<->`-`,
//!   `&`<->`|`, `^`->`|`, `<<`<->`>>`);
//! - [`DropNegation`](MutantClass::DropNegation): a negation `~x` dropped;
//! - [`LiteralIncrement`](MutantClass::LiteralIncrement): a hexadecimal literal
//!   incremented (`32'h3` -> `32'h4`);
//! - [`DeleteStatement`](MutantClass::DeleteStatement): an assignment deleted
//!   (the register defaults `r$d = r$q;` and the clock fan-out
//!   `r$clock = clk;` are left alone: deleting them gives a latch or a dead
//!   block, not a plausible bug). Inside the synchronous reset section
//!   `if (rst) begin ... end` a deletion is a
//!   [`ResetNotCleared`](MutantClass::ResetNotCleared) mutant instead.
//!
//! In the combinational body (`always @(*)`) of the top module only:
//! - [`ValidGating`](MutantClass::ValidGating): one occurrence of a valid input
//!   `s_X_valid` replaced by `1'b1` (a payload used without its valid);
//! - [`ResetConstant`](MutantClass::ResetConstant): in the reset section,
//!   `r$d = P;` with `P` a `localparam` becomes `r$d = Q;`, `Q` the next
//!   `localparam` after `P` in declaration order (wrapping around) of the same
//!   declared width and a different value; none such: no mutant;
//! - [`LoadLate`](MutantClass::LoadLate): for each register `r` (a `r$q` wire),
//!   its first use `r$q` on the right of an assignment (the default
//!   `r$d = r$q;` excluded) reads `r__late` instead, a new register declared
//!   before the body as `reg [W-1:0] r__late;` and loaded by
//!   `always @(posedge clk) r__late <= r$q;` (no input `clk`: no mutant);
//! - [`LoadEarly`](MutantClass::LoadEarly): a use of `r$q` on the right of an
//!   output-port assignment reads `r$d` (only there, so no combinational loop
//!   can form).
//!
//! In declarations:
//! - [`WidthTruncated`](MutantClass::WidthTruncated): a `reg`/`wire`
//!   declared `[N:0]`, N >= 1, is declared `[N-1:0]`. In the top module every
//!   internal signal (not its ports: the Verilator driver checks the port
//!   widths against the block's port list and would refuse the model before
//!   any cycle runs); in a register submodule (ports `d` and `q`) one mutant,
//!   on `q`; in any other module every ranged declaration.
//!
//! Generation is deterministic, in file order; mutants of one line come in
//! the order of the list above. Each mutant's [`Mutant::id`] is distinct: when
//! one line would give the same change twice (two ` & ` on a line), the second
//! gets ` #2` appended to its `change`, the third ` #3`, and so on.

/// The kind of a planted bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MutantClass {
    /// A binary operator replaced by a neighbour (`>=` -> `>`, `+` -> `-`, ...).
    OperatorSwap,
    /// A negation `~` dropped.
    DropNegation,
    /// A hexadecimal literal incremented.
    LiteralIncrement,
    /// An assignment deleted (outside the reset section).
    DeleteStatement,
    /// A valid input `s_X_valid` replaced by `1'b1`.
    ValidGating,
    /// A reset value taken from another constant of the same width.
    ResetConstant,
    /// An assignment of the reset section deleted.
    ResetNotCleared,
    /// A register read one cycle late.
    LoadLate,
    /// A register's next value read one cycle early, at an output.
    LoadEarly,
    /// A declared width one bit short.
    WidthTruncated,
}

impl MutantClass {
    /// Every class, in the order of generation within a line.
    pub const ALL: [MutantClass; 10] = [
        MutantClass::OperatorSwap,
        MutantClass::DropNegation,
        MutantClass::LiteralIncrement,
        MutantClass::DeleteStatement,
        MutantClass::ValidGating,
        MutantClass::ResetConstant,
        MutantClass::ResetNotCleared,
        MutantClass::LoadLate,
        MutantClass::LoadEarly,
        MutantClass::WidthTruncated,
    ];

    /// A short stable name, e.g. `reset-constant`.
    pub fn name(self) -> &'static str {
        match self {
            MutantClass::OperatorSwap => "operator-swap",
            MutantClass::DropNegation => "drop-negation",
            MutantClass::LiteralIncrement => "literal-increment",
            MutantClass::DeleteStatement => "delete-statement",
            MutantClass::ValidGating => "valid-gating",
            MutantClass::ResetConstant => "reset-constant",
            MutantClass::ResetNotCleared => "reset-not-cleared",
            MutantClass::LoadLate => "load-late",
            MutantClass::LoadEarly => "load-early",
            MutantClass::WidthTruncated => "width-truncated",
        }
    }
}

impl std::fmt::Display for MutantClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One planted bug.
#[derive(Debug, Clone)]
pub struct Mutant {
    /// 1-based line of the change in the original file.
    pub line: usize,
    /// What was changed, e.g. `>= -> >`, `delete statement` or
    /// `reset-constant reset_kmin -> reset_kdrop`.
    pub change: String,
    /// The original line, trimmed.
    pub original: String,
    /// The module the line belongs to (e.g. `ccrtl_cp__lhs_mul`).
    pub module: String,
    /// The whole mutated file.
    pub text: String,
    /// The kind of bug.
    pub class: MutantClass,
}

impl Mutant {
    /// A stable identifier, distinct among the mutants of one file:
    /// `L<line>:<change>`.
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

// ---- parsing ----------------------------------------------------------------

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// Byte offsets of `word` in `hay` as a whole identifier.
fn word_positions(hay: &str, word: &str) -> Vec<usize> {
    hay.match_indices(word)
        .filter(|(pos, _)| {
            let before = hay[..*pos].chars().next_back();
            let after = hay[pos + word.len()..].chars().next();
            !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
        })
        .map(|(pos, _)| pos)
        .collect()
}

/// The identifiers of a line, in order.
fn words(code: &str) -> impl Iterator<Item = &str> {
    code.split(|c: char| !is_ident(c)).filter(|w| !w.is_empty())
}

/// One open `` `ifdef ``/`` `ifndef `` section of a module. Code is mutated
/// only where both Verilator (no macro defined) and synthesis (`SYNTHESIS`
/// defined) read it: in a section on `SYNTHESIS` neither branch is (the
/// branches differ between the two), and in a section on any other macro
/// (`CCRTL_FORMAL_RAM`, the formal proof's RAM) only the branch taken when it
/// is not defined.
struct Section {
    /// The macro is `SYNTHESIS`.
    synthesis: bool,
    /// The current branch is taken when the macro is defined.
    when_defined: bool,
}

impl Section {
    fn live(&self) -> bool {
        !self.synthesis && !self.when_defined
    }
}

/// Track `` `ifdef ``, `` `ifndef ``, `` `else `` and `` `endif `` lines.
fn section_directive(sections: &mut Vec<Section>, code: &str) {
    let mut w = code.split_whitespace();
    let (directive, macro_name) = (w.next().unwrap_or(""), w.next().unwrap_or(""));
    match directive {
        "`ifdef" | "`ifndef" => sections.push(Section {
            synthesis: macro_name == "SYNTHESIS",
            when_defined: directive == "`ifdef",
        }),
        "`else" => {
            if let Some(s) = sections.last_mut() {
                s.when_defined = !s.when_defined;
            }
        }
        "`endif" => {
            sections.pop();
        }
        _ => {}
    }
}

/// A line without its `//` comment.
fn code_of(line: &str) -> &str {
    line.split_once("//").map_or(line, |(c, _)| c)
}

/// `lhs = rhs;` of an assignment line (trimmed).
fn assignment(t: &str) -> Option<(&str, &str)> {
    t.strip_suffix(';').and_then(|s| s.split_once(" = "))
}

/// `r$d = r$q;` or `r$clock = clk;`: structure, not logic.
fn is_default(lhs: &str, rhs: &str) -> bool {
    rhs == lhs.replace("$d", "$q") || lhs.ends_with("$clock")
}

#[derive(Debug, Clone)]
struct Decl {
    /// 0-based line.
    line: usize,
    /// `input`, `output`, `inout`, or empty for a `reg`/`wire`.
    dir: &'static str,
    /// The range as written, `[23:0]`, or empty.
    range: String,
    /// `N` of a range `[N:0]`.
    msb: Option<u32>,
    name: String,
}

/// `input wire  [13:0] s_len;`, `reg  [23:0] depth$d;`, `wire  x$q;`, ...
fn parse_decl(line: usize, t: &str) -> Option<Decl> {
    let body = code_of(t).trim().strip_suffix(';')?;
    let (head, range, name) = match (body.find('['), body.find(']')) {
        (Some(a), Some(b)) if a < b => (&body[..a], &body[a..=b], body[b + 1..].trim()),
        (None, None) => {
            let (h, n) = body.rsplit_once(char::is_whitespace)?;
            (h, "", n.trim())
        }
        _ => return None,
    };
    if name.is_empty() || !name.chars().all(is_ident) {
        return None;
    }
    let mut dir = "";
    let mut kind = false;
    for w in head.split_whitespace() {
        match w {
            "input" => dir = "input",
            "output" => dir = "output",
            "inout" => dir = "inout",
            "wire" | "reg" | "logic" => kind = true,
            "signed" => {}
            _ => return None,
        }
    }
    if !kind && dir.is_empty() {
        return None;
    }
    let msb = range
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .and_then(|r| r.split_once(':'))
        .and_then(|(m, l)| match (m.trim().parse::<u32>(), l.trim()) {
            (Ok(m), "0") => Some(m),
            _ => None,
        });
    Some(Decl {
        line,
        dir,
        range: range.to_string(),
        msb,
        name: name.to_string(),
    })
}

#[derive(Debug, Clone)]
struct Param {
    name: String,
    width: Option<u32>,
    /// The value, normalised where it parses (`h:3fffff`), else as written.
    value: String,
}

/// `localparam  reset_kmin = 24'h3fffff;` (a range `[N:M]` may precede the name).
fn parse_localparam(t: &str) -> Option<Param> {
    let body = code_of(t).trim().strip_prefix("localparam")?;
    let body = body.trim().strip_suffix(';')?;
    let (lhs, value) = body.split_once('=')?;
    let (lhs, value) = (lhs.trim(), value.trim());
    let (range_width, name) = match (lhs.find('['), lhs.find(']')) {
        (Some(a), Some(b)) if a < b => {
            let w = lhs[a + 1..b].split_once(':').and_then(|(m, l)| {
                let (m, l) = (m.trim().parse::<i64>().ok()?, l.trim().parse::<i64>().ok()?);
                Some((m - l).unsigned_abs() as u32 + 1)
            });
            (Some(w), lhs[b + 1..].trim())
        }
        _ => (None, lhs),
    };
    if name.is_empty() || !name.chars().all(is_ident) {
        return None;
    }
    let (lit_width, norm) = match value.split_once('\'') {
        Some((w, rest)) => {
            let rest = rest.trim_start_matches(['s', 'S']);
            let base = rest.chars().next().map(|c| c.to_ascii_lowercase());
            let digits: String = rest
                .get(1..)
                .unwrap_or("")
                .chars()
                .filter(|c| *c != '_')
                .collect();
            let radix = match base {
                Some('h') => Some(16),
                Some('b') => Some(2),
                Some('o') => Some(8),
                Some('d') => Some(10),
                _ => None,
            };
            let norm = radix
                .and_then(|r| u128::from_str_radix(&digits, r).ok())
                .map_or_else(|| value.to_string(), |v| format!("h:{v:x}"));
            (w.trim().parse::<u32>().ok(), norm)
        }
        None => (
            None,
            value
                .parse::<u128>()
                .map_or_else(|_| value.to_string(), |v| format!("h:{v:x}")),
        ),
    };
    Some(Param {
        name: name.to_string(),
        width: range_width.unwrap_or(lit_width),
        value: norm,
    })
}

/// Where a code line sits.
#[derive(Debug, Clone, Copy)]
struct Code {
    /// 0-based line.
    line: usize,
    /// In an `always @(*)` block.
    comb: bool,
    /// Inside `if (rst) begin ... end` of such a block.
    in_rst: bool,
}

#[derive(Debug, Clone)]
struct Module {
    name: String,
    decls: Vec<Decl>,
    params: Vec<Param>,
    code: Vec<Code>,
    /// Header line of the first `always @(*)` block.
    comb_header: Option<usize>,
}

fn parse_modules(lines: &[&str]) -> Vec<Module> {
    let mut out = vec![];
    let mut n = 0;
    while n < lines.len() {
        let t = lines[n].trim();
        let Some(rest) = t.strip_prefix("module ") else {
            n += 1;
            continue;
        };
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| is_ident(*c))
            .collect();
        let mut m = Module {
            name,
            decls: vec![],
            params: vec![],
            code: vec![],
            comb_header: None,
        };
        // Inside an `always` block: its depth of begin/end, whether it opened
        // with `begin`, whether it is combinational, and the depth at which
        // an open `if (rst)` section started.
        let mut always: Option<(i32, bool, bool)> = None;
        let mut rst_at: Option<i32> = None;
        // Open `ifdef/`ifndef sections, innermost last: whether each one's
        // current branch is live (see `Section`).
        let mut sections: Vec<Section> = Vec::new();
        n += 1;
        while n < lines.len() {
            let code = code_of(lines[n]).trim();
            if code.starts_with("endmodule") {
                break;
            }
            section_directive(&mut sections, code);
            let in_cond = code.starts_with('`') || sections.iter().any(|s| !s.live());
            match always.as_mut() {
                None => {
                    if words(code).next() == Some("always") {
                        let comb = code.contains("@(*)")
                            || code.contains("@*")
                            || code.starts_with("always_comb");
                        if comb && m.comb_header.is_none() {
                            m.comb_header = Some(n);
                        }
                        let opened = words(code).any(|w| w == "begin");
                        let depth = words(code)
                            .map(|w| match w {
                                "begin" => 1,
                                "end" => -1,
                                _ => 0,
                            })
                            .sum::<i32>();
                        if opened || !code.ends_with(';') {
                            always = Some((depth, opened, comb));
                            rst_at = None;
                        }
                    } else if let Some(p) = parse_localparam(code) {
                        m.params.push(p);
                    } else if let Some(d) = parse_decl(n, code).filter(|_| !in_cond) {
                        m.decls.push(d);
                    }
                }
                Some((depth, opened, comb)) => {
                    let header = *comb
                        && rst_at.is_none()
                        && (code.starts_with("if (rst)") || code.starts_with("if(rst)"));
                    if header {
                        rst_at = Some(*depth);
                    }
                    let in_rst = rst_at.is_some() && !header;
                    for w in words(code) {
                        match w {
                            "begin" => *depth += 1,
                            "end" => {
                                *depth -= 1;
                                if rst_at.is_some_and(|r| *depth <= r) {
                                    rst_at = None;
                                }
                            }
                            _ => {}
                        }
                    }
                    if !in_cond {
                        m.code.push(Code {
                            line: n,
                            comb: *comb,
                            in_rst,
                        });
                    }
                    let done = if *opened {
                        *depth <= 0
                    } else {
                        *depth <= 0 && code.ends_with(';')
                    };
                    if done {
                        always = None;
                        rst_at = None;
                    }
                }
            }
            n += 1;
        }
        out.push(m);
        n += 1;
    }
    out
}

// ---- generation -------------------------------------------------------------

/// Collects mutants of one file.
struct Out<'a> {
    lines: &'a [&'a str],
    /// The module being mutated.
    module: String,
    mutants: Vec<Mutant>,
}

impl Out<'_> {
    /// A mutant replacing (or, with `None`, deleting) line `n`, with `insert`
    /// lines written before line `at`.
    fn push(
        &mut self,
        class: MutantClass,
        n: usize,
        change: String,
        new_line: Option<String>,
        insert: Option<(usize, Vec<String>)>,
    ) {
        let mut text =
            String::with_capacity(self.lines.iter().map(|l| l.len() + 1).sum::<usize>() + 128);
        for (k, l) in self.lines.iter().enumerate() {
            if let Some((at, extra)) = &insert {
                if *at == k {
                    for e in extra {
                        text.push_str(e);
                        text.push('\n');
                    }
                }
            }
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
        self.mutants.push(Mutant {
            line: n + 1,
            change,
            original: self.lines[n].trim().to_string(),
            module: self.module.clone(),
            text,
            class,
        });
    }
}

fn splice(line: &str, pos: usize, len: usize, with: &str) -> String {
    format!("{}{}{}", &line[..pos], with, &line[pos + len..])
}

/// Every mutant of `verilog`, whose top module is `top` (see the module
/// documentation for the classes). No module `top`: no mutants.
pub fn mutants(verilog: &str, top: &str) -> Vec<Mutant> {
    let lines: Vec<&str> = verilog.lines().collect();
    let modules = parse_modules(&lines);
    if !modules.iter().any(|m| m.name == top) {
        return vec![];
    }
    let mut out = Out {
        lines: &lines,
        module: String::new(),
        mutants: vec![],
    };
    for m in &modules {
        out.module = m.name.clone();
        let is_top = m.name == top;
        // Facts about the top module.
        let port = |name: &str, dir: &str| m.decls.iter().any(|d| d.dir == dir && d.name == name);
        let clk = is_top && port("clk", "input");
        let valids: Vec<&str> = if is_top {
            m.decls
                .iter()
                .filter(|d| {
                    d.dir == "input"
                        && d.name.len() > "s__valid".len()
                        && d.name.starts_with("s_")
                        && d.name.ends_with("_valid")
                })
                .map(|d| d.name.as_str())
                .collect()
        } else {
            vec![]
        };
        // Registers: `r` with wires `r$q` and regs `r$d`, and `r$q`'s range.
        let registers: Vec<(&str, &str)> = m
            .decls
            .iter()
            .filter(|d| d.dir.is_empty())
            .filter_map(|d| {
                let r = d.name.strip_suffix("$q")?;
                let dn = format!("{r}$d");
                m.decls
                    .iter()
                    .any(|e| e.dir.is_empty() && e.name == dn)
                    .then_some((r, d.range.as_str()))
            })
            .collect();
        let mut late_done: Vec<&str> = vec![];

        // Declarations, in file order, merged with the code lines below.
        let is_register_module = port("d", "input") && port("q", "output");
        let mut widths: Vec<&Decl> = m
            .decls
            .iter()
            .filter(|d| d.msb.is_some_and(|n| n >= 1))
            .filter(|d| {
                if is_top {
                    d.dir.is_empty()
                } else if is_register_module {
                    d.name == "q" && d.dir == "output"
                } else {
                    true
                }
            })
            .collect();
        widths.sort_by_key(|d| d.line);
        let mut widths = widths.into_iter().peekable();

        for c in &m.code {
            while let Some(d) = widths.next_if(|d| d.line < c.line) {
                width_truncated(&mut out, &m.name, d);
            }
            let n = c.line;
            let line = lines[n];
            let t = line.trim();
            // Binary operators. ` > ` must not match inside ` >= ` or ` >> `;
            // the spaces around each pattern make the matches exact.
            for (from, to) in BINARY {
                for (pos, _) in line.match_indices(from) {
                    let new = splice(line, pos, from.len(), to);
                    out.push(
                        MutantClass::OperatorSwap,
                        n,
                        format!("{} -> {}", from.trim(), to.trim()),
                        Some(new),
                        None,
                    );
                }
            }
            // Negations.
            for (pos, _) in line.match_indices('~') {
                let new = splice(line, pos, 1, "");
                out.push(
                    MutantClass::DropNegation,
                    n,
                    "drop ~".to_string(),
                    Some(new),
                    None,
                );
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
                out.push(
                    MutantClass::LiteralIncrement,
                    n,
                    format!("{width}'h{digits} -> {width}'h{next:x}"),
                    Some(new),
                    None,
                );
            }
            let assign = assignment(t).filter(|(l, r)| !is_default(l, r));
            // Statement deletion outside the reset section.
            if assign.is_some() && !c.in_rst {
                out.push(
                    MutantClass::DeleteStatement,
                    n,
                    "delete statement".to_string(),
                    None,
                    None,
                );
            }
            if !(is_top && c.comb) {
                continue;
            }
            // Valid gating.
            for v in &valids {
                for pos in word_positions(line, v) {
                    let new = splice(line, pos, v.len(), "1'b1");
                    out.push(
                        MutantClass::ValidGating,
                        n,
                        format!("valid-gating {v} -> 1'b1"),
                        Some(new),
                        None,
                    );
                }
            }
            let Some((lhs, rhs)) = assign else { continue };
            let rhs_at = line.find(" = ").map_or(line.len(), |p| p + 3);
            // Reset value from another constant.
            if c.in_rst {
                if let Some(k) = m.params.iter().position(|p| p.name == rhs) {
                    let p = &m.params[k];
                    let other = (1..m.params.len())
                        .map(|j| &m.params[(k + j) % m.params.len()])
                        .find(|q| p.width.is_some() && q.width == p.width && q.value != p.value);
                    if let Some(q) = other {
                        let new = splice(line, rhs_at, rhs.len(), &q.name);
                        out.push(
                            MutantClass::ResetConstant,
                            n,
                            format!("reset-constant {} -> {}", p.name, q.name),
                            Some(new),
                            None,
                        );
                    }
                }
            }
            // Register read one cycle late: the first use of each register.
            if clk && !c.in_rst {
                if let Some(at) = m.comb_header {
                    let mut uses: Vec<(usize, &str, &str)> = registers
                        .iter()
                        .filter(|(r, _)| !late_done.contains(r))
                        .filter_map(|(r, range)| {
                            let q = format!("{r}$q");
                            let pos = *word_positions(&line[rhs_at..], &q).first()?;
                            Some((rhs_at + pos, *r, *range))
                        })
                        .collect();
                    uses.sort();
                    for (pos, r, range) in uses {
                        late_done.push(r);
                        let late = format!("{r}__late");
                        if !word_positions(verilog, &late).is_empty() {
                            continue;
                        }
                        let indent: String = lines[at]
                            .chars()
                            .take_while(|c| c.is_whitespace())
                            .collect();
                        let decl = if range.is_empty() {
                            format!("{indent}reg {late};")
                        } else {
                            format!("{indent}reg {range} {late};")
                        };
                        let load = format!("{indent}always @(posedge clk) {late} <= {r}$q;");
                        let new = splice(line, pos, r.len() + 2, &late);
                        out.push(
                            MutantClass::LoadLate,
                            n,
                            format!("load-late {r}$q -> {late}"),
                            Some(new),
                            Some((at, vec![decl, load])),
                        );
                    }
                }
            }
            // Register read one cycle early, at an output.
            if port(lhs, "output") {
                let mut uses: Vec<(usize, &str)> = registers
                    .iter()
                    .flat_map(|(r, _)| {
                        let q = format!("{r}$q");
                        word_positions(&line[rhs_at..], &q)
                            .into_iter()
                            .map(move |p| (rhs_at + p, *r))
                    })
                    .collect();
                uses.sort();
                for (pos, r) in uses {
                    let new = splice(line, pos, r.len() + 2, &format!("{r}$d"));
                    out.push(
                        MutantClass::LoadEarly,
                        n,
                        format!("load-early {r}$q -> {r}$d"),
                        Some(new),
                        None,
                    );
                }
            }
            // Reset section: a register not cleared.
            if c.in_rst {
                out.push(
                    MutantClass::ResetNotCleared,
                    n,
                    format!("reset-not-cleared {lhs}"),
                    None,
                    None,
                );
            }
        }
        for d in widths {
            width_truncated(&mut out, &m.name, d);
        }
    }
    // File order (modules are read in order; each module's lines in order).
    let mut mutants = out.mutants;
    mutants.sort_by_key(|m| m.line);
    // Distinct ids: the k-th repeat of a change on one line gets ` #k`.
    let mut seen: std::collections::HashMap<(usize, String), usize> = Default::default();
    for mu in &mut mutants {
        let k = seen.entry((mu.line, mu.change.clone())).or_insert(0);
        *k += 1;
        if *k > 1 {
            mu.change = format!("{} #{}", mu.change, k);
        }
    }
    mutants
}

fn width_truncated(out: &mut Out<'_>, module: &str, d: &Decl) {
    let Some(msb) = d.msb else { return };
    let line = out.lines[d.line];
    let Some(pos) = line.find(&d.range) else {
        return;
    };
    let narrow = format!("[{}:0]", msb - 1);
    let new = splice(line, pos, d.range.len(), &narrow);
    out.push(
        MutantClass::WidthTruncated,
        d.line,
        format!(
            "width-truncated {module}.{} {} -> {narrow}",
            d.name, d.range
        ),
        Some(new),
        None,
    );
}

/// `text` matches `pattern`, each `*` of which stands for any text (the
/// change patterns of mutants listed equivalent).
pub fn glob(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_stars_anywhere() {
        assert!(glob("a", "a") && !glob("a", "ab"));
        assert!(glob("w * [3:0]", "w x.y [3:0]") && !glob("w * [3:0]", "w [3:0]x"));
        assert!(glob("w *p2* [31:0]", "w m__p2.q [31:0]"));
        assert!(!glob("w *p2* [31:0]", "w m__p1.q [31:0]"));
        assert!(glob("*", "") && glob("a*b*c", "abc") && !glob("a*bc*c", "abc"));
    }

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
        let classes: Vec<MutantClass> = m.iter().map(|m| m.class).collect();
        use MutantClass::*;
        assert_eq!(
            classes,
            [
                OperatorSwap,
                DeleteStatement,
                OperatorSwap,
                DropNegation,
                LiteralIncrement,
                DeleteStatement
            ]
        );
    }

    /// A small file shaped like rust-hdl's output: a top with one register
    /// `r` (submodule `t__r`, with an `initial` block) and one plain local.
    const SMALL: &str = "\
module t(clk,rst,s_a_valid,s_a_x,m_y,m_v);
    input wire  clk;
    input wire  rst;
    input wire  s_a_valid;
    input wire  [7:0] s_a_x;
    output reg  [7:0] m_y;
    output reg  m_v;
    localparam  reset_p = 8'h5;
    localparam  reset_w = 4'h7;
    localparam  reset_same = 8'h5;
    localparam  reset_q = 8'h7;
    reg  [7:0] r$d;
    wire  [7:0] r$q;
    reg  r$clock;
    reg  [7:0] sum;
    t__r r(
        .d(r$d),
        .q(r$q),
        .clock(r$clock)
    );
    always @(*) begin
        r$clock = clk;
        r$d = r$q;
        sum = r$q | s_a_x;
        if (s_a_valid) begin
            r$d = sum;
        end
        if (rst) begin
            r$d = reset_p;
        end
        m_y = r$q;
        m_v = s_a_valid;
    end
endmodule

module t__r(d,q,clock);
    input wire  [7:0] d;
    output reg  [7:0] q;
    input wire  clock;
    initial begin
       q = 8'h0;
    end
    always @(posedge clock) begin
       q <= d ^ 8'h1;
    end
endmodule
";

    fn one(ms: &[Mutant], class: MutantClass) -> Vec<&Mutant> {
        ms.iter().filter(|m| m.class == class).collect()
    }

    /// The line of `m.text` at the original line `m.line`, for mutants that
    /// neither delete nor insert lines.
    fn changed_line(m: &Mutant) -> &str {
        m.text.lines().nth(m.line - 1).unwrap()
    }

    #[test]
    fn valid_gating_replaces_each_occurrence_of_a_valid_input() {
        let ms = mutants(SMALL, "t");
        let v = one(&ms, MutantClass::ValidGating);
        let got: Vec<(String, &str)> = v.iter().map(|m| (m.id(), changed_line(m))).collect();
        assert_eq!(
            got,
            [
                (
                    "L25:valid-gating s_a_valid -> 1'b1".to_string(),
                    "        if (1'b1) begin"
                ),
                (
                    "L32:valid-gating s_a_valid -> 1'b1".to_string(),
                    "        m_v = 1'b1;"
                ),
            ]
        );
    }

    #[test]
    fn reset_constant_takes_the_next_constant_of_equal_width_and_other_value() {
        let ms = mutants(SMALL, "t");
        let v = one(&ms, MutantClass::ResetConstant);
        assert_eq!(v.len(), 1);
        // reset_w is 4 bits wide, reset_same has the same value: both passed.
        assert_eq!(v[0].id(), "L29:reset-constant reset_p -> reset_q");
        assert_eq!(changed_line(v[0]), "            r$d = reset_q;");
        assert_eq!(v[0].original, "r$d = reset_p;");
        // A constant whose width no other has gives no mutant.
        let lone = SMALL.replace("r$d = reset_p;", "r$d = reset_w;");
        assert!(one(&mutants(&lone, "t"), MutantClass::ResetConstant).is_empty());
    }

    #[test]
    fn reset_not_cleared_deletes_a_reset_assignment_once() {
        let ms = mutants(SMALL, "t");
        let v = one(&ms, MutantClass::ResetNotCleared);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].id(), "L29:reset-not-cleared r$d");
        assert!(!v[0].text.contains("reset_p;\n        end"));
        assert_eq!(v[0].text.lines().count(), SMALL.lines().count() - 1);
        assert_eq!(v[0].text.lines().nth(28).unwrap(), "        end");
        // Not also a plain deletion.
        assert!(!ms
            .iter()
            .any(|m| m.line == 29 && m.class == MutantClass::DeleteStatement));
        // Deletions elsewhere stay DeleteStatement.
        assert!(ms.iter().any(|m| m.id() == "L26:delete statement"));
    }

    #[test]
    fn load_late_reads_a_delayed_copy_at_the_first_use_only() {
        let ms = mutants(SMALL, "t");
        let v = one(&ms, MutantClass::LoadLate);
        assert_eq!(v.len(), 1);
        let m = v[0];
        assert_eq!(m.id(), "L24:load-late r$q -> r__late");
        let lines: Vec<&str> = m.text.lines().collect();
        // Two lines inserted before `always @(*)` (original line 21).
        assert_eq!(lines[20], "    reg [7:0] r__late;");
        assert_eq!(lines[21], "    always @(posedge clk) r__late <= r$q;");
        assert_eq!(lines[22], "    always @(*) begin");
        assert_eq!(lines[24 + 1], "        sum = r__late | s_a_x;");
        assert_eq!(lines[30 + 2], "        m_y = r$q;");
        // No clock input: no such mutant.
        let noclk = SMALL.replace("input wire  clk;", "input wire  clk2;");
        assert!(one(&mutants(&noclk, "t"), MutantClass::LoadLate).is_empty());
    }

    #[test]
    fn load_early_reads_the_next_value_at_an_output() {
        let ms = mutants(SMALL, "t");
        let v = one(&ms, MutantClass::LoadEarly);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].id(), "L31:load-early r$q -> r$d");
        assert_eq!(changed_line(v[0]), "        m_y = r$d;");
    }

    #[test]
    fn width_truncated_covers_top_internals_and_register_submodules() {
        let ms = mutants(SMALL, "t");
        let got: Vec<(String, &str)> = one(&ms, MutantClass::WidthTruncated)
            .iter()
            .map(|m| (m.id(), changed_line(m)))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "L12:width-truncated t.r$d [7:0] -> [6:0]".to_string(),
                    "    reg  [6:0] r$d;"
                ),
                (
                    "L13:width-truncated t.r$q [7:0] -> [6:0]".to_string(),
                    "    wire  [6:0] r$q;"
                ),
                (
                    "L15:width-truncated t.sum [7:0] -> [6:0]".to_string(),
                    "    reg  [6:0] sum;"
                ),
                (
                    "L38:width-truncated t__r.q [7:0] -> [6:0]".to_string(),
                    "    output reg  [6:0] q;"
                ),
            ]
        );
    }

    /// The lint reports a narrowed vector whose lost bits are still
    /// selected (`SELRANGE`), and not one whose bits are used whole.
    #[test]
    fn lint_reports_a_selected_bit_a_narrowed_vector_lost() {
        let sel = SMALL.replace("m_y = r$q;", "m_y = {4'h0, r$q[7:4]};");
        let dir = std::env::temp_dir().join(format!("ccrtl-selrange-{}", std::process::id()));
        let narrowed = |text: &str, name: &str| {
            mutants(text, "t")
                .into_iter()
                .find(|m| m.class == MutantClass::WidthTruncated && m.change.contains(name))
                .unwrap()
        };
        let m = narrowed(&sel, "t.r$q ");
        assert!(lint_reports(&m, "SELRANGE", "t", &dir).unwrap(), "{}", m.id());
        let m = narrowed(SMALL, "t.r$q ");
        assert!(!lint_reports(&m, "SELRANGE", "t", &dir).unwrap(), "{}", m.id());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn every_module_s_always_code_is_mutated_but_not_initial_blocks() {
        let ms = mutants(SMALL, "t");
        let sub: Vec<String> = ms.iter().filter(|m| m.line > 35).map(|m| m.id()).collect();
        assert_eq!(
            sub,
            [
                "L38:width-truncated t__r.q [7:0] -> [6:0]",
                "L44:^ -> |",
                "L44:8'h1 -> 8'h2",
            ]
        );
        // Without the initial block the same, moved up three lines.
        let no_init = SMALL.replace("    initial begin\n       q = 8'h0;\n    end\n", "");
        let sub: Vec<String> = mutants(&no_init, "t")
            .iter()
            .filter(|m| m.line > 35)
            .map(|m| m.id())
            .collect();
        assert_eq!(
            sub,
            [
                "L38:width-truncated t__r.q [7:0] -> [6:0]",
                "L41:^ -> |",
                "L41:8'h1 -> 8'h2"
            ]
        );
    }

    #[test]
    fn code_under_ifdef_is_not_mutated() {
        let v = "module t(clock, a, q);\n  input wire clock;\n  input wire [3:0] a;\n  \
                 output reg [3:0] q;\n`ifndef SYNTHESIS\n  reg g;\n  always @(posedge clock) g <= ~g;\n\
                 `endif\n  always @(posedge clock) begin\n`ifdef SYNTHESIS\n    q <= a + 4'h1;\n\
                 `else\n    q <= (a == 4'h3) ? a ^ {4{g}} : a + 4'h1;\n`endif\n  end\nendmodule\n";
        let ids: Vec<String> = mutants(v, "t").iter().map(|m| m.id()).collect();
        // Only the declarations outside the sections (q, a are ports of a
        // plain module: each ranged one is truncated); no code line.
        assert!(
            ids.iter().all(|id| id.contains("width-truncated")),
            "{ids:?}"
        );
        // The same code without the directives (the `else branch kept).
        let plain = v
            .replace("`ifndef SYNTHESIS\n", "")
            .replace("`ifdef SYNTHESIS\n    q <= a + 4'h1;\n`else\n", "")
            .replace("`endif\n", "");
        assert!(mutants(&plain, "t")
            .iter()
            .any(|m| m.id().contains("== -> !=")));
    }

    #[test]
    fn only_the_branch_without_another_macro_is_mutated() {
        // Line 7 is the formal abstraction's branch, line 9 the hardware's,
        // line 11 (nested under SYNTHESIS) neither.
        let v = "module t(clock, a, q);\n  input wire clock;\n  input wire a;\n  output reg q;\n  \
                 always @(posedge clock) begin\n`ifdef CCRTL_FORMAL_RAM\n    q <= a & q;\n`else\n    \
                 q <= a | q;\n`ifndef SYNTHESIS\n    q <= a ^ q;\n`endif\n`endif\n  end\nendmodule\n";
        let ids: Vec<String> = mutants(v, "t").iter().map(|m| m.id()).collect();
        assert_eq!(ids, ["L9:| -> &"]);
        // An `ifndef on another macro: its body is the hardware.
        let w = v.replace(
            "`ifdef CCRTL_FORMAL_RAM\n    q <= a & q;\n`else\n",
            "`ifndef CCRTL_X\n",
        );
        let ids: Vec<String> = mutants(&w, "t").iter().map(|m| m.id()).collect();
        assert_eq!(ids, ["L7:| -> &"]);
    }

    #[test]
    fn repeated_changes_on_one_line_get_distinct_ids() {
        let v = "module t(a);\n  always @(*) begin\n    x = a & b & c;\n  end\nendmodule\n";
        let ids: Vec<String> = mutants(v, "t").iter().map(|m| m.id()).collect();
        assert_eq!(ids, ["L3:& -> |", "L3:& -> | #2", "L3:delete statement"]);
    }

    fn cp_file() -> String {
        ccrtl_hdl::cp::verilog(&ccrtl_golden::cp::CpConfig::default()).unwrap()
    }

    #[test]
    fn cp_mutants_are_deterministic_distinct_and_of_every_class() {
        let v = cp_file();
        let a = mutants(&v, "ccrtl_cp");
        let b = mutants(&v, "ccrtl_cp");
        let ids: Vec<String> = a.iter().map(|m| m.id()).collect();
        assert_eq!(ids, b.iter().map(|m| m.id()).collect::<Vec<_>>());
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len(), "repeated ids");
        for class in MutantClass::ALL {
            let n = a.iter().filter(|m| m.class == class).count();
            eprintln!("{:>18}: {n}", class.name());
            assert!(n > 0, "no {} mutant", class.name());
        }
        for m in &a {
            assert_ne!(m.text, v, "{} changes nothing", m.id());
        }
        // Every register submodule (a `q <= d` flip-flop) wider than one
        // bit gets its width mutant on `q`.
        let regs: Vec<String> = v
            .split("endmodule")
            .filter(|m| m.contains("q <= d;") && m.contains("output reg  ["))
            .filter_map(|m| {
                let rest = &m[m.find("module ccrtl_cp__")? + "module ".len()..];
                Some(rest.chars().take_while(|c| *c != '(').collect())
            })
            .collect();
        assert!(regs.len() > 10);
        let sub_widths = a
            .iter()
            .filter(|m| {
                m.class == MutantClass::WidthTruncated
                    && regs.contains(&m.module)
                    && m.original.starts_with("output reg")
            })
            .count();
        assert_eq!(sub_widths, regs.len());
        // Mutants inside a submodule that is not a register (a multiplier)
        // know their module.
        assert!(a.iter().any(|m| m.module == "ccrtl_cp__rhs_mul"));
    }

    /// Up to 10 mutants of each class, spread over the class, parse and
    /// elaborate under Verilator.
    #[test]
    fn cp_mutants_of_every_class_pass_verilator_lint() {
        let v = cp_file();
        let all = mutants(&v, "ccrtl_cp");
        let dir = std::env::temp_dir().join(format!("ccrtl-mutate-lint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let lint = |name: &str, text: &str| -> Result<(), String> {
            let path = dir.join(format!("{name}.v"));
            std::fs::write(&path, text).unwrap();
            let out = std::process::Command::new("verilator")
                .args([
                    "--lint-only",
                    "-Wno-fatal",
                    "-Wno-lint",
                    "-Wno-style",
                    "--top-module",
                    "ccrtl_cp",
                ])
                .arg(&path)
                .output()
                .expect("verilator must be installed to check the mutants");
            if out.status.success() {
                Ok(())
            } else {
                Err(String::from_utf8_lossy(&out.stderr).into_owned())
            }
        };
        lint("original", &v).expect("the original file lints");
        let mut failed = vec![];
        let mut checked = 0;
        for class in MutantClass::ALL {
            let of: Vec<&Mutant> = all.iter().filter(|m| m.class == class).collect();
            assert!(!of.is_empty(), "no {} mutant", class.name());
            let take = of.len().min(10);
            for k in 0..take {
                let m = of[k * of.len() / take];
                checked += 1;
                if let Err(e) = lint(&format!("{}-{k}", class.name()), &m.text) {
                    failed.push(format!("{} `{}`:\n{e}", m.id(), m.original));
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
        assert!(checked >= MutantClass::ALL.len());
        assert!(
            failed.is_empty(),
            "mutants Verilator rejects:\n{}",
            failed.join("\n")
        );
    }
}

/// What became of one planted mutant under the lockstep.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub mutant: Mutant,
    /// The cycle of the first mismatch or of the design's own stop; `None`
    /// if the mutant survived every cycle.
    pub caught_at: Option<u64>,
    /// A survivor of every cycle that the lint every emitted design passes
    /// (`verilator --lint-only -Wall`, the conformance suite's) reports,
    /// with the warning ([`lint_warning_of`]): a deleted assignment that
    /// leaves its variable without any driver (`UNDRIVEN`), caught even
    /// where the variable's power-up value happens to be the one the
    /// design needed; a narrowed vector whose dropped bits are still
    /// selected (`SELRANGE`; Verilator's model may read those bits from
    /// the wider value it still holds, so the run cannot see them go).
    pub lint: Option<&'static str>,
}

impl Outcome {
    /// Caught by the lockstep or by the lint.
    pub fn caught(&self) -> bool {
        self.caught_at.is_some() || self.lint.is_some()
    }
}

/// The lint warning that shows a mutant of `class` where the lockstep may
/// not: `UNDRIVEN` for a deleted assignment, `SELRANGE` for a narrowed
/// vector ([`Outcome::lint`]); none for the other classes.
pub fn lint_warning_of(class: MutantClass) -> Option<&'static str> {
    match class {
        MutantClass::DeleteStatement => Some("UNDRIVEN"),
        MutantClass::WidthTruncated => Some("SELRANGE"),
        _ => None,
    }
}

/// `verilator --lint-only -Wall` of a mutant's text reports `warning`
/// (`%Warning-<warning>`). The text is written to `dir` for the run and
/// removed after it.
pub fn lint_reports(
    m: &Mutant,
    warning: &str,
    top: &str,
    dir: &std::path::Path,
) -> Result<bool, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!(
        "lint-{}-L{}-{}.v",
        std::process::id(),
        m.line,
        m.class.name()
    ));
    std::fs::write(&path, &m.text).map_err(|e| format!("{}: {e}", path.display()))?;
    let out = std::process::Command::new("verilator")
        .args(["--lint-only", "-Wall", "--top-module", top])
        .arg(&path)
        .output();
    let _ = std::fs::remove_file(&path);
    let out = out.map_err(|e| format!("verilator --lint-only: {e}"))?;
    Ok(String::from_utf8_lossy(&out.stderr).contains(&format!("%Warning-{warning}")))
}

/// The power-up seeds a surviving mutant is run again from ([`run_mutants`]).
pub const SURVIVOR_POWER_UP_SEEDS: [u32; 3] = [2, 3, 4];

/// Runs every mutant against the golden model of `config` for up to
/// `cycles` cycles of the block's stimulus (seed `seed`, power-up seed 1),
/// on `threads` threads; the Verilator builds are cached under `cache`.
/// A mutant that survives is run again from the power-up states of seeds
/// [`SURVIVOR_POWER_UP_SEEDS`] (same model, no rebuild): a mutant that
/// leaves a register or a combinational variable without a value (a
/// deleted assignment) holds its random power-up value, and under one seed
/// that value can be the one the design needed. It is caught if any run
/// catches it. A deleted assignment or a narrowed vector that survives
/// them all is linted ([`Outcome::lint`]).
/// An error building a mutant (it does not elaborate) is returned.
pub fn run_mutants<B: crate::block::Block>(
    config: &B::Config,
    mutants: &[Mutant],
    cycles: u64,
    seed: u64,
    threads: usize,
    cache: &std::path::Path,
) -> Result<Vec<Outcome>, String> {
    use crate::lockstep::{self, RunOptions, VerilatorDut};
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out = std::sync::Mutex::new(vec![]);
    let error = std::sync::Mutex::new(None);
    let ports = B::ports(config);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(m) = mutants.get(k) else { break };
                let model = match crate::verilator::Model::build_quick(
                    &m.text,
                    &format!("mutant {}", m.id()),
                    &ccrtl_hdl::emit::top_module(B::NAME),
                    B::CLOCK,
                    &ports,
                    cache,
                ) {
                    Ok(model) => model,
                    Err(e) => {
                        let mut g = error.lock().unwrap_or_else(|e| e.into_inner());
                        g.get_or_insert(format!("mutant {}: {e}", m.id()));
                        break;
                    }
                };
                let mut opts = RunOptions::new(cycles);
                opts.after = 0;
                let mut caught_at = None;
                let mut failed = false;
                for power_up in std::iter::once(1).chain(SURVIVOR_POWER_UP_SEEDS) {
                    let mut dut = VerilatorDut::new(&model, &ports, power_up);
                    match lockstep::run::<B>(config, seed, &mut [&mut dut], &opts) {
                        Ok(r) => {
                            caught_at = r
                                .first
                                .first()
                                .map(|m| m.cycle)
                                .or(r.design_stop.as_ref().map(|s| s.0));
                        }
                        Err(e) => {
                            let mut g = error.lock().unwrap_or_else(|e| e.into_inner());
                            g.get_or_insert(format!("mutant {}: {e}", m.id()));
                            failed = true;
                            break;
                        }
                    }
                    if caught_at.is_some() {
                        break;
                    }
                }
                if failed {
                    break;
                }
                let warning = lint_warning_of(m.class).filter(|_| caught_at.is_none());
                let lint = match warning.map(|w| {
                    lint_reports(m, w, &ccrtl_hdl::emit::top_module(B::NAME), cache)
                }) {
                    None | Some(Ok(false)) => None,
                    Some(Ok(true)) => warning,
                    Some(Err(e)) => {
                        let mut g = error.lock().unwrap_or_else(|e| e.into_inner());
                        g.get_or_insert(format!("mutant {}: {e}", m.id()));
                        break;
                    }
                };
                if caught_at.is_none() && lint.is_none() {
                    // As found: a long run's survivors are seen before its end.
                    eprintln!("survived every power-up seed: {} `{}`", m.id(), m.original);
                }
                out.lock().unwrap_or_else(|e| e.into_inner()).push(Outcome {
                    mutant: m.clone(),
                    caught_at,
                    lint,
                });
            });
        }
    });
    if let Some(e) = error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let mut v = out.into_inner().unwrap_or_else(|e| e.into_inner());
    v.sort_by_key(|o| (o.mutant.line, o.mutant.id()));
    Ok(v)
}
