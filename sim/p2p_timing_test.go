package sim

import (
	"testing"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
)

// Every function's profile factors are parameters with a nominal value:
// a factor the profile does not know would read 0 and stop the traffic.
func TestProfileFactorsOfEveryFunc(t *testing.T) {
	for _, f := range append(spec.Funcs[:], spec.SendRecv, spec.AllToAll) {
		for _, name := range []string{funcName(f), funcLinkName(f)} {
			ps, ok := paramSpec(name)
			if !ok || ps.Nominal != 1 {
				t.Errorf("%s: %+v, known %v: want a nominal factor of 1", name, ps, ok)
			}
		}
	}
}

// SendRecv and AllToAll on a pair of NVLink GPUs move their bytes at a rate
// the links allow, under the nominal and the calibrated profile alike:
// above a tenth of NCCL's NVLink figure at 256 MiB, never above it.
func TestP2PTimedOverTheLinks(t *testing.T) {
	cal, err := BuiltinProfile("h200x2")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f     spec.Func
		count int64 // per peer
		// bytes one rank sends to the other
		cross int64
	}{
		{spec.SendRecv, 64 << 20, 256 << 20},
		{spec.AllToAll, 64 << 20, 256 << 20},
		{spec.SendRecv, 256, 1 << 10},
	} {
		for _, p := range []*Profile{nil, cal} {
			l, err := algos.DefaultLayout(spec.V2_28_9, 1, 2, 24)
			if err != nil {
				t.Fatal(err)
			}
			s, err := algos.Build(spec.Op{Func: c.f, Count: c.count, DataType: spec.Float32}, algos.Selection{}, l, algos.Options{})
			if err != nil {
				t.Fatal(err)
			}
			m, _ := Preset("h200x2")
			m.Profile = p
			r, err := Simulate(s, Config{Machine: m})
			if err != nil {
				t.Fatal(err)
			}
			rate := float64(c.cross) / r.Time.Micros() / 1e3 // GB/s
			if nv := float64(m.NVLinkBw) / 1e9; rate > nv || (c.cross >= 1<<20 && rate < nv/10) || r.Time.Micros() > 1e6 {
				t.Errorf("%s %d bytes per peer, profile %s: %v, %.1f GB/s per direction (NVLink %.0f)", c.f, 4*c.count, p.Short(), r.Time, rate, nv)
			}
		}
	}
}

// A one-rank SendRecv is the kernel copying sendbuff to recvbuff on each
// channel of its work, and its channels share the GPU's memory: at no size
// does it beat a read and a write of its bytes at the machine's HBM
// bandwidth, under the nominal and the calibrated profile (whose per-channel
// cap binds harder), and its time grows with its bytes (4 × the bytes: more
// than 3 × the time once past the launch).
func TestP2PSelfCopyAtHBM(t *testing.T) {
	cal, err := BuiltinProfile("h200x2")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Profile{nil, cal} {
		m, _ := Preset("h200x2")
		m.Profile = p
		m.Nodes, m.GPUsPerNode = 1, 1
		var prev Time
		for _, bytes := range []int64{16 << 20, 64 << 20, 256 << 20, 1 << 30} {
			l, err := algos.DefaultLayout(spec.V2_28_9, 1, 1, 24)
			if err != nil {
				t.Fatal(err)
			}
			s, err := algos.Build(spec.Op{Func: spec.SendRecv, Count: bytes / 4, DataType: spec.Float32}, algos.Selection{}, l, algos.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Simulate(s, Config{Machine: m})
			if err != nil {
				t.Fatal(err)
			}
			run := r.Time - m.LaunchLatency(spec.Ring, spec.Simple)
			if least := durationOf(2*bytes, m.HBMBw); run < least {
				t.Errorf("profile %s, %d bytes: %v after launch, under a read and a write at HBM's %.0f GB/s (%v)", p.Short(), bytes, run, float64(m.HBMBw)/1e9, least)
			}
			if prev > 0 && run < 3*prev {
				t.Errorf("profile %s, %d bytes: %v after launch, not 3 × the quarter size's %v", p.Short(), bytes, run, prev)
			}
			t.Logf("profile %s, %d bytes: %v (%.0f GB/s)", p.Short(), bytes, r.Time, float64(bytes)/r.Time.Micros()/1e3)
			prev = run
		}
	}
}
