package ncclog

import (
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// nvlsRegCalls are the lines of src/transport/nvls.cc whose CUDA check lies
// in tryRegisterBuffer, the NVLS registration of an operation's user buffer,
// for each window of releases. From 2.24.3 nvlsRegisterBuffer calls it
// without checking its result: a failed call there leaves the buffer
// unregistered and the operation runs on NCCL's own NVLS buffers, whereas
// the same CUDA calls in the setup (nvlsAllocateMem) fail the communicator.
// Without the REG subsystem (2.26.2+ print "failed to NVLS register" as a
// REG INFO) the WARN's source line is all that tells the two apart.
// TestNVLSRegCallsAtTags recomputes every window from the tags.
//
// Ref: v2.24.3-1 to v2.30.7-1 src/transport/nvls.cc tryRegisterBuffer,
// nvlsRegisterBuffer (G-REG-UB-1)
var nvlsRegCalls = []struct {
	since, until spec.Version
	lines        []int
}{
	{v(2, 24, 3), v(2, 24, 3), []int{517, 525, 532, 534, 567, 576, 580, 583, 585, 586}},
	{v(2, 25, 1), v(2, 25, 1), []int{523, 531, 538, 540, 573, 582, 586, 589, 591, 592}},
	{v(2, 26, 2), v(2, 26, 6), []int{532, 540, 547, 549, 582, 594, 598, 601, 603, 604}},
	{v(2, 27, 3), v(2, 28, 3), []int{556, 564, 571, 605, 617, 621, 624, 626, 627}},
	{v(2, 28, 7), v(2, 28, 9), []int{558, 566, 573, 611, 623, 644, 646, 648}},
	{v(2, 29, 2), v(2, 29, 3), []int{551, 559, 566, 604, 616, 637, 639, 641}},
	{v(2, 29, 7), v(2, 29, 7), []int{555, 563, 570, 608, 620, 641, 643, 645}},
	{v(2, 30, 3), v(2, 30, 4), []int{624, 632, 639, 677, 689, 710, 712, 714}},
	{v(2, 30, 7), v(2, 30, 7), []int{713, 721, 728, 767, 784, 807, 809, 811}},
}

const nvlsSrcFile = "transport/nvls.cc"

// nvlsRegCall reports whether line of transport/nvls.cc is a CUDA call of
// the user-buffer registration at release r.
func nvlsRegCall(r spec.Version, line int) bool {
	for _, w := range nvlsRegCalls {
		if !r.Within(w.since, w.until) {
			continue
		}
		for _, n := range w.lines {
			if n == line {
				return true
			}
		}
		return false
	}
	return false
}

// nvlsRegCudaFailures returns the "Cuda failure" WARNs printed from a CUDA
// call of an NVLS user-buffer registration: at the log's release when it
// names one, else at every release that prints the WARN's location (the
// generated source-line table). A location some of those releases place
// elsewhere is not one: it may be the setup's.
func nvlsRegCudaFailures(l *Log) []LogError {
	if l.NVLS.CudaFailures == 0 {
		return nil
	}
	var table *SourceLines
	var out []LogError
	for _, e := range l.Errors {
		file, line, ok := e.PrintedAt()
		if i := strings.LastIndex(file, "src/"); i >= 0 {
			file = file[i+len("src/"):]
		}
		if !ok || e.Kind != "cuda.failure" || file != nvlsSrcFile {
			continue
		}
		rels := []spec.Version{l.Release}
		if l.Release == 0 {
			if table == nil {
				t, err := LoadSourceLines()
				if err != nil {
					return nil
				}
				table = t
			}
			var known bool
			if rels, known, _ = table.Printing(e); !known {
				continue
			}
		}
		reg := len(rels) > 0
		for _, r := range rels {
			reg = reg && nvlsRegCall(r, line)
		}
		if reg {
			out = append(out, e)
		}
	}
	return out
}

// nvlsRegCudaCount is the number of WARN lines in NVLSRegCuda.
func (o *Observation) nvlsRegCudaCount() int {
	n := 0
	for _, e := range o.NVLSRegCuda {
		n += e.Count
	}
	return n
}

// NVLSRegCudaWarn reports whether e is a registration's failed CUDA call
// (one of NVLSRegCuda).
func (o *Observation) NVLSRegCudaWarn(e LogError) bool {
	for _, r := range o.NVLSRegCuda {
		if r.SrcFile == e.SrcFile && r.SrcLine == e.SrcLine && r.Msg == e.Msg {
			return true
		}
	}
	return false
}
