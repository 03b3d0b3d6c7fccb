// Package properties holds gatesim's cross-package properties: rapid
// generators for machines, environments, releases and operations, and
// pure checkers that any implementation of NCCL's decision can be held to.
// The tests in this package run them against spec (and, as they land,
// algos and sim); hw's tests can call the same checkers on real runs.
//
// Place in the data flow: generators feed spec.Init/Comm.Select (and the
// schedule builders); checkers read Decisions, Traces and results.
package properties

import (
	"fmt"

	"github.com/gatesim/gatesim/spec"
	"pgregory.net/rapid"
)

// Release draws a modelled release.
func Release() *rapid.Generator[spec.Version] {
	return rapid.SampledFrom(spec.Releases)
}

// System draws a machine: a preset, a node count, the SHARP plugin or not,
// and a few perturbations that flip gate inputs (multicast attribute,
// NVSwitch, verbs NICs, extra libraries).
func System() *rapid.Generator[*spec.System] {
	return rapid.Custom(func(t *rapid.T) *spec.System {
		name := rapid.SampledFrom(spec.PresetNames()).Draw(t, "preset")
		nodes := rapid.IntRange(1, 4).Draw(t, "nodes")
		sharp := rapid.Bool().Draw(t, "sharp")
		sys, err := spec.Preset(name, spec.PresetOptions{Nodes: nodes, SHARP: sharp})
		if err != nil {
			t.Fatalf("preset: %v", err)
		}
		if rapid.Bool().Draw(t, "perturb") {
			n := &sys.Nodes[rapid.IntRange(0, len(sys.Nodes)-1).Draw(t, "node")]
			switch rapid.IntRange(0, 4).Draw(t, "what") {
			case 0:
				for i := range n.GPUs {
					n.GPUs[i].Multicast = !n.GPUs[i].Multicast
				}
			case 1:
				n.NVSwitch = !n.NVSwitch
			case 2:
				n.NICs = nil
			case 3:
				n.Libs = append(n.Libs, spec.Library{Path: "/opt/net/libnccl-net-netonly.so", InLoaderPath: true,
					NetSymbols: []int{8}, Net: &spec.NetBackend{Name: "NetOnly", Devices: 2}})
			case 4:
				n.Driver.MulticastAPI = false
			}
		}
		return sys
	})
}

// Env draws NCCL_* variables that move the gates, with values users write
// (and mistype).
func Env() *rapid.Generator[spec.Env] {
	choices := map[string][]string{
		"NCCL_COLLNET_ENABLE": {"0", "1", "true", "01", "", "2"},
		"NCCL_NVLS_ENABLE":    {"0", "1", "2", "yes"},
		"NCCL_ALGO": {"Ring", "Tree", "NVLS", "NVLSTree", "CollNetDirect", "CollNetChain", "PAT", "^Ring", "Ring,Tree",
			"allreduce:tree;allgather:ring", "", "Ring, Tree", "allreduce:nvls"},
		"NCCL_PROTO":                  {"LL", "LL128", "Simple", "^LL", "^LL,LL128,Simple", "simple"},
		"NCCL_NET":                    {"IB", "Socket", "IBext_v8"},
		"NCCL_NET_PLUGIN":             {"foo", "none", spec.LibmPath, "netonly"},
		"NCCL_P2P_DISABLE":            {"1"},
		"NCCL_SHM_DISABLE":            {"1"},
		"NCCL_IB_DISABLE":             {"1"},
		"NCCL_COLLNET_NODE_THRESHOLD": {"1", "3"},
		"NCCL_PAT_ENABLE":             {"0", "1"},
	}
	names := []string{"NCCL_COLLNET_ENABLE", "NCCL_NVLS_ENABLE", "NCCL_ALGO", "NCCL_PROTO", "NCCL_NET", "NCCL_NET_PLUGIN",
		"NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_IB_DISABLE", "NCCL_COLLNET_NODE_THRESHOLD", "NCCL_PAT_ENABLE"}
	return rapid.Custom(func(t *rapid.T) spec.Env {
		e := spec.Env{}
		for _, n := range names {
			if rapid.IntRange(0, 3).Draw(t, "set "+n) == 0 {
				e[n] = rapid.SampledFrom(choices[n]).Draw(t, n)
			}
		}
		return e
	})
}

// hasFP8 asks the newest modelled release not newer than v whether the fp8
// types exist.
func hasFP8(v spec.Version) bool {
	r, ok := spec.Nearest(v)
	if !ok {
		return false
	}
	k, err := spec.ConstsFor(r)
	return err == nil && k.HasFP8
}

// Op draws one collective valid for release v on a communicator of nRanks.
func Op(v spec.Version, nRanks int) *rapid.Generator[spec.Op] {
	nTypes := spec.NumDataTypes
	if !hasFP8(v) {
		nTypes = int(spec.Float8e4m3)
	}
	return rapid.Custom(func(t *rapid.T) spec.Op {
		f := rapid.SampledFrom(spec.Funcs[:]).Draw(t, "func")
		dt := spec.DataType(rapid.IntRange(0, nTypes-1).Draw(t, "dtype"))
		r := spec.RedOp(rapid.IntRange(0, spec.NumRedOps-1).Draw(t, "redop"))
		count := rapid.Int64Range(0, 1<<28).Draw(t, "count")
		root := rapid.IntRange(0, nRanks-1).Draw(t, "root")
		return spec.Op{Func: f, Count: count, DataType: dt, RedOp: r, Root: root}
	})
}

// Case is one drawn request.
type Case struct {
	Release spec.Version
	System  *spec.System
	Env     spec.Env
	Op      spec.Op
}

func (c Case) String() string {
	return fmt.Sprintf("NCCL %s on %s, env %s, %s %d×%s %s", c.Release, c.System.Name, c.Env, c.Op.Func, c.Op.Count, c.Op.DataType, c.Op.RedOp.Short())
}

// Request draws a whole request.
func Request() *rapid.Generator[Case] {
	return rapid.Custom(func(t *rapid.T) Case {
		v := Release().Draw(t, "release")
		sys := System().Draw(t, "system")
		return Case{Release: v, System: sys, Env: Env().Draw(t, "env"), Op: Op(v, sys.NRanks()).Draw(t, "op")}
	})
}
