package main

import (
	"reflect"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/diagnose"
	"github.com/gatesim/gatesim/explain"
	"github.com/gatesim/gatesim/hw"
	"github.com/gatesim/gatesim/internal/jsonout"
	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/spec/params"
	"github.com/gatesim/gatesim/spec/topo"
	"github.com/gatesim/gatesim/whatif"
)

// jsonOutputs lists every --json output; jsonOutputs_test.go generates the
// schemas from the types and validates each command's output against its
// own. The oracle streams its own versioned answers (oracle.Answer).
var jsonOutputs = jsonout.Registry{
	{Name: "explain", Version: 1, Type: reflect.TypeFor[explain.Output]()},
	{Name: "rules", Version: 1, Type: reflect.TypeFor[explain.Rules]()},
	{Name: "rules-diff", Version: 1, Type: reflect.TypeFor[explain.RulesDiff]()},
	{Name: "table", Version: 1, Type: reflect.TypeFor[explain.Table]()},
	{Name: "table-diff", Version: 1, Type: reflect.TypeFor[explain.TableDiff]()},
	{Name: "topo-search", Version: 1, Type: reflect.TypeFor[topo.Result]()},
	{Name: "sim", Version: 1, Type: reflect.TypeFor[plan.Report]()},
	{Name: "whatif", Version: 2, Type: reflect.TypeFor[whatif.JSONOutput]()},
	{Name: "env", Version: 1, Type: reflect.TypeFor[params.Report]()},
	{Name: "diagnose", Version: 1, Type: reflect.TypeFor[diagnose.Output]()},
	{Name: "group", Version: 1, Type: reflect.TypeFor[explain.GroupScript]()},
	{Name: "version", Version: 1, Type: reflect.TypeFor[versionJSON]()},
	{Name: "releases", Version: 1, Type: reflect.TypeFor[explain.Releases]()},
	{Name: "topo-presets", Version: 1, Type: reflect.TypeFor[explain.HostPresets]()},
	{Name: "hw-info", Version: 1, Type: reflect.TypeFor[hw.ProbeResult]()},
	{Name: "hw-run", Version: 1, Type: reflect.TypeFor[conformance.RunResult]()},
	{Name: "hw-compare", Version: 1, Type: reflect.TypeFor[hw.CompareOutput]()},
	{Name: "hw-check", Version: 1, Type: reflect.TypeFor[hw.CheckOutput]()},
	{Name: "hw-replay", Version: 1, Type: reflect.TypeFor[hw.ReplayOutput]()},
}

// outVersion is the schema version of the output named name.
func outVersion(name string) (int, error) { return jsonOutputs.Version(name) }

// writeOut prints v as the --json output named name.
func writeOut(d *deps, name string, v any) error { return jsonOutputs.Write(d.stdout, name, v) }
