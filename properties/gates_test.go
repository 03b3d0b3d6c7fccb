package properties

import (
	"strconv"
	"testing"

	"github.com/gatesim/gatesim/spec"
	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// fataler is what the checks need of a test: a rapid.T inside properties,
// a testing.T in the recorded regressions.
type fataler interface {
	Fatalf(format string, args ...any)
}

// decide runs one case; an op the release rejects (API misuse) returns nil.
func decide(t fataler, c Case) (*spec.Decision, spec.Trace) {
	rs := ruleset(c.Release)
	comm, err := topoCache.Init(rs, c.System, c.Env)
	if err != nil {
		t.Fatalf("%s: init: %v", c, err)
	}
	d, tr, err := comm.Select(c.Op)
	if err != nil {
		t.Fatalf("%s: select: %v", c, err)
	}
	return d, tr.Trace()
}

// Every decision is consistent with its trace and ruleset.
func TestDecisionsAreConsistent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { checkConsistent(t, Request().Draw(t, "case")) })
}

func checkConsistent(t fataler, c Case) {
	d, tr := decide(t, c)
	if err := CheckDecision(ruleset(c.Release), d, tr); err != nil {
		t.Fatalf("%s:\n%v", c, err)
	}
}

// The same request always gives the same answer.
func TestSameRequestSameAnswer(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := Request().Draw(t, "case")
		d1, tr1 := decide(t, c)
		d2, tr2 := decide(t, c)
		if diff := cmp.Diff(d1, d2); diff != "" {
			t.Fatalf("%s: decisions differ:\n%s", c, diff)
		}
		if diff := cmp.Diff(tr1, tr2); diff != "" {
			t.Fatalf("%s: traces differ:\n%s", c, diff)
		}
	})
}

// Removing a capability never makes an offload algorithm a candidate.
func TestRemovingACapabilityNeverAddsAnOffload(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := Request().Draw(t, "case")
		checkRemoval(t, c, rapid.SampledFrom(removals).Draw(t, "removal"))
	})
}

type removal struct {
	name string
	f    func(*spec.System, spec.Env)
}

var removals = []removal{
	{"NCCL_COLLNET_ENABLE=0", func(_ *spec.System, e spec.Env) { e["NCCL_COLLNET_ENABLE"] = "0" }},
	{"NCCL_NVLS_ENABLE=0", func(_ *spec.System, e spec.Env) { e["NCCL_NVLS_ENABLE"] = "0" }},
	{"no multicast attribute", func(s *spec.System, _ spec.Env) {
		for i := range s.Nodes {
			for j := range s.Nodes[i].GPUs {
				s.Nodes[i].GPUs[j].Multicast = false
			}
		}
	}},
	{"no NVSwitch", func(s *spec.System, _ spec.Env) {
		for i := range s.Nodes {
			s.Nodes[i].NVSwitch = false
		}
	}},
	{"no plugin libraries", func(s *spec.System, _ spec.Env) {
		for i := range s.Nodes {
			s.Nodes[i].Libs = nil
		}
	}},
	{"no NICs", func(s *spec.System, _ spec.Env) {
		for i := range s.Nodes {
			s.Nodes[i].NICs = nil
		}
	}},
}

func removalNamed(t fataler, name string) removal {
	for _, r := range removals {
		if r.name == name {
			return r
		}
	}
	t.Fatalf("no removal %q", name)
	return removal{}
}

func checkRemoval(t fataler, c Case, r removal) {
	d, tr := decide(t, c)
	before := OffloadCandidates(d)
	d2, tr2 := decide(t, without(c, r))
	for a := range OffloadCandidates(d2) {
		// NCCL's one exception (G-TOPO-1, 2.18.1 to 2.30.7): with P2P off,
		// NICs that both GPUs reach at PXB faster than their path through
		// the CPU make SHM refuse the pair (src/transport/shm.cc
		// shmCanConnect, src/graph/paths.cc ncclTopoCheckNet), so
		// ncclTopoComputePaths marks it PATH_NET and the host splits into
		// several NCCL nodes (src/init.cc initTransportsRank). There NVLS is
		// off with two GPUs or fewer (ncclNvlsInit) or pruned across nodes
		// (G-SEL-PRUNE-1 P5/P6, src/enqueue.cc topoGetAlgoInfo). A removal
		// that takes those NICs away (the NICs, or the plugin library that
		// was the only network to list them) lets SHM join the GPUs again.
		if a.IsNVLS() && rejoinsHost(tr, tr2, c.System) {
			continue
		}
		if !before[a] {
			t.Fatalf("%s: removing %q made %s a candidate (before: %v)", c, r.name, a, before)
		}
	}
}

// without is the case with the removal applied to copies of its system
// and environment.
func without(c Case, r removal) Case {
	c2 := Case{Release: c.Release, System: cloneSystem(c.System), Env: c.Env.Clone(), Op: c.Op}
	r.f(c2.System, c2.Env)
	return c2
}

// rejoinsHost reports a removal after which NCCL splits the hosts into
// fewer NCCL nodes than before, where before it split a host (G-TOPO-1's
// nNodes fact above the host count).
func rejoinsHost(before, after spec.Trace, sys *spec.System) bool {
	n1, ok1 := ncclNodes(before)
	n2, ok2 := ncclNodes(after)
	return ok1 && ok2 && n1 > len(sys.Nodes) && n2 < n1
}

// ncclNodes is G-TOPO-1's nNodes fact: the NCCL nodes the ranks form.
func ncclNodes(tr spec.Trace) (int, bool) {
	v, ok := tr.Find("G-TOPO-1")
	if !ok {
		return 0, false
	}
	for _, f := range v.Facts {
		if f.Name == "nNodes" {
			n, err := strconv.Atoi(f.Value)
			return n, err == nil
		}
	}
	return 0, false
}

// One head rank answering "no" in reduceSupport disables CollNet for that
// (op, type) on every rank; other pairs keep it.
func TestOneRankSayingNoDisablesCollNet(t *testing.T) {
	types := []spec.DataType{spec.Int32, spec.Uint32, spec.Int64, spec.Uint64, spec.Float16, spec.Float32, spec.Float64, spec.Bfloat16}
	rapid.Check(t, func(t *rapid.T) {
		v := Release().Draw(t, "release")
		nodes := rapid.IntRange(2, 4).Draw(t, "nodes")
		sys, _ := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: nodes, SHARP: true})
		op := rapid.SampledFrom([]spec.RedOp{spec.Sum, spec.Max, spec.Min}).Draw(t, "redop")
		dt := rapid.SampledFrom(types).Draw(t, "dtype")
		node := rapid.IntRange(0, nodes-1).Draw(t, "dissenting node")
		rank := node*8 + rapid.IntRange(0, 7).Draw(t, "local rank")
		if r, ok := ruleset(v).Rule("G-COLLNET-MATRIX-1"); ok && r.Ref.Func == "getCollNetSupport" {
			// 2.18.1 has no matrix: each rank asks its own plugin per
			// operation, and the gates decide for rank 0.
			rank = 0
		}
		// that rank supports everything the plugin does except (op, dt)
		set := spec.ReduceSet{}
		for _, o := range []spec.RedOp{spec.Sum, spec.Max, spec.Min} {
			for _, d := range types {
				if o == op && d == dt {
					continue
				}
				set[o.Short()] = append(set[o.Short()], d.Short())
			}
		}
		for i := range sys.Nodes {
			cn := sys.Nodes[i].Libs[len(sys.Nodes[i].Libs)-1].CollNet
			cn.RankReduceSupport = map[int]spec.ReduceSet{rank: set}
		}
		comm, err := topoCache.Init(ruleset(v), sys, spec.Env{"NCCL_COLLNET_ENABLE": "1"})
		if err != nil || comm.Err != nil {
			t.Fatalf("init: %v %v", err, comm.Err)
		}
		if !comm.CollNetSupport {
			t.Fatalf("CollNet not supported at all")
		}
		if comm.CollNetMatrix[op][dt] {
			t.Fatalf("rank %d said no to %s/%s but the matrix says yes", rank, op.Short(), dt.Short())
		}
		arOp, _ := spec.OpFromBytes(spec.AllReduce, int64(dt.Size())<<16, dt, op, 0)
		d, _, _ := comm.Select(arOp)
		if off := OffloadCandidates(d); off[spec.CollNetDirect] || off[spec.CollNetChain] {
			t.Fatalf("CollNet still a candidate for %s/%s: %v", op.Short(), dt.Short(), d.Candidates)
		}
		other := spec.Float32
		if dt == spec.Float32 {
			other = spec.Bfloat16
		}
		if !comm.CollNetMatrix[spec.Sum][other] {
			t.Fatalf("the dissent on %s/%s also removed sum/%s", op.Short(), dt.Short(), other.Short())
		}
	})
}

// A forced algorithm that is not legal is never the decision.
func TestForcedUnavailableAlgorithmIsNeverChosen(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := Request().Draw(t, "case")
		delete(c.Env, "NCCL_ALGO")
		d, _ := decide(t, c)
		legal := map[spec.Algo]bool{}
		for _, ap := range d.Candidates {
			legal[ap.Algo] = true
		}
		nA := spec.NumAlgos
		if !ruleset(c.Release).Consts.HasPAT {
			nA = int(spec.PAT)
		}
		a := spec.Algo(rapid.IntRange(0, nA-1).Draw(t, "forced"))
		if legal[a] {
			t.Skip("forced algorithm is legal here")
		}
		c.Env = c.Env.With("NCCL_ALGO", a.String())
		d2, _ := decide(t, c)
		if d2.Algo == a {
			t.Fatalf("%s: NCCL_ALGO=%s chose %s although it was not legal (%v)", c, a, a, d.Candidates)
		}
		for _, ap := range d2.Candidates {
			if ap.Algo == a {
				t.Fatalf("%s: NCCL_ALGO=%s made it a candidate", c, a)
			}
		}
	})
}

func cloneSystem(s *spec.System) *spec.System {
	out := *s
	out.Nodes = make([]spec.Node, len(s.Nodes))
	for i, n := range s.Nodes {
		c := n
		c.GPUs = append([]spec.GPU{}, n.GPUs...)
		c.NICs = append([]spec.NIC{}, n.NICs...)
		c.Libs = append([]spec.Library{}, n.Libs...)
		out.Nodes[i] = c
	}
	return &out
}

// The structural model rules (G-TUNE-IMPL/BW/EN/PROTO, G-PAT-1) and NCCL's
// tuning arithmetic on the searched graphs agree on every cell: a cell the
// gates leave on has bandwidth, a cell they turn off has none; and per
// operation the pruning gates and the model's cost table agree on which
// cells are usable and on the winner.
func TestGatesAgreeWithTheTuningModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { checkModelAgrees(t, Request().Draw(t, "case")) })
}

func checkModelAgrees(t fataler, c Case) {
	_, tr := decide(t, c)
	for _, v := range tr {
		for _, f := range v.Facts {
			if f.Name == "model_disagrees" {
				t.Fatalf("%s: %s: %v", c, v.Rule, f.Value)
			}
		}
	}
}
