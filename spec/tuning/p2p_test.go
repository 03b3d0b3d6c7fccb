package tuning

import "testing"

func TestU32FP8(t *testing.T) {
	for _, c := range []struct{ in, want int64 }{{0, 0}, {7, 7}, {8, 8}, {9, 9}, {17, 16}, {131072, 131072}, {100000, 98304}, {3 << 20, 3 << 20}} {
		if got := U32FP8(c.in); got != c.want {
			t.Errorf("U32FP8(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

// TestP2PScheduleGroups: 2.28.7 cuts one node of 64 ranks into groups of
// NCCL_P2P_SCHEDULE_GROUP_SIZE (8) whose deltas follow the quadratic
// sequence 0, 1, 3, 6, 2, 7, 5, 4, so rank 0's third group of rounds goes
// to ranks 24..31; 2.28.9 takes the whole node as one group (deltas 0, 1,
// 2, ...). Ref: v2.28.7-1 / v2.28.9-1 src/init.cc ncclP2pSchedule.
func TestP2PScheduleGroups(t *testing.T) {
	for _, tc := range []struct {
		wholeNode bool
		want      int // the peer of round 16
	}{{false, 24}, {true, 16}} {
		p := P2PComm{Rules: P2PRules{RoundSchedule: true, BaseReversed: true, GroupSchedule: true, GroupWholeNode: tc.wholeNode},
			NNodes: 1, LocalRanks: 64, NChannels: 32, NChannelsPerPeer: 32, GroupSize: 8, ChunkSize: 1 << 19, LLStepSize: 1 << 16, LLThreshold: 16384}
		if got := p.Schedule(0)[16].Send; got != tc.want {
			t.Errorf("whole node %v: round 16 sends to %d, want %d", tc.wholeNode, got, tc.want)
		}
	}
}

// TestP2PChannelForPartInverts: ncclP2pChannelToPart undoes
// ncclP2pChannelForPart for every base and part, with and without the
// 2.28.3 reversal.
func TestP2PChannelForPartInverts(t *testing.T) {
	for _, rev := range []bool{false, true} {
		p := P2PComm{Rules: P2PRules{BaseReversed: rev}, NChannels: 16}
		for base := range 16 {
			seen := map[int]bool{}
			for part := range 16 {
				ch := p.ChannelForPart(base, part)
				if seen[ch] || p.PartForChannel(base, ch) != part {
					t.Fatalf("reversed %v base %d part %d: channel %d (seen %v), back to part %d", rev, base, part, ch, seen[ch], p.PartForChannel(base, ch))
				}
				seen[ch] = true
			}
		}
	}
}

// TestP2PLegacyLLPerChunk: before 2.22.3 addP2pToPlan takes LL per chunk,
// so a 32 KiB send over PCIe (p2pChunkSize 128 KiB, chunks of at least
// 16 KiB) runs as two LL chunks of 16 KiB, though the task exceeds
// NCCL_P2P_LL_THRESHOLD; 64 KiB is four chunks of 16 KiB, LL too, and a
// 16 KiB chunk floor across nodes before 2.20.3. Ref: v2.21.5-1
// src/enqueue.cc addP2pToPlan, scheduleP2pTasksToPlan, calcP2pChunkSize.
func TestP2PLegacyLLPerChunk(t *testing.T) {
	p := P2PComm{NNodes: 1, LocalRanks: 8, NChannels: 32, NChannelsPerPeer: 4, GroupSize: 8, ChunkSize: 1 << 17, LLStepSize: 1 << 13, LLThreshold: 16384}
	for _, c := range []struct {
		bytes int64
		proto string
		n     int
	}{{16 << 10, "LL", 1}, {32 << 10, "LL", 2}, {64 << 10, "LL", 4}, {1 << 20, "Simple", 4}} {
		got, err := p.PlaceP2P(0, []P2PTask{{Peer: 1, Send: true, Bytes: c.bytes}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Proto.String() != c.proto || got[0].NChannels != c.n {
			t.Errorf("%d B: %s on %d channels, want %s on %d", c.bytes, got[0].Proto, got[0].NChannels, c.proto, c.n)
		}
	}
}
