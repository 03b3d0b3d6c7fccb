package spec

import (
	"slices"
	"testing"
)

// TestCollNetRescueWarn: NCCL_ALGO=COLLNET on two nodes without CollNet.
// ncclTopoTuneModel re-enables Ring and Tree in every release; up to
// 2.19.4 rank 0 WARNs that it does, from 2.20.3 it is silent.
func TestCollNetRescueWarn(t *testing.T) {
	const warn = "CollNet is not supported or fails to initialize, ignoring NCCL_ALGO=COLLNET"
	for _, tc := range []struct {
		v    Version
		warn bool
	}{{V2_18_1, true}, {V2_18_6, true}, {V2_19_1, true}, {V2_19_4, true}, {V2_20_3, false}, {V2_22_3, false}} {
		sys, err := Preset("dgx-h100", PresetOptions{Nodes: 2})
		if err != nil {
			t.Fatal(err)
		}
		c, err := Init(MustLoad(tc.v), sys, Env{"NCCL_ALGO": "COLLNET"})
		if err != nil {
			t.Fatal(err)
		}
		if c.CollNetSupport {
			t.Fatalf("%s: the preset has CollNet; the case needs none", tc.v)
		}
		found, seen := false, false
		for _, vd := range c.Trace {
			if vd.Rule == "G-TUNE-EN-1" {
				seen = true
				found = found || slices.Contains(vd.Log, warn)
			}
		}
		if !seen {
			t.Fatalf("%s: G-TUNE-EN-1 is not in the trace", tc.v)
		}
		if found != tc.warn {
			t.Errorf("%s: WARN printed %v, want %v", tc.v, found, tc.warn)
		}
	}
}
