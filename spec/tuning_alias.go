package spec

// The tuning model is package tuning (spec/tuning). The names below keep
// its old spelling in spec for the release files' tuning deltas only
// (thirty files, written against these names). Aliases, not copies; every
// other caller, the selection files and algos included, names package
// tuning.

import "github.com/gatesim/gatesim/spec/tuning"

type (
	Tuning       = tuning.Consts
	TuningChange = tuning.Change
)

const (
	TuningHwNVLink         = tuning.HwNVLink
	TuningHwPCI            = tuning.HwPCI
	TuningHwNet            = tuning.HwNet
	NumTuningHw            = tuning.NumHw
	TuningVolta            = tuning.Volta
	TuningAmpere           = tuning.Ampere
	TuningHopper           = tuning.Hopper
	TuningBlackwell        = tuning.Blackwell
	TuningN1               = tuning.N1
	TuningN2               = tuning.N2
	TuningN4               = tuning.N4
	TuningNVLSBwEfficiency = tuning.NVLSBwEfficiency
	TuningNVLSBwGraph      = tuning.NVLSBwGraph
	TuningCollNetAGRSMin   = tuning.CollNetAGRSMin
	TuningCollNetAGRSNone  = tuning.CollNetAGRSNone
	TuningLL128C2C         = tuning.LL128C2C
	TuningLL128C2CMixed    = tuning.LL128C2CMixed
	TuningLL128R18         = tuning.LL128R18
	TuningLL128R25         = tuning.LL128R25
	TuningLL128C2CPXN      = tuning.LL128C2CPXN
	TuningNVLSPruneArity   = tuning.NVLSPruneArity
	TuningNVLSPruneR20     = tuning.NVLSPruneR20
	TuningNVLSPruneR22     = tuning.NVLSPruneR22
	TuningNoAlgoR24        = tuning.NoAlgoR24
	TuningNoAlgoR30        = tuning.NoAlgoR30
	TuningOpLineR23        = tuning.OpLineR23
	TuningOpLineR24        = tuning.OpLineR24
	TuningOpLineTrace      = tuning.OpLineTrace
	TuningScheduleR18      = tuning.ScheduleR18
	TuningScheduleR20      = tuning.ScheduleR20
	TuningRegNVLSCompCap   = tuning.RegNVLSCompCap
	TuningRegNVLSHeads     = tuning.RegNVLSHeads
	TuningRegNVLSPool      = tuning.RegNVLSPool
	TuningRegNVLSCTAs      = tuning.RegNVLSCTAs
	TuningRegNVLSNone      = tuning.RegNVLSNone
	TuningRegCollNetOne    = tuning.RegCollNetOne
	TuningRegCollNetNone   = tuning.RegCollNetNone
	TuningRegNetRingOne    = tuning.RegNetRingOne
	TuningRegNetRingNICs   = tuning.RegNetRingNICs
	TuningSymGinHier       = tuning.SymGinHier
	TuningSymGinRail       = tuning.SymGinRail
)

// The registration facts of G-REG-COLLNET-1 and G-REG-PROXY-1.
const (
	TuningRegCollNetRanksAGRS = tuning.RegCollNetRanksAGRS
	TuningRegCollNetRanksAG   = tuning.RegCollNetRanksAG
	TuningRegCollNetIPCNotRS  = tuning.RegCollNetIPCNotRS
	TuningRegCollNetIPCAG     = tuning.RegCollNetIPCAG
	ProxyRegNone              = tuning.ProxyRegNone
	ProxyRegNet               = tuning.ProxyRegNet
)

// Which windows carry a ncclCommRegister record (G-REG-IPC-1).
const (
	TuningRegWindowRecordCuMem     = tuning.RegWindowRecordCuMem
	TuningRegWindowRecordAll       = tuning.RegWindowRecordAll
	TuningRegWindowRecordSymmetric = tuning.RegWindowRecordSymmetric
)
