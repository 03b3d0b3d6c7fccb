package properties

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// topoCache shares topology searches between cases and between properties.
// A case's search (most of a case's time) depends on its release, machine
// and environment; it holds every search of a 5,000-check run (about
// 2,500, 0.2 MB each).
var topoCache = spec.NewCache(1 << 14)

// rulesets holds every modelled release's ruleset, loaded once: a Ruleset
// is read-only after Load (the oracle shares them the same way), and
// loading one per case cost a fifth of a property's time.
var rulesets = func() map[spec.Version]*spec.Ruleset {
	m := map[spec.Version]*spec.Ruleset{}
	for _, v := range spec.Releases {
		m[v] = spec.MustLoad(v)
	}
	return m
}()

// ruleset is the loaded ruleset of a drawn release.
func ruleset(v spec.Version) *spec.Ruleset {
	rs, ok := rulesets[v]
	if !ok {
		panic(fmt.Sprintf("release %s is not in spec.Releases", v))
	}
	return rs
}

// TestMain gives every property of a run one random seed (unless
// -rapid.seed or RAPID_SEED names one): the properties that start from
// Request() then check the same requests, each its own way, and the
// topology search of a request is paid once per run instead of once per
// property. Each property still checks -rapid.checks requests, and every
// run draws new ones; a failure prints the seed that reproduces it.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("rapid.seed"); f != nil && f.Value.String() == "0" {
		seed := rand.Uint64() | 1
		if err := f.Value.Set(strconv.FormatUint(seed, 10)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if testing.Verbose() {
			fmt.Printf("properties: -rapid.seed=%d for every property\n", seed)
		}
	}
	os.Exit(m.Run())
}
