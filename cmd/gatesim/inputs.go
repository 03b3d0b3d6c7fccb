package main

import (
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/internal/inputfile"
	"github.com/gatesim/gatesim/spec"
	"github.com/spf13/cobra"
)

// systemFlags select the machine: a preset, a system file, or NCCL's
// topology XML, plus extra plugin libraries.
type systemFlags struct {
	cmd     *cobra.Command // whether --nodes was given
	preset  string
	file    string
	topo    string
	nodes   int
	sharp   bool
	plugins []string
	procs   string
}

var presetUsage = "system preset: " + strings.Join(spec.PresetNames(), ", ") // --system's help everywhere

func (f *systemFlags) add(c *cobra.Command) {
	f.cmd = c
	c.Flags().StringVar(&f.preset, "system", "", presetUsage)
	c.Flags().StringVar(&f.file, "system-file", "", "system description (JSON or YAML; see the README)")
	c.Flags().StringVar(&f.topo, "topo", "", "NCCL's topology XML of one host (NCCL_TOPO_DUMP_FILE's output); --nodes copies it")
	c.Flags().IntVar(&f.nodes, "nodes", 0, "node count for a preset or --topo (default 1)")
	c.Flags().BoolVar(&f.sharp, "sharp", false, "add the HPC-X SHARP plugin (Net and CollNet v5-v8) to every node of a preset")
	c.Flags().StringArrayVar(&f.plugins, "plugin", nil, "plugin library description (JSON or YAML), or aws-ofi-nccl@VERSION:PLATFORM, added to every node; repeatable")
	c.Flags().StringVar(&f.procs, "procs", "", "ranks per process: per-gpu (default; mpirun, torchrun), per-node (one process drives a node's GPUs) or init-all (per-node through ncclCommInitAll, one node)")
}

// load builds the System; errors are the user's.
func (f *systemFlags) load() (*spec.System, error) {
	src := spec.SystemSource{Preset: f.preset, File: f.file, Topo: f.topo, Nodes: f.nodes, NodesSet: f.cmd.Flags().Changed("nodes"), SHARP: f.sharp, Plugins: f.plugins, Procs: f.procs}
	sys, err := src.Load(readInput)
	return sys, badInput(err)
}

// parseReleases reads --nccl (a string slice flag in every command):
// releases repeated or comma separated.
func parseReleases(s []string) ([]spec.Version, error) {
	vs, err := spec.ParseReleases(strings.Join(s, ","))
	return vs, badInput(err)
}

// loadOneRelease is the ruleset of the one release --nccl names.
func loadOneRelease(nccl []string) (*spec.Ruleset, error) {
	v, err := spec.OneRelease(nccl...)
	if err != nil {
		return nil, badInput(err)
	}
	rs, err := spec.Load(v)
	if err != nil {
		return nil, badInput(err)
	}
	return rs, nil
}

// opFlags describe one collective.
type opFlags struct {
	coll, bytes, dtype, redop string
	count                     int64
	root                      int
	cmd                       *cobra.Command // to tell a given --count from the default
}

func (f *opFlags) add(c *cobra.Command) {
	f.cmd = c
	c.Flags().StringVar(&f.coll, "coll", "allreduce", "collective: "+strings.Join(spec.FuncNames(spec.SelectFuncs), ", "))
	c.Flags().StringVar(&f.bytes, "bytes", "", "size: count × element size as NCCL logs it (1MiB, 4KiB, 1048576)")
	c.Flags().Int64Var(&f.count, "count", -1, "element count instead of --bytes")
	c.Flags().StringVar(&f.dtype, "dtype", "float32", "datatype: "+strings.Join(spec.DataTypeNames(), ", "))
	c.Flags().StringVar(&f.redop, "redop", "sum", "reduction: "+strings.Join(spec.RedOpNames(), ", "))
	c.Flags().IntVar(&f.root, "root", 0, "root rank for broadcast and reduce")
}

func (f *opFlags) source() spec.OpSource {
	return spec.OpSource{Coll: f.coll, Bytes: f.bytes, DType: f.dtype, RedOp: f.redop, Count: f.count, Root: f.root,
		CountSet: f.cmd != nil && f.cmd.Flags().Changed("count")}
}

func (f *opFlags) build() (spec.Op, error) {
	op, err := f.source().Op()
	if err != nil {
		return spec.Op{}, badInput(err)
	}
	return op, nil
}

// envFlags are --env NAME=VALUE assignments and, where added, --config.
type envFlags struct {
	list   []string
	config string
}

// configUsage is --config's help everywhere.
const configUsage = "the communicator's ncclConfig_t: name=value,... in NCCL's field names (maxCTAs=4,netName=IB); a variable set wins as envConfigOverride lets it"

func (f *envFlags) addConfig(c *cobra.Command) {
	c.Flags().StringVar(&f.config, "config", "", configUsage)
}

func (f *envFlags) add(c *cobra.Command) {
	c.Flags().StringArrayVar(&f.list, "env", nil, "NCCL_* assignment NAME=VALUE; repeatable (NAME= sets it empty)")
}

func (f *envFlags) build() (spec.Env, error) {
	e, err := spec.ParseAssignments(f.list)
	if err != nil {
		return nil, badInput(err)
	}
	return e, nil
}

// readInput reads a file the user names: a regular file of at most
// spec.MaxFileBytes (devices, FIFOs and directories are refused).
func readInput(path string) ([]byte, error) {
	return inputfile.Read(path, spec.MaxFileBytes)
}

func itoa(n int) string { return strconv.Itoa(n) }

// loadMachine builds the System of sf and the environment of ef, with the
// graphs NCCL_GRAPH_FILE names; every error is the user's.
func loadMachine(sf *systemFlags, ef *envFlags) (*spec.System, spec.Env, error) {
	sys, err := sf.load()
	if err != nil {
		return nil, nil, err
	}
	env, err := ef.build()
	if err != nil {
		return nil, nil, err
	}
	if sys.CommConfig, err = spec.ParseConfig(ef.config); err != nil {
		return nil, nil, badInputf("--config: %v", err)
	}
	return sys, env, badInput(spec.ReadGraphFile(sys, env, readInput))
}
