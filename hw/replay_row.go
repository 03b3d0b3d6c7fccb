package hw

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// ReplayRow is one replayed (algorithm, protocol, size): the replay's
// times beside sim's and NCCL's cost model's, and whether its outputs
// equal sim's data plane bit for bit.
type ReplayRow struct {
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

// ReplayInputError is a replay the schedule's side refuses (no schedule,
// no plan for it), as opposed to the GPUs failing.
type ReplayInputError struct{ Err error }

func (e *ReplayInputError) Error() string { return e.Err.Error() }
func (e *ReplayInputError) Unwrap() error { return e.Err }

// ReplayAllReduce replays one AllReduce of size bytes on the executor as
// algorithm a and protocol p (the schedule NCCL runs on c), on random
// inputs of seed, and compares it with sim's data plane and timing.
func ReplayAllReduce(e Executor, c *plan.Comm, a spec.Algo, p spec.Proto, dt spec.DataType, rop spec.RedOp, size int64, seed uint64) (ReplayRow, error) {
	row := ReplayRow{Algo: a.String(), Proto: p.String(), Bytes: size}
	op, err := spec.OpFromBytes(spec.AllReduce, size, dt, rop, 0)
	if err != nil {
		return row, &ReplayInputError{err}
	}
	sel := algos.Selection{Algo: a, Proto: p, NChannels: algos.Channels(c.Layout, spec.AllReduce, a, p, size)}
	sc, err := algos.Build(op, sel, c.Layout, algos.Options{})
	if err != nil {
		return row, &ReplayInputError{err}
	}
	row.Channels = sc.NChannels
	rp, err := PlanReplay(sc)
	if err != nil {
		return row, &ReplayInputError{err}
	}
	rng := rand.New(rand.NewPCG(seed, uint64(size)))
	inputs := make([][]byte, sc.NRanks)
	for r := range inputs {
		inputs[r] = RandomValues(rng, dt, sc.InputCount())
	}
	want, err := sim.Execute(sc, inputs, nil)
	if err != nil {
		return row, err
	}
	if res, err := sim.Simulate(sc, sim.Config{Machine: c.Machine}); err == nil {
		row.SimUs = res.TimeUs
	}
	if d, _, err := c.Comm.Select(op); err == nil {
		if us, _, ok := plan.ModelTime(d, a, p); ok {
			row.ModelUs = us
		}
	}
	start := time.Now()
	res, err := RunReplay(e, rp, inputs, 264, 512)
	if err != nil {
		return row, err
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

// RandomValues are n finite values of dt (normal floats scaled by 1000, so
// sums round; any bits for integers).
func RandomValues(rng *rand.Rand, dt spec.DataType, n int64) []byte {
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

// ReplayOptions are the schedules and sizes ReplaySweep replays.
type ReplayOptions struct {
	Algos    []spec.Algo
	Protos   []spec.Proto
	Sizes    []int64
	DataType spec.DataType
	RedOp    spec.RedOp
	Seed     uint64
	// PerRound keeps each row's per-round device times.
	PerRound bool
}

// ReplaySweep replays every algorithm × protocol × size as AllReduce,
// saying on log how each went. NCCL connects send/recv peers lazily at
// their first use: one untimed replay first, so no row pays for the
// connections.
func ReplaySweep(e Executor, c *plan.Comm, o ReplayOptions, log io.Writer) ([]ReplayRow, error) {
	if _, err := ReplayAllReduce(e, c, o.Algos[0], o.Protos[0], o.DataType, o.RedOp, o.Sizes[0], o.Seed); err != nil {
		return nil, err
	}
	var rows []ReplayRow
	for _, a := range o.Algos {
		for _, p := range o.Protos {
			for _, size := range o.Sizes {
				row, err := ReplayAllReduce(e, c, a, p, o.DataType, o.RedOp, size, o.Seed)
				if err != nil {
					return nil, err
				}
				if !o.PerRound {
					row.RoundsUs = nil
				}
				rows = append(rows, row)
				fmt.Fprintf(log, "replayed %s/%s %s: %d rounds, bit-exact %v\n", a, p, spec.FormatBytes(size), row.Rounds, row.BitExact)
			}
		}
	}
	return rows, nil
}

// WriteReplay prints the replayed rows as a table, with what the device
// time means.
func WriteReplay(w io.Writer, rel spec.Version, s *Session, rows []ReplayRow) {
	nccl, _ := s.Libraries()
	fmt.Fprintf(w, "schedule replay on %d GPU(s), %s (modelled as %s)\n", s.NRanks(), nccl, rel)
	var tr [][]string
	for _, r := range rows {
		ok := "yes"
		if !r.BitExact {
			ok = "NO: " + r.Mismatch
		}
		tr = append(tr, []string{r.Algo + "/" + r.Proto, spec.FormatBytes(r.Bytes), strconv.Itoa(r.Channels), strconv.Itoa(r.Rounds), ok,
			fmt.Sprintf("%.1f", r.SimUs), fmt.Sprintf("%.1f", r.ModelUs), fmt.Sprintf("%.1f", r.DeviceUs),
			fmt.Sprintf("%.1f + %.1f", r.KernelUs, r.ExchangeUs), fmt.Sprintf("%.0f", r.WallUs)})
	}
	_ = texttable.Write(w, []string{"schedule", "size", "channels", "rounds", "bit-exact vs sim", "sim µs", "NCCL model µs", "replay device µs", "kernels + groups µs", "replay wall µs"}, tr, 60)
	fmt.Fprintln(w, strings.TrimSpace(`
device time = Σ over rounds of (slowest task kernel + slowest NCCL group), CUDA events; the replay
runs steps round by round where NCCL pipelines them, so it bounds the schedule's time from above.`))
}
