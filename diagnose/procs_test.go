package diagnose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// TestPredictProcsFromLog: gatesim hw run drives both GPUs of the h200x2
// capture from one process, and its log says so ("directMode 1", "via
// P2P/direct pointer"): the prediction runs one process per node and
// predicts the same connection path the log printed. A log that shows
// CUMEM connections and directMode 0 keeps one process per GPU.
func TestPredictProcsFromLog(t *testing.T) {
	dir := filepath.Join("..", "golden", "testdata", "captured", "h200x2-2.28.9", "baseline")
	data, err := os.ReadFile(filepath.Join(dir, "nccl.log"))
	if err != nil {
		t.Fatal(err)
	}
	xml, err := os.ReadFile(filepath.Join(dir, "topo.xml"))
	if err != nil {
		t.Fatal(err)
	}
	perGPU := strings.NewReplacer("directMode 1", "directMode 0", "via P2P/direct pointer", "via P2P/CUMEM").Replace(string(data))
	for _, tc := range []struct {
		name, log, path string
	}{
		{"captured in one process", string(data), "P2P/direct pointer"},
		{"one process per GPU", perGPU, "P2P/CUMEM"},
	} {
		l, err := ncclog.Parse(strings.NewReader(tc.log), "nccl.log")
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Transports) == 0 || l.Transports[0].Detail != tc.path {
			t.Fatalf("%s: the log's transports %+v: want %s", tc.name, l.Transports, tc.path)
		}
		sys, err := spec.SystemFromTopology("topo.xml", xml, 1)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Predict(l, 0, sys, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := p.Trace.Find("G-TRANSPORT-CONN-1")
		if !ok || !strings.HasSuffix(v.WhyText(), "via "+tc.path) {
			t.Errorf("%s: predicted %+v, want the path the log shows, %s", tc.name, v, tc.path)
		}
		if sys.Procs != spec.ProcsPerGPU {
			t.Errorf("%s: the caller's system was changed", tc.name)
		}
	}
}
