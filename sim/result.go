package sim

import (
	"io"

	"github.com/gatesim/gatesim/spec"
)

// Result is what a timing simulation reports.
type Result struct {
	Func     string `json:"coll"`
	Algo     string `json:"algo"`
	Proto    string `json:"proto"`
	Ranks    int    `json:"ranks"`
	Nodes    int    `json:"nodes"`
	Channels int    `json:"channels"`
	DataType string `json:"dtype"`
	// Bytes is the size nccl-tests reports for the operation: the per-rank
	// buffer for AllReduce, Broadcast, Reduce and SendRecv, the whole
	// gathered (scattered) buffer for AllGather (ReduceScatter).
	Bytes int64 `json:"bytes"`
	// Time is the simulated time from launch to the last rank finishing:
	// per operation of a timed batch (Launch.Iters) on a stream.
	Time Time `json:"time_ps"`
	// Alone is the operation's time timed alone (a batch of one): its
	// host's and device's launch, then its steps. A group's kernels add up
	// their operations' steps, not their batched times (GroupOpTime).
	Alone Time `json:"-"`
	// Host is the host's part of the launch in Alone (Machine.LaunchParts'
	// and launch.channel for each channel beyond the first): what a group
	// charges the host per operation, not the device.
	Host   Time    `json:"-"`
	TimeUs float64 `json:"time_us"`
	// AlgBw and BusBw are nccl-tests' algorithm and bus bandwidth of
	// Bytes in Time (Bandwidth).
	AlgBw float64 `json:"algbw"`
	BusBw float64 `json:"busbw"`
	// LinkBytes are the wire bytes (protocol overhead included) that crossed
	// each class of link, summed over all links of that class and both
	// directions; MaxLinkBytes is the busiest single link of the class.
	LinkBytes    map[string]int64 `json:"link_bytes"`
	MaxLinkBytes map[string]int64 `json:"max_link_bytes"`
	// NetBytes are the bytes injected into the network (all NIC egress),
	// and NetBytesPerNode the average per node.
	NetBytes        int64   `json:"net_bytes"`
	NetBytesPerNode float64 `json:"net_bytes_per_node"`
	// Events is the number of simulated FIFO slices (an uneven ring
	// solved in runs, or a chain solved rank by rank, counts its
	// representatives' slices, which the solution times as the event
	// loop would); Representatives the
	// ranks simulated per channel class (the symmetry classes), each
	// standing for the ranks of its class; ChannelClasses the distinct
	// channels simulated.
	Events          int64 `json:"events"`
	Representatives []int `json:"representatives"`
	// ChannelMultiplicity is how many channels each simulated channel
	// class stands for.
	ChannelMultiplicity []int `json:"channel_multiplicity"`
	ChannelClasses      int   `json:"channel_classes"`
	// LinkBound is the busiest link's wire bytes at the rate the fabric
	// lets a connection take from it (its capacity, NVLink and release
	// efficiency): the least time the operation's bytes need on that
	// link whatever its channels. A group's operations share the links,
	// so their bounds add (GroupOpTime).
	LinkBound Time `json:"-"`
}

// TestBytes is the size nccl-tests prints for an operation of count
// elements (sendcount for AllGather, recvcount for ReduceScatter).
func TestBytes(f spec.Func, count int64, dt spec.DataType, n int) int64 {
	b := count * int64(dt.Size())
	if f == spec.AllGather || f == spec.ReduceScatter || f == spec.AllToAll {
		b *= int64(n)
	}
	return b
}

// Bandwidth is nccl-tests' algbw and busbw (its <Coll>GetBw) in GB/s of
// 10^9 bytes, for an operation of nccl-tests size bytes (TestBytes) on
// nranks ranks that took sec seconds: algbw = bytes/sec, busbw = algbw ×
// f.BusFactor(nranks). Both are 0 where sec is not positive (nothing
// timed).
func Bandwidth(f spec.Func, bytes int64, nranks int, sec float64) (algBw, busBw float64) {
	if sec <= 0 {
		return 0, 0
	}
	algBw = float64(bytes) / sec / 1e9
	return algBw, algBw * f.BusFactor(nranks)
}

func (x *Sim) result() *Result {
	s := x.s
	var end Time
	for _, p := range x.progs {
		end = max(end, p.last)
	}
	if len(x.progs) == 0 {
		end = 0
	}
	if x.solved {
		end = max(end, x.solvedEnd)
	}
	alone := end
	if x.batch > 1 && end > x.host {
		// the time per operation of a timed batch: the device's part of
		// each overlaps the host's issuing the next
		end = batchEnd(x.host, end, x.batch)
	}
	r := &Result{
		Func: s.Func.String(), Algo: s.Algo.String(), Proto: s.Proto.String(),
		Ranks: s.NRanks, Nodes: s.NNodes, Channels: s.NChannels, DataType: s.DataType.String(),
		Bytes: TestBytes(s.Func, s.Count, s.DataType, s.NRanks), Time: end, TimeUs: end.Micros(), Alone: alone, Host: x.hostPart,
		LinkBytes: map[string]int64{}, MaxLinkBytes: map[string]int64{},
		Events: x.events, ChannelClasses: len(x.an.classes),
	}
	r.AlgBw, r.BusBw = Bandwidth(s.Func, r.Bytes, s.NRanks, end.Seconds())
	for l, b := range x.an.linkBytes {
		c := x.f.class[l].String()
		r.LinkBytes[c] += b
		r.MaxLinkBytes[c] = max(r.MaxLinkBytes[c], b)
		r.LinkBound = max(r.LinkBound, x.f.byteTime(l, b, s.Algo))
		if x.f.class[l] == LinkNIC && isNicOut(x.f, l) {
			r.NetBytes += b
		}
	}
	r.NetBytesPerNode = float64(r.NetBytes) / float64(max(1, s.NNodes))
	for ci := range x.reps {
		r.Representatives = append(r.Representatives, len(x.reps[ci]))
	}
	for _, cc := range x.an.classes {
		r.ChannelMultiplicity = append(r.ChannelMultiplicity, int(cc.mult))
	}
	return r
}

// byteTime is the time b bytes take on link l at the most a connection
// of algorithm algo gets from it (the efficiencies plan.go's rates
// apply); 0 for a link without capacity.
func (f *fabric) byteTime(l int, b int64, algo spec.Algo) Time {
	r := f.cap[l]
	if f.class[l] == LinkNVLink {
		eff := f.t.nvlinkEff
		if algo == spec.NVLS || algo == spec.NVLSTree {
			eff = f.t.nvlsEff
		}
		r = scaleRate(r, eff)
	}
	r = scaleRate(r, f.t.rateScale)
	if r <= 0 || b <= 0 {
		return 0
	}
	return Time(float64(b) / float64(r) * 1e12)
}

func isNicOut(f *fabric, l int) bool {
	off := l % f.perNode
	return off >= f.m.GPUsPerNode*gpuLinks && (off-f.m.GPUsPerNode*gpuLinks)%2 == 0
}

// WriteChromeTrace writes the timeline as Chrome trace JSON (the Trace
// Event Format Perfetto and chrome://tracing open): one process per rank
// the events name, one thread per channel and group, one complete event
// per FIFO slice, timestamps in microseconds. ChromeTrace adds counters.
func WriteChromeTrace(w io.Writer, events []TraceEvent, meta map[string]string) error {
	return ChromeTrace{Events: events, Meta: meta}.Write(w)
}

// batchEnd is BatchTime of the host's part and the rest of an operation
// that ends at end, in float64: (n-1) times a long operation overflows
// picoseconds.
func batchEnd(host, end Time, n int) Time {
	return Time(BatchTime(float64(host), float64(end-host), n))
}
