; P4, the window bound, of the rule (docs/pacer.md "The rule, exactly";
; docs/formal.md "PACER"), over unbounded integers: z3 must answer unsat to
; every check. `ccrtl formal pacer` runs it as task p4_window (method
; `arith`); P1 proves the RTL's decisions are the rule's, whose arithmetic
; is exact (no width of the rule's wraps), so P4 holds of the RTL.
;
; The rule for one flow, while its rate R, the depth D = bucket x byte_time
; and byte_time stay as they are (a window that starts after the flow's
; first touch since a change): at each touch (a request of cost
; C = L x byte_time, or the refresh, C = 0), avail = min(D, T + R a) with T
; the tokens after the last touch and a the cycles since it; the packet is
; granted iff avail >= C, and the tokens become avail - C, or avail.
;
; The claim: the costs granted in any w cycles from the window's start are
; at most D + R w (bytes: bucket + R w / byte_time). The state of a cycle
; t of the window, before its touch if any: T, a, the costs granted so far
; G and the cycles so far W; Es, the rule's avail at the window's start.
; The invariant `inv` holds at the start, is kept by every cycle with or
; without a touch, and gives the claim.

(set-logic NIA)
(declare-const D Int)
(declare-const R Int)
(declare-const C Int)
(declare-const T Int)
(declare-const a Int)
(declare-const G Int)
(declare-const W Int)
(declare-const Es Int)
(declare-const touch Bool)
(define-fun mn ((x Int) (y Int)) Int (ite (<= x y) x y))
(define-fun avail ((T Int) (a Int)) Int (mn D (+ T (* R a))))
(define-fun inv ((T Int) (a Int) (G Int) (W Int)) Bool
  (and (<= 0 T) (<= T D) (<= 0 a) (<= 0 G) (<= 0 W)
       (<= (+ G (avail T a)) (+ Es (* R W)))))
(assert (<= 0 D))
(assert (<= 0 R))
(assert (<= 0 C))

; The window opens after a touch: 0 <= T <= D, and Es is the rule's avail
; then, with nothing granted and no cycle gone.
(push)
(assert (and (<= 0 T) (<= T D) (<= 0 a) (= Es (avail T a))))
(assert (not (inv T a 0 0)))
(echo "p4_start")
(check-sat)
(pop)

; One cycle: without a touch the age grows; with one, the rule decides and
; the age restarts (1 in the next cycle).
(push)
(assert (<= Es D))
(assert (inv T a G W))
(define-fun av () Int (avail T a))
(define-fun gr () Bool (>= av C))
(assert (not (ite touch
  (inv (ite gr (- av C) av) 1 (+ G (ite gr C 0)) (+ W 1))
  (inv T (+ a 1) G (+ W 1)))))
(echo "p4_step")
(check-sat)
(pop)

; The bound: what is granted in W cycles is at most D + R W.
(push)
(assert (<= Es D))
(assert (inv T a G W))
(assert (not (<= G (+ D (* R W)))))
(echo "p4_bound")
(check-sat)
(pop)
