package conformance

import (
	"fmt"
	"io"
	"strings"

	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/spec"
)

// CaptureLaunch is how a capture's operations were issued: Agg per group
// (0 where the result does not record it, which decides as 1 but lets a
// [Symmetric] line name its group), captured into CUDA graphs when the run
// timed graphs.
func CaptureLaunch(r *RunResult) spec.Launch {
	l := spec.Launch{Agg: r.Agg}
	if r.Timing == "graph" {
		l.Mode = spec.LaunchGraph
	}
	return l
}

// CaptureBuffers is how a capture's buffers reached NCCL and how they were
// allocated: gatesim's hw run allocates user and registered buffers with
// cudaMalloc and window buffers with ncclMemAlloc (cuMem), which decides
// what NCCL can register (G-REG-SKIP-1).
func CaptureBuffers(r *RunResult) (spec.Buffers, spec.Alloc, error) {
	alloc := "cudamalloc"
	if r.Buffers == spec.BuffersWindow.String() {
		alloc = "cumem"
	}
	return spec.ParseBuffersAlloc(r.Buffers, alloc)
}

// NCCLEnv is the environment NCCL read: the run's variables without the
// ones that only steer logging and dumps.
func NCCLEnv(e spec.Env) spec.Env {
	out := spec.Env{}
	for k, v := range e {
		switch {
		case !strings.HasPrefix(k, "NCCL_"), strings.HasPrefix(k, "NCCL_DEBUG"),
			k == "NCCL_TOPO_DUMP_FILE", k == "NCCL_GRAPH_DUMP_FILE", k == "NCCL_VERSION":
			continue
		}
		out[k] = v
	}
	return out
}

// CheckReport is one capture's predicted-versus-observed table.
type CheckReport struct {
	Config  string       `json:"config"`
	Dir     string       `json:"dir"`
	Release spec.Version `json:"release"`
	Env     spec.Env     `json:"env"`
	Rows    []CheckRow   `json:"rows"`
	Gates   Tally        `json:"gates"`
	Table   Tally        `json:"table"`
	Ops     Tally        `json:"ops"`
	// NotComparable lists the evidence the capture lacks; when it is not
	// empty the capture neither agrees nor disagrees.
	NotComparable []string `json:"not_comparable,omitempty"`
}

// Tally counts compared items and those that agree.
type Tally struct {
	Total int `json:"total"`
	Agree int `json:"agree"`
}

// CheckRow is one compared item.
type CheckRow struct {
	Kind      string `json:"kind"` // init, graph, channels, model, op
	What      string `json:"what"`
	Predicted string `json:"predicted"`
	Observed  string `json:"observed"`
	Agree     bool   `json:"agree"`
	Note      string `json:"note,omitempty"`
}

// Add records one compared item: it agrees when pred and obs are equal.
func (r *CheckReport) Add(kind, what, pred, obs string) {
	r.Rows = append(r.Rows, CheckRow{Kind: kind, What: what, Predicted: pred, Observed: obs, Agree: pred == obs})
}

// AddTally records a counted comparison: it agrees when every item does.
func (r *CheckReport) AddTally(kind, what string, t Tally, note string) {
	r.Rows = append(r.Rows, CheckRow{Kind: kind, What: what, Predicted: fmt.Sprintf("%d compared", t.Total),
		Observed: fmt.Sprintf("%d agree", t.Agree), Agree: t.Agree == t.Total, Note: note})
}

// CheckVerdict is nil when every compared item agrees, and otherwise says
// how many differ. What a capture lacks the evidence for (NotComparable)
// is no difference: WriteCheck lists it.
func CheckVerdict(reps []*CheckReport) error {
	bad := 0
	for _, rep := range reps {
		bad += rep.Disagreements()
	}
	if bad > 0 {
		return fmt.Errorf("%d item(s) differ from the prediction", bad)
	}
	return nil
}

// incomparable counts the reports with something not comparable.
func incomparable(reps []*CheckReport) int {
	n := 0
	for _, rep := range reps {
		if len(rep.NotComparable) > 0 {
			n++
		}
	}
	return n
}

// Disagreements counts the rows that differ.
func (r *CheckReport) Disagreements() int {
	n := 0
	for _, row := range r.Rows {
		if !row.Agree {
			n++
		}
	}
	return n
}

// WriteCheck prints one summary row per capture, then the rows that differ
// (every row with verbose).
func WriteCheck(w io.Writer, reps []*CheckReport, verbose bool) error {
	var rows [][]string
	for _, r := range reps {
		status := "agree"
		if n := r.Disagreements(); n > 0 {
			status = fmt.Sprintf("%d differ", n)
		} else if len(r.NotComparable) > 0 {
			status = "not comparable"
		}
		graphs, channels := "-", "-"
		for _, row := range r.Rows {
			switch row.Kind {
			case "graph":
				if graphs == "-" || !row.Agree {
					graphs = agreeWord(row.Agree)
				}
			case "channels":
				channels = agreeWord(row.Agree)
			}
		}
		rows = append(rows, []string{r.Config, r.Release.String(), r.Env.Line(), fmt.Sprintf("%d/%d", r.Gates.Agree, r.Gates.Total), graphs, channels,
			fmt.Sprintf("%d/%d", r.Table.Agree, r.Table.Total), fmt.Sprintf("%d/%d", r.Ops.Agree, r.Ops.Total), status})
	}
	if err := texttable.Write(w, []string{"config", "nccl", "env", "gates", "graphs", "channels", "table cells", "op lines", "result"}, rows, 48); err != nil {
		return err
	}
	for _, r := range reps {
		if len(r.NotComparable) > 0 {
			fmt.Fprintf(w, "\n%s (%s): not comparable:\n", r.Config, r.Dir)
			for _, why := range r.NotComparable {
				fmt.Fprintf(w, "  - %s\n", why)
			}
		}
		var rr [][]string
		for _, row := range r.Rows {
			if verbose || !row.Agree {
				rr = append(rr, []string{row.Kind, row.What, row.Predicted, row.Observed, agreeWord(row.Agree) + " " + row.Note})
			}
		}
		if len(rr) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (NCCL %s):\n", r.Config, r.Release)
		if err := texttable.Write(w, []string{"kind", "what", "predicted", "observed", ""}, rr, 60); err != nil {
			return err
		}
	}
	if n := incomparable(reps); n > 0 {
		fmt.Fprintf(w, "\n%d of %d capture(s) lack the evidence for part of the check (listed above): that part is not compared, and not counted as differing\n", n, len(reps))
	}
	return nil
}

func agreeWord(ok bool) string {
	if ok {
		return "agree"
	}
	return "DIFFER"
}
