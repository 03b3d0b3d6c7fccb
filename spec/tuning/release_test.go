package tuning_test

import (
	"strings"

	"github.com/gatesim/gatesim/nccl"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/spec/tuning"
)

// spec imports tuning, so only an external test package may import spec:
// it hands package tuning's tests the releases as spec builds them.
func init() {
	tuning.Releases = spec.Releases
	tuning.LoadRelease = func(v nccl.Version) (*tuning.Consts, []tuning.Change, error) {
		rs, err := spec.Load(v)
		if err != nil {
			return nil, nil, err
		}
		var changes []tuning.Change
		for _, c := range rs.Changes {
			if p, ok := strings.CutPrefix(c.Path, "tuning."); ok && c.Kind == spec.ChangeValue {
				changes = append(changes, tuning.Change{Path: p, Old: c.Old, New: c.New, Ref: c.Ref})
			}
		}
		return rs.Tuning, changes, nil
	}
	tuning.ReleaseChunkRules = func(v nccl.Version) (tuning.ChunkRules, error) {
		rs, err := spec.Load(v)
		if err != nil {
			return tuning.ChunkRules{}, err
		}
		return rs.Consts.ChunkRules(), nil
	}
}
