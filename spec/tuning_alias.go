package spec

// The tuning model is package tuning (spec/tuning). The names below keep
// its old spelling in spec, so that the release files' tuning deltas, the
// gate engine and the packages above build unchanged: aliases, not copies.

import "github.com/gatesim/gatesim/spec/tuning"

type (
	TuningHw           = tuning.TuningHw
	TuningCompCap      = tuning.TuningCompCap
	TuningScale        = tuning.TuningScale
	TuningNVLSBw       = tuning.TuningNVLSBw
	TuningCollNetAGRS  = tuning.TuningCollNetAGRS
	TuningLL128Rule    = tuning.TuningLL128Rule
	TuningNVLSPrune    = tuning.TuningNVLSPrune
	TuningNoAlgo       = tuning.TuningNoAlgo
	TuningOpLine       = tuning.TuningOpLine
	Tuning             = tuning.Tuning
	TuningChange       = tuning.TuningChange
	CBDPart            = tuning.CBDPart
	EnableMatrix       = tuning.EnableMatrix
	OpChoice           = tuning.OpChoice
	SymKernel          = tuning.SymKernel
	TunerBehaviour     = tuning.TunerBehaviour
	TunerRule          = tuning.TunerRule
	TuningCPUArch      = tuning.TuningCPUArch
	TuningCPUVendor    = tuning.TuningCPUVendor
	TuningConstantEdit = tuning.TuningConstantEdit
	TuningInput        = tuning.TuningInput
	TuningModel        = tuning.TuningModel
	TuningOp           = tuning.TuningOp
)

const (
	TuningHwNVLink                = tuning.TuningHwNVLink
	TuningHwPCI                   = tuning.TuningHwPCI
	TuningHwNet                   = tuning.TuningHwNet
	NumTuningHw                   = tuning.NumTuningHw
	TuningVolta                   = tuning.TuningVolta
	TuningAmpere                  = tuning.TuningAmpere
	TuningHopper                  = tuning.TuningHopper
	TuningBlackwell               = tuning.TuningBlackwell
	NumTuningCompCaps             = tuning.NumTuningCompCaps
	TuningN1                      = tuning.TuningN1
	TuningN2                      = tuning.TuningN2
	TuningN4                      = tuning.TuningN4
	NumTuningScales               = tuning.NumTuningScales
	TuningNVLSBwMin               = tuning.TuningNVLSBwMin
	TuningNVLSBwEfficiency        = tuning.TuningNVLSBwEfficiency
	TuningNVLSBwGraph             = tuning.TuningNVLSBwGraph
	TuningCollNetAGRSInterpolated = tuning.TuningCollNetAGRSInterpolated
	TuningCollNetAGRSMin          = tuning.TuningCollNetAGRSMin
	TuningCollNetAGRSNone         = tuning.TuningCollNetAGRSNone
	TuningLL128R22                = tuning.TuningLL128R22
	TuningLL128C2C                = tuning.TuningLL128C2C
	TuningLL128C2CMixed           = tuning.TuningLL128C2CMixed
	TuningLL128R18                = tuning.TuningLL128R18
	TuningNVLSPruneR22            = tuning.TuningNVLSPruneR22
	TuningNVLSPruneArity          = tuning.TuningNVLSPruneArity
	TuningNoAlgoR22               = tuning.TuningNoAlgoR22
	TuningNoAlgoR24               = tuning.TuningNoAlgoR24
	TuningNoAlgoR30               = tuning.TuningNoAlgoR30
	TuningOpLineR22               = tuning.TuningOpLineR22
	TuningOpLineR23               = tuning.TuningOpLineR23
	TuningOpLineR24               = tuning.TuningOpLineR24
	TuningOpLineTrace             = tuning.TuningOpLineTrace
	TuningTreeCorrections         = tuning.TuningTreeCorrections
	SymAllGatherLL                = tuning.SymAllGatherLL
	SymAllGatherST                = tuning.SymAllGatherST
	SymAllReduceRSxLDAGxST        = tuning.SymAllReduceRSxLDAGxST
	TuningArchARM                 = tuning.TuningArchARM
	TuningArchMixed               = tuning.TuningArchMixed
	TuningArchPower               = tuning.TuningArchPower
	TuningArchX86                 = tuning.TuningArchX86
	TuningCostBackup              = tuning.TuningCostBackup
	TuningCostOK                  = tuning.TuningCostOK
	TuningCostP8                  = tuning.TuningCostP8
	TuningCostTuner               = tuning.TuningCostTuner
	TuningIgnore                  = tuning.TuningIgnore
	TuningRuleBwNVLS              = tuning.TuningRuleBwNVLS
	TuningRuleCTAPolicy           = tuning.TuningRuleCTAPolicy
	TuningRuleEnable              = tuning.TuningRuleEnable
	TuningRuleImpl                = tuning.TuningRuleImpl
	TuningRulePAT                 = tuning.TuningRulePAT
	TuningRuleProto               = tuning.TuningRuleProto
	TuningRuleSelBackup           = tuning.TuningRuleSelBackup
	TuningRuleSelErr              = tuning.TuningRuleSelErr
	TuningRuleSelPick             = tuning.TuningRuleSelPick
	TuningRuleSelPrune            = tuning.TuningRuleSelPrune
	TuningRuleTunerCall           = tuning.TuningRuleTunerCall
	TuningVendorAMD               = tuning.TuningVendorAMD
	TuningVendorIntel             = tuning.TuningVendorIntel
	TuningVendorMixed             = tuning.TuningVendorMixed
	TuningVendorOther             = tuning.TuningVendorOther
)

var (
	BuildTuningModel            = tuning.BuildTuningModel
	ChooseGroup                 = tuning.ChooseGroup
	ChooseOp                    = tuning.ChooseOp
	CollPartition               = tuning.CollPartition
	DefaultEnable               = tuning.DefaultEnable
	TuningDiff                  = tuning.TuningDiff
	TuningGraphs                = tuning.TuningGraphs
	TuningParseThreadThresholds = tuning.TuningParseThreadThresholds
)

// TuningCPUOf maps spec.CPU's strings to NCCL's codes (tuning.TuningCPUOf).
func TuningCPUOf(c CPU) (TuningCPUArch, TuningCPUVendor) {
	return tuning.TuningCPUOf(c.Arch, c.Vendor)
}

// tuningB2i is 1 for true, 0 for false: an index by a switch.
func tuningB2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
