package spec

// The tuning model is package tuning (spec/tuning). The names below keep
// its old spelling in spec, so that the release files' tuning deltas, the
// gate engine and the packages above build unchanged: aliases, not copies.

import "github.com/gatesim/gatesim/spec/tuning"

type (
	TuningHw           = tuning.Hw
	TuningCompCap      = tuning.CompCap
	TuningScale        = tuning.Scale
	Tuning             = tuning.Consts
	TuningChange       = tuning.Change
	CBDPart            = tuning.CBDPart
	EnableMatrix       = tuning.EnableMatrix
	OpChoice           = tuning.OpChoice
	SymKernel          = tuning.SymKernel
	TunerBehaviour     = tuning.TunerBehaviour
	TunerRule          = tuning.TunerRule
	TuningCPUArch      = tuning.CPUArch
	TuningCPUVendor    = tuning.CPUVendor
	TuningConstantEdit = tuning.ConstantEdit
	TuningInput        = tuning.Input
	TuningModel        = tuning.Model
	TuningOp           = tuning.Call
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
	NumTuningCompCaps      = tuning.NumCompCaps
	TuningN1               = tuning.N1
	TuningN2               = tuning.N2
	TuningN4               = tuning.N4
	NumTuningScales        = tuning.NumScales
	TuningNVLSBwEfficiency = tuning.NVLSBwEfficiency
	TuningNVLSBwGraph      = tuning.NVLSBwGraph
	TuningCollNetAGRSMin   = tuning.CollNetAGRSMin
	TuningCollNetAGRSNone  = tuning.CollNetAGRSNone
	TuningLL128C2C         = tuning.LL128C2C
	TuningLL128C2CMixed    = tuning.LL128C2CMixed
	TuningLL128R18         = tuning.LL128R18
	TuningNVLSPruneArity   = tuning.NVLSPruneArity
	TuningNoAlgoR24        = tuning.NoAlgoR24
	TuningNoAlgoR30        = tuning.NoAlgoR30
	TuningOpLineR23        = tuning.OpLineR23
	TuningOpLineR24        = tuning.OpLineR24
	TuningOpLineTrace      = tuning.OpLineTrace
	TuningScheduleR18      = tuning.ScheduleR18
	TuningScheduleR20      = tuning.ScheduleR20
	TuningTreeCorrections  = tuning.TreeCorrections
	TuningArchARM          = tuning.ArchARM
	TuningArchMixed        = tuning.ArchMixed
	TuningArchPower        = tuning.ArchPower
	TuningArchX86          = tuning.ArchX86
	TuningCostBackup       = tuning.CostBackup
	TuningCostOK           = tuning.CostOK
	TuningCostP8           = tuning.CostP8
	TuningCostTuner        = tuning.CostTuner
	TuningIgnore           = tuning.Ignore
	TuningRuleBwNVLS       = tuning.RuleBwNVLS
	TuningRuleCTAPolicy    = tuning.RuleCTAPolicy
	TuningRuleEnable       = tuning.RuleEnable
	TuningRuleImpl         = tuning.RuleImpl
	TuningRulePAT          = tuning.RulePAT
	TuningRuleProto        = tuning.RuleProto
	TuningRuleSelBackup    = tuning.RuleSelBackup
	TuningRuleSelErr       = tuning.RuleSelErr
	TuningRuleSelPick      = tuning.RuleSelPick
	TuningRuleSelPrune     = tuning.RuleSelPrune
	TuningRuleTunerCall    = tuning.RuleTunerCall
	TuningVendorAMD        = tuning.VendorAMD
	TuningVendorIntel      = tuning.VendorIntel
	TuningVendorMixed      = tuning.VendorMixed
	TuningVendorOther      = tuning.VendorOther
)

var (
	BuildTuningModel            = tuning.BuildModel
	ChooseGroup                 = tuning.ChooseGroup
	ChooseOp                    = tuning.ChooseOp
	CollPartition               = tuning.CollPartition
	DefaultEnable               = tuning.DefaultEnable
	TuningDiff                  = tuning.Diff
	TuningGraphs                = tuning.Graphs
	TuningParseThreadThresholds = tuning.ParseThreadThresholds
)

// TuningCPUOf maps spec.CPU's strings to NCCL's codes (tuning.CPUOf).
func TuningCPUOf(c CPU) (TuningCPUArch, TuningCPUVendor) {
	return tuning.CPUOf(c.Arch, c.Vendor)
}
