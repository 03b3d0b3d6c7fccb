package plan

import (
	"testing"

	"github.com/gatesim/gatesim/spec"
)

// TestP2PTimePerByteAcrossChannelsPerPeer: as a SendRecv or AllToAll
// grows, NCCL gives each peer more p2p channels (scheduleP2pTasksToPlan),
// so a channel runs more works, one batch after another. Doubling the
// bytes must then take at most about twice the time, and busbw never beat
// the GPU's NVLink (each GPU sends busbw's bytes over it). Before a p2p
// send group's connections shared one connection's weight on the links
// (sim's seqShares) every connection counted as busy throughout: AllToAll
// 1 GiB on 16 GPUs of a GB200 NVL72 took 7.8 times 256 MiB's time.
func TestP2PTimePerByteAcrossChannelsPerPeer(t *testing.T) {
	cases := []struct {
		system   string
		nodes    int
		f        spec.Func
		from, to int64
	}{
		{"gb200-nvl72", 4, spec.AllToAll, 16 << 20, 4 << 30},
		{"gb200-nvl72", 4, spec.SendRecv, 4 << 20, 1 << 30},
		{"gb200-nvl72", 18, spec.AllToAll, 72 * 1 << 20, 72 * 32 << 20},
		{"dgx-b200", 1, spec.AllToAll, 4 << 20, 2 << 30},
		{"dgx-b200", 1, spec.SendRecv, 1 << 20, 1 << 30},
	}
	for _, tc := range cases {
		c, err := build(t, tc.system, tc.nodes)
		if err != nil {
			t.Fatal(err)
		}
		s := &Session{Comm: c}
		link := float64(c.Machine.NVLinkBw) / 1e9
		perPeer := map[int]bool{}
		prevUs, prevBus := 0.0, 0.0
		for b := tc.from; b <= tc.to; b *= 2 {
			op, err := s.Op(tc.f, spec.Float32, spec.Sum, b, 0)
			if err != nil {
				t.Fatal(err)
			}
			rep, _, err := s.Run(op, RunOptions{Size: b, Describe: func(*spec.Decision) string { return "" }})
			if err != nil {
				t.Fatalf("%s ×%d %s %d B: %v", tc.system, tc.nodes, tc.f, b, err)
			}
			most := 0
			for _, task := range rep.P2PTasks {
				if task.Dir == "send" && task.Peer != 0 {
					most = max(most, task.NChannels)
				}
			}
			perPeer[most] = true
			us, _, bus := rep.Headline()
			t.Logf("%s ×%d %s %d MiB: %d channel(s) per peer, %.2f µs, busbw %.1f GB/s", tc.system, tc.nodes, tc.f, b>>20, most, us, bus)
			if bus > link*1.001 {
				t.Errorf("%s ×%d %s %d B: busbw %.1f GB/s beats the GPU's NVLink, %.1f GB/s", tc.system, tc.nodes, tc.f, b, bus, link)
			}
			if prevUs > 0 && (us > 2.2*prevUs || bus < 0.9*prevBus) {
				t.Errorf("%s ×%d %s %d B: %.2f µs (busbw %.1f GB/s) after %.2f µs (busbw %.1f GB/s) at half the bytes: the time per byte jumps", tc.system, tc.nodes, tc.f, b, us, bus, prevUs, prevBus)
			}
			prevUs, prevBus = us, bus
		}
		if len(perPeer) < 2 {
			t.Errorf("%s ×%d %s: %v channels per peer over the sizes: the sweep does not cross a change", tc.system, tc.nodes, tc.f, perPeer)
		}
	}
}
