package plan

import (
	"fmt"
	"math/rand/v2"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
)

// VerifyLimit bounds a verification: the data plane holds every rank's
// buffers and a symbolic copy.
const VerifyLimit = 1 << 22

// Verify runs the data plane of schedule s (nccl-tests size bytes) on
// random inputs, seeded by the size and the rank count so a run repeats,
// and checks every element against the reference; PreMulSum scales rank r
// by r%3+1.
func Verify(s *algos.Schedule, size int64, rop spec.RedOp) (*sim.Verification, error) {
	n := s.NRanks
	if int64(n)*s.OutputCount() > VerifyLimit || int64(n)*s.InputCount() > VerifyLimit {
		// a collective without reduction moves bytes (NCCL runs it as int8), so an element may be 1 B whatever --dtype says
		return nil, fmt.Errorf("--verify holds every rank's buffers: %d ranks × %d elements of %d B is above the %d-element limit; lower --bytes or the machine", n, max(s.InputCount(), s.OutputCount()), s.Unit, VerifyLimit)
	}
	rng := rand.New(rand.NewPCG(uint64(size), uint64(n)))
	inputs := make([][]byte, n)
	for r := range inputs {
		inputs[r] = make([]byte, s.InputCount()*int64(s.Unit))
		for i := range inputs[r] {
			inputs[r][i] = byte(rng.IntN(256))
		}
	}
	var scalars []float64
	if rop == spec.PreMulSum {
		for r := 0; r < n; r++ {
			scalars = append(scalars, float64(r%3+1))
		}
	}
	return sim.Verify(s, inputs, scalars)
}
