package main

import (
	"fmt"
	"strings"

	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

// The design chapter's experiment: a 4 × V100 node with the HPC-X SHARP
// library but no verbs device, asked for SHARP and NVLS in every way a user
// would, under the reference release and the GPU machine's release.
var demoCases = []struct {
	name  string
	env   []string
	bytes string
}{
	{"baseline", nil, "1MiB"},
	{"plugin: missing .so (NCCL_NET_PLUGIN=foo)", []string{"NCCL_NET_PLUGIN=foo"}, "1MiB"},
	{"plugin: .so without NCCL symbols", []string{"NCCL_NET_PLUGIN=" + spec.LibmPath}, "1MiB"},
	{"NCCL_COLLNET_ENABLE=0", []string{"NCCL_COLLNET_ENABLE=0"}, "1MiB"},
	{"NCCL_COLLNET_ENABLE=1", []string{"NCCL_COLLNET_ENABLE=1"}, "1MiB"},
	{"NCCL_COLLNET_ENABLE=true", []string{"NCCL_COLLNET_ENABLE=true"}, "1MiB"},
	{"NCCL_NVLS_ENABLE=0", []string{"NCCL_NVLS_ENABLE=0"}, "1MiB"},
	{"NCCL_NVLS_ENABLE=2 (auto)", []string{"NCCL_NVLS_ENABLE=2"}, "1MiB"},
	{"NCCL_NVLS_ENABLE=1 (forced)", []string{"NCCL_NVLS_ENABLE=1"}, "1MiB"},
	{"NCCL_ALGO=CollNetDirect", []string{"NCCL_COLLNET_ENABLE=1", "NCCL_NVLS_ENABLE=1", "NCCL_ALGO=CollNetDirect"}, "1MiB"},
	{"NCCL_ALGO=CollNetChain", []string{"NCCL_COLLNET_ENABLE=1", "NCCL_NVLS_ENABLE=1", "NCCL_ALGO=CollNetChain"}, "1MiB"},
	{"NCCL_ALGO=NVLS", []string{"NCCL_COLLNET_ENABLE=1", "NCCL_NVLS_ENABLE=1", "NCCL_ALGO=NVLS"}, "1MiB"},
	{"NCCL_ALGO=NVLSTree", []string{"NCCL_COLLNET_ENABLE=1", "NCCL_NVLS_ENABLE=1", "NCCL_ALGO=NVLSTree"}, "1MiB"},
	{"P2P and SHM off, 4 KiB", []string{"NCCL_P2P_DISABLE=1", "NCCL_SHM_DISABLE=1"}, "4KiB"},
	{"P2P and SHM off, 64 MiB", []string{"NCCL_P2P_DISABLE=1", "NCCL_SHM_DISABLE=1"}, "64MiB"},
}

func newDemoCmd(d *deps) *cobra.Command {
	return &cobra.Command{
		Use:   "demo",
		Short: "The design scenario (4 × V100 with a SHARP library and no verbs device), gate by gate, NCCL 2.22.3 and 2.28.9 side by side",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			sys, err := spec.Preset("v100x4", spec.PresetOptions{})
			if err != nil {
				return err
			}
			releases := []spec.Version{spec.V2_22_3, spec.V2_28_9}
			fmt.Fprintln(d.stdout, "gatesim demo: "+spec.PresetDoc("v100x4")+".")
			fmt.Fprintln(d.stdout, "A user asks for SHARP (CollNet) and NVLS and forces the algorithm; what does NCCL do?")
			fmt.Fprintln(d.stdout)
			env, _ := spec.ParseAssignments([]string{"NCCL_COLLNET_ENABLE=1", "NCCL_NVLS_ENABLE=1", "NCCL_ALGO=NVLS"})
			op, _ := spec.OpFromBytes(spec.AllReduce, 1<<20, spec.Float32, spec.Sum, 0)
			fmt.Fprintf(d.stdout, "1 MiB AllReduce with %s, every gate:\n\n", env)
			var runs []explained
			for _, v := range releases {
				e, err := explainOne(v, sys, env, op, nil)
				if err != nil {
					return err
				}
				runs = append(runs, e)
			}
			if err := printSideBySide(d.stdout, runs, true, 120); err != nil {
				return err
			}
			fmt.Fprintln(d.stdout)
			for _, r := range runs {
				printSummary(d.stdout, spec.Summarize(r.Decision, r.Trace, r.env), 120)
			}
			fmt.Fprintf(d.stdout, "\nThe whole experiment (AllReduce, float32 sum), the outcome and the gate that decided it:\n\n")
			var rows [][]string
			for _, dc := range demoCases {
				env, err := spec.ParseAssignments(dc.env)
				if err != nil {
					return err
				}
				n, _ := spec.ParseBytes(dc.bytes)
				op, _ := spec.OpFromBytes(spec.AllReduce, n, spec.Float32, spec.Sum, 0)
				row := []string{dc.name}
				for _, v := range releases {
					e, err := explainOne(v, sys, env, op, nil)
					if err != nil {
						return err
					}
					row = append(row, demoCell(e))
				}
				rows = append(rows, row)
			}
			header := []string{"case"}
			for _, v := range releases {
				header = append(header, "NCCL "+v.String())
			}
			if err := texttable.Write(d.stdout, header, rows, 52); err != nil {
				return err
			}
			fmt.Fprintln(d.stdout, "\nTry: gatesim explain --nccl 2.22.3,2.28.9 --system v100x4 --env NCCL_ALGO=CollNetDirect --env NCCL_COLLNET_ENABLE=1 --bytes 1MiB")
			return nil
		},
	}
}

// demoCell summarises one release's outcome: the decision, the network and
// the gate that stopped CollNet and NVLS.
func demoCell(e explained) string {
	d := e.Decision
	by := string(d.DecidedBy)
	if by == "" {
		by = "tuning model"
	}
	lines := []string{decisionLine(d) + " [" + by + "]", "net " + d.Net + ", local peers via " + d.Transport}
	for _, c := range []spec.Capability{spec.CapNetPlugin, spec.CapCollNet, spec.CapNVLS} {
		if v, ok := e.Trace.Stopper(c); ok {
			lines = append(lines, fmt.Sprintf("%s %s: %s", c, d.Evidence[c], v.Rule))
		}
	}
	return strings.Join(lines, "\n")
}
