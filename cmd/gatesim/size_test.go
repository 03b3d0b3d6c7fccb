package main

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/hw"
)

// TestOneSizeGrammar: 1G is 2^30 bytes in every command that takes a size,
// as nccl-tests' -b/-e read it.
func TestOneSizeGrammar(t *testing.T) {
	const want = "1073741824"
	check := func(name string, args []string, stdin string, has string) {
		t.Helper()
		code, out, errs := runCLIIn(t, stdin, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		if !strings.Contains(out, has) {
			t.Errorf("%s: output lacks %q:\n%s", name, has, out)
		}
	}
	// explain and sim print the count of float32 elements and the bytes.
	check("explain", []string{"explain", "--system", "h200x2", "--coll", "allreduce", "--bytes", "1G", "--json"}, "", `"count": 268435456`)
	check("sim", []string{"sim", "--system", "h200x2", "--coll", "allreduce", "--bytes", "1G", "--json"}, "", `"bytes": `+want)
	check("whatif", []string{"whatif", "--system", "h200x2", "--nccl", "2.28.9", "--coll", "allreduce", "--sizes", "1G", "--format", "csv", "--no-sim"}, "", ","+want+",")
	// The oracle answers "1G" exactly as it answers 2^30 written out.
	req := func(b string) string {
		return `{"nccl":"2.28.9","system":"h200x2","op":{"coll":"allreduce","bytes":` + b + `}}` + "\n"
	}
	_, a, _ := runCLIIn(t, req(`"1G"`), "oracle")
	_, b, _ := runCLIIn(t, req(want), "oracle")
	_, c, _ := runCLIIn(t, req(`"1000000000"`), "oracle")
	if a != b || !strings.Contains(a, `"status":"ok"`) {
		t.Errorf("oracle: 1G answers\n%s\nbut 2^30 answers\n%s", a, b)
	}
	if a == c {
		t.Errorf("oracle: 1G answered as 10^9 bytes")
	}
	// hw run -b 1G -e 1G measures one size of 2^30 bytes.
	job, err := hw.RunRequest{Colls: "allreduce", DataType: "float", RedOp: "sum", MinBytes: "1G", MaxBytes: "1G", Factor: 2,
		Agg: 1, Cycles: 1, Buffers: "user", Getenv: func(string) string { return "" }}.Job()
	if err != nil || len(job.Plan.Sizes) != 1 || job.Plan.Sizes[0] != 1<<30 {
		t.Errorf("hw run -b 1G -e 1G: %v, %v", job, err)
	}
}
