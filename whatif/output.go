package whatif

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/gatesim/gatesim/internal/jsonout"
	"github.com/gatesim/gatesim/spec"
)

// Header is the column list of CSV output and of JSON records. nchannels
// is the channels the point's operation runs on (in a group of several,
// the first operation's own range); channels is every operation's range
// (Channels.Ranges); agg and max_nchannels are set for a group of several:
// its operations and the first one's nMaxChannels; launch, buffers, alloc
// and inplace say how the operation was issued. Schema 2: in 1, nchannels
// was a group's nMaxChannels and the columns after it but error were absent.
var Header = []string{"nccl", "system", "nodes", "gpus_per_node", "nics", "nic_gbps", "sharp", "env", "coll", "size_bytes",
	"outcome", "algo", "proto", "nchannels", "channels", "agg", "max_nchannels", "launch", "buffers", "alloc", "inplace", "error", "collnet_gate", "nvls_gate", "model_us", "sim_us", "time_source", "algbw_gbs", "busbw_gbs"}

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
	count := func(n int) string {
		if n > 0 {
			return strconv.Itoa(n)
		}
		return ""
	}
	agg := ""
	if r.Channels.Grouped() {
		agg = strconv.Itoa(r.Channels.Ops)
	}
	m := r.Machine
	return []string{r.Release.String(), m.Label, strconv.Itoa(m.Nodes), strconv.Itoa(m.GPUs), strconv.Itoa(m.NICs), strconv.Itoa(m.NICGbps),
		strconv.FormatBool(m.SHARP), r.Env.Name, r.Op.Func.String(), strconv.FormatInt(r.Size, 10),
		r.Outcome, algo, proto, count(r.NChannels), r.Channels.Ranges, agg, count(r.Channels.MaxChannels),
		r.Issue.Launch.Mode.String(), r.Issue.Buffers.String(), r.Issue.Alloc.String(), strconv.FormatBool(r.Issue.InPlace), errS, r.CollNetGate, r.NVLSGate, f(r.ModelUs), f(r.SimUs), r.TimeSource, f(r.AlgBw), f(r.BusBw)}
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

// JSON builds the JSON output of a sweep (its schema's Go type).
func JSON(rs []Result, diffs []ReleaseDiff) JSONOutput {
	recs := make([]map[string]any, 0, len(rs))
	for _, r := range rs {
		recs = append(recs, jsonRecord(r))
	}
	return JSONOutput{Points: recs, ReleaseDiff: diffs}
}

// WriteJSON prints JSON(rs, diffs) as jsonout.Write would, "schema" first,
// but streams it: one record is held at a time, so a sweep of MaxPoints
// points prints in bounded memory.
func WriteJSON(w io.Writer, schema int, rs []Result, diffs []ReleaseDiff) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "{\n  \"schema\": %d,\n  \"points\": [", schema)
	for i, r := range rs {
		b, err := indentedPart(jsonRecord(r), "    ")
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(b)
	}
	if len(rs) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteByte(']')
	if len(diffs) > 0 {
		b, err := indentedPart(diffs, "  ")
		if err != nil {
			return err
		}
		bw.WriteString(",\n  \"release_diff\": ")
		bw.Write(b)
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// indentedPart is one part of the output, normalised as jsonout does and
// indented at its depth.
func indentedPart(v any, prefix string) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if raw, err = jsonout.NormalizePart(raw); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, prefix, "  "); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// jsonRecord is one result as the JSON output prints it.
func jsonRecord(r Result) map[string]any {
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
		if b, err := strconv.ParseBool(v); err == nil && (k == "sharp" || k == "inplace") {
			rec[k] = b
			continue
		}
		rec[k] = v
	}
	if r.TunerWithout != "" {
		rec["tuner_without"], rec["tuner_changed"], rec["tuner_edits"] = r.TunerWithout, r.TunerChanged, r.TunerEdits
	}
	return rec
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

// Formats are the ways whatif prints a sweep.
var Formats = []string{"table", "csv", "json"}

// Format is the format of whatif's --format and --json: asJSON stands for
// json, and may not be given with another format.
func Format(format string, asJSON bool) (string, error) {
	if asJSON {
		if format != "table" && format != "json" {
			return "", fmt.Errorf("--json and --format %s: give one", format)
		}
		format = "json"
	}
	for _, f := range Formats {
		if f == format {
			return f, nil
		}
	}
	return "", fmt.Errorf("--format %q: expected table, csv or json", format)
}

// Write prints the results in format (Format): a table with the releases'
// differences, CSV, or JSON of the given schema version, streamed so a
// sweep of MaxPoints prints in bounded memory.
func Write(w io.Writer, format string, schema int, rs []Result, diffs []ReleaseDiff) error {
	switch format {
	case "csv":
		return WriteCSV(w, rs)
	case "json":
		return WriteJSON(w, schema, rs, diffs)
	}
	return WriteTable(w, rs, diffs)
}
