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
	system, topo, nccl, coll, bytes, algo, proto, dtype, redop, trace string
	channels, commChannels, ranks, root                               int
	verify, jsonOut, inPlace, sharp                                   bool
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

func runSim(d *deps, fl *simFlags) error {
	m, err := loadMachine(fl)
	if err != nil {
		return err
	}
	v, err := spec.ParseVersion(fl.nccl)
	if err != nil {
		return badInput(err)
	}
	f, err := spec.ParseFunc(fl.coll)
	if err != nil {
		return badInput(err)
	}
	if f == spec.AllToAll {
		return badInputf("--coll alltoall has no schedule builder yet: expected one of allreduce, allgather, reducescatter, broadcast, reduce, sendrecv")
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
	dt, err := spec.ParseDataType(fl.dtype)
	if err != nil {
		return badInput(err)
	}
	rop, err := spec.ParseRedOp(fl.redop)
	if err != nil {
		return badInput(err)
	}
	size, err := parseBytes(fl.bytes)
	if err != nil {
		return badInput(err)
	}
	n := m.Nodes * m.GPUsPerNode
	per := int64(dt.Size())
	if f == spec.AllGather || f == spec.ReduceScatter {
		per *= int64(n)
	}
	if size%per != 0 {
		return badInputf("--bytes %d is not a whole number of %s elements%s (%d bytes each step)", size, dt, map[bool]string{true: " per rank", false: ""}[per != int64(dt.Size())], per)
	}
	op := spec.Op{Func: f, Count: size / per, DataType: dt, RedOp: rop, Root: fl.root}
	commCh := fl.commChannels
	if commCh == 0 {
		commCh = 24
		if m.Nodes > 1 {
			commCh = 16
		}
	}
	l, err := algos.DefaultLayout(v, m.Nodes, m.GPUsPerNode, commCh)
	if err != nil {
		return badInput(err)
	}
	if m.SM >= 100 {
		l.NVLSChannels = 24
		if m.Nodes > 1 {
			l.NVLSChannels = 32
		}
	}
	l.MinCompCap = m.SM
	sel := algos.Selection{Algo: algo, Proto: proto, NChannels: fl.channels}
	from := "--channels"
	if fl.channels == 0 {
		nBytes := size
		sel.NChannels = algos.Channels(l, f, algo, proto, nBytes)
		from = "NCCL's enqueue rule for " + strconv.Itoa(commCh) + " communicator channels"
	}
	s, err := algos.Build(op, sel, l, algos.Options{InPlace: fl.inPlace})
	if err != nil {
		return badInput(err)
	}
	x, err := sim.New(s, sim.Config{Machine: m, Trace: fl.trace != ""})
	if err != nil {
		return badInput(err)
	}
	res, err := x.Run()
	if err != nil {
		return err
	}
	rep := &simReport{Machine: m, NCCL: v.String(), Op: op, Selection: sel.String(), ChannelsFrom: from, Result: res,
		ModelNote: "NCCL's cost-model time needs spec's tuning model (spec/tuning*.go), which is not on this branch"}
	if fl.trace != "" {
		w, err := os.Create(fl.trace)
		if err != nil {
			return badInput(err)
		}
		meta := map[string]string{"operation": fmt.Sprintf("%s %d B %s %s", f, size, algo, proto), "machine": m.Name,
			"note": "one process per representative rank: ranks of a symmetry class share its timeline"}
		werr := sim.WriteChromeTrace(w, x.Trace(), meta)
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
