package golden

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/goldenfile"
	"github.com/gatesim/gatesim/spec"
)

// TestCollNetRegGolden records, per release, what NCCL does with the
// buffers of CollNet tasks on dgx-h100 × 4 with SHARP (NCCL_COLLNET_ENABLE=1,
// the algorithm forced), derived from the source at each tag
// (src/register/coll_reg.cc ncclRegisterCollBuffers, 2.23.4's and 2.22.3's
// src/enqueue.cc, src/transport/coll_net.cc): for each function on
// registered buffers and under a CUDA graph, with 8 ranks per node and
// with one (a node of one GPU), the channels, what CollNet registered
// (G-REG-COLLNET-1), whether the node's peers were registered over IPC
// (G-REG-COLLNET-IPC-1), the proxy op's steps (G-REG-PROXY-1) and the
// CollNet proxy's re-split by maxCollBytes (G-REG-COLLNET-SPLIT-1); and
// per release the CollNet receives' flush (G-COLLNET-FLUSH-1) with
// NCCL_NET_FORCE_FLUSH=1. Regenerate with go test ./golden -run
// TestCollNetRegGolden -update and review the diff.
func TestCollNetRegGolden(t *testing.T) {
	type scenario struct {
		algo   string
		gpus   int
		f      spec.Func
		bytes  int64
		launch spec.Launch
	}
	var scs []scenario
	for _, gpus := range []int{8, 1} {
		for _, f := range []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter} {
			for _, l := range []spec.Launch{{}, {Mode: spec.LaunchGraph}} {
				scs = append(scs, scenario{"CollNetDirect", gpus, f, 1 << 30, l})
			}
		}
		scs = append(scs, scenario{"CollNetChain", gpus, spec.AllReduce, 1 << 30, spec.Launch{}})
	}
	var b strings.Builder
	b.WriteString("# CollNet tasks' buffers on dgx-h100 × 4 with SHARP (NCCL_COLLNET_ENABLE=1, NCCL_ALGO forced), 1 GiB float\n")
	b.WriteString("# algo gpus/node func buffers -> algo/proto channels; registered (G-REG-COLLNET-1); peers (G-REG-COLLNET-IPC-1); proxy nsteps[/fifo] (G-REG-PROXY-1); pieces (G-REG-COLLNET-SPLIT-1)\n")
	for _, v := range spec.Releases {
		fmt.Fprintf(&b, "\n## %s\n", v)
		comms := map[[2]any]*spec.Comm{}
		comm := func(algo string, gpus int, env spec.Env) *spec.Comm {
			k := [2]any{algo, gpus}
			if env == nil {
				if c := comms[k]; c != nil {
					return c
				}
			}
			sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: 4, SHARP: true})
			if err != nil {
				t.Fatal(err)
			}
			for i := range sys.Nodes {
				sys.Nodes[i].GPUs = sys.Nodes[i].GPUs[:gpus]
			}
			e := spec.Env{"NCCL_COLLNET_ENABLE": "1", "NCCL_ALGO": algo}
			for n, val := range env {
				e[n] = val
			}
			c, err := spec.Init(spec.MustLoad(v), sys, e)
			if err != nil {
				t.Fatal(err)
			}
			if env == nil {
				comms[k] = c
			}
			return c
		}
		for _, sc := range scs {
			c := comm(sc.algo, sc.gpus, nil)
			buffers := "registered"
			gop := spec.GroupOp{Op: spec.Op{Func: sc.f, Count: sc.bytes / 4, DataType: spec.Float32, RedOp: spec.Sum}, Buffers: spec.BuffersRegistered}
			if sc.launch.Mode == spec.LaunchGraph {
				buffers, gop.Buffers = "graph", spec.BuffersUser
			}
			fmt.Fprintf(&b, "%s %d %s %s", sc.algo, sc.gpus, sc.f, buffers)
			if c.Err != nil {
				fmt.Fprintf(&b, " -> init: %s\n", c.Err.Result)
				continue
			}
			g, err := c.SelectGroup([]spec.GroupOp{gop}, sc.launch)
			if err != nil {
				t.Fatal(err)
			}
			if g.Err != nil {
				fmt.Fprintf(&b, " -> %s\n", g.Err.Result)
				continue
			}
			d, ch := g.Ops[0], g.Choices[0]
			if d.Err != nil {
				fmt.Fprintf(&b, " -> %s\n", d.Err.Result)
				continue
			}
			fmt.Fprintf(&b, " -> %s/%s %d", d.Algo, d.Proto, d.NChannels)
			reg, peers := ch.Registered, ch.RegPeers
			if reg == "" {
				reg = "-"
			}
			if peers == "" {
				peers = "-"
			}
			fmt.Fprintf(&b, "; registered %s; peers %s", reg, peers)
			if p := d.Chunk.Proxy; d.Chunk.Set() {
				fmt.Fprintf(&b, "; proxy %d", p.NSteps)
				if p.Reg && p.FIFOSteps > 0 && p.FIFOSteps != p.NSteps {
					fmt.Fprintf(&b, "/%d", p.FIFOSteps)
				}
				if p.NetSteps > 0 {
					fmt.Fprintf(&b, "; %d piece(s) of %s", p.NetSteps, spec.FormatBytes(p.MaxCollBytes))
				}
			}
			if ch.RegRefused != "" {
				fmt.Fprintf(&b, "; refused: %s", ch.RegRefused)
			}
			b.WriteString("\n")
		}
		c := comm("CollNetDirect", 8, spec.Env{"NCCL_NET_FORCE_FLUSH": "1"})
		if c.Err == nil {
			_, tr, err := c.Select(spec.Op{Func: spec.AllReduce, Count: 1 << 20, DataType: spec.Float32, RedOp: spec.Sum})
			if err != nil {
				t.Fatal(err)
			}
			if vd, ok := tr.Find("G-COLLNET-FLUSH-1"); ok {
				fmt.Fprintf(&b, "flush, NCCL_NET_FORCE_FLUSH=1: %s %s\n", vd.Outcome, vd.Why)
			}
		}
	}
	goldenfile.Check(t, filepath.Join("testdata", "collnet_reg.txt"), b.String(), *update)
}
