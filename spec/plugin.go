package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gatesim/gatesim/spec/tuning"
)

// Layers 1 and 2: plugin library discovery and ABI symbol acceptance.

// dlopen models dlopen(name, RTLD_NOW|RTLD_LOCAL) on a node: a name with a
// '/' is a path; a bare name is looked up in the loader path. It returns the
// library, or the dlerror text and whether NCCL counts it as ENOENT
// (dlerror names the library and says "No such file or directory").
func (n *Node) dlopen(name string) (lib *Library, dlerr string, enoent bool) {
	for i := range n.Libs {
		l := &n.Libs[i]
		match := false
		if strings.Contains(name, "/") {
			match = l.Path == name
		} else {
			match = l.InLoaderPath && l.Base() == name
		}
		if !match {
			continue
		}
		if l.LoadError != "" {
			en := strings.Contains(l.LoadError, name) && strings.Contains(l.LoadError, "No such file or directory")
			return nil, l.LoadError, en
		}
		return l, "", false
	}
	return nil, name + ": cannot open shared object file: No such file or directory", true
}

// staticPluginName reports a name NCCL treats as "the main program":
// a case-insensitive prefix of STATIC_PLUGIN (plugin_open.cc tryOpenLib).
func staticPluginName(name string) bool {
	return name != "" && len(name) <= len("STATIC_PLUGIN") && strings.EqualFold(name, "STATIC_PLUGIN"[:len(name)])
}

// mainProgram stands for dlopen(NULL): the application itself, which
// exports no plugin symbols unless the system lists a library "@main".
func (n *Node) mainProgram() *Library {
	for i := range n.Libs {
		if n.Libs[i].Path == "@main" {
			return &n.Libs[i]
		}
	}
	return &Library{Path: "@main"}
}

// open is tryOpenLib.
func (n *Node) open(name string) (lib *Library, dlerr string, enoent bool) {
	if staticPluginName(name) {
		return n.mainProgram(), "", false
	}
	return n.dlopen(name)
}

// probe returns the newest version of window (newest first) that syms has.
func probe(syms []int, window []int) int {
	for _, v := range window {
		if slices.Contains(syms, v) {
			return v
		}
	}
	return 0
}

// ---------------------------------------------------------------------------
// 2.22.3: one plugin slot, names [value, libnccl-net-<value>.so] or
// [libnccl-net.so].

var netLib22 = &Rule{
	ID: "G-NET-LIB-1", Layer: LayerLibrary, Cap: CapNetPlugin, Title: "net plugin library names",
	Doc:  `If NCCL_NET_PLUGIN (plain getenv) is set and non-empty, dlopen the value, then libnccl-net-<value>.so; otherwise dlopen libnccl-net.so. The first that opens wins. A name that is a case-insensitive prefix of STATIC_PLUGIN opens the main program. A failure other than "No such file or directory" for that name is logged with dlerror's text.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/net.cc", Func: "openNetPluginLib"},
	Logs: []string{"NET/Plugin: Plugin name set by env to %s", "NET/Plugin: %s"},
	node: true,
	init: func(r *initRun) {
		s, nd := r.cur, r.cur.node
		val, set := r.env.Lookup("NCCL_NET_PLUGIN")
		var names []string
		if set && val != "" {
			names = []string{val, "libnccl-net-" + val + ".so"}
		} else {
			names = []string{"libnccl-net.so"}
		}
		var logs []string
		facts := []Fact{F("NCCL_NET_PLUGIN", envShow(val, set))}
		for _, name := range names {
			s.libTried = append(s.libTried, name)
			lib, dlerr, enoent := nd.open(name)
			if lib != nil {
				s.lib, s.libName = lib, name
				if set && val != "" {
					logs = append(logs, "NET/Plugin: Plugin name set by env to "+name)
				}
				lvl := LevelDiscovered
				r.emit(Verdict{Outcome: Pass, Level: lvl, Why: "dlopen(" + name + ") opened " + lib.Path,
					Facts: append(facts, F("tried", strings.Join(s.libTried, " "))), Log: logs})
				if set {
					r.comm.Evidence.Raise(CapNetPlugin, LevelRequested)
				}
				return
			}
			if enoent {
				s.libMissing = append(s.libMissing, name)
			} else {
				logs = append(logs, "NET/Plugin: "+dlerr)
			}
		}
		if set && val != "" {
			r.comm.Evidence.Raise(CapNetPlugin, LevelRequested)
		}
		r.emit(Verdict{Outcome: Fail, Why: "no candidate name opened: " + strings.Join(s.libTried, ", "),
			Facts: append(facts, F("tried", strings.Join(s.libTried, " "))), Log: logs})
	},
}

var netLibNone22 = &Rule{
	ID: "G-NET-LIB-2", Layer: LayerLibrary, Cap: CapNetPlugin, Title: "no library: internal networks",
	Doc:  `When no candidate opens, NCCL uses only its internal networks (IB, then Socket). The failure is sticky for the process: the plugin is never tried again.`,
	Ref:  Ref{Tag: "v2.22.3-1", File: "src/net.cc", Func: "ncclNetPluginLoad"},
	Logs: []string{"NET/Plugin: Could not find:%s. Using internal network plugin.", "NET/Plugin: Using internal network plugin."},
	node: true,
	init: func(r *initRun) {
		s := r.cur
		if s.lib != nil {
			r.emit(Verdict{Outcome: Skip, Why: "a plugin library was opened"})
			return
		}
		var log string
		if len(s.libMissing) > 0 {
			log = "NET/Plugin: Could not find: " + strings.Join(s.libMissing, " ") + ". Using internal network plugin."
		} else {
			log = "NET/Plugin: Using internal network plugin."
		}
		r.emit(Verdict{Outcome: Fail, Why: "no external network plugin: internal IB and Socket only", Log: []string{log}})
	},
}

var netABI22 = &Rule{
	ID: "G-NET-ABI-1", Layer: LayerABI, Cap: CapNetPlugin, Title: "net plugin ABI",
	Doc: `Probe ncclNetPlugin_v8, _v7, _v6, _v5 in that order; the first found is adapted to v8. v4 and older are not supported: with none of these the library is closed, only the internal networks remain, and CollNet is not probed.`,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/net.cc", Func: "ncclNetPluginLoad"},
	Logs: []string{"NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.", "NET/Plugin: Loaded net plugin %s (v7)",
		"NET/Plugin: Failed to find ncclNetPlugin symbol (>= v5). ncclNetPlugin symbols v4 and lower are not supported."},
	node: true,
	init: func(r *initRun) {
		s := r.cur
		if s.lib == nil {
			r.emit(Verdict{Outcome: Skip, Why: "no plugin library opened"})
			return
		}
		v := probe(s.lib.NetSymbols, r.rs.Consts.NetABI)
		facts := []Fact{F("exports", joinInts(s.lib.NetSymbols)), F("accepts", joinInts(r.rs.Consts.NetABI))}
		var logs []string
		if v != r.rs.Consts.NetABI[0] {
			logs = append(logs, fmt.Sprintf("NET/Plugin: Failed to find ncclNetPlugin_v%d symbol.", r.rs.Consts.NetABI[0]))
		}
		if v == 0 {
			logs = append(logs, "NET/Plugin: Failed to find ncclNetPlugin symbol (>= v5). ncclNetPlugin symbols v4 and lower are not supported.")
			r.emit(Verdict{Outcome: Fail, Why: "no accepted ncclNetPlugin symbol: the library is closed", Facts: facts, Log: logs})
			s.lib = nil
			return
		}
		s.netABI = v
		if v != r.rs.Consts.NetABI[0] {
			logs = append(logs, fmt.Sprintf("NET/Plugin: Loaded net plugin %s (v%d)", pluginLoadNameV(s.lib, v, r.env), v))
		}
		r.emit(Verdict{Outcome: Pass, Level: LevelAccepted, Why: fmt.Sprintf("ncclNetPlugin_v%d accepted", v), Facts: facts, Log: logs})
	},
}

var collNetABI22 = collNetABI(Ref{Tag: "v2.22.3-1", File: "src/net.cc", Func: "ncclNetPluginLoad"}, "collnet")

// collNetABI is G-COLLNET-ABI-1 over the release's NetABI window; loaded is
// the word of its "Loaded ... plugin" line ("coll" before 2.22.3).
func collNetABI(ref Ref, loaded string) *Rule {
	return &Rule{
		ID: "G-COLLNET-ABI-1", Layer: LayerABI, Cap: CapCollNet, Title: "CollNet plugin ABI",
		Doc: `Only after a net symbol was accepted in the same library: probe ncclCollNetPlugin_vN from the newest of the window down to v5 (2.22.3: v8, v7, v6, v5). Failure is not fatal: the net plugin is used without CollNet. The internal networks never provide CollNet.`,
		Ref: ref,
		Logs: []string{"NET/Plugin: Failed to find ncclCollNetPlugin_v8 symbol.", "NET/Plugin: Loaded " + loaded + " plugin %s (v7)",
			"NET/Plugin: Failed to find ncclCollNetPlugin symbol (>= v5). ncclCollNetPlugin symbols v4 and lower are not supported."},
		node: true,
		init: func(r *initRun) {
			s := r.cur
			if s.lib == nil || s.netABI == 0 {
				r.emit(Verdict{Outcome: Skip, Why: "no net plugin accepted: CollNet is not probed"})
				return
			}
			v := probe(s.lib.CollNetSymbols, r.rs.Consts.NetABI)
			facts := []Fact{F("exports", joinInts(s.lib.CollNetSymbols)), F("accepts", joinInts(r.rs.Consts.NetABI))}
			var logs []string
			if v != r.rs.Consts.NetABI[0] {
				logs = append(logs, fmt.Sprintf("NET/Plugin: Failed to find ncclCollNetPlugin_v%d symbol.", r.rs.Consts.NetABI[0]))
			}
			if v == 0 {
				logs = append(logs, "NET/Plugin: Failed to find ncclCollNetPlugin symbol (>= v5). ncclCollNetPlugin symbols v4 and lower are not supported.")
				r.emit(Verdict{Outcome: Fail, Why: "no accepted ncclCollNetPlugin symbol: no CollNet", Facts: facts, Log: logs})
				return
			}
			s.collNetABI = v
			if v != r.rs.Consts.NetABI[0] {
				logs = append(logs, fmt.Sprintf("NET/Plugin: Loaded %s plugin %s (v%d)", loaded, collNetNameV(s.lib, v), v))
			}
			r.emit(Verdict{Outcome: Pass, Level: LevelAccepted, Why: fmt.Sprintf("ncclCollNetPlugin_v%d accepted", v), Facts: facts, Log: logs})
		},
	}
}

// collNetEntryPoints is G-COLLNET-ABI-2: adapters for CollNet ABIs older
// than oldest leave iallgather and ireducescatter NULL.
func collNetEntryPoints(ref Ref, firstWith int) *Rule {
	return &Rule{
		ID: "G-COLLNET-ABI-2", Layer: LayerABI, Cap: CapCollNet, Title: "CollNet AllGather/ReduceScatter entry points",
		Doc:  fmt.Sprintf(`CollNet plugins older than v%d are adapted with iallgather and ireducescatter set to NULL, which makes multi-node CollNetDirect (and, from 2.27, NVLS) AllGather and ReduceScatter ineligible. A v%d+ plugin may still leave them NULL.`, firstWith, firstWith),
		Ref:  ref,
		node: true,
		init: func(r *initRun) {
			s := r.cur
			if s.collNetABI == 0 {
				r.emit(Verdict{Outcome: Skip, Why: "no CollNet ABI accepted"})
				return
			}
			ag, rsc := s.collNetABI >= firstWith, s.collNetABI >= firstWith
			if cn := s.lib.CollNet; cn != nil {
				ag = ag && !cn.NoAllGather
				rsc = rsc && !cn.NoReduceScatter
			}
			r.comm.CollNetIAllGather, r.comm.CollNetIReduceScatter = ag, rsc
			out := Pass
			why := "iallgather and ireducescatter present"
			if !ag || !rsc {
				out = Fail
				why = fmt.Sprintf("CollNet v%d: iallgather %s, ireducescatter %s", s.collNetABI, presence(ag), presence(rsc))
			}
			r.emit(Verdict{Outcome: out, Why: why, Facts: []Fact{F("collnet_abi", s.collNetABI)}})
		},
	}
}

func collNetNameV(l *Library, v int) string {
	if l == nil || l.CollNet == nil || l.CollNet.Name == "" {
		return "?"
	}
	if strings.Contains(l.CollNet.Name, "%d") {
		return fmt.Sprintf(l.CollNet.Name, v)
	}
	return l.CollNet.Name
}

func presence(b bool) string {
	if b {
		return "present"
	}
	return "NULL"
}

// pluginNetName is the name the plugin reports; a name with "%d" (the
// SHARP plugin's "IBext_v%d") takes the highest ABI the library exports in
// the release's window, as each ncclNetPlugin_vN struct carries its own name.
func pluginNetName(l *Library, env Env) string {
	if l == nil || l.Net == nil || l.Net.Name == "" {
		return "?"
	}
	if n, ok := netEnvRename(l.Net, env); ok {
		return n
	}
	return l.Net.Name
}

// netEnvRename is the name a plugin gives every ncclNetPlugin_vN struct
// when it is loaded with NCCL_NET naming one of its NetEnvNames, ignoring
// case (aws-ofi-nccl v1.13.0-aws+ src/nccl_ofi_interface_nvidia.c
// nvidia_plugin_name_fixup, a constructor that reads getenv("NCCL_NET")).
func netEnvRename(nb *NetBackend, env Env) (string, bool) {
	v, ok := env.Lookup("NCCL_NET")
	if !ok || len(nb.NetEnvNames) == 0 {
		return "", false
	}
	for _, n := range nb.NetEnvNames {
		if strings.EqualFold(n, v) {
			return n, true
		}
	}
	return "", false
}

func pluginNetNameV(l *Library, v int, env Env) string {
	n := pluginNetName(l, env)
	if strings.Contains(n, "%d") {
		return fmt.Sprintf(n, v)
	}
	return n
}

// pluginLoadNameV is the name the plugin's ncclNetPlugin_vN struct has when
// NCCL loads it, before init (NetBackend.LoadName; Name when unset): what
// "NET/Plugin: Loaded net plugin %s (v%d)" prints in every modelled release
// (v2.22.3-1 src/net.cc ncclNetPluginLoad, v2.28.3-1
// src/plugin/net/net_v8.cc getNcclNet_v8). A rename by NCCL_NET happens
// before the load, so it is the load-time name too.
func pluginLoadNameV(l *Library, v int, env Env) string {
	if l == nil || l.Net == nil || l.Net.LoadName == "" {
		return pluginNetNameV(l, v, env)
	}
	if n, ok := netEnvRename(l.Net, env); ok {
		return n
	}
	if strings.Contains(l.Net.LoadName, "%d") {
		return fmt.Sprintf(l.Net.LoadName, v)
	}
	return l.Net.LoadName
}

// pluginNetNameAt is the network's name for "Using network", NCCL_NET and
// the comm: the post-init name, except from 2.26 for a plugin below the
// release's newest net ABI, whose shim copied the name at load and never
// refreshes it (v2.28.3-1 src/plugin/net/net_v8.cc getNcclNet_v8
// "ncclNet.name = ncclNet_v8->name", ncclNet_init leaves it; v2.25.1-1
// src/net.cc ncclNet_v8_as_v9_init still copied it after init).
func pluginNetNameAt(rs *Ruleset, l *Library, v int, env Env) string {
	if rs.Consts.NetNameAtLoad && len(rs.Consts.NetABI) > 0 && v != rs.Consts.NetABI[0] {
		return pluginLoadNameV(l, v, env)
	}
	return pluginNetNameV(l, v, env)
}

func envShow(v string, set bool) string {
	if !set {
		return "(unset)"
	}
	if v == "" {
		return `""`
	}
	return v
}

// ---------------------------------------------------------------------------
// 2.28: a comma list of plugins, "none", the common loader.

var netLib28 = netLibList(Ref{Tag: "v2.28.3-1", File: "src/plugin/plugin_open.cc", Func: "openPluginLib"},
	`NCCL_NET_PLUGIN unset: one entry, libnccl-net.so. Set: logged; "none" (any case) gives no external entry; otherwise a comma-separated list (empty items skipped, at most 14 entries, names of 255+ characters ignored). An empty value also gives no external entry. For each entry dlopen the name; then, only if it has no '/' and is not of the form lib*.so, dlopen libnccl-net-<name>.so. A non-ENOENT failure is logged with the name and dlerror's text; the ENOENT names are listed in "Could not find".`,
	netLibOpts{noneKeyword: true})

// netLibOpts are the release switches of G-NET-LIB-1's plugin list.
type netLibOpts struct {
	// noneKeyword: "none" names no plugin (2.28.3+); before it is an
	// entry like any other.
	noneKeyword bool
	// form is how openPluginLib turns an entry into file names.
	form libNameForm
}

// libNameForm is how a release's plugin loader turns one plugin name into
// the file names it dlopens, in order.
type libNameForm int8

const (
	// namesCond: the name, then <prefix>-<name>.so unless the name has a
	// '/' or is lib*.so (2.27.5+ openPluginLib).
	namesCond libNameForm = iota
	// namesOne: a name of the form lib*.so (7 characters or more) as
	// given, any other name only as <prefix>-<name>.so, so a path not
	// starting with "lib" is never opened (2.27.3 openPluginLib).
	namesOne
	// namesBoth: the name, then <prefix>-<name>.so (2.26.2–2.26.6
	// openPluginLib).
	namesBoth
	// namesTwice: the name, then the name again (2.23.4–2.25.1
	// openProfilerPluginLib never rewrites its buffer between the tries).
	namesTwice
)

// libNames are the file names form's loader dlopens for name; an empty
// name is the plugin kind's default, <prefix>.so.
func (f libNameForm) libNames(prefix, name string) []string {
	if name == "" {
		return []string{prefix + ".so"}
	}
	libSO := strings.HasPrefix(name, "lib") && strings.HasSuffix(name, ".so")
	prefixed := prefix + "-" + name + ".so"
	switch f {
	case namesTwice:
		return []string{name, name}
	case namesBoth:
		return []string{name, prefixed}
	case namesOne:
		if libSO && len(name) >= len("libX.so") {
			return []string{name}
		}
		return []string{prefixed}
	}
	if strings.Contains(name, "/") || libSO {
		return []string{name}
	}
	return []string{name, prefixed}
}

// describe says in words what libNames opens for a value.
func (f libNameForm) describe(prefix string) string {
	switch f {
	case namesTwice:
		return "the value, twice"
	case namesBoth:
		return "the value, then " + prefix + "-<value>.so"
	case namesOne:
		return "a value of the form lib*.so as given, any other only as " + prefix + "-<value>.so"
	}
	return "the value (then " + prefix + "-<value>.so unless it has a '/' or is lib*.so)"
}

// pluginList is the entries of a comma list of plugin names in variable
// env (2.27.3+ net, 2.29.7+ GIN, 2.30.7 RMA): empty items skipped, at
// most maxEntries kept (the dropped rest logged with limitShown), a name
// of 255 characters or more ignored.
func pluginList(env, val string, maxEntries, limitShown int) (entries, logs []string) {
	for _, e := range strings.Split(val, ",") {
		if e == "" {
			continue
		}
		if len(entries) >= maxEntries {
			logs = append(logs, fmt.Sprintf("%s list contains more than %d plugins, ignoring the rest", env, limitShown))
			break
		}
		if len(e)+1 > 255 {
			logs = append(logs, fmt.Sprintf("%s list contains a plugin name %s longer than 255 characters, ignoring it.", env, e))
			continue
		}
		entries = append(entries, e)
	}
	return entries, logs
}

// netLibList is G-NET-LIB-1 from 2.27.3: a list of plugin entries, each
// opened by openPluginLib.
func netLibList(ref Ref, doc string, o netLibOpts) *Rule {
	return &Rule{
		ID: "G-NET-LIB-1", Layer: LayerLibrary, Cap: CapNetPlugin, Title: "net plugin library names",
		Doc: doc, Ref: ref,
		Logs: []string{"NCCL_NET_PLUGIN set by environment to %s", "NET/Plugin: %s: %s", "NET/Plugin: Could not find:%s",
			"NCCL_NET_PLUGIN list contains more than %d plugins, ignoring the rest"},
		node: true,
		init: func(r *initRun) { netLibListInit(r, o) },
	}
}

func netLibListInit(r *initRun, o netLibOpts) {
	s, nd := r.cur, r.cur.node
	val, set := r.env.Lookup("NCCL_NET_PLUGIN")
	var logs []string
	var entries []string
	if !set {
		entries = []string{"libnccl-net.so"}
	} else {
		logs = append(logs, "NCCL_NET_PLUGIN set by environment to "+val)
		r.comm.Evidence.Raise(CapNetPlugin, LevelRequested)
		if !o.noneKeyword || !strings.EqualFold(val, "none") {
			var more []string
			entries, more = pluginList("NCCL_NET_PLUGIN", val, 14, 13)
			logs = append(logs, more...)
		}
	}
	facts := []Fact{F("NCCL_NET_PLUGIN", envShow(val, set))}
	if len(entries) == 0 {
		r.emit(Verdict{Outcome: Fail, Why: "NCCL_NET_PLUGIN names no external plugin", Facts: facts, Log: logs})
		return
	}
	// Entries are opened lazily by ncclNetInit; the first entry is
	// opened here, later ones only if earlier ones are not assigned
	// (G-NET-STATE-1 continues the walk).
	for _, e := range entries {
		s.libs = append(s.libs, &pluginEntry{name: e})
	}
	opened := 0
	for _, pe := range s.libs {
		var missing []string
		for _, name := range o.form.libNames("libnccl-net", pe.name) {
			s.libTried = append(s.libTried, name)
			lib, dlerr, enoent := nd.open(name)
			if lib != nil {
				pe.lib, pe.opened = lib, name
				break
			}
			if enoent {
				missing = append(missing, name)
			} else {
				logs = append(logs, "NET/Plugin: "+name+": "+dlerr)
			}
		}
		if pe.lib == nil {
			pe.state = "loadFailed"
			if len(missing) > 0 {
				logs = append(logs, "NET/Plugin: Could not find: "+strings.Join(missing, " "))
			}
			s.libMissing = append(s.libMissing, missing...)
			continue
		}
		opened++
		// ncclNetInit loads entries lazily and stops at the first one
		// assigned to the communicator; an entry with an accepted net
		// symbol is (almost always) that one, so later entries are
		// never opened.
		if probe(pe.lib.NetSymbols, r.rs.Consts.NetABI) != 0 {
			break
		}
	}
	facts = append(facts, F("entries", strings.Join(entries, ",")), F("tried", strings.Join(s.libTried, " ")))
	if opened == 0 {
		r.emit(Verdict{Outcome: Fail, Why: "no entry opened: " + strings.Join(s.libTried, ", "), Facts: facts, Log: logs})
		return
	}
	var got []string
	for _, pe := range s.libs {
		if pe.lib != nil {
			got = append(got, pe.opened+" → "+pe.lib.Path)
		}
	}
	s.lib, s.libName = s.firstOpened()
	r.emit(Verdict{Outcome: Pass, Level: LevelDiscovered, Why: "opened " + strings.Join(got, "; "), Facts: facts, Log: logs})
}

func (s *nodeState) firstOpened() (*Library, string) {
	for _, pe := range s.libs {
		if pe.lib != nil {
			return pe.lib, pe.opened
		}
	}
	return nil, ""
}

var netLibNone28 = &Rule{
	ID: "G-NET-LIB-2", Layer: LayerLibrary, Cap: CapNetPlugin, Title: "no library: internal networks",
	Doc:  `An entry that does not open becomes LoadFailed and is never retried; when no entry opens, only the internal networks IB and Socket remain. Since 2.27.3 the "Could not find" line has no trailing sentence.`,
	Ref:  Ref{Tag: "v2.28.3-1", File: "src/plugin/net.cc", Func: "ncclNetPluginLoad"},
	Logs: []string{"NET/Plugin: Could not find:%s"},
	node: true,
	init: func(r *initRun) {
		if r.cur.lib != nil {
			r.emit(Verdict{Outcome: Skip, Why: "a plugin library was opened"})
			return
		}
		r.emit(Verdict{Outcome: Fail, Why: "no external network plugin: internal IB and Socket only"})
	},
}

// netABI28 is G-NET-ABI-1 and G-COLLNET-ABI-1 for the 2.26+ loader, one
// probe per entry with a version-specific getNcclNet_vN adapter.
func netABI28(ref Ref) *Rule {
	return &Rule{
		ID: "G-NET-ABI-1", Layer: LayerABI, Cap: CapNetPlugin, Title: "net plugin ABI",
		Doc:  `For each opened entry probe ncclNetPlugin_vN from the newest supported version down to v6 (2.28: v11…v6); the first found is adapted to the internal ABI. None found: "External network plugin %s is unsupported" and the entry becomes LoadFailed.`,
		Ref:  ref,
		Logs: []string{"NET/Plugin: Loaded net plugin %s (v%d)", "Successfully loaded external network plugin %s", "External network plugin %s is unsupported"},
		node: true,
		init: func(r *initRun) {
			s := r.cur
			if s.lib == nil {
				r.emit(Verdict{Outcome: Skip, Why: "no plugin library opened"})
				return
			}
			var logs []string
			accepted := 0
			for _, pe := range s.libs {
				if pe.lib == nil {
					continue
				}
				v := probe(pe.lib.NetSymbols, r.rs.Consts.NetABI)
				if v == 0 {
					pe.state = "loadFailed"
					logs = append(logs, "External network plugin "+pe.lib.Path+" is unsupported")
					continue
				}
				pe.netABI = v
				logs = append(logs, fmt.Sprintf("NET/Plugin: Loaded net plugin %s (v%d)", pluginLoadNameV(pe.lib, v, r.env), v))
				if cv := probe(pe.lib.CollNetSymbols, r.rs.Consts.NetABI); cv != 0 {
					pe.cnABI = cv
					logs = append(logs, fmt.Sprintf("NET/Plugin: Loaded collnet plugin %s (v%d)", collNetNameV(pe.lib, cv), cv))
				}
				logs = append(logs, "Successfully loaded external network plugin "+pe.lib.Path)
				pe.state = "initReady"
				accepted++
			}
			first := firstAccepted(s.libs)
			facts := []Fact{F("exports", joinInts(s.lib.NetSymbols)), F("accepts", joinInts(r.rs.Consts.NetABI))}
			if first == nil {
				s.lib = nil
				r.emit(Verdict{Outcome: Fail, Why: "no entry exports an accepted ncclNetPlugin symbol", Facts: facts, Log: logs})
				return
			}
			s.lib, s.libName, s.netABI, s.collNetABI = first.lib, first.opened, first.netABI, first.cnABI
			r.emit(Verdict{Outcome: Pass, Level: LevelAccepted, Why: fmt.Sprintf("ncclNetPlugin_v%d accepted (%d of the opened entries)", first.netABI, accepted),
				Facts: facts, Log: logs})
		},
	}
}

func firstAccepted(ps []*pluginEntry) *pluginEntry {
	for _, pe := range ps {
		if pe.lib != nil && pe.netABI > 0 {
			return pe
		}
	}
	return nil
}

func collNetABI28(ref Ref) *Rule {
	return &Rule{
		ID: "G-COLLNET-ABI-1", Layer: LayerABI, Cap: CapCollNet, Title: "CollNet plugin ABI",
		Doc:  `In the same library, after the net symbol: probe ncclCollNetPlugin_vN over the same window. None found is silent: the net plugin is used without CollNet.`,
		Ref:  ref,
		Logs: []string{"NET/Plugin: Loaded collnet plugin %s (v%d)"},
		node: true,
		init: func(r *initRun) {
			s := r.cur
			if s.lib == nil || s.netABI == 0 {
				r.emit(Verdict{Outcome: Skip, Why: "no net plugin accepted: CollNet is not probed"})
				return
			}
			facts := []Fact{F("exports", joinInts(s.lib.CollNetSymbols)), F("accepts", joinInts(r.rs.Consts.NetABI))}
			if s.collNetABI == 0 {
				r.emit(Verdict{Outcome: Fail, Why: "no accepted ncclCollNetPlugin symbol: no CollNet", Facts: facts})
				return
			}
			r.emit(Verdict{Outcome: Pass, Level: LevelAccepted, Why: fmt.Sprintf("ncclCollNetPlugin_v%d accepted", s.collNetABI), Facts: facts})
		},
	}
}

// ---------------------------------------------------------------------------
// Tuner plugin.

// tunerCands22 are 2.22.3's candidates: the tuner names, then the net
// plugin's names (a tuner may be packed into the net plugin).
func tunerCands22(env Env) []string {
	var out []string
	if v := env["NCCL_TUNER_PLUGIN"]; v != "" {
		out = append(out, v, "libnccl-tuner-"+v+".so")
	} else {
		out = append(out, "libnccl-tuner.so")
	}
	if v := env["NCCL_NET_PLUGIN"]; v != "" {
		out = append(out, v, "libnccl-net-"+v+".so")
	} else {
		out = append(out, "libnccl-net.so")
	}
	return out
}

var tunerLib22 = &Rule{
	ID: "G-TUNER-LIB-1", Layer: LayerLibrary, Cap: CapTuner, Title: "tuner library",
	Doc: `Candidates (dlopen RTLD_LAZY): NCCL_TUNER_PLUGIN's value then libnccl-tuner-<value>.so, or libnccl-tuner.so; then, since a tuner may be packed into the net plugin, NCCL_NET_PLUGIN's value then libnccl-net-<value>.so, or libnccl-net.so. The first that opens is searched for tuner symbols. Loaded once per process; a failure is sticky.`,
	Ref: Ref{Tag: "v2.22.3-1", File: "src/misc/tuner.cc", Func: "openTunerPluginLib"},
	Logs: []string{"TUNER/Plugin: NCCL_TUNER_PLUGIN set to %s", "TUNER/Plugin: Plugin name set by env to %s",
		"TUNER/Plugin: Could not find:%s. Using internal tuner plugin.", "TUNER/Plugin: Using internal tuner plugin."},
	node: true,
	init: func(r *initRun) {
		s, nd := r.cur, r.cur.node
		var logs, missing []string
		v, set := r.env.Lookup("NCCL_TUNER_PLUGIN")
		if set && v != "" {
			r.comm.Evidence.Raise(CapTuner, LevelRequested)
			logs = append(logs, "TUNER/Plugin: NCCL_TUNER_PLUGIN set to "+v)
		}
		cands := tunerCands22(r.env)
		nTuner := 2
		if !(set && v != "") {
			nTuner = 1
		}
		for i, n := range cands {
			lib, dlerr, enoent := nd.open(n)
			if lib == nil {
				if enoent {
					missing = append(missing, n)
				} else {
					logs = append(logs, "TUNER/Plugin: "+dlerr)
				}
				continue
			}
			if (i < nTuner && set && v != "") || (i >= nTuner && r.env["NCCL_NET_PLUGIN"] != "") {
				logs = append(logs, "TUNER/Plugin: Plugin name set by env to "+n)
			}
			s.tunerLib, s.tunerPath = lib, lib.Path
			if i >= nTuner {
				r.emit(Verdict{Outcome: Info, Why: "no tuner library; " + n + " (the net plugin's name) opened " + lib.Path + " and is searched for a tuner", Log: logs})
				return
			}
			r.emit(Verdict{Outcome: Pass, Level: LevelDiscovered, Why: "dlopen(" + n + ") opened " + lib.Path, Log: logs})
			return
		}
		if len(missing) > 0 {
			logs = append(logs, "TUNER/Plugin: Could not find: "+strings.Join(missing, " ")+". Using internal tuner plugin.")
		} else {
			logs = append(logs, "TUNER/Plugin: Using internal tuner plugin.")
		}
		r.emit(Verdict{Outcome: Fail, Why: "no tuner library: internal tuning", Log: logs, Facts: []Fact{F("tried", strings.Join(cands, " "))}})
	},
}

// tunerLibOpts are the release switches of the 2.26+ tuner loader
// (ncclTunerPluginLoad through openPluginLib).
type tunerLibOpts struct {
	form libNameForm
	// fallback is openPluginLib's pluginFallback sentence for the tuner:
	// "Using internal tuner plugin." up to 2.28.3, "" from 2.28.7. It ends
	// "Could not find:%s", and stands alone when every name failed with
	// an error other than ENOENT.
	fallback string
	// common is 2.28.3's loader: NCCL_TUNER_PLUGIN logged, "none" names no
	// tuner, a dlerror line names the file and no line says which name
	// opened. Before it (2.26.2–2.27.7) "none" is a name like any other,
	// a dlerror line is dlerror's text alone and a name NCCL_TUNER_PLUGIN
	// gave that opens is logged "Plugin name set by env to %s".
	common bool
}

// tunerLib28 is G-TUNER-LIB-1 of the common loader (2.26.2+).
func tunerLib28(ref Ref, o tunerLibOpts) *Rule {
	notFound := "TUNER/Plugin: Could not find:%s"
	if o.fallback != "" {
		notFound += ". " + o.fallback
	}
	logs := []string{notFound, "TUNER/Plugin: Plugin name set by env to %s", "TUNER/Plugin: %s"}
	none := ""
	if o.common {
		logs = []string{"NCCL_TUNER_PLUGIN set by environment to %s", notFound, "TUNER/Plugin: %s: %s"}
		none = `NCCL_TUNER_PLUGIN=none: no tuner. Otherwise the`
	} else {
		none = `The`
	}
	if o.fallback != "" {
		logs = append(logs, "TUNER/Plugin: "+o.fallback)
	}
	return &Rule{
		ID: "G-TUNER-LIB-1", Layer: LayerLibrary, Cap: CapTuner, Title: "tuner library",
		Doc:  none + ` common loader opens ` + o.form.describe("libnccl-tuner") + `, or libnccl-tuner.so when unset; if nothing opens, the external net plugin's library is reused when one is open. A failure is sticky for the process.`,
		Ref:  ref,
		Logs: logs,
		node: true,
		init: func(r *initRun) {
			s, nd := r.cur, r.cur.node
			var logs, missing []string
			v, set := r.env.Lookup("NCCL_TUNER_PLUGIN")
			if set && o.common {
				logs = append(logs, "NCCL_TUNER_PLUGIN set by environment to "+v)
				if strings.EqualFold(v, "none") {
					r.emit(Verdict{Outcome: Fail, Why: "NCCL_TUNER_PLUGIN=none: no tuner", Log: logs})
					return
				}
			}
			if set && v != "" {
				r.comm.Evidence.Raise(CapTuner, LevelRequested)
			}
			names := o.form.libNames("libnccl-tuner", v)
			for _, n := range names {
				lib, dlerr, enoent := nd.open(n)
				if lib != nil {
					if !o.common && v != "" {
						logs = append(logs, "TUNER/Plugin: Plugin name set by env to "+n)
					}
					s.tunerLib, s.tunerPath = lib, lib.Path
					r.emit(Verdict{Outcome: Pass, Level: LevelDiscovered, Why: "dlopen(" + n + ") opened " + lib.Path, Log: logs})
					return
				}
				switch {
				case enoent:
					missing = append(missing, n)
				case o.common:
					logs = append(logs, "TUNER/Plugin: "+n+": "+dlerr)
				default:
					logs = append(logs, "TUNER/Plugin: "+dlerr)
				}
			}
			switch {
			case len(missing) > 0:
				logs = append(logs, fmt.Sprintf(notFound, " "+strings.Join(missing, " ")))
			case o.fallback != "":
				logs = append(logs, "TUNER/Plugin: "+o.fallback)
			}
			if s.lib != nil && s.netABI > 0 {
				s.tunerLib, s.tunerPath = s.lib, ""
				r.emit(Verdict{Outcome: Info, Why: "no tuner library; the net plugin's library " + s.lib.Path + " is searched for a tuner", Log: logs})
				return
			}
			r.emit(Verdict{Outcome: Fail, Why: "no tuner library: internal tuning", Log: logs, Facts: []Fact{F("tried", strings.Join(names, " "))}})
		},
	}
}

// tunerABI is G-TUNER-ABI-1 with a probe window (newest first).
func tunerABI(ref Ref, doc string, logs []string, logFor func(name, path string, v int, window []int) []string) *Rule {
	return &Rule{
		ID: "G-TUNER-ABI-1", Layer: LayerABI, Cap: CapTuner, Title: "tuner ABI",
		Doc: doc, Ref: ref, Logs: logs, node: true,
		init: func(r *initRun) {
			s := r.cur
			if s.tunerLib == nil {
				r.emit(Verdict{Outcome: Skip, Why: "no tuner library"})
				return
			}
			v := probe(s.tunerLib.TunerSymbols, r.rs.Consts.TunerABI)
			name := s.tunerLib.Base()
			if t := s.tunerLib.Tuner; t != nil && t.Name != "" {
				name = t.Name
			}
			log := logFor(name, s.tunerPath, v, r.rs.Consts.TunerABI)
			facts := []Fact{F("exports", joinInts(s.tunerLib.TunerSymbols)), F("accepts", joinInts(r.rs.Consts.TunerABI))}
			if v == 0 {
				out := Fail
				if s.tunerLib == s.lib { // the net plugin's library, searched in passing
					out = Info
				}
				r.emit(Verdict{Outcome: out, Why: "no accepted ncclTunerPlugin symbol in " + s.tunerLib.Path + ": internal tuning", Facts: facts, Log: log})
				s.tunerLib = nil
				return
			}
			s.tunerABI = v
			r.emit(Verdict{Outcome: Pass, Level: LevelAccepted, Why: fmt.Sprintf("ncclTunerPlugin_v%d accepted", v), Facts: facts, Log: log})
		},
	}
}

var tunerABI22 = tunerABI(Ref{Tag: "v2.22.3-1", File: "src/misc/tuner.cc", Func: "ncclTunerPluginLoad"},
	`Probe ncclTunerPlugin_v3, then _v2 (adapted: a v2 tuner returns algorithm and protocol, and the adapter sets that cell to 0.0 only if it was not IGNORE). Neither: the library is closed and the internal tuner is used.`,
	[]string{"TUNER/Plugin: Failed to find ncclTunerPlugin_v3 symbol.", "TUNER/Plugin: Failed to find ncclTunerPlugin_v2 symbol, using internal tuner instead.", "TUNER/Plugin: Using tuner plugin %s"},
	func(name, _ string, v int, w []int) []string {
		var out []string
		if v != w[0] {
			out = append(out, "TUNER/Plugin: Failed to find ncclTunerPlugin_v3 symbol.")
		}
		if v == 0 {
			return append(out, "TUNER/Plugin: Failed to find ncclTunerPlugin_v2 symbol, using internal tuner instead.")
		}
		return append(out, "TUNER/Plugin: Using tuner plugin "+name)
	})

var tunerABI28 = tunerABI(Ref{Tag: "v2.28.3-1", File: "src/plugin/tuner.cc", Func: "ncclTunerPluginLoad"},
	`Probe ncclTunerPlugin_v5, _v4, _v3, _v2 (newest first); older versions are adapted. None: "External tuner plugin %s is unsupported" (only for a library opened as a tuner, not for the net plugin's library).`,
	tunerABILogs28, tunerABILog28)

// tunerABILogs28 and tunerABILog28 are the loader's lines from 2.28.3:
// one "Using %s (v%d)" for the accepted version, whatever the window.
var tunerABILogs28 = []string{"TUNER/Plugin: Using %s (v%d)", "Successfully loaded external tuner plugin %s", "External tuner plugin %s is unsupported"}

func tunerABILog28(name, path string, v int, _ []int) []string {
	if v == 0 {
		if path == "" {
			return nil
		}
		return []string{"External tuner plugin " + path + " is unsupported"}
	}
	out := []string{fmt.Sprintf("TUNER/Plugin: Using %s (v%d)", name, v)}
	if path != "" {
		out = append(out, "Successfully loaded external tuner plugin "+path)
	}
	return out
}

// tunerInit is G-TUNER-INIT-1: where the tuner's init runs and what a
// failure does.
func tunerInit(ref Ref, doc string) *Rule {
	return &Rule{
		ID: "G-TUNER-INIT-1", Layer: LayerModel, Cap: CapTuner, Title: "tuner init",
		Doc: doc, Ref: ref,
		init: func(r *initRun) {
			s := r.nodes[0]
			if s.tunerLib == nil {
				r.emit(Verdict{Outcome: Skip, Why: "no tuner plugin"})
				return
			}
			t := s.tunerLib.Tuner
			if t == nil {
				t = &tuning.TunerBehaviour{Name: s.tunerLib.Base()}
			}
			if t.InitError != "" {
				r.emit(Verdict{Outcome: Fail, Why: "tuner init failed (" + t.InitError + "): communicator init fails", Log: t.InitLog})
				r.fail(InternalError, "tuner plugin init failed: "+t.InitError)
				return
			}
			r.comm.Tuner, r.comm.TunerPath, r.comm.TunerABI = t, s.tunerPath, s.tunerABI
			log := t.InitLog
			if t.Model != "" {
				r.comm.ofiTuner, log = ofiTunerInit(t.Model, s.tunerABI, r.comm.NRanks, r.comm.NNodes, r.env)
			}
			facts := []Fact{F("rules", len(t.Rules))}
			if len(t.Constants) > 0 {
				facts = append(facts, F("constant_edits", len(t.Constants)))
			}
			r.emit(Verdict{Outcome: Pass, Level: LevelUsable, Why: "tuner " + t.Name + " initialised", Facts: facts, Log: log})
		},
	}
}
