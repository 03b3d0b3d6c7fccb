package ncclog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestRealLogShapes: what real public logs show that the reader must read —
// Ray's de-duplication suffix, the network named only by connection lines,
// GB200 fabric lines and NCCL 2.3's network line.
func TestRealLogShapes(t *testing.T) {
	cases := []struct {
		name, log string
		check     func(l *Log) string
	}{
		{"ray suffix", "(RayWorkerWrapper pid=2311, ip=10.0.0.5) node-1:2311:2400 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0 [repeated 3x across cluster]\n",
			func(l *Log) string {
				if len(l.Transports) != 1 || l.Transports[0].Detail != "NET/IB" {
					return "transport not read"
				}
				return ""
			}},
		{"network from connection lines", "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IBext_v8/0/GDRDMA\nh:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 8[0] [send] via NET/IBext_v8/1/GDRDMA\n",
			func(l *Log) string {
				if n := l.Network(); n != "IBext_v8" {
					return "network " + n
				}
				return ""
			}},
		{"aws libfabric", "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/AWS Libfabric/0/GDRDMA\n",
			func(l *Log) string {
				if n := l.Network(); n != "AWS Libfabric" {
					return "network " + n
				}
				return ""
			}},
		{"using network wins", "h:1:1 [0] NCCL INFO Using network Socket\nh:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0\n",
			func(l *Log) string {
				if n := l.Network(); n != "Socket" {
					return "network " + n
				}
				return ""
			}},
		{"gb200 fabric", "h:1:1 [0] NCCL INFO MNNVL busId 0x1b000 fabric UUID 2c1f.9f0e cliqueId 0x7ff state 3 healthMask 0x0\nh:1:1 [0] NCCL INFO MNNVL 1 cliqueId 7ff cliqueSize 72 cliqueRank 3\n",
			func(l *Log) string {
				m := l.MNNVL
				if len(m.Fabric) != 1 || !m.Fabric[0].Ready() || m.Enabled != 1 || m.CliqueSize != 72 {
					return "mnnvl not read"
				}
				return ""
			}},
		{"gb200 cross-clique (2.30.3)", "h:1:1 [0] NCCL INFO MNNVL 1 cliqueId 1 cliqueSize 8 cliqueRank 3 nvlDomainSize 16\n" +
			"h:1:1 [0] NCCL INFO comm 0x55d0 rank 3 nRanks 16 nNodes 2 localRanks 8 localRank 3 MNNVL 1\n" +
			"h:1:1 [0] NCCL INFO Cross-clique P2P enabled: nvlDomainSize=16 cliqueSize=8\n",
			func(l *Log) string {
				m := l.MNNVL
				if m.Enabled != 1 || m.CliqueSize != 8 || m.NVLDomainSize != 16 || m.CrossClique != 1 {
					return fmt.Sprintf("mnnvl read as %+v", m)
				}
				return ""
			}},
		{"gb200 clique (2.29.7) has no domain", "h:1:1 [0] NCCL INFO MNNVL 1 cliqueId 7ff cliqueSize 72 cliqueRank 3 \n",
			func(l *Log) string {
				if m := l.MNNVL; m.Enabled != 1 || m.CliqueSize != 72 || m.NVLDomainSize != 0 {
					return fmt.Sprintf("mnnvl read as %+v", m)
				}
				return ""
			}},
		{"p2p max peers (2.30.3)", "h:1:1 [0] NCCL INFO Max P2P Peers 128 is too high, capping to communicator size 16\n" +
			"h:1:1 [0] NCCL INFO Tuning P2P operations with maxP2pPeers = 16\n" +
			"h:1:1 [0] NCCL INFO 16 coll channels, 16 collnet channels, 0 nvls channels, 16 p2p channels, 2 p2p channels per peer\n",
			func(l *Log) string {
				if l.P2PMaxPeers != 16 || len(l.Channels) != 1 {
					return fmt.Sprintf("p2pMaxPeers %d, %d channel line(s)", l.P2PMaxPeers, len(l.Channels))
				}
				return ""
			}},
		{"nccl 2.3 network", "h:1:1 [0] NCCL INFO NCCL version 2.3.7+cuda10.0\nh:1:1 [0] NCCL INFO Using internal Network Socket\n",
			func(l *Log) string {
				if n := l.Network(); n != "Socket" {
					return "network " + n
				}
				return ""
			}},
	}
	for _, c := range cases {
		l, err := Parse(strings.NewReader(c.log), "t.log")
		if err != nil {
			t.Fatal(err)
		}
		if msg := c.check(l); msg != "" {
			t.Errorf("%s: %s", c.name, msg)
		}
	}
	if msg, n := stripRepeated("Connected all rings [repeated 15x across cluster]"); msg != "Connected all rings" || n != 15 {
		t.Errorf("stripRepeated: %q %d", msg, n)
	}
	for _, tc := range []string{
		"24 coll channels, 32 p2p channels per peer \x1b[32m [repeated 6x across cluster]\x1b[0m",
		"24 coll channels, 32 p2p channels per peer [32m [repeated 6x across cluster] [0m",
	} {
		if msg, n := stripRepeated(tc); msg != "24 coll channels, 32 p2p channels per peer" || n != 6 {
			t.Errorf("stripRepeated(%q) = %q %d: Ray's coloured suffix, with or without its escape bytes", tc, msg, n)
		}
	}
	if msg, n := stripRepeated("threadThresholds 8/8/64 [0m"); n != 0 || msg != "threadThresholds 8/8/64 [0m" {
		t.Errorf("a colour code without Ray's suffix was taken off: %q %d", msg, n)
	}
	if msg, n := stripRepeated("x [repeated many x across cluster]"); n != 0 || msg == "x" {
		t.Errorf("a malformed suffix was taken off: %q %d", msg, n)
	}
}

// TestNVLSSetupProvesSelection: under runtime connect (2.22+) the NVLS
// buffer setup line appears only when an operation chose NVLS or NVLSTree:
// NVLS is at least "selected"; with NCCL_RUNTIME_CONNECT=0 the buffers are
// set up at init and prove only "candidate".
func TestNVLSSetupProvesSelection(t *testing.T) {
	const setup = "h:1:1 [0] NCCL INFO NVLS comm 0x55 headRank 0 nHeads 8 nvlsRanks 8 buffSize 1048576 nvlsPerRankSize 201326592 nvlsTotalSize 1610612736\n"
	for _, c := range []struct {
		log  string
		want spec.Level
	}{
		{"h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n" + setup, spec.LevelSelected},
		{"h:1:1 [0] NCCL INFO NCCL version 2.28.9+cuda13.0\nh:1:1 [0] NCCL INFO NCCL_RUNTIME_CONNECT set by environment to 0\n" + setup, spec.LevelCandidate},
		{"h:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n" + setup, spec.LevelCandidate},
	} {
		l, err := Parse(strings.NewReader(c.log), "t.log")
		if err != nil {
			t.Fatal(err)
		}
		if got := Observe(l).Cap(spec.CapNVLS).Level; got != c.want {
			t.Errorf("%q: NVLS %s, want %s", c.log, got, c.want)
		}
	}
}
