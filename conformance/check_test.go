package conformance

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestWriteCheck: the summary counts each kind, and only the rows that
// differ are listed unless verbose.
func TestWriteCheck(t *testing.T) {
	rep := &CheckReport{Config: "baseline", Release: spec.V2_28_9, Rows: []CheckRow{
		{Kind: "graph", What: "ring", Predicted: "a", Observed: "a", Agree: true},
		{Kind: "channels", What: "nChannels", Predicted: "24", Observed: "16", Agree: false},
	}}
	for _, tc := range []struct {
		verbose bool
		want    []string
		not     []string
	}{
		{false, []string{"1 differ", "| agree ", "DIFFER", "nChannels"}, []string{"| ring "}},
		{true, []string{"| ring ", "nChannels"}, nil},
	} {
		var b bytes.Buffer
		if err := WriteCheck(&b, []*CheckReport{rep}, tc.verbose); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("verbose %v: lacks %q:\n%s", tc.verbose, w, b.String())
			}
		}
		for _, w := range tc.not {
			if strings.Contains(b.String(), w) {
				t.Errorf("verbose %v: has %q:\n%s", tc.verbose, w, b.String())
			}
		}
	}
}

func TestCheckVerdict(t *testing.T) {
	agree := &CheckReport{Rows: []CheckRow{{Agree: true}}}
	differ := &CheckReport{Rows: []CheckRow{{Agree: false}, {Agree: false}}}
	blind := &CheckReport{NotComparable: []string{"no graph dump"}}
	for _, tc := range []struct {
		reps []*CheckReport
		want string
	}{
		{[]*CheckReport{agree, agree}, ""},
		{[]*CheckReport{agree, differ}, "2 item(s) differ"},
		{[]*CheckReport{blind, differ}, "2 item(s) differ"},
		// missing evidence is no difference: it is listed, not counted
		{[]*CheckReport{agree, blind}, ""},
		{[]*CheckReport{blind}, ""},
	} {
		err := CheckVerdict(tc.reps)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%d reports: %v, want %q", len(tc.reps), err, tc.want)
		}
	}
}
