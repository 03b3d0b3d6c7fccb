package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/gatesim/gatesim/hw"
	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

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
			algs, err := parseList(algoList, "algo", []spec.Algo{spec.Ring, spec.Tree}, spec.ParseAlgo)
			if err != nil {
				return err
			}
			protos, err := parseList(protoList, "proto", []spec.Proto{spec.Simple}, spec.ParseProto)
			if err != nil {
				return err
			}
			szs, err := spec.ParseSizes(sizes)
			if err != nil {
				return badInputf("--sizes %v", err)
			}
			dt, err := spec.ParseDataType(dtype)
			if err != nil {
				return badInput(err)
			}
			rop, err := spec.ParseRedOp(redop)
			if err != nil {
				return badInput(err)
			}
			sys, env, err := loadMachine(&sf, &ef)
			if err != nil {
				return err
			}
			bad := 0
			job := hw.ReplayJob{Options: hw.Options{Search: lf.search(), AllowNVLS: lf.allowNVLS}, PTX: ptx, Sys: sys, Env: env, Log: d.stderr,
				Replay: hw.ReplayOptions{Algos: algs, Protos: protos, Sizes: szs, DataType: dt, RedOp: rop, Seed: seed, PerRound: perRound},
				Done: func(rel spec.Version, s *hw.Session, rows []hw.ReplayRow) error {
					for _, r := range rows {
						if !r.BitExact {
							bad++
						}
					}
					if out != "" {
						if err := writeJSONFile(out, rows); err != nil {
							return err
						}
					}
					if asJSON {
						return writeOut(d, "hw-replay", hw.ReplayOutput{Rows: rows})
					}
					hw.WriteReplay(d.stdout, rel, s, rows)
					return nil
				}}
			if err := job.Run(); errors.Is(err, hw.ErrReplayInput) {
				return badInput(err)
			} else if err != nil {
				return hwError(err)
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
	c.Flags().StringVar(&sizes, "sizes", "1MiB:256MiB:x4", "nccl-tests sizes: a list or FROM:TO[:xFACTOR]")
	c.Flags().StringVar(&dtype, "dtype", "float32", "datatype: int8 … uint64, float32, float64")
	c.Flags().StringVar(&redop, "redop", "sum", "reduction: sum, prod, max, min")
	c.Flags().StringVar(&ptxFile, "ptx", "", "replay kernel PTX (default: the embedded one)")
	c.Flags().StringVar(&out, "out", "", "also write the rows as JSON to this file")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().BoolVar(&perRound, "rounds", false, "keep the per-round device times in the JSON")
	c.Flags().Uint64Var(&seed, "seed", 1, "seed of the random inputs")
	return c
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
