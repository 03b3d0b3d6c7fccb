package sim

import "fmt"

// GroupOpTime is the time nccl-tests reports per operation of a group of
// n operations (-m n) that NCCL planned together: the ops run at once in
// the group's kernels, each on the channel range the plan gave it, so the
// group lasts its launch and its longest operation. times are the
// operations' simulated times, each on its own channels and each with the
// launch cost the timing charged it (launches); the result is the first
// operation's launch share plus the longest time after launch over n. The
// model gives each operation its channels' links to itself: operations of
// a group that share a link are not slowed by each other.
func GroupOpTime(times, launches []Time, n int) (Time, error) {
	if len(times) == 0 || len(times) != len(launches) || n < 1 {
		return 0, fmt.Errorf("group time: %d times, %d launch costs, %d operations: expected one launch per time and at least one operation", len(times), len(launches), n)
	}
	var longest Time
	for i, t := range times {
		longest = max(longest, t-launches[i])
	}
	return launches[0] + longest/Time(n), nil
}
