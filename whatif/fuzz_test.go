package whatif

import (
	"strings"
	"testing"
)

// FuzzSweepFile: any sweep file is read and expanded (not run) without a
// panic, into at most MaxPoints points, or refused naming the file or the
// sweep.
func FuzzSweepFile(f *testing.F) {
	for _, s := range []string{
		"nccl: [2.28.9]\nsystems: [{preset: dgx-h100, nodes: [1, 2], sharp: [false, true]}]\nsizes: {from: 4KiB, to: 16GiB, factor: 4}\n",
		`{"nccl":["2.22.3","2.28.9"],"systems":[{"preset":"h200x2","gpus":[2,4]}],"colls":["allreduce","allgather"],"sizes":{"list":["1MiB","1GiB"]}}`,
		// the hostile inputs: ten million points, nodes past the limit, a
		// billion-laughs YAML, sizes overflowing, negative GPUs
		"nccl: [2.28.9, 2.22.3]\nsystems: [{preset: dgx-h100, nodes: [1,2,4,8,16,32,64,128,256,512], gpus: [1,2,3,4,5,6,7,8,9,10]}]\nsizes: {from: \"1\", to: 1TiB, factor: 2}\ncolls: [allreduce, allgather, reducescatter, broadcast, reduce]\nenv: [{name: a}, {name: b}, {name: c}]\n",
		"nccl: [2.28.9]\nsystems: [{preset: dgx-h100, nodes: [131072, 9223372036854775807]}]\n",
		"a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n",
		"nccl: [2.28.9]\nsystems: [{preset: dgx-h100}]\nsizes: {from: 8EiB, to: 9223372036854775807, factor: 9223372036854775807}\n",
		"nccl: [2.28.9]\nsystems: [{preset: dgx-h100, gpus: [-5], nodes: [16384, 16384, 16384, 16384, 16384]}]\n",
		"nccl: [70000]\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sw, err := ParseSweep("fuzz.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.yaml: ") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		pts, err := Expand(sw)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "sweep: ") {
				t.Fatalf("error without its subject: %v", err)
			}
			return
		}
		if len(pts) == 0 || len(pts) > MaxPoints {
			t.Fatalf("%d points", len(pts))
		}
	})
}
