package properties

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// Cases rapid once shrank to a failure, kept as plain tests so that they run
// on every `make test` whatever the random seed. Each names the property it
// broke and what was wrong at the time.
func TestRecordedRegressions(t *testing.T) {
	preset := func(t *testing.T, name string, nodes int) *spec.System {
		sys, err := spec.Preset(name, spec.PresetOptions{Nodes: nodes})
		if err != nil {
			t.Fatal(err)
		}
		return sys
	}
	v2223, v2283 := spec.MakeVersion(2, 22, 3), spec.MakeVersion(2, 28, 3)
	cases := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"empty Broadcast is discarded, not undecided (G-SEL-APPEND-1)", func(t *testing.T) {
			checkConsistent(t, Case{Release: v2223, System: preset(t, "dgx-a100", 1), Env: spec.Env{},
				Op: spec.Op{Func: spec.Broadcast, DataType: spec.Int8}})
		}},
		{"an MNNVL rack with one node's NVSwitch gone still initialises", func(t *testing.T) {
			sys := preset(t, "gb200-nvl72", 2)
			sys.Nodes[0].NVSwitch = false
			checkModelAgrees(t, Case{Release: v2223, System: sys, Env: spec.Env{"NCCL_SHM_DISABLE": "1"},
				Op: spec.Op{Func: spec.Broadcast, DataType: spec.Int8}})
		}},
		{"fp8 Reduce below sm90 fails in taskAppend before the cost table (G-SEL-APPEND-1)", func(t *testing.T) {
			checkModelAgrees(t, Case{Release: v2283, System: preset(t, "dgx-a100", 1),
				Env: spec.Env{"NCCL_COLLNET_ENABLE": "0", "NCCL_NVLS_ENABLE": "0"},
				Op:  spec.Op{Func: spec.Reduce, Count: 1, DataType: spec.Float8e4m3}})
		}},
		{"without NICs and with P2P off, SHM joins the host and NVLS may appear", func(t *testing.T) {
			c := Case{Release: v2223, System: preset(t, "dgx-h100", 1),
				Env: spec.Env{"NCCL_COLLNET_ENABLE": "0", "NCCL_P2P_DISABLE": "1"},
				Op:  spec.Op{Func: spec.AllGather, Count: 1 << 20, DataType: spec.Int8}}
			checkRemoval(t, c, removalNamed(t, "no NICs"))
		}},
		{"2.19.1 dgx-b200+sharp, IB and P2P off: without the plugin libraries Socket leaves the host whole and NVLS AllGather appears", func(t *testing.T) {
			sys, err := spec.Preset("dgx-b200", spec.PresetOptions{Nodes: 1, SHARP: true})
			if err != nil {
				t.Fatal(err)
			}
			c := Case{Release: spec.MakeVersion(2, 19, 1), System: sys,
				Env: spec.Env{"NCCL_COLLNET_ENABLE": "0", "NCCL_IB_DISABLE": "1", "NCCL_P2P_DISABLE": "1"},
				Op:  spec.Op{Func: spec.AllGather, Count: 1, DataType: spec.Int8}}
			r := removalNamed(t, "no plugin libraries")
			checkRemoval(t, c, r)
			// what makes the case: the plugin's IB NICs split the host and
			// keep NVLS out; Socket's do not, and single-node NVLS
			// AllGather is a candidate
			d, tr := decide(t, c)
			d2, tr2 := decide(t, without(c, r))
			n1, _ := ncclNodes(tr)
			n2, _ := ncclNodes(tr2)
			if n1 <= 1 || n2 != 1 || OffloadCandidates(d)[spec.NVLS] || !OffloadCandidates(d2)[spec.NVLS] {
				t.Errorf("with the plugin %d NCCL node(s), NVLS %v; without %d, NVLS %v; want a split host without NVLS, then one node with it",
					n1, OffloadCandidates(d)[spec.NVLS], n2, OffloadCandidates(d2)[spec.NVLS])
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.check)
	}
}

// TestGroupChannelsCoverRegressions: groups TestGroupChannelsCover once
// failed on, with what NCCL does for each worked by hand from its source.
func TestGroupChannelsCoverRegressions(t *testing.T) {
	ring := spec.Env{"NCCL_ALGO": "Ring", "NCCL_COLLNET_ENABLE": "0", "NCCL_NVLS_ENABLE": "0"}
	for _, c := range []struct {
		name    string
		release spec.Version
		preset  string
		env     spec.Env
		ops     []spec.GroupOp
		agg     int
		// the first operation's plan: its side path, kernel and blocks,
		// the busiest block's bytes and its parts
		sidePath, kernel string
		blocks           int
		ctaBytes         int64
		parts            []tuning.SymPart
	}{
		// ncclSymmetricTaskScheduler, 2 works of 98,560 cells over 9
		// blocks: 21,903 cells each; block 3 stops in work 0 at
		// fraction ⌈65536 × 87,612 / 98,560⌉ − 1 = 58,256, which the
		// kernel decodes to ⌊58,257 × 98,560 / 65,536⌋ = 87,613 cells,
		// one past the layout: blocks 0–3 share 89,715,712 bytes,
		// 22,428,928 (21,903.25 cells) each, more than the average plus
		// one cell the property once bounded the busiest block by. The
		// empty Broadcast is discarded (taskAppend). sm80 takes the
		// kernel: symmetricSupport asks for all-direct P2P on one node,
		// and AllGather_ST is built from sm60 (generate.py)
		{name: "two window AllGathers, a shared range one cell past its layout", release: spec.MakeVersion(2, 28, 3), preset: "dgx-a100", env: ring,
			ops: []spec.GroupOp{
				{Op: spec.Op{Func: spec.AllGather, Count: 25231105, DataType: spec.Int32}, Buffers: spec.BuffersWindow},
				{Op: spec.Op{Func: spec.Broadcast, DataType: spec.Int8}}},
			agg: 2, sidePath: "symmetric", kernel: "AllGather_ST", blocks: 9, ctaBytes: 22428928,
			parts: []tuning.SymPart{{CTALo: 0, CTAHi: 3, Bytes: 89715712}, {CTALo: 4, CTAHi: 4, Offset: 89715712, Bytes: 11208708}}},
		// taskAppend: on sm100 with all-direct NVLink a window AllGather
		// above NCCL_SYM_CE_THRESHOLD (8 MiB) runs on the copy engines
		{name: "a window AllGather on the copy engines takes no channel", release: spec.MakeVersion(2, 29, 2), preset: "dgx-b200",
			env: spec.Env{"NCCL_COLLNET_ENABLE": "0", "NCCL_SHM_DISABLE": "1"},
			ops: []spec.GroupOp{
				{Op: spec.Op{Func: spec.AllGather, Count: 8388609, DataType: spec.Int8}, Buffers: spec.BuffersWindow},
				{Op: spec.Op{Func: spec.Broadcast, DataType: spec.Int8}}},
			agg: 1, sidePath: "copy-engine"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sys, err := spec.Preset(c.preset, spec.PresetOptions{Nodes: 1})
			if err != nil {
				t.Fatal(err)
			}
			comm, err := topoCache.Init(ruleset(c.release), sys, c.env)
			if err != nil {
				t.Fatal(err)
			}
			l := spec.Launch{Agg: c.agg}
			g, err := comm.SelectGroup(c.ops, l)
			if err != nil || g.Err != nil {
				t.Fatalf("group: %v %v", err, g.Err)
			}
			ch := g.Choices[0]
			if ch.SidePath != c.sidePath || ch.Kernel != c.kernel || ch.NChannels != c.blocks || ch.CTABytes != c.ctaBytes {
				t.Errorf("%s kernel %q on %d blocks, %d bytes the busiest; want %s kernel %q on %d, %d", ch.SidePath, ch.Kernel, ch.NChannels, ch.CTABytes, c.sidePath, c.kernel, c.blocks, c.ctaBytes)
			}
			if d := cmp.Diff(c.parts, ch.SymParts, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("parts (-want +got):\n%s", d)
			}
			checkGroupChannelsCover(t, Case{Release: c.release, System: sys, Env: c.env, Op: c.ops[0].Op}, comm, c.ops, l)
		})
	}
}
