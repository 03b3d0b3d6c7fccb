package explain

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/gatesim/gatesim/spec"
)

// offloadAlgos are the cost table's rows of each offload the summary
// reports.
var offloadAlgos = map[string][]string{"CollNet": {"CollNetDirect", "CollNetChain"}, "NVLS": {"NVLS"}, "NVLSTree": {"NVLSTree"}, "PAT": {"PAT"}}

var (
	offloadLine = regexp.MustCompile(`^(CollNet|NVLS|NVLSTree|PAT)\b`)
	usableCell  = regexp.MustCompile(`^\*?[0-9]+\.[0-9]+$`)
	bestCell    = regexp.MustCompile(`; this operation: candidate, not chosen \(best (\w+)/(\w+) ([0-9.]+) µs\)$`)
	prunedBy    = regexp.MustCompile(`pruned by (G-[A-Z0-9-]+)`)
)

// explainText is what gatesim explain prints for one release, wide enough
// that no line folds.
func explainText(v spec.Version, sys *spec.System, env spec.Env, op spec.Op) (string, error) {
	w, err := One(v, sys, env, op, nil)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	err = WriteText(&buf, sys, env, op, []Walk{w}, TextOptions{Width: 1000})
	return buf.String(), err
}

// summaryAgrees checks one release's explain text: every offload line of
// the summary says, for the operation, what the cost table shows. A
// candidate names a usable cell of the offload's rows with its time; a
// pruned offload has no usable cell and the rule named is in its rows; a
// selected one holds the choice; one stopped at a gate has no usable
// cell; without a cost table no line speaks for the operation. Every
// offload row with a usable cell has a line calling it selected or a
// candidate.
func summaryAgrees(out string) error {
	head, table, _ := strings.Cut(out, "\n\n")
	rows := map[string][]string{}
	for _, l := range strings.Split(table, "\n") {
		f := strings.Split(l, "|")
		if len(f) != 6 || strings.TrimSpace(f[1]) == "algorithm" {
			continue
		}
		rows[strings.TrimSpace(f[1])] = []string{strings.TrimSpace(f[2]), strings.TrimSpace(f[3]), strings.TrimSpace(f[4])}
	}
	usable := func(cap string) bool {
		for _, a := range offloadAlgos[cap] {
			for _, c := range rows[a] {
				if usableCell.MatchString(c) {
					return true
				}
			}
		}
		return false
	}
	said := map[string]bool{}
	for _, l := range strings.Split(head, "\n") {
		l = strings.TrimSpace(l)
		for _, part := range strings.Split(l, "; ") {
			// the selected offloads share a line
			if m := offloadLine.FindString(part); m != "" && strings.HasSuffix(part, " selected") {
				chosen := false
				for _, a := range append(slices.Clone(offloadAlgos[m]), map[string]string{"NVLS": "NVLSTree"}[m]) {
					chosen = chosen || slices.ContainsFunc(rows[a], func(c string) bool { return strings.HasPrefix(c, "*") })
				}
				if !chosen {
					return fmt.Errorf("%q: the table's choice is not %s's", part, m)
				}
				said[m] = true
			}
		}
		cap := offloadLine.FindString(l)
		switch {
		case cap == "" || strings.HasSuffix(l, " selected"):
		case strings.Contains(l, " stopped at "):
			if usable(cap) {
				return fmt.Errorf("%q: the table has a usable %s cell", l, cap)
			}
		case !strings.HasPrefix(l, cap+": communicator "):
			return fmt.Errorf("%q: neither selected, stopped nor the communicator's level", l)
		case len(rows) == 0:
			if strings.Contains(l, "this operation") {
				return fmt.Errorf("%q: speaks for an operation without a cost table", l)
			}
		case bestCell.MatchString(l):
			m := bestCell.FindStringSubmatch(l)
			col := map[string]int{"LL": 0, "LL128": 1, "Simple": 2}[m[2]]
			if !slices.Contains(offloadAlgos[cap], m[1]) || rows[m[1]] == nil || rows[m[1]][col] != m[3] {
				return fmt.Errorf("%q: the table's %s/%s cell is %q", l, m[1], m[2], rows[m[1]])
			}
			said[cap] = true
		case strings.Contains(l, "; this operation: ") && prunedBy.MatchString(l):
			if usable(cap) {
				return fmt.Errorf("%q: the table has a usable %s cell", l, cap)
			}
			for _, m := range prunedBy.FindAllStringSubmatch(l, -1) {
				in := false
				for _, a := range offloadAlgos[cap] {
					in = in || slices.Contains(rows[a], "— "+m[1])
				}
				if !in {
					return fmt.Errorf("%q: no %s row of the table names %s", l, cap, m[1])
				}
			}
		default:
			return fmt.Errorf("%q: says nothing of the operation, which has a cost table", l)
		}
	}
	for cap := range offloadAlgos {
		if usable(cap) && !said[cap] {
			return fmt.Errorf("the table has a usable %s cell the summary does not call a candidate", cap)
		}
	}
	return nil
}

// TestSummaryPrunedOffloads: one DGX B200 host whose GPUs reach each
// other neither by P2P nor SHM is two NCCL nodes (G-TOPO-1). At 2.19.1
// init sets NVLS and the NVLS tree up (candidate), but an AllGather
// prunes NVLS across nodes without CollNet (G-SEL-PRUNE-1 P5) and has no
// NVLSTree (G-TUNE-IMPL-1): the summary says so for the operation, as the
// table does, and no longer calls either a candidate outright.
func TestSummaryPrunedOffloads(t *testing.T) {
	sys, err := spec.Preset("dgx-b200", spec.PresetOptions{SHARP: true})
	if err != nil {
		t.Fatal(err)
	}
	env := spec.Env{"NCCL_COLLNET_ENABLE": "0", "NCCL_IB_DISABLE": "1", "NCCL_P2P_DISABLE": "1"}
	op := spec.Op{Func: spec.AllGather, Count: 1, DataType: spec.Int8, RedOp: spec.Sum}
	out, err := explainText(spec.V2_19_1, sys, env, op)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"NVLS: communicator candidate (G-NVLS-SETUP-1); this operation: pruned by G-SEL-PRUNE-1 (P5: multi-node NVLS needs CollNet support for this operation)",
		"NVLSTree: communicator candidate (G-NVLSTREE-1); this operation: pruned by G-TUNE-IMPL-1 (AllGather has no NVLSTree algorithm in this release)",
		"| NVLS          | — G-SEL-PRUNE-1 | — G-SEL-PRUNE-1  | — G-SEL-PRUNE-1 |",
		"| NVLSTree      | — G-TUNE-IMPL-1 | — G-TUNE-IMPL-1  | — G-TUNE-IMPL-1 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "NVLS candidate") || strings.Contains(out, "NVLSTree candidate") {
		t.Errorf("the summary calls a pruned offload a candidate:\n%s", out)
	}
	if err := summaryAgrees(out); err != nil {
		t.Errorf("%v:\n%s", err, out)
	}
}

// TestSummaryAgreesWithTable: across presets, node counts, SHARP, the
// variables that turn offloads on and off, collectives, sizes and
// releases, the summary's offload lines and the cost table agree.
func TestSummaryAgreesWithTable(t *testing.T) {
	envs := []spec.Env{nil, {"NCCL_COLLNET_ENABLE": "1"}, {"NCCL_NVLS_ENABLE": "0"}, {"NCCL_COLLNET_ENABLE": "0", "NCCL_IB_DISABLE": "1", "NCCL_P2P_DISABLE": "1"},
		{"NCCL_ALGO": "Ring"}, {"NCCL_PAT_ENABLE": "1"}}
	funcs := []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter, spec.Broadcast, spec.Reduce, spec.SendRecv}
	rapid.Check(t, func(rt *rapid.T) {
		v := rapid.SampledFrom(spec.Releases).Draw(rt, "release")
		preset := rapid.SampledFrom([]string{"dgx-a100", "dgx-b200", "dgx-h100", "gb200-nvl72", "h200x2", "v100x4"}).Draw(rt, "preset")
		o := spec.PresetOptions{Nodes: rapid.SampledFrom([]int{1, 2, 4}).Draw(rt, "nodes"), SHARP: rapid.Bool().Draw(rt, "sharp")}
		env := rapid.SampledFrom(envs).Draw(rt, "env")
		dt := rapid.SampledFrom([]spec.DataType{spec.Int8, spec.Float32, spec.Bfloat16}).Draw(rt, "dtype")
		op := spec.Op{Func: rapid.SampledFrom(funcs).Draw(rt, "func"), Count: rapid.SampledFrom([]int64{1, 4096, 1 << 20, 1 << 28}).Draw(rt, "count"), DataType: dt, RedOp: spec.Sum}
		sys, err := spec.Preset(preset, o)
		if err != nil {
			rt.Fatal(err)
		}
		out, err := explainText(v, sys, env, op)
		if err != nil {
			rt.Fatal(err)
		}
		if err := summaryAgrees(out); err != nil {
			rt.Fatalf("%v:\n%s", err, out)
		}
	})
}
