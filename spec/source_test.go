package spec

import (
	"fmt"
	"strings"
	"testing"
)

// TestSystemSource: exactly one machine, options only where they apply,
// and files read through the caller's reader.
func TestSystemSource(t *testing.T) {
	files := map[string]string{}
	read := func(p string) ([]byte, error) {
		if d, ok := files[p]; ok {
			return []byte(d), nil
		}
		return nil, fmt.Errorf("%s: no such file", p)
	}
	for _, tc := range []struct {
		src   SystemSource
		err   string
		ranks int
	}{
		{SystemSource{Preset: "h200x2"}, "", 2},
		{SystemSource{Preset: "dgx-h100", Nodes: 2}, "", 16},
		{SystemSource{}, "no machine", 0},
		{SystemSource{Preset: "h200x2", File: "a.yaml"}, "exclusive", 0},
		{SystemSource{File: "missing.yaml"}, "no such file", 0},
		{SystemSource{Topo: "missing.xml"}, "no such file", 0},
		{SystemSource{Preset: "h200x2", Plugins: []string{"nope.yaml"}}, "no such file", 0},
		{SystemSource{Preset: "nope"}, "nope", 0},
	} {
		sys, err := tc.src.Load(read)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: %v, want %q", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil || sys.NRanks() != tc.ranks {
			t.Errorf("%+v: %v", tc.src, err)
		}
	}
}

// TestOpSource: bytes or count, never both; 1MiB by default.
func TestOpSource(t *testing.T) {
	for _, tc := range []struct {
		src   OpSource
		count int64
		err   string
	}{
		{OpSource{Coll: "allreduce", DType: "float32", RedOp: "sum"}, 1 << 18, ""},
		{OpSource{Coll: "allreduce", Bytes: "1G", DType: "float32", RedOp: "sum"}, 1 << 28, ""},
		{OpSource{Coll: "allreduce", Count: 7, CountSet: true, DType: "float32", RedOp: "sum"}, 7, ""},
		{OpSource{Coll: "allreduce", Bytes: "1K", Count: 7, CountSet: true, DType: "float32", RedOp: "sum"}, 0, "exclusive"},
		{OpSource{Coll: "nope", DType: "float32", RedOp: "sum"}, 0, "nope"},
		{OpSource{Coll: "allreduce", Bytes: "3", DType: "float32", RedOp: "sum"}, 0, "3"},
	} {
		op, err := tc.src.Op()
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: %v, want %q", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil || op.Count != tc.count {
			t.Errorf("%+v: count %d, %v; want %d", tc.src, op.Count, err, tc.count)
		}
	}
	if vs, err := ParseReleases("2.22.3,2.28.9"); err != nil || len(vs) != 2 {
		t.Errorf("ParseReleases = %v, %v", vs, err)
	}
	if _, err := ParseReleases(" , "); err == nil {
		t.Errorf("ParseReleases of nothing: no error")
	}
}
