package ncclog

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestParseLine(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
		want Line
	}{
		{"info", "ds-ml-01-0:17754:17754 [0] NCCL INFO NET/IB : No device found.", true,
			Line{Host: "ds-ml-01-0", PID: 17754, TID: 17754, HasProc: true, Dev: 0, Level: LevelInfo, LauncherRank: -1, Msg: "NET/IB : No device found."}},
		{"warn-2.22", "node:1:2 [3] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion", true,
			Line{Host: "node", PID: 1, TID: 2, HasProc: true, Dev: 3, Level: LevelWarn, LauncherRank: -1, SrcFile: "transport/net_ib.cc", SrcLine: 1295, Msg: "NET/IB : Got completion"}},
		{"warn-2.30-func", "h:10:11 [0] enqueue.cc:2100 (topoGetAlgoInfo) NCCL WARN No algorithm/protocol available", true,
			Line{Host: "h", PID: 10, TID: 11, HasProc: true, Dev: 0, Level: LevelWarn, LauncherRank: -1, SrcFile: "enqueue.cc", SrcLine: 2100, SrcFunc: "topoGetAlgoInfo", Msg: "No algorithm/protocol available"}},
		{"warn-timestamp", "[2025-07-21 19:05:29] node004:27907:27907 [1] transport/nvls.cc:254 NCCL WARN Cuda failure 401 'x'", true,
			Line{Time: "2025-07-21 19:05:29", Host: "node004", PID: 27907, TID: 27907, HasProc: true, Dev: 1, Level: LevelWarn, LauncherRank: -1, SrcFile: "transport/nvls.cc", SrcLine: 254, Msg: "Cuda failure 401 'x'"}},
		{"trace", "[1] 15269.938482 topoGetAlgoInfo:1535 NCCL TRACE 24 Bytes -> Algo 1 proto 0 time 2771.401367", true,
			Line{Dev: 1, Level: LevelTrace, LauncherRank: -1, SrcFunc: "topoGetAlgoInfo", SrcLine: 1535, Msg: "24 Bytes -> Algo 1 proto 0 time 2771.401367"}},
		{"call", "h:1:2 NCCL CALL ncclAllReduce(0x1)", true,
			Line{Host: "h", PID: 1, TID: 2, HasProc: true, Dev: -1, Level: LevelCall, LauncherRank: -1, Msg: "ncclAllReduce(0x1)"}},
		{"openmpi", "[1,26]<stdout>:ip-172-32-36-209:8716:9558 [2] NCCL INFO Ring 00 : 26[2] -> 30[6] via P2P/IPC", true,
			Line{Launcher: "[1,26]<stdout>:", LauncherRank: 26, Host: "ip-172-32-36-209", PID: 8716, TID: 9558, HasProc: true, Dev: 2, Level: LevelInfo, Msg: "Ring 00 : 26[2] -> 30[6] via P2P/IPC"}},
		{"srun-empty-host", "201: :41367:41367 [1] enqueue.cc:422 NCCL WARN Error : no algorithm/protocol available", true,
			Line{Launcher: "201:", LauncherRank: 201, PID: 41367, TID: 41367, HasProc: true, Dev: 1, Level: LevelWarn, SrcFile: "enqueue.cc", SrcLine: 422, Msg: "Error : no algorithm/protocol available"}},
		{"pdsh", "MLVM2: MLVM2:10802:10802 [7] NCCL INFO NET/Plugin : No plugin found, using internal implementation", true,
			Line{Launcher: "MLVM2:", LauncherRank: -1, Host: "MLVM2", PID: 10802, TID: 10802, HasProc: true, Dev: 7, Level: LevelInfo, Msg: "NET/Plugin : No plugin found, using internal implementation"}},
		{"stripped", "NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)", true,
			Line{Dev: -1, Level: LevelInfo, LauncherRank: -1, Msg: "NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)"}},
		{"table-row-keeps-padding", "h:1:1 [0] NCCL INFO     Broadcast |     0.0/   0.0 |", true,
			Line{Host: "h", PID: 1, TID: 1, HasProc: true, Dev: 0, Level: LevelInfo, LauncherRank: -1, Msg: "    Broadcast |     0.0/   0.0 |"}},
		{"interleaved", "[0]     61.58    0.00    0.00      0[0] h100clust-worker-1:497888:497888 [0] NCCL INFO 128 Bytes -> Algo 0 proto 0 time 25.214764", true,
			Line{Launcher: "[0]     61.58    0.00    0.00      0[0]", LauncherRank: 0, Host: "h100clust-worker-1", PID: 497888, TID: 497888, HasProc: true, Dev: 0, Level: LevelInfo, Msg: "128 Bytes -> Algo 0 proto 0 time 25.214764"}},
		{"crlf", "h:1:2 [0] NCCL INFO Using network IB\r", true,
			Line{Host: "h", PID: 1, TID: 2, HasProc: true, Dev: 0, Level: LevelInfo, LauncherRank: -1, Msg: "Using network IB"}},
		{"no-level", "NCCL version 2.4.8+cuda10.1", false, Line{Dev: -1, LauncherRank: -1}},
		{"not-a-level-word", "see NCCL INFORMATION here", false, Line{Dev: -1, LauncherRank: -1}},
		{"empty-message", "h:1:2 [0] NCCL INFO", true, Line{Host: "h", PID: 1, TID: 2, HasProc: true, Dev: 0, Level: LevelInfo, LauncherRank: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseLine(tc.in)
			if ok != tc.ok {
				t.Fatalf("ParseLine(%q) ok = %v, want %v", tc.in, ok, tc.ok)
			}
			if !ok {
				return
			}
			if got != tc.want {
				t.Errorf("ParseLine(%q)\n got %+v\nwant %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestLauncherRank(t *testing.T) {
	for in, want := range map[string]int{"[1,3]<stdout>:": 3, "3:": 3, "[3]": 3, "[rank12]:": 12, "238: [rank238]:": 238, "host:": -1, "": -1, "[x]": -1} {
		if got := launcherRank(in); got != want {
			t.Errorf("launcherRank(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestParseLineRoundTrip is a property: a line printed the way ncclDebugLog
// prints it (v2.28.9-1 src/debug.cc), behind any launcher prefix, parses
// back into the fields it was printed from.
func TestParseLineRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		host := rapid.StringMatching(`[a-z][a-z0-9.-]{0,20}`).Draw(t, "host")
		pid := rapid.IntRange(0, 1<<22).Draw(t, "pid")
		tid := rapid.IntRange(0, 1<<22).Draw(t, "tid")
		dev := rapid.IntRange(0, 63).Draw(t, "dev")
		lvl := rapid.SampledFrom([]Level{LevelInfo, LevelWarn}).Draw(t, "level")
		msg := rapid.StringMatching(`[A-Za-z0-9/ :.,'\[\]()=_-]{0,80}`).Filter(func(s string) bool {
			return !strings.Contains(s, "NCCL") && strings.TrimRight(s, " ") == s && !strings.HasPrefix(s, " ")
		}).Draw(t, "msg")
		launcher := rapid.SampledFrom([]string{"", "[1,5]<stdout>:", "5: ", "node7: ", "[rank5]: "}).Draw(t, "launcher")
		ts := rapid.SampledFrom([]string{"", "[2025-10-23 10:26:31] "}).Draw(t, "ts")
		var line string
		prefix := fmt.Sprintf("%s:%d:%d [%d] ", host, pid, tid, dev)
		file, fline := "transport/net_ib.cc", rapid.IntRange(1, 9999).Draw(t, "fline")
		if lvl == LevelWarn {
			line = fmt.Sprintf("%s%s%s%s:%d NCCL WARN %s", launcher, ts, prefix, file, fline, msg)
		} else {
			line = fmt.Sprintf("%s%s%sNCCL INFO %s", launcher, ts, prefix, msg)
		}
		got, ok := ParseLine(line)
		if !ok {
			t.Fatalf("not recognised: %q", line)
		}
		if got.Host != host || got.PID != pid || got.TID != tid || got.Dev != dev || got.Level != lvl || got.Msg != msg {
			t.Fatalf("%q parsed as %+v", line, got)
		}
		if ts != "" && got.Time != strings.Trim(ts, "[] ") {
			t.Fatalf("%q: time %q", line, got.Time)
		}
		if lvl == LevelWarn && (got.SrcFile != file || got.SrcLine != fline) {
			t.Fatalf("%q: source %s:%d", line, got.SrcFile, got.SrcLine)
		}
		if launcher != "" && strings.TrimSpace(launcher) != got.Launcher {
			t.Fatalf("%q: launcher %q", line, got.Launcher)
		}
	})
}

func TestTrimRightOfIsTrimRight(t *testing.T) {
	for _, s := range []string{"", "a", "a \t", " \t ", "a\r\n", "\r\n\r", "x\n \t"} {
		for _, cut := range []string{" \t", "\r\n", " "} {
			if got, want := trimRightOf(s, cut), strings.TrimRight(s, cut); got != want {
				t.Errorf("trimRightOf(%q, %q) = %q, want %q", s, cut, got, want)
			}
		}
	}
}
