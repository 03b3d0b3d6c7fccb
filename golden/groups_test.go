package golden

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/goldenfile"
	"github.com/gatesim/gatesim/spec"
)

// TestGroupDecisions records, per release, how NCCL plans groups of 1–8
// mixed operations, CUDA-graph capture, registered buffers and windows on
// h200x2, dgx-h100 and dgx-h100 × 4 with SHARP: each operation's
// algorithm, protocol, channel range, nMaxChannels, the aggregate it was
// decided in and the registration (spec.Comm.SelectGroup, derived from
// NCCL's ncclPrepareTasks, registerIntraNodeBuffers, ncclRegisterCollBuffers,
// ncclRegisterCollNvlsBuffers,
// scheduleCollTasksToPlan and, for send/recv, scheduleP2pTasksToPlan and
// addP2pToPlan at each tag). Regenerate with
// go test ./golden -run TestGroupDecisions -update and review the diff.
func TestGroupDecisions(t *testing.T) {
	type machine struct {
		name string
		opt  spec.PresetOptions
		env  spec.Env
	}
	machines := []machine{
		{"h200x2", spec.PresetOptions{}, spec.Env{"NCCL_NVLS_ENABLE": "0"}},
		{"dgx-h100", spec.PresetOptions{}, spec.Env{}},
		{"dgx-h100", spec.PresetOptions{Nodes: 4, SHARP: true}, spec.Env{"NCCL_COLLNET_ENABLE": "1"}},
		// CTA policy ZERO: window AllGather and AllToAll to the copy
		// engines from 2.28.3 (2.27 reads 2 as no policy)
		{"h200x2", spec.PresetOptions{}, spec.Env{"NCCL_NVLS_ENABLE": "0", "NCCL_CTA_POLICY": "2"}},
	}
	op := func(f spec.Func, bytes int64, dt spec.DataType) spec.Op {
		o, err := spec.OpFromBytes(f, bytes, dt, spec.Sum, 0)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	p2p := func(send bool, peer int, o spec.Op) spec.GroupOp {
		return spec.GroupOp{Op: o, P2P: &spec.P2PCall{Send: send, Peer: peer}}
	}
	p2pReg := func(send bool, peer int, o spec.Op) spec.GroupOp {
		g := p2p(send, peer, o)
		g.Buffers = spec.BuffersRegistered
		return g
	}
	mixed := []spec.GroupOp{
		{Op: op(spec.AllReduce, 64<<20, spec.Bfloat16)},
		{Op: op(spec.AllGather, 8<<20, spec.Bfloat16)},
		{Op: op(spec.ReduceScatter, 8<<20, spec.Bfloat16)},
		{Op: op(spec.AllReduce, 1<<20, spec.Float32)},
		{Op: op(spec.Broadcast, 4<<20, spec.Float32)},
		{Op: op(spec.AllReduce, 16<<20, spec.Bfloat16)},
		{Op: op(spec.Reduce, 256<<10, spec.Float32)},
		{Op: op(spec.AllReduce, 8<<10, spec.Float32)},
	}
	type workload struct {
		name   string
		ops    []spec.GroupOp
		launch spec.Launch
	}
	var loads []workload
	for n := 1; n <= len(mixed); n++ {
		loads = append(loads, workload{fmt.Sprintf("group of %d", n), mixed[:n], spec.Launch{}})
	}
	ar := op(spec.AllReduce, 64<<20, spec.Float32)
	ag := op(spec.AllGather, 16<<20, spec.Float32)
	loads = append(loads,
		workload{"-m 8 of 8 MiB", []spec.GroupOp{{Op: op(spec.AllReduce, 8<<20, spec.Float32)}}, spec.Launch{Agg: 8}},
		workload{"-m 8 of 512 KiB", []spec.GroupOp{{Op: op(spec.AllReduce, 512<<10, spec.Float32)}}, spec.Launch{Agg: 8}},
		workload{"graph", []spec.GroupOp{{Op: ar}, {Op: ar, InPlace: true}, {Op: ag}, {Op: op(spec.ReduceScatter, 16<<20, spec.Float32)}}, spec.Launch{Mode: spec.LaunchGraph}},
		workload{"graph -m 4", []spec.GroupOp{{Op: ar}}, spec.Launch{Mode: spec.LaunchGraph, Agg: 4}},
		workload{"registered", []spec.GroupOp{{Op: ar, Buffers: spec.BuffersRegistered}, {Op: ag, Buffers: spec.BuffersRegistered}}, spec.Launch{}},
		// NVLS registers ReduceScatter's send and AllGather's receive
		// buffer and runs them on its own channel count (G-REG-UB-1)
		workload{"registered AllGather ReduceScatter", []spec.GroupOp{{Op: ag, Buffers: spec.BuffersRegistered}, {Op: op(spec.ReduceScatter, 16<<20, spec.Float32), Buffers: spec.BuffersRegistered}}, spec.Launch{}},
		workload{"window", []spec.GroupOp{{Op: ar, Buffers: spec.BuffersWindow}, {Op: ag, Buffers: spec.BuffersWindow}, {Op: op(spec.AllReduce, 64<<20, spec.Int32), Buffers: spec.BuffersWindow}, {Op: ar}}, spec.Launch{}},
		workload{"window small", []spec.GroupOp{{Op: op(spec.AllReduce, 64<<10, spec.Float32), Buffers: spec.BuffersWindow}, {Op: op(spec.AllGather, 16<<10, spec.Bfloat16), Buffers: spec.BuffersWindow}}, spec.Launch{}},
		workload{"window -m 4", []spec.GroupOp{{Op: op(spec.AllReduce, 1<<20, spec.Bfloat16), Buffers: spec.BuffersWindow}}, spec.Launch{Agg: 4}},
		// more window tasks of one bin than the kernel arguments hold: NCCL
		// cuts the bin into plans (58, 56 or 55 tasks by release)
		workload{"window -m 60", []spec.GroupOp{{Op: op(spec.AllReduce, 64<<10, spec.Float32), Buffers: spec.BuffersWindow}}, spec.Launch{Agg: 60}},
		workload{"window alone", []spec.GroupOp{{Op: op(spec.AllGather, 16<<20, spec.Float32), Buffers: spec.BuffersWindow}}, spec.Launch{}},
		workload{"window with AllToAll", []spec.GroupOp{{Op: op(spec.AllToAll, 1<<20, spec.Float32), Buffers: spec.BuffersWindow}, {Op: op(spec.AllReduce, 1<<20, spec.Float32), Buffers: spec.BuffersWindow}}, spec.Launch{}},
		// send/recv tasks: rank 0's sends and receives on the p2p
		// channels, after the collectives and in their last plan
		workload{"sendrecv", []spec.GroupOp{{Op: op(spec.SendRecv, 8<<10, spec.Float32)}, {Op: op(spec.SendRecv, 64<<20, spec.Float32)}}, spec.Launch{}},
		workload{"alltoall", []spec.GroupOp{{Op: op(spec.AllToAll, 1<<20, spec.Float32)}}, spec.Launch{}},
		workload{"collectives then p2p", []spec.GroupOp{{Op: op(spec.SendRecv, 1<<20, spec.Bfloat16)}, {Op: ar}, {Op: op(spec.AllToAll, 64<<10, spec.Float32)}, {Op: ag}}, spec.Launch{}},
		// sends and recvs to stated peers (peer -k: the k-th rank from the
		// end): a pipeline pair, a halo exchange and a sparse all-to-all-v
		// (on 2 ranks its last send is to rank 0 itself, which no recv
		// matches: ncclGroupEnd fails)
		workload{"pipeline pair", []spec.GroupOp{p2p(true, 1, op(spec.SendRecv, 64<<20, spec.Bfloat16)), p2p(false, -1, op(spec.SendRecv, 64<<20, spec.Bfloat16))}, spec.Launch{}},
		workload{"pipeline pair registered", []spec.GroupOp{p2pReg(true, 1, op(spec.SendRecv, 64<<20, spec.Bfloat16)), p2pReg(false, -1, op(spec.SendRecv, 64<<20, spec.Bfloat16))}, spec.Launch{}},
		workload{"pipeline pair graph", []spec.GroupOp{p2p(true, 1, op(spec.SendRecv, 64<<20, spec.Bfloat16)), p2p(false, -1, op(spec.SendRecv, 64<<20, spec.Bfloat16))}, spec.Launch{Mode: spec.LaunchGraph}},
		workload{"halo", []spec.GroupOp{p2p(true, 1, op(spec.SendRecv, 256<<10, spec.Float32)), p2p(true, -1, op(spec.SendRecv, 256<<10, spec.Float32)),
			p2p(false, 1, op(spec.SendRecv, 256<<10, spec.Float32)), p2p(false, -1, op(spec.SendRecv, 256<<10, spec.Float32))}, spec.Launch{}},
		workload{"sparse all-to-all-v", []spec.GroupOp{p2p(true, 0, op(spec.SendRecv, 1<<20, spec.Float32)), p2p(false, 0, op(spec.SendRecv, 1<<20, spec.Float32)),
			p2p(true, 3, op(spec.SendRecv, 8<<10, spec.Float32)), p2p(false, -3, op(spec.SendRecv, 4<<20, spec.Float32)), p2p(true, -2, op(spec.SendRecv, 0, spec.Float32))}, spec.Launch{}},
	)
	for _, v := range spec.Releases {
		var b strings.Builder
		fmt.Fprintf(&b, "# NCCL %s: each operation of a group as ncclGroupEnd plans it\n", v)
		fmt.Fprintf(&b, "# op: func size dtype [inplace] [buffers] -> algo/proto channels lo..hi nMaxChannels nThreads [aggregate N] [registered] [by the deciding gate]\n")
		fmt.Fprintf(&b, "# a symmetric kernel: -> kernel name lo..hi blocks nThreads cta (bytes per block) plan (0-based) args (kernel argument bytes)\n")
		fmt.Fprintf(&b, "# send/recv (rank 0's tasks): -> p2p plan P: dir peer proto channels in part order (round of comm->p2pSchedule)\n")
		for _, m := range machines {
			sys, err := spec.Preset(m.name, m.opt)
			if err != nil {
				t.Fatal(err)
			}
			comm, err := spec.Init(spec.MustLoad(v), sys, m.env)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "\n## %s × %d node(s), env %s\n", m.name, sys.NNodes(), m.env)
			for _, w := range loads {
				w.ops = slices.Clone(w.ops)
				for i, o := range w.ops {
					if p := o.P2P; p != nil {
						n := sys.NRanks()
						w.ops[i].P2P = &spec.P2PCall{Send: p.Send, Peer: ((p.Peer % n) + n) % n}
					}
				}
				g, err := comm.SelectGroup(w.ops, w.launch)
				if err != nil && !comm.Model.Tuning.Symmetric && slices.ContainsFunc(w.ops, func(o spec.GroupOp) bool { return o.Buffers == spec.BuffersWindow }) {
					// a release without ncclCommWindowRegister refuses window buffers
					fmt.Fprintf(&b, "%s (launch %s) refused: %v\n", w.name, w.launch.Mode, err)
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "%s (launch %s, %d plan(s))", w.name, w.launch.Mode, g.Plans)
				if g.Err != nil {
					fmt.Fprintf(&b, " ncclGroupEnd: %s", g.Err.Result)
				}
				b.WriteString("\n")
				if w.launch.Agg > 8 {
					// a long group: the [Symmetric] lines rank 0 prints
					// and how many others, not every operation
					other := 0
					for _, l := range g.Lines {
						if strings.Contains(l, "[Symmetric]") {
							b.WriteString("  | " + l + "\n")
						} else {
							other++
						}
					}
					fmt.Fprintf(&b, "  | and %d other line(s)\n", other)
					continue
				}
				for i, d := range g.Ops {
					o := d.Op
					fmt.Fprintf(&b, "  %d %s %s %s", i, o.Func, spec.FormatBytes(o.Bytes()), o.DataType.Short())
					gop := w.ops[i%len(w.ops)]
					if p := gop.P2P; p != nil {
						fmt.Fprintf(&b, " %s peer=%d", p.Dir(), p.Peer)
					}
					if gop.InPlace {
						b.WriteString(" inplace")
					}
					if gop.Buffers != spec.BuffersUser {
						b.WriteString(" " + gop.Buffers.String())
					}
					switch {
					case d.Err != nil:
						fmt.Fprintf(&b, " -> %s", d.Err.Result)
					case d.Discarded:
						b.WriteString(" -> discarded")
					case d.P2P != nil && len(d.P2P.Tasks) > 0:
						fmt.Fprintf(&b, " -> p2p plan %d: %s", d.P2P.Tasks[0].Plan, spec.FormatP2PTasks(d.P2P.Tasks, 0))
					case d.P2P != nil:
						b.WriteString(" -> p2p (send/recv tasks not placed)")
					case d.Kernel != "" && d.NChannels > 0:
						fmt.Fprintf(&b, " -> kernel %s %d..%d %d %d", d.Kernel, d.ChannelLo, d.ChannelHi, d.NChannels, d.NThreads)
						if i < len(g.Choices) {
							ch := g.Choices[i]
							fmt.Fprintf(&b, " cta %s plan %d args %d B", spec.FormatBytes(ch.CTABytes), ch.Plan, ch.ArgsBytes)
						}
					case i < len(g.Choices) && g.Choices[i].SidePath != "":
						b.WriteString(" -> " + g.Choices[i].SidePath + " (outside the cost table)")
					default:
						fmt.Fprintf(&b, " -> %s/%s %d..%d %d %d", d.Algo, d.Proto, d.ChannelLo, d.ChannelHi, d.NChannels, d.NThreads)
					}
					if i < len(g.Choices) {
						if n := len(g.Choices[i].Aggregate); n > 1 {
							fmt.Fprintf(&b, " aggregate %d", n)
						}
						if r := g.Choices[i].Registered; r != "" {
							b.WriteString(" registered " + r)
						}
					}
					if d.DecidedBy != "" {
						b.WriteString(" by " + string(d.DecidedBy))
					}
					b.WriteString("\n")
				}
			}
		}
		goldenfile.Check(t, filepath.Join("testdata", "groups", v.String()+".txt"), b.String(), *update)
	}
}
