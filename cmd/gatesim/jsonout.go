package main

import (
	"fmt"
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

// jsonOutput is one command's --json output: its name (docs/schema/NAME.
// schema.json), the schema version it carries, and its Go type. A changed
// or removed field bumps the version; an added one does not.
type jsonOutput struct {
	name    string
	version int
	typ     reflect.Type
}

// jsonOutputs lists every --json output; jsonOutputs_test.go generates the
// schemas from the types and validates each command's output against its
// own. The oracle streams its own versioned answers (oracle.Answer).
var jsonOutputs = []jsonOutput{
	{"explain", 1, reflect.TypeFor[explain.Output]()},
	{"rules", 1, reflect.TypeFor[explain.Rules]()},
	{"rules-diff", 1, reflect.TypeFor[explain.RulesDiff]()},
	{"table", 1, reflect.TypeFor[explain.Table]()},
	{"table-diff", 1, reflect.TypeFor[explain.TableDiff]()},
	{"topo-search", 1, reflect.TypeFor[topo.Result]()},
	{"sim", 1, reflect.TypeFor[plan.Report]()},
	{"whatif", 1, reflect.TypeFor[whatif.JSONOutput]()},
	{"env", 1, reflect.TypeFor[params.Report]()},
	{"diagnose", 1, reflect.TypeFor[diagnose.Output]()},
	{"group", 1, reflect.TypeFor[explain.GroupScript]()},
	{"version", 1, reflect.TypeFor[versionJSON]()},
	{"releases", 1, reflect.TypeFor[explain.Releases]()},
	{"topo-presets", 1, reflect.TypeFor[explain.HostPresets]()},
	{"hw-info", 1, reflect.TypeFor[hw.ProbeResult]()},
	{"hw-run", 1, reflect.TypeFor[conformance.RunResult]()},
	{"hw-compare", 1, reflect.TypeFor[hw.CompareOutput]()},
	{"hw-check", 1, reflect.TypeFor[hw.CheckOutput]()},
	{"hw-replay", 1, reflect.TypeFor[hw.ReplayOutput]()},
}

// outVersion is the schema version of the --json output name.
func outVersion(name string) (int, error) {
	for _, o := range jsonOutputs {
		if o.name == name {
			return o.version, nil
		}
	}
	return 0, fmt.Errorf("internal: no --json output named %s", name)
}

// writeOut prints v as the --json output name: "schema" first, snake_case
// keys, floats rounded (internal/jsonout).
func writeOut(d *deps, name string, v any) error {
	for _, o := range jsonOutputs {
		if o.name != name {
			continue
		}
		t := reflect.TypeOf(v)
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t != o.typ {
			return fmt.Errorf("internal: --json output %s is a %s, registered as %s", name, t, o.typ)
		}
		return jsonout.Write(d.stdout, o.version, v)
	}
	return fmt.Errorf("internal: no --json output named %s", name)
}
