package plan

import (
	"fmt"
	"os"

	"github.com/gatesim/gatesim/sim"
)

// WriteTrace writes the simulation's timeline to path as Chrome trace
// JSON (Perfetto opens it): the simulated representatives, or with ranks
// ("all" or N) one lane per rank and channel, and how many slices the
// limit left out.
func WriteTrace(path string, sx *sim.Sim, ranks, operation, machine string, limit int) error {
	w, err := os.Create(path)
	if err != nil {
		return err
	}
	lanes, note, terr := sx.TraceRanks(ranks)
	if terr != nil {
		w.Close()
		return terr
	}
	events := sx.Trace()
	if lanes != nil {
		events = sx.RankTrace(lanes)
	}
	meta := map[string]string{"operation": operation, "machine": machine, "note": note,
		"recorded": fmt.Sprintf("%d slices recorded, %d not recorded (the limit is %d)", len(sx.Trace()), sx.TraceDropped(), limit)}
	werr := sim.ChromeTrace{Events: events, Counters: sx.WeightedTrace(), Meta: meta}.Write(w)
	if cerr := w.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return werr
	}
	return nil
}
