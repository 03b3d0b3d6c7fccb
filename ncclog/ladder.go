package ncclog

import "github.com/gatesim/gatesim/spec"

// A capability's evidence ladder is data: its rungs in order, walked by
// climb. Most rungs are "the first line of one of these kinds proves this
// level under this rule" (or, for a block, shows this gate stopping the
// capability); the few that read aggregates rather than one line (the
// environment, the tuning table, connectors, graph searches) are a do
// function in the same list, so the order of the ladder stays in one
// place.
type rung struct {
	level spec.Level
	rule  spec.RuleID
	// kinds: the first kind the log has gives the line; with every set,
	// each kind present gives one. lines is kinds with a why (and a
	// condition) each, for a rung whose kinds prove different things.
	kinds []Kind
	lines []line
	every bool
	why   string
	block bool
	// below: the rung applies only while the ladder's proofs stay below
	// this level (0: always); when: only if it holds.
	below spec.Level
	when  func(*observer) bool
	do    func(*observer, *CapEvidence)
}

// line is one kind of a rung with its own why (and rule, when set), tried
// only when when holds.
type line struct {
	k    Kind
	rule spec.RuleID
	why  string
	when func(*observer) bool
}

// hint is what the log lacks for the next level: the first hint whose
// ladder is below `below` and whose when holds gives CapEvidence.Next.
type hint struct {
	below spec.Level
	when  func(*observer, *CapEvidence) bool
	text  string
}

// ladder is one capability's rungs and hints.
type ladder struct {
	cap   spec.Capability
	rungs []rung
	hints []hint
}

// climb walks a ladder: rungs in order, then the first hint that applies.
func (ob *observer) climb(ld ladder) CapEvidence {
	c := CapEvidence{Cap: ld.cap}
	for _, r := range ld.rungs {
		if r.below != 0 && maxLevel(c.Proofs) >= r.below || r.when != nil && !r.when(ob) {
			continue
		}
		if r.do != nil {
			r.do(ob, &c)
			continue
		}
		lines := r.lines
		for _, k := range r.kinds {
			lines = append(lines, line{k: k, why: r.why})
		}
		for _, ln := range lines {
			if ln.when != nil && !ln.when(ob) {
				continue
			}
			rule := r.rule
			if ln.rule != "" {
				rule = ln.rule
			}
			p, ok := ob.proof(ln.k, r.level, rule, ln.why)
			if !ok {
				continue
			}
			if r.block {
				c.Blocks = append(c.Blocks, p)
			} else {
				c.Proofs = append(c.Proofs, p)
			}
			if !r.every {
				break
			}
		}
	}
	lvl := maxLevel(c.Proofs)
	for _, h := range ld.hints {
		if lvl < h.below && (h.when == nil || h.when(ob, &c)) {
			c.Next = h.text
			break
		}
	}
	return c
}

// kinds is a rung's kind list.
func kinds(k ...Kind) []Kind { return k }

// sinceRelease is the first release of a behaviour the reader interprets
// in logs of any release, modelled by spec or not (2.4-2.30), so these
// boundaries are data here rather than spec.Release facts.
type sinceRelease spec.Version

// before reports a known release older than the behaviour; an unknown
// release (0) is not before anything.
func (s sinceRelease) before(rel spec.Version) bool { return rel != 0 && rel < spec.Version(s) }

var (
	// runtimeConnectSince: algorithms connect at their first use
	// (v2.22.3-1 src/init.cc ncclParamRuntimeConnect, default 1).
	runtimeConnectSince = sinceRelease(spec.MakeVersion(2, 22, 3))
	// patSince: PAT exists (v2.23.4-1 src/graph/tuning.cc ncclPatEnable).
	patSince = sinceRelease(spec.MakeVersion(2, 23, 4))
	// ringBackupSince: NCCL_ALGO disables Ring for every function and the
	// Ring comes back through ringbdw (v2.19.1-1 src/graph/tuning.cc
	// ncclTopoTuneModel, src/enqueue.cc getAlgoInfo); before it NCCL_ALGO
	// never takes Ring from a function other than AllReduce, and a
	// function left with nothing fails (v2.18.6-1 likewise, v2.16.5-1
	// ncclTopoTuneModel).
	ringBackupSince = sinceRelease(spec.MakeVersion(2, 19, 1))
	// perFunctionGrammar: NCCL_ALGO/NCCL_PROTO take "func:list;..."
	// (v2.24.3-1 src/graph/tuning.cc parseList).
	perFunctionGrammar = sinceRelease(spec.MakeVersion(2, 24, 3))
	// collNetEnableNumeric: NCCL_COLLNET_ENABLE is read as a number
	// (strtoll) instead of compared with "1" (v2.27.3-1 src/init.cc).
	collNetEnableNumeric = sinceRelease(spec.MakeVersion(2, 27, 3))
)
