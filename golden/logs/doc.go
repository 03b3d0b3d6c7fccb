// Package logs holds the golden tests of gatesim diagnose on real NCCL logs.
//
// Place in DESIGN.md's data flow: recorded truth for the observe side.
// testdata/logs/public/<case>/ keeps a few lines of a log posted in a public
// issue thread (or a log.ref naming the excerpt testdata/public already
// keeps), a README.md with the thread's URL, what the thread
// established and the expected answer, an expect file of machine-checked
// assertions (the answer, independent of the golden text) and
// diagnose.golden, the report (rewritten with go test -update). Every
// directory of logs under testdata/captured/ (the project's own GPU
// captures) is diagnosed too, its report kept under
// testdata/logs/captured/<same path>/diagnose.golden.
//
// The package has no non-test code beyond this comment: it exists so that
// go test ./golden/... -update rewrites its goldens.
package logs
