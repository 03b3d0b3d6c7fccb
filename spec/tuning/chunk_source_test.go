package tuning

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/nccl"
)

// TestChunkConstantsMatchSource: calcCollChunking's rules and geometry
// equal the numbers extracted from src/enqueue.cc and the headers at every
// tag (testdata/constants/chunking.txt, program in PROVENANCE.md): each
// algorithm's halving and cap steps, the rules a release has (2.18/2.19's
// Tree/Simple depth rule, PAT from 2.23.4, the slow NVLS net cap from
// 2.19.3, NVLSTree's 4-node cap where no tuning sets it), CollNetChain's
// largest chunk and the FIFO macros the buffer defaults and steps come
// from.
func TestChunkConstantsMatchSource(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "constants", "chunking.txt"))
	if err != nil {
		t.Fatalf("the extracted chunking constants are missing: %v", err)
	}
	src := map[string]map[string]string{} // tag → field → value
	for n, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			t.Fatalf("chunking.txt:%d: %q: expected a tag, a name and values", n+1, line)
		}
		if src[f[0]] == nil {
			src[f[0]] = map[string]string{}
		}
		switch f[1] {
		case "literals", "macros":
			for _, kv := range f[2:] {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					t.Fatalf("chunking.txt:%d: %q: expected name=value", n+1, kv)
				}
				src[f[0]][k] = v
			}
		default:
			src[f[0]][f[1]] = strings.Join(f[2:], " ")
		}
	}
	steps := func(s []chunkStep) string {
		var out []string
		for _, x := range s {
			out = append(out, fmt.Sprintf("%d:%d", x.Mul, x.Above))
		}
		return strings.Join(out, " ")
	}
	for _, v := range Releases {
		tag := v.Tag()
		t.Run(tag, func(t *testing.T) {
			s, ok := src[tag]
			if !ok {
				t.Fatalf("no extracted constants for %s", tag)
			}
			rules, err := ReleaseChunkRules(v)
			if err != nil {
				t.Fatal(err)
			}
			tu := tuningRelease(t, v)
			pat := tu.NumAlgos > int(nccl.PAT)
			present := func(b bool, rule string) string {
				if b {
					return rule
				}
				return "-"
			}
			want := map[string]string{
				"collNetDirect":    steps(collNetDirectHalving[:]),
				"collNetChain":     steps(collNetChainHalving[:]),
				"nvls":             steps(nvlsCaps[:]),
				"nvlsTree":         steps(nvlsTreeCaps[:]),
				"treeLL128":        steps(treeLL128Halving[:]),
				"treeSimple":       present(rules.TreeSimpleDepth, steps(treeSimpleHalving[:])),
				"patAllGather":     present(pat, steps([]chunkStep{patAllGatherHalving})),
				"patReduceScatter": present(pat, steps([]chunkStep{patReduceScatterHalv})),
				"collNetChainMax":  strconv.Itoa(collNetChainMaxChunk),
				"nvlsNetSlow":      present(rules.NVLSNetChunkCap, fmt.Sprintf("%d:%d", nvlsNetSlowBw, nvlsNetSlowChunk)),
			}
			for k, w := range want {
				if s[k] != w {
					t.Errorf("%s: source %q, model %q", k, s[k], w)
				}
			}
			// the 4-node cap: in the source exactly where the release
			// applies it and no init-time tuning (2.30.3's ncclNvlsTuning)
			// sets the cap instead
			if c := s["nvlsTree4Nodes"]; c != "-" && (!rules.NVLSTreeChunkCap4Nodes || c != fmt.Sprintf("4:%d", nvlsTreeCap4Nodes)) ||
				c == "-" && rules.NVLSTreeChunkCap4Nodes && !tu.TunerChunkSize {
				t.Errorf("nvlsTree4Nodes: source %q, release rule %v", c, rules.NVLSTreeChunkCap4Nodes)
			}
			macro := func(name string) int {
				e := strings.Trim(s[name], "()")
				e = strings.ReplaceAll(e, "NCCL_STEPS", s["NCCL_STEPS"])
				var a, b int
				switch {
				case strings.Contains(e, "<<"):
					fmt.Sscanf(e, "%d<<%d", &a, &b)
					return a << b
				case strings.Contains(e, "/"):
					fmt.Sscanf(e, "%d/%d", &a, &b)
					return a / max(1, b)
				}
				n, err := strconv.Atoi(e)
				if err != nil {
					t.Fatalf("%s = %q: not a number", name, s[name])
				}
				return n
			}
			ll128LineElems := macro("NCCL_LL128_LINESIZE") / 8
			geometry := []struct {
				name      string
				got, want int
			}{
				{"NCCL_STEPS", NSteps, macro("NCCL_STEPS")},
				{"LL128 line elements", LL128LineElems, ll128LineElems},
				{"DEFAULT_LL_BUFFSIZE", DefaultBuffSize[nccl.LL], macro("NCCL_LL_LINES_PER_THREAD") * macro("NCCL_LL_MAX_NTHREADS") * macro("NCCL_STEPS") * 16},
				{"DEFAULT_LL128_BUFFSIZE", DefaultBuffSize[nccl.LL128], macro("NCCL_LL128_ELEMS_PER_THREAD") * macro("NCCL_LL128_MAX_NTHREADS") * macro("NCCL_STEPS") * 8},
				{"DEFAULT_BUFFSIZE", DefaultBuffSize[nccl.Simple], macro("DEFAULT_BUFFSIZE")},
				{"LL128 grain", GrainSize[nccl.LL128], warpSize * macro("NCCL_LL128_SHMEM_ELEMS_PER_THREAD") / ll128LineElems * (ll128LineElems - 1) * 8},
			}
			for i, name := range []string{"BROADCAST", "REDUCE", "ALLGATHER", "REDUCESCATTER", "ALLREDUCE"} {
				geometry = append(geometry,
					struct {
						name      string
						got, want int
					}{name + "_CHUNKSTEPS", RingChunkSteps[i], macro(name + "_CHUNKSTEPS")},
					struct {
						name      string
						got, want int
					}{name + "_SLICESTEPS", RingSliceSteps[i], macro(name + "_SLICESTEPS")})
			}
			for _, g := range geometry {
				if g.got != g.want {
					t.Errorf("%s: model %d, source %d", g.name, g.got, g.want)
				}
			}
		})
	}
}

// TestChunkRegConstantsMatchSource: the registered-buffer rules of
// calcCollChunking (G-SEL-CHUNK-2) and the one chunk call of a task in
// 2.20–2.21 (G-SEL-CHUNK-3) equal what src/enqueue.cc and
// src/include/collectives.h have at every tag
// (testdata/constants/chunkreg.txt, program in PROVENANCE.md): each
// branch is in the source exactly where the release's switch is on,
// NCCL_MAX_NET_SIZE is MaxNetSize, and the 2.20/2.21 calls size a cut
// task on its aggregate's nBytes over the channels the release counts,
// a CollNet task on its own nBytes over its channels and a tuned task on
// its own nBytes over the channels its count fills.
func TestChunkRegConstantsMatchSource(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "constants", "chunkreg.txt"))
	if err != nil {
		t.Fatalf("the extracted registered-chunk constants are missing: %v", err)
	}
	src := map[string]map[string]string{} // tag → name → value
	for n, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Fatalf("chunkreg.txt:%d: %q: expected a tag, a name and a value", n+1, line)
		}
		if src[f[0]] == nil {
			src[f[0]] = map[string]string{}
		}
		src[f[0]][f[1]] = strings.Join(f[2:], " ")
	}
	const r20Calls = "addCBDCollToPlan=collInfo->aggnBytes,collInfo->nChannels addCollnetCollToPlan=collInfo->nBytes,collInfo->nChannels addTunedCollToPlan=collInfo->nBytes,nChannels"
	for _, v := range Releases {
		tag := v.Tag()
		t.Run(tag, func(t *testing.T) {
			s, ok := src[tag]
			if !ok {
				t.Fatalf("no extracted constants for %s", tag)
			}
			rules, err := ReleaseChunkRules(v)
			if err != nil {
				t.Fatal(err)
			}
			tu := tuningRelease(t, v)
			either := func(b bool, yes string) string {
				if b {
					return yes
				}
				return "-"
			}
			cbd := "-"
			if tu.Schedule == ScheduleR20 {
				cbd = either(tu.CBDChannelsAggBytes, "aggnBytes")
				if cbd == "-" {
					cbd = "workBytes"
				}
			}
			want := map[string]string{
				"nvlsRegChunk":    either(rules.NVLSRegStepChunk, "AllGather,ReduceScatter:SimpleStep"),
				"netRegRingChunk": either(rules.NetRegRingAllGather, "AllGather:oneRPN:NCCL_MAX_NET_SIZE:1:1:returned=1"),
				"chunkCall":       either(tu.Schedule == ScheduleR20, r20Calls),
				"cbdChannels":     cbd,
			}
			for k, w := range want {
				if s[k] != w {
					t.Errorf("%s: source %q, model %q", k, s[k], w)
				}
			}
			if rules.NetRegRingAllGather {
				var a, b, c int
				if _, err := fmt.Sscanf(s["NCCL_MAX_NET_SIZE"], "%d*%d*%dL", &a, &b, &c); err != nil || a*b*c != MaxNetSize {
					t.Errorf("NCCL_MAX_NET_SIZE: source %q, model %d", s["NCCL_MAX_NET_SIZE"], MaxNetSize)
				}
			}
		})
	}
}
