package spec

import (
	"fmt"
	"strings"
)

// GIN (GPU-initiated networking, 2.28.7+) and RMA (2.30.3+) plugins. They
// serve the device API and the symmetric GIN kernels of multi-node
// communicators; their loaders are modelled from "a library exists and
// exports an accepted symbol" to its init and devices() (Library.Gin,
// Library.Rma), and the internal IB GIN's and RMA's init and type (proxy
// or GDAKI, NCCL_GIN_TYPE) from the node's NICs (gin_internal.go).

// ginInNet is G-GIN-1 of 2.28.7–2.29.3: ncclGinPlugin_vN is looked up in
// the net plugin's library, after its CollNet symbol.
func ginInNet(ref Ref) *Rule {
	return &Rule{
		ID: "G-GIN-1", Layer: LayerABI, Title: "GIN plugin",
		Doc:  `No GIN plugin of its own: ncclNetPluginLoad looks ncclGinPlugin_vN (GinABI: v11) up in each accepted external net plugin library, after its CollNet symbol ("NET/Plugin: Loaded gin plugin %s (v11)"). Without one, GIN is the internal IB net plugin's, assigned with the IB network only (NCCL_GIN_TYPE: unset GDAKI on an mlx5 port, the proxy when GDAKI's init fails; 2 the proxy; 3 GDAKI; other none; 2.28.7–2.28.9 keep a placeholder pointer and crash when no mlx5 port exists, 2.29.2 takes the proxy there and assigns the IB proxy as RMA: "Assigned RMA plugin GIN_IB_PROXY to comm"). If the GIN object's init fails or its devices() fails or reports 0 (Library.gin), ncclNetPluginInit disables it without a line and the communicator has no GIN. Otherwise ncclNetPluginAssignToComm assigns it with its net plugin, "Assigned GIN plugin %s to comm" (candidate), when that plugin is the communicator's network. From 2.29.2 a GIN object on every node (NCCL_CROSS_NIC not 0, no fused NIC) lets symmetric memory span nodes (Comm.GIN).`,
		Ref:  ref,
		Logs: []string{"NET/Plugin: Loaded gin plugin %s (v%d)", "Assigned GIN plugin %s to comm"},
		node: true,
		init: func(r *initRun) {
			s := r.cur
			if s.lib == nil || s.netABI == 0 {
				r.ginInNetInternal("no external net plugin accepted", nil)
				return
			}
			facts := []Fact{F("exports", joinInts(s.lib.GinSymbols)), F("accepts", joinInts(r.rs.Consts.GinABI))}
			v := probe(s.lib.GinSymbols, r.rs.Consts.GinABI)
			if v == 0 {
				r.ginInNetInternal("the net plugin's library exports no ncclGinPlugin symbol of "+joinInts(r.rs.Consts.GinABI), facts)
				return
			}
			loaded := []string{fmt.Sprintf("NET/Plugin: Loaded gin plugin %s (v%d)", ginName(s.lib), v)}
			// ncclNetPluginInit disables the GIN object quietly and still
			// assigns the net plugin, so the communicator has no GIN.
			if ok, why := s.lib.Gin.usable(); !ok {
				facts = append(facts, F("disabled", s.lib.Path+": "+why))
				r.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("ncclGinPlugin_v%d in the net plugin's library: %s, so GIN is disabled and the communicator has none", v, why), Facts: facts, Log: loaded})
				return
			}
			s.ginLib, s.ginABI = s.lib, v
			// ncclNetPluginAssignToComm assigns the GIN object with its
			// net plugin: a candidate when that plugin is the
			// communicator's network, else usable (init and devices()
			// passed) but not the communicator's
			if s.chosen == nil || s.chosen.external != s.lib {
				r.emit(Verdict{Outcome: Pass, Level: LevelUsable, Why: fmt.Sprintf("ncclGinPlugin_v%d in the net plugin's library, which is not the communicator's network: not assigned", v), Facts: facts, Log: loaded})
				return
			}
			s.ginType, s.ginName = ginTypeGDAKI, ginName(s.lib)
			r.emit(Verdict{Outcome: Pass, Level: LevelCandidate, Why: fmt.Sprintf("ncclGinPlugin_v%d in the net plugin's library, assigned to the communicator with its network (its device type taken as GDAKI)", v),
				Facts: facts, Log: append(loaded, "Assigned GIN plugin "+ginName(s.lib)+" to comm")})
		},
	}
}

// ginInNetInternal is G-GIN-1's verdict of 2.28.7–2.29.3 without an
// external GIN object: the internal IB net plugin's, when IB is the
// communicator's network (ibGin.inNet).
func (r *initRun) ginInNetInternal(noExt string, facts []Fact) {
	s := r.cur
	if s.chosen == nil || s.chosen.external != nil || s.chosen.name != "IB" {
		net := "none"
		if s.chosen != nil {
			net = s.chosen.name
		}
		r.emit(Verdict{Outcome: Info, Why: noExt + "; the internal IB GIN comes only with the IB network, and the communicator's is " + net + ": no GIN", Facts: append(facts, F("network", net))})
		return
	}
	g := r.ibGinOf(s)
	o := g.inNet(r.rs.Consts.GinInternal)
	facts = append(facts, g.facts()...)
	if o.ginType == ginTypeNone {
		r.emit(Verdict{Outcome: Info, Why: noExt + "; the IB network's GIN: " + o.why, Facts: facts})
		return
	}
	s.ginType, s.ginName, s.rmaName = o.ginType, o.name, o.rma
	r.emit(Verdict{Outcome: Pass, Level: LevelCandidate, Why: noExt + "; the IB network's GIN, assigned with it: " + o.why, Facts: append(facts, F("gin", ginTypeName(o.ginType))), Log: o.logs})
}

// ginInternal is G-GIN-1's verdict from 2.29.7 when no external GIN
// plugin is assigned: the internal IB GIN (and, 2.29.7–2.30.4, its RMA),
// or 2.30.7's GDAKI entry and the GIN proxy over the RMA plugin.
// gdakiIdx is the GDAKI entry's index in ncclGinInit's list.
func (r *initRun) ginInternal(lead string, facts []Fact, logs []string, gdakiIdx int, kindLines bool) {
	s := r.cur
	g := r.ibGinOf(s)
	facts = append(facts, g.facts()...)
	var o ginOutcome
	if r.rs.Consts.GinInternal == GinInternalGdakiRma {
		o = g.gdakiThenProxy(gdakiIdx, s.rmaName)
	} else {
		o = g.ginIB()
	}
	logs = append(logs, o.logs...)
	if o.ginType == ginTypeNone {
		fail := "Failed to initialize any GIN plugin"
		if kindLines {
			fail = "GIN/Plugin: " + fail
		}
		r.emit(Verdict{Outcome: Info, Why: lead + "; the internal IB GIN: " + o.why + ": no GIN", Facts: facts, Log: append(logs, fail)})
		return
	}
	s.ginType, s.ginName = o.ginType, o.name
	if o.rma != "" {
		s.rmaName = o.rma
	}
	r.ginEnableGate(&facts)
	r.emit(Verdict{Outcome: Pass, Level: LevelCandidate, Why: lead + "; the internal IB GIN, assigned: " + o.why, Facts: append(facts, F("gin", ginTypeName(s.ginType))), Log: logs})
}

// ginEnableGate is setLocalGinType of 2.29.7–2.30.4: with NCCL_GIN_ENABLE=0
// the assigned plugin's type is NCCL_GIN_TYPE_NONE (the communicator has
// no GIN for symmetric memory). 2.28.7–2.29.3 and 2.30.7 read the
// variable only when GIN connects.
//
// Ref: v2.29.7-1 src/gin/gin_host.cc setLocalGinType
func (r *initRun) ginEnableGate(facts *[]Fact) {
	if r.rs.Consts.GinInternal != GinInternalIB || r.param("NCCL_GIN_ENABLE") != 0 {
		return
	}
	r.cur.ginType = ginTypeNone
	*facts = append(*facts, F("NCCL_GIN_ENABLE", 0), F("gin_type", "none (setLocalGinType)"))
}

func ginName(l *Library) string {
	if l.GinName != "" {
		return l.GinName
	}
	return l.Base()
}

func rmaName(l *Library) string {
	if l.RmaName != "" {
		return l.RmaName
	}
	return l.Base()
}

// listPlugin is a loader of the GIN (2.29.7+) or RMA (2.30.7) kind: a
// comma list in a variable (or one default library), then libraries
// other plugins opened, then NCCL's internal IB one.
type listPlugin struct {
	env, def, prefix, kind string // NCCL_GIN_PLUGIN, libnccl-gin.so, libnccl-gin, GIN
	// maxEntries is how many list entries are kept; limitShown is the
	// number the "more than %d plugins" line prints.
	maxEntries, limitShown int
	syms                   func(*Library) []int
	name                   func(*Library) string
	// backend is what the library's struct of this kind answers at init.
	backend func(*Library) *GinBackend
	window  func(*Consts) []int
	// loaded is the accepted symbol's line, e.g. "NET/Plugin: Loaded gin
	// plugin %s (v%d)".
	loaded string
	// kindLines: "<KIND>/Plugin: Successfully loaded external plugin %s"
	// or "... Failed to load external plugin %s, dlHandle: %p, ncclGin:
	// %p" per entry, and "<KIND>/Plugin: Assigned plugin %s[ type %d] to
	// comm" (2.30.7); otherwise "Successfully loaded external gin plugin
	// %s" for every opened entry, symbol or not, and "Assigned <KIND>
	// plugin %s to comm".
	kindLines bool
	// reuse lists the libraries of other plugins tried after the list.
	reuse func(*nodeState) []*Library
}

// walk loads the entries in order and stops at the first whose symbol is
// accepted and whose init and devices() succeed (NCCL loads lazily and
// assigns the first that initialises; one that does not is disabled
// without a line). disabled says which were, and why.
func (p listPlugin) walk(r *initRun) (lib *Library, v int, logs []string, facts []Fact, disabled []string) {
	s, nd := r.cur, r.cur.node
	val, set := r.env.Lookup(p.env)
	facts = []Fact{F(p.env, envShow(val, set)), F("accepts", joinInts(p.window(&r.rs.Consts)))}
	var entries []string
	if !set {
		entries = []string{p.def}
	} else {
		logs = append(logs, p.env+" set by environment to "+val)
		if !strings.EqualFold(val, "none") {
			var more []string
			entries, more = pluginList(p.env, val, p.maxEntries, p.limitShown)
			logs = append(logs, more...)
		}
	}
	// 2.30.7's ncclGinPluginAssignToComm skips a GIN plugin whose device
	// type is not NCCL_GIN_TYPE (an external one's is taken as GDAKI) and
	// goes on to the next entry
	ginType, typed := int64(-1), false
	if p.kind == "GIN" && r.rs.Consts.GinInternal == GinInternalGdakiRma {
		ginType = r.param("NCCL_GIN_TYPE")
		typed = ginType != -1 && ginType != ginTypeGDAKI
	}
	accept := func(l *Library, path string, idx int) int {
		v := probe(p.syms(l), p.window(&r.rs.Consts))
		if v != 0 {
			logs = append(logs, fmt.Sprintf(p.loaded, p.name(l), v))
		}
		switch {
		case !p.kindLines:
			logs = append(logs, "Successfully loaded external "+strings.ToLower(p.kind)+" plugin "+path)
		case v != 0:
			logs = append(logs, p.kind+"/Plugin: Successfully loaded external plugin "+path)
		default:
			logs = append(logs, p.kind+"/Plugin: Failed to load external plugin "+path+", dlHandle: 0x…, nccl"+titleKind(p.kind)+": (nil)")
		}
		if v == 0 {
			return 0
		}
		if ok, why := p.backend(l).usable(); !ok {
			disabled = append(disabled, path+": "+why)
			return 0
		}
		if typed {
			logs = append(logs, fmt.Sprintf("GIN/Plugin: Skipping plugin %s index %d type %d: NCCL_GIN_TYPE=%d requested", p.name(l), idx, ginTypeGDAKI, ginType))
			facts = append(facts, F("skipped", fmt.Sprintf("%s: type %d, NCCL_GIN_TYPE=%d", path, ginTypeGDAKI, ginType)))
			return 0
		}
		return v
	}
	done := func(l *Library, v int, tried []string) (*Library, int, []string, []Fact, []string) {
		facts = append(facts, F("tried", strings.Join(tried, " ")))
		if len(disabled) > 0 {
			facts = append(facts, F("disabled", strings.Join(disabled, "; ")))
		}
		return l, v, logs, facts, disabled
	}
	var tried []string
	for i, e := range entries {
		var missing []string
		var opened *Library
		for _, n := range namesCond.libNames(p.prefix, e) {
			tried = append(tried, n)
			l, dlerr, enoent := nd.open(n)
			if l != nil {
				opened = l
				break
			}
			if enoent {
				missing = append(missing, n)
			} else {
				logs = append(logs, p.kind+"/Plugin: "+n+": "+dlerr)
			}
		}
		if opened == nil {
			if len(missing) > 0 {
				logs = append(logs, p.kind+"/Plugin: Could not find: "+strings.Join(missing, " "))
			}
			if p.kindLines {
				logs = append(logs, p.kind+"/Plugin: Failed to load external plugin "+e+", dlHandle: (nil), nccl"+titleKind(p.kind)+": (nil)")
			}
			continue
		}
		if v := accept(opened, opened.Path, i); v != 0 {
			return done(opened, v, tried)
		}
	}
	if p.reuse != nil {
		for k, l := range p.reuse(s) {
			tried = append(tried, l.Path)
			if v := accept(l, l.Path, len(entries)+k); v != 0 {
				return done(l, v, tried)
			}
		}
	}
	return done(nil, 0, tried)
}

// entries is the number of list entries the loader keeps (NCCL_*_PLUGIN's
// list, or the default library).
func (p listPlugin) entries(r *initRun) int {
	val, set := r.env.Lookup(p.env)
	switch {
	case !set:
		return 1
	case strings.EqualFold(val, "none"):
		return 0
	}
	entries, _ := pluginList(p.env, val, p.maxEntries, p.limitShown)
	return len(entries)
}

// assigned is the line NCCL prints when it assigns the plugin named
// name to the communicator (ncclGinPluginAssignToComm,
// ncclRmaPluginAssignToComm). 2.30.7's GIN line gives the device type: an
// external plugin of the proxy type is skipped there, so one that is
// assigned is NCCL_NET_DEVICE_GIN_GDAKI (3).
func (p listPlugin) assigned(name string) string {
	switch {
	case !p.kindLines:
		return "Assigned " + p.kind + " plugin " + name + " to comm"
	case p.kind == "GIN":
		return p.kind + "/Plugin: Assigned plugin " + name + " type 3 to comm"
	}
	return p.kind + "/Plugin: Assigned plugin " + name + " to comm"
}

// noExternal is the verdict of a loader that assigned no external plugin.
func noExternal(kind, internal string, disabled []string) string {
	if len(disabled) == 0 {
		return "no external " + kind + " plugin: " + internal + " is tried"
	}
	return "no external " + kind + " plugin initialises (" + strings.Join(disabled, "; ") + "; each is disabled): " + internal + " is tried; its init is not modelled"
}

func titleKind(kind string) string {
	return kind[:1] + strings.ToLower(kind[1:])
}

// listPluginAt is kind p with one release's list limit and lines.
func listPluginAt(p listPlugin, maxEntries, limitShown int, loaded string, kindLines bool) listPlugin {
	p.maxEntries, p.limitShown, p.loaded, p.kindLines = maxEntries, limitShown, loaded, kindLines
	return p
}

var ginKind = listPlugin{env: "NCCL_GIN_PLUGIN", def: "libnccl-gin.so", prefix: "libnccl-gin", kind: "GIN",
	syms: func(l *Library) []int { return l.GinSymbols }, name: ginName, window: func(c *Consts) []int { return c.GinABI },
	backend: func(l *Library) *GinBackend { return l.Gin },
	reuse: func(s *nodeState) []*Library {
		if s.lib != nil && s.netABI > 0 {
			return []*Library{s.lib}
		}
		return nil
	}}

// ginLoader is G-GIN-1 from 2.29.7: the GIN plugin's own loader.
func ginLoader(ref Ref, doc string, p listPlugin) *Rule {
	return &Rule{
		ID: "G-GIN-1", Layer: LayerLibrary, Title: "GIN plugin", Doc: doc, Ref: ref, node: true,
		Logs: []string{"NCCL_GIN_PLUGIN set by environment to %s", "GIN/Plugin: Could not find:%s", p.loaded},
		init: func(r *initRun) {
			s := r.cur
			lib, v, logs, facts, disabled := p.walk(r)
			if lib == nil {
				// the internal entries follow the list and the net
				// plugin's library
				r.ginInternal(noExternal("GIN", "the internal IB GIN", disabled), facts, logs, p.entries(r)+len(p.reuse(s)), p.kindLines)
				return
			}
			s.ginLib, s.ginABI = lib, v
			s.ginType, s.ginName = ginTypeGDAKI, ginName(lib)
			r.ginEnableGate(&facts)
			via := ""
			if lib == s.lib {
				via = " (the net plugin's library)"
			}
			// assigned to the communicator, as a network's "Assigned
			// NET plugin" is: a candidate (it decides no operation)
			r.emit(Verdict{Outcome: Pass, Level: LevelCandidate, Why: fmt.Sprintf("ncclGinPlugin_v%d in %s%s, assigned to the communicator (its device type taken as GDAKI)", v, lib.Path, via),
				Facts: facts, Log: append(logs, p.assigned(ginName(lib)))})
		},
	}
}

// rmaInGin is G-RMA-1 of 2.30.3–2.30.4: the RMA object comes with the GIN
// plugin's symbol of the same version. ncclGinPluginLoad takes it but
// leaves its state at ncclGinPluginStateLoadReady (only the internal IB
// proxy's starts InitReady), and ncclGinPluginInit initialises an RMA
// object only from InitReady: an external one is never initialised nor
// assigned, and ncclGinInit stops at the external GIN plugin before the
// internal one, so the communicator has no RMA.
// Ref: v2.30.3-1 src/plugin/gin.cc ncclGinPluginLoad, ncclGinPluginInit,
// ncclGinPluginAssignToComm, initPluginLibsOnceFunc
func rmaInGin(ref Ref) *Rule {
	return &Rule{
		ID: "G-RMA-1", Layer: LayerABI, Title: "RMA plugin",
		Doc:  `No RMA plugin of its own: with the GIN plugin's accepted version, ncclGinPluginLoad takes that version's RMA object: ncclRmaPlugin_v13 beside ncclGinPlugin_v13 (RmaABI; "NET/Plugin: Loaded rma plugin %s (v13)"), the GIN struct itself for v12 and v11. It leaves that object's state at LoadReady, and ncclGinPluginInit initialises an RMA object only from InitReady (the internal IB proxy's start there): an external GIN plugin's RMA is never initialised nor assigned ("Assigned RMA plugin %s to comm" is never printed for it), and since ncclGinInit stops at the assigned external GIN plugin, the communicator has no RMA. Without an external GIN plugin, RMA is the internal IB proxy's, assigned by G-GIN-1 with the internal GIN. RMA decides nothing gatesim models.`,
		Ref:  ref,
		Logs: []string{"NET/Plugin: Loaded rma plugin %s (v%d)"},
		node: true,
		init: func(r *initRun) {
			s := r.cur
			if s.ginLib == nil {
				if s.rmaName != "" {
					r.emit(Verdict{Outcome: Pass, Level: LevelCandidate, Why: "no external GIN plugin: the internal IB GIN's RMA object " + s.rmaName + " is assigned with it (G-GIN-1)"})
					return
				}
				r.emit(Verdict{Outcome: Skip, Why: "no external GIN plugin and the internal IB GIN assigned no RMA object (G-GIN-1)"})
				return
			}
			facts := []Fact{F("gin_abi", s.ginABI), F("exports", joinInts(s.ginLib.RmaSymbols)), F("accepts", joinInts(r.rs.Consts.RmaABI))}
			const never = ", which ncclGinPluginLoad leaves LoadReady: never initialised nor assigned, so the communicator has no RMA"
			off := F("disabled", s.ginLib.Path+": RMA never initialised (left LoadReady)")
			if probe([]int{s.ginABI}, r.rs.Consts.RmaABI) == 0 {
				r.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("ncclGinPlugin_v%d: its GIN struct is the RMA object", s.ginABI) + never, Facts: append(facts, off)})
				return
			}
			if probe(s.ginLib.RmaSymbols, []int{s.ginABI}) == 0 {
				r.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("%s exports no ncclRmaPlugin_v%d and NCCL stops at its GIN plugin: the communicator has no RMA", s.ginLib.Path, s.ginABI), Facts: facts})
				return
			}
			loaded := []string{fmt.Sprintf("NET/Plugin: Loaded rma plugin %s (v%d)", rmaName(s.ginLib), s.ginABI)}
			r.emit(Verdict{Outcome: Info, Why: fmt.Sprintf("ncclRmaPlugin_v%d beside the GIN plugin", s.ginABI) + never, Facts: append(facts, off), Log: loaded})
		},
	}
}

// rmaLoader is G-RMA-1 from 2.30.7: the RMA plugin's own loader, which
// runs before the GIN loader (so the GIN plugin's library is not open yet
// on a process's first communicator and only the net plugin's is reused).
func rmaLoader(ref Ref, doc string, p listPlugin) *Rule {
	return &Rule{
		ID: "G-RMA-1", Layer: LayerLibrary, Title: "RMA plugin", Doc: doc, Ref: ref, node: true,
		Logs: []string{"NCCL_RMA_PLUGIN set by environment to %s", "RMA/Plugin: Could not find:%s", p.loaded,
			"RMA/Plugin: Successfully loaded external plugin %s", "RMA/Plugin: Failed to load external plugin %s, dlHandle: %p, ncclRma: %p",
			"RMA/Plugin: Assigned plugin %s to comm", "RMA/Plugin: Failed to initialize any plugin"},
		init: func(r *initRun) {
			s := r.cur
			lib, v, logs, facts, disabled := p.walk(r)
			if lib == nil {
				g := r.ibGinOf(s)
				ok, why, more := g.rmaIBProxy()
				facts, logs = append(facts, g.facts()...), append(logs, more...)
				lead := noExternal("RMA", "the internal IB proxy RMA", disabled)
				if !ok {
					r.emit(Verdict{Outcome: Info, Why: lead + "; RMA_IB_PROXY: " + why + ": no RMA", Facts: facts, Log: append(logs, "RMA/Plugin: Failed to initialize any plugin")})
					return
				}
				s.rmaName = "RMA_IB_PROXY"
				r.emit(Verdict{Outcome: Pass, Level: LevelCandidate, Why: lead + "; assigned: " + why, Facts: facts, Log: append(logs, p.assigned(s.rmaName))})
				return
			}
			s.rmaName = rmaName(lib)
			r.emit(Verdict{Outcome: Pass, Level: LevelCandidate, Why: fmt.Sprintf("ncclRmaPlugin_v%d in %s, assigned to the communicator", v, lib.Path),
				Facts: facts, Log: append(logs, p.assigned(rmaName(lib)))})
		},
	}
}

var rmaKind = listPlugin{env: "NCCL_RMA_PLUGIN", def: "libnccl-rma.so", prefix: "libnccl-rma", kind: "RMA",
	syms: func(l *Library) []int { return l.RmaSymbols }, name: rmaName, window: func(c *Consts) []int { return c.RmaABI },
	backend: func(l *Library) *GinBackend { return l.Rma },
	reuse:   ginKind.reuse}
