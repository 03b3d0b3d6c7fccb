package explain

import (
	"fmt"
	"io"

	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// Table is what rank 0 of a communicator logs at init (the graph
// searches, the tuning table, threadThresholds, the channel summary), the
// zero-bandwidth cells with the rule that zeroed each, and the whole
// model: gatesim table --json.
type Table struct {
	NCCL             string      `json:"nccl"`
	Graphs           []string    `json:"graphs,omitempty"`
	Table            []string    `json:"table"`
	ThreadThresholds string      `json:"thread_thresholds"`
	Channels         string      `json:"channels"`
	NChannels        int         `json:"n_channels"`
	Zeros            []TableZero `json:"zeros,omitempty"`
	Model            any         `json:"model"`
}

// TableZero is a cell with bandwidth 0 and the rule that zeroed it.
type TableZero struct {
	Cell string      `json:"cell"`
	Rule spec.RuleID `json:"rule"`
	Why  string      `json:"why"`
}

// NewTable is the communicator's table (with rank 0's graph searches).
func NewTable(comm *spec.Comm, graphs bool) *Table {
	m := comm.Model
	out := &Table{NCCL: comm.Release.String(), Table: m.TableLines(), ThreadThresholds: m.ThreadThresholdsLine(),
		Channels: comm.Topo.Summary, NChannels: comm.NChannels, Model: m}
	if graphs {
		out.Graphs = comm.Topo.Nodes[0].Log()
	}
	for _, z := range m.Zeros() {
		out.Zeros = append(out.Zeros, TableZero{z.Func.String() + "/" + z.Algo.String() + "/" + z.Proto.String(), z.Rule, z.Why})
	}
	return out
}

// WriteTable prints the lines NCCL logs, in its layout and precision, and
// with why the zero-bandwidth cells and their rules.
func WriteTable(w io.Writer, system string, comm *spec.Comm, graphs, why bool) error {
	m := comm.Model
	fmt.Fprintf(w, "NCCL %s, %s, %d rank(s) on %d node(s)\n", comm.Release, system, comm.NRanks, comm.NNodes)
	if graphs {
		for _, l := range comm.Topo.Nodes[0].Log() {
			fmt.Fprintln(w, l)
		}
	}
	for _, l := range m.TableLines() {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, m.ThreadThresholdsLine())
	fmt.Fprintln(w, comm.Topo.Summary)
	if why {
		fmt.Fprintln(w, "\ncells with bandwidth 0:")
		var rows [][]string
		for _, z := range m.Zeros() {
			rows = append(rows, []string{z.Func.String(), z.Algo.String(), z.Proto.String(), string(z.Rule), z.Why})
		}
		return texttable.Write(w, []string{"function", "algorithm", "protocol", "rule", "why"}, rows, 70)
	}
	return nil
}

// TableDiff is what differs between two releases' tables on one machine
// and environment: gatesim table --nccl A,B.
type TableDiff struct {
	From    string         `json:"from"`
	To      string         `json:"to"`
	Changes []TableDiffRow `json:"changes"`
}

// TableDiffRow is one printed line or table cell that differs.
type TableDiffRow struct {
	What string `json:"what"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// DiffTables compares the printed-table cells (at NCCL's precision), the
// thread thresholds and the channel summary of two communicators.
func DiffTables(a, b *spec.Comm) *TableDiff {
	d := &TableDiff{From: a.Release.String(), To: b.Release.String()}
	add := func(what, x, y string) {
		if x != y {
			d.Changes = append(d.Changes, TableDiffRow{what, x, y})
		}
	}
	add("channel summary", a.Topo.Summary, b.Topo.Summary)
	add("threadThresholds", a.Model.ThreadThresholdsLine(), b.Model.ThreadThresholdsLine())
	cell := func(m *tuning.Model, f spec.Func, al spec.Algo, p spec.Proto) string {
		if int(al) >= m.Tuning.NumAlgos {
			return "(no " + al.String() + ")"
		}
		return fmt.Sprintf("%.1f/%.1f", m.Latencies[f][al][p], m.Bandwidths[f][al][p])
	}
	for _, f := range spec.Funcs {
		for al := range spec.NumAlgos {
			for p := range spec.NumProtos {
				add(fmt.Sprintf("%s/%s/%s", f, spec.Algo(al), spec.Proto(p)),
					cell(a.Model, f, spec.Algo(al), spec.Proto(p)), cell(b.Model, f, spec.Algo(al), spec.Proto(p)))
			}
		}
	}
	return d
}

// WriteText prints the differences as a table.
func (d *TableDiff) WriteText(w io.Writer, system string, nranks int) error {
	if len(d.Changes) == 0 {
		_, err := fmt.Fprintf(w, "%s, %d rank(s): %s\n", system, nranks, spec.DecideAlike([]string{d.From, d.To}, "cell"))
		return err
	}
	fmt.Fprintf(w, "%s, %d rank(s): NCCL %s → %s, %d difference(s) (table cells as latency µs/bandwidth GB/s)\n", system, nranks, d.From, d.To, len(d.Changes))
	var tr [][]string
	for _, r := range d.Changes {
		tr = append(tr, []string{r.What, r.Old, r.New})
	}
	return texttable.Write(w, []string{"what", d.From, d.To}, tr, 70)
}
