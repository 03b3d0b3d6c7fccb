package spec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec/topo"
)

// SystemSource names a machine as gatesim's commands take it: a preset
// (with a node count and the SHARP plugin), a system file, or NCCL's
// topology XML of one host (copied to Nodes hosts), plus plugin library
// descriptions added to every node (a file each, or a plugin gatesim knows
// by name: aws-ofi-nccl@VERSION:PLATFORM).
type SystemSource struct {
	Preset, File, Topo string
	// Nodes is --nodes when NodesSet (given): 1 to MaxNodes, for a preset
	// or a topology only; unset, one node.
	Nodes    int
	NodesSet bool
	SHARP    bool
	Plugins  []string
	// Procs is --procs: "per-gpu", "per-node" or "init-all" ("": per-gpu).
	Procs string
}

// Load builds the System, reading every file it names with read (the
// caller's bounded reader: spec reads no files).
func (f SystemSource) Load(read func(string) ([]byte, error)) (*System, error) {
	var sys *System
	var err error
	named := 0
	for _, s := range []string{f.Preset, f.File, f.Topo} {
		if s != "" {
			named++
		}
	}
	if f.NodesSet {
		if err := checkNodes(f.Nodes); err != nil {
			return nil, err
		}
	}
	switch {
	case named > 1:
		return nil, fmt.Errorf("--system, --system-file and --topo are exclusive: name one machine")
	case f.Topo != "":
		data, rerr := read(f.Topo)
		if rerr != nil {
			return nil, rerr
		}
		if f.SHARP {
			return nil, fmt.Errorf("--sharp applies to presets; give --plugin with the SHARP plugin's description instead")
		}
		sys, err = SystemFromTopology(f.Topo, data, max(1, f.Nodes))
	case f.File != "":
		data, rerr := read(f.File)
		if rerr != nil {
			return nil, rerr
		}
		sys, err = ParseSystem(f.File, data)
		if err == nil && (f.NodesSet || f.SHARP) {
			return nil, fmt.Errorf("--nodes and --sharp apply to presets; write them in %s instead", f.File)
		}
	case f.Preset != "":
		sys, err = Preset(f.Preset, PresetOptions{Nodes: f.Nodes, SHARP: f.SHARP})
	default:
		return nil, fmt.Errorf("no machine: give --system PRESET (one of %s), --system-file FILE or --topo TOPO.XML", strings.Join(PresetNames(), ", "))
	}
	if err != nil {
		return nil, err
	}
	if f.Procs != "" {
		if sys.Procs, err = ParseProcs(f.Procs); err != nil {
			return nil, fmt.Errorf("--procs: %v", err)
		}
	}
	for _, p := range f.Plugins {
		libs, named, perr := NamedPlugin(p)
		if perr != nil {
			return nil, fmt.Errorf("--plugin %v", perr)
		}
		if !named {
			data, rerr := read(p)
			if rerr != nil {
				return nil, rerr
			}
			lib, perr := ParseLibrary(p, data)
			if perr != nil {
				return nil, perr
			}
			libs = []Library{*lib}
		}
		for i := range sys.Nodes {
			sys.Nodes[i].Libs = append(slices.Clone(libs), sys.Nodes[i].Libs...)
		}
	}
	return sys, nil
}

// ReadGraphFile gives sys the graphs of the graph XML NCCL_GRAPH_FILE
// names in env, as every rank reads it, with read (the caller's bounded
// reader: spec reads no files); nothing when the variable is unset or
// empty.
func ReadGraphFile(sys *System, env Env, read func(string) ([]byte, error)) error {
	path, ok := env.Lookup("NCCL_GRAPH_FILE")
	if !ok || path == "" {
		return nil
	}
	data, err := read(path)
	if err != nil {
		return fmt.Errorf("NCCL_GRAPH_FILE: %v", err)
	}
	sys.GraphFile, err = topo.ParseGraphXML(path, data)
	return err
}

// ParseReleases reads one release or a comma list of them (--nccl),
// each one gatesim models.
func ParseReleases(s string) ([]Version, error) {
	var out []Version
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		v, err := ParseVersion(part)
		if err != nil {
			return nil, err
		}
		if !Supported(v) {
			return nil, &UnsupportedError{Version: v}
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--nccl: expected a release such as 2.28.9 or a list 2.22.3,2.28.9")
	}
	return out, nil
}

// OneRelease reads --nccl of a command that decides for one release:
// list holds the flag's values (repeated or comma separated), and more
// than one release is refused in the same words everywhere.
func OneRelease(list ...string) (Version, error) {
	s, err := OneReleaseArg(list...)
	if err != nil {
		return 0, err
	}
	vs, err := ParseReleases(s)
	if err != nil {
		return 0, err
	}
	return vs[0], nil
}

// OptionalRelease is OneRelease where naming none is allowed: 0 then (a
// command that otherwise takes the release from its input, as diagnose
// takes the log's).
func OptionalRelease(list ...string) (Version, error) {
	if s, err := OneReleaseArg(list...); err != nil || s == "" {
		return 0, err
	}
	return OneRelease(list...)
}

// OneReleaseArg is the one release list names, as written, for a command
// that reads it itself (gatesim env: its own registry's releases).
func OneReleaseArg(list ...string) (string, error) {
	var names []string
	for _, s := range list {
		for _, part := range strings.Split(s, ",") {
			if part = strings.TrimSpace(part); part != "" {
				names = append(names, part)
			}
		}
	}
	if len(names) > 1 {
		return "", fmt.Errorf("--nccl takes one release (got %s); use whatif/table for several", strings.Join(names, ","))
	}
	return strings.Join(names, ""), nil
}

// DecideAlike is the one line every comparison of releases prints when
// they agree (whatif's points, table's cells, rules diff's rules), in
// place of an empty table.
func DecideAlike(releases []string, what string) string {
	names := strings.Join(releases, ", ")
	if k := strings.LastIndex(names, ", "); k >= 0 {
		names = names[:k] + " and " + names[k+2:]
	}
	return fmt.Sprintf("%s decide alike on every %s", names, what)
}

// ParseReleasePair reads the two releases a range is asked between, in
// either order: lo and hi are the older and the newer, and back says the
// user named the newer first (going back undoes the same changes).
func ParseReleasePair(a, b string) (lo, hi Version, back bool, err error) {
	var vs [2]Version
	for i, s := range []string{a, b} {
		if vs[i], err = ParseVersion(s); err != nil {
			return 0, 0, false, err
		}
		if !Supported(vs[i]) {
			return 0, 0, false, &UnsupportedError{Version: vs[i]}
		}
	}
	return min(vs[0], vs[1]), max(vs[0], vs[1]), vs[0] > vs[1], nil
}

// OpSource names one collective as gatesim's commands take it: the
// collective, its size in bytes (count × element size as NCCL logs it,
// default 1MiB) or its element count (CountSet), the datatype, the
// reduction and the root.
type OpSource struct {
	Coll, Bytes, DType, RedOp string
	Count                     int64
	CountSet                  bool
	Root                      int
}

// Op is the operation the source names.
func (f OpSource) Op() (Op, error) {
	fn, err := ParseFuncIn(f.Coll, SelectFuncs)
	if err != nil {
		return Op{}, err
	}
	dt, err := ParseDataType(f.DType)
	if err != nil {
		return Op{}, err
	}
	rop, err := ParseRedOp(f.RedOp)
	if err != nil {
		return Op{}, err
	}
	switch {
	case f.CountSet && f.Bytes != "":
		return Op{}, fmt.Errorf("--count and --bytes are exclusive")
	case f.CountSet:
		if err := CheckCount(f.Count, dt); err != nil {
			return Op{}, fmt.Errorf("--count: %v", err)
		}
		return Op{Func: fn, Count: f.Count, DataType: dt, RedOp: rop, Root: f.Root}, nil
	}
	b := "1MiB"
	if f.Bytes != "" {
		b = f.Bytes
	}
	n, err := ParseBytes(b)
	if err != nil {
		return Op{}, err
	}
	op, err := OpFromBytes(fn, n, dt, rop, f.Root)
	if err != nil {
		return Op{}, err
	}
	return op, nil
}

// Ops are the operations of a source whose Coll is a comma separated list
// and whose Bytes are sizes as ParseSizes reads them (a list or a range):
// every collective at every size (defaultSizes when Bytes is empty; the
// one Count when CountSet).
func (f OpSource) Ops(defaultSizes []string) ([]Op, error) {
	sizes := defaultSizes
	if f.Bytes != "" {
		ns, err := ParseSizes(f.Bytes)
		if err != nil {
			return nil, fmt.Errorf("--sizes %v", err)
		}
		sizes = make([]string, len(ns))
		for i, n := range ns {
			sizes[i] = strconv.FormatInt(n, 10)
		}
	}
	if f.CountSet {
		sizes = []string{""}
	}
	var ops []Op
	for _, coll := range strings.Split(f.Coll, ",") {
		for _, sz := range sizes {
			g := f
			g.Coll, g.Bytes = strings.TrimSpace(coll), strings.TrimSpace(sz)
			op, err := g.Op()
			if err != nil {
				return nil, err
			}
			ops = append(ops, op)
		}
	}
	return ops, nil
}
