package sim

import (
	"fmt"
	"maps"
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
