package oracle

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/gatesim/gatesim/spec"
)

// The answer encoder: the bytes json.Marshal writes for an Answer and a
// TraceEntry, without reflection (a conformance run reads millions of
// answers, and reflection was a fifth of each). Anything it does not
// write itself (a tuner report, a non-finite time) goes to json.Marshal;
// TestEncoderIsMarshal holds the two to the same bytes.

// appendAnswer appends a's JSON as json.Marshal writes it; ok is false
// when a holds something it leaves to json.Marshal.
func appendAnswer(b []byte, a *Answer) (_ []byte, ok bool) {
	if a.Status == "invalid" || a.Status == "internal" || a.Tuner != nil || a.Invalid != nil || a.Internal != "" ||
		!finite(a.TimeUs) {
		return b, false
	}
	for i := range a.Ops {
		if !finite(a.Ops[i].TimeUs) {
			return b, false
		}
	}
	if len(a.Before) > 0 {
		// rare (device communicator calls): the library's encoding
		return b, false
	}
	b = append(b, `{"schema":`...)
	b = strconv.AppendInt(b, int64(a.Schema), 10)
	if len(a.ID) > 0 {
		id, err := json.Marshal(a.ID) // compacted and checked as json.Marshal does
		if err != nil {
			return b, false
		}
		b = append(b, `,"id":`...)
		b = append(b, id...)
	}
	b = append(b, `,"status":`...)
	b = appendString(b, a.Status)
	if a.Error != nil {
		b = append(b, `,"error":`...)
		b = appendError(b, a.Error)
	}
	if a.NCCL != "" {
		b = append(b, `,"nccl":`...)
		b = appendString(b, a.NCCL)
	}
	b = append(b, `,"algo":`...)
	b = appendStringPtr(b, a.Algo)
	b = append(b, `,"proto":`...)
	b = appendStringPtr(b, a.Proto)
	if len(a.Candidates) > 0 {
		b = append(b, `,"candidates":[`...)
		for i, c := range a.Candidates {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, c)
		}
		b = append(b, ']')
	}
	if a.Undecided != "" {
		b = append(b, `,"undecided":`...)
		b = appendString(b, a.Undecided)
	}
	if a.Discarded {
		b = append(b, `,"discarded":true`...)
	}
	if a.DecidedBy != "" {
		b = append(b, `,"decided_by":`...)
		b = appendString(b, a.DecidedBy)
	}
	b = append(b, `,"fallback":`...)
	b = strconv.AppendBool(b, a.Fallback)
	if a.Net != "" {
		b = append(b, `,"net":`...)
		b = appendString(b, a.Net)
	}
	b = append(b, `,"collnet_support":`...)
	b = strconv.AppendBool(b, a.CollNetSupport)
	b = append(b, `,"nvls_support":`...)
	b = strconv.AppendBool(b, a.NVLSSupport)
	if len(a.Evidence) > 0 {
		b = append(b, `,"evidence":`...)
		b = appendEvidence(b, a.Evidence)
	}
	b = appendIntPtr(b, `,"nchannels":`, a.NChannels)
	b = appendIntPtr(b, `,"channel_lo":`, a.ChannelLo)
	b = appendIntPtr(b, `,"channel_hi":`, a.ChannelHi)
	b = appendIntPtr(b, `,"nthreads":`, a.NThreads)
	if a.TimeUs != nil {
		b = append(b, `,"time_us":`...)
		b = appendFloat(b, *a.TimeUs)
	}
	if a.Kernel != "" {
		b = append(b, `,"kernel":`...)
		b = appendString(b, a.Kernel)
	}
	if a.P2P != nil {
		b = append(b, `,"p2p":{"p2p_nchannels":`...)
		b = strconv.AppendInt(b, int64(a.P2P.NChannels), 10)
		b = append(b, `,"p2p_nchannels_per_peer":`...)
		b = strconv.AppendInt(b, int64(a.P2P.NChannelsPerPeer), 10)
		b = append(b, '}')
	}
	if len(a.Ops) > 0 {
		b = append(b, `,"ops":[`...)
		for i := range a.Ops {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendOp(b, &a.Ops[i])
		}
		b = append(b, ']')
	}
	if a.Plans != 0 {
		b = append(b, `,"plans":`...)
		b = strconv.AppendInt(b, int64(a.Plans), 10)
	}
	if len(a.Trace) > 0 {
		b = append(b, `,"trace":[`...)
		for i := range a.Trace {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendTraceEntry(b, &a.Trace[i])
		}
		b = append(b, ']')
	}
	return append(b, '}'), true
}

func appendOp(b []byte, o *OpAnswer) []byte {
	b = append(b, `{"coll":`...)
	b = appendString(b, o.Coll)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, o.Bytes, 10)
	b = append(b, `,"status":`...)
	b = appendString(b, o.Status)
	if o.Error != nil {
		b = append(b, `,"error":`...)
		b = appendError(b, o.Error)
	}
	if o.Discarded {
		b = append(b, `,"discarded":true`...)
	}
	b = append(b, `,"algo":`...)
	b = appendStringPtr(b, o.Algo)
	b = append(b, `,"proto":`...)
	b = appendStringPtr(b, o.Proto)
	b = appendIntPtr(b, `,"nchannels":`, o.NChannels)
	b = appendIntPtr(b, `,"channel_lo":`, o.ChannelLo)
	b = appendIntPtr(b, `,"channel_hi":`, o.ChannelHi)
	b = appendIntPtr(b, `,"nthreads":`, o.NThreads)
	if o.TimeUs != nil {
		b = append(b, `,"time_us":`...)
		b = appendFloat(b, *o.TimeUs)
	}
	if o.Chunk != (ChunkAnswer{}) {
		b = appendChunk(b, &o.Chunk)
	}
	if o.Kernel != "" {
		b = append(b, `,"kernel":`...)
		b = appendString(b, o.Kernel)
	}
	if o.CTABytes != 0 {
		b = append(b, `,"cta_bytes":`...)
		b = strconv.AppendInt(b, o.CTABytes, 10)
	}
	if len(o.CTAParts) > 0 {
		b = append(b, `,"cta_parts":[`...)
		for i, p := range o.CTAParts {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"cta_lo":`...)
			b = strconv.AppendInt(b, int64(p.CTALo), 10)
			b = append(b, `,"cta_hi":`...)
			b = strconv.AppendInt(b, int64(p.CTAHi), 10)
			b = append(b, `,"offset":`...)
			b = strconv.AppendInt(b, p.Offset, 10)
			b = append(b, `,"bytes":`...)
			b = strconv.AppendInt(b, p.Bytes, 10)
			if p.Missing != 0 {
				b = append(b, `,"missing":`...)
				b = strconv.AppendInt(b, int64(p.Missing), 10)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if o.Aggregate != 0 {
		b = append(b, `,"aggregate":`...)
		b = strconv.AppendInt(b, int64(o.Aggregate), 10)
	}
	if o.Registered != "" {
		b = append(b, `,"registered":`...)
		b = appendString(b, o.Registered)
	}
	b = appendIntPtr(b, `,"plan":`, o.Plan)
	if o.ArgsBytes != 0 {
		b = append(b, `,"args_bytes":`...)
		b = strconv.AppendInt(b, int64(o.ArgsBytes), 10)
	}
	if o.P2P {
		b = append(b, `,"p2p":true`...)
	}
	if len(o.P2PTasks) > 0 {
		b = append(b, `,"p2p_tasks":[`...)
		for k := range o.P2PTasks {
			if k > 0 {
				b = append(b, ',')
			}
			b = appendP2PTask(b, &o.P2PTasks[k])
		}
		b = append(b, ']')
	}
	if o.RMA != nil {
		// rare (one-sided calls): the library's encoding of the path
		if r, err := json.Marshal(o.RMA); err == nil {
			b = append(b, `,"rma":`...)
			b = append(b, r...)
		}
	}
	if o.DevComm != nil {
		// rare (device communicator calls): the library's encoding
		if r, err := json.Marshal(o.DevComm); err == nil {
			b = append(b, `,"dev_comm":`...)
			b = append(b, r...)
		}
	}
	if o.DevCommRelease != nil {
		if r, err := json.Marshal(o.DevCommRelease); err == nil {
			b = append(b, `,"dev_comm_release":`...)
			b = append(b, r...)
		}
	}
	if o.DecidedBy != "" {
		b = append(b, `,"decided_by":`...)
		b = appendString(b, o.DecidedBy)
	}
	return append(b, '}')
}

func appendChunk(b []byte, c *ChunkAnswer) []byte {
	b = append(b, `,"chunk":{"lo":`...)
	b = strconv.AppendInt(b, c.Lo, 10)
	if c.Mid != 0 {
		b = append(b, `,"mid":`...)
		b = strconv.AppendInt(b, c.Mid, 10)
	}
	if c.Hi != 0 {
		b = append(b, `,"hi":`...)
		b = strconv.AppendInt(b, c.Hi, 10)
	}
	b = append(b, `,"step_bytes":`...)
	b = strconv.AppendInt(b, int64(c.StepBytes), 10)
	b = append(b, `,"chunk_steps":`...)
	b = strconv.AppendInt(b, int64(c.ChunkSteps), 10)
	b = append(b, `,"slice_steps":`...)
	b = strconv.AppendInt(b, int64(c.SliceSteps), 10)
	if c.Tuner {
		b = append(b, `,"tuner":true`...)
	}
	if c.ProxyReg {
		b = append(b, `,"proxy_reg":true`...)
	}
	if c.ProxyNSteps != 0 {
		b = append(b, `,"proxy_nsteps":`...)
		b = strconv.AppendInt(b, c.ProxyNSteps, 10)
	}
	if c.ProxyFIFONSteps != 0 {
		b = append(b, `,"proxy_fifo_nsteps":`...)
		b = strconv.AppendInt(b, c.ProxyFIFONSteps, 10)
	}
	return append(b, '}')
}

func appendError(b []byte, e *AnswerError) []byte {
	b = append(b, `{"result":`...)
	b = appendString(b, e.Result)
	b = append(b, `,"message":`...)
	b = appendString(b, e.Message)
	if e.Call != "" {
		b = append(b, `,"call":`...)
		b = appendString(b, e.Call)
	}
	if a := e.Abort; a != nil {
		b = append(b, `,"abort":{"rule":`...)
		b = appendString(b, string(a.Rule))
		b = append(b, `,"message":`...)
		b = appendString(b, a.Message)
		b = append(b, '}')
	}
	return append(b, '}')
}

// appendTraceEntry is one gate verdict as json.Marshal writes a TraceEntry.
func appendTraceEntry(b []byte, t *TraceEntry) []byte {
	b = append(b, `{"rule":`...)
	b = appendString(b, t.Rule)
	b = append(b, `,"verdict":`...)
	b = appendString(b, t.Verdict)
	if t.Why != "" {
		b = append(b, `,"why":`...)
		b = appendString(b, t.Why)
	}
	if len(t.Log) > 0 {
		b = append(b, `,"log":[`...)
		for i, l := range t.Log {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, l)
		}
		b = append(b, ']')
	}
	if t.Scope != "" {
		b = append(b, `,"scope":`...)
		b = appendString(b, t.Scope)
	}
	return append(b, '}')
}

// appendEvidence is spec.Evidence's MarshalJSON: capabilities in report
// order (their names and the level names need no escaping).
func appendEvidence(b []byte, e spec.Evidence) []byte {
	b = append(b, '{')
	n := 0
	for _, c := range spec.Capabilities {
		l, ok := e[c]
		if !ok {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		b = appendString(b, string(c))
		b = append(b, ':')
		b = appendString(b, l.String())
		n++
	}
	return append(b, '}')
}

func appendStringPtr(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

func appendIntPtr(b []byte, key string, v *int) []byte {
	if v == nil {
		return b
	}
	b = append(b, key...)
	return strconv.AppendInt(b, int64(*v), 10)
}

func finite(f *float64) bool { return f == nil || !(math.IsInf(*f, 0) || math.IsNaN(*f)) }

// appendFloat is encoding/json's float64: the shortest text, as ES6
// writes numbers ('e' below 1e-6 and from 1e21, exponent without a
// leading zero). f is finite.
func appendFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendString is encoding/json's string with HTML escaping (its
// default): <, > and & as \u003c, \u003e, \u0026, control characters
// escaped, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendString[S ~string](b []byte, s S) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(string(s[i:min(len(s), i+utf8.UTFMax)]))
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendP2PTask(b []byte, t *P2PTaskAnswer) []byte {
	b = append(b, `{"peer":`...)
	b = strconv.AppendInt(b, int64(t.Peer), 10)
	b = append(b, `,"dir":`...)
	b = appendString(b, t.Dir)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, t.Bytes, 10)
	b = append(b, `,"proto":`...)
	b = appendString(b, t.Proto)
	b = append(b, `,"round":`...)
	b = strconv.AppendInt(b, int64(t.Round), 10)
	b = append(b, `,"nchannels":`...)
	b = strconv.AppendInt(b, int64(t.NChannels), 10)
	b = append(b, `,"channels":`...)
	if t.Channels == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for k, ch := range t.Channels {
			if k > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(ch), 10)
		}
		b = append(b, ']')
	}
	b = append(b, `,"plan":`...)
	b = strconv.AppendInt(b, int64(t.Plan), 10)
	if t.Registered != "" {
		b = append(b, `,"registered":`...)
		b = appendString(b, t.Registered)
	}
	if t.Skipped {
		b = append(b, `,"skipped":true`...)
	}
	return append(b, '}')
}
