package plan

import (
	"fmt"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
)

// Choice is what runs for one operation: NCCL's decision, or the algorithm
// and protocol forced over it, with NCCL's cost-model time for that cell.
type Choice struct {
	Sel algos.Selection
	// By says where the selection came from; NCCL is NCCL's own choice.
	By, NCCL string
	// ModelUs is NCCL's cost-model time of the cell (nil: none), Note why
	// there is none.
	ModelUs  *float64
	Note     string
	Decision *spec.Decision
	// Group is the group plan when the operation is issued in one
	// (Comm.Issue); Decision is its first operation.
	Group *spec.GroupDecision
	// Sym: NCCL runs the operation on a symmetric kernel or the copy
	// engines (Decision.Kernel), timed by sim.SimulateSym; Sel is unset.
	Sym bool
}

// Choose decides op and takes NCCL's choice, or algo and proto (both or
// neither, as NCCL_ALGO/NCCL_PROTO name them) forced over it; channels > 0
// overrides the channel count. describe prints a decision in one line.
func (c *Comm) Choose(op spec.Op, algo, proto string, channels int, describe func(*spec.Decision) string) (*Choice, error) {
	d, g, err := c.DecideIssued(op)
	if err != nil {
		return nil, err
	}
	if g != nil && d.P2P == nil && (algo != "" || proto != "" || channels > 0) {
		return nil, fmt.Errorf("--algo, --proto and --channels force one operation alone; in a group NCCL's plan decides each operation (force it with --env NCCL_ALGO=... NCCL_PROTO=...)")
	}
	v := c.Comm.Release
	ch := &Choice{Decision: d, NCCL: describe(d), Group: g}
	if d.P2P != nil {
		if algo != "" || proto != "" {
			return nil, fmt.Errorf("--algo/--proto: %s has no algorithm or protocol to force: NCCL plans point-to-point work per peer (LL up to NCCL_P2P_LL_THRESHOLD bytes per channel, Simple above)", op.Func)
		}
		if d.Err != nil {
			return nil, &RefusedError{fmt.Sprintf("NCCL %s returns %s for this operation: %s (%s)", v, d.Err.Result, d.Err.Message, d.DecidedBy)}
		}
		_, sel, err := algos.FromDecision(d)
		if err != nil {
			return nil, err
		}
		ch.Sel, ch.By = sel, "NCCL's p2p path (scheduleP2pTasksToPlan), no cost table"
		ch.Note = "NCCL's cost model has no time for point-to-point operations"
		return ch, nil
	}
	if algo == "" && proto == "" {
		if d.Discarded {
			return nil, fmt.Errorf("%s with count 0: NCCL discards the call, nothing runs; give --algo and --proto to simulate an empty schedule", op.Func)
		}
		if d.Err != nil {
			return nil, RefusedOp(v.String(), d)
		}
		if d.Kernel != "" {
			ch.Sym, ch.By = true, "NCCL's symmetric path ("+string(d.DecidedBy)+"), no cost table"
			if d.TimeUs > 0 {
				t := d.TimeUs // NCCL's model of the kernel (ncclSymkPickKernel)
				ch.ModelUs = &t
			} else {
				ch.Note = "NCCL's model has no time for copy-engine collectives"
			}
			return ch, nil
		}
		_, sel, err := algos.FromDecision(d)
		if err != nil {
			return nil, err
		}
		ch.Sel, ch.By = sel, "NCCL's tuning model ("+string(d.DecidedBy)+")"
		switch {
		case g != nil && len(g.Ops) > 1:
			ch.By = fmt.Sprintf("NCCL's group plan (%s), operation 0 of %d", d.DecidedBy, len(g.Ops))
		case g != nil: // alone, planned as NCCL plans a lone call: no group's member
			ch.By = fmt.Sprintf("NCCL's plan of the operation (%s)", d.DecidedBy)
		}
		t := d.TimeUs
		ch.ModelUs = &t
	} else {
		if algo == "" || proto == "" {
			return nil, fmt.Errorf("--algo and --proto go together: give both, or neither for NCCL's choice")
		}
		a, err := spec.ParseAlgo(algo)
		if err != nil {
			return nil, err
		}
		p, err := spec.ParseProto(proto)
		if err != nil {
			return nil, err
		}
		ch.Sel, ch.By = algos.Selection{Algo: a, Proto: p, NChannels: algos.Channels(c.Layout, op.Func, a, p, op.Bytes())}, "--algo/--proto"
		ch.Note = "NCCL has no time for this cell"
		if t, why, ok := ModelTime(d, a, p); ok {
			ch.ModelUs, ch.Note = &t, ""
		} else if why != "" {
			ch.Note = why
		}
	}
	if channels > 0 {
		ch.Sel.NChannels = channels
	}
	return ch, nil
}

// ModelTime is NCCL's cost-model time for algorithm a and protocol p in
// decision d; when NCCL would not run the cell, why says so (empty: the
// decision has no such cell).
func ModelTime(d *spec.Decision, a spec.Algo, p spec.Proto) (us float64, why string, ok bool) {
	for _, c := range d.CostTable() {
		if c.Algo != a || c.Proto != p {
			continue
		}
		if c.Usable {
			us, why, ok = c.TimeUs, "", true
		} else {
			us, why, ok = 0, fmt.Sprintf("NCCL would not run %s/%s here: %s %s", a, p, c.Rule, c.Why), false
		}
	}
	return us, why, ok
}
