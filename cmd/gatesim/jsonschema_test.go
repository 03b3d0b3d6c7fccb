package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/goldenfile"
	"github.com/gatesim/gatesim/internal/jsonout"
	"github.com/gatesim/gatesim/whatif"
	"github.com/spf13/cobra"
)

// jsonRuns are the --json outputs that run without a GPU, each with a
// command that makes it; the others (hw info, run, compare, replay) have
// their schema generated and are held to it by type.
var jsonRuns = map[string][][]string{
	"explain":      {{"explain", "--system", "dgx-h100", "--nodes", "2", "--sharp", "--env", "NCCL_COLLNET_ENABLE=1", "--json"}, {"explain", "--nccl", "2.22.3,2.28.9", "--system", "v100x4", "--json"}, {"explain", "--nccl", "2.22.3,2.28.9", "--system", "dgx-h100", "--buffers", "window", "--json"}},
	"rules":        {{"rules", "--nccl", "2.22.3", "--json"}},
	"rules-diff":   {{"rules", "diff", "2.22.3", "2.28.9", "--json"}},
	"table":        {{"table", "--system", "dgx-h100", "--nodes", "2", "--graphs", "--json"}},
	"table-diff":   {{"table", "--nccl", "2.22.3,2.28.9", "--system", "dgx-h100", "--json"}},
	"topo-search":  {{"topo", "search", "--preset", "dgx-h100", "--nodes", "2", "--json"}},
	"sim":          {{"sim", "--system", "h200x2", "--bytes", "1MiB", "--verify", "--json"}, {"sim", "--system", "dgx-h100", "--nodes", "2", "--sharp", "--env", "NCCL_COLLNET_ENABLE=1", "--json"}, {"sim", "--system", "dgx-h100", "--buffers", "window", "--bytes", "1MiB", "--json"}},
	"whatif":       {{"whatif", "--system", "dgx-h100", "--nodes", "1,2", "--nccl", "2.22.3,2.28.9", "--sizes", "4KiB,1GiB", "--format", "json"}, {"whatif", "--system", "h200x2", "--sizes", "1MiB", "--no-sim", "--json"}, {"whatif", "--system", "h200x2", "--sizes", "8MiB", "--agg", "8", "--no-sim", "--json"}, {"whatif", "--system", "dgx-h100", "--nccl", "2.22.3,2.28.9", "--coll", "allreduce,sendrecv", "--sizes", "0,1MiB", "--buffers", "window", "--no-sim", "--json"}},
	"env":          {{"env", "--nccl", "2.28.9", "--file", "../../examples/job.sh", "--system", "dgx-h100", "--json"}},
	"diagnose":     {{"diagnose", "../../examples/hgx-ring.log", "--json"}, {"diagnose", "../../examples/nccl.log", "--topo", "../../examples/topo.xml", "--json"}},
	"group":        {{"group", "../../examples/calls.txt", "--json"}},
	"version":      {{"version", "--json"}},
	"releases":     {{"releases", "--json"}},
	"topo-presets": {{"topo", "presets", "--json"}},
	"hw-check":     {{"hw", "check", "--from", "../../golden/testdata/captured/h200x2-2.28.9", "--json"}},
}

// TestJSONSchemas writes docs/schema/NAME.schema.json from each output's Go
// type (-update) and validates every output a command prints against its
// schema: "schema" first, snake_case field names, no field the schema
// lacks, every required one present, the types right.
func TestJSONSchemas(t *testing.T) {
	schemas := map[string]map[string]any{}
	for _, o := range jsonOutputs {
		s := jsonout.Schema("gatesim "+strings.ReplaceAll(o.Name, "-", " ")+" --json", o.Version, o.Type)
		b, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		goldenfile.Check(t, filepath.Join("..", "..", "docs", "schema", o.Name+".schema.json"), string(b)+"\n", *update)
		// validate against the schema as written, not the in-memory map
		var back map[string]any
		json.Unmarshal(b, &back)
		schemas[o.Name] = back
	}
	// whatif's point declares every column whatif writes (its CSV header)
	// and no other: an output column added without its property fails
	// here, and its records fail validation below
	point, _ := dig(schemas["whatif"], "properties", "points", "items")
	props, _ := point["properties"].(map[string]any)
	if point["additionalProperties"] != false || len(props) == 0 {
		t.Errorf("whatif: a point's schema declares no properties (%v)", point)
	}
	for _, k := range whatif.Header {
		if _, ok := props[k]; !ok {
			t.Errorf("whatif: a point's column %s is not in its schema", k)
		}
	}
	for name, runs := range jsonRuns {
		s, ok := schemas[name]
		if !ok {
			t.Errorf("%s: no registered output", name)
			continue
		}
		for _, args := range runs {
			code, out, stderr := runCLI(t, args...)
			if code != 0 {
				t.Errorf("%v: exit %d: %s", args, code, stderr)
				continue
			}
			if !strings.HasPrefix(out, "{\n  \"schema\": ") {
				t.Errorf("%v: output does not start with \"schema\"", args)
			}
			var doc any
			dec := json.NewDecoder(strings.NewReader(out))
			if err := dec.Decode(&doc); err != nil {
				t.Errorf("%v: not JSON: %v", args, err)
				continue
			}
			errs := jsonout.Validate(s, doc)
			for i, e := range errs {
				if i == 10 {
					t.Errorf("%v: ... %d more", args, len(errs)-10)
					break
				}
				t.Errorf("%v: %s", args, e)
			}
			if bytes.Contains([]byte(out), []byte("99999999")) || bytes.Contains([]byte(out), []byte("00000001")) {
				t.Errorf("%v: a float is printed with float noise", args)
			}
		}
	}
}

// dig is the object at a path of keys in a decoded schema.
func dig(m map[string]any, keys ...string) (map[string]any, bool) {
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil, false
		}
		m = next
	}
	return m, true
}

// TestEveryJSONFlagHasASchema: a command with --json prints a registered
// output.
func TestEveryJSONFlagHasASchema(t *testing.T) {
	names := map[string]string{ // command path → output
		"gatesim explain": "explain", "gatesim rules": "rules", "gatesim rules diff": "rules-diff", "gatesim table": "table",
		"gatesim topo search": "topo-search", "gatesim sim": "sim", "gatesim env": "env", "gatesim diagnose": "diagnose",
		"gatesim group": "group", "gatesim version": "version", "gatesim releases": "releases", "gatesim hw info": "hw-info", "gatesim hw run": "hw-run",
		"gatesim hw compare": "hw-compare", "gatesim hw check": "hw-check", "gatesim hw replay": "hw-replay", "gatesim whatif": "whatif",
		"gatesim topo presets": "topo-presets",
	}
	registered := map[string]bool{}
	for _, o := range jsonOutputs {
		registered[o.Name] = true
	}
	var missing []string
	var visit func(c *cobra.Command)
	visit = func(c *cobra.Command) {
		if c.Flags().Lookup("json") != nil {
			if n, ok := names[c.CommandPath()]; !ok || !registered[n] {
				missing = append(missing, c.CommandPath())
			}
		}
		for _, s := range c.Commands() {
			visit(s)
		}
	}
	visit(newRootCmd(&deps{}))
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("commands with --json and no registered output: %v", missing)
	}
}
