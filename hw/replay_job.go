package hw

import (
	"errors"
	"fmt"
	"io"

	"github.com/gatesim/gatesim/plan"
	"github.com/gatesim/gatesim/spec"
)

// ReplayJob is one `gatesim hw replay`: the machine described (Sys, Env)
// is built as spec would for the release nearest the loaded library, and
// every algorithm and size of Replay runs on the local GPUs (ReplaySweep).
type ReplayJob struct {
	Options Options
	// PTX is the replay kernel (ReplayPTX, or a file's).
	PTX    []byte
	Sys    *spec.System
	Env    spec.Env
	Replay ReplayOptions
	Log    io.Writer
	// Done gets the rows with the release modelled and the session, before
	// the session closes.
	Done func(rel spec.Version, s *Session, rows []ReplayRow) error
}

// ErrReplayInput marks a ReplayJob error that is the request's (no kernel,
// a release too old, a machine that is not the one the process drives, a
// schedule the replay cannot run). Errors of the GPUs are not marked; a
// communicator NCCL refuses is a *plan.RefusedError.
var ErrReplayInput = errors.New("replay input")

func replayInput(err error) error { return fmt.Errorf("%w: %w", ErrReplayInput, err) }

// Run opens the session, loads the kernel, builds the communicator and
// replays; the rows go to Done.
func (j ReplayJob) Run() error {
	if len(j.PTX) == 0 {
		return replayInput(errors.New("no replay kernel: this binary embeds none; give --ptx (nvcc -ptx hw/kernels/gatesim_replay.cu)"))
	}
	s, err := Open(j.Options)
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.LoadKernels(j.PTX, ReplayKernel); err != nil {
		return err
	}
	rel, ok := spec.Nearest(s.Version())
	if !ok {
		return replayInput(fmt.Errorf("NCCL %s is older than every modelled release", s.Version()))
	}
	pc, err := plan.Build(spec.MustLoad(rel), j.Sys, j.Env, nil)
	if err != nil {
		var re *plan.RefusedError
		if errors.As(err, &re) {
			return err
		}
		return replayInput(err)
	}
	if pc.Comm.NRanks != s.NRanks() {
		return replayInput(fmt.Errorf("the machine has %d ranks, this process drives %d GPUs: describe the machine it runs on", pc.Comm.NRanks, s.NRanks()))
	}
	rows, err := ReplaySweep(s, pc, j.Replay, j.Log)
	var ie *ReplayInputError
	if errors.As(err, &ie) {
		return replayInput(ie.Err)
	} else if err != nil {
		return err
	}
	return j.Done(rel, s, rows)
}
