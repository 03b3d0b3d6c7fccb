package tuning

// What ncclTopoTuneModel prints, byte for byte (message part only, no
// "host:pid:tid [dev] NCCL INFO " prefix): the rank-0 [TUNING] table, the
// threadThresholds line and the 2.24+ enable matrix. C's printf is emulated
// where Go's differs (nan/inf spelling).

import (
	"math"
	"strconv"
	"strings"
)

// tuningFmtF is C's "%<width>.<prec>f" for a double: Go's %f except for
// non-finite values, which glibc prints as inf/-inf/nan/-nan.
func tuningFmtF(width, prec int, x float64) string {
	return string(tuningAppendF(nil, width, prec, x))
}

// tuningAppendF appends tuningFmtF's text.
func tuningAppendF(b []byte, width, prec int, x float64) []byte {
	var num [32]byte
	var s []byte
	switch {
	case math.IsNaN(x):
		s = append(num[:0], "nan"...)
		if math.Signbit(x) {
			s = append(num[:0], "-nan"...)
		}
	case math.IsInf(x, 1):
		s = append(num[:0], "inf"...)
	case math.IsInf(x, -1):
		s = append(num[:0], "-inf"...)
	default:
		s = strconv.AppendFloat(num[:0], x, 'f', prec, 64)
	}
	for range width - len(s) {
		b = append(b, ' ')
	}
	return append(b, s...)
}

// tuningPad is "%<width>s" / "%<width>d".
func tuningPad(width int, s string) string {
	if len(s) < width {
		return strings.Repeat(" ", width-len(s)) + s
	}
	return s
}

// TableLines returns the [TUNING] table NCCL prints on rank 0 at INFO level:
// blocks of three algorithms (two blocks in 2.22.3, three with PAT), each
// with the "Algorithm", "Protocol" and "Max NThreads" rows and one row per
// function of "%8.1f/%6.1f" latency/bandwidth cells. Like NCCL, the
// Protocol row always has three algorithms' columns, even in the last,
// shorter block. Nil when nRanks ≤ 1 (NCCL returns before printing).
//
// Ref: v2.28.9-1 src/graph/tuning.cc ncclTopoTuneModel (v2.22.3-1 likewise).
func (m *Model) TableLines() []string {
	if m.SingleRank {
		return nil
	}
	n := m.Tuning.NumAlgos
	out := make([]string, 0, (n+2)/3*(3+len(Funcs)))
	var b strings.Builder
	var row []byte
	for block := 0; block < (n+2)/3; block++ {
		if n <= NumAlgos {
			out = append(out, tableHeads.algo[n][block], tableHeads.proto)
		} else {
			out = append(out, tableAlgoRow(n, block), tableHeads.proto)
		}
		b.Reset()
		b.WriteString(" Max NThreads |")
		for ba := 0; ba < 3; ba++ {
			a := block*3 + ba
			if a >= n {
				continue
			}
			for p := range NumProtos {
				b.WriteString(" " + tuningPad(14, strconv.Itoa(m.MaxThreads[a][p])) + " |")
			}
		}
		out = append(out, b.String())
		for _, f := range Funcs {
			b.Reset()
			b.WriteString(tuningPad(13, f.String()) + " |")
			for ba := 0; ba < 3; ba++ {
				a := block*3 + ba
				if a >= n {
					continue
				}
				for p := range NumProtos {
					row = tuningAppendF(row, 8, 1, float64(m.Latencies[f][a][p]))
					row = append(row, '/')
					row = tuningAppendF(row, 6, 1, float64(m.Bandwidths[f][a][p]))
					row = append(row, " |"...)
				}
			}
			b.Write(row)
			row = row[:0]
			out = append(out, b.String())
		}
	}
	return out
}

// tableAlgoRow is the table's "Algorithm" row of a block with n
// algorithms in all.
func tableAlgoRow(n, block int) string {
	var b strings.Builder
	b.WriteString("  Algorithm   |")
	for ba := 0; ba < 3; ba++ {
		a := block*3 + ba
		if a >= n {
			continue
		}
		b.WriteString(" " + tuningPad(14, "") + "   " + tuningPad(14, Algo(a).String()) + "   " + tuningPad(14, "") + " |")
	}
	return b.String()
}

// tableHeads are the table's rows that name only algorithms and
// protocols, for every count of algorithms, made once rather than for
// every model (a new machine builds one).
var tableHeads = func() (t struct {
	algo  [NumAlgos + 1][(NumAlgos + 2) / 3]string
	proto string
}) {
	for n := range NumAlgos + 1 {
		for block := 0; block < (n+2)/3; block++ {
			t.algo[n][block] = tableAlgoRow(n, block)
		}
	}
	var b strings.Builder
	b.WriteString("  Protocol    |")
	for range 3 {
		for p := range NumProtos {
			b.WriteString(" " + tuningPad(14, Proto(p).String()) + " |")
		}
	}
	t.proto = b.String()
	return t
}()

// ThreadThresholdsLine is the [INIT] line "threadThresholds %ld/%ld/%ld |
// %ld/%ld/%ld | %ld | %ld" (Tree LL/LL128/Simple, Ring LL/LL128/Simple,
// CollNetDirect Simple, CollNetChain Simple). Empty when nRanks ≤ 1.
//
// Ref: v2.28.9-1 src/graph/tuning.cc ncclTopoTuneModel
func (m *Model) ThreadThresholdsLine() string {
	if m.SingleRank {
		return ""
	}
	t := &m.ThreadThresholds
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	return "threadThresholds " + i(t[Tree][LL]) + "/" + i(t[Tree][LL128]) + "/" + i(t[Tree][Simple]) +
		" | " + i(t[Ring][LL]) + "/" + i(t[Ring][LL128]) + "/" + i(t[Ring][Simple]) +
		" | " + i(t[CollNetDirect][Simple]) + " | " + i(t[CollNetChain][Simple])
}

// EnableMatrixMessage is the [ENV] message rank 0 prints (2.24.3+) when
// NCCL_ALGO or NCCL_PROTO is set: "Enabled NCCL Func/Proto/Algo Matrix:"
// followed by a newline-separated table of the parsed flags, built in a
// 1024-byte buffer (so at most 1023 characters after the colon survive).
// The matrix is the user's request, before any support-driven disable.
//
// Ref: v2.28.9-1 src/graph/tuning.cc ncclTopoTuneModel
func EnableMatrixMessage(t *Consts, m EnableMatrix) string {
	var b strings.Builder
	b.WriteString("\n     Function | ")
	for p := range NumProtos {
		b.WriteString(tuningPad(8, Proto(p).String()) + "  ")
	}
	b.WriteString(" | ")
	for a := 0; a < t.NumAlgos; a++ {
		b.WriteString(tuningPad(13, Algo(a).String()) + "  ")
	}
	b.WriteString("\n")
	for _, f := range Funcs {
		b.WriteString(tuningPad(13, f.String()) + " | ")
		for p := range NumProtos {
			b.WriteString(tuningPad(8, strconv.Itoa(int(m.Proto[f][p]))) + "  ")
		}
		b.WriteString(" | ")
		for a := 0; a < t.NumAlgos; a++ {
			b.WriteString(tuningPad(13, strconv.Itoa(int(m.Algo[f][a]))) + "  ")
		}
		b.WriteString("\n")
	}
	s := b.String()
	if len(s) > 1023 {
		s = s[:1023]
	}
	return "Enabled NCCL Func/Proto/Algo Matrix:" + s
}

// ParseThreadThresholds reads NCCL_THREAD_THRESHOLDS as NCCL's
// sscanf(str, "%ld %ld %ld %ld %ld %ld") does: up to six base-10 integers
// separated by optional white space, stopping at the first one that does
// not convert; missing values stay −2 (meaning "keep the default"; any
// negative value is ignored). Values saturate at the int64 range like
// strtol. Order: Tree LL, LL128, Simple, then Ring LL, LL128, Simple.
//
// Ref: v2.28.9-1 src/graph/tuning.cc ncclTopoTuneModel
func ParseThreadThresholds(s string) [2][NumProtos]int64 {
	out := [2][NumProtos]int64{{-2, -2, -2}, {-2, -2, -2}}
	i := 0
	for k := 0; k < 6; k++ {
		for i < len(s) && tuningIsSpace(s[i]) {
			i++
		}
		j := i
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		d := j
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == d {
			break // no digits: the conversion fails and sscanf stops
		}
		v, err := strconv.ParseInt(s[i:j], 10, 64)
		if err != nil { // out of range: strtol saturates
			v = math.MaxInt64
			if s[i] == '-' {
				v = math.MinInt64
			}
		}
		out[k/3][k%3] = v
		i = j
	}
	return out
}

// tuningIsSpace is C's isspace in the C locale.
func tuningIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
