// Package spec is gatesim's executable specification of NCCL's decisions:
// every gate NCCL applies between "a plugin library exists" and "this
// operation runs on this algorithm, protocol and channel count", written
// as named rules with a stable ID, the releases they hold for and their
// NCCL source reference.
//
// Place in gatesim's data flow (README "Layout"):
//
//	System (preset | topology XML | file) ─┐
//	Env (NCCL_* assignments)               ├─> Init ──> Comm (plugins, graphs, support bits, tuning model) + Trace
//	Ruleset (Load(release))               ─┘    │
//	                              Op ───────────┴─> Comm.Select ──> Decision (algo, proto, channels | NCCL's error) + SelectTrace (Comm's Trace, shared, + the operation's)
//
// A release is one value: each release file (release_2_XX_Y.go) holds a
// Release, the delta against the release before it, with its rule changes
// (Add, Replace, Remove, Move) and every constant block (Consts: gate and
// schedule constants; topo.Params: the topology stage; the tuning model's
// Consts, package spec/tuning). releaseList orders them; Releases, Load,
// Timeline and Diff derive from it, and every change records its old value
// and source. Code outside the release files asks a Ruleset for a named
// fact and never compares versions (internal/deptest holds that);
// docs/adding-a-release.md says what a new release touches.
//
// Files by layer: plugin.go (libraries and ABIs), netdev.go, collnet.go,
// nvls.go, graphs.go, model.go (the tuning model's rules), select.go and
// decision.go (per operation), group.go and group_select.go (groups),
// env.go and env_rules.go (NCCL_* semantics), trace.go. Beneath spec:
// spec/topo (the topology stage), spec/tuning (ncclTopoTuneModel and the
// per-operation choice, which spec fills and consumes) and spec/params
// (every NCCL_* a release reads). NCCL's vocabulary (Version, the enums,
// Op, Ref) is package nccl's; vocab.go and tuning_alias.go keep spec's
// older spellings of those names.
//
// Pure: no I/O, no clocks, no globals beyond the once-built release chain.
package spec
