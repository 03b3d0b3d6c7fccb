package params

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestSpecHooks: NCCL_ALGO/NCCL_PROTO are judged by spec's parser of the
// release (2.22.3 misreads silently, later releases fail the init), and
// the gate effect runs only with a system.
func TestSpecHooks(t *testing.T) {
	for _, tc := range []struct {
		v           spec.Version
		name, value string
		err         string
	}{
		{spec.V2_28_9, "NCCL_ALGO", "Ring", ""},
		{spec.V2_28_9, "NCCL_ALGO", "Rnig", "communicator creation fails"},
		{spec.V2_28_9, "NCCL_PROTO", "Simple", ""},
	} {
		err := SpecGrammar(tc.v, tc.name, tc.value)
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s %s=%s: %v, want %q", tc.v, tc.name, tc.value, err, tc.err)
		}
	}
	if SpecEffect(nil, nil) != nil {
		t.Errorf("a gate effect without a system")
	}
	sys, _ := spec.Preset("h200x2", spec.PresetOptions{})
	op, _ := spec.OpFromBytes(spec.AllReduce, 1<<20, spec.Float32, spec.Sum, 0)
	eff, err := SpecEffect(sys, []spec.Op{op})(spec.V2_28_9, spec.Env{"NCCL_ALGO": "Tree"}, "NCCL_ALGO")
	if err != nil || eff == "" {
		t.Errorf("NCCL_ALGO=Tree on h200x2: effect %q, %v", eff, err)
	}
}

// TestRenderReport: the summary, one row per variable, the findings with
// file:line, and what the gate effect needs.
func TestRenderReport(t *testing.T) {
	reg, err := Load(spec.V2_28_9)
	if err != nil {
		t.Fatal(err)
	}
	rep := Lint(reg, []Assignment{{Name: "NCCL_ALGOS", Value: "Ring", Line: 3, Source: SourceArgument, Exported: true}}, Options{Grammar: SpecGrammar})
	out := RenderReport(rep, "job.sh")
	for _, want := range []string{"NCCL 2.28.9", "1 variable(s)", "NCCL_ALGOS", "job.sh:3: NCCL_ALGOS", "not computed: give --system"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(ReleaseList(), "2.28.9") {
		t.Errorf("ReleaseList = %q", ReleaseList())
	}
}

// TestArgAssignments: NAME=VALUE arguments, each exported; anything else
// names the argument.
func TestArgAssignments(t *testing.T) {
	a, err := ArgAssignments([]string{"NCCL_ALGO=Ring", "NCCL_PROTO="})
	if err != nil || len(a) != 2 || a[1].Value != "" || !a[0].Exported || a[0].Source != SourceArgument {
		t.Errorf("ArgAssignments = %+v, %v", a, err)
	}
	for _, bad := range []string{"NCCL_ALGO", "=1", "1BAD=2"} {
		if _, err := ArgAssignments([]string{bad}); err == nil || !strings.Contains(err.Error(), "argument 1") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
