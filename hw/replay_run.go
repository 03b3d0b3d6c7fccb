package hw

import (
	"encoding/binary"
	"fmt"

	"github.com/gatesim/gatesim/algos"
	"github.com/gatesim/gatesim/spec"
)

// ReplayKernel is the kernel a replay round launches.
const ReplayKernel = "gs_replay"

// ReplayResult is what one replay measured and produced.
type ReplayResult struct {
	Rounds int `json:"rounds"`
	Steps  int `json:"steps"`
	// KernelMs and ExchangeMs are, per round, the slowest local rank's
	// task kernel and NCCL group times (CUDA events).
	KernelMs   []float64 `json:"kernel_ms"`
	ExchangeMs []float64 `json:"exchange_ms"`
	// DeviceUs is the sum over rounds of the slowest kernel and the slowest
	// exchange: the replay's time on the GPUs without the host's gaps.
	DeviceUs float64 `json:"device_us"`
	// Messages and MessageBytes count what the NCCL groups moved.
	Messages     int    `json:"messages"`
	MessageBytes uint64 `json:"message_bytes"`
	// Transfers counts the sends issued after merging adjacent messages.
	Transfers int `json:"transfers"`
	// Output is every rank's output buffer after the replay.
	Output [][]byte `json:"-"`
}

// RunReplay executes a plan on an Executor that drives every rank of the
// schedule (one process, one local rank per rank, in rank order) with the
// replay kernel loaded: inputs[r] is rank r's send buffer.
func RunReplay(e Executor, p *ReplayPlan, inputs [][]byte, grid, block uint32) (*ReplayResult, error) {
	h := p.Header
	if e.NRanks() != h.NRanks || len(e.Local()) != h.NRanks {
		return nil, fmt.Errorf("replay: the schedule has %d ranks; this process drives %d of %d", h.NRanks, len(e.Local()), e.NRanks())
	}
	for l, d := range e.Local() {
		if d.Rank != l {
			return nil, fmt.Errorf("replay: local rank %d is global rank %d: expected one process driving ranks in order", l, d.Rank)
		}
	}
	dtOp, dt, err := replayCodes(h)
	if err != nil {
		return nil, err
	}
	unit := uint64(h.Unit)
	inBytes := uint64(h.InputCount()) * unit
	for r, in := range inputs {
		if uint64(len(in)) != inBytes {
			return nil, fmt.Errorf("replay: rank %d input has %d bytes, the schedule reads %d", r, len(in), inBytes)
		}
	}
	if len(inputs) != h.NRanks {
		return nil, fmt.Errorf("replay: %d inputs for %d ranks", len(inputs), h.NRanks)
	}
	if err := e.Alloc(max(inBytes, 1), max(p.IncomingOffset+p.IncomingBytes, 1)); err != nil {
		return nil, err
	}
	zero := make([]byte, p.OutputBytes)
	for r := range h.NRanks {
		if err := e.Upload(r, SendBuf, 0, inputs[r]); err != nil {
			return nil, err
		}
		if err := e.Upload(r, RecvBuf, 0, zero); err != nil {
			return nil, err
		}
	}
	res := &ReplayResult{Rounds: len(p.Rounds), Steps: p.Steps}
	ptr := func(l int, b BufRef) uint64 {
		if !b.Set {
			return 0
		}
		return e.DevicePtr(l, b.Buf, b.Offset)
	}
	for ri, rd := range p.Rounds {
		var kms float64
		for l, tasks := range rd.Tasks {
			if len(tasks) == 0 {
				continue
			}
			table := make([]byte, 0, len(tasks)*replayTaskBytes)
			for _, t := range tasks {
				var w [8]uint64
				w[0], w[1] = ptr(l, t.Dst0), ptr(l, t.Dst1)
				for i, s := range t.Src {
					w[2+i] = ptr(l, s)
				}
				w[6], w[7] = uint64(len(t.Src)), t.N
				for _, x := range w {
					table = binary.LittleEndian.AppendUint64(table, x)
				}
			}
			if err := e.Upload(l, RecvBuf, p.TaskOffset, table); err != nil {
				return nil, fmt.Errorf("round %d: %w", ri, err)
			}
			ms, err := e.Launch(l, ReplayKernel, grid, block, e.DevicePtr(l, RecvBuf, p.TaskOffset), uint64(len(tasks)), dtOp)
			if err != nil {
				return nil, fmt.Errorf("round %d: rank %d: %w", ri, l, err)
			}
			kms = max(kms, ms)
		}
		// Messages between the same two ranks that sit back to back in the
		// sender's outgoing area and in the receiver's incoming area (the
		// planner lays them out in the same order) travel as one send.
		var merged []ReplayMessage
		for _, m := range rd.Messages {
			if m.N == 0 {
				continue
			}
			res.Messages++
			res.MessageBytes += m.N * unit
			if k := len(merged) - 1; k >= 0 {
				last := &merged[k]
				if last.From == m.From && last.To == m.To && last.FromOff+last.N*unit == m.FromOff && last.ToOff+last.N*unit == m.ToOff {
					last.N += m.N
					continue
				}
			}
			merged = append(merged, m)
		}
		var ops []P2P
		for _, m := range merged {
			ops = append(ops,
				P2P{Local: m.From, Peer: m.To, Send: true, Buf: RecvBuf, Offset: m.FromOff, Count: m.N, DataType: dt},
				P2P{Local: m.To, Peer: m.From, Buf: RecvBuf, Offset: m.ToOff, Count: m.N, DataType: dt})
		}
		res.Transfers += len(merged)
		var xms float64
		if len(ops) > 0 {
			t, err := e.Exchange(ops)
			if err != nil {
				return nil, fmt.Errorf("round %d: %w", ri, err)
			}
			for _, v := range t {
				xms = max(xms, v)
			}
		}
		res.KernelMs = append(res.KernelMs, kms)
		res.ExchangeMs = append(res.ExchangeMs, xms)
		res.DeviceUs += (kms + xms) * 1000
	}
	for r := range h.NRanks {
		out, err := e.Download(r, RecvBuf, 0, p.OutputBytes)
		if err != nil {
			return nil, err
		}
		res.Output = append(res.Output, out)
	}
	return res, nil
}

// replayCodes are the kernel's dtype/op word and the datatype the NCCL
// groups move (bytes for the int8 schedules of AllGather and Broadcast).
func replayCodes(h algos.Header) (uint64, spec.DataType, error) {
	dt := h.DataType
	if h.Unit == 1 {
		dt = spec.Uint8
	}
	switch dt {
	case spec.Int8, spec.Uint8, spec.Int32, spec.Uint32, spec.Int64, spec.Uint64, spec.Float32, spec.Float64:
	default:
		return 0, 0, fmt.Errorf("replay: the kernel has no %s arithmetic (int8 … uint64, float32, float64)", dt)
	}
	op := h.RedOp
	if op > spec.Min {
		return 0, 0, fmt.Errorf("replay: %s needs a pre- or post-operation", op)
	}
	return uint64(dt)<<4 | uint64(op), dt, nil
}
