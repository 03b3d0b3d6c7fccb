package topo

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseCInt reads an integer the way strtol(str, NULL, 0) does (decimal,
// 0x hex, leading-0 octal, optional sign) but insists that the whole value
// is a number: NCCL would silently read "abc" as 0, which hides mistakes in
// hand-written files.
func parseCInt(s string) (int64, error) {
	t := strings.TrimSpace(s)
	neg := false
	if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
		neg = t[0] == '-'
		t = t[1:]
	}
	base := 10
	switch {
	case strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X"):
		base, t = 16, t[2:]
	case len(t) > 1 && t[0] == '0':
		base, t = 8, t[1:]
	}
	if t == "" {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	u, err := strconv.ParseUint(t, base, 64)
	if err != nil || u > math.MaxInt64 {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if neg {
		return -int64(u), nil
	}
	return int64(u), nil
}

// parseHex64 reads a 64-bit hex value as strtoull(str, NULL, 16) does
// (optional 0x prefix).
func parseHex64(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(strings.TrimPrefix(t, "0x"), "0X")
	u, err := strconv.ParseUint(t, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a hex number", s)
	}
	return u, nil
}

// parseFloat32 reads a float as strtof does, insisting on a whole number.
func parseFloat32(s string) (float32, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 32)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return float32(f), nil
}

// BusIDToInt64 is busIdToInt64 (v2.28.9-1 src/misc/utils.cc): the hex
// digits of "0000:18:00.0" with ':' and '.' skipped, stopping at the first
// other character, at most 16 digits.
func BusIDToInt64(s string) (int64, error) {
	var digits []byte
	for i := 0; i < len(s) && len(digits) < 16; i++ {
		c := s[i]
		if c == '.' || c == ':' {
			continue
		}
		if (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') {
			digits = append(digits, c)
			continue
		}
		break
	}
	if len(digits) == 0 {
		return 0, fmt.Errorf("bus id %q has no hex digits: expected a PCI bus id such as 0000:18:00.0", s)
	}
	u, err := strconv.ParseUint(string(digits), 16, 64)
	if err != nil {
		return 0, fmt.Errorf("bus id %q: %v", s, err)
	}
	// strtol saturates at LONG_MAX.
	if u > math.MaxInt64 {
		return math.MaxInt64, nil
	}
	return int64(u), nil
}

// int64ToBusID is int64ToBusId: "%04lx:%02lx:%02lx.%01lx".
func int64ToBusID(id int64) string {
	return fmt.Sprintf("%04x:%02x:%02x.%01x", id>>20, (id&0xff000)>>12, (id&0xff0)>>4, id&0xf)
}

// f32 rounds a value to float32, the C float every bandwidth is stored in.
// Conversions are explicit so Go never keeps extra precision or fuses a
// multiply-add where C rounds after each operation.
func f32(x float64) float32 { return float32(x) }

// subRound is SUB_ROUND(a, b): a = roundf((a-b)*1000)/1000, in float
// (v2.28.9-1 src/graph/search.cc). It exists because float subtraction
// leaves residues that would make a later comparison fail.
func subRound(a, b float32) float32 {
	d := float32(a - b)
	m := float64(float32(d * 1000))
	// roundf: half away from zero. m has at most 24 significant bits, so
	// m ± 0.5 is exact in float64 and truncation is floor/ceil.
	var r float64
	if m >= 0 {
		r = float64(int64(m + 0.5))
	} else {
		r = -float64(int64(-m + 0.5))
	}
	return float32(float32(r) / 1000)
}

// Pow2Up and Pow2Down are NCCL's pow2Up and pow2Down (src/include/utils.h):
// the nearest power of two at or above (at or below) x.
func Pow2Up(x int) int {
	y := 1
	for y < x {
		y <<= 1
	}
	return y
}

func Pow2Down(x int) int {
	if x <= 0 {
		return 0
	}
	y := 1
	for y*2 <= x {
		y <<= 1
	}
	return y
}
