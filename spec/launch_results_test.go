package spec

import (
	"slices"
	"testing"
)

// TestLaunchResults: a decided operation's error is returned where NCCL
// returns it. A call's own failure (taskAppend, ArgsCheck) by the call and
// by the ncclGroupEndInternal that launches it; a launch failure
// (Call "ncclGroupEnd") by the launching call alone; a nonblocking
// communicator's ncclInProgress stands.
func TestLaunchResults(t *testing.T) {
	script := "init a\nallreduce a 1MiB\ngroupStart\nallreduce a 1MiB\nallgather a 1MiB\ngroupEnd\n"
	calls, err := ParseCalls("t.calls", []byte(script))
	if err != nil {
		t.Fatal(err)
	}
	res, _, err := CheckGroup(MustLoad(DefaultRelease), calls)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if r.Result != Success && r.Result != InProgress {
			t.Fatalf("line %d: %s before any decision", calls[i].Line, r.Result)
		}
	}
	before := slices.Clone(res)
	launch := &NCCLError{Result: InvalidUsage, Message: "no algorithm/protocol available", Call: "ncclGroupEnd"}
	own := &NCCLError{Result: InvalidArgument, Message: "bad argument", Call: "ncclAllGather"}
	for _, tc := range []struct {
		name string
		dec  map[int]*Decision
		want map[int]Result // call index -> result; every other call as CheckGroup said
	}{
		{"nothing fails", map[int]*Decision{1: {}, 3: {}, 4: {}}, nil},
		{"launch failure outside a group", map[int]*Decision{1: {Err: launch}}, map[int]Result{1: InvalidUsage}},
		{"launch failure in a group: the group end", map[int]*Decision{3: {Err: launch}}, map[int]Result{5: InvalidUsage}},
		{"own failure in a group: the call and the group end", map[int]*Decision{4: {Err: own}}, map[int]Result{4: InvalidArgument, 5: InvalidArgument}},
		{"the first error wins", map[int]*Decision{3: {Err: launch}, 4: {Err: own}}, map[int]Result{4: InvalidArgument, 5: InvalidUsage}},
	} {
		got := LaunchResults(res, tc.dec)
		for i, r := range got {
			want, ok := tc.want[i]
			if !ok {
				want = res[i].Result
			}
			if r.Result != want {
				t.Errorf("%s: line %d returns %s, want %s", tc.name, calls[i].Line, r.Result, want)
			}
		}
		for i := range res {
			if res[i].Result != before[i].Result || res[i].Effect != before[i].Effect {
				t.Fatalf("%s: LaunchResults changed its input at line %d", tc.name, calls[i].Line)
			}
		}
	}
	// a nonblocking communicator's call returns ncclInProgress; its error
	// comes from ncclCommGetAsyncError
	nb := slices.Clone(res)
	nb[1].Result = InProgress
	if got := LaunchResults(nb, map[int]*Decision{1: {Err: launch}}); got[1].Result != InProgress {
		t.Errorf("nonblocking: line 2 returns %s, want ncclInProgress", got[1].Result)
	}
}
