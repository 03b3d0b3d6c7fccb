package oracle

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/gatesim/gatesim/spec"
)

// The per-request budget. A request's time and memory grow with its
// machine's ranks, with the NVLink domain its topology search explores (a
// multi-node NVLink clique of 128 GPUs searched for 46 s in 21 MB) and with
// the operations of a group (4,096 took 19 s and 260 MB), so the ranks
// budget alone bounds neither. Memory is refused before the work, from an
// estimate; time is watched while the request runs (the model has no clock
// and cannot be interrupted, so a request past its time is answered and
// left to finish on its own).
const (
	// DefaultTimeout is the per-request time budget unless the operator
	// sets one (--timeout).
	DefaultTimeout = 30 * time.Second
	// DefaultMaxMemory is the per-request memory budget unless the
	// operator sets one (--max-memory): every request within the default
	// ranks budget and spec.MaxGroupOps fits (at most 396 MiB).
	DefaultMaxMemory = 512 << 20

	// The memory estimate, an upper bound of the live heap a request adds
	// (TestMemoryEstimateBoundsUse measures it): a communicator and its
	// answer, 1 KiB per rank (0.8 KiB measured at 131,072 ranks), and
	// 96 KiB per operation of a group (65 KiB measured at 4,096).
	memBase    = 8 << 20
	memPerRank = 1 << 10
	memPerOp   = 96 << 10
)

// budgetError is a request refused by the oracle's budget rather than for
// being malformed; its answer names the line when the stream knows it.
type budgetError struct{ msg string }

func (e *budgetError) Error() string { return e.msg }

func overBudget(format string, args ...any) error {
	return &budgetError{msg: fmt.Sprintf(format, args...)}
}

// requestMemory is the estimated memory of a request on ranks ranks with
// ops operations.
func requestMemory(ranks, ops int) int64 {
	return memBase + int64(ranks)*memPerRank + int64(ops)*memPerOp
}

func (o *Oracle) maxMemory() int64 {
	if o.MaxMemory > 0 {
		return o.MaxMemory
	}
	return DefaultMaxMemory
}

// checkMemory refuses a request whose estimate exceeds the budget.
func (o *Oracle) checkMemory(ranks, ops int) error {
	est, budget := requestMemory(ranks, ops), o.maxMemory()
	if est <= budget {
		return nil
	}
	what := fmt.Sprintf("%d ranks", ranks)
	if ops > 1 {
		what += fmt.Sprintf(" and %d operations", ops)
	}
	return overBudget("%s need about %d MiB: this oracle answers requests of at most %d MiB (its per-request memory budget, --max-memory)",
		what, est>>20, budget>>20)
}

// refuse is the invalid answer for err, marked when the budget refused it.
func refuse(id json.RawMessage, field string, err error) *Answer {
	a := invalid(id, field, "%v", err)
	var be *budgetError
	a.budget = errors.As(err, &be)
	return a
}

func (o *Oracle) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

// handleTimed answers line n of a stream within the time budget: past it,
// the answer says so and the request runs on in the background, holding
// one of the oracle's overrun slots (at most as many as its workers, so a
// stream of slow requests cannot pile up work without bound: the next
// one past its budget waits for a slot).
func (o *Oracle) handleTimed(n int, line []byte, overrun chan struct{}) (answer []byte, wait func()) {
	done := make(chan []byte, 1)
	go func() { done <- o.handle(n, line) }()
	t := time.NewTimer(o.timeout())
	defer t.Stop()
	select {
	case a := <-done:
		return a, nil
	case <-t.C:
	}
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(line, &probe)
	a := invalid(probe.ID, "", "line %d: not answered within %v, this oracle's per-request time budget (--timeout)", n, o.timeout())
	return marshal(a), func() {
		overrun <- struct{}{}
		go func() {
			<-done
			<-overrun
		}()
	}
}

// Budgets are the operator's limits of an oracle process as its flags give
// them; Apply checks each against its range and sets it.
type Budgets struct {
	MaxRanks, MaxLine, Workers int
	Timeout                    time.Duration
	MaxMemory                  string
}

// Apply sets the budgets on o; every error names the flag and its range.
func (b Budgets) Apply(o *Oracle) error {
	if b.MaxRanks < 1 || b.MaxRanks > spec.MaxRanks {
		return fmt.Errorf("--max-ranks %d: expected 1 to %d", b.MaxRanks, spec.MaxRanks)
	}
	if b.MaxLine < 1 || b.MaxLine > 1<<30 {
		return fmt.Errorf("--max-line %d: expected 1 to %d bytes", b.MaxLine, 1<<30)
	}
	if b.Timeout <= 0 || b.Timeout > 24*time.Hour {
		return fmt.Errorf("--timeout %v: expected more than 0 and at most 24h", b.Timeout)
	}
	mem, err := spec.ParseBytes(b.MaxMemory)
	if err != nil || mem < 16<<20 || mem > 1<<40 {
		return fmt.Errorf("--max-memory %q: expected 16MiB to 1TiB", b.MaxMemory)
	}
	if b.Workers < 1 || b.Workers > 1024 {
		return fmt.Errorf("--workers %d: expected 1 to 1024", b.Workers)
	}
	o.MaxRanks, o.MaxMemory, o.Timeout, o.Workers = b.MaxRanks, mem, b.Timeout, b.Workers
	return nil
}
