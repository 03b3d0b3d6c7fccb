package spec

import (
	"fmt"
	"strings"
)

// The profiler plugin (2.23.4+): a library NCCL_PROFILER_PLUGIN names (or
// libnccl-profiler.so) that exports ncclProfiler_vN. It decides nothing
// gatesim models: a missing library, a missing symbol or a failed init
// leaves the communicator without a profiler and init goes on. Each
// release's loader is one profilerOpts value, chosen in its release file.

// profilerSymLines is how a release logs its symbol look-ups.
type profilerSymLines int8

const (
	// profSymV1Only: "failed to find ncclProfiler_v1." and nothing on
	// success (2.23.4).
	profSymV1Only profilerSymLines = iota
	// profSymVersion: "failed to find ncclProfiler_vN." per miss and
	// "loaded ncclProfiler_vN." (2.24.3–2.25.1).
	profSymVersion
	// profSymName: per-version shims, "failed to find ncclProfiler_vN"
	// (v1's with a full stop) and "loaded <name>" (2.26.2–2.27.7).
	profSymName
	// profSymLoaded: "Loaded <name> (vN)" only (2.28.3+).
	profSymLoaded
)

// profilerInitFail is what a release does when the profiler's init
// returns an error.
type profilerInitFail int8

const (
	// profInitWarnOff: WARN "Profiler init failed with error (%d).
	// Continue without profiler." and the profiler is dropped
	// (2.23.4–2.27.7).
	profInitWarnOff profilerInitFail = iota
	// profInitInfoKept: an INFO line with errno's text; the plugin is not
	// dropped and still receives events (2.28.3–2.29.7).
	profInitInfoKept
	// profInitInfoUnload: the same INFO line, then the plugin is
	// unloaded (2.30.3+).
	profInitInfoUnload
)

type profilerOpts struct {
	names libNameForm
	// setByEnvLine: "PROFILER/Plugin: Plugin name set by env to %s" when a
	// name from NCCL_PROFILER_PLUGIN opens (up to 2.27.7).
	setByEnvLine bool
	// notFoundEnd follows "PROFILER/Plugin: Could not find:%s": "." up to
	// 2.25.1, ". " (the empty fallback sentence) 2.26.2–2.27.7, "" from
	// 2.28.3.
	notFoundEnd string
	// common is 2.28.3's loader: NCCL_PROFILER_PLUGIN logged, "none", the
	// net plugin's library when nothing opens, "External ... is
	// unsupported" / "Successfully loaded external profiler plugin", and
	// dlerror lines that name the library.
	common   bool
	symLines profilerSymLines
	// v1InitIgnored: the v1-as-v2 adapter drops the v1 init's result
	// (2.24.3–2.25.1 ncclProfiler_v1_as_v2_init).
	v1InitIgnored bool
	initFail      profilerInitFail
}

// profilerSymbolLines are the INFO lines of the symbol look-ups over
// window (newest first) when version v (0: none) is found.
func (o profilerOpts) symbolLines(window []int, v int, name string) []string {
	var out []string
	for _, w := range window {
		if w == v {
			switch o.symLines {
			case profSymVersion:
				out = append(out, fmt.Sprintf("PROFILER/Plugin: loaded ncclProfiler_v%d.", v))
			case profSymName:
				out = append(out, "PROFILER/Plugin: loaded "+name)
			case profSymLoaded:
				out = append(out, fmt.Sprintf("PROFILER/Plugin: Loaded %s (v%d)", name, v))
			}
			return out
		}
		switch {
		case o.symLines == profSymV1Only || o.symLines == profSymVersion || (o.symLines == profSymName && w == 1):
			out = append(out, fmt.Sprintf("PROFILER/Plugin: failed to find ncclProfiler_v%d.", w))
		case o.symLines == profSymName:
			out = append(out, fmt.Sprintf("PROFILER/Plugin: failed to find ncclProfiler_v%d", w))
		}
	}
	return out
}

var profilerLogs = []string{"PROFILER/Plugin: Plugin name set by env to %s", "PROFILER/Plugin: Could not find:%s",
	"NCCL_PROFILER_PLUGIN set by environment to %s", "PROFILER/Plugin: failed to find ncclProfiler_v%d",
	"PROFILER/Plugin: loaded %s", "PROFILER/Plugin: Loaded %s (v%d)", "External profiler plugin %s is unsupported",
	"Successfully loaded external profiler plugin %s", "Profiler init failed with error (%d). Continue without profiler.",
	"Profiler init failed with error '%d': %s. Continue without profiler."}

// profilerPlugin is G-PROF-1 as one release loads the profiler.
func profilerPlugin(ref Ref, doc string, o profilerOpts) *Rule {
	return &Rule{
		ID: "G-PROF-1", Layer: LayerLibrary, Title: "profiler plugin", Doc: doc, Ref: ref, Logs: profilerLogs, node: true,
		init: func(r *initRun) { profilerLoad(r, o) },
	}
}

func profilerLoad(r *initRun, o profilerOpts) {
	s, nd := r.cur, r.cur.node
	val, set := r.env.Lookup("NCCL_PROFILER_PLUGIN")
	facts := []Fact{F("NCCL_PROFILER_PLUGIN", envShow(val, set)), F("accepts", joinInts(r.rs.Consts.ProfilerABI))}
	var logs, missing []string
	if o.common && set {
		logs = append(logs, "NCCL_PROFILER_PLUGIN set by environment to "+val)
		if strings.EqualFold(val, "none") {
			r.emit(Verdict{Outcome: Skip, Why: "NCCL_PROFILER_PLUGIN=none: no profiler", Facts: facts, Log: logs})
			return
		}
	}
	names := o.names.libNames("libnccl-profiler", val)
	var lib *Library
	path := "" // what "External profiler plugin %s" names: the opened file
	for _, n := range names {
		l, dlerr, enoent := nd.open(n)
		if l != nil {
			lib, path = l, l.Path
			if o.setByEnvLine && set && val != "" {
				logs = append(logs, "PROFILER/Plugin: Plugin name set by env to "+n)
			}
			break
		}
		switch {
		case enoent:
			missing = append(missing, n)
		case o.common:
			logs = append(logs, "PROFILER/Plugin: "+n+": "+dlerr)
		default:
			logs = append(logs, "PROFILER/Plugin: "+dlerr)
		}
	}
	facts = append(facts, F("tried", strings.Join(names, " ")))
	if lib == nil && len(missing) > 0 {
		logs = append(logs, "PROFILER/Plugin: Could not find: "+strings.Join(missing, " ")+o.notFoundEnd)
	}
	if lib == nil && o.common && s.lib != nil && s.netABI > 0 {
		// ncclGetNetPluginLib: the net plugin's library is searched, and
		// no "External ..." line names it
		lib = s.lib
	}
	if lib == nil {
		r.emit(Verdict{Outcome: Skip, Why: "no profiler plugin library: no profiler, init continues", Facts: facts, Log: logs})
		return
	}
	name := lib.Base()
	if lib.Profiler != nil && lib.Profiler.Name != "" {
		name = lib.Profiler.Name
	}
	v := probe(lib.ProfilerSymbols, r.rs.Consts.ProfilerABI)
	logs = append(logs, o.symbolLines(r.rs.Consts.ProfilerABI, v, name)...)
	facts = append(facts, F("exports", joinInts(lib.ProfilerSymbols)))
	if v == 0 {
		if path == "" { // the net plugin's library, searched in passing
			r.emit(Verdict{Outcome: Info, Why: "the net plugin's library " + lib.Path + " has no profiler: no profiler, init continues", Facts: facts, Log: logs})
			return
		}
		if o.common {
			logs = append(logs, "External profiler plugin "+path+" is unsupported")
		}
		r.emit(Verdict{Outcome: Fail, Why: lib.Path + " exports no ncclProfiler symbol of " + joinInts(r.rs.Consts.ProfilerABI) + ": no profiler, init continues", Facts: facts, Log: logs})
		return
	}
	if o.common && path != "" {
		logs = append(logs, "Successfully loaded external profiler plugin "+path)
	}
	initErr := 0
	if lib.Profiler != nil {
		initErr = lib.Profiler.InitError
	}
	switch {
	case initErr == 0:
	case v == 1 && o.v1InitIgnored:
		r.emit(Verdict{Outcome: Pass, Level: LevelAccepted, Why: fmt.Sprintf("ncclProfiler_v1 %q accepted; the v1 adapter ignores its init error %d", name, initErr), Facts: facts, Log: logs})
		return
	case o.initFail == profInitWarnOff:
		logs = append(logs, fmt.Sprintf("Profiler init failed with error (%d). Continue without profiler.", initErr))
		r.emit(Verdict{Outcome: Fail, Why: fmt.Sprintf("ncclProfiler_v%d init failed (%d): no profiler, init continues", v, initErr), Facts: facts, Log: logs})
		return
	default:
		// errno's text follows the code; gatesim cannot know it
		logs = append(logs, fmt.Sprintf("Profiler init failed with error '%d': …. Continue without profiler.", initErr))
		why := fmt.Sprintf("ncclProfiler_v%d init failed (%d): the plugin is unloaded, init continues", v, initErr)
		if o.initFail == profInitInfoKept {
			why = fmt.Sprintf("ncclProfiler_v%d init failed (%d), yet the plugin stays loaded and receives events; init continues", v, initErr)
		}
		r.emit(Verdict{Outcome: Fail, Why: why, Facts: facts, Log: logs})
		return
	}
	via := ""
	if path == "" {
		via = " (in the net plugin's library)"
	}
	r.emit(Verdict{Outcome: Pass, Level: LevelAccepted, Why: fmt.Sprintf("ncclProfiler_v%d %q accepted%s", v, name, via), Facts: facts, Log: logs})
}
