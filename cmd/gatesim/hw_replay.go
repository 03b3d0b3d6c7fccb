package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"time"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/hw"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

// replayRow is one replayed (algorithm, protocol, size).
type replayRow struct {
	Algo       string  `json:"algo"`
	Proto      string  `json:"proto"`
	Bytes      int64   `json:"bytes"`
	Channels   int     `json:"channels"`
	Rounds     int     `json:"rounds"`
	Steps      int     `json:"steps"`
	BitExact   bool    `json:"bit_exact"`
	Mismatch   string  `json:"mismatch,omitempty"`
	SimUs      float64 `json:"sim_us"`
	ModelUs    float64 `json:"nccl_model_us"`
	DeviceUs   float64 `json:"replay_device_us"`
	KernelUs   float64 `json:"replay_kernel_us"`
	ExchangeUs float64 `json:"replay_exchange_us"`
	WallUs     float64 `json:"replay_wall_us"`
	Messages   int     `json:"messages"`
	Transfers  int     `json:"transfers"`
	MsgBytes   uint64  `json:"message_bytes"`
	// RoundsUs are the per-round device times (kernel + exchange) of the
	// replay, µs.
	RoundsUs []float64 `json:"rounds_us,omitempty"`
}

func newHWReplayCmd(d *deps) *cobra.Command {
	var lf libFlags
	var sf systemFlags
	var ef envFlags
	var algoList, protoList, sizes, dtype, redop, ptxFile, out string
	var asJSON, perRound bool
	var seed uint64
	c := &cobra.Command{
		Use:   "replay",
		Short: "Run algos schedules on the GPUs as NCCL send/recv groups plus reduction kernels; check against sim bit for bit; time them",
		Long: `replay builds, for each algorithm and size, the schedule NCCL runs on this machine (spec's
communicator for --system/--topo and --env: its graphs and channels; algos) and executes it on the
local GPUs in rounds: in each round every program's next ready step runs as a task of the replay
kernel (hw/kernels/gatesim_replay.cu, loaded as PTX through the driver API), then the round's
messages move as one NCCL group of ncclSend/ncclRecv. The outputs must equal sim's data plane bit
for bit (float sums in the schedule's own order). Printed per size: the simulated time, NCCL's
cost-model time, and the replay's device time (per round the slowest kernel plus the slowest
group, CUDA events) and wall time. The replay serialises what NCCL overlaps, so its time bounds
the schedule's from above. One process must drive every GPU of the communicator.`,
		Example: `  gatesim hw replay --system h200x2 --env NCCL_NVLS_ENABLE=0 --algo ring,tree --sizes 1MiB:256MiB:x4`,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			ptx := hw.ReplayPTX
			if ptxFile != "" {
				b, err := readInput(ptxFile)
				if err != nil {
					return badInput(err)
				}
				ptx = b
			}
			if len(ptx) == 0 {
				return badInputf("no replay kernel: this binary embeds none; give --ptx (nvcc -ptx hw/kernels/gatesim_replay.cu)")
			}
			algs, err := parseList(algoList, "algo", []spec.Algo{spec.Ring, spec.Tree}, spec.ParseAlgo)
			if err != nil {
				return err
			}
			protos, err := parseList(protoList, "proto", []spec.Proto{spec.Simple}, spec.ParseProto)
			if err != nil {
				return err
			}
			szs, err := parseSweep(sizes)
			if err != nil {
				return err
			}
			dt, err := spec.ParseDataType(dtype)
			if err != nil {
				return badInput(err)
			}
			rop, err := spec.ParseRedOp(redop)
			if err != nil {
				return badInput(err)
			}
			sys, err := sf.load()
			if err != nil {
				return err
			}
			env, err := ef.build()
			if err != nil {
				return err
			}
			if err := loadGraphFile(sys, env); err != nil {
				return err
			}
			s, err := hw.Open(hw.Options{Search: lf.search(), AllowNVLS: lf.allowNVLS})
			if err != nil {
				return hwError(err)
			}
			defer s.Close()
			if err := s.LoadKernels(ptx, hw.ReplayKernel); err != nil {
				return hwError(err)
			}
			rel, ok := spec.Nearest(s.Version())
			if !ok {
				return badInputf("NCCL %s is older than every modelled release", s.Version())
			}
			comm, err := spec.Init(spec.MustLoad(rel), sys, env)
			if err != nil {
				return badInput(err)
			}
			if comm.Err != nil {
				return ncclRefusesComm(rel, comm)
			}
			if comm.NRanks != s.NRanks() {
				return badInputf("the machine has %d ranks, this process drives %d GPUs: describe the machine it runs on", comm.NRanks, s.NRanks())
			}
			l, err := algos.LayoutFromComm(comm)
			if err != nil {
				return badInput(err)
			}
			m, err := sim.MachineForComm(sys, comm)
			if err != nil {
				return badInput(err)
			}
			// NCCL connects send/recv peers lazily at their first use: one
			// untimed replay first, so no row pays for the connections
			if _, err := replayOne(s, comm, l, m, algs[0], protos[0], dt, rop, szs[0], seed); err != nil {
				return err
			}
			var rows []replayRow
			bad := 0
			for _, a := range algs {
				for _, p := range protos {
					for _, size := range szs {
						row, err := replayOne(s, comm, l, m, a, p, dt, rop, size, seed)
						if err != nil {
							return err
						}
						if !perRound {
							row.RoundsUs = nil
						}
						if !row.BitExact {
							bad++
						}
						rows = append(rows, row)
						fmt.Fprintf(d.stderr, "replayed %s/%s %s: %d rounds, bit-exact %v\n", a, p, spec.FormatBytes(size), row.Rounds, row.BitExact)
					}
				}
			}
			if out != "" {
				if err := writeJSONFile(out, rows); err != nil {
					return err
				}
			}
			if asJSON {
				if err := writeOut(d, "hw-replay", hwReplayOut{Rows: rows}); err != nil {
					return err
				}
			} else {
				writeReplay(d.stdout, rel, s, rows)
			}
			if bad > 0 {
				return &exitError{code: exitNo, err: fmt.Errorf("%d replay(s) differ from sim's data plane", bad)}
			}
			return nil
		},
	}
	lf.add(c)
	sf.add(c)
	ef.add(c)
	c.Flags().StringVar(&algoList, "algo", "ring,tree", "algorithms (Ring, Tree, or a list)")
	c.Flags().StringVar(&protoList, "proto", "simple", "protocols (their chunking shapes the schedule)")
	c.Flags().StringVar(&sizes, "sizes", "1MiB:256MiB:4", "FROM:TO[:FACTOR] nccl-tests sizes")
	c.Flags().StringVar(&dtype, "dtype", "float32", "datatype: int8 … uint64, float32, float64")
	c.Flags().StringVar(&redop, "redop", "sum", "reduction: sum, prod, max, min")
	c.Flags().StringVar(&ptxFile, "ptx", "", "replay kernel PTX (default: the embedded one)")
	c.Flags().StringVar(&out, "out", "", "also write the rows as JSON to this file")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().BoolVar(&perRound, "rounds", false, "keep the per-round device times in the JSON")
	c.Flags().Uint64Var(&seed, "seed", 1, "seed of the random inputs")
	return c
}

// replayOne replays one AllReduce size and compares it with sim.
func replayOne(s *hw.Session, comm *spec.Comm, l *algos.Layout, m sim.Machine, a spec.Algo, p spec.Proto, dt spec.DataType, rop spec.RedOp, size int64, seed uint64) (replayRow, error) {
	row := replayRow{Algo: a.String(), Proto: p.String(), Bytes: size}
	op, err := spec.OpFromBytes(spec.AllReduce, size, dt, rop, 0)
	if err != nil {
		return row, badInput(err)
	}
	sel := algos.Selection{Algo: a, Proto: p, NChannels: algos.Channels(l, spec.AllReduce, a, p, size)}
	sc, err := algos.Build(op, sel, l, algos.Options{})
	if err != nil {
		return row, badInput(err)
	}
	row.Channels = sc.NChannels
	plan, err := hw.PlanReplay(sc)
	if err != nil {
		return row, badInput(err)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(size)))
	inputs := make([][]byte, sc.NRanks)
	for r := range inputs {
		inputs[r] = randomValues(rng, dt, sc.InputCount())
	}
	want, err := sim.Execute(sc, inputs, nil)
	if err != nil {
		return row, err
	}
	if res, err := sim.Simulate(sc, sim.Config{Machine: m}); err == nil {
		row.SimUs = res.TimeUs
	}
	if d, _, err := comm.Select(op); err == nil {
		for _, c := range d.Costs {
			if c.Algo == a && c.Proto == p && c.Usable {
				row.ModelUs = c.TimeUs
			}
		}
	}
	start := time.Now()
	res, err := hw.RunReplay(s, plan, inputs, 264, 512)
	if err != nil {
		return row, hwError(err)
	}
	row.WallUs = float64(time.Since(start).Microseconds())
	row.Rounds, row.Steps, row.DeviceUs, row.Messages, row.MsgBytes, row.Transfers = res.Rounds, res.Steps, res.DeviceUs, res.Messages, res.MessageBytes, res.Transfers
	for i := range res.KernelMs {
		row.KernelUs += res.KernelMs[i] * 1000
		row.ExchangeUs += res.ExchangeMs[i] * 1000
		row.RoundsUs = append(row.RoundsUs, (res.KernelMs[i]+res.ExchangeMs[i])*1000)
	}
	row.BitExact = true
	for r := range want {
		if string(res.Output[r]) != string(want[r]) {
			row.BitExact = false
			for i := range want[r] {
				if res.Output[r][i] != want[r][i] {
					row.Mismatch = fmt.Sprintf("rank %d byte %d: replay %#x, sim %#x", r, i, res.Output[r][i], want[r][i])
					break
				}
			}
			break
		}
	}
	return row, nil
}

// randomValues are n finite values of dt (normal floats scaled by 1000, so
// sums round; any bits for integers).
func randomValues(rng *rand.Rand, dt spec.DataType, n int64) []byte {
	sz := int64(dt.Size())
	b := make([]byte, n*sz)
	for i := range n {
		switch dt {
		case spec.Float32:
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(rng.NormFloat64()*1000)))
		case spec.Float64:
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(rng.NormFloat64()*1000))
		default:
			for k := range sz {
				b[i*sz+k] = byte(rng.IntN(256))
			}
		}
	}
	return b
}

func writeReplay(w io.Writer, rel spec.Version, s *hw.Session, rows []replayRow) {
	nccl, _ := s.Libraries()
	fmt.Fprintf(w, "schedule replay on %d GPU(s), %s (modelled as %s)\n", s.NRanks(), nccl, rel)
	var tr [][]string
	for _, r := range rows {
		ok := "yes"
		if !r.BitExact {
			ok = "NO: " + r.Mismatch
		}
		tr = append(tr, []string{r.Algo + "/" + r.Proto, spec.FormatBytes(r.Bytes), itoa(r.Channels), itoa(r.Rounds), ok,
			fmt.Sprintf("%.1f", r.SimUs), fmt.Sprintf("%.1f", r.ModelUs), fmt.Sprintf("%.1f", r.DeviceUs),
			fmt.Sprintf("%.1f + %.1f", r.KernelUs, r.ExchangeUs), fmt.Sprintf("%.0f", r.WallUs)})
	}
	_ = asciiTable(w, []string{"schedule", "size", "channels", "rounds", "bit-exact vs sim", "sim µs", "NCCL model µs", "replay device µs", "kernels + groups µs", "replay wall µs"}, tr, 60)
	fmt.Fprintln(w, strings.TrimSpace(`
device time = Σ over rounds of (slowest task kernel + slowest NCCL group), CUDA events; the replay
runs steps round by round where NCCL pipelines them, so it bounds the schedule's time from above.`))
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
