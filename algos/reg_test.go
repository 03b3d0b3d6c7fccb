package algos

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// TestScheduleCarriesRegistration: the schedule of a decision records the
// registration NCCL made of its buffers (Header.Reg), which the simulator
// reads for the receives a registered peer writes directly: a 64 MiB
// AllReduce captured into a CUDA graph on the 2 × H200 runs Ring/Simple
// IPC-registered out of place from 2.24.3 (G-REG-IPC-1 under
// NCCL_GRAPH_REGISTER), not in place, not on a stream with user buffers,
// and not at 2.22.3, which registers no Ring buffer.
func TestScheduleCarriesRegistration(t *testing.T) {
	op, err := spec.OpFromBytes(spec.AllReduce, 64<<20, spec.Float32, spec.Sum, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		v       spec.Version
		inPlace bool
		buffers spec.Buffers
		mode    spec.LaunchMode
		want    tuning.ChunkReg
	}{
		{"graph out of place", spec.V2_28_9, false, spec.BuffersUser, spec.LaunchGraph, tuning.ChunkRegIPC},
		{"graph out of place 2.24.3", spec.V2_24_3, false, spec.BuffersUser, spec.LaunchGraph, tuning.ChunkRegIPC},
		{"registered on a stream", spec.V2_28_9, false, spec.BuffersRegistered, spec.LaunchStream, tuning.ChunkRegIPC},
		{"graph in place", spec.V2_28_9, true, spec.BuffersUser, spec.LaunchGraph, tuning.ChunkRegNone},
		{"user buffers on a stream", spec.V2_28_9, false, spec.BuffersUser, spec.LaunchStream, tuning.ChunkRegNone},
		{"graph out of place 2.22.3", spec.V2_22_3, false, spec.BuffersUser, spec.LaunchGraph, tuning.ChunkRegNone},
	} {
		sys, err := spec.Preset("h200x2", spec.PresetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		comm, err := spec.Init(spec.MustLoad(tc.v), sys, nil)
		if err != nil || comm.Err != nil {
			t.Fatalf("%s: init: %v %v", tc.name, err, comm.Err)
		}
		l, err := LayoutFromComm(comm)
		if err != nil {
			t.Fatal(err)
		}
		g, err := comm.SelectGroup([]spec.GroupOp{{Op: op, InPlace: tc.inPlace, Buffers: tc.buffers}}, spec.Launch{Mode: tc.mode})
		if err != nil || g.Err != nil || len(g.Ops) != 1 {
			t.Fatalf("%s: %v %v", tc.name, err, g.Err)
		}
		o, sel, err := FromDecision(g.Ops[0])
		if err != nil {
			t.Fatal(err)
		}
		s, err := Build(o, sel, l, Options{InPlace: tc.inPlace})
		if err != nil {
			t.Fatal(err)
		}
		if s.Algo != spec.Ring || s.Proto != spec.Simple || s.Reg != tc.want {
			t.Errorf("%s: %s/%s reg %q, want Ring/Simple reg %q", tc.name, s.Algo, s.Proto, s.Reg, tc.want)
		}
	}
}

// TestRegistrationRoundTrips: the text form writes the registration on
// the algo line and Parse reads it back; a registration it does not know
// is refused with the line.
func TestRegistrationRoundTrips(t *testing.T) {
	l, err := DefaultLayout(spec.V2_28_9, 1, 4, 2)
	if err != nil {
		t.Fatal(err)
	}
	op := spec.Op{Func: spec.AllGather, Count: 4096, DataType: spec.Float32}
	for _, reg := range []tuning.ChunkReg{tuning.ChunkRegNone, tuning.ChunkRegIPC, tuning.ChunkRegNet} {
		s, err := Build(op, Selection{Algo: spec.Ring, Proto: spec.Simple, NChannels: 2, Chunk: tuning.ChunkArgs{Reg: reg}}, l, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := s.Format(&b); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "algo Ring Simple reg="+reg.String()+"\n"); got != (reg != tuning.ChunkRegNone) {
			t.Errorf("reg %q: algo line written %v:\n%.300s", reg, got, b.String())
		}
		p, err := Parse(strings.NewReader(b.String()), "reg.txt")
		if err != nil {
			t.Fatal(err)
		}
		if p.Reg != reg {
			t.Errorf("parsed reg %q, want %q", p.Reg, reg)
		}
		if reg == tuning.ChunkRegIPC {
			bad := strings.Replace(b.String(), "reg=IPC", "reg=SHM", 1)
			if _, err := Parse(strings.NewReader(bad), "reg.txt"); err == nil || !strings.Contains(err.Error(), `reg="SHM"`) {
				t.Errorf("reg=SHM: %v, want an error naming it", err)
			}
		}
	}
}
