package spec

import (
	"fmt"
	"strings"
)

// The lines a CollNet plugin refusing the group prints (G-COLLNET-SETUP-1).
//
// The plugin's connect fails in the proxy (sharedConnect keeps the error
// and prints nothing), recvProxyConnect hands back a NULL map, and
// recvConnect turns it into ncclSystemError without a line. From there
// NCCLCHECK prints the error return ("file.cc:LINE -> 2") of each call it
// passes up:
//   - a head rank: ncclTransportCollNetSetup's NCCLCHECKGOTO around the
//     receive side's connect (the send side is not tried after it);
//   - local rank 0: ncclTransportCollNetCheck's WARN "Cannot initialize
//     CollNet, using point-to-point network instead" (the location in the
//     WARN's prefix), returning ncclSystemError;
//   - every rank: the setup's NCCLCHECKGOTO around that first check,
//     after channel 0, which jumps to the fail path (no second check).
//
// The caller ignores the setup's result, so nothing else is printed.
// From 2.30.7 (INFO_LOC) each location carries the function.
//
// Ref: v2.28.9-1 src/transport.cc ncclTransportCollNetSetup,
// ncclTransportCollNetCheck; src/transport/coll_net.cc ncclCollNetSetup,
// recvConnect, sharedConnect; v2.18.1-1 src/init.cc collNetTrySetup.

// CollNetFailSites are the source lines of those calls at a release;
// TestCollNetFailSitesAtTags reads them from every tag.
type CollNetFailSites struct {
	// ConnectLine and WarnLine are lines of src/transport.cc.
	ConnectLine, WarnLine int
	// CheckFile (relative to src/), CheckFunc and CheckLine are the
	// setup's first ncclTransportCollNetCheck call.
	CheckFile, CheckFunc string
	CheckLine            int
}

const (
	collNetTransportFile = "transport.cc"
	collNetSetupFunc     = "ncclTransportCollNetSetup"
	collNetCheckFunc     = "ncclTransportCollNetCheck"
	// CollNetInitWarn is ncclTransportCollNetCheck's WARN.
	CollNetInitWarn = "Cannot initialize CollNet, using point-to-point network instead"
)

// CollNetFailLog is what a refused CollNet group prints at the release:
// the head ranks' connect trace, the WARN's location (its prefix, not
// its message) and every rank's check trace. ok is false for a release
// without the sites.
func (c *Consts) CollNetFailLog() (connect, warnAt, check string, ok bool) {
	s := c.CollNetFail
	if s.ConnectLine == 0 || s.WarnLine == 0 || s.CheckLine == 0 {
		return "", "", "", false
	}
	loc := func(file string, line int, fn string) string {
		if c.LogLocFunc {
			return fmt.Sprintf("%s:%d (%s)", file, line, fn)
		}
		return fmt.Sprintf("%s:%d", file, line)
	}
	ret := fmt.Sprintf(" -> %d", int(SystemError))
	return loc(collNetTransportFile, s.ConnectLine, collNetSetupFunc) + ret,
		loc(collNetTransportFile, s.WarnLine, collNetCheckFunc),
		loc(s.CheckFile, s.CheckLine, s.CheckFunc) + ret, true
}

// collNetFailLines are the Log lines and facts of the failed setup: the
// lines in the order a head that is local rank 0 prints them.
func collNetFailLines(c *Consts) ([]string, []Fact) {
	connect, warnAt, check, ok := c.CollNetFailLog()
	if !ok {
		return []string{CollNetInitWarn}, nil
	}
	return []string{connect, CollNetInitWarn, check},
		[]Fact{F("connect_trace", "head ranks"), F("warn_at", warnAt+", local rank 0"), F("check_trace", "every rank")}
}

// IsCollNetFailTrace reports whether msg is one of the error-return
// lines a refused CollNet group prints at the release (a log reader's
// question).
func (c *Consts) IsCollNetFailTrace(msg string) bool {
	connect, _, check, ok := c.CollNetFailLog()
	msg = strings.TrimSpace(msg)
	return ok && (msg == connect || msg == check)
}

// setCollNetFail is a delta's CollNetFail at its tag.
func setCollNetFail(rs *Ruleset, tag string, s CollNetFailSites) {
	rs.SetConst("CollNetFail", s, Ref{Tag: tag, File: "src/transport.cc", Func: collNetSetupFunc + ", " + collNetCheckFunc})
}

// collNetFailInit and collNetFailSetup are the two homes of the check:
// src/init.cc collNetTrySetup up to 2.21.5, src/transport/coll_net.cc
// ncclCollNetSetup from 2.22.3.
func collNetFailInit(connect, warn, check int) CollNetFailSites {
	return CollNetFailSites{ConnectLine: connect, WarnLine: warn, CheckFile: "init.cc", CheckFunc: "collNetTrySetup", CheckLine: check}
}

func collNetFailSetup(connect, warn, check int) CollNetFailSites {
	return CollNetFailSites{ConnectLine: connect, WarnLine: warn, CheckFile: "transport/coll_net.cc", CheckFunc: "ncclCollNetSetup", CheckLine: check}
}
