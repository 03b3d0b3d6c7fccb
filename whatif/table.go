package whatif

import (
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/spec"
)

// WriteTable prints the sweep as tables, one per release, machine,
// environment and collective, a row per size; then the points where the
// releases decide differently.
func WriteTable(w io.Writer, rs []Result, diffs []ReleaseDiff) error {
	hasModel, hasSim, hasTuner, hasGroup := false, false, false, false
	for _, r := range rs {
		hasModel = hasModel || r.ModelUs > 0
		hasSim = hasSim || r.SimUs > 0
		hasTuner = hasTuner || r.TunerWithout != ""
		hasGroup = hasGroup || r.Channels.Grouped()
	}
	type key struct{ rel, label, env, coll string }
	var order []key
	groups := map[key][]Result{}
	for _, r := range rs {
		k := key{r.Release.String(), r.Machine.Label, r.Env.Name, r.Op.Func.String()}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range order {
		fmt.Fprintf(w, "NCCL %s | %s | env %s | %s\n", k.rel, k.label, k.env, k.coll)
		var rows [][]string
		for _, r := range groups[k] {
			nc := "-"
			switch {
			case r.Channels.Grouped():
				nc = orDash(r.Channels.PerOp())
			case r.NChannels > 0:
				nc = strconv.Itoa(r.NChannels)
			}
			bw := func(x float64) string {
				if x == 0 {
					return "-"
				}
				return strconv.FormatFloat(x, 'f', 1, 64)
			}
			row := []string{spec.FormatBytes(r.Size), r.Outcome, nc}
			if hasGroup {
				row = append(row, orDash(r.Channels.Ranges))
			}
			row = append(row, orDash(r.CollNetGate), orDash(r.NVLSGate), FormatUs(r.ModelUs), FormatUs(r.SimUs), bw(r.AlgBw), bw(r.BusBw))
			if hasTuner {
				mark := "-"
				switch {
				case r.TunerChanged:
					mark = "CHANGED (without: " + r.TunerWithout + ")"
				case r.TunerWithout != "":
					mark = "same"
				}
				row = append(row, mark)
			}
			rows = append(rows, row)
		}
		header := []string{"size", "decision", "nch"}
		if hasGroup {
			header[2] = "nch per op"
			header = append(header, "channels per op")
		}
		header = append(header, "CollNet kept out by", "NVLS kept out by", "model time", "sim time", "algbw GB/s", "busbw GB/s")
		if hasTuner {
			header = append(header, "tuner plugin")
		}
		if err := texttable.Write(w, header, rows, 40); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if hasGroup {
		fmt.Fprintln(w, "note: a group splits its channels between its operations (scheduleCollTasksToPlan): nch per op counts each operation's own range, whose end channel it may share with the next")
	}
	switch {
	case !hasSim && !hasModel:
		fmt.Fprintln(w, "note: no time column: neither NCCL's cost model nor the simulator gave a time for these points")
	case !hasSim:
		fmt.Fprintln(w, "note: times and bandwidths are NCCL's cost model only (no point was simulated: --no-sim, or no schedule builder for these decisions)")
	}
	if len(diffs) == 0 {
		var rels []string
		for _, r := range rs {
			if s := r.Release.String(); !slices.Contains(rels, s) {
				rels = append(rels, s)
			}
		}
		if len(rels) > 1 {
			fmt.Fprintf(w, "\n%s\n", spec.DecideAlike(rels, "point"))
		}
	}
	if len(diffs) > 0 {
		timeOnly := 0
		var rows [][]string
		// One row per release, the point named on the first: a cell
		// holding every release would pass texttable.MaxCell and be cut
		// when many releases are compared.
		for _, df := range diffs {
			if df.TimeOnly {
				timeOnly++
			}
			for i := range df.Releases {
				key, decision := "", df.Releases[i]+": "+df.Outcomes[i]
				if i == 0 {
					key = df.Key
				}
				switch {
				case df.TimeOnly && i == 0:
					decision = "same decision: " + df.Outcomes[0]
				case df.TimeOnly:
					decision = ""
				}
				rows = append(rows, []string{key, decision, df.Releases[i] + ": " + FormatUs(df.Times[i])})
			}
		}
		fmt.Fprintf(w, "\n%d point(s) where the releases differ (%d in the decision, %d in time alone, by more than 1 %%):\n",
			len(diffs), len(diffs)-timeOnly, timeOnly)
		return texttable.Write(w, []string{"point", "decision", "time"}, rows, 60)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
