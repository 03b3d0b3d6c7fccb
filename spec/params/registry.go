package params

import (
	"bytes"
	"embed"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gatesim/gatesim/spec"
)

//go:embed data/*.tsv
var tables embed.FS

// Release is one release as the parameter registry sees it: a generated
// table (data/<tag>.tsv) and the facts lint reads where NCCL's reading of a
// variable changed. Code asks these facts; it never compares versions.
type Release struct {
	Version spec.Version
	// PerFunctionAlgo: NCCL_ALGO and NCCL_PROTO take the per-function
	// grammar and an unknown name is an error (2.24.3+, src/graph/tuning.cc
	// parseList); before, one list for all functions, unknown names ignored.
	PerFunctionAlgo bool
	// PluginList: NCCL_NET_PLUGIN is a comma list and a set-but-empty
	// plugin variable means no external plugin (2.27.3+); before, one name
	// and an empty value tries the default library name.
	PluginList bool
	// CollNetEnableStrtol: NCCL_COLLNET_ENABLE is parsed with strtol base 0
	// into config.collnetEnable (2.27.5+; 2.27.3's NCCL_PARAM parses the
	// same way); before, only the exact string "1" enables.
	CollNetEnableStrtol bool
	// NVLSBindSoft: a multicast bind failure is fatal only with
	// NCCL_NVLS_ENABLE=1 (2.27.3-2.28.9, src/transport/nvls.cc
	// nvlsAllocateMem); before and from 2.29.2 it is always fatal.
	NVLSBindSoft bool
	// MNNVLFile and MNNVLFunc are where the MNNVL check lives (empty
	// before 2.20.3, which has none).
	MNNVLFile, MNNVLFunc string
	// IBQPFile is where ncclIbRtsQp lives (a directory from 2.29.2).
	IBQPFile string
	// MNNVLUserP2P: NCCL_P2P_DISABLE and NCCL_P2P_LEVEL (level 0) skip the
	// multi-node MNNVL check (2.27.3+, src/init.cc initTransportsRank
	// ncclGetUserP2pLevel before ncclMnnvlCheck).
	MNNVLUserP2P bool
}

// factChanges lists the releases at which a fact of Release changed, oldest
// first, each with every fact as it holds from that release on; a modelled
// release not listed has the facts of the entry before it. A new release
// needs an entry only when one of these facts changes.
var factChanges = []Release{
	{Version: spec.V2_18_1, IBQPFile: "src/transport/net_ib.cc"},
	{Version: spec.V2_20_3, MNNVLFile: "src/init.cc", MNNVLFunc: "initTransportsRank", IBQPFile: "src/transport/net_ib.cc"},
	{Version: spec.V2_21_5, MNNVLFile: "src/init.cc", MNNVLFunc: "checkMNNVL", IBQPFile: "src/transport/net_ib.cc"},
	{Version: spec.V2_22_3, MNNVLFile: "src/init.cc", MNNVLFunc: "initTransportsRank", IBQPFile: "src/transport/net_ib.cc"},
	{Version: spec.V2_23_4, MNNVLFile: "src/init.cc", MNNVLFunc: "checkMNNVL", IBQPFile: "src/transport/net_ib.cc"},
	{Version: spec.V2_24_3, PerFunctionAlgo: true, MNNVLFile: "src/init.cc", MNNVLFunc: "checkMNNVL", IBQPFile: "src/transport/net_ib.cc"},
	{Version: spec.V2_25_1, PerFunctionAlgo: true, MNNVLFile: "src/mnnvl.cc", MNNVLFunc: "ncclMnnvlCheck", IBQPFile: "src/transport/net_ib.cc"},
	// 2.27.3 reads NCCL_COLLNET_ENABLE as an NCCL_PARAM (strtoll base 0),
	// which parses as 2.27.5's strtol does.
	{Version: spec.V2_27_3, PerFunctionAlgo: true, PluginList: true, CollNetEnableStrtol: true, NVLSBindSoft: true, MNNVLUserP2P: true,
		MNNVLFile: "src/mnnvl.cc", MNNVLFunc: "ncclMnnvlCheck", IBQPFile: "src/transport/net_ib.cc"},
	// From v2.29.2-1 src/transport/nvls.cc nvlsAllocateMem: the bind failure
	// WARNs "Disable NVLS (NCCL_NVLS_ENABLE=0)" and fails whatever the
	// value; the IB transport is a directory (src/transport/net_ib/).
	{Version: spec.V2_29_2, PerFunctionAlgo: true, PluginList: true, CollNetEnableStrtol: true, MNNVLUserP2P: true,
		MNNVLFile: "src/mnnvl.cc", MNNVLFunc: "ncclMnnvlCheck", IBQPFile: "src/transport/net_ib"},
	// -- add an entry here only when a fact changes --
}

// Versions lists the modelled releases that have a generated table
// (data/<tag>.tsv), oldest first: every spec.Release has one.
var Versions = func() []spec.Version {
	var out []spec.Version
	for _, v := range spec.Releases {
		if _, err := tables.Open("data/" + v.Tag() + ".tsv"); err == nil {
			out = append(out, v)
		}
	}
	return out
}()

// ReleaseOf returns the registry's facts of a release with a table: those
// of the last entry of factChanges at or before it in spec.Releases.
func ReleaseOf(v spec.Version) (Release, bool) {
	if !slices.Contains(Versions, v) {
		return Release{}, false
	}
	var cur Release
	for _, r := range spec.Releases {
		if i := slices.IndexFunc(factChanges, func(f Release) bool { return f.Version == r }); i >= 0 {
			cur = factChanges[i]
		}
		if r == v {
			cur.Version = v
			return cur, true
		}
	}
	return Release{}, false
}

// Param is one variable at one release: every way NCCL reads it.
type Param struct {
	Name string
	Rows []Row // sorted by Via
}

// IntParam returns the NCCL_PARAM row, if the variable is one.
func (p *Param) IntParam() (Row, bool) {
	for _, r := range p.Rows {
		if r.Via.IsParam() {
			return r, true
		}
	}
	return Row{}, false
}

// Typed returns the DEFINE_NCCL_PARAM row, if any.
func (p *Param) Typed() (Row, bool) {
	for _, r := range p.Rows {
		if r.Via.IsTyped() {
			return r, true
		}
	}
	return Row{}, false
}

// StringReads returns the rows of raw string reads.
func (p *Param) StringReads() []Row {
	var out []Row
	for _, r := range p.Rows {
		if r.Via.IsString() {
			out = append(out, r)
		}
	}
	return out
}

// Sites returns every read site of the variable, sorted and unique.
func (p *Param) Sites() []Site {
	var out []Site
	for _, r := range p.Rows {
		out = append(out, r.Reads...)
	}
	slices.SortFunc(out, cmpSite)
	return slices.CompactFunc(out, func(a, b Site) bool { return a == b })
}

// Read reports whether any code path reads the variable (an NCCL_PARAM
// that is declared but whose accessor nothing calls is not read).
func (p *Param) Read() bool { return len(p.Sites()) > 0 }

// Registry is the generated table of one release, indexed by name.
type Registry struct {
	Version spec.Version
	Table   *Table
	byName  map[string]*Param
	names   []string
	// gates are the gate links of Gates at this release, by variable,
	// derived on the first GatesFor from one load of the release's
	// ruleset.
	gatesOnce sync.Once
	gates     map[string][]spec.RuleID
}

// Load returns the generated registry of a release. Each call parses the
// embedded table afresh (about a millisecond), so nothing is cached in
// package state.
func Load(v spec.Version) (*Registry, error) {
	if !slices.Contains(Versions, v) {
		names := make([]string, len(Versions))
		for i, x := range Versions {
			names[i] = x.String()
		}
		return nil, fmt.Errorf("no NCCL parameter table for %s: tables exist for %s", v, strings.Join(names, ", "))
	}
	name := "data/" + v.Tag() + ".tsv"
	data, err := tables.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("parameter table %s missing from the build: %v", name, err)
	}
	t, err := ParseTable(name, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if t.Tag != v.Tag() {
		return nil, fmt.Errorf("%s: header names tag %s: expected %s", name, t.Tag, v.Tag())
	}
	return NewRegistry(v, t), nil
}

// TableBytes returns the embedded table file of a release, as checked in.
func TableBytes(v spec.Version) ([]byte, error) {
	return tables.ReadFile("data/" + v.Tag() + ".tsv")
}

// NewRegistry indexes a table.
func NewRegistry(v spec.Version, t *Table) *Registry {
	r := &Registry{Version: v, Table: t, byName: map[string]*Param{}}
	for _, row := range t.Rows {
		p := r.byName[row.Name]
		if p == nil {
			p = &Param{Name: row.Name}
			r.byName[row.Name] = p
			r.names = append(r.names, row.Name)
		}
		p.Rows = append(p.Rows, row)
	}
	slices.Sort(r.names)
	return r
}

// Lookup returns a variable by exact name.
func (r *Registry) Lookup(name string) (*Param, bool) {
	p, ok := r.byName[name]
	return p, ok
}

// reads reports whether the release reads the variable.
func (r *Registry) reads(name string) bool {
	p, ok := r.Lookup(name)
	return ok && p.Read()
}

// Names returns every variable name of the release, sorted.
func (r *Registry) Names() []string { return slices.Clone(r.names) }
