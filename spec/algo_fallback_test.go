package spec

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec/tuning"
)

// fallbackEra is what NCCL does, at a range of releases, with an
// NCCL_ALGO that leaves a function without the algorithm it asked for
// (NCCL's source at the tags):
//   - 2.18.x parses NCCL_ALGO once for every function and never disables
//     Ring for a function other than AllReduce (ncclTopoTuneModel); the
//     cost table has no Tree cell for AllGather or ReduceScatter
//     (bandwidth 0, time -1), so they run Ring without a line: a fallback
//     that G-TUNE-EN-1 makes. AllReduce with nothing left fails
//     (getAlgoInfo: "Error : no algorithm/protocol available",
//     ncclInternalError).
//   - 2.19.1–2.23.4 disable Ring too, then give a function left with no
//     cell its Ring bandwidths back (G-TUNE-RINGRESTORE-1): again Ring,
//     silently.
//   - from 2.24.3 NCCL_ALGO is per function and nothing is restored: the
//     collective fails with ncclInvalidUsage and a WARN naming NCCL_ALGO.
type fallbackEra struct {
	from, to  Version
	by        RuleID // the gate named as deciding a fallback
	noneFails Result // an operation left with no cell at all
	noneBy    RuleID
}

var fallbackEras = []fallbackEra{
	{V2_18_1, V2_18_6, "G-TUNE-EN-1", InternalError, "G-SEL-ERR-1"},
	{V2_19_1, V2_23_4, "G-TUNE-RINGRESTORE-1", 0, "G-TUNE-RINGRESTORE-1"},
	{V2_24_3, Releases[len(Releases)-1], "", InvalidUsage, "G-SEL-ERR-1"},
}

func eraOf(t *testing.T, v Version) fallbackEra {
	t.Helper()
	for _, e := range fallbackEras {
		if v >= e.from && v <= e.to {
			return e
		}
	}
	t.Fatalf("%s is in no fallback era", v)
	return fallbackEra{}
}

// TestAlgoFallbackAcrossReleases walks every modelled release on two
// H200s (NVLS off): NCCL_ALGO=Tree for AllGather, ReduceScatter and
// Broadcast (no Tree cell), Tree for AllReduce (honoured), Ring for
// AllGather (honoured) and NVLS for AllReduce (nothing left at all). Each
// fallback is flagged and names its era's gate, which the trace holds,
// and no release prints a WARN for it; the tuning model's own choice
// (the group path's) says the same.
func TestAlgoFallbackAcrossReleases(t *testing.T) {
	type want struct {
		algo     Algo
		fallback bool
		by       RuleID
		err      Result
	}
	cases := []struct {
		env  string
		fn   Func
		want func(e fallbackEra) want
	}{
		{"Tree", AllGather, nil},
		{"Tree", ReduceScatter, nil},
		{"Tree", Broadcast, nil},
		{"Tree", AllReduce, func(fallbackEra) want { return want{Tree, false, "G-SEL-PICK-1", 0} }},
		{"Ring", AllGather, func(fallbackEra) want { return want{Ring, false, "G-SEL-PICK-1", 0} }},
		{"NVLS", AllReduce, func(e fallbackEra) want {
			if e.noneFails != 0 {
				return want{AlgoNone, false, e.noneBy, e.noneFails}
			}
			return want{Ring, true, e.noneBy, 0}
		}},
	}
	for _, v := range Releases {
		e := eraOf(t, v)
		for _, tc := range cases {
			w := want{Ring, true, e.by, 0}
			if e.by == "" {
				w = want{AlgoNone, false, "G-SEL-ERR-1", InvalidUsage}
			}
			if tc.want != nil {
				w = tc.want(e)
			}
			name := v.String() + " NCCL_ALGO=" + tc.env + " " + tc.fn.String()
			c := h200x2Comm(t, v, Env{"NCCL_ALGO": tc.env})
			if c.Err != nil {
				t.Fatalf("%s: init: %v", name, c.Err)
			}
			op, err := OpFromBytes(tc.fn, 1<<20, Float32, Sum, 0)
			if err != nil {
				t.Fatal(err)
			}
			d, tr, err := c.Select(op)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case w.err != 0 && (d.Err == nil || d.Err.Result != w.err):
				t.Errorf("%s: error %v, want %s", name, d.Err, w.err)
			case w.err == 0 && (d.Err != nil || d.Algo != w.algo):
				t.Errorf("%s: %s/%s (error %v), want %s", name, d.Algo, d.Proto, d.Err, w.algo)
			}
			if d.Fallback != w.fallback || d.DecidedBy != w.by {
				t.Errorf("%s: fallback %v decided by %s, want fallback %v by %s", name, d.Fallback, d.DecidedBy, w.fallback, w.by)
			}
			if vd, ok := tr.Find(d.DecidedBy); !ok {
				t.Errorf("%s: the trace has no verdict of %s, which decided", name, d.DecidedBy)
			} else if w.fallback && d.DecidedBy == "G-TUNE-EN-1" && !strings.Contains(vd.WhyText(), "keeps Ring") {
				t.Errorf("%s: G-TUNE-EN-1 says %q: it should say Ring is kept", name, vd.WhyText())
			}
			if w.fallback {
				for _, vd := range tr.Trace() {
					for _, l := range vd.Log {
						if strings.Contains(l, "no algorithm/protocol available") {
							t.Errorf("%s: %s logs %q, but NCCL falls back silently", name, vd.Rule, l)
						}
					}
				}
			}
			if c.Model == nil || w.err != 0 {
				continue
			}
			var ch tuning.OpChoice
			if err := c.Model.ChooseInto(tuning.Call{Op: op}, &ch); err != nil {
				t.Fatal(err)
			}
			var md Decision
			fillDecision(&ch, &md)
			if md.Algo != d.Algo || md.Fallback != d.Fallback || md.DecidedBy != d.DecidedBy {
				t.Errorf("%s: the model decides %s fallback %v by %s; the gates %s fallback %v by %s",
					name, md.Algo, md.Fallback, md.DecidedBy, d.Algo, d.Fallback, d.DecidedBy)
			}
		}
	}
}
