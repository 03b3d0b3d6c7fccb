package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gatesim/gatesim/conformance"
	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// RegString is the model's registration outcome for one operation on
// path, in words, for printing only (RegAgrees compares): registered, a
// call that fails (RegFailed), or none, with why (RegRefused) or the
// algorithm and protocol that take no registration on that path.
//
// Ref: v2.28.9-1 src/register/coll_reg.cc ncclRegisterCollBuffers (G-REG-IPC-1,
// G-REG-UB-1, G-REG-SKIP-1)
func RegString(ch tuning.OpChoice, path tuning.ChunkReg) string {
	p := path.String()
	switch {
	case ch.Registered == p || ch.RegPeers == p:
		return p + " registered"
	case ch.RegCallFailed(p) && ch.RegFailedSilently(p):
		return p + " register failed, no line at this release"
	case ch.RegCallFailed(p):
		return p + " register failed"
	case ch.Registered != "":
		return ch.Registered + " registered, not " + p
	case ch.RegFailed != "":
		return ch.RegFailed + " register failed, not " + p
	case ch.RegRefused != "":
		return "no registration: " + ch.RegRefused
	}
	return fmt.Sprintf("no %s registration (%s/%s)", p, ch.Algo, ch.Proto)
}

// RegAgrees says whether the model's choice for an operation prints the
// registration line r: the same path, registered or failed as the line
// says (tuning.RegResult, the value both sides map to).
func RegAgrees(ch tuning.OpChoice, r ncclog.RegOutcome) bool {
	return slices.Contains(ch.RegResults(), r.Result())
}

// RegOps are the operations of a capture's measured rows whose buffers a
// registration line names: a row whose send or receive buffer has the
// line's size (both, for a line naming both), out of place and, where
// NCCL could register it so, in place (a one-buffer line does not say).
// The line names neither the collective nor the datatype, so every row
// of that size is a candidate.
func RegOps(r ncclog.RegOutcome, rows []conformance.Row, nRanks int) []spec.GroupOp {
	var out []spec.GroupOp
	seen := map[[3]int64]bool{}
	for _, row := range rows {
		if row.Err != nil {
			continue
		}
		dt, err := spec.ParseDataType(row.TypeS)
		if err != nil {
			continue
		}
		c := conformance.RowCounts(row.Func, row.Size, dt, nRanks)
		send, recv := int64(c.Send)*int64(dt.Size()), int64(c.Recv)*int64(dt.Size())
		switch {
		case r.Both() && (r.SendBytes != 0 && r.SendBytes != send || r.RecvBytes != recv):
			continue
		case !r.Both() && r.Bytes != send && r.Bytes != recv:
			continue
		}
		key := [3]int64{int64(row.Func), int64(c.Param), int64(dt)}
		if seen[key] {
			continue
		}
		seen[key] = true
		op := spec.Op{Func: row.Func, Count: int64(c.Param), DataType: dt, RedOp: spec.Sum, Root: row.Root}
		if !r.Both() || !r.InPlace {
			out = append(out, spec.GroupOp{Op: op})
		}
		if !r.Both() || r.InPlace {
			out = append(out, spec.GroupOp{Op: op, InPlace: true})
		}
	}
	return out
}

// checkRegistrations compares each distinct registration line of a
// capture's log with the model's outcome for the operations it may belong
// to (RegOps), launched and allocated as the run was: it agrees when one
// of them predicts it. A line no measured row matches is not comparable.
func checkRegistrations(rep *conformance.CheckReport, l *ncclog.Log, c *conformance.Capture, comm *spec.Comm, launch spec.Launch, bufs spec.Buffers, alloc spec.Alloc) error {
	var t conformance.Tally
	var none []string
	for _, r := range l.Reg.Outcomes {
		what := regWhat(r)
		cands := RegOps(r, c.Result.Rows, c.Result.NRanks)
		if len(cands) == 0 {
			none = append(none, what+": no measured operation has that size: not comparable")
			continue
		}
		var preds []string
		found := false
		for _, g := range cands {
			g.Buffers, g.Alloc = bufs, alloc
			gd, err := comm.SelectGroup([]spec.GroupOp{g}, launch)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", c.Dir, what, err)
			}
			if len(gd.Choices) == 0 {
				continue
			}
			p := RegString(gd.Choices[0], r.Path)
			in := ""
			if g.InPlace {
				in = " in place"
			}
			preds = append(preds, fmt.Sprintf("%s %s%s: %s", g.Op.Func, spec.FormatBytes(g.Op.Bytes()), in, p))
			found = found || RegAgrees(gd.Choices[0], r)
		}
		t.Total++
		if found {
			t.Agree++
			continue
		}
		rep.Add("register", what, strings.Join(preds, " | "), r.String())
	}
	if t.Total > 0 || len(none) > 0 {
		rep.AddTally("register", "registration lines", t, strings.Join(none, "; "))
	}
	return nil
}

// regWhat names a registration line by its path and buffers.
func regWhat(r ncclog.RegOutcome) string {
	if r.Both() {
		s := fmt.Sprintf("%s sendbuff %s recvbuff %s", r.Path, spec.FormatBytes(r.SendBytes), spec.FormatBytes(r.RecvBytes))
		if r.InPlace {
			s += " in place"
		}
		return s
	}
	dir := "send"
	if r.Recv {
		dir = "recv"
	}
	if r.Path != tuning.ChunkRegCollNet {
		dir = "user"
	}
	return fmt.Sprintf("%s %sbuff %s", r.Path, dir, spec.FormatBytes(r.Bytes))
}
