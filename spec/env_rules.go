package spec

import (
	"fmt"
	"sort"
	"strings"
)

// Layer 0: how NCCL reads its environment.

// ConfFiles holds the contents of NCCL's configuration files on the
// machine, keyed by path: "~/.nccl.conf", "/etc/nccl.conf", or the path
// NCCL_CONF_FILE names. Each is KEY=VALUE lines, already parsed.
type ConfFiles map[string]Env

const (
	userConfPath = "~/.nccl.conf"
	etcConfPath  = "/etc/nccl.conf"
)

// envSource is G-ENV-SRC-1 with the user file chosen by userFile.
func envSource(ref Ref, doc string, userFile func(Env) string) *Rule {
	return &Rule{
		ID: "G-ENV-SRC-1", Layer: LayerEnv, Title: "environment sources",
		Doc: doc, Ref: ref,
		init: func(r *initRun) {
			files := r.comm.System.Conf
			if len(files) == 0 {
				r.emit(Verdict{Outcome: Info, Why: "no NCCL config files on the machine: the process environment alone",
					Facts: []Fact{F("variables", len(r.env))}})
				return
			}
			user := userFile(r.env)
			var applied []string
			for _, path := range []string{user, etcConfPath} {
				f, ok := files[path]
				if !ok {
					continue
				}
				for _, k := range f.Names() {
					if _, set := r.env[k]; !set { // setenv(..., 0): never overwrite
						r.env[k] = f[k]
						applied = append(applied, k+"="+f[k]+" ("+path+")")
					}
				}
			}
			r.emit(Verdict{Outcome: Info,
				Why:   fmt.Sprintf("process environment first, then %s, then %s, never overwriting", user, etcConfPath),
				Facts: []Fact{F("from_files", strings.Join(applied, " "))}})
		},
	}
}

var envSource22 = envSource(Ref{Tag: "v2.22.3-1", File: "src/misc/param.cc", Func: "initEnv"},
	`On the first ncclGetEnv, KEY=VALUE lines of ~/.nccl.conf and then /etc/nccl.conf are applied with setenv(..., 0): the process environment wins, then the user file, then /etc/nccl.conf.`,
	func(Env) string { return userConfPath })

var envSource23 = envSource(Ref{Tag: "v2.28.3-1", File: "src/misc/param.cc", Func: "initEnvFunc"},
	`On the first ncclGetEnv, the file named by NCCL_CONF_FILE (when set and non-empty, read with plain getenv) or else ~/.nccl.conf, and then /etc/nccl.conf, are applied with setenv(..., 0): the process environment wins.`,
	func(e Env) string {
		if p := e["NCCL_CONF_FILE"]; p != "" {
			return p
		}
		return userConfPath
	})

// intParamRule is G-ENV-PARAM-1: every integer NCCL_PARAM the gates read,
// parsed as ncclLoadParam does.
func intParamRule(ref Ref) *Rule {
	return &Rule{
		ID: "G-ENV-PARAM-1", Layer: LayerEnv, Title: "integer parameters",
		Doc:  `An NCCL_PARAM is read once per process: unset or empty gives the compiled default; otherwise strtoll(value, NULL, 0) (so "0x1", "01" and "1abc" give 1 and a non-numeric string gives 0); a value that sets errno (overflow) gives the default with an "Invalid value" line.`,
		Ref:  ref,
		Logs: []string{"%s set by environment to %lld.", "Invalid value %s for %s, using default %lld."},
		init: func(r *initRun) {
			names := make([]string, 0)
			for name := range r.rs.Consts.IntParams {
				if _, ok := r.env[name]; ok {
					names = append(names, name)
				}
			}
			sort.Strings(names)
			for _, name := range names {
				def := r.rs.Consts.IntParams[name]
				v, set, log := intParam(r.env, name, def)
				if !set {
					r.emit(Verdict{Outcome: Info, Why: name + " is set but empty: the default is used",
						Facts: []Fact{F(name, ""), F("default", def)}})
					continue
				}
				out := Pass
				why := fmt.Sprintf("%s=%q is read as %d", name, r.env[name], v)
				if strings.HasPrefix(log, "Invalid") {
					out = Fail
					why = fmt.Sprintf("%s=%q overflows: the default %d is used", name, r.env[name], def)
				}
				r.emit(Verdict{Outcome: out, Why: why, Facts: []Fact{F(name, r.env[name]), F("value", v)}, Log: []string{log}})
			}
			if len(names) == 0 {
				r.emit(Verdict{Outcome: Info, Why: "no integer NCCL parameter the gates read is set"})
			}
		},
	}
}

// param returns the integer value NCCL uses for a parameter of rs.
func (r *initRun) param(name string) int64 {
	def, ok := r.rs.Consts.IntParams[name]
	if !ok {
		panic("spec: parameter " + name + " not in the release's table") // a programming error
	}
	v, _, _ := intParam(r.env, name, def)
	return v
}
