package calibrate

import (
	"fmt"
	"io"
	"math"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// Figure is a published busbw measurement on a machine the project cannot
// run. Figures are tests of the transferred profile, never fitting input.
type Figure struct {
	Name   string
	Source string
	System string
	Nodes  int
	// GPUs reshapes the preset's nodes (0: as the preset has them).
	GPUs  int
	SHARP bool
	Env   spec.Env
	Func  spec.Func
	Bytes int64
	// BusBw is the measured busbw, GB/s.
	BusBw float64
	// Release is the NCCL release the figure was measured with, where its
	// source names one NCCL release the comparison's cannot stand for (0:
	// the comparison's release).
	Release spec.Version
	// Pending says why the figure cannot be simulated yet ("": it can).
	Pending string
}

const gib4 = 4 << 30

// Figures are the published figures docs/calibration.md compares with,
// at 4 GiB, float sum, NCCL 2.22.3 (the design's reference release) unless
// the figure names its own release.
func Figures() []Figure {
	var fs []Figure
	for i, n := range []int{2, 4, 5, 6, 7, 8} {
		fs = append(fs, Figure{Name: fmt.Sprintf("NVLS AllReduce, %d × H100", n), Source: "NVIDIA/nccl#1455",
			System: "dgx-h100", Nodes: 1, GPUs: n, Env: spec.Env{"NCCL_ALGO": "NVLS"}, Func: spec.AllReduce, Bytes: gib4,
			BusBw: []float64{370, 370, 420, 440, 460, 480}[i]})
	}
	fs = append(fs,
		Figure{Name: "AllReduce, 8 × H200, NCCL's choice", Source: "NVIDIA/nccl-tests#272", System: "hgx-h200", Nodes: 1,
			Env: spec.Env{}, Func: spec.AllReduce, Bytes: gib4, BusBw: 475},
		Figure{Name: "Ring AllReduce, 8 × H100", Source: "NVIDIA/nccl#1455 (365–370 GB/s; the middle)", System: "dgx-h100", Nodes: 1,
			Env: spec.Env{"NCCL_ALGO": "Ring"}, Func: spec.AllReduce, Bytes: gib4, BusBw: 367.5},
		Figure{Name: "CollNetChain AllReduce, 8 × 8 H100 with SHARP", Source: "coreweave/nccl-tests README", System: "dgx-h100", Nodes: 8, SHARP: true,
			Env: spec.Env{"NCCL_ALGO": "CollNetChain", "NCCL_COLLNET_ENABLE": "1"}, Func: spec.AllReduce, Bytes: gib4, BusBw: 383},
		// The README's GB200 runs used NCCL 2.26.2 with its GB200 settings
		// (slurm/nccl-test-distributed-gb200-nvl72-enroot.slurm: MNNVL and
		// cuMem on; the rest concern the network a single rack does not
		// use). 2.22.3 cannot stand for it: it predates Blackwell (no
		// SM100 NVLink figure until 2.25.1) and its NVLS search asks for one
		// channel per GPU, 72, past MAXCHANNELS (2.25.1 caps it at
		// NCCL_MAX_NVLS_ARITY).
		// Blackwell at the sizes below the rack, on the same nominal
		// constants: they say whether NCCL's Blackwell NVLink figure and
		// NVLS efficiency hold where the rack's figure does not.
		// nccl#1807 reports "830+" GB/s AllReduce busbw on 8 B200s with
		// NCCL 2.27.1, which has no tag; 2.27.3, the first tagged 2.27,
		// stands for it.
		Figure{Name: "AllReduce, 8 × B200, NCCL's choice", Source: "NVIDIA/nccl#1807 (\"830+\")", System: "dgx-b200", Nodes: 1,
			Env: spec.Env{}, Func: spec.AllReduce, Bytes: gib4, BusBw: 830, Release: spec.V2_27_3},
		// nccl#2140 gives peak busbw on 8 H100s and on 8 B300s with NVLS
		// on (NCCL's choice) and off, NCCL 2.30.4, sizes not stated (the
		// model is flat from 4 GiB up). A B300 is sm103, which NCCL 2.30.4
		// reads as sm100 wherever these figures depend on the GPU
		// (SM100_NVLINK_BW for compute capability 100 and up, the
		// Blackwell nvlsEfficiency and NVLS channel count), and its HGX
		// board has the B200's 18 NVLink 5 links into NVSwitches: the
		// dgx-b200 preset stands for it.
		Figure{Name: "AllReduce, 8 × H100, NCCL's choice (NCCL 2.30.4)", Source: "NVIDIA/nccl#2140", System: "dgx-h100", Nodes: 1,
			Env: spec.Env{}, Func: spec.AllReduce, Bytes: gib4, BusBw: 480, Release: spec.V2_30_4},
		Figure{Name: "AllReduce, 8 × H100, NVLS off (NCCL 2.30.4)", Source: "NVIDIA/nccl#2140", System: "dgx-h100", Nodes: 1,
			Env: spec.Env{"NCCL_NVLS_ENABLE": "0"}, Func: spec.AllReduce, Bytes: gib4, BusBw: 370, Release: spec.V2_30_4},
		Figure{Name: "AllReduce, 8 × B300, NCCL's choice", Source: "NVIDIA/nccl#2140 (dgx-b200 stands for the HGX B300)", System: "dgx-b200", Nodes: 1,
			Env: spec.Env{}, Func: spec.AllReduce, Bytes: gib4, BusBw: 845, Release: spec.V2_30_4},
		Figure{Name: "AllReduce, 8 × B300, NVLS off", Source: "NVIDIA/nccl#2140 (dgx-b200 stands for the HGX B300)", System: "dgx-b200", Nodes: 1,
			Env: spec.Env{"NCCL_NVLS_ENABLE": "0"}, Func: spec.AllReduce, Bytes: gib4, BusBw: 695, Release: spec.V2_30_4},
		// One GB200 tray (4 GPUs of an NVL72 rack, one process) with
		// NCCL_ALGO=Ring, NCCL 2.25.1, in-place busbw at 4 GiB
		// (Azure_Results/ND_GB200_v6_results.md; the command is
		// Benchmarks/NVIDIA/NCCLBandwidth.py): ring traffic through the
		// rack's NVSwitches.
		Figure{Name: "Ring AllReduce, 4 × GB200 (one NVL72 tray)", Source: "Azure/AI-benchmarking-guide ND GB200 v6 results", System: "gb200-nvl72", Nodes: 1,
			Env: spec.Env{"NCCL_ALGO": "Ring"}, Func: spec.AllReduce, Bytes: gib4, BusBw: 673.06, Release: spec.V2_25_1},
		Figure{Name: "AllReduce, GB200 NVL72 as one 72-GPU NVLink domain", Source: "coreweave/nccl-tests README (NCCL 2.26.2)", System: "gb200-nvl72", Nodes: 18,
			Env: spec.Env{"NCCL_MNNVL_ENABLE": "1", "NCCL_CUMEM_ENABLE": "1"}, Func: spec.AllReduce, Bytes: gib4, BusBw: 839, Release: spec.V2_26_2},
	)
	return fs
}

// SimulateFigure simulates a figure with the machine's own profile, or
// with prof's generation parameters when prof is set and of the machine's
// generation, and returns its busbw and what ran.
func SimulateFigure(f Figure, v spec.Version, prof *sim.Profile) (busBw float64, ran string, err error) {
	r := FigureRow{Figure: f}
	err = r.simulate(v, prof)
	return r.Sim, r.Ran, err
}

// NVLSBound is what bounds a simulated single-node NVLS figure: every
// GPU's NVLink direction carrying the most NVLS bytes, at the NVLink
// rate NVLS achieves (the machine's NVLink bandwidth × its NVLS
// efficiency). Each GPU moves its S bytes into the switch and out of it,
// and a head also its 1/heads share of the reduced result, so the
// busiest direction carries S·(1 + 1/heads).
type NVLSBound struct {
	Ranks, Heads int
	// Busiest is the busiest NVLink direction's bytes; Rate its rate
	// (bytes/s) and Eff the NVLS efficiency in it.
	Busiest int64
	Rate    float64
	Eff     float64
	// LinkUs is Busiest at Rate; SimUs the simulated time of one
	// operation (the rest is latency, pipeline fill and launch).
	LinkUs, SimUs float64
}

// LinkBusBw is the busbw of the link bound alone (GB/s).
func (b *NVLSBound) LinkBusBw(bytes int64) float64 {
	_, bus := sim.Bandwidth(spec.AllReduce, bytes, b.Ranks, b.LinkUs*1e-6)
	return bus
}

// simulate simulates the row's figure into r: its busbw, what ran, the
// profile and, for NVLS, its bound.
func (r *FigureRow) simulate(v spec.Version, prof *sim.Profile) error {
	f := r.Figure
	if f.Release != 0 {
		v = f.Release
	}
	rs, err := spec.Load(v)
	if err != nil {
		return err
	}
	sys, err := spec.Preset(f.System, spec.PresetOptions{Nodes: f.Nodes, SHARP: f.SHARP})
	if err != nil {
		return err
	}
	if f.GPUs > 0 {
		for i := range sys.Nodes {
			sys.Nodes[i].Reshape(f.GPUs, 0, 0, 0)
		}
	}
	pc, err := plan.Build(rs, sys, f.Env, nil)
	if err != nil {
		return err
	}
	op := spec.Op{Func: f.Func, Count: f.Bytes / 4, DataType: spec.Float32, RedOp: spec.Sum}
	d, _, err := pc.Decide(op)
	if err != nil {
		return err
	}
	if d.Err != nil {
		return fmt.Errorf("NCCL returns %s", d.Err.Message)
	}
	o, sel, cfg, err := pc.Decided(d)
	if err != nil {
		return err
	}
	if prof != nil && prof.SM == cfg.Machine.SM {
		// a generation's parameters transfer to machines of that
		// generation only (sim.ProfileFor)
		cfg.Machine.Profile = prof.Generation()
	}
	s, err := algos.Build(o, sel, pc.Layout, algos.Options{})
	if err != nil {
		return err
	}
	res, err := sim.Simulate(s, cfg)
	if err != nil {
		return err
	}
	r.Sim, r.Profile = res.BusBw, cfg.Machine.Profile.Short()
	r.Ran = fmt.Sprintf("%s/%s, %d channels", d.Algo, d.Proto, d.NChannels)
	if f.Release != 0 {
		r.Ran = fmt.Sprintf("%s (NCCL %s)", r.Ran, f.Release)
	}
	if d.Algo == spec.NVLS && cfg.Machine.Nodes == 1 {
		m := &cfg.Machine
		b := &NVLSBound{Ranks: s.NRanks, Heads: len(pc.Layout.NVLSHeads), Busiest: res.MaxLinkBytes[sim.LinkNVLink.String()],
			Eff: m.NVLSEfficiency(), SimUs: res.TimeUs}
		b.Rate = float64(m.NVLinkBw) * b.Eff
		b.LinkUs = float64(b.Busiest) / b.Rate * 1e6
		r.Bound = b
	}
	return nil
}

// FigureRow is one compared figure.
type FigureRow struct {
	Figure
	Sim     float64
	Ran     string
	Profile string
	Err     error
	// Bound is what bounds a single-node NVLS figure (nil otherwise).
	Bound *NVLSBound
}

// CompareFigures simulates every figure (prof: as in SimulateFigure).
func CompareFigures(v spec.Version, prof *sim.Profile) []FigureRow {
	var out []FigureRow
	for _, f := range Figures() {
		r := FigureRow{Figure: f}
		if f.Pending == "" {
			r.Err = r.simulate(v, prof)
		}
		out = append(out, r)
	}
	return out
}

// WriteFigures writes the comparison as Markdown.
func WriteFigures(w io.Writer, rows []FigureRow, v spec.Version) {
	fmt.Fprintf(w, "Simulated with NCCL %s's decision (or the release a figure was measured with, where its source names one) at 4 GiB (float sum) and each preset's own profile.\n\n", v)
	fmt.Fprintf(w, "| figure | source | measured busbw | simulated busbw | error | NCCL ran | profile |\n|---|---|--:|--:|--:|---|---|\n")
	for _, r := range rows {
		switch {
		case r.Pending != "":
			fmt.Fprintf(w, "| %s | %s | %.0f | pending | — | — | %s |\n", r.Name, r.Source, r.BusBw, r.Pending)
		case r.Err != nil:
			fmt.Fprintf(w, "| %s | %s | %.0f | — | — | %v | |\n", r.Name, r.Source, r.BusBw, r.Err)
		default:
			fmt.Fprintf(w, "| %s | %s | %.0f | %.0f | %+.1f %% | %s | %s |\n", r.Name, r.Source, r.BusBw, r.Sim, 100*(r.Sim-r.BusBw)/r.BusBw, r.Ran, r.Profile)
		}
	}
	fmt.Fprintln(w)
}

// Within reports whether a simulated figure is within tol of the measured.
func (r FigureRow) Within(tol float64) bool {
	return r.Err == nil && r.Pending == "" && math.Abs(r.Sim-r.BusBw) <= tol*r.BusBw
}

// WriteNVLSBounds writes, for each single-node NVLS figure, what bounds its
// simulated time, and the NVLS efficiency its measured busbw implies at the
// same bound (the simulated rest held).
func WriteNVLSBounds(w io.Writer, rows []FigureRow) {
	fmt.Fprintf(w, "The single-node NVLS figures, simulated: each GPU's busiest NVLink direction carries S·(1 + 1/heads) for S bytes at NVLink bandwidth × NVLS efficiency; the rest is latency, pipeline fill and launch. *Implied efficiency* is the NVLS efficiency at which the model, its rest held, would give the measured busbw.\n\n")
	fmt.Fprintf(w, "| figure | ranks | heads | busiest / S | NVLS rate (GB/s) | link-bound time (µs) | simulated (µs) | rest (µs) | link-bound busbw | simulated busbw | measured busbw | efficiency | implied efficiency |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rows {
		b := r.Bound
		if b == nil || r.Err != nil {
			continue
		}
		rest := b.SimUs - b.LinkUs
		measUs := float64(r.Bytes) / (r.BusBw / r.Func.BusFactor(b.Ranks) * 1e3)
		fmt.Fprintf(w, "| %s | %d | %d | %.4f | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.2f | %.2f |\n",
			r.Name, b.Ranks, b.Heads, float64(b.Busiest)/float64(r.Bytes), b.Rate/1e9, b.LinkUs, b.SimUs, rest,
			b.LinkBusBw(r.Bytes), r.Sim, r.BusBw, b.Eff, b.Eff*b.LinkUs/(measUs-rest))
	}
	fmt.Fprintln(w)
}
