package plan

import (
	"fmt"

	"github.com/gatesim/gatesim/internal/inputfile"
	"github.com/gatesim/gatesim/sim"
	"github.com/gatesim/gatesim/spec"
	"github.com/gatesim/gatesim/tuner"
)

// Request is one communicator to simulate operations on, as gatesim sim
// asks for it: the release's ruleset, the machine and environment, a tuner
// plugin to decide through (nil: NCCL's own choice), the channel count the
// operations will ask for (0: NCCL's), a performance profile (nil: the
// machine's own) and how each operation is issued.
type Request struct {
	Ruleset  *spec.Ruleset
	Sys      *spec.System
	Env      spec.Env
	Tuner    *tuner.Library
	Channels int
	Profile  *sim.Profile
	Issue    spec.Issue
}

// Session is a communicator opened by Open, with the tuner plugin's
// session when one decides (Close finalizes it).
type Session struct {
	*Comm
	Tuned *tuner.Session
}

// Open builds the communicator of r (Build, through the tuner plugin when
// one is given) and checks what its operations will ask for against it.
// A communicator NCCL refuses is a *RefusedError.
func Open(r Request) (*Session, error) {
	s := &Session{}
	var init Init
	if r.Tuner != nil {
		init = func(rs *spec.Ruleset, sys *spec.System, env spec.Env) (*spec.Comm, SelectFunc, error) {
			var err error
			if s.Tuned, err = r.Tuner.Attach(spec.Init, rs, sys, env); err != nil {
				return nil, nil, err
			}
			return s.Tuned.Comm, s.Tuned.Select, nil
		}
	}
	c, err := Build(r.Ruleset, r.Sys, r.Env, init)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.Comm = c
	if mc := r.Ruleset.Consts.MaxChannels; r.Channels < 0 || r.Channels > mc {
		s.Close()
		return nil, fmt.Errorf("--channels %d: expected 1 to %d (NCCL %s's MAXCHANNELS, src/include/device.h), or 0 for NCCL's count", r.Channels, mc, r.Ruleset.Version)
	}
	if r.Profile != nil {
		s.Machine.Profile = r.Profile
	}
	s.Issue = r.Issue
	if s.Launch, err = TimingLaunch(r.Issue); err != nil {
		s.Close()
		return nil, err
	}
	if s.Tuned != nil && !s.Issue.Alone() {
		s.Close()
		return nil, fmt.Errorf("--tuner with --agg, --cudagraph, --buffers or --inplace: a tuner's answer for a group is not modelled")
	}
	return s, nil
}

// Close finalizes the tuner plugin's session, if any.
func (s *Session) Close() {
	if s.Tuned != nil {
		s.Tuned.Close()
	}
}

// TimingLaunch is the launch the timing charges for an issued operation.
func TimingLaunch(is spec.Issue) (sim.Launch, error) {
	l := sim.Launch{Launch: is.Launch}
	if err := l.Validate(); err != nil {
		return l, fmt.Errorf("--agg: %v", err)
	}
	return l, nil
}

// LoadProfile reads a machine performance profile file (YAML or JSON, at
// most 1 MiB; nil for no path).
func LoadProfile(path string) (*sim.Profile, error) {
	if path == "" {
		return nil, nil
	}
	b, err := inputfile.Read(path, 1<<20)
	if err != nil {
		return nil, fmt.Errorf("--profile: %v", err)
	}
	return sim.ParseProfile(b, path)
}
