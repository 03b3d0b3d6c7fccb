package tuning

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/goldenfile"
	"github.com/gatesim/gatesim/nccl"
)

// update rewrites the golden files of this package's tests (make golden).
var update = flag.Bool("update", false, "rewrite golden files")

func golden(t *testing.T, path, got string) {
	t.Helper()
	goldenfile.Check(t, path, got, *update)
}

// tuningTB is what tests and rapid properties share.
type tuningTB interface {
	Helper()
	Fatal(args ...any)
}

// tuningRelease returns a release's constants as production builds them
// (spec.Load) or fails the test.
func tuningRelease(t tuningTB, v nccl.Version) *Consts {
	t.Helper()
	tu, _, err := LoadRelease(v)
	if err != nil {
		t.Fatal(err)
	}
	return tu
}

// tuningReleaseConsts is a modelled release and its constants.
type tuningReleaseConsts struct {
	v  nccl.Version
	tu *Consts
}

// tuningReleases is every modelled release with its constants, oldest
// first.
func tuningReleases(t *testing.T) []tuningReleaseConsts {
	t.Helper()
	out := make([]tuningReleaseConsts, len(Releases))
	for i, v := range Releases {
		out[i] = tuningReleaseConsts{v, tuningRelease(t, v)}
	}
	return out
}

// tuningReadConstants reads testdata/constants/<tag>.txt: one line per
// table of src/graph/tuning.cc, "name v1 v2 ..." in C initializer order,
// extracted from NCCL's source at the tag (see PROVENANCE.md there).
func tuningReadConstants(t *testing.T, tag string) map[string][]float64 {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "constants", tag+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]float64{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		for _, s := range f[1:] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s.txt:%d: %v", tag, n, err)
			}
			out[f[0]] = append(out[f[0]], v)
		}
	}
	return out
}

// TestTuningConstantsMatchSource checks every constant table of each
// release's Consts against the numbers extracted from src/graph/tuning.cc at
// the release tag: a missed or wrong cell in a delta fails here.
func TestTuningConstantsMatchSource(t *testing.T) {
	// Every modelled release, as Load builds it.
	for _, tc := range tuningReleases(t) {
		t.Run(tc.v.Tag(), func(t *testing.T) {
			src := tuningReadConstants(t, tc.v.Tag())
			tu := tc.tu
			var got = map[string][]float64{}
			// C zero-fills the rows an initializer leaves out: 2.23.4-2.27.7
			// list 6 algorithms' latencies for 7, so PAT's rows must be 0.
			srcAlgos := min(tu.NumAlgos, len(src["baseLatencies"])/nccl.NumProtos)
			for a := 0; a < tu.NumAlgos; a++ {
				for p := range nccl.NumProtos {
					if a < srcAlgos {
						got["baseLatencies"] = append(got["baseLatencies"], tu.BaseLat[a][p])
					} else if tu.BaseLat[a][p] != 0 {
						t.Errorf("baseLatencies[%s][%s] = %v, not in the source's initializer (0)", nccl.Algo(a), nccl.Proto(p), tu.BaseLat[a][p])
					}
				}
			}
			for h := range NumHw {
				for a := 0; a < tu.NumAlgos; a++ {
					for p := range nccl.NumProtos {
						if a < srcAlgos {
							got["hwLatencies"] = append(got["hwLatencies"], tu.HwLat[h][a][p])
						} else if tu.HwLat[h][a][p] != 0 {
							t.Errorf("hwLatencies[%s][%s][%s] = %v, not in the source's initializer (0)", Hw(h), nccl.Algo(a), nccl.Proto(p), tu.HwLat[h][a][p])
						}
					}
				}
			}
			tables := map[string]*[NumCompCaps][NumScales]float64{
				"llMaxBws": &tu.LLMaxBw, "perChMaxRingLL128Bws": &tu.PerChMaxRingLL128Bw,
				"perChMaxTreeLL128Bws": &tu.PerChMaxTreeLL128Bw, "perChMaxTreeBws": &tu.PerChMaxTreeBw,
				"perChMaxNVLSTreeBws": &tu.PerChMaxNVLSTreeBw,
			}
			for name, tab := range tables {
				for cc := 0; cc < tu.NumCompCaps; cc++ {
					for s := range NumScales {
						got[name] = append(got[name], tab[cc][s])
					}
				}
			}
			for name, want := range src {
				switch name {
				case "nvlsEfficiency":
					for i, v := range want {
						if tu.NVLSEfficiency[i] != float32(v) {
							t.Errorf("nvlsEfficiency[%s] = %v, source %v", CompCap(i), tu.NVLSEfficiency[i], v)
						}
					}
					continue
				case "ll128MaxBwPerCh":
					// Before 2.18.3 one LL128 ceiling per architecture caps
					// Ring and Tree at every node count.
					if len(want) != tu.NumCompCaps {
						t.Errorf("ll128MaxBwPerCh: %d values, the release has %d compute capabilities", len(want), tu.NumCompCaps)
					}
					for cc := 0; cc < min(len(want), tu.NumCompCaps); cc++ {
						for sc := range NumScales {
							if r, tr := tu.PerChMaxRingLL128Bw[cc][sc], tu.PerChMaxTreeLL128Bw[cc][sc]; r != want[cc] || tr != want[cc] {
								t.Errorf("ll128MaxBwPerCh[%s] = %v, perChMax{Ring,Tree}LL128Bws[%s][%s] = %v, %v", CompCap(cc), want[cc], CompCap(cc), Scale(sc), r, tr)
							}
						}
					}
					continue
				case "treeCorrectionFactor":
					n := len(want) / nccl.NumProtos
					for i, v := range want {
						if c := tu.TreeCorrection[i/n][i%n]; c != float32(v) {
							t.Errorf("treeCorrectionFactor[%s][%d] = %v, source %v", nccl.Proto(i/n), i%n, c, v)
						}
					}
					for p := range nccl.NumProtos {
						for i := n; i < TreeCorrections; i++ {
							if tu.TreeCorrection[p][i] != 0 {
								t.Errorf("treeCorrectionFactor[%s][%d] = %v beyond the source's %d entries", nccl.Proto(p), i, tu.TreeCorrection[p][i], n)
							}
						}
					}
					if n < TreeCorrections && tu.TreeCorrectionLen != n {
						t.Errorf("treeCorrectionLen %d, source table has %d entries", tu.TreeCorrectionLen, n)
					}
					continue
				}
				g := got[name]
				if len(g) != len(want) {
					t.Errorf("%s: %d values, source has %d", name, len(g), len(want))
					continue
				}
				for i := range want {
					if g[i] != want[i] {
						t.Errorf("%s value %d = %v, source %v", name, i, g[i], want[i])
					}
				}
			}
			if _, ok := src["perChMaxNVLSTreeBws"]; !ok {
				for cc := range NumCompCaps {
					for s := range NumScales {
						if tu.PerChMaxNVLSTreeBw[cc][s] != 0 {
							t.Errorf("perChMaxNVLSTreeBws[%s][%s] set but the release has no such table", CompCap(cc), Scale(s))
						}
					}
				}
			}
		})
	}
}

func TestTuningDiff2_28_3to2_28_9(t *testing.T) {
	got := Diff(tuningRelease(t, nccl.V2_28_3), tuningRelease(t, nccl.V2_28_9))
	want := []string{
		"hwLatencies[NET][NVLSTree][Simple]: 14 -> 20.9",
		"perChMaxRingLL128Bws[Blackwell][N2]: 73.4 -> 34.6",
		"perChMaxNVLSTreeBws[Blackwell][N4]: 43.1 -> 43.8",
		"reg.noneP2PMemcpy: false -> true",
		"sched.symArgsBytes: 112 -> 224",
		"sched.symRangeOwnEnds: false -> true",
	}
	var s []string
	for _, c := range got {
		s = append(s, c.String())
	}
	if strings.Join(s, "\n") != strings.Join(want, "\n") {
		t.Errorf("diff 2.28.3 → 2.28.9:\n%s\nwant:\n%s", strings.Join(s, "\n"), strings.Join(want, "\n"))
	}
}

func TestTuningPaths(t *testing.T) {
	tu := tuningRelease(t, nccl.V2_28_9)
	paths := tu.Paths()
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			t.Fatalf("duplicate path %s", p)
		}
		seen[p] = true
		v, err := tu.GetPath(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		c := tu.Clone()
		if err := c.SetPath(p, v); err != nil {
			t.Fatalf("set %s=%s: %v", p, v, err)
		}
		if d := Diff(tu, c); len(d) != 0 {
			t.Fatalf("set %s=%s changed %v", p, v, d)
		}
	}
	for _, tc := range []struct{ path, value, want string }{
		{"hwLatencies[net][ring][simple]", "5", "5"},
		{"llMaxBws[2][0]", "150.5", "150.5"},
		{"switch.nvlsBw", "min-intra-inter", "min-intra-inter"},
		{"switch.ringRestore", "true", "true"},
		{"treeCorrectionFactor[LL][4]", "0.5", "0.5"},
	} {
		c := tu.Clone()
		if err := c.SetPath(tc.path, tc.value); err != nil {
			t.Errorf("SetPath(%q): %v", tc.path, err)
			continue
		}
		if v, _ := c.GetPath(tc.path); v != tc.want {
			t.Errorf("%s = %s, want %s", tc.path, v, tc.want)
		}
	}
	for _, bad := range []string{"", "nosuch", "hwLatencies[NET]", "hwLatencies[NET][Ring][Simple][0]", "hwLatencies[X][Ring][Simple]",
		"llMaxBws[9][0]", "llMaxBws[0", "[0]", "llMaxBws[]"} {
		if err := tu.Clone().SetPath(bad, "1"); err == nil {
			t.Errorf("SetPath(%q) accepted", bad)
		}
	}
	if err := tu.Clone().SetPath("switch.nvlsBw", "nonsense"); err == nil {
		t.Error("an unknown enum name was accepted")
	}
}

func TestTuningConstantEdits(t *testing.T) {
	tu := tuningRelease(t, nccl.V2_28_9)
	c, err := tu.ApplyConstantEdits([]ConstantEdit{{Path: "hwLatencies[NET][Ring][Simple]", Value: 5}})
	if err != nil {
		t.Fatal(err)
	}
	if c.HwLat[HwNet][nccl.Ring][nccl.Simple] != 5 || tu.HwLat[HwNet][nccl.Ring][nccl.Simple] != 14 {
		t.Errorf("edit applied %v, original %v", c.HwLat[HwNet][nccl.Ring][nccl.Simple], tu.HwLat[HwNet][nccl.Ring][nccl.Simple])
	}
	if _, err := tu.ApplyConstantEdits([]ConstantEdit{{Path: "switch.ringRestore", Value: 1}}); err == nil {
		t.Error("a tuner may not edit a switch")
	}
	if _, err := tu.ApplyConstantEdits([]ConstantEdit{{Path: "nvlsEfficiency[Hopper]", Value: 1}}); err == nil {
		t.Error("nvlsEfficiency is not a tuner constant")
	}
}

func TestTuningParseThreadThresholds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [2][nccl.NumProtos]int64
	}{
		{"", [2][3]int64{{-2, -2, -2}, {-2, -2, -2}}},
		{"1 2 3 4 5 6", [2][3]int64{{1, 2, 3}, {4, 5, 6}}},
		{"  7\t8\n9", [2][3]int64{{7, 8, 9}, {-2, -2, -2}}},
		{"1,2", [2][3]int64{{1, -2, -2}, {-2, -2, -2}}},
		{"-1 +5 x 9", [2][3]int64{{-1, 5, -2}, {-2, -2, -2}}},
		{"1 2 3 4 5 6 7", [2][3]int64{{1, 2, 3}, {4, 5, 6}}},
		{"99999999999999999999", [2][3]int64{{math.MaxInt64, -2, -2}, {-2, -2, -2}}},
		{"12abc", [2][3]int64{{12, -2, -2}, {-2, -2, -2}}},
	} {
		if got := ParseThreadThresholds(tc.in); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
		}
	}
}

func FuzzTuningParseThreadThresholds(f *testing.F) {
	for _, s := range []string{"", "1 2 3 4 5 6", "-1 +5 x", "99999999999999999999999 -99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := ParseThreadThresholds(s)
		// Re-printing the parsed prefix and parsing again is stable.
		var parts []string
		for k := 0; k < 6 && v[k/3][k%3] != -2; k++ {
			parts = append(parts, strconv.FormatInt(v[k/3][k%3], 10))
		}
		w := ParseThreadThresholds(strings.Join(parts, " "))
		for k := 0; k < len(parts); k++ {
			if w[k/3][k%3] != v[k/3][k%3] {
				t.Fatalf("%q → %v → %v", s, v, w)
			}
		}
	})
}

func FuzzTuningSetPath(f *testing.F) {
	for _, s := range []string{"hwLatencies[NET][Ring][Simple]", "llMaxBws[Hopper][N1]", "switch.ringRestore", "x[", "[]", "a[b][c]"} {
		f.Add(s, "1")
	}
	tu := Base2_22_3()
	f.Fuzz(func(t *testing.T, path, value string) {
		c := tu.Clone()
		if err := c.SetPath(path, value); err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if _, err := c.GetPath(path); err != nil {
			t.Fatalf("set %q succeeded but get fails: %v", path, err)
		}
		if n := len(Diff(&tu, c)); n > 1 {
			t.Fatalf("set %q changed %d cells", path, n)
		}
	})
}

// TestTuningTimelineGolden prints, for every cell or switch that differs
// between modelled releases, its value per release with the reference of
// the change, into testdata/timeline.txt.
func TestTuningTimelineGolden(t *testing.T) {
	var b strings.Builder
	fmt.Fprintf(&b, "# tuning cells and switches that differ between releases (generated; go test ./spec/tuning -run TuningTimeline -update)\n")
	type col struct {
		v nccl.Version
		t Consts
		c []Change
	}
	// one column per release, oldest first (the oldest is a backward
	// delta's end, not the anchor)
	var cols []col
	for _, v := range Releases {
		tu, changes, err := LoadRelease(v)
		if err != nil {
			t.Fatal(err)
		}
		var own []Change
		for _, c := range changes {
			if c.Ref.Tag == v.Tag() {
				own = append(own, c)
			}
		}
		cols = append(cols, col{v, *tu, own})
	}
	last := cols[len(cols)-1].t
	for _, p := range last.Paths() {
		var vals []string
		for _, c := range cols {
			v, _ := c.t.GetPath(p)
			vals = append(vals, v)
		}
		same := true
		for _, v := range vals {
			same = same && v == vals[0]
		}
		if same {
			continue
		}
		fmt.Fprintf(&b, "%s\n", p)
		for i := 0; i < len(cols); {
			j := i
			for j+1 < len(cols) && vals[j+1] == vals[i] {
				j++
			}
			rng := cols[i].v.String()
			if j == len(cols)-1 && j > i {
				rng += "-"
			} else if j > i {
				rng += ".." + cols[j].v.String()
			} else if j == len(cols)-1 && i > 0 {
				rng += "-"
			}
			ref := ""
			for _, c := range cols[i].c {
				if c.Path == p {
					ref = "  (" + c.Ref.String() + ")"
				}
			}
			fmt.Fprintf(&b, "  %-16s %s%s\n", rng, vals[i], ref)
			i = j + 1
		}
	}
	golden(t, filepath.Join("testdata", "timeline.txt"), b.String())
}
