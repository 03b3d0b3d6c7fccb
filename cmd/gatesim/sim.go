package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

// simVerifyLimit bounds --verify: the data plane holds every rank's buffers
// and a symbolic copy.
const simVerifyLimit = 1 << 22

type simFlags struct {
	system, topo, nccl, coll, bytes, algo, proto, dtype, redop, trace, sweep string
	channels, commChannels, ranks, root                                      int
	verify, jsonOut, inPlace, sharp                                          bool
}

func newSimCmd(d *deps) *cobra.Command {
	var fl simFlags
	c := &cobra.Command{
		Use:   "sim",
		Short: "Simulate a collective: schedule, timing, bytes per link, optional data-plane verification",
		Long: `sim builds the schedule NCCL runs for one collective (package algos) and
simulates it on a machine (package sim): simulated time, nccl-tests algbw and
busbw, wire bytes per link class and injected network bytes, optionally a
data-plane run with real arithmetic checked against a reference (--verify) and
a Chrome trace of the timeline (--trace, opens in Perfetto).

--bytes is nccl-tests' size: the per-rank buffer for AllReduce, Broadcast,
Reduce and SendRecv, the whole gathered (scattered) buffer for AllGather
(ReduceScatter). Units: B, K/KiB, M/MiB, G/GiB (powers of 1024), KB/MB/GB
(powers of 1000).

This branch has no selection model: --algo and --proto are required.
--channels defaults to NCCL's enqueue rule (topoGetAlgoInfo) for the
communicator's channels.

--sweep FROM:TO[:FACTOR] prints a Markdown table of simulated times instead:
one row per algorithm × protocol (--algo and --proto take comma-separated
lists or "all"), one column per size from FROM to TO multiplying by FACTOR
(default 2), a row for NCCL's cost-model time beside each (n/a on this branch),
and the combinations that do not run on the machine with the reason.

Machines (--system): ` + presetNames() + `; --topo reads a spec.System JSON file.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSim(d, &fl) },
	}
	f := c.Flags()
	f.StringVar(&fl.system, "system", "", "machine preset ("+presetNames()+")")
	f.StringVar(&fl.topo, "topo", "", "machine description file: a spec.System as JSON")
	f.StringVar(&fl.nccl, "nccl", "2.28.9", "NCCL release whose constants shape the schedule")
	f.StringVar(&fl.coll, "coll", "allreduce", "collective: allreduce, allgather, reducescatter, broadcast, reduce, sendrecv")
	f.StringVar(&fl.bytes, "bytes", "256MiB", "nccl-tests size of the operation")
	f.StringVar(&fl.algo, "algo", "", "algorithm: Ring, Tree, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT (required)")
	f.StringVar(&fl.proto, "proto", "", "protocol: LL, LL128, Simple (required)")
	f.IntVar(&fl.channels, "channels", 0, "channels of the operation (default: NCCL's enqueue rule)")
	f.IntVar(&fl.commChannels, "comm-channels", 0, "channels of the communicator (default: 24 on one node, 16 across nodes, as NCCL's search finds on H100/H200 nodes)")
	f.StringVar(&fl.dtype, "dtype", "float32", "datatype")
	f.StringVar(&fl.redop, "redop", "sum", "reduction: sum, prod, max, min, avg, premulsum")
	f.IntVar(&fl.ranks, "ranks", 0, "use this many GPUs of the machine (a node's first GPUs, or whole nodes)")
	f.IntVar(&fl.root, "root", 0, "root rank of Broadcast and Reduce")
	f.BoolVar(&fl.verify, "verify", false, "run the data plane on random data and check every element against the reference")
	f.StringVar(&fl.trace, "trace", "", "write the timeline as Chrome trace JSON to this file")
	f.BoolVar(&fl.jsonOut, "json", false, "print JSON")
	f.BoolVar(&fl.inPlace, "inplace", false, "run in place")
	f.StringVar(&fl.sweep, "sweep", "", "FROM:TO[:FACTOR]: a Markdown table of simulated times over sizes, algorithms and protocols")
	f.BoolVar(&fl.sharp, "sharp", false, "the network switch reduces in flight (SHARP), enabling CollNet")
	return c
}

func presetNames() string {
	var n []string
	for _, m := range sim.Presets() {
		n = append(n, m.Name)
	}
	return strings.Join(n, ", ")
}

// parseBytes reads 256MiB, 4K, 1GB, 1024.
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	units := []struct {
		suf string
		m   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000000}, {"GB", 1000000000}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	for _, u := range units {
		if strings.HasSuffix(t, u.suf) {
			mult, t = u.m, strings.TrimSuffix(t, u.suf)
			break
		}
	}
	v, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil || v < 0 || v > (1<<50)/mult {
		return 0, fmt.Errorf("bad size %q: expected a non-negative number with an optional unit (B, K, KiB, M, MiB, G, GiB, KB, MB, GB)", s)
	}
	return v * mult, nil
}

func loadMachine(fl *simFlags) (sim.Machine, error) {
	if (fl.system == "") == (fl.topo == "") {
		return sim.Machine{}, badInputf("give exactly one of --system PRESET (%s) or --topo FILE", presetNames())
	}
	var m sim.Machine
	if fl.system != "" {
		p, err := sim.Preset(fl.system)
		if err != nil {
			return m, badInput(err)
		}
		m = p
	} else {
		b, err := os.ReadFile(fl.topo)
		if err != nil {
			return m, badInput(err)
		}
		if t := strings.TrimSpace(string(b)); strings.HasPrefix(t, "<") {
			return m, badInputf("%s: NCCL topology XML needs spec/topo's parser, which is not on this branch: give a spec.System JSON file", fl.topo)
		}
		var s spec.System
		dec := json.NewDecoder(strings.NewReader(string(b)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return m, badInputf("%s: %v: expected a spec.System JSON object", fl.topo, err)
		}
		if s.Name == "" {
			s.Name = fl.topo
		}
		p, err := sim.MachineFromSystem(&s)
		if err != nil {
			return m, badInputf("%s: %v", fl.topo, err)
		}
		m = p
	}
	if fl.sharp {
		m.SHARP = true
	}
	if fl.ranks > 0 {
		switch {
		case fl.ranks <= m.GPUsPerNode:
			m.Nodes, m.GPUsPerNode = 1, fl.ranks
			m.NICs = min(m.NICs, fl.ranks)
		case fl.ranks%m.GPUsPerNode == 0:
			m.Nodes = fl.ranks / m.GPUsPerNode
		default:
			return m, badInputf("--ranks %d: expected at most %d (one node) or a multiple of the %d GPUs per node", fl.ranks, m.GPUsPerNode, m.GPUsPerNode)
		}
	}
	if m.Nodes > 1 && m.NICs == 0 {
		return m, badInputf("machine %s has %d nodes and no NICs", m.Name, m.Nodes)
	}
	return m, nil
}

// simReport is what sim prints.
type simReport struct {
	Machine      sim.Machine       `json:"machine"`
	NCCL         string            `json:"nccl"`
	Op           spec.Op           `json:"op"`
	Selection    string            `json:"selection"`
	ChannelsFrom string            `json:"channels_from"`
	Result       *sim.Result       `json:"result"`
	ModelTimeUs  *float64          `json:"nccl_model_time_us"`
	ModelNote    string            `json:"nccl_model_note"`
	Verification *sim.Verification `json:"verification,omitempty"`
}

// simSetup is what every simulation of one invocation shares.
type simSetup struct {
	m      sim.Machine
	v      spec.Version
	f      spec.Func
	dt     spec.DataType
	rop    spec.RedOp
	l      *algos.Layout
	commCh int
	n      int
}

func newSimSetup(fl *simFlags) (*simSetup, error) {
	m, err := loadMachine(fl)
	if err != nil {
		return nil, err
	}
	x := &simSetup{m: m, n: m.Nodes * m.GPUsPerNode}
	if x.v, err = spec.ParseVersion(fl.nccl); err != nil {
		return nil, badInput(err)
	}
	if x.f, err = spec.ParseFunc(fl.coll); err != nil {
		return nil, badInput(err)
	}
	if x.f == spec.AllToAll {
		return nil, badInputf("--coll alltoall has no schedule builder yet: expected one of allreduce, allgather, reducescatter, broadcast, reduce, sendrecv")
	}
	if x.dt, err = spec.ParseDataType(fl.dtype); err != nil {
		return nil, badInput(err)
	}
	if x.rop, err = spec.ParseRedOp(fl.redop); err != nil {
		return nil, badInput(err)
	}
	x.commCh = fl.commChannels
	if x.commCh == 0 {
		x.commCh = 24
		if m.Nodes > 1 {
			x.commCh = 16
		}
	}
	if x.l, err = algos.DefaultLayout(x.v, m.Nodes, m.GPUsPerNode, x.commCh); err != nil {
		return nil, badInput(err)
	}
	if m.SM >= 100 {
		x.l.NVLSChannels = 24
		if m.Nodes > 1 {
			x.l.NVLSChannels = 32
		}
	}
	x.l.MinCompCap = m.SM
	return x, nil
}

// op is the operation of nccl-tests size bytes.
func (x *simSetup) op(size int64, root int) (spec.Op, error) {
	per := int64(x.dt.Size())
	if x.f == spec.AllGather || x.f == spec.ReduceScatter {
		per *= int64(x.n)
	}
	if size%per != 0 {
		return spec.Op{}, badInputf("--bytes %d is not a whole number of %s elements%s (%d bytes each step)", size, x.dt, map[bool]string{true: " per rank", false: ""}[per != int64(x.dt.Size())], per)
	}
	return spec.Op{Func: x.f, Count: size / per, DataType: x.dt, RedOp: x.rop, Root: root}, nil
}

// selection fills the channel count from NCCL's enqueue rule when it is 0.
func (x *simSetup) selection(algo spec.Algo, proto spec.Proto, channels int, size int64) (algos.Selection, string) {
	sel := algos.Selection{Algo: algo, Proto: proto, NChannels: channels}
	if channels != 0 {
		return sel, "--channels"
	}
	sel.NChannels = algos.Channels(x.l, x.f, algo, proto, size)
	return sel, "NCCL's enqueue rule for " + strconv.Itoa(x.commCh) + " communicator channels"
}

func runSim(d *deps, fl *simFlags) error {
	if fl.sweep != "" {
		return runSweep(d, fl)
	}
	x, err := newSimSetup(fl)
	if err != nil {
		return err
	}
	if fl.algo == "" || fl.proto == "" {
		return badInputf("--algo and --proto are required: NCCL's selection model (spec's Comm.Select) is not on this branch")
	}
	algo, err := spec.ParseAlgo(fl.algo)
	if err != nil {
		return badInput(err)
	}
	proto, err := spec.ParseProto(fl.proto)
	if err != nil {
		return badInput(err)
	}
	size, err := parseBytes(fl.bytes)
	if err != nil {
		return badInput(err)
	}
	op, err := x.op(size, fl.root)
	if err != nil {
		return err
	}
	m, n, f, rop := x.m, x.n, x.f, x.rop
	sel, from := x.selection(algo, proto, fl.channels, size)
	s, err := algos.Build(op, sel, x.l, algos.Options{InPlace: fl.inPlace})
	if err != nil {
		return badInput(err)
	}
	sx, err := sim.New(s, sim.Config{Machine: m, Trace: fl.trace != ""})
	if err != nil {
		return badInput(err)
	}
	res, err := sx.Run()
	if err != nil {
		return err
	}
	rep := &simReport{Machine: m, NCCL: x.v.String(), Op: op, Selection: sel.String(), ChannelsFrom: from, Result: res,
		ModelNote: simModelNote}
	if fl.trace != "" {
		w, err := os.Create(fl.trace)
		if err != nil {
			return badInput(err)
		}
		meta := map[string]string{"operation": fmt.Sprintf("%s %d B %s %s", f, size, algo, proto), "machine": m.Name,
			"note": "one process per representative rank: ranks of a symmetry class share its timeline"}
		werr := sim.WriteChromeTrace(w, sx.Trace(), meta)
		if cerr := w.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return werr
		}
	}
	if fl.verify {
		if int64(n)*s.OutputCount() > simVerifyLimit || int64(n)*s.InputCount() > simVerifyLimit {
			return badInputf("--verify holds every rank's buffers: %d ranks × %d elements is above the %d-element limit; lower --bytes or --ranks", n, max(s.InputCount(), s.OutputCount()), simVerifyLimit)
		}
		rng := rand.New(rand.NewPCG(uint64(size), uint64(n)))
		inputs := make([][]byte, n)
		for r := range inputs {
			inputs[r] = make([]byte, s.InputCount()*int64(s.Unit))
			for i := range inputs[r] {
				inputs[r][i] = byte(rng.IntN(256))
			}
		}
		var scalars []float64
		if rop == spec.PreMulSum {
			for r := 0; r < n; r++ {
				scalars = append(scalars, float64(r%3+1))
			}
		}
		vr, err := sim.Verify(s, inputs, scalars)
		if err != nil {
			return err
		}
		rep.Verification = vr
	}
	if fl.jsonOut {
		enc := json.NewEncoder(d.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		printSim(d.stdout, rep, fl)
	}
	if rep.Verification != nil && !rep.Verification.OK {
		return &exitError{code: exitNo, err: errors.New("verification failed: the data plane's result differs from the reference")}
	}
	return nil
}

// simModelNote says why the NCCL model column is empty.
const simModelNote = "NCCL's cost-model time needs spec's tuning model (spec/tuning*.go), which is not on this branch"

// parseList reads a comma-separated list or "all".
func parseList[T any](s, what string, all []T, parse func(string) (T, error)) ([]T, error) {
	if strings.EqualFold(strings.TrimSpace(s), "all") || s == "" {
		return all, nil
	}
	var out []T
	for _, x := range strings.Split(s, ",") {
		v, err := parse(strings.TrimSpace(x))
		if err != nil {
			return nil, badInputf("--%s %q: %v", what, s, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseSweep reads FROM:TO[:FACTOR].
func parseSweep(s string) ([]int64, error) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, badInputf("--sweep %q: expected FROM:TO[:FACTOR], e.g. 4KiB:4GiB:4", s)
	}
	from, err := parseBytes(parts[0])
	if err != nil {
		return nil, badInputf("--sweep: %v", err)
	}
	to, err := parseBytes(parts[1])
	if err != nil {
		return nil, badInputf("--sweep: %v", err)
	}
	factor := int64(2)
	if len(parts) == 3 {
		if factor, err = strconv.ParseInt(parts[2], 10, 64); err != nil || factor < 2 {
			return nil, badInputf("--sweep %q: factor %q: expected an integer of at least 2", s, parts[2])
		}
	}
	if from <= 0 || to < from {
		return nil, badInputf("--sweep %q: expected 0 < FROM <= TO", s)
	}
	var sizes []int64
	for x := from; x <= to; x *= factor {
		sizes = append(sizes, x)
		if len(sizes) > 64 {
			return nil, badInputf("--sweep %q: more than 64 sizes", s)
		}
	}
	return sizes, nil
}

// runSweep prints a Markdown table of simulated times.
func runSweep(d *deps, fl *simFlags) error {
	if fl.verify || fl.trace != "" || fl.jsonOut {
		return badInputf("--sweep prints a table: --verify, --trace and --json apply to one simulation")
	}
	x, err := newSimSetup(fl)
	if err != nil {
		return err
	}
	sizes, err := parseSweep(fl.sweep)
	if err != nil {
		return err
	}
	allAlgos := []spec.Algo{spec.Ring, spec.Tree, spec.CollNetDirect, spec.CollNetChain, spec.NVLS, spec.NVLSTree, spec.PAT}
	as, err := parseList(fl.algo, "algo", allAlgos, spec.ParseAlgo)
	if err != nil {
		return err
	}
	ps, err := parseList(fl.proto, "proto", []spec.Proto{spec.LL, spec.LL128, spec.Simple}, spec.ParseProto)
	if err != nil {
		return err
	}
	w := d.stdout
	fmt.Fprintf(w, "%s %s %s on %s (%d node(s) × %d GPUs), NCCL %s, %d communicator channels; simulated time in µs\n\n",
		x.f, x.dt.Short(), x.rop.Short(), x.m.Name, x.m.Nodes, x.m.GPUsPerNode, x.v, x.commCh)
	fmt.Fprintf(w, "| algorithm | protocol | time |")
	for _, sz := range sizes {
		fmt.Fprintf(w, " %s |", sizeLabel(sz))
	}
	fmt.Fprintf(w, "\n|---|---|---|%s\n", strings.Repeat("--:|", len(sizes)))
	var skipped []string
	for _, a := range as {
		for _, p := range ps {
			var cells []string
			var why error
			for _, sz := range sizes {
				op, err := x.op(sz, fl.root)
				if err != nil {
					cells = append(cells, "—")
					continue
				}
				sel, _ := x.selection(a, p, fl.channels, sz)
				s, err := algos.Build(op, sel, x.l, algos.Options{InPlace: fl.inPlace})
				if err == nil {
					var res *sim.Result
					if res, err = sim.Simulate(s, sim.Config{Machine: x.m}); err == nil {
						cells = append(cells, fmt.Sprintf("%.1f", res.TimeUs))
						continue
					}
				}
				why = err
				break
			}
			if why != nil {
				skipped = append(skipped, fmt.Sprintf("%s/%s: %v", a, p, why))
				continue
			}
			fmt.Fprintf(w, "| %s | %s | sim | %s |\n", a, p, strings.Join(cells, " | "))
			fmt.Fprintf(w, "| %s | %s | NCCL model | %s |\n", a, p, strings.Repeat("n/a | ", len(sizes))[:len(sizes)*6-3])
		}
	}
	if len(skipped) > 0 {
		fmt.Fprintf(w, "\nNot run on this machine:\n\n")
		for _, s := range skipped {
			fmt.Fprintf(w, "- %s\n", s)
		}
	}
	fmt.Fprintf(w, "\nNCCL model: %s.\n", simModelNote)
	return nil
}

// sizeLabel prints a power-of-two size the nccl-tests way (4K, 16M, 1G).
func sizeLabel(b int64) string {
	for _, u := range []struct {
		suf string
		m   int64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if b >= u.m && b%u.m == 0 {
			return strconv.FormatInt(b/u.m, 10) + u.suf
		}
	}
	return strconv.FormatInt(b, 10)
}

func human(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.2f MiB", b/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.2f KiB", b/(1<<10))
	}
	return fmt.Sprintf("%.0f B", b)
}

func printSim(w io.Writer, r *simReport, fl *simFlags) {
	res := r.Result
	fmt.Fprintf(w, "%s %s %s %s on %s (%d node(s) × %d GPUs), NCCL %s\n", res.Func, human(float64(res.Bytes)), r.Op.DataType.Short(), r.Op.RedOp.Short(),
		r.Machine.Name, r.Machine.Nodes, r.Machine.GPUsPerNode, r.NCCL)
	fmt.Fprintf(w, "  selection        %s (channels: %s; %d used)\n", r.Selection, r.ChannelsFrom, res.Channels)
	fmt.Fprintf(w, "  simulated time   %.2f us\n", res.TimeUs)
	fmt.Fprintf(w, "  algbw            %.2f GB/s\n", res.AlgBw)
	fmt.Fprintf(w, "  busbw            %.2f GB/s\n", res.BusBw)
	if r.ModelTimeUs != nil {
		fmt.Fprintf(w, "  NCCL model time  %.2f us\n", *r.ModelTimeUs)
	} else {
		fmt.Fprintf(w, "  NCCL model time  n/a (%s)\n", r.ModelNote)
	}
	fmt.Fprintf(w, "  wire bytes per link class (all links, both directions; busiest link):\n")
	var classes []string
	for c := range res.LinkBytes {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		fmt.Fprintf(w, "    %-7s %12s   busiest %s\n", c, human(float64(res.LinkBytes[c])), human(float64(res.MaxLinkBytes[c])))
	}
	fmt.Fprintf(w, "  network injected %s in all, %s per node\n", human(float64(res.NetBytes)), human(res.NetBytesPerNode))
	switch {
	case r.Verification == nil:
		fmt.Fprintf(w, "  verification     not requested (--verify)\n")
	case r.Verification.OK:
		fmt.Fprintf(w, "  verification     OK: %d elements match the reference (%s)\n", r.Verification.Checked, r.Verification.Reference)
	default:
		fmt.Fprintf(w, "  verification     FAILED (%s reference):\n", r.Verification.Reference)
		for _, p := range r.Verification.Problems {
			fmt.Fprintf(w, "    %s\n", p)
		}
	}
	reps := 0
	for _, x := range res.Representatives {
		reps += x
	}
	fmt.Fprintf(w, "  simulated        %d events; %d channel class(es) %v standing for %d channels; %d representative ranks of %d per channel class %v\n",
		res.Events, res.ChannelClasses, res.ChannelMultiplicity, res.Channels, reps, res.Ranks, res.Representatives)
	if fl.trace != "" {
		fmt.Fprintf(w, "  trace            %s (Chrome trace JSON: open in https://ui.perfetto.dev)\n", fl.trace)
	}
}
