package ncclog

import (
	"bytes"
	"io"
	"runtime"
	"strconv"
	"syscall"
	"testing"
)

// genReader synthesises a large log from real line shapes without holding
// it in memory: hosts, pids, devices and sizes vary, so distinct-value
// bounds are exercised the way a long multi-rank job exercises them.
type genReader struct {
	left int64
	i    int
	buf  []byte
}

var benchLines = append(append([]string{
	"NCCL INFO Bootstrap : Using eth0:10.0.0.%d<0>",
	"NCCL INFO NET/Plugin: Could not find: libnccl-net.so",
	"NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [RO]; OOB ib0:10.0.0.%d<0>",
	"NCCL INFO Using network IB",
	"NCCL INFO Channel %02d/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA",
	"NCCL INFO Channel %02d/0 : 0[0] -> 1[1] via P2P/CUMEM/read",
	"NCCL INFO AllReduce: opCount %d sendbuff 0x7f0 recvbuff 0x7f0 count %d datatype 7 op 0 root 0 comm 0x55 [nranks=16] stream 0x56",
	"NCCL INFO AllReduce: %d Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}",
	"NCCL INFO Setting affinity for GPU %d to ffffffff,00000000",
	"NCCL INFO P2P Chunksize set to %d",
	"NCCL INFO Trees [0] 1/-1/-1->0->7 [1] 1/-1/-1->0->7",
	"transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.%d<33397> with error 4, opcode 1, len 0, vendor err 81 (Send)",
}, linePool[:6]...), opPool...)

func (g *genReader) Read(p []byte) (int, error) {
	if g.left <= 0 {
		return 0, io.EOF
	}
	for len(g.buf) < len(p) && int64(len(g.buf)) < g.left {
		n := g.i
		g.i++
		tmpl := benchLines[n%len(benchLines)]
		host := "node" + strconv.Itoa(n%64)
		g.buf = append(g.buf, host...)
		g.buf = append(g.buf, ':')
		g.buf = strconv.AppendInt(g.buf, int64(1000+n%512), 10)
		g.buf = append(g.buf, ':')
		g.buf = strconv.AppendInt(g.buf, int64(1000+n%512), 10)
		g.buf = append(g.buf, " ["...)
		g.buf = strconv.AppendInt(g.buf, int64(n%8), 10)
		g.buf = append(g.buf, "] "...)
		for j := 0; j < len(tmpl); j++ {
			if tmpl[j] == '%' && j+1 < len(tmpl) {
				k := j + 1
				for k < len(tmpl) && (tmpl[k] >= '0' && tmpl[k] <= '9') {
					k++
				}
				g.buf = strconv.AppendInt(g.buf, int64(8<<(n%28)), 10)
				j = k
				continue
			}
			g.buf = append(g.buf, tmpl[j])
		}
		g.buf = append(g.buf, '\n')
	}
	m := copy(p, g.buf)
	if int64(m) > g.left {
		m = int(g.left)
	}
	g.buf = g.buf[:copy(g.buf, g.buf[m:])]
	g.left -= int64(m)
	return m, nil
}

// BenchmarkParse100MB parses a 100 MB synthetic log (real line shapes,
// 64 hosts x 512 pids, 28 sizes), generated once before the timer starts
// (never committed) so that the figure is the reader's alone. heap-MB is
// the live heap after the parse with the input let go: the Log's size,
// which does not grow with the input (Parse streams; it never holds the
// input).
func BenchmarkParse100MB(b *testing.B) {
	const size = 100 << 20
	data := make([]byte, 0, size)
	g := &genReader{left: size}
	for chunk := make([]byte, 1<<20); ; {
		n, err := g.Read(chunk)
		data = append(data, chunk[:n]...)
		if err == io.EOF {
			break
		}
	}
	if len(data) != size {
		b.Fatalf("generated %d bytes, want %d", len(data), size)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	var l *Log
	for range b.N {
		p := NewParser()
		if err := p.Parse(bytes.NewReader(data), "bench.log"); err != nil {
			b.Fatal(err)
		}
		l = p.Finish()
	}
	b.StopTimer()
	// On a shared machine wall time measures the neighbours; CPU time
	// (this process's, GC included) measures the reader.
	b.ReportMetric(float64(size)*float64(b.N)/(1<<20)/(cpuSeconds()-cpu0), "MB/cpu-s")
	data = nil
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
	b.ReportMetric(float64(l.Lines), "lines")
	runtime.KeepAlive(l)
}

// cpuSeconds is the CPU time this process has used, user and system.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
