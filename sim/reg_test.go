package sim

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/algos/algostest"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// regPair builds op's schedule with sel twice, on unregistered buffers and
// registered as reg, with every other choice (channels, chunk) the same.
func regPair(t fataler, nodes, local, nch int, op spec.Op, sel algos.Selection, reg tuning.ChunkReg, inPlace bool) (user, registered *algos.Schedule) {
	t.Helper()
	l, err := algos.DefaultLayout(spec.V2_28_9, nodes, local, nch)
	if err != nil {
		t.Fatal(err)
	}
	l.NVLSChannels = nch
	sel.NChannels = nch
	for i, r := range []tuning.ChunkReg{tuning.ChunkRegNone, reg} {
		sel.Chunk.Reg = r
		s, err := algos.Build(op, sel, l, algos.Options{InPlace: inPlace})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			user = s
		} else {
			registered = s
		}
	}
	return user, registered
}

// TestRegisteredReceivesCopyNothing: a plain receive (directRecv) of a
// Simple step copies it out of the connection's FIFO into the user buffer,
// a read and a write of the GPU's memory, unless the sender wrote it
// straight into the registered output (IPC registration for P2P peers,
// the network's for NET peers). So with channels and chunks held fixed a
// registered Ring AllReduce, AllGather, Broadcast and a Tree AllReduce on
// one node finish earlier by that copy on their critical path; across two
// nodes the ring is paced by the ranks that receive over the network, so
// the network's registration shortens it and IPC registration alone does
// not. A Ring Reduce (whose last rank reduces, recvReduceCopy: the same
// bytes either way) and any LL schedule (not charged) take exactly as
// long. The solvers (uneven
// ring, chain) agree with the event loop and with every rank.
func TestRegisteredReceivesCopyNothing(t *testing.T) {
	for _, tc := range []struct {
		nodes, local int
		f            spec.Func
		algo         spec.Algo
		proto        spec.Proto
		reg          tuning.ChunkReg
		bytes        int64
		faster       bool
	}{
		{1, 8, spec.AllReduce, spec.Ring, spec.Simple, tuning.ChunkRegIPC, 64 << 20, true},
		{1, 2, spec.AllReduce, spec.Ring, spec.Simple, tuning.ChunkRegIPC, 64<<20 + 4, true},
		{1, 8, spec.AllGather, spec.Ring, spec.Simple, tuning.ChunkRegIPC, 64 << 20, true},
		{1, 8, spec.Broadcast, spec.Ring, spec.Simple, tuning.ChunkRegIPC, 64 << 20, true},
		{1, 8, spec.AllReduce, spec.Tree, spec.Simple, tuning.ChunkRegIPC, 64 << 20, true},
		{2, 4, spec.AllReduce, spec.Ring, spec.Simple, tuning.ChunkRegIPC, 64 << 20, false},
		{1, 8, spec.Reduce, spec.Ring, spec.Simple, tuning.ChunkRegIPC, 64 << 20, false},
		{1, 8, spec.AllReduce, spec.Ring, spec.LL, tuning.ChunkRegIPC, 4 << 20, false},
		{2, 4, spec.AllReduce, spec.Ring, spec.Simple, tuning.ChunkRegNet, 64 << 20, true},
	} {
		name := fmt.Sprintf("%d×%d %s %s/%s %s", tc.nodes, tc.local, tc.f, tc.algo, tc.proto, tc.reg)
		t.Run(name, func(t *testing.T) {
			op := spec.Op{Func: tc.f, Count: tc.bytes / 4, DataType: spec.Float32, RedOp: spec.Sum}
			user, reg := regPair(t, tc.nodes, tc.local, 4, op, algos.Selection{Algo: tc.algo, Proto: tc.proto}, tc.reg, false)
			m := dgxCluster(tc.nodes)
			m.GPUsPerNode, m.NICs = tc.local, min(m.NICs, tc.local)
			var times [2]Time
			for i, s := range []*algos.Schedule{user, reg} {
				solvedRun(t, s, m, true)
				r, err := Simulate(s, Config{Machine: m})
				if err != nil {
					t.Fatal(err)
				}
				times[i] = r.Time
				if i == 1 && !maps.Equal(r.LinkBytes, func() map[string]int64 {
					u, _ := Simulate(user, Config{Machine: m})
					return u.LinkBytes
				}()) {
					t.Errorf("registration changed the bytes on the links")
				}
			}
			if tc.faster && times[1] >= times[0] {
				t.Errorf("registered %v, unregistered %v: want the registered receives to skip the FIFO copy", times[1], times[0])
			}
			if !tc.faster && times[1] != times[0] {
				t.Errorf("registered %v, unregistered %v: want the same time", times[1], times[0])
			}
		})
	}
}

// TestPropRegisteredNeverSlower: with the decision held fixed (algorithm,
// protocol, channels, chunk), an operation on IPC- or network-registered
// buffers never simulates slower than on user buffers, and symmetry stays
// exact for it. Registration slows an operation in the model only through
// a rule of the decision: G-REG-IPC-1's 16 channels on one node, and a
// network-registered Ring AllGather on one rank per node, whose chunk
// becomes NCCL_MAX_NET_SIZE (G-SEL-CHUNK-2), left out here.
func TestPropRegisteredNeverSlower(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, local := drawComm(t)
		f, a, proto := drawCollective(t, nodes, local)
		reg := rapid.SampledFrom([]tuning.ChunkReg{tuning.ChunkRegIPC, tuning.ChunkRegNet}).Draw(t, "reg")
		if reg == tuning.ChunkRegNet && a == spec.Ring && f == spec.AllGather && local == 1 {
			reg = tuning.ChunkRegIPC
		}
		ch := 2 * rapid.IntRange(1, 8).Draw(t, "graph channels")
		count := rapid.Int64Range(0, 1<<20).Draw(t, "count")
		if f == spec.AllGather || f == spec.ReduceScatter {
			count /= int64(nodes * local)
		}
		op := spec.Op{Func: f, Count: count, DataType: spec.Float32, RedOp: spec.Sum, Root: rapid.IntRange(0, nodes*local-1).Draw(t, "root")}
		user, registered := regPair(t, nodes, local, ch, op, algos.Selection{Algo: a, Proto: proto}, reg, rapid.Bool().Draw(t, "in place"))
		m := machineFor(algostest.Shape{Name: "drawn", Nodes: nodes, LocalRanks: local})
		u, err := Simulate(user, Config{Machine: m})
		if err != nil {
			t.Fatal(err)
		}
		r, err := Simulate(registered, Config{Machine: m})
		if err != nil {
			t.Fatal(err)
		}
		if r.Time > u.Time {
			t.Fatalf("%s %s %s on %d×%d, %d channels, %s: registered %v, user buffers %v", a, f, proto, nodes, local, ch, reg, r.Time, u.Time)
		}
		all, err := Simulate(registered, Config{Machine: m, NoSymmetry: true})
		if err != nil {
			t.Fatal(err)
		}
		if all.Time != r.Time || !maps.Equal(all.LinkBytes, r.LinkBytes) {
			t.Fatalf("registered: symmetry %v, every rank %v", r.Time, all.Time)
		}
	})
}

// TestRegisteredNVLSCopiesNothingLocally: with the buffers bound to the
// NVLS multicast object (NVLS registration, G-REG-UB-1) the switch reads
// the inputs and writes the outputs where they are, so the NVLS schedules'
// scatter into the rank's NVLS buffer and gather out of it move nothing
// (NCCL's nelem 0): no byte crosses a GPU's memory for them (the hbm
// class), the NVLink and network bytes are those of the unregistered run,
// the result is still right, and the AllReduce, which pays both copies,
// finishes earlier. With channels and chunk held fixed.
func TestRegisteredNVLSCopiesNothingLocally(t *testing.T) {
	for _, tc := range []struct {
		nodes, local int
		f            spec.Func
		algo         spec.Algo
		faster       bool
	}{
		{1, 8, spec.AllReduce, spec.NVLS, true},
		{1, 4, spec.AllReduce, spec.NVLS, true},
		{1, 8, spec.AllGather, spec.NVLS, false},
		{1, 8, spec.ReduceScatter, spec.NVLS, false},
		{2, 8, spec.AllReduce, spec.NVLSTree, true},
	} {
		name := fmt.Sprintf("%d×%d %s %s", tc.nodes, tc.local, tc.f, tc.algo)
		t.Run(name, func(t *testing.T) {
			count := int64(16 << 20 / 4)
			if tc.f != spec.AllReduce {
				count /= int64(tc.nodes * tc.local)
			}
			op := spec.Op{Func: tc.f, Count: count, DataType: spec.Float32, RedOp: spec.Sum}
			user, reg := regPair(t, tc.nodes, tc.local, 4, op, algos.Selection{Algo: tc.algo, Proto: spec.Simple}, tuning.ChunkRegNVLS, false)
			if user.NVLSUserBuffers() || !reg.NVLSUserBuffers() {
				t.Fatalf("NVLSUserBuffers: user %v, registered %v", user.NVLSUserBuffers(), reg.NVLSUserBuffers())
			}
			m := dgxCluster(tc.nodes)
			m.GPUsPerNode, m.NICs = tc.local, min(m.NICs, tc.local)
			solvedRun(t, reg, m, true)
			u, err := Simulate(user, Config{Machine: m})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Simulate(reg, Config{Machine: m})
			if err != nil {
				t.Fatal(err)
			}
			if u.LinkBytes["hbm"] == 0 || r.LinkBytes["hbm"] != 0 {
				t.Errorf("hbm bytes: user buffers %d, registered %d; want some, then none", u.LinkBytes["hbm"], r.LinkBytes["hbm"])
			}
			for _, c := range []string{"nvlink", "nic", "pcie"} {
				if u.LinkBytes[c] != r.LinkBytes[c] {
					t.Errorf("%s bytes: user buffers %d, registered %d; want the same", c, u.LinkBytes[c], r.LinkBytes[c])
				}
			}
			if r.Time > u.Time || (tc.faster && r.Time == u.Time) {
				t.Errorf("registered %v, user buffers %v: want registered earlier (faster %v)", r.Time, u.Time, tc.faster)
			}
			// the data, on a size the symbolic check runs quickly
			op.Count = 2500
			_, small := regPair(t, tc.nodes, tc.local, 4, op, algos.Selection{Algo: tc.algo, Proto: spec.Simple}, tuning.ChunkRegNVLS, false)
			v, err := Verify(small, randomInputs(rand.New(rand.NewPCG(1, 2)), small), nil)
			if err != nil || !v.OK {
				t.Fatalf("registered schedule's data: %v %+v", err, v)
			}
		})
	}
}

// TestRegisteredNVLSPerRelease: the per-release side of the rule is the
// decision's. A 64 MiB AllReduce on registered buffers on one DGX H100 is
// NVLS/Simple registered over NVLS from 2.19.1 (G-REG-UB-1), whose
// schedule moves nothing through the GPUs' memory; 2.18.6 registers no
// NVLS buffer and its NVLS schedule copies in and out of the NVLS buffer.
func TestRegisteredNVLSPerRelease(t *testing.T) {
	op, err := spec.OpFromBytes(spec.AllReduce, 64<<20, spec.Float32, spec.Sum, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		v      spec.Version
		reg    tuning.ChunkReg
		hbmOff bool
	}{
		{spec.V2_18_6, tuning.ChunkRegNone, false},
		{spec.V2_19_1, tuning.ChunkRegNVLS, true},
		{spec.V2_22_3, tuning.ChunkRegNVLS, true},
		{spec.V2_28_9, tuning.ChunkRegNVLS, true},
		{spec.V2_30_7, tuning.ChunkRegNVLS, true},
	} {
		sys, err := spec.Preset("dgx-h100", spec.PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		comm, err := spec.Init(spec.MustLoad(tc.v), sys, nil)
		if err != nil || comm.Err != nil {
			t.Fatalf("%s: init: %v %v", tc.v, err, comm.Err)
		}
		l, err := algos.LayoutFromComm(comm)
		if err != nil {
			t.Fatal(err)
		}
		g, err := comm.SelectGroup([]spec.GroupOp{{Op: op, Buffers: spec.BuffersRegistered}}, spec.Launch{Mode: spec.LaunchStream})
		if err != nil || g.Err != nil || len(g.Ops) != 1 {
			t.Fatalf("%s: %v %v", tc.v, err, g.Err)
		}
		o, sel, err := algos.FromDecision(g.Ops[0])
		if err != nil {
			t.Fatal(err)
		}
		s, err := algos.Build(o, sel, l, algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Algo != spec.NVLS || s.Reg != tc.reg {
			t.Fatalf("%s: %s reg %q, want NVLS reg %q", tc.v, s.Algo, s.Reg, tc.reg)
		}
		m, err := Preset("dgx-h100")
		if err != nil {
			t.Fatal(err)
		}
		r, err := Simulate(s, Config{Machine: m})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.LinkBytes["hbm"] == 0; got != tc.hbmOff {
			t.Errorf("%s: hbm bytes %d, want none: %v", tc.v, r.LinkBytes["hbm"], tc.hbmOff)
		}
	}
}

// headSteps counts the steps rank 0's programs on channel 0 send to and
// receive from the network.
func headSteps(s *algos.Schedule) (sends, recvs int) {
	for g := 0; g < s.NGroups; g++ {
		for _, st := range s.AppendProgram(nil, 0, 0, g) {
			if slices.ContainsFunc(st.Send, func(p algos.Peer) bool { return p.Kind == algos.PeerNet }) {
				sends++
			}
			if slices.ContainsFunc(st.Recv, func(p algos.Peer) bool { return p.Kind == algos.PeerNet }) {
				recvs++
			}
		}
	}
	return sends, recvs
}

// TestRegisteredCollNetStreams: a CollNet task whose buffers the network
// registered on one rank per node (G-REG-COLLNET-1) runs no FIFO: its
// kernel notifies the proxy once each way and the proxy hands the plugin
// the user buffers in collectives of at most maxCollBytes
// (G-REG-COLLNET-SPLIT-1), each flushed on receive. So the schedule moves
// the window in ceil(window / piece) steps each way instead of one per
// chunk, the data still verifies, and it finishes sooner than the
// unregistered one: a small task by the chunks' per-step latencies, a
// large one no later (both stream at the network's rate); an AllGather
// receives the whole window at the receive rate however few bytes each
// head injects. Each piece is flushed once, and only the last piece's
// flush is on the critical path. With several ranks per node the kernel
// still moves the node's data through the FIFO: the schedule and its
// time stay the unregistered ones.
func TestRegisteredCollNetStreams(t *testing.T) {
	const piece = 512 << 20
	for _, tc := range []struct {
		algo   spec.Algo
		f      spec.Func
		bytes  int64 // per rank's input (AllGather) or output (ReduceScatter)
		pieces int   // steps each way
	}{
		{spec.CollNetDirect, spec.AllReduce, 1 << 20, 1},
		{spec.CollNetDirect, spec.AllReduce, 1 << 30, 2},
		{spec.CollNetDirect, spec.AllReduce, 1<<30 + 4, 3},
		{spec.CollNetChain, spec.AllReduce, 1 << 20, 1},
		{spec.CollNetChain, spec.AllReduce, 1 << 30, 2},
		{spec.CollNetDirect, spec.AllGather, 1 << 20, 1},
		{spec.CollNetDirect, spec.AllGather, 256 << 20, 2},
		{spec.CollNetDirect, spec.ReduceScatter, 1 << 20, 1},
		{spec.CollNetDirect, spec.ReduceScatter, 256 << 20, 2},
	} {
		name := fmt.Sprintf("%s %s %d B", tc.algo, tc.f, tc.bytes)
		t.Run(name, func(t *testing.T) {
			op := spec.Op{Func: tc.f, Count: tc.bytes / 4, DataType: spec.Float32, RedOp: spec.Sum}
			user, reg := regPair(t, 4, 1, 1, op, algos.Selection{Algo: tc.algo, Proto: spec.Simple, CollNetPiece: piece}, tuning.ChunkRegCollNet, false)
			if !reg.CollNetUserBuffers() || user.CollNetUserBuffers() {
				t.Fatalf("CollNetUserBuffers: registered %v, user %v", reg.CollNetUserBuffers(), user.CollNetUserBuffers())
			}
			us, ur := headSteps(user)
			rs, rr := headSteps(reg)
			if rs != tc.pieces || rr != tc.pieces {
				t.Errorf("registered: %d sends, %d receives to the network, want %d each (one per %d B piece)", rs, rr, tc.pieces, piece)
			}
			if us <= rs || ur <= rr {
				t.Errorf("unregistered: %d sends, %d receives, want more than the registered %d, %d (one per chunk)", us, ur, rs, rr)
			}
			// the data, on a count of pieces of 4 KiB and a short last one
			small := op
			small.Count = 3001
			_, sreg := regPair(t, 4, 1, 1, small, algos.Selection{Algo: tc.algo, Proto: spec.Simple, CollNetPiece: 4096}, tuning.ChunkRegCollNet, false)
			rng := rand.New(rand.NewPCG(5, uint64(tc.f)))
			if v, err := Verify(sreg, randomInputs(rng, sreg), nil); err != nil || !v.OK {
				t.Fatalf("registered schedule in 4 KiB pieces: %v %v", err, v)
			}
			m := dgxCluster(4)
			m.GPUsPerNode, m.NICs, m.SHARP = 1, 1, true
			timeOf := func(s *algos.Schedule, flush bool) Time {
				mm := m
				mm.CollNetFlush, mm.Profile = flush, flushProfile(7, 1)
				r, err := Simulate(s, Config{Machine: mm})
				if err != nil {
					t.Fatal(err)
				}
				return r.Time
			}
			u, r := timeOf(user, false), timeOf(reg, false)
			t.Logf("unregistered %v (%d steps each way), registered %v", u, us, r)
			if r > u || (tc.bytes <= 1<<20 && r >= u) {
				t.Errorf("registered %v, unregistered %v: want sooner (small) or no later (large)", r, u)
			}
			if tc.f == spec.AllGather {
				// every head receives the 4-node window at its receive rate
				if floor := durationOf(4*tc.bytes, m.NICBw); r < floor {
					t.Errorf("registered AllGather %v, under the window's %v at the NIC's rate", r, floor)
				}
			}
			if got, want := timeOf(reg, true)-r, FromMicros(7); got != want {
				t.Errorf("registered: the flush adds %v, want the last piece's %v", got, want)
			}
		})
	}
	t.Run("from the decision", func(t *testing.T) {
		// dgx-h100 × 4 cut to one GPU a node, SHARP, CollNetDirect
		// forced, 1 GiB on registered buffers: 2.28.9 registers them
		// with CollNet and splits the proxy's one step into 2 pieces of
		// 512 MiB (golden/testdata/collnet_reg.txt)
		sys, err := spec.Preset("dgx-h100", spec.PresetOptions{Nodes: 4, SHARP: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range sys.Nodes {
			sys.Nodes[i].GPUs = sys.Nodes[i].GPUs[:1]
		}
		c, err := spec.Init(spec.MustLoad(spec.V2_28_9), sys, spec.Env{"NCCL_COLLNET_ENABLE": "1", "NCCL_ALGO": "CollNetDirect"})
		if err != nil || c.Err != nil {
			t.Fatal(err, c.Err)
		}
		op := spec.Op{Func: spec.AllReduce, Count: 1 << 28, DataType: spec.Float32, RedOp: spec.Sum}
		g, err := c.SelectGroup([]spec.GroupOp{{Op: op, Buffers: spec.BuffersRegistered}}, spec.Launch{})
		if err != nil || g.Err != nil {
			t.Fatal(err, g.Err)
		}
		o, sel, err := algos.FromDecision(g.Ops[0])
		if err != nil {
			t.Fatal(err)
		}
		if sel.Chunk.Reg != tuning.ChunkRegCollNet || sel.CollNetPiece != piece {
			t.Fatalf("selection registers %v in pieces of %d B, want CollNet in %d B", sel.Chunk.Reg, sel.CollNetPiece, piece)
		}
		l, err := algos.LayoutFromComm(c)
		if err != nil {
			t.Fatal(err)
		}
		s, err := algos.Build(o, sel, l, algos.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if sends, recvs := headSteps(s); !s.CollNetUserBuffers() || sends != 2 || recvs != 2 {
			t.Errorf("schedule: user buffers %v, %d sends and %d receives to the network, want true, 2, 2", s.CollNetUserBuffers(), sends, recvs)
		}
	})
	t.Run("several ranks per node", func(t *testing.T) {
		for _, f := range []spec.Func{spec.AllGather, spec.ReduceScatter} {
			op := spec.Op{Func: f, Count: 1 << 18, DataType: spec.Float32, RedOp: spec.Sum}
			user, reg := regPair(t, 2, 4, 2, op, algos.Selection{Algo: spec.CollNetDirect, Proto: spec.Simple, CollNetPiece: piece}, tuning.ChunkRegCollNet, false)
			if reg.CollNetUserBuffers() {
				t.Fatalf("%s on 2×4: CollNetUserBuffers with four ranks per node", f)
			}
			hr := reg.Header
			hr.Reg = user.Reg
			if hr != user.Header || reg.String() == "" {
				t.Fatalf("%s on 2×4: registered header %+v, unregistered %+v", f, reg.Header, user.Header)
			}
			for r := 0; r < user.NRanks; r++ {
				for ch := 0; ch < user.NChannels; ch++ {
					for g := 0; g < user.NGroups; g++ {
						a, b := user.AppendProgram(nil, r, ch, g), reg.AppendProgram(nil, r, ch, g)
						if fmt.Sprint(a) != fmt.Sprint(b) {
							t.Fatalf("%s on 2×4: rank %d channel %d group %d differs registered", f, r, ch, g)
						}
					}
				}
			}
			m := dgxCluster(2)
			m.GPUsPerNode, m.NICs, m.SHARP = 4, 4, true
			u, err := Simulate(user, Config{Machine: m})
			if err != nil {
				t.Fatal(err)
			}
			rr, err := Simulate(reg, Config{Machine: m})
			if err != nil {
				t.Fatal(err)
			}
			if u.Time != rr.Time {
				t.Errorf("%s on 2×4: registered %v, unregistered %v: want the same", f, rr.Time, u.Time)
			}
		}
	})
}
