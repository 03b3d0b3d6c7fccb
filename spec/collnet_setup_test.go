package spec

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/ncclmirror"
)

// TestCollNetSetupRefused (G-COLLNET-SETUP-1): a CollNet plugin whose
// connect refuses the group makes NCCL WARN and run on the point-to-point
// network, at every release; what the fail path turns off changes at
// 2.27.3 (the config's collnetEnable, which split communicators copy,
// instead of collNetSupport), and the setup lives in src/init.cc up to
// 2.21.5.
func TestCollNetSetupRefused(t *testing.T) {
	for _, tc := range []struct {
		v        Version
		file, fn string
		off      string
	}{
		{V2_18_1, "src/init.cc", "collNetTrySetup", "comm->collNetSupport = 0"},
		{V2_21_5, "src/init.cc", "collNetTrySetup", "comm->collNetSupport = 0"},
		{V2_22_3, "src/transport/coll_net.cc", "ncclCollNetSetup", "comm->collNetSupport = 0"},
		{V2_26_6, "src/transport/coll_net.cc", "ncclCollNetSetup", "comm->collNetSupport = 0"},
		{V2_27_3, "src/transport/coll_net.cc", "ncclCollNetSetup", "comm->config.collnetEnable = 0"},
		{V2_30_7, "src/transport/coll_net.cc", "ncclCollNetSetup", "comm->config.collnetEnable = 0"},
	} {
		t.Run(tc.v.String(), func(t *testing.T) {
			c := refusedCollNet(t, tc.v)
			v, ok := c.Trace.Find("G-COLLNET-SETUP-1")
			if !ok || v.Outcome != Fail {
				t.Fatalf("G-COLLNET-SETUP-1 %v %v, want a failure", v.Outcome, ok)
			}
			if v.Ref.File != tc.file || v.Ref.Func != tc.fn {
				t.Errorf("ref %s %s, want %s %s", v.Ref.File, v.Ref.Func, tc.file, tc.fn)
			}
			off := ""
			for _, f := range v.Facts {
				if f.Name == "fallback" {
					off = f.Value
				}
			}
			if !strings.HasPrefix(off, tc.off) {
				t.Errorf("fallback %q, want %s", off, tc.off)
			}
			if c.CollNetSupport {
				t.Error("CollNet still supported after the refused setup")
			}
		})
	}
}

// refusedCollNet is two DGX H100 nodes with NCCL_COLLNET_ENABLE=1 whose
// SHARP plugin refuses the CollNet group, initialised at v.
func refusedCollNet(t *testing.T, v Version) *Comm {
	t.Helper()
	sys, err := Preset("dgx-h100", PresetOptions{Nodes: 2, SHARP: true})
	if err != nil {
		t.Fatal(err)
	}
	withCollNet(sys, func(c *CollNetBackend) { c.ConnectError = "sharp_coll_comm_init failed" })
	c, err := Init(MustLoad(v), sys, Env{"NCCL_COLLNET_ENABLE": "1"})
	if err != nil || c.Err != nil {
		t.Fatal(err, c.Err)
	}
	return c
}

// withCollNet changes a copy of every node library's CollNet object.
func withCollNet(sys *System, f func(*CollNetBackend)) {
	for i := range sys.Nodes {
		for j := range sys.Nodes[i].Libs {
			if cn := sys.Nodes[i].Libs[j].CollNet; cn != nil {
				c := *cn
				f(&c)
				sys.Nodes[i].Libs[j].CollNet = &c
			}
		}
	}
}

// TestCollNetFailLines (G-COLLNET-SETUP-1): the refused group's lines at
// a release: the head's connect trace, the WARN (its location a fact),
// every rank's check trace; from 2.30.7 each location names its function.
func TestCollNetFailLines(t *testing.T) {
	for _, tc := range []struct {
		v      Version
		want   []string
		warnAt string
	}{
		{V2_18_1, []string{"transport.cc:273 -> 2", CollNetInitWarn, "init.cc:633 -> 2"}, "transport.cc:305"},
		{V2_21_5, []string{"transport.cc:327 -> 2", CollNetInitWarn, "init.cc:718 -> 2"}, "transport.cc:356"},
		{V2_22_3, []string{"transport.cc:331 -> 2", CollNetInitWarn, "transport/coll_net.cc:1375 -> 2"}, "transport.cc:360"},
		{V2_28_9, []string{"transport.cc:371 -> 2", CollNetInitWarn, "transport/coll_net.cc:1590 -> 2"}, "transport.cc:399"},
		{V2_30_4, []string{"transport.cc:373 -> 2", CollNetInitWarn, "transport/coll_net.cc:1629 -> 2"}, "transport.cc:401"},
		{V2_30_7, []string{"transport.cc:431 (ncclTransportCollNetSetup) -> 2", CollNetInitWarn, "transport/coll_net.cc:1811 (ncclCollNetSetup) -> 2"},
			"transport.cc:464 (ncclTransportCollNetCheck)"},
	} {
		t.Run(tc.v.String(), func(t *testing.T) {
			c := refusedCollNet(t, tc.v)
			v, _ := c.Trace.Find("G-COLLNET-SETUP-1")
			if !slices.Equal(v.Log, tc.want) {
				t.Errorf("lines %q\nwant  %q", v.Log, tc.want)
			}
			warnAt := ""
			for _, f := range v.Facts {
				if f.Name == "warn_at" {
					warnAt = f.Value
				}
			}
			if want := tc.warnAt + ", local rank 0"; warnAt != want {
				t.Errorf("warn_at %q, want %q", warnAt, want)
			}
			rs := MustLoad(tc.v)
			if !rs.Consts.IsCollNetFailTrace(tc.want[0]) || !rs.Consts.IsCollNetFailTrace(tc.want[2]) || rs.Consts.IsCollNetFailTrace(CollNetInitWarn) {
				t.Error("IsCollNetFailTrace does not know the release's trace lines")
			}
		})
	}
}

// TestCollNetFailSitesAtTags reads each release's CollNetFail from its
// tag (NCCL's git mirror; skipped without it): the connect's NCCLCHECKGOTO
// in ncclTransportCollNetSetup, the WARN with its text in
// ncclTransportCollNetCheck, the first check call in the setup function;
// recvConnect's ncclSystemError on a NULL map (the "-> 2"); and whether
// NCCLCHECKGOTO prints through INFO_LOC (LogLocFunc).
func TestCollNetFailSitesAtTags(t *testing.T) {
	repo := ncclmirror.ForTest(t)
	show := func(tag, file string) []string {
		out, err := exec.Command("git", "-C", repo, "show", tag+":src/"+file).Output()
		if err != nil {
			t.Fatalf("%s:%s: %v", tag, file, err)
		}
		return strings.Split(string(out), "\n")
	}
	// enclosing is the function defined (at column 0) above line n.
	defn := regexp.MustCompile(`^[A-Za-z].*?\b(\w+)\(`)
	enclosing := func(src []string, n int) string {
		for i := n - 1; i >= 0; i-- {
			if m := defn.FindStringSubmatch(src[i]); m != nil && !strings.HasSuffix(strings.TrimSpace(src[i]), ";") {
				return m[1]
			}
		}
		return ""
	}
	at := func(src []string, n int) string {
		if n < 1 || n > len(src) {
			return ""
		}
		return src[n-1]
	}
	for _, v := range Releases {
		c := MustLoad(v).Consts
		s := c.CollNetFail
		tr := show(v.Tag(), collNetTransportFile)
		if l := at(tr, s.ConnectLine); !strings.Contains(l, "NCCLCHECKGOTO(transportComm->connect(") || enclosing(tr, s.ConnectLine) != collNetSetupFunc {
			t.Errorf("%s: transport.cc:%d is %q in %s, want the connect's NCCLCHECKGOTO in %s", v, s.ConnectLine, l, enclosing(tr, s.ConnectLine), collNetSetupFunc)
		}
		if l := at(tr, s.WarnLine); !strings.Contains(l, `WARN("`+CollNetInitWarn+`")`) || enclosing(tr, s.WarnLine) != collNetCheckFunc {
			t.Errorf("%s: transport.cc:%d is %q, want the WARN in %s", v, s.WarnLine, l, collNetCheckFunc)
		}
		src := show(v.Tag(), s.CheckFile)
		first := 0
		for i, l := range src {
			if strings.Contains(l, "NCCLCHECKGOTO(ncclTransportCollNetCheck(") {
				first = i + 1
				break
			}
		}
		if first != s.CheckLine || enclosing(src, first) != s.CheckFunc {
			t.Errorf("%s: the first check is %s:%d in %s, the release says %d in %s", v, s.CheckFile, first, enclosing(src, first), s.CheckLine, s.CheckFunc)
		}
		if cn := strings.Join(show(v.Tag(), "transport/coll_net.cc"), "\n"); !strings.Contains(cn, "if (map == NULL) return ncclSystemError;") || int(SystemError) != 2 {
			t.Errorf("%s: recvConnect no longer returns ncclSystemError on a refused connect", v)
		}
		checks := strings.Join(show(v.Tag(), "include/checks.h"), "\n")
		i := strings.Index(checks, "#define NCCLCHECKGOTO(")
		j := strings.Index(checks[i+1:], "#define ")
		if loc := strings.Contains(checks[i:i+1+j], "INFO_LOC("); loc != c.LogLocFunc {
			t.Errorf("%s: NCCLCHECKGOTO prints through INFO_LOC: %v, LogLocFunc %v", v, loc, c.LogLocFunc)
		}
	}
}
