package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// Options are what the user knows beyond the log.
type Options struct {
	// Env are NCCL_* variables the user says were set; values NCCL printed
	// in the log take precedence.
	Env spec.Env
	// Release overrides the release when the log does not print it.
	Release spec.Version
}

// Severity orders findings.
type Severity int

const (
	Info Severity = iota
	Warning
	Error
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "info"
}

func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Finding is one conclusion with its evidence.
type Finding struct {
	// ID is a stable name of the finding ("nvls.setup-failed").
	ID       string          `json:"id"`
	Severity Severity        `json:"severity"`
	Cap      spec.Capability `json:"cap,omitempty"`
	// Level is the level the capability reached.
	Level spec.Level `json:"level"`
	// Title says the conclusion in one sentence.
	Title string `json:"title"`
	// Missing is what the log lacks for the next level.
	Missing string `json:"missing,omitempty"`
	// Rule is the gate (spec rule ID) the finding corresponds to; empty for
	// findings that are no gate (ranks on different releases, an init the
	// log never completes, a WARN NCCL printed).
	Rule     spec.RuleID    `json:"rule,omitempty"`
	Evidence []ncclog.Proof `json:"evidence,omitempty"`
	// Check lists what to look at or change.
	Check []string `json:"check,omitempty"`
}

// Report is the whole diagnosis of one set of logs.
type Report struct {
	Log     *ncclog.Log
	Obs     *ncclog.Observation
	Release spec.Version
	// Assumed is the release inferred for a log without a version line,
	// given none; nil otherwise.
	Assumed  *ReleaseGuess
	Findings []Finding
	// Missing lists what the log does not show and why that limits the answer.
	Missing []string
}

// Diagnose observes a log and walks the evidence ladder's decision tree.
func Diagnose(l *ncclog.Log, opts Options) *Report {
	if l.Release == 0 && opts.Release != 0 {
		l2 := *l
		l2.Release = opts.Release
		l = &l2
	}
	obs := ncclog.ObserveWith(l, opts.Env)
	r := &Report{Log: l, Obs: obs, Release: l.Release}
	d := diag{l: l, o: obs, r: r}
	d.versions()
	d.assumeRelease()
	d.initState()
	d.dupGPU()
	d.initAbort()
	d.mnnvl()
	d.netPlugin()
	d.loggedPlugin()
	d.network()
	d.gdr()
	d.collnet()
	d.nvls()
	d.nvlsRegister()
	d.register()
	d.algo()
	d.proto()
	d.group()
	d.contradictions()
	d.errors()
	d.envExplains()
	d.missing()
	sort.SliceStable(r.Findings, func(i, j int) bool { return r.Findings[i].Severity > r.Findings[j].Severity })
	return r
}

type diag struct {
	l *ncclog.Log
	o *ncclog.Observation
	r *Report
}

func (d *diag) add(f Finding) { d.r.Findings = append(d.r.Findings, f) }

func (d *diag) cap(c spec.Capability) *ncclog.CapEvidence { return d.o.Cap(c) }

func sample(s ncclog.Sample, lvl spec.Level, why string) ncclog.Proof {
	return ncclog.Proof{Level: lvl, At: s.At, Msg: s.Msg, Why: why}
}

func (d *diag) first(k ncclog.Kind, why string) []ncclog.Proof {
	if s, ok := d.l.First(k); ok {
		return []ncclog.Proof{sample(s, 0, why)}
	}
	return nil
}

func (d *diag) envSet(name string) (string, bool) { return d.o.Env.Lookup(name) }

// assumeRelease infers the release of a log that names none and was given
// none: the one predictions use, said as a finding.
func (d *diag) assumeRelease() {
	if d.l.Release != 0 || d.l.Version != "" {
		return
	}
	g, err := InferRelease(d.l)
	if err != nil {
		d.r.Missing = append(d.r.Missing, "the release could not be inferred: "+err.Error())
		return
	}
	d.r.Assumed = g
	d.add(releaseFinding(g))
}

func (d *diag) versions() {
	if len(d.l.Versions) > 1 {
		d.add(Finding{ID: "version.mismatch", Severity: Error, Title: "ranks run different NCCL releases: " + strings.Join(d.l.Versions, ", "),
			Evidence: d.first(ncclog.KindVersion, "first version line"),
			Check:    []string{"every rank must load the same libnccl (LD_LIBRARY_PATH, the framework's bundled NCCL); NCCL checks versions at init (\"Mismatched NCCL version\")"}})
	}
	if d.l.Release != 0 && !d.l.Release.Within(oldestRead, 0) {
		d.add(Finding{ID: "version.too-old", Severity: Warning,
			Title:    fmt.Sprintf("NCCL %s is older than %s, the oldest release this reader knows: its lines are read where they match later forms, levels may be missing", d.l.Release, oldestRead),
			Evidence: d.first(ncclog.KindVersion, "the version line"),
			Check:    []string{"upgrade NCCL; gatesim predicts only its modelled releases (" + releaseList() + ")"}})
	}
	if d.l.Release != 0 && !spec.Supported(d.l.Release) {
		if n, ok := spec.Nearest(d.l.Release); ok {
			d.r.Missing = append(d.r.Missing, fmt.Sprintf("NCCL %s has no gatesim ruleset; predictions would use the nearest older one, %s", d.l.Release, n))
		} else {
			d.r.Missing = append(d.r.Missing, fmt.Sprintf("NCCL %s is older than %s, the oldest release gatesim models: nothing can be predicted for it; this report reads its lines only", d.l.Release, spec.Releases[0]))
		}
	}
}

func releaseList() string {
	var out []string
	for _, v := range spec.Releases {
		out = append(out, v.String())
	}
	return strings.Join(out, ", ")
}

// oldestRead is the oldest release whose log lines the reader's catalogue
// describes (NCCL 2.4.2); older logs are reported as out of range.
var oldestRead = spec.MakeVersion(2, 4, 2)

// dupGPU names the gate that stopped an init whose WARN says two ranks are
// on one GPU (G-DEV-DUP-1), with the result the next error return of the
// same process carries (the WARN itself prints none). Where the process
// then aborted instead of returning it, init.abort (G-INIT-ABORT-1) alone
// reports the abort: this finding names the result its error path carried.
func (d *diag) dupGPU() {
	for _, e := range d.l.Errors {
		if !ncclog.IsDupGPUWarn(e) {
			continue
		}
		title := "init failed: two ranks on one GPU (" + e.Msg + ")"
		ev := []ncclog.Proof{{At: e.First.At, Msg: e.First.Msg, Why: "the check of several ranks on one GPU failed", Count: e.Count}}
		if r, ok := d.returnAfter(e.First); ok {
			if _, aborted := d.l.InitAbort(); aborted {
				title += ", its error path carrying " + r.Result.String()
				ev = append(ev, ncclog.Proof{At: r.First.At, Msg: r.First.Msg, Why: "the error NCCL's error path carried"})
			} else {
				title += ", returning " + r.Result.String()
				ev = append(ev, ncclog.Proof{At: r.First.At, Msg: r.First.Msg, Why: "the error NCCL returned"})
			}
		}
		d.add(Finding{ID: "init.dupgpu", Severity: Error, Rule: "G-DEV-DUP-1", Title: title, Evidence: ev,
			Check: []string{"one rank per CUDA device on each host: CUDA_VISIBLE_DEVICES or the local rank's cudaSetDevice",
				"2.30.3+: NCCL_MULTI_RANK_GPU_ENABLE=1 allows it (NVLS off)"}})
		return
	}
}

// initAbort names the abort of a process whose failed init freed its init
// job twice (G-INIT-ABORT-1): the error was logged but never returned.
func (d *diag) initAbort() {
	s, ok := d.l.InitAbort()
	if !ok {
		return
	}
	d.add(Finding{ID: "init.abort", Severity: Error, Rule: "G-INIT-ABORT-1",
		Title:    "the process aborted (" + s.Msg + ") on ncclCommInitRank's error path: the init error above was never returned",
		Evidence: []ncclog.Proof{{At: s.At, Msg: s.Msg, Why: "glibc stopped the process after NCCL's init error returns"}},
		Check: []string{"NCCL 2.24.3 and 2.25.1 free a failed init job twice when ncclCommInitRank runs outside a group: 2.26.2+ returns the error",
			"with those releases, ncclCommInitRank between ncclGroupStart and ncclGroupEnd, or ncclCommInitRankConfig, returns the error instead",
			"the cause is the init error logged before it: fix that"}})
}

// returnAfter is the first error return ("file:line -> N") of the process
// that printed s, after s in its file.
func (d *diag) returnAfter(s ncclog.Sample) (ncclog.LogError, bool) {
	var best ncclog.LogError
	found := false
	for _, e := range d.l.Errors {
		at := e.First.At
		if !e.HasResult || e.Level == ncclog.LevelWarn || at.File != s.At.File || at.Line <= s.At.Line || e.First.Proc != s.Proc {
			continue
		}
		if !found || at.Line < best.First.At.Line {
			best, found = e, true
		}
	}
	return best, found
}

// mnnvl reports multi-node NVLink fabric state (GB200-class nodes): a GPU
// whose fabric is not "completed" or reports a health flag cannot join the
// NVLink domain, and NCCL falls back to the network between its trays.
func (d *diag) mnnvl() {
	m := d.l.MNNVL
	for _, f := range m.Fabric {
		if f.Ready() {
			continue
		}
		state := map[int]string{0: "not supported", 1: "not started", 2: "in progress", 3: "completed"}[f.State]
		if state == "" {
			state = fmt.Sprintf("state %d", f.State)
		}
		d.add(Finding{ID: "mnnvl.fabric-not-ready", Severity: Warning, Rule: "G-MNNVL-1",
			Title:    fmt.Sprintf("the MNNVL fabric of %d GPU report(s) is %s (healthMask %s): those GPUs cannot use multi-node NVLink", f.Count, state, f.HealthMask),
			Evidence: []ncclog.Proof{{At: f.At, Msg: fmt.Sprintf("MNNVL ... fabric UUID %s cliqueId %s state %d healthMask %s", f.UUID, f.CliqueID, f.State, f.HealthMask), Why: "nvmlDeviceGetGpuFabricInfoV's state and health"}},
			Check:    []string{"nvidia-smi -q | grep -A4 Fabric: State Completed, Status Success on every GPU", "the IMEX / Fabric Manager service of the rack"}})
	}
	if len(m.Fabric) > 0 && m.Disabled > 0 && m.Enabled == 0 {
		d.add(Finding{ID: "mnnvl.off", Severity: Info, Rule: "G-MNNVL-1",
			Title:    "the GPUs report an NVLink fabric but the communicator did not enable MNNVL (\"MNNVL 0\")",
			Evidence: d.first(ncclog.KindMNNVL, "the communicator's MNNVL decision"),
			Check:    []string{"NCCL_MNNVL_ENABLE (0 disables it)", "all ranks in one clique (same fabric UUID and cliqueId)"}})
	}
}

func (d *diag) initState() {
	if d.l.InitStarted > d.l.InitCompleted && d.l.InitCompleted == 0 {
		d.add(Finding{ID: "init.incomplete", Severity: Warning,
			Title:    fmt.Sprintf("communicator init started %d time(s) but never completed in this log: it failed or the log is cut", d.l.InitStarted),
			Evidence: d.first(ncclog.KindInitStart, "Init START without Init COMPLETE"),
			Check:    []string{"look for a WARN just before the end; a log cut by the paste loses the decisive lines"}})
	}
}

// releaseConsts are the constants of the release a log names: the
// modelled release's, or for a patch gatesim does not model the nearest
// older modelled release's; false for a release older than every modelled
// one (or none).
func releaseConsts(v spec.Version) (spec.Consts, bool) {
	r, ok := spec.Nearest(v)
	if !ok {
		return spec.Consts{}, false
	}
	k, err := spec.ConstsFor(r)
	return k, err == nil
}

// abiRange is the net plugin ABI window NCCL probes at a release: the
// release's NetABI.
func abiRange(v spec.Version) (lo, hi int, ok bool) {
	k, ok := releaseConsts(v)
	if !ok || len(k.NetABI) == 0 {
		return 0, 0, false
	}
	return slices.Min(k.NetABI), slices.Max(k.NetABI), true
}

// printsOpLines: the release prints the per-operation [TUNING] line at
// NCCL_DEBUG=INFO (the tuning model's OpLine: TRACE only before 2.20.3).
func printsOpLines(v spec.Version) bool {
	r, ok := spec.Nearest(v)
	if !ok {
		return false
	}
	rs, err := spec.Load(r)
	return err == nil && rs.Tuning.OpLine != tuning.OpLineTrace
}

func (d *diag) netPlugin() {
	c := d.cap(spec.CapNetPlugin)
	p := d.l.Plugin
	requested := false
	if v, ok := d.envSet("NCCL_NET_PLUGIN"); ok && !strings.EqualFold(v, "none") {
		requested = true
	}
	collnetWanted := false
	if cc := d.cap(spec.CapCollNet); cc != nil && cc.Level >= spec.LevelRequested && cc.Off == nil {
		collnetWanted = true
	}
	switch {
	case c.Level < spec.LevelDiscovered && len(c.Blocks) > 0 && c.Blocks[0].Rule == "G-NET-LIB-2":
		sev := Info
		title := "no external net plugin found; NCCL uses its internal IB/Socket networks (tried: " + strings.Join(p.NotFound, ", ") + ")"
		if requested || collnetWanted {
			sev = Warning
			title = "the net plugin was asked for but not found (tried: " + strings.Join(p.NotFound, ", ") + ")"
		}
		check := []string{"NCCL searches libnccl-net.so (or NCCL_NET_PLUGIN's value, then libnccl-net-<value>.so) with dlopen: the loader path (LD_LIBRARY_PATH, rpath, ldconfig) must reach it"}
		if v, ok := d.envSet("NCCL_NET_PLUGIN"); ok {
			check = append(check, "NCCL_NET_PLUGIN="+v)
		}
		if collnetWanted {
			check = append(check, "CollNet/SHARP needs this plugin (nccl-rdma-sharp-plugins, e.g. /opt/hpcx/nccl_rdma_sharp_plugin/lib)")
		}
		d.add(Finding{ID: "net-plugin.not-found", Severity: sev, Cap: spec.CapNetPlugin, Level: c.Level, Title: title,
			Missing: c.Next, Rule: "G-NET-LIB-2", Evidence: c.Blocks, Check: check})
	case c.Level >= spec.LevelDiscovered && c.Level < spec.LevelAccepted:
		title := "a net plugin library was found but NCCL did not accept it"
		check := []string{}
		if lo, hi, ok := abiRange(d.l.Release); ok {
			title += fmt.Sprintf(" (NCCL %s accepts ncclNetPlugin_v%d..v%d)", d.l.Release, lo, hi)
		}
		if len(p.SymbolsMissing) > 0 {
			check = append(check, "symbols NCCL looked for and did not find: "+joinInts(p.SymbolsMissing, ", ", "ncclNetPlugin_v"))
		}
		if len(p.LoadErrors) > 0 {
			title = "a net plugin library exists but dlopen failed: " + p.LoadErrors[0]
			check = append(check, "ldd the library: a dependency is missing (libibverbs, libfabric, libsharp ...)")
		} else {
			check = append(check, "use a plugin built for this NCCL ABI (nm -D libnccl-net.so | grep ncclNetPlugin_v)")
		}
		d.add(Finding{ID: "net-plugin.rejected", Severity: Error, Cap: spec.CapNetPlugin, Level: c.Level, Title: title,
			Missing: c.Next, Rule: "G-NET-ABI-1", Evidence: append(topProof(c), c.Blocks...), Check: check})
	case c.Level >= spec.LevelAccepted && c.Level < spec.LevelUsable && len(c.Blocks) > 0:
		d.add(Finding{ID: "net-plugin.no-device", Severity: Error, Cap: spec.CapNetPlugin, Level: c.Level,
			Title: "the net plugin loaded but has no usable device", Missing: c.Next, Rule: "G-NET-STATE-1",
			Evidence: append(topProof(c), c.Blocks...),
			Check:    []string{"drivers and /dev/infiniband (or the EFA/verbs devices) visible to the process (containers need --device/--privileged)", "ibv_devinfo shows an active port", "NCCL_IB_HCA does not filter all ports out"}})
	case c.Level >= spec.LevelUsable && c.Level < spec.LevelCandidate:
		d.add(Finding{ID: "net-plugin.not-chosen", Severity: Warning, Cap: spec.CapNetPlugin, Level: c.Level,
			Title: "the net plugin works but the communicator uses another network (" + d.l.Network() + ")", Missing: c.Next, Rule: "G-NET-SEL-1",
			Evidence: topProof(c), Check: []string{"NCCL_NET selects a network by name; unset it to let the plugin (tried first) win"}})
	case c.Level >= spec.LevelAccepted:
		title := "external net plugin in use"
		name := p.Name
		if name == "" {
			name = p.P2PPlugin
		}
		if name != "" {
			title += ": " + name
		}
		if p.ABI > 0 {
			title += fmt.Sprintf(" (ABI v%d)", p.ABI)
		}
		title += ", level " + c.Level.String()
		f := Finding{ID: "net-plugin.used", Severity: Info, Cap: spec.CapNetPlugin, Level: c.Level, Title: title, Missing: c.Next, Rule: "G-NET-ABI-1", Evidence: topProof(c)}
		d.add(f)
	}
}

func topProof(c *ncclog.CapEvidence) []ncclog.Proof {
	if p, ok := c.Top(); ok {
		return []ncclog.Proof{p}
	}
	return nil
}

func joinInts(xs []int, sep, prefix string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = prefix + strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}

func (d *diag) network() {
	ib := d.cap(spec.CapIB)
	net := d.l.Network()
	nodes := d.l.NNodes()
	if ib.Level < spec.LevelUsable && ib.Off == nil && len(ib.Blocks) > 0 {
		sev := Info
		if net == "Socket" && nodes > 1 {
			sev = Warning
		}
		title := "no usable IB/RoCE device: " + ib.Blocks[0].Why
		d.add(Finding{ID: "ib.no-device", Severity: sev, Cap: spec.CapIB, Level: ib.Level, Title: title, Missing: ib.Next,
			Rule: ib.Blocks[0].Rule, Evidence: ib.Blocks,
			Check: []string{"libibverbs installed and loadable (libibverbs.so.1)", "/dev/infiniband/uverbs* present in the container", "ibv_devinfo: at least one PORT_ACTIVE port", "NCCL_IB_HCA filter"}})
	}
	if net == "Socket" {
		s, _ := d.l.First(ncclog.KindUsingNetwork)
		sev := Info
		title := "the communicator's network is TCP sockets (NET/Socket)"
		if nodes > 1 {
			sev = Warning
			title += fmt.Sprintf(" across %d nodes: inter-node traffic goes over TCP", nodes)
		}
		why := "why not IB: "
		if ib.Off != nil {
			why += ib.Off.Why
		} else if len(ib.Blocks) > 0 {
			why += ib.Blocks[0].Why
		} else {
			why += "no IB line in the log"
		}
		d.add(Finding{ID: "net.socket", Severity: sev, Cap: spec.CapIB, Level: ib.Level, Title: title + "; " + why,
			Rule: "G-NET-SEL-1", Evidence: []ncclog.Proof{sample(s, spec.LevelCandidate, "network in use")}, Missing: ib.Next})
	}
	if d.l.IB.DataErrors > 0 {
		s, _ := d.l.First(ncclog.KindIBDataError)
		d.add(Finding{ID: "ib.completion-error", Severity: Error, Cap: spec.CapIB, Level: ib.Level,
			Title: fmt.Sprintf("IB work completions failed during the run (%d line(s)): the data path broke", d.l.IB.DataErrors),
			Rule:  "G-EXEC-ERR-1", Evidence: []ncclog.Proof{sample(s, spec.LevelExecuted, "completion error")},
			Check: []string{"status 12 (retry exceeded) / vendor err 129/81: link or remote peer down, routing/GID (NCCL_IB_GID_INDEX) or RoCE config", "the remote rank may have exited first"}})
	}
}

func (d *diag) gdr() {
	c := d.cap(spec.CapGDR)
	ib := d.cap(spec.CapIB)
	if c.Level < spec.LevelUsable && len(c.Blocks) > 0 && c.Blocks[0].Rule == "G-NET-GDR-1" {
		check := []string{"nvidia-peermem (or nv_peer_mem) loaded: lsmod | grep peermem", "or DMA-BUF support (kernel >= 5.12, NCCL_DMABUF_ENABLE)"}
		if k, ok := releaseConsts(d.l.Release); d.l.Release != 0 && (!ok || !k.GDRPeermem) {
			check = append(check, "NCCL "+d.l.Release.String()+" looks only for nv_peer_mem (/sys/kernel/mm/memory_peers/nv_mem*); it recognises nvidia-peermem from 2.23.4 (v2.23.4-1 src/transport/net_ib.cc ncclIbGdrSupport)")
		}
		sev := Warning
		if ib.Level < spec.LevelCandidate {
			sev = Info
		}
		d.add(Finding{ID: "gdr.disabled", Severity: sev, Cap: spec.CapGDR, Level: c.Level,
			Title: "GPUDirect RDMA is disabled for the NIC: network traffic is staged through host memory", Missing: c.Next,
			Rule: "G-NET-GDR-1", Evidence: c.Blocks, Check: check})
	}
}

func (d *diag) collnet() {
	c := d.cap(spec.CapCollNet)
	requested := false
	for _, p := range c.Proofs {
		requested = requested || p.Level == spec.LevelRequested
	}
	if !requested && c.Off == nil && c.Level < spec.LevelCandidate {
		if d.l.Plugin.CollNetName != "" || d.l.IB.SHARPDevices > 0 {
			d.add(Finding{ID: "collnet.not-enabled", Severity: Info, Cap: spec.CapCollNet, Level: c.Level,
				Title: "the SHARP plugin is present but NCCL_COLLNET_ENABLE is not set: CollNet stays off", Rule: "G-COLLNET-ENV-1",
				Missing: "NCCL_COLLNET_ENABLE=1", Evidence: topProof(c),
				Check: []string{"set NCCL_COLLNET_ENABLE=1 on every rank (and NCCL_COLLNET_NODE_THRESHOLD if fewer than 2 nodes)", "if it was set, pass --env NCCL_COLLNET_ENABLE=1: this log does not print it"}})
		}
		return
	}
	if c.Off != nil && c.Level <= spec.LevelRequested {
		return
	}
	if c.Level >= spec.LevelSelected {
		d.add(Finding{ID: "collnet.used", Severity: Info, Cap: spec.CapCollNet, Level: c.Level,
			Title: "CollNet (SHARP) reached " + c.Level.String(), Rule: "G-SEL-PICK-1", Evidence: topProof(c), Missing: c.Next})
		return
	}
	if len(c.Blocks) > 0 {
		b := c.Blocks[0]
		check := []string{}
		switch b.Rule {
		case "G-COLLNET-THRESH-1":
			check = append(check, "CollNet is never used by default on one node: NCCL_COLLNET_NODE_THRESHOLD sets the minimum node count (default 2)")
		case "G-COLLNET-ARITY-1":
			check = append(check, "at most 8 GPUs per node can use CollNet")
		case "G-COLLNET-SETUP-1":
			check = append(check, "the SHARP plugin's setup failed on a node: sharp_am running on the subnet manager, SHARP_COLL_LOG_LEVEL=3 for its reason, HCA SHARP-capable (ConnectX-6/7 IB)")
		case "G-NET-SEL-2":
			check = append(check, "CollNet comes only from the external plugin: NCCL_NET must not pick IB/Socket, and the plugin must load (see net_plugin)")
		case "G-COLLNET-PLUGIN-1":
			check = append(check, "install the SHARP net plugin (HPC-X nccl_rdma_sharp_plugin) on the loader path")
		case "G-COLLNET-ABI-1":
			check = append(check, "the net plugin exports no ncclCollNetPlugin symbol this release accepts")
		case "G-TUNE-EN-1":
			check = append(check, "NCCL_ALGO asked for CollNet, but the communicator has no CollNet support (an earlier gate failed)")
		}
		d.add(Finding{ID: "collnet.blocked", Severity: Warning, Cap: spec.CapCollNet, Level: c.Level,
			Title: "CollNet (SHARP) stops at " + c.Level.String() + ": " + b.Why, Missing: c.Next, Rule: b.Rule,
			Evidence: append(topProof(c), c.Blocks...), Check: check})
		return
	}
	if c.Level >= spec.LevelCandidate {
		// Candidate but no operation chose it.
		ev := topProof(c)
		title := "CollNet is set up on the communicator but no operation line chose it"
		check := []string{"per-operation lines need NCCL_DEBUG_SUBSYS=TUNING (2.22+)", "only AllReduce (and AllGather/ReduceScatter with a v8+ plugin) can use CollNet; the plugin's redop/datatype matrix must support the op (G-COLLNET-MATRIX-1)", "the cost model may prefer Ring/Tree/NVLS for the size"}
		if len(d.l.Ops) > 0 {
			title = "CollNet is set up but every operation line chose another algorithm (fell back)"
			ev = append(ev, ncclog.Proof{At: d.l.Ops[0].First.At, Msg: d.l.Ops[0].First.Msg, Why: "an operation's choice"})
		}
		d.add(Finding{ID: "collnet.not-selected", Severity: Warning, Cap: spec.CapCollNet, Level: c.Level, Title: title,
			Missing: c.Next, Rule: "G-SEL-OPSUP-1", Evidence: ev, Check: check})
		return
	}
	if c.Level >= spec.LevelRequested {
		d.add(Finding{ID: "collnet.not-enabled", Severity: Warning, Cap: spec.CapCollNet, Level: c.Level,
			Title: "CollNet was asked for but the log shows no CollNet support (" + c.Level.String() + ")", Missing: c.Next,
			Rule: "G-COLLNET-PLUGIN-1", Evidence: topProof(c),
			Check: []string{"the SHARP plugin loaded with CollNet (\"Loaded collnet plugin SHARP\")", "NCCL_COLLNET_ENABLE=1 on every rank", "at least NCCL_COLLNET_NODE_THRESHOLD nodes"}})
	}
}

// nvlsRegister reports NVLS user buffers NCCL could not register (CUDA-graph
// capture with NCCL_GRAPH_REGISTER, or NCCL_LOCAL_REGISTER): not an error,
// the operation ran on NCCL's own NVLS buffers, on the communicator's NVLS
// channels rather than the few a registered buffer needs.
//
// Ref: v2.24.3-1 src/transport/nvls.cc nvlsRegisterBuffer, src/register/coll_reg.cc
// ncclRegisterCollNvlsBuffers
func (d *diag) nvlsRegister() {
	l := d.l
	if l.NVLS.RegFailures == 0 && len(d.o.NVLSRegCuda) == 0 {
		return
	}
	var ev []ncclog.Proof
	for _, e := range l.Errors {
		switch {
		case d.o.NVLSRegCudaWarn(e):
			ev = append(ev, ncclog.Proof{At: e.First.At, Msg: e.First.Msg, Why: "the failed CUDA call of the registration (its source line is in tryRegisterBuffer at the log's release)", Count: e.Count})
		case e.Kind == "cuda.failure" && strings.Contains(e.SrcFile, "nvls") && l.NVLS.CudaFailures <= l.NVLS.RegFailures:
			ev = append(ev, ncclog.Proof{At: e.First.At, Msg: e.First.Msg, Why: "the failed CUDA call of the registration", Count: e.Count})
		}
	}
	if s, ok := l.First(ncclog.KindNVLSRegFail); ok {
		ev = append(ev, ncclog.Proof{At: s.At, Msg: s.Msg, Why: "registration failed: the operation runs on NCCL's own NVLS buffers", Count: l.NVLS.RegFailures})
	}
	d.add(Finding{ID: "nvls.register-failed", Severity: Warning, Cap: spec.CapNVLS, Level: d.cap(spec.CapNVLS).Level,
		Title: "NVLS could not register a user buffer (CUDA-graph capture or NCCL_LOCAL_REGISTER): not fatal, the operation ran on NCCL's own NVLS buffers and its channel count",
		Rule:  "G-REG-UB-1", Evidence: ev,
		Check: []string{"NVLS registers buffers allocated through the cuMem* API (ncclMemAlloc, or PyTorch's NCCL memory pool); cudaMalloc'ed memory cannot be bound to the multicast object",
			"NCCL_DEBUG_SUBSYS=REG (NVLS before 2.24.3) shows each registration",
			"NCCL_GRAPH_REGISTER=0 stops the attempt under CUDA graphs"}})
}

// register reports the user-buffer registrations the log shows, other
// than NVLS's failure (nvlsRegister): each path that registered, and each
// that NCCL called and that failed. Neither is fatal; a registered
// operation runs on the registered path's channels (IPC: 16 on one node
// for Ring/Simple; NVLS and CollNet their user-buffer channels), a failed
// one as if unregistered. The lines name no collective: hw check and the
// public truth match them to operations by size.
//
// Ref: v2.28.9-1 src/register/coll_reg.cc ncclRegisterCollBuffers;
// src/transport/p2p.cc ipcRegisterBuffer; src/transport/net.cc
// netRegisterBuffer; src/transport/coll_net.cc collnetRegisterBuffer
func (d *diag) register() {
	var done, failed []string
	for _, r := range d.l.Reg.Outcomes {
		p := r.Path.String()
		switch {
		case r.Failed && r.Path == tuning.ChunkRegNVLS:
		case r.Failed && !slices.Contains(failed, p):
			failed = append(failed, p)
		case !r.Failed && !slices.Contains(done, p):
			done = append(done, p)
		}
	}
	if len(done) > 0 {
		var ev []ncclog.Proof
		if s, ok := d.l.First(ncclog.KindRegistered); ok {
			ev = append(ev, ncclog.Proof{At: s.At, Msg: s.Msg, Why: "a user buffer registered"})
		}
		d.add(Finding{ID: "register.done", Severity: Info,
			Title: "NCCL registered user buffers (" + strings.Join(done, ", ") + "): those operations run on the registered path's channels, not the unregistered choice",
			Rule:  "G-REG-IPC-1", Evidence: ev,
			Check: []string{"gatesim group --cudagraph (graph capture) and gatesim diagnose --cudagraph predict the registered channels",
				"NCCL_GRAPH_REGISTER=0 / NCCL_LOCAL_REGISTER=0 turn registration off"}})
	}
	if len(failed) > 0 {
		var ev []ncclog.Proof
		if s, ok := d.l.First(ncclog.KindRegFailed); ok {
			ev = append(ev, ncclog.Proof{At: s.At, Msg: s.Msg, Why: "registration failed: the operation runs as unregistered"})
		}
		d.add(Finding{ID: "register.failed", Severity: Warning,
			Title: "NCCL could not register a user buffer (" + strings.Join(failed, ", ") + "): not fatal, the operation ran unregistered, on the channels of an unregistered buffer",
			Rule:  "G-REG-SKIP-1", Evidence: ev,
			Check: []string{"IPC exports cudaMalloc memory only over legacy CUDA IPC (NCCL_LEGACY_CUDA_REGISTER=1 from 2.24.3, never when ranks share a process); cuMem memory needs NCCL's cuMem on",
				"NET and CollNet register only with GPUDirect RDMA (the GDR flag the line prints)"}})
	}
}

func (d *diag) nvls() {
	c := d.cap(spec.CapNVLS)
	if c.Off != nil && c.Level <= spec.LevelRequested {
		return
	}
	var setup []ncclog.Proof
	for _, b := range c.Blocks {
		if b.Rule == "G-NVLS-SETUP-1" {
			setup = append(setup, b)
		}
	}
	forced := false
	if n, ok := d.envSet("NCCL_NVLS_ENABLE"); ok && n == "1" {
		forced = true
	}
	switch {
	case len(setup) > 0:
		check := []string{"set NCCL_NVLS_ENABLE=0 to run without NVLS",
			"Fabric Manager running and healthy (nvidia-smi -q | grep -A2 Fabric: State Completed)",
			"the container exposes /dev/nvidia-caps (IMEX/multicast) and the driver supports multicast (nvbandwidth/nvloom multicast test)"}
		if forced {
			check = append([]string{"NCCL_NVLS_ENABLE=1 forces NVLS: binding failures become fatal"}, check...)
		}
		ev := append(topProof(c), setup...)
		title := "setting up the NVLS multicast object failed: " + setup[0].Why
		if c.Level >= spec.LevelUsable {
			title = "NVLS was available, then " + title
		}
		d.add(Finding{ID: "nvls.setup-failed", Severity: Error, Cap: spec.CapNVLS, Level: c.Level,
			Title: title, Missing: c.Next,
			Rule: "G-NVLS-SETUP-1", Evidence: ev, Check: check})
	case c.Level == spec.LevelUsable && len(c.Blocks) > 0:
		b := c.Blocks[0]
		d.add(Finding{ID: "nvls.no-channels", Severity: Warning, Cap: spec.CapNVLS, Level: c.Level,
			Title: "NVLS multicast is available but the communicator has no NVLS channels: " + b.Why, Missing: c.Next, Rule: b.Rule,
			Evidence: append(topProof(c), c.Blocks...),
			Check:    []string{"an NVSwitch in the topology (NCCL_TOPO_DUMP_FILE shows <nvs>)", "all GPUs sm90+", "more than 2 GPUs before 2.28.7 (at least 2 from 2.28.7)", "every rank with multicast support", "NCCL_NVLS_NCHANNELS / nvlsCTAs not 0"}})
	case c.Level < spec.LevelUsable && (len(c.Blocks) > 0 || c.Level >= spec.LevelRequested):
		sev := Info
		if c.Level >= spec.LevelRequested {
			sev = Warning
		}
		rule := spec.RuleID("G-NVLS-CAP-1")
		title := "NVLS multicast is not available on the devices"
		if len(c.Blocks) > 0 && c.Blocks[0].Rule != "G-NVLS-CAP-1" {
			rule = c.Blocks[0].Rule
			title = "NVLS is not usable: " + c.Blocks[0].Why
		}
		if c.Level >= spec.LevelRequested {
			title += " (NVLS was asked for)"
		}
		d.add(Finding{ID: "nvls.unavailable", Severity: sev, Cap: spec.CapNVLS, Level: c.Level,
			Title: title, Missing: c.Next, Rule: rule, Evidence: append(topProof(c), c.Blocks...),
			Check: []string{"NVSwitch-based system (HGX/DGX H100/H200/B200) and sm90+ GPUs", "Fabric Manager running", "driver and CUDA >= 12.1 (NCCL built with CUDA < 12.1 has no NVLS)"}})
	case c.Level == spec.LevelCandidate && len(d.l.Ops) > 0:
		d.add(Finding{ID: "nvls.not-selected", Severity: Info, Cap: spec.CapNVLS, Level: c.Level,
			Title: "NVLS is set up but no operation line chose it", Missing: c.Next, Rule: "G-SEL-PICK-1", Evidence: topProof(c),
			Check: []string{"NVLS serves AllReduce/AllGather/ReduceScatter; the cost model prefers other algorithms for small sizes", "datatype/redop must be NVLS-capable (no int8/fp8, Prod, Avg)"}})
	case c.Level >= spec.LevelSelected:
		d.add(Finding{ID: "nvls.used", Severity: Info, Cap: spec.CapNVLS, Level: c.Level, Title: "NVLink SHARP (NVLS) reached " + c.Level.String(),
			Rule: "G-SEL-PICK-1", Evidence: topProof(c), Missing: c.Next})
	}
}

// fastPaths are the capabilities whose absence a variable of the log's
// environment can explain: by NCCL_ALGO leaving none of their algorithms,
// or by a switch that turns them off.
var fastPaths = []struct {
	cap     spec.Capability
	algos   []spec.Algo
	off     string // NAME=VALUE that turns it off
	offRule spec.RuleID
}{
	{spec.CapNVLS, []spec.Algo{spec.NVLS}, "NCCL_NVLS_ENABLE=0", "G-NVLS-ENV-1"},
	{spec.CapNVLSTree, []spec.Algo{spec.NVLSTree}, "NCCL_NVLS_ENABLE=0", "G-NVLS-ENV-1"},
	{spec.CapCollNet, []spec.Algo{spec.CollNetDirect, spec.CollNetChain}, "", ""},
	{spec.CapPAT, []spec.Algo{spec.PAT}, "NCCL_PAT_ENABLE=0", "G-PAT-1"},
	{spec.CapIB, nil, "NCCL_IB_DISABLE=1", "G-NET-IB-1"},
	{spec.CapP2P, nil, "NCCL_P2P_DISABLE=1", "G-TRANSPORT-1"},
	{spec.CapSHM, nil, "NCCL_SHM_DISABLE=1", "G-TRANSPORT-1"},
}

// envExplains names the variable of the log's environment that explains a
// fast path the log does not show selected ("NCCL_ALGO=RING explains why
// NVLS was not used"), with the line NCCL printed it on: a switch that
// turns the path off, or NCCL_ALGO leaving none of its algorithms for a
// path the machine offered (usable or better). One finding per variable.
func (d *diag) envExplains() {
	envProof := func(name string) []ncclog.Proof {
		for _, e := range d.l.Env {
			if e.Name == name {
				return []ncclog.Proof{{At: e.At, Msg: e.Name + "=" + e.Value, Why: "the value NCCL reported"}}
			}
		}
		return nil // given with --env: no line to cite
	}
	type expl struct {
		name, value string
		rule        spec.RuleID
		caps        []spec.Capability
		level       spec.Level
		leaves      string
		add         []string
	}
	var order []string
	found := map[string]*expl{}
	note := func(key string, e expl, c spec.Capability, l spec.Level, add string) {
		x, ok := found[key]
		if !ok {
			x = &e
			found[key] = x
			order = append(order, key)
		}
		x.caps = append(x.caps, c)
		if add != "" {
			x.add = append(x.add, add)
		}
		x.level = max(x.level, l)
	}
	allowed := map[spec.Algo]bool{}
	if d.o.Algo != nil && d.o.AlgoErr == "" {
		for f := range spec.NumFuncs {
			for a := range spec.NumAlgos {
				if d.o.Algo.Enabled[f][a] {
					allowed[spec.Algo(a)] = true
				}
			}
		}
	}
	var leaves []string
	for _, a := range spec.Algos {
		if allowed[a] {
			leaves = append(leaves, a.String())
		}
	}
	for _, p := range fastPaths {
		c := d.cap(p.cap)
		if c.Level >= spec.LevelSelected {
			continue
		}
		if p.off != "" {
			k, want, _ := strings.Cut(p.off, "=")
			if v, ok := d.envSet(k); ok && strings.TrimSpace(v) == want {
				note(k, expl{name: k, value: v, rule: p.offRule}, p.cap, c.Level, "")
				continue
			}
		}
		if len(p.algos) == 0 || len(allowed) == 0 || c.Level < spec.LevelUsable {
			continue
		}
		excluded := true
		for _, a := range p.algos {
			excluded = excluded && !allowed[a]
		}
		if excluded {
			v, _ := d.envSet("NCCL_ALGO")
			note("NCCL_ALGO", expl{name: "NCCL_ALGO", value: v, rule: d.o.Algo.Rule, leaves: strings.Join(leaves, ", ")}, p.cap, c.Level, p.algos[0].String())
		}
	}
	for _, key := range order {
		x := found[key]
		var names []string
		for _, c := range x.caps {
			names = append(names, c.Name())
		}
		what, was := strings.Join(names, " and "), "was"
		if len(names) > 1 {
			was = "were"
		}
		title := fmt.Sprintf("%s=%s explains why %s %s not used", x.name, x.value, what, was)
		check := fmt.Sprintf("unset %s to let NCCL consider %s", x.name, what)
		if x.leaves != "" {
			title += ": it leaves " + x.leaves + " only"
			check = fmt.Sprintf("unset NCCL_ALGO, or add %s to it, to let NCCL choose %s", strings.Join(x.add, " or "), what)
		}
		d.add(Finding{ID: "env.explains." + string(x.caps[0]), Severity: Info, Cap: x.caps[0], Level: x.level,
			Title: title, Rule: x.rule, Evidence: envProof(x.name), Check: []string{check}})
	}
}

// algo checks NCCL_ALGO against what ran, and algorithm errors.
func (d *diag) algo() {
	// One finding per distinct cause (the variables and the WARN's form),
	// listing the functions and datatypes it hit.
	type cause struct {
		algo, proto string
		detailed    bool
	}
	var order []cause
	groups := map[cause][]ncclog.NoAlgo{}
	for _, na := range d.l.NoAlgo {
		c := cause{na.AlgoEnv, na.ProtoEnv, na.Detailed}
		if _, ok := groups[c]; !ok {
			order = append(order, c)
		}
		groups[c] = append(groups[c], na)
	}
	algoEnv, hasAlgo := d.envSet("NCCL_ALGO")
	protoEnv, hasProto := d.envSet("NCCL_PROTO")
	for _, c := range order {
		nas := groups[c]
		var what []string
		var ev []ncclog.Proof
		total := 0
		for _, na := range nas {
			w := na.Func
			if na.DType != "" {
				w += " " + na.DType
			}
			if w != "" {
				what = append(what, w)
			}
			total += na.Count
			if len(ev) < 3 {
				ev = append(ev, ncclog.Proof{At: na.First.At, Msg: na.First.Msg, Why: "the WARN NCCL printed", Count: na.Count})
			}
		}
		title := "no algorithm/protocol available"
		if len(what) > 0 {
			title += " for " + strings.Join(what, ", ")
		}
		// The undetailed WARN exists only before 2.24.3 (no Ring backup was
		// left); the detailed one is the 2.24.3+ hard error.
		rule := spec.RuleID("G-SEL-ERR-1")
		if !c.detailed {
			rule = "G-SEL-BACKUP-1"
		}
		var check []string
		switch {
		case c.algo != "" || c.proto != "":
			title += ": the forced " + setVars(c.algo, c.proto) + " leaves nothing these operations can run (ncclInvalidUsage)"
			check = append(check, "name per function what each may run (e.g. allreduce:nvls) or keep a fallback such as Ring; the other functions need an algorithm they implement")
		case hasAlgo || hasProto:
			title += ": " + setVars(algoEnv, protoEnv) + " leave nothing these operations can run"
			if !c.detailed {
				check = append(check, "before 2.24.3 NCCL falls back to Ring silently unless no protocol (or no Ring backup) is left either")
			}
		case c.detailed:
			title += " with NCCL_ALGO and NCCL_PROTO unset: ncclInternalError (every algorithm was pruned for this function/datatype)"
			check = append(check, "an NCCL issue or an unsupported combination (e.g. CollNet/NVLS pruning with fp8/int8); report it with NCCL_DEBUG_SUBSYS=INIT,TUNING")
		default:
			title += ": no algorithm and no Ring backup was left (NCCL < 2.24 prints no detail)"
			check = append(check, "NCCL_ALGO/NCCL_PROTO set for the job? (e.g. NCCL_ALGO=CollNet when CollNet is unavailable)")
		}
		if total > len(nas) {
			title += fmt.Sprintf(" [%d lines]", total)
		}
		d.add(Finding{ID: "algo.unavailable", Severity: Error, Title: title, Rule: rule, Evidence: ev, Check: check})
	}
	if d.o.AlgoErr != "" {
		d.add(Finding{ID: "algo.parse-error", Severity: Error, Title: "NCCL_ALGO does not parse in this release: " + d.o.AlgoErr + " (communicator init fails)",
			Rule: "G-SEL-PARSE-2", Evidence: d.first(ncclog.KindAlgoParseError, "NCCL's WARN")})
	}
	if d.o.Algo == nil {
		return
	}
	var fellBack, other []spec.Decision
	for _, dec := range d.o.Decisions {
		if dec.Err != nil {
			continue
		}
		if dec.Fallback {
			fellBack = append(fellBack, dec)
		} else if dec.Op.Func < spec.NumFuncs && dec.Algo >= 0 && !d.o.Algo.Named[dec.Algo] && anyNamed(d.o.Algo) {
			other = append(other, dec)
		}
	}
	if len(fellBack) > 0 {
		dec := fellBack[0]
		d.add(Finding{ID: "algo.fallback", Severity: Warning, Level: spec.LevelSelected,
			Title: fmt.Sprintf("NCCL_ALGO=%s excludes %s for %s, yet %d operation(s) ran %s/%s: NCCL %s falls back to Ring silently",
				algoEnv, dec.Algo, dec.Op.Func, len(fellBack), dec.Algo, dec.Proto, d.l.Release),
			Rule: dec.DecidedBy, Evidence: d.opEvidence(dec),
			Check: []string{"read the actual choice per operation, not the variable; 2.24.3+ return ncclInvalidUsage instead"}})
	} else if len(other) > 0 {
		dec := other[0]
		d.add(Finding{ID: "algo.not-honoured", Severity: Info, Level: spec.LevelSelected,
			Title: fmt.Sprintf("NCCL_ALGO=%s, and %d operation line(s) ran another algorithm (first: %s %d bytes -> %s/%s)",
				algoEnv, len(other), dec.Op.Func, dec.Op.Bytes(), dec.Algo, dec.Proto),
			Rule: "G-SEL-PICK-1", Evidence: d.opEvidence(dec),
			Check: []string{"with the per-function grammar (2.24.3+) functions NCCL_ALGO does not name keep every algorithm", "the named algorithm must also be implemented for the function (Tree is AllReduce only)"}})
	}
}

// proto checks NCCL_PROTO against the protocols that ran.
func (d *diag) proto() {
	if d.o.ProtoErr != "" {
		d.add(Finding{ID: "proto.parse-error", Severity: Error, Title: "NCCL_PROTO does not parse in this release: " + d.o.ProtoErr + " (communicator init fails)",
			Rule: "G-SEL-PARSE-2", Evidence: d.first(ncclog.KindAlgoParseError, "NCCL's WARN")})
	}
	if d.o.Proto == nil {
		return
	}
	protoEnv, _ := d.envSet("NCCL_PROTO")
	for _, dec := range d.o.Decisions {
		if dec.Err != nil || dec.Op.Func >= spec.NumFuncs || dec.Proto < 0 || d.o.Proto.Enabled[dec.Op.Func][dec.Proto] {
			continue
		}
		title := fmt.Sprintf("NCCL_PROTO=%s excludes %s, yet %s %d bytes ran %s/%s", protoEnv, dec.Proto, dec.Op.Func, dec.Op.Bytes(), dec.Algo, dec.Proto)
		check := []string{"read the per-operation choice: the variable is an intent, the line is what ran"}
		if dec.Fallback {
			title += ": the silent Ring backup re-enabled every protocol"
			check = append(check, "2.19-2.21: the Ring backup computed its time with all protocols (fixed in 2.22, v2.22.3-1 src/graph/tuning.cc ncclTopoTuneModel zeroes ringbdw for disabled protocols)")
		}
		d.add(Finding{ID: "proto.not-honoured", Severity: Warning, Level: spec.LevelSelected, Title: title, Rule: dec.DecidedBy,
			Evidence: d.opEvidence(dec), Check: check})
		return
	}
}

func setVars(algo, proto string) string {
	var parts []string
	if algo != "" {
		parts = append(parts, "NCCL_ALGO="+algo)
	}
	if proto != "" {
		parts = append(parts, "NCCL_PROTO="+proto)
	}
	return strings.Join(parts, " ")
}

func anyNamed(r *ncclog.AlgoRequest) bool {
	for _, n := range r.Named {
		if n {
			return true
		}
	}
	return false
}

func (d *diag) opEvidence(dec spec.Decision) []ncclog.Proof {
	for _, op := range d.l.Ops {
		if op.Func == dec.Op.Func && op.Bytes == dec.Op.Bytes() && op.Algo == dec.Algo && op.Proto == dec.Proto {
			return []ncclog.Proof{{Level: spec.LevelSelected, Rule: dec.DecidedBy, At: op.First.At, Msg: op.First.Msg, Why: "the operation's choice", Count: op.Count}}
		}
	}
	return nil
}

// contradictions: a variable switched a capability off, yet it went further.
func (d *diag) contradictions() {
	for _, c := range d.o.Caps {
		if c.Off == nil || c.Level <= spec.LevelRequested {
			continue
		}
		top, _ := c.Top()
		title := fmt.Sprintf("%s is switched off by the environment (%s), yet the log shows it %s", c.Cap, c.Off.Msg, c.Level)
		check := []string{}
		if c.Cap == spec.CapIB {
			title = fmt.Sprintf("NCCL_IB_DISABLE is set, yet IB verbs are in use (%s): %s", c.Level, top.Why)
			check = append(check, "NCCL_IB_DISABLE only disables NCCL's internal IB transport; an external plugin (IBext from the SHARP plugin) drives IB itself: use NCCL_NET=Socket or NCCL_NET_PLUGIN=none")
		}
		d.add(Finding{ID: "env.contradicted", Severity: Warning, Cap: c.Cap, Level: c.Level, Title: title, Rule: c.Off.Rule,
			Evidence: []ncclog.Proof{*c.Off, top}, Check: check})
	}
}

func (d *diag) errors() {
	n := 0
	for _, e := range d.l.Errors {
		if e.Kind == "op.noalgo" || e.Kind == "nvls.register.failed" || ncclog.IsDupGPUWarn(e) || e.Kind == "cuda.failure" && strings.Contains(e.SrcFile, "nvls") {
			continue // reported by their own findings
		}
		if e.Level != ncclog.LevelWarn && e.Kind != "framework.error" && e.Kind != "framework.lasterror" {
			continue
		}
		n++
		if n > 3 {
			break
		}
		title := "NCCL reported: " + e.Msg
		if e.HasResult {
			title += " (" + e.Result.String() + ")"
		}
		d.add(Finding{ID: "nccl.error", Severity: Error, Title: title, Rule: d.ruleOfLine(e.First.Msg),
			Evidence: []ncclog.Proof{{At: e.First.At, Msg: e.First.Msg, Why: e.SrcFile + ":" + strconv.Itoa(e.SrcLine), Count: e.Count}}})
	}
}

// ruleOfLine is the gate whose observed verdict the log line is (the
// reader's trace names it), empty when none does.
func (d *diag) ruleOfLine(msg string) spec.RuleID {
	for _, v := range d.o.Trace {
		if slices.Contains(v.Log, msg) {
			return v.Rule
		}
	}
	return ""
}

func (d *diag) missing() {
	l := d.l
	m := &d.r.Missing
	for _, s := range l.Sources {
		if s.Truncated {
			*m = append(*m, s.Name+" ends in the middle of a line: the log is cut, later gates are unknown")
		}
		if s.CutLines > 0 {
			*m = append(*m, fmt.Sprintf("%s has %d line(s) longer than 64 KiB, cut", s.Name, s.CutLines))
		}
	}
	if l.Version == "" && l.Release == 0 {
		*m = append(*m, "no \"NCCL version\" line: the release is assumed, not known (finding release.assumed; pass --nccl)")
	}
	if l.Count(ncclog.KindUsingNetwork) == 0 && l.InitCompleted == 0 && l.Count(ncclog.KindChannels) == 0 {
		*m = append(*m, "no communicator init lines (\"Using network\", \"Init COMPLETE\"): run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT")
	}
	if len(l.Ops) == 0 && printsOpLines(l.Release) {
		*m = append(*m, "no per-operation lines: add NCCL_DEBUG_SUBSYS=TUNING (rank 0 prints \"<Func>: N Bytes -> Algo A proto P\") to see what each collective chose")
	} else if len(l.Ops) == 0 && l.Release != 0 {
		*m = append(*m, "no per-operation lines: NCCL "+l.Release.String()+" prints them only as TRACE (a debug build with NCCL_DEBUG=TRACE)")
	}
	if d.o.UnnamedOps > 0 {
		*m = append(*m, fmt.Sprintf("%d per-operation line(s) do not name their collective (2.22 prints only bytes; add NCCL_DEBUG_SUBSYS=COLL)", d.o.UnnamedOps))
	}
	if len(l.Env) == 0 {
		*m = append(*m, "no \"set by environment\" lines: the ENV subsystem is off, or no NCCL_* variable was set (pass --env NAME=VALUE for what you set)")
	}
	if l.OpsDropped > 0 || l.ErrsDropped > 0 || l.CallsDrop > 0 {
		*m = append(*m, fmt.Sprintf("very large log: %d distinct operation lines, %d errors and %d call lines beyond the kept bound were counted, not stored", l.OpsDropped, l.ErrsDropped, l.CallsDrop))
	}
}

// LogFiles picks the logs among a directory's file names: the *.log files
// when there are any (NCCL_DEBUG_FILE outputs), else every name
// IsLogFileName accepts. The result is sorted.
func LogFiles(names []string) []string {
	var logs, others []string
	for _, n := range names {
		switch {
		case strings.HasSuffix(strings.ToLower(n), ".log"):
			logs = append(logs, n)
		case IsLogFileName(n):
			others = append(others, n)
		}
	}
	if len(logs) == 0 {
		logs = others
	}
	sort.Strings(logs)
	return logs
}

// IsLogFileName reports whether a file in a capture directory is a log to
// read: capture directories also hold topology and graph dumps, result
// tables and notes.
func IsLogFileName(n string) bool {
	lower := strings.ToLower(n)
	for _, ext := range []string{".xml", ".json", ".jsonl", ".md", ".csv", ".tar", ".gz", ".tgz", ".zip", ".so", ".golden", ".txt.golden"} {
		if strings.HasSuffix(lower, ext) {
			return false
		}
	}
	return !strings.HasPrefix(lower, "provenance") && !strings.HasPrefix(lower, "readme") && !strings.HasPrefix(lower, "expect") && !strings.HasPrefix(lower, ".")
}
