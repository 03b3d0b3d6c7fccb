package golden

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/topo"
)

var update = flag.Bool("update", false, "rewrite golden files from the current model")

// topoCache shares topology searches between scenarios.
var topoCache = spec.NewCache(0)

func TestMain(m *testing.M) {
	flag.Parse()
	if *update {
		_ = flag.Set("rewrite", "true") // datadriven's own flag
	}
	os.Exit(m.Run())
}

// expectSeen collects every rule named by expect= across scenario files.
var expectSeen = map[spec.RuleID]bool{}

// TestScenarios runs testdata/scenarios/*.txt. Directives:
//
//	explain system=PRESET|file=NAME|topo=NAME [nodes=N] [cliques=N] [gpus=N] [sharp] [mlopart] [nccl=A,B] [coll=C] [bytes=S] [dtype=T] [redop=R] [root=N] [agg=N] [cudagraph] [buffers=B] [alloc=A] [inplace] [before=(WORD,...)] [call=(WORD,...)] [expect=(RULE[:outcome][@release],...)]
//
// call=(putSignal,4KiB,peer=1,buffers=window) decides one call-script line
// on communicator c0 instead (a one-sided call, or any collective with
// its buffers=/alloc=), as a group of one; before=(devCommCreate,
// ginSignalCount=1) is a line made before it, outside a group
// (call=(devCommDestroy,1) then destroys what it made).
//
// agg, cudagraph, buffers, alloc and inplace issue the operation in a group
// (spec.Issue); the output is the group's first operation.
//
//	trace   (same arguments): also every verdict
//	log     (same arguments): the predicted NCCL log lines
//	connect (same arguments) conn=(KIND:CHANNEL:DEV:PEERDEV:send|recv,...):
//	        rank 0's node's network connectors (KIND ring, tree or p2p) as
//	        sendSetup/recvSetup print them after "via NET/", a receive's
//	        flush (G-NET-CONN-FLUSH-1, printed by no NCCL line), and the
//	        ring's "use ring PXN %d GDR %d" (G-NET-CONN-PXN-1,
//	        G-NET-CONN-GDR-1, G-NET-CONN-SHARED-1)
//
// file=NAME reads the system file testdata/systems/NAME (spec.ParseSystem)
// instead of a preset; nodes, cliques, sharp and mlopart are the preset's.
// topo=NAME reads NCCL's topology XML of one host there
// (spec.SystemFromTopology), nodes=N copies of it.
// The input holds NAME=VALUE environment lines, "lib {json}" lines
// adding a plugin library to every node, a "nics [json]" line replacing
// every node's NICs, and a "config name=value,..." line: the
// communicator's ncclConfig_t.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, filepath.Join("testdata", "scenarios"), func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "explain", "trace", "log", "connect":
				return runScenario(t, d)
			}
			d.Fatalf(t, "unknown directive %q: expected explain, trace, log or connect", d.Cmd)
			return ""
		})
	})
}

func runScenario(t *testing.T, d *datadriven.TestData) string {
	if d.HasArg("file") { // a system file of testdata/systems, in place of a preset
		var name string
		d.ScanArgs(t, "file", &name)
		data, err := os.ReadFile(filepath.Join("testdata", "systems", name))
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		sys, err := spec.ParseSystem(name, data)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		return runScenarioOn(t, d, sys)
	}
	if d.HasArg("topo") { // NCCL's topology XML of one host in testdata/systems, copied to nodes=N hosts
		var name string
		nodes := 1
		d.ScanArgs(t, "topo", &name)
		if d.HasArg("nodes") {
			d.ScanArgs(t, "nodes", &nodes)
		}
		data, err := os.ReadFile(filepath.Join("testdata", "systems", name))
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		sys, err := spec.SystemFromTopology(name, data, nodes)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		return runScenarioOn(t, d, sys)
	}
	var preset string
	d.ScanArgs(t, "system", &preset)
	opts := spec.PresetOptions{}
	if d.HasArg("nodes") {
		d.ScanArgs(t, "nodes", &opts.Nodes)
	}
	if d.HasArg("cliques") { // PresetOptions.Cliques: MNNVL cliques per rack
		d.ScanArgs(t, "cliques", &opts.Cliques)
	}
	opts.SHARP = d.HasArg("sharp")
	opts.MLOPart = d.HasArg("mlopart") // every GPU split into two MLOPart partitions
	sys, err := spec.Preset(preset, opts)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	return runScenarioOn(t, d, sys)
}

// runScenarioOn runs a scenario on the system its preset or file built.
func runScenarioOn(t *testing.T, d *datadriven.TestData, sys *spec.System) string {
	var err error
	if d.HasArg("procs") { // System.Procs: per-gpu or per-node
		var p string
		d.ScanArgs(t, "procs", &p)
		if sys.Procs, err = spec.ParseProcs(p); err != nil {
			d.Fatalf(t, "%v", err)
		}
	}
	if d.HasArg("gpus") { // GPUs per node, copies of GPU 0
		var n int
		d.ScanArgs(t, "gpus", &n)
		for i := range sys.Nodes {
			g := sys.Nodes[i].GPUs[0]
			sys.Nodes[i].GPUs = nil
			for j := range n {
				g.Dev = j
				sys.Nodes[i].GPUs = append(sys.Nodes[i].GPUs, g)
			}
		}
	}
	env := spec.Env{}
	for _, line := range strings.Split(d.Input, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "nics "):
			var nics []spec.NIC
			if err := json.Unmarshal([]byte(line[5:]), &nics); err != nil {
				d.Fatalf(t, "nics: %v", err)
			}
			for i := range sys.Nodes {
				sys.Nodes[i].NICs = slices.Clone(nics)
			}
		case strings.HasPrefix(line, "config "):
			c, err := spec.ParseConfig(line[len("config "):])
			if err != nil {
				d.Fatalf(t, "config: %v", err)
			}
			sys.CommConfig = c
		case strings.HasPrefix(line, "lib "):
			var l spec.Library
			if err := json.Unmarshal([]byte(line[4:]), &l); err != nil {
				d.Fatalf(t, "lib: %v", err)
			}
			for i := range sys.Nodes {
				sys.Nodes[i].Libs = append([]spec.Library{l}, sys.Nodes[i].Libs...)
			}
		default:
			e, err := spec.ParseAssignments([]string{line})
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			for k, v := range e {
				env[k] = v
			}
		}
	}
	releases := spec.Releases
	if d.HasArg("nccl") {
		releases = nil
		for _, a := range d.CmdArgs {
			if a.Key != "nccl" {
				continue
			}
			for _, s := range a.Vals {
				v, err := spec.ParseVersion(s)
				if err != nil {
					d.Fatalf(t, "%v", err)
				}
				releases = append(releases, v)
			}
		}
	}
	op := scenarioOp(t, d)
	is := scenarioIssue(t, d)
	// call=(putSignal,4KiB,peer=1,...): one line of a call script on
	// communicator c0; before=(...) one made before it, outside a group
	scriptCall := func(key string) *spec.GroupOp {
		if !d.HasArg(key) {
			return nil
		}
		var words []string
		for _, a := range d.CmdArgs {
			if a.Key == key {
				words = a.Vals
			}
		}
		// a nested list (peer=(1,9)) is the script's peer=1,9
		line := strings.NewReplacer("(", "", ")", "").Replace(strings.Join(append([]string{words[0], "c0"}, words[1:]...), " "))
		calls, err := spec.ParseCalls(key, []byte(line))
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		c := calls[0]
		return &spec.GroupOp{Op: *c.Op, P2P: c.P2P, RMA: c.RMA, DevComm: c.DevComm, DevCommDestroy: c.DevCommDestroy, Buffers: c.Buffers, Alloc: c.Alloc}
	}
	call, before := scriptCall("call"), scriptCall("before")
	if before != nil && call == nil {
		d.Fatalf(t, "before= needs call=")
	}
	outs := make([]string, len(releases))
	traces := make([]spec.Trace, len(releases))
	for i, v := range releases {
		if err := spec.MustLoad(v).CheckConfig(sys.CommConfig); err != nil {
			outs[i] = "error: " + err.Error() + "\n"
			continue
		}
		comm, err := topoCache.Init(spec.MustLoad(v), sys, env)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		if d.Cmd == "connect" {
			outs[i], traces[i] = renderConns(t, d, comm), comm.Trace
			continue
		}
		dec, sel, err := comm.Select(op)
		tr := sel.Trace()
		if call != nil {
			var g *spec.GroupDecision
			var pre []spec.GroupOp
			if before != nil {
				pre = []spec.GroupOp{*before}
			}
			if _, g, err = comm.SelectAfter(pre, []spec.GroupOp{*call}, is.Launch); err == nil {
				dec, tr = g.Ops[0], g.Traces[0]
			}
		} else if !comm.IssuedAlone(op, is) && err == nil {
			var g *spec.GroupDecision
			if g, err = comm.SelectIssue(op, is); err == nil {
				dec, tr = g.Ops[0], g.Traces[0]
			}
		}
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		traces[i] = tr
		outs[i] = render(d.Cmd, dec, tr)
	}
	checkExpect(t, d, releases, traces)
	return mergeReleases(releases, outs)
}

// renderConns is the connect directive's output for one release.
func renderConns(t *testing.T, d *datadriven.TestData, comm *spec.Comm) string {
	if comm.Err != nil {
		return fmt.Sprintf("error: %v\n", comm.Err.Result)
	}
	var b strings.Builder
	node := &comm.Topo.Nodes[0]
	for _, a := range d.CmdArgs {
		if a.Key != "conn" {
			continue
		}
		for _, v := range a.Vals {
			f := strings.Split(v, ":")
			if len(f) != 5 || (f[4] != "send" && f[4] != "recv") {
				d.Fatalf(t, "conn %q: expected KIND:CHANNEL:DEV:PEERDEV:send|recv", v)
			}
			kind := map[string]topo.ConnKind{"ring": topo.ConnRing, "tree": topo.ConnTree, "p2p": topo.ConnP2P}[f[0]]
			ch, _ := strconv.Atoi(f[1])
			dev, _ := strconv.Atoi(f[2])
			peer, _ := strconv.Atoi(f[3])
			q := topo.ConnQuery{Kind: kind, Channel: ch, Send: f[4] == "send", Dev: dev, PeerDev: peer}
			if kind == topo.ConnP2P {
				q.ConnIndex = 1
			}
			c, err := node.NetConn(q)
			if err != nil {
				fmt.Fprintf(&b, "%s: error: %v\n", v, err)
				continue
			}
			proxy, _ := node.RankOfDev(c.ProxyDev)
			fmt.Fprintf(&b, "%s: via NET/%s/%s", v, comm.Net, c.Suffix(proxy))
			if !q.Send {
				fmt.Fprintf(&b, " flush %s", c.FlushText(false))
			}
			b.WriteString("\n")
		}
	}
	fmt.Fprintf(&b, "use ring PXN %d GDR %d\n", btoi(comm.Topo.RingNetPXN), btoi(comm.Topo.RingUseGdr()))
	return b.String()
}

// scenarioIssue reads agg=N, cudagraph, buffers=B, alloc=A and inplace.
func scenarioIssue(t *testing.T, d *datadriven.TestData) spec.Issue {
	var is spec.Issue
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "agg":
			if _, err := fmt.Sscan(a.Vals[0], &is.Launch.Agg); err != nil {
				d.Fatalf(t, "agg=%s: %v", a.Vals[0], err)
			}
		case "cudagraph":
			is.Launch.Mode = spec.LaunchGraph
		case "inplace":
			is.InPlace = true
		case "buffers":
			b, err := spec.ParseBuffers(a.Vals[0])
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			is.Buffers = b
		case "alloc":
			al, err := spec.ParseAlloc(a.Vals[0])
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			is.Alloc = al
		}
	}
	if err := is.Check(); err != nil {
		d.Fatalf(t, "%v", err)
	}
	return is
}

func scenarioOp(t *testing.T, d *datadriven.TestData) spec.Op {
	coll, bytes, dtype, redop := "allreduce", "1MiB", "float32", "sum"
	root := 0
	for _, a := range d.CmdArgs {
		switch a.Key {
		case "coll":
			coll = a.Vals[0]
		case "bytes":
			bytes = a.Vals[0]
		case "dtype":
			dtype = a.Vals[0]
		case "redop":
			redop = a.Vals[0]
		case "root":
			fmt.Sscan(a.Vals[0], &root)
		}
	}
	f, err := spec.ParseFunc(coll)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	dt, err := spec.ParseDataType(dtype)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	r, err := spec.ParseRedOp(redop)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	n, err := spec.ParseBytes(bytes)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	op, err := spec.OpFromBytes(f, n, dt, r, root)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	return op
}

// checkExpect: expect=(RULE[:outcome][@release]) requires the rule in the
// trace with that outcome (default fail) in the named release, or in every
// release from it on when it ends in '-' (@2.19.1-) (default: every
// release of the scenario that has the rule; at least one must).
func checkExpect(t *testing.T, d *datadriven.TestData, releases []spec.Version, traces []spec.Trace) {
	for _, a := range d.CmdArgs {
		if a.Key != "expect" {
			continue
		}
		for _, e := range a.Vals {
			rule, rel, _ := strings.Cut(e, "@")
			var from spec.Version
			if f, ok := strings.CutSuffix(rel, "-"); ok {
				v, err := spec.ParseVersion(f)
				if err != nil {
					d.Fatalf(t, "expect=%s: %v", e, err)
				}
				from, rel = v, ""
			}
			id, out, hasOut := strings.Cut(rule, ":")
			want := spec.Fail
			if hasOut {
				o, err := spec.ParseOutcome(out)
				if err != nil {
					d.Fatalf(t, "expect=%s: %v", e, err)
				}
				want = o
			}
			expectSeen[spec.RuleID(id)] = true
			matched := 0
			for i, v := range releases {
				if (rel != "" && v.String() != rel) || v < from {
					continue
				}
				got, ok := traces[i].Find(spec.RuleID(id))
				if !ok {
					if rel != "" {
						t.Errorf("%s: expect=%s: %s has no rule %s", d.Pos, e, v, id)
					}
					continue
				}
				matched++
				if got.Outcome != want {
					t.Errorf("%s: expect=%s: NCCL %s gives %s (%s)", d.Pos, e, v, got.Outcome, got.WhyText())
				}
			}
			if matched == 0 {
				t.Errorf("%s: expect=%s matches no release", d.Pos, e)
			}
		}
	}
}

// TestEveryRuleIsExpected: every rule of every release is named by at
// least one expect= of a scenario file, so each gate has a scenario that
// shows it deciding.
func TestEveryRuleIsExpected(t *testing.T) {
	if !t.Run("scenarios", TestScenarios) {
		t.Skip("scenarios failed")
	}
	var missing []string
	for _, v := range spec.Releases {
		for _, r := range spec.MustLoad(v).Rules() {
			// group-call rules decide a call script, not a scenario's
			// operation: spec's TestGroupSemantics names each one
			if !expectSeen[r.ID] && !r.AtCall() {
				missing = append(missing, string(r.ID))
			}
		}
	}
	sort.Strings(missing)
	missing = dedup(missing)
	if len(missing) > 0 {
		t.Errorf("%d rules are named by no scenario's expect=: %s", len(missing), strings.Join(missing, " "))
	}
}

func dedup(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// render prints one release's outcome.
func render(cmd string, d *spec.Decision, tr spec.Trace) string {
	var b strings.Builder
	fmt.Fprintf(&b, "decision: %s\n", decisionText(d))
	fmt.Fprintf(&b, "net: %s; local peers via %s\n", d.Net, orDash(d.Transport))
	for _, c := range spec.Capabilities {
		l, ok := d.Evidence[c]
		if !ok {
			continue
		}
		if v, stopped := tr.Stopper(c); stopped {
			fmt.Fprintf(&b, "%s: %s, stopped by %s: %s\n", c, l, v.Rule, v.WhyText())
		} else if l > spec.LevelNone {
			fmt.Fprintf(&b, "%s: %s\n", c, l)
		}
	}
	switch cmd {
	case "trace":
		for _, v := range tr {
			scope := ""
			if v.Scope != "" {
				scope = " [" + v.Scope + "]"
			}
			fmt.Fprintf(&b, "  %-20s %-4s %s%s\n", v.Rule, v.Outcome, v.WhyText(), scope)
		}
	case "log":
		for _, v := range tr {
			for _, l := range v.Log {
				for _, part := range strings.Split(l, "\n") {
					if strings.TrimSpace(part) != "" { // datadriven reads blank lines as separators
						fmt.Fprintf(&b, "  %s\n", strings.TrimRight(part, " "))
					}
				}
			}
		}
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func decisionText(d *spec.Decision) string {
	by := string(d.DecidedBy)
	switch {
	case d.Discarded:
		return "discarded, nothing runs [" + by + "]"
	case d.Err != nil && d.Err.Abort != nil:
		return fmt.Sprintf("error %s %q [%s], never returned: the process aborts %q [%s]", d.Err.Result, d.Err.Message, by, d.Err.Abort.Message, d.Err.Abort.Rule)
	case d.Err != nil:
		return fmt.Sprintf("error %s %q [%s]", d.Err.Result, d.Err.Message, by)
	case d.Algo != spec.AlgoNone && d.Proto != spec.ProtoNone:
		s := d.Algo.String() + "/" + d.Proto.String()
		if d.Fallback {
			s += " (fallback)"
		}
		return s + " [" + by + "]"
	case d.P2P != nil:
		return fmt.Sprintf("p2p path, %d p2p channels, up to %d per peer [%s]", d.P2P.NChannels, d.P2P.NChannelsPerPeer, by)
	case d.Kernel == "copy-engine":
		return "copy-engine collective, no kernel [" + by + "]"
	case d.Kernel == "hierarchical-ce":
		return "hierarchical copy-engine collective (CE + RMA proxy), no kernel [" + by + "]"
	case d.RMA != nil:
		return d.RMA.Cell() + " [" + by + "]"
	case d.DevComm != nil:
		return d.DevComm.Cell() + " [" + by + "]"
	case d.DevCommRelease != nil:
		return d.DevCommRelease.Cell() + " [" + by + "]"
	case d.Kernel != "":
		return fmt.Sprintf("kernel %s, %d channels %d..%d, %d threads [%s]", d.Kernel, d.NChannels, d.ChannelLo, d.ChannelHi, d.NThreads, by)
	case d.Algo != spec.AlgoNone:
		s := d.Algo.String() + ", protocol needs the tuning model"
		if d.Fallback {
			s += " (fallback)"
		}
		return s + " [" + by + "]"
	}
	var c []string
	for _, ap := range d.Candidates {
		c = append(c, ap.String())
	}
	return "needs the tuning model: " + strings.Join(c, " ")
}

// mergeReleases prints each distinct output once, headed by the releases
// that give it, consecutive releases merged: "2.22.3", "2.28.3-" (through
// the newest modelled release), "2.22.3..2.28.3".
func mergeReleases(vs []spec.Version, outs []string) string {
	var b strings.Builder
	newest := spec.Releases[len(spec.Releases)-1]
	for i := 0; i < len(vs); {
		j := i
		for j+1 < len(vs) && outs[j+1] == outs[i] {
			j++
		}
		label := vs[i].String()
		switch {
		case vs[j] == newest && len(vs) > 1:
			label += "-"
		case j > i:
			label += ".." + vs[j].String()
		}
		fmt.Fprintf(&b, "%s:\n", label)
		for _, l := range strings.Split(strings.TrimRight(outs[i], "\n"), "\n") {
			fmt.Fprintf(&b, "  %s\n", l)
		}
		i = j + 1
	}
	return b.String()
}
