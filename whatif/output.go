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

// JSONOutput is whatif's JSON: one Record per point, and the points where
// releases decide differently.
type JSONOutput struct {
	Points      []Record      `json:"points"`
	ReleaseDiff []ReleaseDiff `json:"release_diff,omitempty"`
}

// Record is one point of whatif's JSON: Header's columns under the same
// names, numbers as numbers (times and bandwidths to 3 decimals, as CSV
// prints them), a column CSV leaves empty left out, then what a tuner
// plugin did (only where it was called). The JSON schema's point is this
// type, so a column added here is declared there.
type Record struct {
	NCCL         string   `json:"nccl"`
	System       string   `json:"system"`
	Nodes        int      `json:"nodes"`
	GPUsPerNode  int      `json:"gpus_per_node"`
	NICs         int      `json:"nics"`
	NICGbps      int      `json:"nic_gbps"`
	SHARP        bool     `json:"sharp"`
	Env          string   `json:"env"`
	Coll         string   `json:"coll"`
	SizeBytes    int64    `json:"size_bytes"`
	Outcome      string   `json:"outcome"`
	Algo         string   `json:"algo,omitempty"`
	Proto        string   `json:"proto,omitempty"`
	NChannels    int      `json:"nchannels,omitempty"`
	Channels     string   `json:"channels,omitempty"`
	Agg          int      `json:"agg,omitempty"`
	MaxNChannels int      `json:"max_nchannels,omitempty"`
	Launch       string   `json:"launch"`
	Buffers      string   `json:"buffers"`
	Alloc        string   `json:"alloc"`
	InPlace      bool     `json:"inplace"`
	Error        string   `json:"error,omitempty"`
	CollNetGate  string   `json:"collnet_gate,omitempty"`
	NVLSGate     string   `json:"nvls_gate,omitempty"`
	ModelUs      *float64 `json:"model_us,omitempty" schema:"nonnull"`
	SimUs        *float64 `json:"sim_us,omitempty" schema:"nonnull"`
	TimeSource   string   `json:"time_source,omitempty"`
	AlgBwGBs     *float64 `json:"algbw_gbs,omitempty" schema:"nonnull"`
	BusBwGBs     *float64 `json:"busbw_gbs,omitempty" schema:"nonnull"`
	TunerWithout string   `json:"tuner_without,omitempty"`
	TunerChanged *bool    `json:"tuner_changed,omitempty" schema:"nonnull"`
	TunerEdits   *string  `json:"tuner_edits,omitempty" schema:"nonnull"`
}

// JSON builds the JSON output of a sweep (its schema's Go type).
func JSON(rs []Result, diffs []ReleaseDiff) JSONOutput {
	recs := make([]Record, 0, len(rs))
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

// jsonRecord is one result as the JSON output prints it: Row's values,
// typed.
func jsonRecord(r Result) Record {
	// a time or bandwidth as CSV writes it (3 decimals), absent at 0
	num := func(x float64) *float64 {
		if x == 0 {
			return nil
		}
		v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 3, 64), 64)
		return &v
	}
	m := r.Machine
	rec := Record{NCCL: r.Release.String(), System: m.Label, Nodes: m.Nodes, GPUsPerNode: m.GPUs, NICs: m.NICs, NICGbps: m.NICGbps,
		SHARP: m.SHARP, Env: r.Env.Name, Coll: r.Op.Func.String(), SizeBytes: r.Size, Outcome: r.Outcome,
		NChannels: max(r.NChannels, 0), Channels: r.Channels.Ranges, MaxNChannels: max(r.Channels.MaxChannels, 0),
		Launch: r.Issue.Launch.Mode.String(), Buffers: r.Issue.Buffers.String(), Alloc: r.Issue.Alloc.String(), InPlace: r.Issue.InPlace,
		CollNetGate: r.CollNetGate, NVLSGate: r.NVLSGate, ModelUs: num(r.ModelUs), SimUs: num(r.SimUs), TimeSource: r.TimeSource,
		AlgBwGBs: num(r.AlgBw), BusBwGBs: num(r.BusBw)}
	if r.Algo != spec.AlgoNone {
		rec.Algo = r.Algo.String()
	}
	if r.Proto != spec.ProtoNone {
		rec.Proto = r.Proto.String()
	}
	if r.Channels.Grouped() {
		rec.Agg = r.Channels.Ops
	}
	if r.Err != nil {
		rec.Error = r.Err.Result.String()
	}
	if r.TunerWithout != "" {
		changed, edits := r.TunerChanged, r.TunerEdits
		rec.TunerWithout, rec.TunerChanged, rec.TunerEdits = r.TunerWithout, &changed, &edits
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
