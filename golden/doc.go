// Package golden holds gatesim's recorded truth and the tests that replay
// it: scenario files (datadriven: a directive naming the machine, releases
// and collective, the NCCL_* variables as input, the expected outcome for
// every modelled release, merged into release ranges where releases agree),
// captured NCCL logs and dumps from real GPUs with their provenance, and
// conformance vectors (JSON lines of oracle requests and answers) that other
// implementations can replay.
//
// It is a test-only package: `go test ./golden -update` rewrites the
// expected outputs from the current model, and the diff is the review.
package golden
