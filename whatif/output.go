package whatif

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/gatesim/gatesim/spec"
)

// Header is the column list of CSV output and of JSON records.
var Header = []string{"nccl", "system", "nodes", "gpus_per_node", "nics", "nic_gbps", "sharp", "env", "coll", "size_bytes",
	"outcome", "algo", "proto", "nchannels", "error", "collnet_gate", "nvls_gate", "model_us", "sim_us", "time_source", "algbw_gbs", "busbw_gbs"}

// Row is a result's CSV record.
func (r Result) Row() []string {
	f := func(x float64) string {
		if x == 0 {
			return ""
		}
		return strconv.FormatFloat(x, 'f', 3, 64)
	}
	algo, proto := "", ""
	if r.Algo != spec.AlgoNone {
		algo = r.Algo.String()
	}
	if r.Proto != spec.ProtoNone {
		proto = r.Proto.String()
	}
	errS := ""
	if r.Err != nil {
		errS = r.Err.Result.String()
	}
	nc := ""
	if r.NChannels > 0 {
		nc = strconv.Itoa(r.NChannels)
	}
	m := r.Machine
	return []string{r.Release.String(), m.Label, strconv.Itoa(m.Nodes), strconv.Itoa(m.GPUs), strconv.Itoa(m.NICs), strconv.Itoa(m.NICGbps),
		strconv.FormatBool(m.SHARP), r.Env.Name, r.Op.Func.String(), strconv.FormatInt(r.Size, 10),
		r.Outcome, algo, proto, nc, errS, r.CollNetGate, r.NVLSGate, f(r.ModelUs), f(r.SimUs), r.TimeSource, f(r.AlgBw), f(r.BusBw)}
}

// WriteCSV writes results with Header.
func WriteCSV(w io.Writer, rs []Result) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(Header); err != nil {
		return err
	}
	for _, r := range rs {
		if err := cw.Write(r.Row()); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// JSONOutput is whatif's JSON: one object per point, keys as in Header
// (numbers as numbers), and the points where releases decide differently.
type JSONOutput struct {
	Points      []map[string]any `json:"points"`
	ReleaseDiff []ReleaseDiff    `json:"release_diff,omitempty"`
}

// JSON builds the JSON output of a sweep.
func JSON(rs []Result, diffs []ReleaseDiff) JSONOutput {
	recs := make([]map[string]any, 0, len(rs))
	for _, r := range rs {
		row := r.Row()
		rec := map[string]any{}
		for i, k := range Header {
			v := row[i]
			if v == "" {
				continue
			}
			if n, err := strconv.ParseFloat(v, 64); err == nil && k != "nccl" && k != "system" && k != "env" {
				rec[k] = n
				continue
			}
			if b, err := strconv.ParseBool(v); err == nil && k == "sharp" {
				rec[k] = b
				continue
			}
			rec[k] = v
		}
		recs = append(recs, rec)
	}
	return JSONOutput{Points: recs, ReleaseDiff: diffs}
}

// WriteJSON writes JSON(rs, diffs), indented.
func WriteJSON(w io.Writer, rs []Result, diffs []ReleaseDiff) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(JSON(rs, diffs))
}

// FormatUs prints a time for tables.
func FormatUs(us float64) string {
	switch {
	case us == 0:
		return "-"
	case us < 1000:
		return fmt.Sprintf("%.1f µs", us)
	case us < 1e6:
		return fmt.Sprintf("%.2f ms", us/1e3)
	}
	return fmt.Sprintf("%.2f s", us/1e6)
}
