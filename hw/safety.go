package hw

import (
	"os"
	"sort"
	"strings"
)

// SafetyEnv are the variables that keep NVLink multicast (NVLS) off. On
// shared GPU machines a program that creates multicast objects can take the
// host's GPUs out of service, and NCCL 2.28.7 and later try NVLS even on two
// GPUs when it is allowed. Every process hw starts, and hw's own process
// before it loads NCCL, gets these unless the user passes --allow-nvls.
var SafetyEnv = [][2]string{
	{"NCCL_NVLS_ENABLE", "0"},
	{"TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"},
	{"NVSHMEM_DISABLE_NVLS", "1"},
}

// SafeEnviron returns environ ("NAME=VALUE" strings) with the safety
// variables forced to their safe values unless allowNVLS. A user's
// NCCL_NVLS_ENABLE=1 is overridden, not kept: the point is that no process
// can turn multicast on by accident.
func SafeEnviron(environ []string, allowNVLS bool) []string {
	if allowNVLS {
		return append([]string(nil), environ...)
	}
	out := make([]string, 0, len(environ)+len(SafetyEnv))
	for _, kv := range environ {
		if !isSafetyVar(kv) {
			out = append(out, kv)
		}
	}
	for _, s := range SafetyEnv {
		out = append(out, s[0]+"="+s[1])
	}
	return out
}

func isSafetyVar(kv string) bool {
	name, _, _ := strings.Cut(kv, "=")
	for _, s := range SafetyEnv {
		if name == s[0] {
			return true
		}
	}
	return false
}

// ApplySafety sets the safety variables in this process's environment
// (before NCCL is loaded, which reads them at communicator init) unless
// allowNVLS. It returns the variables it changed.
func ApplySafety(allowNVLS bool) []string {
	if allowNVLS {
		return nil
	}
	var changed []string
	for _, s := range SafetyEnv {
		if v, ok := os.LookupEnv(s[0]); !ok || v != s[1] {
			changed = append(changed, s[0])
		}
		os.Setenv(s[0], s[1])
	}
	return changed
}

// CheckSafe reports the safety variables missing or wrong in environ, for
// the tests and for a run's provenance.
func CheckSafe(environ []string) []string {
	have := map[string]string{}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		have[k] = v
	}
	var bad []string
	for _, s := range SafetyEnv {
		if have[s[0]] != s[1] {
			bad = append(bad, s[0])
		}
	}
	sort.Strings(bad)
	return bad
}
