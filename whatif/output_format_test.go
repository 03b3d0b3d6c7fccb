package whatif

import (
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		format string
		asJSON bool
		want   string
		err    string
	}{
		{"table", false, "table", ""},
		{"csv", false, "csv", ""},
		{"table", true, "json", ""},
		{"json", true, "json", ""},
		{"csv", true, "", "give one"},
		{"xml", false, "", "expected table, csv or json"},
	} {
		got, err := Format(tc.format, tc.asJSON)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("Format(%q, %v) = %q, %v; want %q, %q", tc.format, tc.asJSON, got, err, tc.want, tc.err)
		}
	}
}
