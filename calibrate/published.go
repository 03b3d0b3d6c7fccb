package calibrate

import (
	"fmt"
	"io"
	"math"

	"github.com/gatesim/gatesim/algos"
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
	// Pending says why the figure cannot be simulated yet ("": it can).
	Pending string
}

const gib4 = 4 << 30

// Figures are the published figures docs/calibration.md compares with,
// at 4 GiB, float sum, NCCL 2.22.3 (the design's reference release).
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
		Figure{Name: "AllReduce, GB200 NVL72 as one 72-GPU NVLink domain", Source: "coreweave/nccl-tests README", System: "gb200-nvl72", Nodes: 18,
			Env: spec.Env{}, Func: spec.AllReduce, Bytes: gib4, BusBw: 839,
			Pending: "the 72-GPU MNNVL domain as one NCCL node is not simulated on this branch"},
	)
	return fs
}

// SimulateFigure simulates a figure with the machine's own profile, or
// with prof's generation parameters when prof is set, and returns its
// busbw and what ran.
func SimulateFigure(f Figure, v spec.Version, prof *sim.Profile) (busBw float64, ran string, err error) {
	rs, err := spec.Load(v)
	if err != nil {
		return 0, "", err
	}
	sys, err := spec.Preset(f.System, spec.PresetOptions{Nodes: f.Nodes, SHARP: f.SHARP})
	if err != nil {
		return 0, "", err
	}
	if f.GPUs > 0 {
		for i := range sys.Nodes {
			sys.Nodes[i].Reshape(f.GPUs, 0, 0, 0)
		}
	}
	comm, err := spec.Init(rs, sys, f.Env)
	if err != nil {
		return 0, "", err
	}
	if comm.Err != nil {
		return 0, "", fmt.Errorf("NCCL refuses the communicator: %s", comm.Err.Message)
	}
	op := spec.Op{Func: f.Func, Count: f.Bytes / 4, DataType: spec.Float32, RedOp: spec.Sum}
	d, _, err := comm.Select(op)
	if err != nil {
		return 0, "", err
	}
	if d.Err != nil {
		return 0, "", fmt.Errorf("NCCL returns %s", d.Err.Message)
	}
	o, sel, err := algos.FromDecision(d)
	if err != nil {
		return 0, "", err
	}
	l, err := algos.LayoutFromComm(comm)
	if err != nil {
		return 0, "", err
	}
	s, err := algos.Build(o, sel, l, algos.Options{})
	if err != nil {
		return 0, "", err
	}
	m, err := sim.MachineFromSystem(sys)
	if err != nil {
		return 0, "", err
	}
	m.SHARP, m.NVLS = comm.CollNetSupport, comm.NVLSSupport
	if prof != nil {
		m.Profile = prof.Generation()
	}
	cfg := sim.Config{Machine: m}
	cfg.FromDecision(comm, d)
	res, err := sim.Simulate(s, cfg)
	if err != nil {
		return 0, "", err
	}
	return res.BusBw, fmt.Sprintf("%s/%s, %d channels", d.Algo, d.Proto, d.NChannels), nil
}

// FigureRow is one compared figure.
type FigureRow struct {
	Figure
	Sim     float64
	Ran     string
	Profile string
	Err     error
}

// CompareFigures simulates every figure (prof: as in SimulateFigure).
func CompareFigures(v spec.Version, prof *sim.Profile) []FigureRow {
	var out []FigureRow
	for _, f := range Figures() {
		r := FigureRow{Figure: f}
		if f.Pending == "" {
			r.Sim, r.Ran, r.Err = SimulateFigure(f, v, prof)
			if prof != nil {
				r.Profile = prof.Generation().Short()
			} else if sys, err := spec.Preset(f.System, spec.PresetOptions{}); err == nil {
				if m, err := sim.MachineFromSystem(sys); err == nil {
					r.Profile = m.Profile.Short()
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// WriteFigures writes the comparison as Markdown.
func WriteFigures(w io.Writer, rows []FigureRow, v spec.Version) {
	fmt.Fprintf(w, "Simulated with NCCL %s's decision at 4 GiB (float sum) and each preset's own profile.\n\n", v)
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
