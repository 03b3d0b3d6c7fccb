package explain

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/spec"
)

// GroupScript is what a call script does (gatesim group --json): every
// call's result, the group rules' verdicts and, on a machine, the
// launched collectives' decisions.
type GroupScript struct {
	Calls []spec.CallResult `json:"calls"`
	Trace spec.Trace        `json:"trace"`
	// Decisions are the launched collectives' decisions by the script line
	// of their call (with --system).
	Decisions map[string]*spec.Decision `json:"decisions,omitempty"`
}

// NewGroupScript gathers the script's results; dec is by call index.
func NewGroupScript(calls []spec.Call, res []spec.CallResult, tr spec.Trace, dec map[int]*spec.Decision) *GroupScript {
	out := &GroupScript{Calls: res, Trace: tr}
	if dec != nil {
		out.Decisions = map[string]*spec.Decision{}
		for i, d := range dec {
			out.Decisions[strconv.Itoa(calls[i].Line)] = d
		}
	}
	return out
}

// WriteGroupScript prints a row per call (with its decision on a machine)
// and the group rules' verdicts.
func WriteGroupScript(w io.Writer, res []spec.CallResult, tr spec.Trace, dec map[int]*spec.Decision) error {
	var rows [][]string
	for i, r := range res {
		what := r.Call.Kind.String()
		if r.Call.Comm != "" {
			what += " " + r.Call.Comm
		}
		if r.Call.Op != nil {
			what = fmt.Sprintf("%s %s %s", r.Call.Op.Func, r.Call.Comm, spec.FormatBytes(r.Call.Op.Bytes()))
			if p := r.Call.P2P; p != nil {
				what = fmt.Sprintf("%s %s %s peer=%d", p.Dir(), r.Call.Comm, spec.FormatBytes(r.Call.Op.Bytes()), p.Peer)
			}
			if r.Call.DevComm != nil {
				what = "DevCommCreate " + r.Call.Comm
			}
			if n := r.Call.DevCommDestroy; n != 0 {
				what = fmt.Sprintf("DevCommDestroy %s %d", r.Call.Comm, n)
			}
			if m := r.Call.RMA; m != nil {
				what = fmt.Sprintf("%s %s %s peer=%s", m.Kind, r.Call.Comm, spec.FormatBytes(r.Call.Op.Bytes()), strings.Trim(strings.Join(strings.Fields(fmt.Sprint(m.Peers)), ","), "[]"))
			}
			if b := r.Call.Buffers; b != spec.BuffersUser {
				what += " " + b.String()
				if r.Call.Alloc != spec.AllocCuMem {
					what += "/" + r.Call.Alloc.String()
				}
			}
			if r.Call.InPlace {
				what += " inplace"
			}
		}
		row := []string{strconv.Itoa(r.Call.Line), what, r.Result.String(), r.Effect, r.Warn}
		if dec != nil {
			row = append(row, DecisionCell(dec[i]))
		}
		rows = append(rows, row)
	}
	header := []string{"line", "call", "returns", "effect", "NCCL WARN"}
	if dec != nil {
		header = append(header, "decision")
	}
	if err := texttable.Write(w, header, rows, 60); err != nil {
		return err
	}
	for _, v := range tr {
		fmt.Fprintf(w, "%-20s %-4s %s\n", v.Rule, v.Outcome, v.WhyText())
	}
	return nil
}
