package ncclog

import (
	"os/exec"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/gatesim/gatesim/internal/ncclmirror"
	"github.com/gatesim/gatesim/spec"
)

// TestNVLSRegCudaFailures: a CUDA failure at a line that is the NVLS
// registration's at every release printing it is a registration failure and
// does not block NVLS; the setup's bind, or the same line at a release
// where it is not the registration's, still does.
func TestNVLSRegCudaFailures(t *testing.T) {
	const avail = "h:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0\n"
	cases := []struct {
		name, log string
		reg       int
		blocked   bool
	}{
		{"2.26 registration bind, no version line", avail + "h:1:1 [0] transport/nvls.cc:598 NCCL WARN Cuda failure 1 'invalid argument'\n", 1, false},
		{"2.26.2 registration bind, version line", "h:1:1 [0] NCCL INFO NCCL version 2.26.2+cuda12.8\n" + avail + "h:1:1 [0] transport/nvls.cc:598 NCCL WARN Cuda failure 1 'invalid argument'\n", 1, false},
		{"2.26.2 setup bind", "h:1:1 [0] NCCL INFO NCCL version 2.26.2+cuda12.8\n" + avail + "h:1:1 [0] transport/nvls.cc:254 NCCL WARN Cuda failure 1 'invalid argument'\nh:1:1 [0] NCCL INFO transport/nvls.cc:409 -> 1\n", 0, true},
		{"line 598 at 2.27.3 is not the registration's", "h:1:1 [0] NCCL INFO NCCL version 2.27.3+cuda12.9\n" + avail + "h:1:1 [0] transport/nvls.cc:598 NCCL WARN Cuda failure 1 'invalid argument'\n", 0, true},
		{"2.30.7 registration bind", "h:1:1 [0] NCCL INFO NCCL version 2.30.7+cuda13.0\n" + avail + "h:1:1 [0] transport/nvls.cc:767 NCCL WARN Cuda failure 1 'invalid argument'\n", 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := Parse(strings.NewReader(c.log), "t.log")
			if err != nil {
				t.Fatal(err)
			}
			o := Observe(l)
			if got := o.nvlsRegCudaCount(); got != c.reg {
				t.Errorf("registration CUDA failures = %d, want %d", got, c.reg)
			}
			blocked := false
			for _, b := range o.Cap(spec.CapNVLS).Blocks {
				blocked = blocked || b.Rule == "G-NVLS-SETUP-1"
			}
			if blocked != c.blocked {
				t.Errorf("NVLS setup blocked = %v, want %v", blocked, c.blocked)
			}
		})
	}
}

// TestNVLSRegFailedBuffers: each "failed to NVLS register" line, WARN
// (2.24.3-2.25.1) or REG INFO (2.26.2+), is read with its buffer sizes and
// whether the operation ran in place; repeats are kept once, and a (nil)
// buffer (an AllGather's send, a ReduceScatter's receive) is not in place.
func TestNVLSRegFailedBuffers(t *testing.T) {
	const log = `h:1:1 [0] transport/nvls.cc:703 NCCL WARN rank 0 failed to NVLS register sendbuff 0x78c800000000 sendbuffSize 1073741824 recvbuff 0x78c800000000 recvbuffSize 1073741824
h:1:1 [0] transport/nvls.cc:703 NCCL WARN rank 0 failed to NVLS register sendbuff 0x78c800000000 sendbuffSize 1073741824 recvbuff 0x78c800000000 recvbuffSize 1073741824
h:1:1 [0] NCCL INFO rank 0 failed to NVLS register sendbuff 0x7f0000000000 sendbuffSize 4096 recvbuff 0x7f1000000000 recvbuffSize 4096
h:1:1 [0] NCCL INFO rank 0 failed to NVLS register sendbuff (nil) sendbuffSize 4096 recvbuff (nil) recvbuffSize 32768
`
	l, err := Parse(strings.NewReader(log), "t.log")
	if err != nil {
		t.Fatal(err)
	}
	want := []NVLSRegFailure{{1 << 30, 1 << 30, true}, {4096, 4096, false}, {4096, 32768, false}}
	if l.NVLS.RegFailures != 4 || !reflect.DeepEqual(l.NVLS.RegFailed, want) {
		t.Errorf("got %d lines %+v, want 4 lines %+v", l.NVLS.RegFailures, l.NVLS.RegFailed, want)
	}
}

// TestNVLSRegCallsAtTags recomputes nvlsRegCalls from NCCL's source: at
// every modelled release from 2.24.3, the lines with a CUDA check inside
// tryRegisterBuffer, and that nvlsRegisterBuffer ignores its result (the
// soft failure the table stands for). It needs the NCCL git mirror.
func TestNVLSRegCallsAtTags(t *testing.T) {
	repo := ncclmirror.ForTest(t)
	check := regexp.MustCompile(`\b(CUCHECK|CUDACHECK)[A-Z]*\(`)
	for _, r := range spec.Releases {
		if r < v(2, 24, 3) {
			continue
		}
		out, err := exec.Command("git", "-C", repo, "show", r.Tag()+":src/transport/nvls.cc").Output()
		if err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		src := strings.Split(string(out), "\n")
		start, end := 0, 0
		for i, s := range src {
			switch {
			case strings.HasPrefix(s, "ncclResult_t tryRegisterBuffer("):
				start = i + 1
			case strings.HasPrefix(s, "static ncclResult_t nvlsRegisterBuffer("):
				end = i + 1
			}
		}
		if start == 0 || end <= start {
			t.Errorf("%s: tryRegisterBuffer then nvlsRegisterBuffer not found", r)
			continue
		}
		var want []int
		for n := start; n < end; n++ {
			if check.MatchString(src[n-1]) {
				want = append(want, n)
			}
		}
		var got []int
		for n := 1; n <= len(src); n++ {
			if nvlsRegCall(r, n) {
				got = append(got, n)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: registration CUDA calls %v, the source has %v", r, got, want)
		}
		rest := strings.Join(src[end:], "\n")
		if !regexp.MustCompile(`\n\s+tryRegisterBuffer\(`).MatchString(rest) || regexp.MustCompile(`CHECK[A-Z]*\(tryRegisterBuffer`).MatchString(rest) {
			t.Errorf("%s: nvlsRegisterBuffer no longer calls tryRegisterBuffer without checking it", r)
		}
	}
}
