// Package tuning is NCCL's performance model and per-operation choice inside
// gatesim: the constants and switches of each release's src/graph/tuning.cc
// (Consts), ncclTopoTuneModel's bandwidth, latency and thread tables
// (BuildModel, Model), and what src/enqueue.cc does with them for every
// collective of a group: the cost table with its pruning and the tuner hook,
// the argmin, channels and threads, the sorter, aggregation and channel
// packing of scheduleCollTasksToPlan, the symmetric kernels and copy-engine
// paths, and the [TUNING] lines NCCL prints (ChooseOp, ChooseGroup, OpChoice).
//
// Place in the data flow of DESIGN.md, between the graph search and the
// schedule: spec/topo's searched graphs and spec's gate engine (the
// communicator's facts, the parsed NCCL_* values, the per-operation support
// bits) fill an Input → BuildModel → Model; a Call per collective →
// ChooseOp / ChooseGroup → OpChoice, which spec copies into its Decision and
// algos and sim schedule and time. spec consumes this package, never the
// reverse: it imports only NCCL's vocabulary (nccl, named as nccl.Ring:
// spec/vocab.go is the one list of re-exported names) and spec/topo
// (internal/deptest holds that).
//
// Releases are values: Base2_22_3 is the reference; every other release is
// a delta of one-cell lines in spec's release files, each recorded through
// Set with its path, old and new value and NCCL source reference. The model
// reads the switches of Consts, never a version number. spec.Load(v).Tuning
// is a release's Consts and the "tuning." entries of its Changes are its
// delta; spec keeps the older Tuning* names of this package as aliases
// (spec/tuning_alias.go) for the release files.
//
// The tests here run the model on the constants spec.Load builds for each
// release (release_test.go hands them over: package tuning cannot import
// spec), and check every release's tables against NCCL's source at its tag
// (testdata/constants).
//
// Usage:
//
//	tu := spec.MustLoad(spec.V2_28_9).Tuning
//	m, err := tuning.BuildModel(in, tu)         // in: the communicator (Input)
//	m.TableLines()                              // the rank-0 [TUNING] table
//	c, err := tuning.ChooseOp(m, tuning.Call{Op: op, CollNetOK: cn, NVLSOK: nv})
//	c.Algo, c.Proto, c.NChannels, c.Line        // or c.Err, NCCL's error
//
// error is for input NCCL could not have produced; what NCCL refuses is a
// result (a zero cell with its rule, OpChoice.Err). Pure: no I/O, no
// clocks, no globals.
package tuning
