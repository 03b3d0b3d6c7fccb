package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/diagnose"
	"github.com/gatesim/gatesim/hw"
	"github.com/gatesim/gatesim/plan"
	"github.com/spf13/cobra"
)

// hwError maps hw's errors onto exit codes: no GPU, CUDA or NCCL is 3, a
// communicator NCCL refuses 1.
func hwError(err error) error {
	var re *plan.RefusedError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, hw.ErrUnavailable):
		return &exitError{code: exitNoDevice, err: err}
	case errors.As(err, &re):
		return &exitError{code: exitNo, err: err}
	}
	return err
}

func newHWCmd(d *deps) *cobra.Command {
	c := &cobra.Command{
		Use:   "hw",
		Short: "Run collectives on real GPUs through real NCCL, capture NCCL's logs, compare with nccl-tests",
		Long: `hw loads libnccl.so.2 and the CUDA runtime with dlopen (GATESIM_NCCL_LIB, the loader path,
PyTorch's wheel, the system) and runs collectives on the local GPUs. Every process it starts, and
its own, gets NCCL_NVLS_ENABLE=0, TORCH_SYMM_MEM_DISABLE_MULTICAST=1 and NVSHMEM_DISABLE_NVLS=1
unless --allow-nvls is given. Without a GPU, CUDA or NCCL it exits with code 3.`,
	}
	c.AddCommand(newHWInfoCmd(d), newHWRunCmd(d), newHWMatrixCmd(d), newHWCompareCmd(d), newHWCheckCmd(d), newHWReplayCmd(d), newHWSelfTestCmd(d))
	return c
}

type libFlags struct {
	nccl, cudart string
	allowNVLS    bool
}

func (l *libFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&l.nccl, "nccl-lib", "", "libnccl.so.2 file or directory (default: $GATESIM_NCCL_LIB, then the search order)")
	c.Flags().StringVar(&l.cudart, "cudart-lib", "", "libcudart file or directory (default: $GATESIM_CUDART_LIB, then the search order)")
	c.Flags().BoolVar(&l.allowNVLS, "allow-nvls", false, "do NOT force NVLink multicast off (never on shared machines)")
}

func (l *libFlags) search() hw.Search {
	s := hw.DefaultSearch()
	if l.nccl != "" {
		s.NCCL = l.nccl
	}
	if l.cudart != "" {
		s.CUDART = l.cudart
	}
	return s
}

func newHWInfoCmd(d *deps) *cobra.Command {
	var lf libFlags
	var asJSON bool
	c := &cobra.Command{
		Use:   "info",
		Short: "Show the libraries found, NCCL's version, the release it maps to and the GPUs",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			p, err := hw.Probe(lf.search(), lf.allowNVLS)
			if err != nil {
				return hwError(err)
			}
			if asJSON {
				return writeOut(d, "hw-info", p)
			}
			hw.WriteProbe(d.stdout, p)
			return nil
		},
	}
	lf.add(c)
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

// ncclTestsOnly are nccl-tests flags taken only at the value under which
// gatesim's runner already behaves (hw.NCCLTestsOnly).
type ncclTestsOnly struct{ hw.NCCLTestsOnly }

func (n *ncclTestsOnly) add(c *cobra.Command) {
	f := c.Flags()
	f.IntVarP(&n.Blocking, "blocking", "z", 0, "nccl-tests' -z: gatesim's collectives are not blocking (only 0 applies)")
	f.IntVarP(&n.Average, "average", "a", 1, "nccl-tests' -a: the time reported is the one every rank shares, timed between CUDA events across all GPUs (only 1 applies)")
	f.IntVarP(&n.Parallel, "parallel_init", "p", 0, "nccl-tests' -p: ranks initialise with ncclCommInitAll or per process (only 0 applies)")
	f.IntVarP(&n.Threads, "nthreads", "t", 1, "nccl-tests' -t: one thread drives every GPU of the process (only 1 applies)")
}

func newHWRunCmd(d *deps) *cobra.Command {
	var (
		lf                        libFlags
		colls, dtype, redop       string
		minB, maxB                string
		factor                    uint64
		root, warmup, iters, nbat int
		agg                       int
		buffers                   string
		budget, timeout           time.Duration
		graph, check, hostCheck   bool
		devices                   []int
		idFile, store             string
		asJSON                    bool
		outJSON, capture, config  string
		kernels                   string
		ngpus, cycles             int
		nt                        ncclTestsOnly
	)
	c := &cobra.Command{
		Use:   "run",
		Short: "Run collectives on the local GPUs and print an nccl-tests-style table",
		Long: `run measures collectives as nccl-tests does (same counts, buffer rotation, algbw and busbw)
in batches between CUDA events, reports the median batch with its spread, and checks every row on
the GPU. One process drives every local GPU, or, under mpirun, srun or torchrun, one process per GPU
(the unique id travels through --id-file or --store). With --capture DIR it also makes NCCL write
its INFO log, topology and graph dumps into DIR, beside results.json and results.txt.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := nt.Check(); err != nil {
				return badInput(err)
			}
			req := hw.RunRequest{Colls: colls, DataType: dtype, RedOp: redop, MinBytes: minB, MaxBytes: maxB, Factor: factor,
				Root: root, Warmup: warmup, Iters: iters, Batch: nbat, Agg: agg, Cycles: cycles, NGPUs: ngpus, RowBudget: budget,
				Timeout: timeout, Graph: graph, Check: check, HostCheck: hostCheck, AllowNVLS: lf.allowNVLS, Buffers: buffers,
				Devices: devices, Search: lf.search(), IDFile: idFile, Store: store, Capture: capture, Config: config,
				OutJSON: outJSON, Progress: d.stderr, Getenv: os.Getenv}
			if kernels != "" {
				var err error
				if req.PTX, err = readInput(kernels); err != nil {
					return badInput(err)
				}
			}
			job, err := req.Job()
			if err != nil {
				return badInput(err)
			}
			job.Cycle = func(cyc int, res *conformance.RunResult) error {
				if asJSON {
					return nil
				}
				// -N: every cycle but the last is printed as it ends,
				// as nccl-tests prints each cycle's table
				fmt.Fprintf(d.stdout, "# cycle %d of %d\n", cyc, cycles)
				return conformance.WriteTable(d.stdout, res)
			}
			res, err := job.Run()
			var je *hw.JobError
			switch {
			case errors.As(err, &je) && je.InitRefused:
				conformance.WriteTable(d.stdout, res)
				return &exitError{code: exitNo, err: je.Err}
			case errors.As(err, &je) && je.Plan:
				return badInput(je.Err)
			case res == nil:
				return hwError(err) // an error, or a rank that does not report
			}
			if asJSON {
				if err := writeOut(d, "hw-run", res); err != nil {
					return err
				}
			} else if err := conformance.WriteTable(d.stdout, res); err != nil {
				return err
			}
			if err != nil {
				return hwError(err)
			}
			for _, r := range res.Rows {
				if r.Wrong > 0 {
					return &exitError{code: exitNo, err: fmt.Errorf("%s %d bytes: %d wrong elements", r.Coll, r.Size, r.Wrong)}
				}
			}
			return nil
		},
	}
	f := c.Flags()
	lf.add(c)
	f.StringVar(&colls, "colls", "allreduce", "collectives: comma-separated (allreduce, allgather, reducescatter, broadcast, reduce, sendrecv, alltoall) or all (the five)")
	f.StringVarP(&minB, "minbytes", "b", "8", "smallest size")
	f.StringVarP(&maxB, "maxbytes", "e", "128M", "largest size")
	f.Uint64VarP(&factor, "stepfactor", "f", 2, "size multiplier")
	f.StringVarP(&dtype, "datatype", "d", "float", "datatype")
	f.StringVarP(&redop, "op", "o", "sum", "reduction")
	f.IntVarP(&root, "root", "r", 0, "root rank of Broadcast and Reduce")
	f.IntVarP(&warmup, "warmup_iters", "w", 1, "warm-up operations per row")
	f.IntVarP(&iters, "iters", "n", 20, "operations per timed batch")
	f.IntVar(&nbat, "batches", 5, "timed batches per row (the median is reported)")
	f.DurationVar(&budget, "row-budget", 2*time.Second, "bound on one row's timed work (fewer iterations for slow rows; 0: none)")
	f.VarP(hw.NCCLTestsBool{B: &graph}, "cudagraph", "G", "time CUDA graph launches of captured operations (nccl-tests' -G N: 0 off, N > 0 on)")
	f.Lookup("cudagraph").NoOptDefVal = "1"
	check = true
	f.VarP(hw.NCCLTestsBool{B: &check}, "check", "c", "check every row's result once (nccl-tests' -c 0|1)")
	f.Lookup("check").NoOptDefVal = "1"
	f.IntVarP(&ngpus, "ngpus", "g", 0, "GPUs to drive, 0..g-1 (nccl-tests' -g; default: every local GPU)")
	f.IntVarP(&cycles, "run_cycles", "N", 1, "measure the whole table this many times (nccl-tests' -N)")
	nt.add(c)
	f.IntVarP(&agg, "agg_iters", "m", 1, "operations per NCCL group (nccl-tests' -m); times are per operation")
	f.StringVar(&buffers, "buffers", "user", "buffers: user (cudaMalloc), registered (ncclCommRegister) or window (ncclMemAlloc + ncclCommWindowRegister, 2.27+)")
	f.BoolVar(&hostCheck, "host-check", false, "check on the host instead of with the GPU kernels")
	f.IntSliceVar(&devices, "devices", nil, "local GPU ordinals (default: all, or LOCAL_RANK's under a launcher)")
	f.StringVar(&idFile, "id-file", "", "launcher mode: shared file for NCCL's unique id")
	f.StringVar(&store, "store", "", "launcher mode: host:port rank 0 serves NCCL's unique id on")
	f.BoolVar(&asJSON, "json", false, "print JSON instead of the table")
	f.StringVar(&outJSON, "out", "", "also write the JSON result to this file")
	f.StringVar(&capture, "capture", "", "capture directory: NCCL log, topology and graph dumps, results")
	f.StringVar(&config, "config", "", "configuration name recorded in the results")
	f.StringVar(&kernels, "kernels", "", "PTX file with the check kernels (default: the embedded one)")
	f.DurationVar(&timeout, "timeout", 10*time.Minute, "bound on every wait for the GPUs")
	return c
}

func newHWMatrixCmd(d *deps) *cobra.Command {
	var (
		out       string
		configs   []string
		allowNVLS bool
		timeout   time.Duration
	)
	c := &cobra.Command{
		Use:   "matrix --out DIR [--configs a,b] [-- run flags]",
		Short: "Capture each environment configuration in a fresh `hw run` process",
		Long: `matrix starts one 'gatesim hw run --capture DIR/<config>' process per configuration (NCCL reads
its parameters once per process) with the configuration's NCCL_* variables, the capture variables
and the NVLS safety variables, and passes the flags after -- to every run. Configurations:
` + hw.MatrixHelp(),
		RunE: func(c *cobra.Command, args []string) error {
			if out == "" {
				return badInputf("--out is required")
			}
			cfgs, err := hw.FindConfigs(configs)
			if err != nil {
				return badInput(err)
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			// A killed matrix must not leave a configuration's process running
			// on the GPUs: cancel the child on SIGTERM and SIGINT.
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
			defer stop()
			entries, err := hw.RunMatrix(ctx, hw.MatrixOptions{Exe: exe, Args: args, Out: out, Configs: cfgs,
				AllowNVLS: allowNVLS, Timeout: timeout, Log: d.stdout})
			if err != nil {
				return err
			}
			for _, e := range entries {
				if e.ExitCode == exitNoDevice {
					return &exitError{code: exitNoDevice, err: fmt.Errorf("configuration %s: no GPU, CUDA or NCCL (see %s)", e.Config, filepath.Join(out, e.Config, conformance.CaptureOutput))}
				}
			}
			return nil
		},
	}
	c.Flags().StringVar(&out, "out", "", "capture set directory")
	c.Flags().StringSliceVar(&configs, "configs", nil, "configurations to run (default all)")
	c.Flags().BoolVar(&allowNVLS, "allow-nvls", false, "do NOT force NVLink multicast off in the runs (never on shared machines)")
	c.Flags().DurationVar(&timeout, "timeout", 10*time.Minute, "bound on each configuration's process")
	return c
}

func newHWCompareCmd(d *deps) *cobra.Command {
	var ours []string
	var asJSON bool
	var stat string
	c := &cobra.Command{
		Use:   "compare --ours results.json [--ours more.json] NCCL_TESTS_OUTPUT...",
		Short: "Compare gatesim hw run's table with nccl-tests' output, row by row",
		Long: fmt.Sprintf(`compare matches rows by collective and size and checks the targets: busbw at >= %d MiB at least
%.0f%% of nccl-tests', time at <= %d bytes within %.0f us. Several --ours files (repeated runs) and several
outputs of the same nccl-tests program are combined by their median per size. Exit code 1 when a target is
missed.`,
			conformance.TargetLargeBytes>>20, conformance.TargetBusBwRatio*100, conformance.TargetSmallBytes, conformance.TargetLatencyUs),
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, files []string) error {
			if len(ours) == 0 {
				return badInputf("--ours is required")
			}
			if stat != "median" && stat != "best" {
				return badInputf("--stat %q: expected median or best", stat)
			}
			rows, err := hw.CompareFiles(ours, files, stat == "best")
			if err != nil {
				return badInput(err)
			}
			if asJSON {
				return writeOut(d, "hw-compare", hw.CompareOutput{Rows: rows})
			}
			missed, err := conformance.WriteCompare(d.stdout, rows)
			if err != nil {
				return err
			}
			if missed > 0 {
				return &exitError{code: exitNo, err: fmt.Errorf("%d rows missed their target", missed)}
			}
			return nil
		},
	}
	c.Flags().StringArrayVar(&ours, "ours", nil, "gatesim hw run's results.json (repeat for repeated runs)")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().StringVar(&stat, "stat", "median", "median (each side's median per size) or best (each side's fastest batch or cycle)")
	return c
}

func newHWCheckCmd(d *deps) *cobra.Command {
	var from []string
	var asJSON, verbose bool
	c := &cobra.Command{
		Use:   "check --from DIR [--from DIR...]",
		Short: "Check spec's prediction against captured runs: graphs, channels, the tuning table, every per-operation choice",
		Long: `check reads capture directories (gatesim hw matrix --out writes them; a directory holding a
config.json, or one with such directories up to 4 levels below) and, for each, predicts what NCCL does from the
capture's own topology dump, release and environment: the ring/tree/NVLS searches rank 0 printed,
the channel summary, the threadThresholds line, every cell of the printed tuning table, every
distinct per-operation line (algorithm, protocol, channel range) and the errors the measured
operations returned. Exit code 1 when anything compared differs (what a capture lacks the evidence for
is listed as not comparable, no difference); 2 when a directory holds no capture.`,
		Example: `  gatesim hw check --from golden/testdata/captured/h200x2-2.28.9`,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if len(from) == 0 {
				return badInputf("--from is required")
			}
			caps, err := hw.ReadCaptureDirs(from)
			if err != nil {
				return badInput(err)
			}
			reps, err := diagnose.CheckCaptures(caps)
			if err != nil {
				return badInput(err)
			}
			if asJSON {
				if err := writeOut(d, "hw-check", hw.CheckOutput{Configs: reps}); err != nil {
					return err
				}
			} else if err := conformance.WriteCheck(d.stdout, reps, verbose); err != nil {
				return err
			}
			if err := conformance.CheckVerdict(reps); err != nil {
				return &exitError{code: exitNo, err: err}
			}
			return nil
		},
	}
	c.Flags().StringArrayVar(&from, "from", nil, "capture directory or directory of captures (repeatable)")
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	c.Flags().BoolVarP(&verbose, "verbose", "v", false, "print every compared row, not only the summary and differences")
	return c
}

func newHWSelfTestCmd(d *deps) *cobra.Command {
	var lf libFlags
	var hostCheck bool
	var kernels string
	c := &cobra.Command{
		Use:   "selftest",
		Short: "Check the result checker on the GPUs: poisoned buffers must count every element wrong",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o := hw.Options{Search: lf.search(), HostCheck: hostCheck, AllowNVLS: lf.allowNVLS}
			if kernels != "" {
				var err error
				if o.PTX, err = readInput(kernels); err != nil {
					return badInput(err)
				}
			}
			s, err := hw.Open(o)
			if err != nil {
				return hwError(err)
			}
			defer s.Close()
			if err := hw.SelfTest(s); err != nil {
				return &exitError{code: exitNo, err: err}
			}
			fmt.Fprintf(d.stdout, "selftest ok: %d ranks, check %s\n", s.NRanks(), s.CheckMode())
			return nil
		},
	}
	lf.add(c)
	c.Flags().BoolVar(&hostCheck, "host-check", false, "test the host checker instead of the kernels")
	c.Flags().StringVar(&kernels, "kernels", "", "PTX file with the check kernels (default: the embedded one)")
	return c
}
