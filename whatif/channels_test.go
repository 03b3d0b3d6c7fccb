package whatif

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestChannelsOf: a group's ranges in call order, compact (a run of equal
// ranges once with its count; past four runs the first two, "…" and the
// last), the fewest and most channels one operation runs on, and the
// first operation's range; an operation that runs nothing counts for
// nothing.
func TestChannelsOf(t *testing.T) {
	coll := func(lo, hi, nMax int) *spec.Decision {
		return &spec.Decision{Algo: spec.Ring, Proto: spec.Simple, NChannels: nMax, ChannelLo: lo, ChannelHi: hi}
	}
	failed := &spec.Decision{Err: &spec.NCCLError{Result: spec.InvalidUsage}}
	for _, tc := range []struct {
		name                string
		ds                  []*spec.Decision
		ranges, perOp       string
		lo, hi, maxChannels int
	}{
		{"alone", []*spec.Decision{coll(0, 23, 24)}, "0..23", "24", 0, 23, 0},
		{"alone, a symmetric kernel's blocks that move bytes", []*spec.Decision{{Kernel: "AllGather_ST", NChannels: 8, ChannelLo: 0, ChannelHi: 5}}, "0..5", "6", 0, 5, 0},
		{"two", []*spec.Decision{coll(0, 11, 24), coll(12, 23, 24)}, "0..11, 12..23", "12", 0, 11, 24},
		{"eight, split with shared channels", []*spec.Decision{coll(0, 2, 24), coll(2, 5, 24), coll(5, 8, 24), coll(8, 11, 24), coll(11, 14, 24), coll(14, 17, 24), coll(17, 20, 24), coll(20, 23, 24)},
			"0..2, 2..5, …, 20..23", "3–4", 0, 2, 24},
		{"equal ranges run together", []*spec.Decision{coll(0, 0, 1), coll(0, 0, 1), coll(0, 0, 1), coll(1, 1, 1)}, "0..0 ×3, 1..1", "1", 0, 0, 1},
		{"an operation that fails runs nothing", []*spec.Decision{failed, coll(0, 3, 8)}, "0..3", "4", 0, 0, 0},
		{"nothing runs", []*spec.Decision{failed, failed}, "", "", 0, 0, 0},
	} {
		c := channelsOf(tc.ds)
		if c.Ops != len(tc.ds) || c.Ranges != tc.ranges || c.PerOp() != tc.perOp || c.Lo != tc.lo || c.Hi != tc.hi || c.MaxChannels != tc.maxChannels {
			t.Errorf("%s: %+v (per op %q); want ranges %q, per op %q, first %d..%d, nMaxChannels %d", tc.name, c, c.PerOp(), tc.ranges, tc.perOp, tc.lo, tc.hi, tc.maxChannels)
		}
	}
}

// TestRecordSaysIssue: a CSV row and a JSON record say how the point's
// operation was issued, so a sweep's registered or graph rows are not
// mistaken for plain stream ones.
func TestRecordSaysIssue(t *testing.T) {
	sw := Sweep{NCCL: []string{"2.28.9"}, Systems: []SystemAxis{{Preset: "h200x2"}}, Colls: []string{"allreduce"}, Sizes: SizeAxis{List: []string{"8MiB"}}}
	pts, err := Expand(sw)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		issue spec.Issue
		want  map[string]any
	}{
		{spec.Issue{}, map[string]any{"launch": "stream", "buffers": "user", "alloc": "cumem", "inplace": false}},
		{spec.Issue{Launch: spec.Launch{Mode: spec.LaunchGraph, Agg: 2}, Buffers: spec.BuffersRegistered, InPlace: true},
			map[string]any{"launch": "graph", "buffers": "registered", "alloc": "cumem", "inplace": true}},
	} {
		rs := RunWith(pts, 1, RunOptions{Issue: tc.issue}, nil)
		rec := recordMap(t, jsonRecord(rs[0]))
		for k, v := range tc.want {
			if rec[k] != v {
				t.Errorf("issue %+v: %s = %v, want %v", tc.issue, k, rec[k], v)
			}
		}
		if len(rs[0].Row()) != len(Header) {
			t.Errorf("a row has %d columns, the header %d", len(rs[0].Row()), len(Header))
		}
	}
}

// TestWhatifChannelsPerOp: swept with --agg 8, a point reports where each
// of its operations runs, as the group plan splits the channels (the
// issue's 2 × H200 at 2.28.9: 8 KiB AllReduces on 0..1, 2..3, ..., 8 MiB
// on 0..2, 2..5, ..., 20..23), the same ranges spec's plan gives every
// operation (what explain --agg and group print); alone, the operation's
// own channels as before. The table, CSV and JSON say so.
func TestWhatifChannelsPerOp(t *testing.T) {
	sw := Sweep{NCCL: []string{"2.28.9"}, Systems: []SystemAxis{{Preset: "h200x2"}}, Env: []EnvSet{{Name: "nvls-off", Vars: map[string]string{"NCCL_NVLS_ENABLE": "0"}}},
		Colls: []string{"allreduce"}, Sizes: SizeAxis{List: []string{"8KiB", "8MiB"}}}
	pts, err := Expand(sw)
	if err != nil {
		t.Fatal(err)
	}
	issue := spec.Issue{Launch: spec.Launch{Agg: 8}}
	alone := RunWith(pts, 1, RunOptions{}, nil)
	grouped := RunWith(pts, 1, RunOptions{Issue: issue}, nil)
	want := []struct {
		ranges, perOp string
		first         int
	}{{"0..1, 2..3, …, 14..15", "2", 2}, {"0..2, 2..5, …, 20..23", "3–4", 3}}
	comm, err := spec.Init(spec.MustLoad(spec.V2_28_9), pts[0].Machine.Sys, spec.Env{"NCCL_NVLS_ENABLE": "0"})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range grouped {
		c := r.Channels
		if c.Ops != 8 || c.Ranges != want[i].ranges || c.PerOp() != want[i].perOp || r.NChannels != want[i].first {
			t.Errorf("%s in a group of 8: %d ops, ranges %q, per op %q, nchannels %d; want 8, %q, %q, %d", spec.FormatBytes(r.Size), c.Ops, c.Ranges, c.PerOp(), r.NChannels, want[i].ranges, want[i].perOp, want[i].first)
		}
		g, err := comm.SelectIssue(r.Op, issue)
		if err != nil {
			t.Fatal(err)
		}
		// every operation's range from spec's plan itself, not through channelsOf
		fewest, most := 1<<30, 0
		for _, d := range g.Ops {
			n := d.ChannelHi - d.ChannelLo + 1
			fewest, most = min(fewest, n), max(most, n)
		}
		if c.MaxChannels != g.Ops[0].NChannels || c.Lo != g.Ops[0].ChannelLo || c.Hi != g.Ops[0].ChannelHi || c.Min != fewest || c.Max != most {
			t.Errorf("%s: whatif %+v; spec's plan: first op %d..%d of nMaxChannels %d, %d–%d channels per op", spec.FormatBytes(r.Size), c, g.Ops[0].ChannelLo, g.Ops[0].ChannelHi, g.Ops[0].NChannels, fewest, most)
		}
		a := alone[i]
		if a.Channels.Grouped() || a.Channels.MaxChannels != 0 || a.NChannels != a.Channels.Hi+1 || a.Channels.Ranges != "0.."+strconv.Itoa(a.NChannels-1) {
			t.Errorf("%s alone: nchannels %d, %+v: want its own channels from 0", spec.FormatBytes(a.Size), a.NChannels, a.Channels)
		}
	}

	// a lone SendRecv counts its p2p channels, as in a group
	p2p, err := Expand(Sweep{NCCL: []string{"2.28.9"}, Systems: sw.Systems, Env: sw.Env, Colls: []string{"sendrecv"}, Sizes: SizeAxis{List: []string{"8MiB"}}})
	if err != nil {
		t.Fatal(err)
	}
	r := RunWith(p2p, 1, RunOptions{}, nil)[0]
	g, err := comm.SelectIssue(p2p[0].Op, spec.Issue{})
	if err != nil {
		t.Fatal(err)
	}
	if n, lo, hi := g.Ops[0].P2P.P2PHull(); r.Outcome != "p2p" || n == 0 || r.NChannels != n || r.Channels.Ranges != strconv.Itoa(lo)+".."+strconv.Itoa(hi) {
		t.Errorf("SendRecv alone: %s, nchannels %d, %+v; want p2p on %d channels %d..%d", r.Outcome, r.NChannels, r.Channels, n, lo, hi)
	}

	var table bytes.Buffer
	if err := WriteTable(&table, grouped, nil); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"nch per op", "channels per op", "| 3–4 ", "0..2, 2..5, …, 20..23"} {
		if !strings.Contains(table.String(), s) {
			t.Errorf("table lacks %q:\n%s", s, table.String())
		}
	}
	table.Reset()
	if err := WriteTable(&table, alone, nil); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(table.String(), "per op") {
		t.Errorf("a sweep of lone operations prints per-op columns:\n%s", table.String())
	}

	var out bytes.Buffer
	if err := WriteCSV(&out, grouped); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	if r := recs[2]; r[col["nchannels"]] != "3" || r[col["channels"]] != want[1].ranges || r[col["agg"]] != "8" || r[col["max_nchannels"]] != "24" {
		t.Errorf("CSV row %v", r)
	}

	out.Reset()
	if err := WriteJSON(&out, 2, append(grouped, alone...), nil); err != nil {
		t.Fatal(err)
	}
	var js struct {
		Points []map[string]any `json:"points"`
	}
	if err := json.Unmarshal(out.Bytes(), &js); err != nil {
		t.Fatal(err)
	}
	if p := js.Points[1]; p["nchannels"] != 3.0 || p["channels"] != want[1].ranges || p["agg"] != 8.0 || p["max_nchannels"] != 24.0 {
		t.Errorf("JSON point in a group %v", p)
	}
	if p := js.Points[3]; p["agg"] != nil || p["max_nchannels"] != nil || p["channels"] != "0..23" {
		t.Errorf("JSON point alone %v", p)
	}
}

// recordMap is a JSON record as a reader decodes it.
func recordMap(t *testing.T, rec Record) map[string]any {
	t.Helper()
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRecordIsRow: a point's JSON record says its CSV row, column by
// column under Header's names (a number as the number CSV writes, an
// empty column left out), and nothing else but what a tuner plugin did:
// over a sweep of errors, groups, several releases and sizes.
func TestRecordIsRow(t *testing.T) {
	sw := Sweep{NCCL: []string{"2.22.3", "2.28.9"}, Systems: []SystemAxis{{Preset: "dgx-h100", Nodes: []int{1, 2}}}, Colls: []string{"allreduce", "sendrecv", "broadcast"},
		Sizes: SizeAxis{List: []string{"0", "4KiB", "1GiB"}}, Env: []EnvSet{{Name: "default"}, {Name: "nvls", Vars: map[string]string{"NCCL_ALGO": "NVLS"}}}}
	pts, err := Expand(sw)
	if err != nil {
		t.Fatal(err)
	}
	var rs []Result
	for _, is := range []spec.Issue{{}, {Launch: spec.Launch{Agg: 4}}, {Buffers: spec.BuffersWindow}} {
		rs = append(rs, RunWith(pts, 2, RunOptions{Issue: is}, nil)...)
	}
	rs = append(rs, Result{Point: pts[0], Outcome: "Ring/LL", TunerWithout: "Tree/LL", TunerChanged: true})
	for _, r := range rs {
		row, rec := r.Row(), recordMap(t, jsonRecord(r))
		for i, k := range Header {
			v, ok := rec[k]
			if row[i] == "" {
				if ok {
					t.Errorf("%v: %s = %v in JSON, empty in CSV", r.Point, k, v)
				}
				continue
			}
			got := fmt.Sprint(v)
			if f, isNum := v.(float64); isNum {
				want, _ := strconv.ParseFloat(row[i], 64)
				if f != want {
					t.Errorf("%v: %s = %v in JSON, %s in CSV", r.Point, k, v, row[i])
				}
				continue
			}
			if got != row[i] {
				t.Errorf("%v: %s = %q in JSON, %q in CSV", r.Point, k, got, row[i])
			}
		}
		for k := range rec {
			if !slices.Contains(Header, k) && !strings.HasPrefix(k, "tuner_") {
				t.Errorf("%v: JSON has %s, which CSV's header lacks", r.Point, k)
			}
		}
		if _, ok := rec["tuner_edits"]; ok != (r.TunerWithout != "") {
			t.Errorf("%v: tuner_edits present %v with tuner_without %q", r.Point, ok, r.TunerWithout)
		}
	}
}
