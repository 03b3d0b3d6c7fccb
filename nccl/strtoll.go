package nccl

import (
	"math"
	"strings"
)

// IntParse is the result of C's strtoll on a string, as glibc computes it.
type IntParse struct {
	Value int64
	// Used is how many bytes strtoll consumed (endptr - str). 0 means no
	// conversion was performed (no digits), and Value is 0.
	Used int
	// Range is errno == ERANGE: the number did not fit and Value is
	// LLONG_MAX or LLONG_MIN.
	Range bool
}

// Digits reports whether strtoll converted any digits.
func (p IntParse) Digits() bool { return p.Used > 0 }

// cSpace is isspace() in the C locale.
func cSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func digitVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

// Strtoll is glibc's strtoll(s, &end, base) for base 0, 8, 10 or 16, in the
// classic (pre-C23) form that every NCCL release modelled here was built
// against: leading C-locale white space, an optional sign, "0x"/"0X" (base
// 0 or 16) only when a hex digit follows, a leading 0 meaning octal for base
// 0, digits until the first that does not belong to the base (trailing
// garbage is ignored), ERANGE with LLONG_MAX/LLONG_MIN on overflow, and no
// error at all when there are no digits (value 0, nothing consumed). A NUL
// byte ends the string, as it does in C. Verified against glibc 2.36
// (testdata/strtoll_glibc.tsv).
func Strtoll(s string, base int) IntParse {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	i := 0
	for i < len(s) && cSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	if (base == 0 || base == 16) && i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') {
		if i+2 < len(s) && digitVal(s[i+2]) < 16 {
			i += 2
			base = 16
		} else {
			// "0x" without a hex digit: only the 0 converts
			return IntParse{Value: 0, Used: i + 1}
		}
	}
	if base == 0 {
		if i < len(s) && s[i] == '0' {
			base = 8
		} else {
			base = 10
		}
	}
	start := i
	// accumulate as a magnitude in uint64 so LLONG_MIN is exact
	var mag uint64
	overflow := false
	limit := uint64(math.MaxInt64)
	if neg {
		limit = uint64(math.MaxInt64) + 1
	}
	for i < len(s) {
		d := digitVal(s[i])
		if d >= base {
			break
		}
		if !overflow {
			if mag > (limit-uint64(d))/uint64(base) {
				overflow = true
			} else {
				mag = mag*uint64(base) + uint64(d)
			}
		}
		i++
	}
	if i == start {
		return IntParse{}
	}
	if overflow {
		if neg {
			return IntParse{Value: math.MinInt64, Used: i, Range: true}
		}
		return IntParse{Value: math.MaxInt64, Used: i, Range: true}
	}
	if neg {
		return IntParse{Value: int64(-mag), Used: i} // -(2^63) wraps to MinInt64 exactly
	}
	return IntParse{Value: int64(mag), Used: i}
}

// Atoi is glibc's atoi: (int)strtol(s, NULL, 10), with the narrowing to a
// 32-bit int that the cast performs (modulo 2^32, as GCC does).
func Atoi(s string) int32 { return int32(Strtoll(s, 10).Value) }
