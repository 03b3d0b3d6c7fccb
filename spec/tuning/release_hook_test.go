package tuning

import "github.com/gatesim/gatesim/nccl"

// The tests of this package run the model on each release's constants as
// production builds them: spec.Load(v).Tuning, the 2.22.3 base with the
// release files' deltas applied. Package tuning cannot import spec (spec
// imports it), so the external test package sets these before any test
// runs (release_test.go); they are exported only to the tests.
var (
	// Releases is spec.Releases, oldest first.
	Releases []nccl.Version
	// LoadRelease is spec.Load(v): the release's constants and the tuning
	// changes of its own delta, as its changelog records them.
	LoadRelease func(v nccl.Version) (*Consts, []Change, error)
)

// ReleaseChunkRules is spec.Load(v).Consts.ChunkRules(): calcCollChunking's
// switches of the release, which spec's constants hold.
var ReleaseChunkRules func(v nccl.Version) (ChunkRules, error)
