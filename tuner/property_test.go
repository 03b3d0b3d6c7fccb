package tuner

import (
	"fmt"
	"testing"

	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

// TestIdentityTunerNeverChanges: a tuner that returns the cost table
// unchanged (and sets no channel count) never changes NCCL's decision:
// algorithm, protocol, channels, error, on any modelled release, preset,
// collective, size, datatype and reduction.
func TestIdentityTunerNeverChanges(t *testing.T) {
	type key struct {
		v      spec.Version
		preset string
		nodes  int
	}
	sessions := map[key]*Session{}
	plain := map[key]*spec.Comm{}
	rapid.Check(t, func(rt *rapid.T) {
		k := key{
			v:      rapid.SampledFrom(spec.Releases).Draw(rt, "nccl"),
			preset: rapid.SampledFrom([]string{"dgx-h100", "h200x2", "dgx-a100", "v100x4"}).Draw(rt, "preset"),
			nodes:  rapid.IntRange(1, 4).Draw(rt, "nodes"),
		}
		s := sessions[k]
		if s == nil {
			abi := 3 // every modelled release accepts v3
			sys, err := spec.Preset(k.preset, spec.PresetOptions{Nodes: k.nodes})
			if err != nil {
				rt.Fatal(err)
			}
			if s, err = testLib(t, abi, "identity").Attach(topoCache.Init, spec.MustLoad(k.v), sys, nil); err != nil {
				rt.Fatal(err)
			}
			t.Cleanup(s.Close)
			sessions[k] = s
			if plain[k], err = topoCache.Init(spec.MustLoad(k.v), sys, nil); err != nil {
				rt.Fatal(err)
			}
		}
		f := rapid.SampledFrom([]spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter, spec.Broadcast, spec.Reduce}).Draw(rt, "coll")
		dt := rapid.SampledFrom([]spec.DataType{spec.Float32, spec.Float16, spec.Bfloat16, spec.Int32, spec.Float64}).Draw(rt, "dtype")
		rop := rapid.SampledFrom([]spec.RedOp{spec.Sum, spec.Max, spec.Avg}).Draw(rt, "redop")
		count := rapid.Int64Range(0, 1<<28).Draw(rt, "count")
		op := spec.Op{Func: f, Count: count, DataType: dt, RedOp: rop}
		if msg := identityAgrees(s, plain[k], op); msg != "" {
			rt.Fatal(msg)
		}
	})
}

// identityAgrees is "" when the session with the identity tuner decides op
// as the communicator without it does, else what differs.
func identityAgrees(s *Session, plain *spec.Comm, op spec.Op) string {
	d, _, err := s.Select(op)
	if err != nil {
		return err.Error()
	}
	p, _, err := plain.Select(op)
	if err != nil {
		return err.Error()
	}
	got := fmt.Sprintf("%s/%s nch %d lo %d err %v", d.Algo, d.Proto, d.NChannels, d.ChannelLo, d.Err)
	want := fmt.Sprintf("%s/%s nch %d lo %d err %v", p.Algo, p.Proto, p.NChannels, p.ChannelLo, p.Err)
	if got != want {
		return fmt.Sprintf("with the identity tuner %s, without %s", got, want)
	}
	if d.Tuner != nil && (len(d.Tuner.Edits) != 0 || d.Tuner.Changed(d)) {
		return fmt.Sprintf("identity tuner reported edits %v or a change", d.Tuner.Edits)
	}
	return ""
}

// TestIdentityTunerCases holds the cases the property once failed on
// (rapid's shrunk failure files), replayed on every run.
func TestIdentityTunerCases(t *testing.T) {
	for _, tc := range []struct {
		v      spec.Version
		preset string
		nodes  int
		op     spec.Op
	}{
		// a 232-byte AllReduce on 2 × H200 under 2.29.2
		{spec.V2_29_2, "h200x2", 1, spec.Op{Func: spec.AllReduce, Count: 58, DataType: spec.Float32, RedOp: spec.Sum}},
	} {
		sys, err := spec.Preset(tc.preset, spec.PresetOptions{Nodes: tc.nodes})
		if err != nil {
			t.Fatal(err)
		}
		s, err := testLib(t, 3, "identity").Attach(topoCache.Init, spec.MustLoad(tc.v), sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		plain, err := topoCache.Init(spec.MustLoad(tc.v), sys, nil)
		if err != nil {
			t.Fatal(err)
		}
		if msg := identityAgrees(s, plain, tc.op); msg != "" {
			t.Errorf("%s %s %+v: %s", tc.v, tc.preset, tc.op, msg)
		}
	}
}
