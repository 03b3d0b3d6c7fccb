package spec

import (
	"strings"
	"testing"
)

// One group limit, one wording: --agg, a script's group, a Launch's agg
// and an oracle group all say it as CheckGroupSize does.
func TestCheckGroupSize(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{1, ""},
		{MaxGroupOps, ""},
		{0, "0 operations in one group: expected 1..4096"},
		{MaxGroupOps + 1, "4097 operations in one group: expected 1..4096"},
	} {
		err := CheckGroupSize(tc.n)
		if got := errString(err); got != tc.want {
			t.Errorf("CheckGroupSize(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	ops := []GroupOp{{Op: Op{Func: AllReduce, Count: 1, DataType: Float32, RedOp: Sum}}, {Op: Op{Func: AllReduce, Count: 1, DataType: Float32, RedOp: Sum}}}
	for _, tc := range []struct {
		agg  int
		want string
	}{
		{MaxGroupOps / 2, ""},
		{MaxGroupOps/2 + 1, "group of 2 operations × agg 2049: 4098 operations in one group: expected 1..4096"},
		{MaxGroupOps + 1, "agg: 4097 operations in one group: expected 1..4096"},
	} {
		_, err := Launch{Agg: tc.agg}.Expand(ops)
		if got := errString(err); got != tc.want {
			t.Errorf("Expand agg %d = %q, want %q", tc.agg, got, tc.want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Every error of a call script names its file and line: the group limit
// (checked per communicator in the outermost group) and inplace, a word.
func TestParseCallsNamesFileAndLine(t *testing.T) {
	group := func(n int, comm ...string) string {
		var b strings.Builder
		b.WriteString("init c0\ninit c1\ngroupStart\n")
		for i := range n {
			b.WriteString("allreduce " + comm[i%len(comm)] + " 1KiB\n")
		}
		b.WriteString("groupEnd\n")
		return b.String()
	}
	for _, tc := range []struct {
		name, script, want string
	}{
		{"at the limit", group(MaxGroupOps, "c0"), ""},
		{"over the limit", group(MaxGroupOps+1, "c0"), "gb.txt:4100: group on c0: 4097 operations in one group: expected 1..4096"},
		{"two communicators under it each", group(MaxGroupOps+2, "c0", "c1"), ""},
		{"two groups under it each", group(MaxGroupOps, "c0") + group(MaxGroupOps, "c0"), ""},
		{"inplace", "init c0\nallreduce c0 1MiB inplace\n", ""},
		{"inplace=1", "init c0\nallreduce c0 1MiB inplace=1\n", `gb.txt:2: "inplace=1": expected inplace, a word without a value`},
		{"inplace=true", "init c0\nallreduce c0 1MiB inplace=true\n", `gb.txt:2: "inplace=true": expected inplace, a word without a value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls, err := ParseCalls("gb.txt", []byte(tc.script))
			got := errString(err)
			if tc.want == "" && err != nil || !strings.HasPrefix(got, tc.want) {
				t.Fatalf("got %q, want prefix %q", got, tc.want)
			}
			if tc.name == "inplace" && !calls[1].InPlace {
				t.Fatalf("inplace not set: %+v", calls[1])
			}
		})
	}
}

// A command that decides for one release refuses several in one wording,
// repeated or comma separated.
func TestOneRelease(t *testing.T) {
	for _, tc := range []struct {
		list []string
		want string
	}{
		{[]string{"2.28.9"}, ""},
		{[]string{"2.22.3,2.28.9"}, "--nccl takes one release (got 2.22.3,2.28.9); use whatif/table for several"},
		{[]string{"2.22.3", "2.28.9"}, "--nccl takes one release (got 2.22.3,2.28.9); use whatif/table for several"},
		{[]string{"2.28.9", "2.28.9"}, "--nccl takes one release (got 2.28.9,2.28.9); use whatif/table for several"},
		{[]string{"x"}, "version"},
	} {
		v, err := OneRelease(tc.list...)
		got := errString(err)
		if tc.want == "" && (err != nil || v != V2_28_9) || tc.want != "" && !strings.Contains(got, tc.want) {
			t.Errorf("OneRelease(%q) = %v, %q; want %q", tc.list, v, got, tc.want)
		}
	}
}

// OptionalRelease: none named is 0 and no error; otherwise OneRelease.
func TestOptionalRelease(t *testing.T) {
	for _, tc := range []struct {
		list []string
		want Version
		err  string
	}{
		{nil, 0, ""},
		{[]string{""}, 0, ""},
		{[]string{"2.28.9"}, V2_28_9, ""},
		{[]string{"2.22.3,2.28.9"}, 0, "takes one release"},
		{[]string{"2.17.1"}, 0, "2.17.1"},
	} {
		v, err := OptionalRelease(tc.list...)
		if got := errString(err); v != tc.want || tc.err == "" && err != nil || tc.err != "" && !strings.Contains(got, tc.err) {
			t.Errorf("OptionalRelease(%q) = %v, %q; want %v, %q", tc.list, v, got, tc.want, tc.err)
		}
	}
}

func TestDecideAlike(t *testing.T) {
	for _, tc := range []struct {
		rels []string
		want string
	}{
		{[]string{"2.28.9", "2.28.9"}, "2.28.9 and 2.28.9 decide alike on every cell"},
		{[]string{"2.22.3", "2.27.3", "2.28.9"}, "2.22.3, 2.27.3 and 2.28.9 decide alike on every cell"},
	} {
		if got := DecideAlike(tc.rels, "cell"); got != tc.want {
			t.Errorf("DecideAlike(%q) = %q, want %q", tc.rels, got, tc.want)
		}
	}
}

// An operation issued alone names no group in its error; one of a group
// does.
func TestAloneError(t *testing.T) {
	err := opErr(0, "buffers window: no")
	if got := AloneError(err).Error(); got != "buffers window: no" {
		t.Errorf("alone: %q", got)
	}
	if got := AloneError(opErr(3, "x")).Error(); got != "group op 3: x" {
		t.Errorf("op 3: %q", got)
	}
}
