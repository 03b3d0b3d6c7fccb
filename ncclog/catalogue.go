package ncclog

import (
	"regexp"
	"strings"

	"github.com/gatesim/gatesim/spec"
)

// Kind is a recognised message kind. Several Forms (one per release range or
// wording) map to one Kind; the parser handles a Kind, not a Form.
type Kind uint8

const (
	KindUnknown Kind = iota
	KindVersion
	KindGitVersion
	KindCudaDriver
	KindEnv
	KindEnvInvalid
	KindEnvConfigReset
	KindCollNetEnableInvalid
	KindPluginNotFound
	KindPluginLoadError
	KindPluginNameEnv
	KindPluginSymbolMissing
	KindPluginNoSymbol
	KindPluginLoaded
	KindCollNetLoaded
	KindCollNetSymbolMissing
	KindCollNetNoSymbol
	KindPluginUnsupported
	KindPluginSuccess
	KindPluginInitialized
	KindPluginInitFailed
	KindPluginAssigned
	KindPluginDisabling
	KindNetAnyFail
	KindNetNotFound
	KindUsingNetwork
	KindNetDeviceHost
	KindNetDeviceUnpack
	KindPluginPath
	KindP2PPlugin
	KindOFIProvider
	KindOFI
	KindIBNoDevice
	KindIBUsing
	KindIBNoIP
	KindIBDataError
	KindVerbsMissing
	KindSocketUsing
	KindSocketNoIf
	KindGDRHCA
	KindGDRGPU
	KindTransport
	KindCollNetConn
	KindCollNetConnected
	KindCollNetChains
	KindCollNetThreshold
	KindCollNetArity
	KindCollNetInitFail
	KindCollNetAlgoIgnored
	KindCollNetChild
	KindNetDevices
	KindVNicMade
	KindIBVirtualDevice
	KindNVLSSupport
	KindNVLSComm
	KindNVLSBindSoft
	KindNVLSBindFail
	KindNVLSRegFail
	KindRegistered
	KindRegFailed
	KindNVLSTreeConnected
	KindNVLSTrees
	KindNVLSTuning
	KindNVLSGroup
	KindNVLSNoNIC
	KindChannels
	KindP2PMaxPeers
	KindP2PType
	KindRingOrder
	KindRing
	KindTrees
	KindGraph
	KindConnectedRings
	KindConnectedTrees
	KindCommInfo
	KindMNNVL
	KindMNNVLCrossClique
	KindMNNVLFabric
	KindInitStart
	KindInitComplete
	KindBootstrap
	KindTuningHeaderOld
	KindTuningAlgorithm
	KindTuningProtocol
	KindTuningThreads
	KindTuningRow
	KindTuning24
	KindThreadThresholds
	KindAlgoMatrix
	KindOpChoice
	KindOpChoiceNum
	KindOpSymmetric
	KindCollCall
	KindNoAlgo
	KindAlgoParseError
	KindErrTrace
	KindCudaFailure
	KindTunerUsing
	KindTunerNotFound
	KindProfilerNotFound
	KindFrameworkError
	KindResultName
	KindLastError
	KindPluginOpenError
	KindWarn
	KindCCStatus
	KindInitTimings
	KindEnvTooLow
	KindNVLSMultiRank
	KindMLOPart
	KindTunerOpened
	KindTunerOpenError
	KindGinAnyFail
	KindRmaAnyFail
	KindEnvConfigSet
	KindGinAssigned
	KindRmaAssigned
	KindEnvConfigCheck
	KindDupGPU
	KindIBPlane
	KindGinDisabled
	KindDoubleFree
	numKinds
)

// Form is one message form NCCL (or a plugin NCCL loads) prints: the
// format string as in the source, the release range it exists in and the
// function that prints it. The regular expression is matched against the
// message after the prefix (Line.Msg), anchored at its start.
type Form struct {
	Kind Kind
	// ID is a stable name used in output and tests ("net.plugin.loaded").
	ID string
	// Format is the format string as the source prints it.
	Format string
	// Since and Until bound the releases that print this form (tags found
	// by searching NVIDIA/nccl at every release tag); Until 0 means it is
	// still printed by v2.30.7. Forms printed by a plugin have no range.
	Since, Until spec.Version
	Ref          spec.Ref
	// Bare allows matching a line that lost its prefix.
	Bare bool
	// Example is a real message of this form (tests match it).
	Example string

	lit string // a literal the message must contain (cheap pre-filter)
	re  *regexp.Regexp
}

func v(ma, mi, pa int) spec.Version { return spec.MakeVersion(ma, mi, pa) }

func ref(tag, file, fn string) spec.Ref { return spec.Ref{Tag: tag, File: file, Func: fn} }

const (
	t2289 = "v2.28.9-1"
	t2230 = "v2.30.7-1"
)

// Catalogue lists every recognised form, in match order: when two forms
// could match a message the earlier one wins (specific before generic).
// It is an immutable table; the compiled expressions are never modified.
var Catalogue = []Form{
	// --- version and driver
	{Kind: KindVersion, ID: "version", Format: `"NCCL version " NCCL_MAJOR.NCCL_MINOR.NCCL_PATCH NCCL_SUFFIX "+cuda" CUDA_MAJOR.CUDA_MINOR`,
		Since: v(2, 4, 2), Ref: ref(t2289, "src/init.cc", "showVersion"), Bare: true,
		Example: "NCCL version 2.28.9+cuda12.9", lit: "NCCL version ", re: rx(`^NCCL version (\S+)`)},
	{Kind: KindGitVersion, ID: "version.git", Format: `NCCL git version %s %s`, Since: v(2, 29, 2),
		Ref: ref(t2230, "src/misc/git_version.cc", "ncclGetGitVersion"), Example: "NCCL git version HEAD 0a1b2c3",
		lit: "NCCL git version", re: rx(`^NCCL git version (\S+) (\S+)`)},
	{Kind: KindCudaDriver, ID: "cuda.driver", Format: `cudaDriverVersion %d`, Since: v(2, 13, 4),
		Ref: ref(t2289, "src/misc/cudawrap.cc", "ncclCudaLibraryInit"), Example: "cudaDriverVersion 12020",
		lit: "cudaDriverVersion ", re: rx(`^cudaDriverVersion (\d+)`)},

	// --- environment
	{Kind: KindEnv, ID: "env.set", Format: `%s set by environment to %lld.` + " | " + `NCCL_X set by environment to %s`,
		Since: v(2, 4, 2), Ref: ref(t2289, "src/misc/param.cc", "ncclLoadParam"), Bare: true,
		Example: "NCCL_IB_DISABLE set by environment to 1.", lit: " set by environment to ",
		re: rx(`^(NCCL_[A-Z0-9_]+) set by environment to (.*)$`)},
	{Kind: KindEnv, ID: "env.set.to", Format: `NCCL_IB_HCA set to %s`, Since: v(2, 7, 3),
		Ref: ref(t2289, "src/transport/net_ib.cc", "ncclIbInitDevices"), Bare: true,
		Example: "NCCL_IB_HCA set to mlx5_2:1,mlx5_0:1", lit: " set to ", re: rx(`^(NCCL_[A-Z0-9_]+) set to (.*)$`)},
	{Kind: KindEnv, ID: "env.tuner.set", Format: `TUNER/Plugin: NCCL_TUNER_PLUGIN set to %s`, Since: v(2, 21, 5), Until: v(2, 25, 1),
		Ref:     ref("v2.22.3-1", "src/misc/tuner.cc", "openTunerPluginLib"),
		Example: "TUNER/Plugin: NCCL_TUNER_PLUGIN set to libnccl-tuner-example.so", lit: "TUNER/Plugin: NCCL_",
		re: rx(`^TUNER/Plugin: (NCCL_TUNER_PLUGIN) set to (.*)$`)},
	{Kind: KindEnvInvalid, ID: "env.invalid", Format: `Invalid value %s for %s, using default %lld.`, Since: v(2, 4, 2),
		Ref: ref(t2289, "src/misc/param.cc", "ncclLoadParam"), Bare: true,
		Example: "Invalid value abc for NCCL_NVLS_ENABLE, using default 2.", lit: "Invalid value ",
		re: rx(`^Invalid value (.*) for (NCCL_[A-Z0-9_]+), using default (-?\d+)\.?$`)},
	// parseCommConfig's line for a field the config set, and
	// envConfigOverride's for a variable that overrode a field with a
	// value (G-ENV-CONFIG-1, spec/config_log.go); the reset line names
	// cgaClusterSize's and maxP2pPeers's variables as NCCL_MAX_*.
	{Kind: KindEnvConfigReset, ID: "env.config.reset", Format: `Comm config %s reset to %s=%d` + " | " + `Comm config netName reset to NCCL_NET=%s`, Since: v(2, 28, 7),
		Ref:     ref(t2230, "src/init.cc", "envConfigOverride"),
		Example: "Comm config netName reset to NCCL_NET=Socket", lit: "Comm config ",
		re: rx(`^Comm config (\w+) reset to (NCCL_[A-Z0-9_]+)=(.*)$`)},
	{Kind: KindEnvConfigReset, ID: "env.config.reset.graphmixing", Format: `Comm config graphUsageMode reset to %d by NCCL_GRAPH_MIXING_SUPPORT=%d`,
		Since: v(2, 29, 2), Ref: ref(t2230, "src/init.cc", "envConfigOverride"),
		Example: "Comm config graphUsageMode reset to 0 by NCCL_GRAPH_MIXING_SUPPORT=0", lit: "Comm config graphUsageMode reset to ",
		re: rx(`^Comm config (graphUsageMode) reset to -?\d+ by (NCCL_GRAPH_MIXING_SUPPORT)=(-?\d+)$`)},
	{Kind: KindEnvConfigSet, ID: "env.config.set", Format: `Comm config %s set to %d` + " | " + `Comm config %s set to %s`, Since: v(2, 17, 1),
		Ref:     ref(t2230, "src/init.cc", "parseCommConfig"),
		Example: "Comm config Max CTAs set to 4", lit: "Comm config ",
		re: rx(`^Comm config (\w[\w ]*?) set to (.*)$`)},
	{Kind: KindCollNetEnableInvalid, ID: "env.collnet.invalid", Format: `collnetEnable %d is not a valid value 0/1, set it to 0`,
		Since: v(2, 27, 3), Ref: ref(t2289, "src/init.cc", "envConfigOverride"),
		Example: "collnetEnable 2 is not a valid value 0/1, set it to 0", lit: "collnetEnable ",
		re: rx(`^collnetEnable (-?\d+) is not a valid value 0/1, set it to 0$`)},
	// envConfigOverride ignores an NCCL_PARAM of these config fields below
	// its bound and keeps the config value (one form per first release, so
	// the line dates the log).
	{Kind: KindEnvTooLow, ID: "env.toolow.ctas", Format: `NCCL_MIN_CTAS %d is too low, leaving it set at %d` + " | " + `NCCL_MAX_CTAS %d is too low, leaving it set at %d`,
		Since: v(2, 25, 1), Ref: ref("v2.25.1-1", "src/init.cc", "envConfigOverride"),
		Example: "NCCL_MAX_CTAS 0 is too low, leaving it set at -2147483648", lit: " is too low, leaving it set at ",
		re: rx(`^(NCCL_M(?:IN|AX)_CTAS) (-?\d+) is too low, leaving it set at (-?\d+)$`)},
	{Kind: KindEnvTooLow, ID: "env.toolow.netpeer", Format: `NCCL_NCHANNELS_PER_NET_PEER %d is too low, leaving it set at %d`,
		Since: v(2, 28, 3), Ref: ref("v2.28.3-1", "src/init.cc", "envConfigOverride"),
		Example: "NCCL_NCHANNELS_PER_NET_PEER 0 is too low, leaving it set at -2147483648", lit: " is too low, leaving it set at ",
		re: rx(`^(NCCL_NCHANNELS_PER_NET_PEER) (-?\d+) is too low, leaving it set at (-?\d+)$`)},
	{Kind: KindEnvTooLow, ID: "env.toolow.rmactx", Format: `NCCL_NUM_RMA_CTX %d is too low, leaving it set at %d`,
		Since: v(2, 29, 2), Ref: ref("v2.29.2-1", "src/init.cc", "envConfigOverride"),
		Example: "NCCL_NUM_RMA_CTX -1 is too low, leaving it set at -2147483648", lit: " is too low, leaving it set at ",
		re: rx(`^(NCCL_NUM_RMA_CTX) (-?\d+) is too low, leaving it set at (-?\d+)$`)},
	{Kind: KindEnvTooLow, ID: "env.toolow.p2ppeers", Format: `NCCL_MAX_P2P_PEERS %d is too low, leaving it set at %d`,
		Since: v(2, 30, 3), Ref: ref("v2.30.3-1", "src/init.cc", "envConfigOverride"),
		Example: "NCCL_MAX_P2P_PEERS 0 is too low, leaving it set at -2147483648", lit: " is too low, leaving it set at ",
		re: rx(`^(NCCL_MAX_P2P_PEERS) (-?\d+) is too low, leaving it set at (-?\d+)$`)},

	// envConfigOverride's other lines (G-ENV-CONFIG-1, spec/config_log.go):
	// a 0/1 variable it does not take, NCCL_CGA_CLUSTER_SIZE above 8, RMA
	// off, and its checks of the result. The first group names the
	// variable, the second the field.
	{Kind: KindEnvConfigCheck, ID: "env.config.notvalid", Format: `%s %d is not valid, leaving it set at %d`,
		Since: v(2, 28, 3), Ref: ref("v2.28.3-1", "src/init.cc", "envConfigOverride"),
		Example: "NCCL_NVLINK_UTIL_CENTRIC_SCHED_ENABLE 2 is not valid, leaving it set at 0", lit: " is not valid, leaving it set at ",
		re: rx(`^(NCCL_[A-Z0-9_]+) (-?\d+) is not valid, leaving it set at (-?\d+)$`)},
	{Kind: KindEnvConfigCheck, ID: "env.config.cga.toobig", Format: `NCCL_CGA_CLUSTER_SIZE value %d is too big. Limiting value to %d.`,
		Since: v(2, 18, 1), Ref: ref("v2.18.1-1", "src/init.cc", "envConfigOverride"),
		Example: "NCCL_CGA_CLUSTER_SIZE value 9 is too big. Limiting value to 8.", lit: "NCCL_CGA_CLUSTER_SIZE value ",
		re: rx(`^(NCCL_CGA_CLUSTER_SIZE) value (-?\d+) is too big\. Limiting value to (\d+)\.$`)},
	{Kind: KindEnvConfigCheck, ID: "env.config.rmaoff", Format: `NCCL_NUM_RMA_CTX=0, RMA disabled for this communicator`,
		Since: v(2, 30, 7), Ref: ref(t2230, "src/init.cc", "envConfigOverride"),
		Example: "NCCL_NUM_RMA_CTX=0, RMA disabled for this communicator", lit: "RMA disabled for this communicator",
		re: rx(`^(NCCL_NUM_RMA_CTX)=(0), RMA disabled for this communicator$`)},
	{Kind: KindEnvConfigCheck, ID: "env.config.cap", Format: `minCTAs %d is larger than #channels upper limit %d, cap it to %d` + " | " +
		`maxCTAs %d is larger than #channels upper limit %d, cap it to %d`, Since: v(2, 18, 1), Ref: ref("v2.18.1-1", "src/init.cc", "envConfigOverride"),
		Example: "maxCTAs 100 is larger than #channels upper limit 64, cap it to 64", lit: " is larger than #channels upper limit ",
		re: rx(`^(m(?:in|ax)CTAs) (-?\d+) is larger than #channels upper limit \d+, cap it to (\d+)$`)},
	{Kind: KindEnvConfigCheck, ID: "env.config.minmax", Format: `minCTAs %d is larger than maxCTAs %d, set both to %d`,
		Since: v(2, 18, 1), Ref: ref("v2.18.1-1", "src/init.cc", "envConfigOverride"),
		Example: "minCTAs 32 is larger than maxCTAs 20, set both to 20", lit: " is larger than maxCTAs ",
		re: rx(`^(minCTAs) (-?\d+) is larger than maxCTAs -?\d+, set both to (-?\d+)$`)},
	{Kind: KindEnvConfigCheck, ID: "env.config.splitshare", Format: `splitShare %d is not a valid value 0/1, set it to 0`,
		Since: v(2, 18, 1), Ref: ref("v2.18.1-1", "src/init.cc", "envConfigOverride"),
		Example: "splitShare 2 is not a valid value 0/1, set it to 0", lit: "splitShare ",
		re: rx(`^(splitShare) (-?\d+) is not a valid value 0/1, set it to (0)$`)},
	{Kind: KindEnvConfigCheck, ID: "env.config.nvlsctas", Format: `nvlsCTAs %d is not a valid value, NCCL will decide the default value automatically`,
		Since: v(2, 27, 3), Ref: ref("v2.27.3-1", "src/init.cc", "envConfigOverride"),
		Example: "nvlsCTAs 0 is not a valid value, NCCL will decide the default value automatically", lit: "nvlsCTAs ",
		re: rx(`^(nvlsCTAs) (-?\d+) is not a valid value, NCCL will decide the default value automatically$`)},
	{Kind: KindEnvConfigCheck, ID: "env.config.ctapolicy", Format: `CTAPolicy %d is not a valid value, set it to %d`,
		Since: v(2, 27, 3), Ref: ref("v2.27.3-1", "src/init.cc", "envConfigOverride"),
		Example: "CTAPolicy 2 is not a valid value, set it to 0", lit: "CTAPolicy ",
		re: rx(`^(CTAPolicy) (-?\d+) is not a valid value, set it to (-?\d+)$`)},
	{Kind: KindEnvConfigCheck, ID: "env.config.ctapolicy.both", Format: `Both NCCL_CTA_POLICY_ZERO and NCCL_CTA_POLICY_EFFICIENCY are set in CTAPolicy (%d). Unsetting POLICY_EFFICIENCY.`,
		Since: v(2, 29, 2), Ref: ref("v2.29.2-1", "src/init.cc", "envConfigOverride"),
		Example: "Both NCCL_CTA_POLICY_ZERO and NCCL_CTA_POLICY_EFFICIENCY are set in CTAPolicy (3). Unsetting POLICY_EFFICIENCY.",
		lit:     "Both NCCL_CTA_POLICY_ZERO and ",
		re:      rx(`^Both NCCL_CTA_POLICY_ZERO and NCCL_CTA_POLICY_EFFICIENCY are set in (CTAPolicy) \((-?\d+)\)\. Unsetting POLICY_EFFICIENCY\.$`)},
	// getEnvCtaPolicyOnce's lines (2.29.2+), at the policy's override:
	// the names it parsed, none it knew, a name or a leading digit it
	// refused (the last two name no variable value: recorded against the
	// field)
	{Kind: KindEnv, ID: "env.ctapolicy.parsed", Format: `Parsed environment variable NCCL_CTA_POLICY=%s to %d`,
		Since: v(2, 29, 2), Ref: ref("v2.29.2-1", "src/init.cc", "getEnvCtaPolicyOnce"),
		Example: "Parsed environment variable NCCL_CTA_POLICY=ZERO|EFFICIENCY to 3", lit: "Parsed environment variable NCCL_",
		re: rx(`^Parsed environment variable (NCCL_CTA_POLICY)=(.*) to -?\d+$`)},
	{Kind: KindEnvConfigCheck, ID: "env.config.ctapolicy.none", Format: `No valid CTA policies found in NCCL_CTA_POLICY=%s.`,
		Since: v(2, 29, 2), Ref: ref("v2.29.2-1", "src/init.cc", "getEnvCtaPolicyOnce"),
		Example: "No valid CTA policies found in NCCL_CTA_POLICY=fast.", lit: "No valid CTA policies found in ",
		re: rx(`^No valid CTA policies found in (NCCL_CTA_POLICY)=(.*)\.$`)},
	{Kind: KindEnvConfigCheck, ID: "env.config.ctapolicy.unknown", Format: `Unknown CTA policy %s passed as environment variable. Ignoring.`,
		Since: v(2, 29, 2), Ref: ref("v2.29.2-1", "src/init.cc", "getEnvCtaPolicyOnce"),
		Example: "Unknown CTA policy fast passed as environment variable. Ignoring.", lit: "Unknown CTA policy ",
		re: rx(`^Unknown CTA policy (.*) passed as environment variable\. Ignoring\.$`)},
	{Kind: KindEnvConfigCheck, ID: "env.config.ctapolicy.legacy", Format: `Unknown CTA policy; the legacy usage of NCCL_CTA_POLICY only supports the value of 0 (DEFAULT), 1 (EFFICIENCY), or 2 (ZERO). Using DEFAULT instead.`,
		Since: v(2, 29, 2), Ref: ref("v2.29.2-1", "src/init.cc", "getEnvCtaPolicyOnce"),
		Example: "Unknown CTA policy; the legacy usage of NCCL_CTA_POLICY only supports the value of 0 (DEFAULT), 1 (EFFICIENCY), or 2 (ZERO). Using DEFAULT instead.",
		lit:     "Unknown CTA policy; the legacy usage", re: rx(`^Unknown CTA policy; the legacy usage of NCCL_CTA_POLICY only supports the value of 0 \(DEFAULT\), 1 \(EFFICIENCY\), or 2 \(ZERO\)\. Using DEFAULT instead\.$`)},

	// --- net plugin library (G-NET-LIB-1/2) and ABI (G-NET-ABI-1)
	{Kind: KindPluginNotFound, ID: "net.plugin.notfound", Format: `NET/Plugin : No plugin found (libnccl-net.so).` + " | " +
		`NET/Plugin : No plugin found (%s), using internal implementation`, Since: v(2, 4, 2), Until: v(2, 21, 5),
		Ref: ref("v2.16.5-1", "src/net.cc", "ncclNetPluginInit"), Bare: true,
		Example: "NET/Plugin : No plugin found (libnccl-net.so), using internal implementation", lit: "No plugin found (",
		re: rx(`^NET/Plugin ?: No plugin found \(([^)]*)\)(?:\.|, using internal implementation)?$`)},
	{Kind: KindPluginNotFound, ID: "net.plugin.notfound.218", Format: `NET/Plugin : No plugin found, using internal implementation`,
		Since: v(2, 17, 1), Until: v(2, 18, 6), Ref: ref("v2.18.6-1", "src/net.cc", "ncclNetPluginInit"), Bare: true,
		Example: "NET/Plugin : No plugin found, using internal implementation", lit: "No plugin found, using internal",
		re: rx(`^NET/Plugin ?: No plugin found, using internal implementation$`)},
	{Kind: KindPluginNotFound, ID: "net.plugin.notfound.219", Format: `NET/Plugin : dlerror=%s No plugin found (%s), using internal implementation`,
		Since: v(2, 19, 1), Until: v(2, 20, 5), Ref: ref("v2.20.5-1", "src/net.cc", "ncclNetPluginInit"), Bare: true,
		Example: "NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation",
		lit:     "NET/Plugin : dlerror=", re: rx(`^NET/Plugin : dlerror=(.*) No plugin found \(([^)]*)\), using internal implementation$`)},
	{Kind: KindPluginNotFound, ID: "net.plugin.couldnotfind", Format: `NET/Plugin: Could not find:%s. Using internal network plugin.` +
		" | " + `%s/Plugin: Could not find:%s%s%s`, Since: v(2, 22, 3),
		Ref: ref(t2289, "src/plugin/plugin_open.cc", "openPluginLib"), Bare: true,
		Example: "NET/Plugin: Could not find: libnccl-net.so", lit: "NET/Plugin: Could not find:",
		re: rx(`^NET/Plugin: Could not find:(.*?)(?:\.\s*(?:Using internal (?:network|net) plugin\.)?)?\s*$`)},
	{Kind: KindPluginNotFound, ID: "net.plugin.internal", Format: `NET/Plugin: Using internal network plugin.`,
		Since: v(2, 21, 5), Until: v(2, 25, 1), Ref: ref("v2.22.3-1", "src/net.cc", "ncclNetPluginLoad"), Bare: true,
		Example: "NET/Plugin: Using internal network plugin.", lit: "NET/Plugin: Using internal",
		re: rx(`^NET/Plugin: Using internal network plugin\.?$`)},
	{Kind: KindPluginNotFound, ID: "net.plugin.notfound.221", Format: `NET/Plugin: No plugin found (%s)`,
		Since: v(2, 21, 5), Until: v(2, 21, 5), Ref: ref("v2.21.5-1", "src/net.cc", "tryOpenDynamicLib"), Bare: true,
		Example: "NET/Plugin: No plugin found (libnccl-net.so)", lit: "NET/Plugin: No plugin found (",
		re: rx(`^NET/Plugin: No plugin found \(([^)]*)\)$`)},
	{Kind: KindPluginLoadError, ID: "net.plugin.loadreturned", Format: `NET/Plugin : Plugin load returned %d : %s.` + " | " +
		`NET/Plugin : Plugin load (%s) returned %d : %s` + " | " + `NET/Plugin: Plugin load returned %d : %s when loading %s`,
		Since: v(2, 4, 2), Until: v(2, 21, 5), Ref: ref("v2.20.5-1", "src/net.cc", "ncclNetPluginInit"), Bare: true,
		Example: "NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory",
		lit:     "Plugin load ", re: rx(`^NET/Plugin ?: Plugin load (?:\(([^)]*)\) )?returned (\d+) : (.*?)(?: :)?(?: when loading (\S+))?\.?$`)},
	{Kind: KindPluginNameEnv, ID: "net.plugin.nameenv", Format: `NET/Plugin: Plugin name set by env to %s`,
		Since: v(2, 21, 5), Until: v(2, 27, 7), Ref: ref("v2.27.7-1", "src/plugin/plugin_open.cc", "openPluginLib"), Bare: true,
		Example: "NET/Plugin: Plugin name set by env to libnccl-net-aws.so", lit: "NET/Plugin: Plugin name set by env",
		re: rx(`^NET/Plugin: Plugin name set by env to (\S+)$`)},
	{Kind: KindPluginOpenError, ID: "net.plugin.openerror", Format: `NET/Plugin: %s` + " (dlerror, 2.22-2.25) | " + `%s/Plugin: %s: %s` + " (name, dlerror, 2.28+)",
		Since: v(2, 22, 3), Ref: ref(t2289, "src/plugin/plugin_open.cc", "openPluginLib"), Bare: true,
		Example: "NET/Plugin: libnccl-net.so: libibverbs.so.1: cannot open shared object file: No such file or directory",
		lit:     "NET/Plugin: ", re: rx(`^NET/Plugin: (\S+?): (.+)$`)},
	{Kind: KindPluginSymbolMissing, ID: "net.plugin.symbol.missing", Format: `NET/Plugin: Failed to find ncclNetPlugin_v%d symbol.`,
		Since: v(2, 12, 7), Until: v(2, 27, 7), Ref: ref("v2.22.3-1", "src/net.cc", "ncclNetPluginLoad"), Bare: true,
		Example: "NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.", lit: "Failed to find ncclNetPlugin_v",
		re: rx(`^NET/Plugin: Failed to find ncclNetPlugin_v(\d+) symbol\.?$`)},
	{Kind: KindPluginNoSymbol, ID: "net.plugin.symbol.none", Format: `NET/Plugin: Failed to find ncclNetPlugin symbol (>= v5). ncclNetPlugin symbols v4 and lower are not supported.`,
		Since: v(2, 13, 4), Until: v(2, 25, 1), Ref: ref("v2.22.3-1", "src/net.cc", "ncclNetPluginLoad"), Bare: true,
		Example: "NET/Plugin: Failed to find ncclNetPlugin symbol (>= v5). ncclNetPlugin symbols v4 and lower are not supported.",
		lit:     "Failed to find ncclNetPlugin symbol", re: rx(`^NET/Plugin: Failed to find ncclNetPlugin symbol \(`)},
	{Kind: KindPluginLoaded, ID: "net.plugin.loaded", Format: `NET/Plugin: Loaded net plugin %s (v%d)`, Since: v(2, 13, 4),
		Ref: ref(t2289, "src/plugin/net/net_v11.cc", "getNcclNet_v11"), Bare: true,
		Example: "NET/Plugin: Loaded net plugin NCCL RDMA Plugin v6 (v6)", lit: "Loaded net plugin ",
		re: rx(`^NET/Plugin: Loaded net plugin (.+) \(v(\d+)\)$`)},
	{Kind: KindCollNetLoaded, ID: "collnet.plugin.loaded", Format: `NET/Plugin: Loaded collnet plugin %s (v%d)` + " | " +
		`NET/Plugin: Loaded coll plugin %s (v%d)`, Since: v(2, 13, 4),
		Ref: ref(t2289, "src/plugin/net/net_v11.cc", "getNcclCollNet_v11"), Bare: true,
		Example: "NET/Plugin: Loaded collnet plugin SHARP (v6)", lit: "NET/Plugin: Loaded coll",
		re: rx(`^NET/Plugin: Loaded coll(?:net)? plugin (.+) \(v(\d+)\)$`)},
	{Kind: KindCollNetSymbolMissing, ID: "collnet.plugin.symbol.missing", Format: `NET/Plugin: Failed to find ncclCollNetPlugin_v%d symbol.`,
		Since: v(2, 12, 7), Until: v(2, 27, 7), Ref: ref("v2.22.3-1", "src/net.cc", "ncclNetPluginLoad"), Bare: true,
		Example: "NET/Plugin: Failed to find ncclCollNetPlugin_v8 symbol.", lit: "Failed to find ncclCollNetPlugin_v",
		re: rx(`^NET/Plugin: Failed to find ncclCollNetPlugin_v(\d+) symbol\.?$`)},
	{Kind: KindCollNetNoSymbol, ID: "collnet.plugin.symbol.none", Format: `NET/Plugin: Failed to find ncclCollNetPlugin symbol (>= v5). ncclCollNetPlugin symbols v4 and lower are not supported.`,
		Since: v(2, 13, 4), Until: v(2, 25, 1), Ref: ref("v2.22.3-1", "src/net.cc", "ncclNetPluginLoad"), Bare: true,
		Example: "NET/Plugin: Failed to find ncclCollNetPlugin symbol (>= v5). ncclCollNetPlugin symbols v4 and lower are not supported.",
		lit:     "Failed to find ncclCollNetPlugin symbol", re: rx(`^NET/Plugin: Failed to find ncclCollNetPlugin symbol \(`)},
	{Kind: KindPluginUnsupported, ID: "net.plugin.unsupported", Format: `External network plugin %s is unsupported`, Since: v(2, 28, 3),
		Ref: ref(t2289, "src/plugin/net.cc", "ncclNetPluginLoad"), Bare: true,
		Example: "External network plugin /opt/plugin/libnccl-net.so is unsupported", lit: "External network plugin ",
		re: rx(`^External network plugin (.+) is unsupported$`)},
	{Kind: KindPluginSuccess, ID: "net.plugin.success", Format: `Successfully loaded external network plugin %s`, Since: v(2, 28, 3),
		Ref: ref(t2289, "src/plugin/net.cc", "ncclNetPluginLoad"), Bare: true,
		Example: "Successfully loaded external network plugin /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so",
		lit:     "Successfully loaded external network plugin", re: rx(`^Successfully loaded external network plugin (.+)$`)},
	{Kind: KindPluginInitialized, ID: "net.plugin.initialized", Format: `Initialized NET plugin %s`, Since: v(2, 27, 3),
		Ref: ref(t2289, "src/plugin/net.cc", "ncclNetPluginInit"), Bare: true,
		Example: "Initialized NET plugin IB", lit: "Initialized NET plugin ", re: rx(`^Initialized NET plugin (.+)$`)},
	{Kind: KindPluginInitFailed, ID: "net.plugin.initfailed", Format: `Failed to initialize NET plugin %s`, Since: v(2, 28, 3),
		Ref: ref(t2289, "src/plugin/net.cc", "ncclNetPluginInit"), Bare: true,
		Example: "Failed to initialize NET plugin IB", lit: "Failed to initialize NET plugin ",
		re: rx(`^Failed to initialize NET plugin (.+)$`)},
	{Kind: KindPluginAssigned, ID: "net.plugin.assigned", Format: `Assigned NET plugin %s to comm`, Since: v(2, 27, 3),
		Ref: ref(t2289, "src/plugin/net.cc", "ncclNetPluginAssignToComm"), Bare: true,
		Example: "Assigned NET plugin IB to comm", lit: "Assigned NET plugin ", re: rx(`^Assigned NET plugin (.+) to comm$`)},
	{Kind: KindPluginDisabling, ID: "net.plugin.disabling", Format: `Disabling external plugins: %s`, Since: v(2, 27, 3),
		Ref:     ref(t2289, "src/plugin/net.cc", "ncclNetPluginDisableOtherExternal"),
		Example: "Disabling external plugins: libnccl-net-a.so", lit: "Disabling external plugins:",
		re: rx(`^Disabling external plugins: (.*)$`)},
	{Kind: KindNetAnyFail, ID: "net.anyfail", Format: `Failed to initialize any NET plugin`, Since: v(2, 27, 3),
		Ref: ref(t2289, "src/plugin/net.cc", "ncclNetInit"), Bare: true,
		Example: "Failed to initialize any NET plugin", lit: "Failed to initialize any NET plugin",
		re: rx(`^Failed to initialize any NET plugin`)},
	{Kind: KindGinAnyFail, ID: "gin.anyfail", Format: `Failed to initialize any GIN plugin`, Since: v(2, 29, 7), Until: v(2, 30, 4),
		Ref: ref("v2.29.7-1", "src/plugin/gin.cc", "ncclGinInit"), Bare: true,
		Example: "Failed to initialize any GIN plugin", lit: "Failed to initialize any GIN plugin",
		re: rx(`^Failed to initialize any GIN plugin`)},
	{Kind: KindGinAnyFail, ID: "gin.anyfail.2307", Format: `GIN/Plugin: Failed to initialize any GIN plugin`, Since: v(2, 30, 7),
		Ref: ref(t2230, "src/plugin/gin.cc", "ncclGinInit"), Bare: true,
		Example: "GIN/Plugin: Failed to initialize any GIN plugin", lit: "GIN/Plugin: Failed to initialize any GIN plugin",
		re: rx(`^GIN/Plugin: Failed to initialize any GIN plugin`)},
	{Kind: KindRmaAnyFail, ID: "rma.anyfail", Format: `RMA/Plugin: Failed to initialize any plugin`, Since: v(2, 30, 7),
		Ref: ref(t2230, "src/plugin/rma.cc", "ncclRmaInit"), Bare: true,
		Example: "RMA/Plugin: Failed to initialize any plugin", lit: "RMA/Plugin: Failed to initialize any plugin",
		re: rx(`^RMA/Plugin: Failed to initialize any plugin`)},
	// the GIN or RMA plugin NCCL assigned to the communicator (G-GIN-1,
	// G-RMA-1): an external one or the internal IB's
	// (2.28.7-2.29.3 src/plugin/net.cc ncclNetPluginAssignToComm, with
	// the net plugin; 2.29.7-2.30.4 src/plugin/gin.cc)
	{Kind: KindGinAssigned, ID: "gin.assigned", Format: `Assigned GIN plugin %s to comm`, Since: v(2, 28, 7), Until: v(2, 30, 4),
		Ref: ref(t2289, "src/plugin/net.cc", "ncclNetPluginAssignToComm"), Bare: true,
		Example: "Assigned GIN plugin GIN_IB_GDAKI to comm", lit: "Assigned GIN plugin ", re: rx(`^Assigned GIN plugin (.+) to comm$`)},
	{Kind: KindRmaAssigned, ID: "rma.assigned", Format: `Assigned RMA plugin %s to comm`, Since: v(2, 29, 2), Until: v(2, 30, 4),
		Ref: ref("v2.29.7-1", "src/plugin/gin.cc", "ncclGinPluginAssignToComm"), Bare: true,
		Example: "Assigned RMA plugin GIN_IB_PROXY to comm", lit: "Assigned RMA plugin ", re: rx(`^Assigned RMA plugin (.+) to comm$`)},
	{Kind: KindGinAssigned, ID: "gin.assigned.2307", Format: `GIN/Plugin: Assigned plugin %s type %d to comm`, Since: v(2, 30, 7),
		Ref: ref(t2230, "src/plugin/gin.cc", "ncclGinPluginAssignToComm"), Bare: true,
		Example: "GIN/Plugin: Assigned plugin GIN_IB_GDAKI type 3 to comm", lit: "GIN/Plugin: Assigned plugin ",
		re: rx(`^GIN/Plugin: Assigned plugin (.+) type (\d+) to comm$`)},
	{Kind: KindRmaAssigned, ID: "rma.assigned.2307", Format: `RMA/Plugin: Assigned plugin %s to comm`, Since: v(2, 30, 7),
		Ref: ref(t2230, "src/plugin/rma.cc", "ncclRmaPluginAssignToComm"), Bare: true,
		Example: "RMA/Plugin: Assigned plugin RMA_IB_PROXY to comm", lit: "RMA/Plugin: Assigned plugin ",
		re: rx(`^RMA/Plugin: Assigned plugin (.+) to comm$`)},
	{Kind: KindNetNotFound, ID: "net.notfound", Format: `Error: network %s not found.`, Since: v(2, 10, 3), Until: v(2, 26, 6),
		Ref: ref("v2.22.3-1", "src/net.cc", "ncclNetInit"), Bare: true,
		Example: "Error: network Foo not found.", lit: "Error: network ", re: rx(`^Error: network (.+) not found\.?$`)},
	{Kind: KindUsingNetwork, ID: "net.using", Format: `Using network %s`, Since: v(2, 6, 4),
		Ref: ref(t2289, "src/init.cc", "commAlloc"), Bare: true,
		Example: "Using network IBext_v8", lit: "Using network ", re: rx(`^Using network (.+)$`)},
	{Kind: KindNetDeviceHost, ID: "net.device.host", Format: `Using non-device net plugin version %d`, Since: v(2, 19, 1), Until: v(2, 21, 5),
		Ref: ref("v2.21.5-1", "src/net.cc", "ncclNetCheckDeviceVersion"), Bare: true,
		Example: "Using non-device net plugin version 0", lit: "Using non-device net plugin",
		re: rx(`^Using non-device net plugin version (\d+)$`)},
	{Kind: KindNetDeviceUnpack, ID: "net.device.unpack", Format: `Using NCCL_NET_DEVICE_UNPACK net plugin version %d`, Since: v(2, 19, 1),
		Ref: ref(t2289, "src/plugin/net.cc", "ncclNetCheckDeviceVersion"), Bare: true,
		Example: "Using NCCL_NET_DEVICE_UNPACK net plugin version 7", lit: "Using NCCL_NET_DEVICE_UNPACK",
		re: rx(`^Using NCCL_NET_DEVICE_UNPACK net plugin version (\d+)$`)},
	{Kind: KindPluginPath, ID: "plugin.sharp.path", Format: `Plugin Path : %s`,
		Ref: ref("", "Mellanox/nccl-rdma-sharp-plugins src/p2p_plugin.c", "pluginInit"), Bare: true,
		Example: "Plugin Path : /opt/hpcx/nccl_rdma_sharp_plugin/lib/libnccl-net.so", lit: "Plugin Path :",
		re: rx(`^Plugin Path : (\S+)$`)},
	{Kind: KindP2PPlugin, ID: "plugin.sharp.p2p", Format: `P2P plugin %s`,
		Ref: ref("", "Mellanox/nccl-rdma-sharp-plugins src/p2p_plugin.c", "pluginInit"), Bare: true,
		Example: "P2P plugin IBext_v8", lit: "P2P plugin ", re: rx(`^P2P plugin (\S+)$`)},
	// aws-ofi-nccl up to 1.13.x; from 1.14.0 "Selected provider is %s,
	// fabric is %s (found %d nics)" (src/nccl_ofi_net.c
	// nccl_net_ofi_query_provider_capabilities at v1.14.0)
	{Kind: KindOFIProvider, ID: "plugin.ofi.provider", Format: `NET/OFI Selected Provider is %s (found %d nics)`,
		Ref: ref("", "aws/aws-ofi-nccl src/nccl_ofi_net.c", "nccl_net_ofi_query_provider_capabilities"), Bare: true,
		Example: "NET/OFI Selected Provider is efa (found 4 nics)", lit: "NET/OFI Selected ",
		re: rx(`^NET/OFI Selected [Pp]rovider is ([^\s,]+)(?:, fabric is \S+)?(?: \(found (\d+) nics\))?$`)},
	{Kind: KindOFI, ID: "plugin.ofi", Format: `NET/OFI %s`,
		Ref:     ref("", "aws/aws-ofi-nccl src/nccl_ofi_net.c", "NCCL_OFI_INFO"),
		Example: "NET/OFI Using aws-ofi-nccl 1.13.2", lit: "NET/OFI ", re: rx(`^NET/OFI (.*)$`)},

	// --- internal IB and Socket (G-NET-IB-1, G-NET-SOCK-1)
	{Kind: KindIBNoDevice, ID: "net.ib.nodevice", Format: `NET/IB : No device found.`, Since: v(2, 4, 2),
		Ref: ref(t2289, "src/transport/net_ib.cc", "ncclIbInitDevices"), Bare: true,
		Example: "NET/IB : No device found.", lit: "NET/IB : No device found", re: rx(`^NET/IB : No device found\.?$`)},
	{Kind: KindIBUsing, ID: "net.ib.using", Format: `NET/IB : Using%s %s; OOB %s:%s`, Since: v(2, 4, 2),
		Ref: ref(t2289, "src/transport/net_ib.cc", "ncclIbInitDevices"), Bare: true,
		Example: "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_2:1/IB [RO]; OOB ibs85f0:192.168.1.10<0>", lit: "NET/IB : Using",
		re: rx(`^NET/IB : Using(.*)$`)},
	{Kind: KindIBNoIP, ID: "net.ib.noip", Format: `NET/IB : No IP interface found.`, Since: v(2, 4, 2),
		Ref: ref(t2289, "src/transport/net_ib.cc", "ncclIbInitDevices"), Bare: true,
		Example: "NET/IB : No IP interface found.", lit: "NET/IB : No IP interface", re: rx(`^NET/IB : No IP interface found\.?$`)},
	{Kind: KindIBDataError, ID: "net.ib.completion", Format: `NET/IB: Got completion from peer %s with status=%s(%d) opcode=%s(%d) reqSize=%d vendor_err=%u ...` + " | " + `NET/IB : Got completion from peer %s with error %d, opcode %d, len %d, vendor err %d`,
		Since: v(2, 10, 3), Ref: ref(t2289, "src/transport/net_ib.cc", "ncclIbTest"), Bare: true,
		Example: "NET/IB : Got completion from peer 10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv)",
		lit:     "Got completion from peer", re: rx(`^NET/IB\S*\s?: ?Got completion from peer (\S+) with (?:status=|error )([^,\s]+)`)},
	{Kind: KindVerbsMissing, ID: "net.ib.noverbs", Format: `Failed to open libibverbs.so[.1]`, Since: v(2, 4, 2), Until: v(2, 29, 7),
		Ref: ref(t2289, "src/misc/ibvsymbols.cc", "buildIbvSymbols"), Bare: true,
		Example: "Failed to open libibverbs.so[.1]", lit: "Failed to open libibverbs", re: rx(`^Failed to open libibverbs`)},
	{Kind: KindSocketUsing, ID: "net.socket.using", Format: `NET/Socket : Using%s`, Since: v(2, 4, 2),
		Ref: ref(t2289, "src/transport/net_socket.cc", "ncclNetSocketInit"), Bare: true,
		Example: "NET/Socket : Using [0]eno1:192.168.223.11<0>", lit: "NET/Socket : Using", re: rx(`^NET/Socket : Using(.*)$`)},
	{Kind: KindSocketNoIf, ID: "net.socket.noif", Format: `NET/Socket : no interface found`, Since: v(2, 4, 2),
		Ref: ref(t2289, "src/transport/net_socket.cc", "ncclNetSocketInit"), Bare: true,
		Example: "NET/Socket : no interface found", lit: "NET/Socket : no interface", re: rx(`^NET/Socket : no interface found`)},

	// --- GPUDirect RDMA
	{Kind: KindGDRHCA, ID: "net.gdr.hca", Format: `NET/%s : GPU Direct RDMA %s for HCA %d '%s'` + " | " +
		`NET/IB : GPU Direct RDMA Disabled for HCA %d '%s' (no module)`, Since: v(2, 5, 6),
		Ref: ref(t2289, "src/graph/topo.cc", "ncclTopoPopulateNics"), Bare: true,
		Example: "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'", lit: "GPU Direct RDMA ",
		re: rx(`^NET/(.+?) ?: GPU Direct RDMA (Enabled|Disabled) for HCA (\d+) '([^']*)'(?: \((.*)\))?$`)},
	{Kind: KindGDRGPU, ID: "net.gdr.gpu", Format: `GPU Direct RDMA Enabled for GPU %d / HCA %lx (distance %d <= %d), read %d mode %s`,
		Since: v(2, 4, 2), Until: v(2, 28, 9), Ref: ref(t2289, "src/graph/paths.cc", "ncclTopoCheckGdr"), Bare: true,
		Example: "GPU Direct RDMA Enabled for GPU 1 / HCA 0 (distance 4 <= 5), read 1 mode Default", lit: "GPU Direct RDMA ",
		re: rx(`^(?:NET/\S+ : )?GPU Direct RDMA (Enabled|Disabled) for (?:GPU )?(\S+) / HCA (\S+)(?: '[^']*')? \(([^)]*)\)(?:, read (\d+))?(?: mode (\S+))?`)},

	// --- transports (connectors)
	{Kind: KindTransport, ID: "transport.connect", Format: `Channel %02d/%d : %d[%d] -> %d[%d] [send] via NET/%s/%d%s%s%s` + " | " +
		`Channel %02d/%01d : %d[%d] -> %d[%d] via P2P/%s%s%s` + " | " + `Channel %02d : %d[%d] -> %d[%d] via SHM/%s/%s` + " | " +
		`Ring %02d : %d[%d] -> %d[%d] via P2P/IPC`, Since: v(2, 4, 2),
		Ref: ref(t2289, "src/transport/net.cc", "sendSetup"), Bare: true,
		Example: "Channel 00/0 : 1[0] -> 2[0] [receive] via NET/IBext_v8/1", lit: " via ",
		re: rx(`^(Ring|Channel) (\d+)(?:/(\d+))? : (\d+)(?:\[([0-9a-fA-Fx]+)\])? (?:->|<-) (\d+)(?:\[([0-9a-fA-Fx]+)\])? (?:\[(send|receive)\] )?via (.+)$`)},
	{Kind: KindCollNetConn, ID: "collnet.connect", Format: `CollNet %02d/%1d : %d [send] via COLLNET/%s/%d%s%s`, Since: v(2, 6, 4),
		Ref: ref(t2289, "src/transport/coll_net.cc", "sendSetup"), Bare: true,
		Example: "CollNet 00/0 : 4 [receive] via COLLNET/SHARP/0/GDRDMA", lit: "via COLLNET/",
		re: rx(`^(?:Coll|CollNet) (\d+)(?:/(\d+))? : (\d+) \[(send|receive)\] via COLLNET/(.+?)/(\d+)(/GDRDMA)?`)},
	{Kind: KindCollNetConnected, ID: "collnet.connected", Format: `rank %d Connected CollNet`, Since: v(2, 9, 6),
		Ref: ref(t2289, "src/transport/coll_net.cc", "ncclCollNetDirectBufferSetup"), Bare: true,
		Example: "rank 0 Connected CollNet", lit: "Connected CollNet", re: rx(`^rank (\d+) Connected CollNet$`)},
	{Kind: KindCollNetChains, ID: "collnet.chains", Format: `Connected Collnet Chains %s` + " | " + `Collnet Chains %s`, Since: v(2, 14, 3),
		Ref: ref(t2289, "src/transport/coll_net.cc", "ncclCollNetChainBufferSetup"), Bare: true,
		Example: "Connected Collnet Chains [0] 1->0->-1/-1/-1", lit: "Collnet Chains", re: rx(`^(?:Connected )?Collnet Chains`)},
	{Kind: KindCollNetThreshold, ID: "collnet.threshold", Format: `Communicator has %d nodes which is less than CollNet node threshold %d, disabling CollNet`,
		Since: v(2, 9, 9), Ref: ref(t2289, "src/init.cc", "initTransportsRank"), Bare: true,
		Example: "Communicator has 1 nodes which is less than CollNet node threshold 2, disabling CollNet", lit: "less than CollNet node threshold",
		re: rx(`^Communicator has (\d+) nodes which is less than CollNet node threshold (\d+), disabling CollNet`)},
	{Kind: KindCollNetArity, ID: "collnet.arity", Format: `CollNet currently only supports up to %d GPUs per node, disabling CollNet`,
		Since: v(2, 12, 7), Until: v(2, 22, 3), Ref: ref("v2.22.3-1", "src/init.cc", "initTransportsRank"), Bare: true,
		Example: "CollNet currently only supports up to 8 GPUs per node, disabling CollNet", lit: "CollNet currently only supports",
		re: rx(`^CollNet currently only supports up to (\d+) GPUs per node, disabling CollNet`)},
	{Kind: KindCollNetInitFail, ID: "collnet.initfail", Format: `Cannot initialize CollNet, using point-to-point network instead` + " | " +
		`Cannot initialize CollNet, using %s instead`, Since: v(2, 6, 4),
		Ref: ref(t2289, "src/transport.cc", "ncclTransportCollNetCheck"), Bare: true,
		Example: "Cannot initialize CollNet, using point-to-point network instead", lit: "Cannot initialize CollNet",
		re: rx(`^Cannot initialize CollNet, using (.+) instead`)},
	{Kind: KindCollNetAlgoIgnored, ID: "collnet.algo.ignored", Format: `CollNet is not supported or fails to initialize, ignoring NCCL_ALGO=COLLNET`,
		Since: v(2, 8, 3), Until: v(2, 19, 4), Ref: ref("v2.19.4-1", "src/graph/tuning.cc", "ncclTopoTuneModel"), Bare: true,
		Example: "CollNet is not supported or fails to initialize, ignoring NCCL_ALGO=COLLNET", lit: "CollNet is not supported",
		re: rx(`^CollNet is not supported or fails to initialize, ignoring NCCL_ALGO=(\S+)`)},
	{Kind: KindCollNetChild, ID: "collnet.child", Format: `Child comms (nRanks %d) fails to share parent comms (nRanks %d) sharp resources`,
		Since: v(2, 18, 1), Ref: ref(t2289, "src/transport/coll_net.cc", "ncclCollNetSetup"), Bare: true,
		Example: "Child comms (nRanks 8) fails to share parent comms (nRanks 16) sharp resources", lit: "sharp resources",
		re: rx(`^Child comms \(nRanks (\d+)\) fails to share parent comms \(nRanks (\d+)\) sharp resources`)},
	{Kind: KindNetDevices, ID: "net.devices", Format: `Rank %d: %d Net devices` + " | " + `Rank %d: %d CollNet devices`,
		Since: v(2, 30, 3), Ref: ref(t2230, "src/init.cc", "initTransportsRank"), Bare: true,
		Example: "Rank 0: 8 CollNet devices", lit: "Rank ", re: rx(`^Rank (\d+): (\d+) (Net|CollNet) devices$`)},

	// --- NIC fusion (G-TOPO-VNIC-1, G-TOPO-VNIC-2): each plugin pass's vNic,
	// and the IB's own line for a device it fused (NET subsystem; 2.30.7
	// adds the rail and plane)
	{Kind: KindVNicMade, ID: "topo.vnic.made", Format: `TOPO/NET : Made vNic %d`, Since: v(2, 24, 3),
		Ref: ref(t2289, "src/graph/topo.cc", "ncclTopoMakeVnic"), Bare: true,
		Example: "TOPO/NET : Made vNic 2", lit: "TOPO/NET : Made vNic ", re: rx(`^TOPO/NET : Made vNic (\d+)$`)},
	{Kind: KindIBVirtualDevice, ID: "net.ib.vdevice", Format: `NET/IB : Made virtual device [%d] name=%s speed=%d ndevs=%d` + " | " +
		`NET/IB : Made virtual device [%d] name=%s speed=%d ndevs=%d rail=%d plane=%d`, Since: v(2, 24, 3),
		Ref: ref(t2289, "src/transport/net_ib.cc", "ncclIbMakeVDeviceInternal"), Bare: true,
		Example: "NET/IB : Made virtual device [2] name=mlx5_0+mlx5_1 speed=200000 ndevs=2", lit: "NET/IB : Made virtual device",
		re: rx(`^NET/IB : Made virtual device \[(\d+)\] name=(\S+) speed=(-?\d+) ndevs=(\d+)(?: rail=-?\d+ plane=-?\d+)?$`)},

	// --- NVLS (G-NVLS-*)
	{Kind: KindNVLSSupport, ID: "nvls.support", Format: `NVLS multicast support is %savailable on dev %d` + " | " +
		`NVLS multicast support is %savailable on dev %d (NVLS_NCHANNELS %d)`, Since: v(2, 17, 1),
		Ref: ref(t2289, "src/transport/nvls.cc", "ncclNvlsInit"), Bare: true,
		Example: "NVLS multicast support is available on dev 0 (NVLS_NCHANNELS 16)", lit: "NVLS multicast support is",
		re: rx(`^NVLS multicast support is (not )?available on dev (\d+)(?: \(NVLS_NCHANNELS (\d+)\))?$`)},
	{Kind: KindNVLSMultiRank, ID: "nvls.multirank", Format: `NCCL_NVLS_ENABLE has been set to "1" and communicator has multiple ranks using the same NVML device. This is not compatible with NCCL_NVLS_ENABLE=1.`,
		Since: v(2, 30, 7), Ref: ref(t2230, "src/transport/nvls.cc", "ncclNvlsInit"), Bare: true,
		Example: `NCCL_NVLS_ENABLE has been set to "1" and communicator has multiple ranks using the same NVML device. This is not compatible with NCCL_NVLS_ENABLE=1.`,
		lit:     "multiple ranks using the same NVML device", re: rx(`^NCCL_NVLS_ENABLE has been set to "1" and communicator has multiple ranks using the same NVML device`)},
	{Kind: KindNVLSComm, ID: "nvls.comm", Format: `NVLS comm %p headRank %d nHeads %d nvlsRanks %d buffSize %zu nvlsPerRankSize %zu nvlsTotalSize %zu`,
		Since: v(2, 17, 1), Ref: ref(t2289, "src/transport/nvls.cc", "ncclNvlsBufferSetup"), Bare: true,
		Example: "NVLS comm 0x55c8e8d0 headRank 0 nHeads 8 nvlsRanks 8 buffSize 1048576 nvlsPerRankSize 201326592 nvlsTotalSize 1610612736",
		lit:     "NVLS comm ", re: rx(`^NVLS comm (\S+) (?:headRank (-?\d+) nHeads (\d+)|rank (\d+) nranks (\d+))`)},
	{Kind: KindNVLSBindSoft, ID: "nvls.bind.soft", Format: `Failed to bind NVLink SHARP (NVLS) Multicast memory of size %ld : CUDA error %d '%s'. Proceeding without NVLS support.`,
		Since: v(2, 27, 3), Until: v(2, 28, 9), Ref: ref(t2289, "src/transport/nvls.cc", "nvlsAllocateMem"), Bare: true,
		Example: "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'. Proceeding without NVLS support.",
		lit:     "Proceeding without NVLS support", re: rx(`^Failed to bind NVLink SHARP \(NVLS\) Multicast memory of size (\d+) : CUDA error (\d+) '([^']*)'\. Proceeding without NVLS support`)},
	{Kind: KindNVLSBindFail, ID: "nvls.bind.fail", Format: `Failed to bind NVLink SHARP (NVLS) Multicast memory of size %ld : CUDA error %d '%s'.\nThis is usually caused by a system or configuration error in the Fabric Manager or NVSwitches.\n...`,
		Since: v(2, 27, 3), Ref: ref(t2289, "src/transport/nvls.cc", "nvlsAllocateMem"), Bare: true,
		Example: "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 401 'the operation cannot be performed in the present state'.",
		lit:     "Failed to bind NVLink SHARP", re: rx(`^Failed to bind NVLink SHARP \(NVLS\) Multicast memory of size (\d+) : CUDA error (\d+) '([^']*)'`)},
	// The user-buffer registration of one NVLS operation failed (CUDA-graph
	// capture or NCCL_LOCAL_REGISTER): a WARN at 2.24.3-2.25.1, an INFO of
	// the REG subsystem from 2.26.2. Not fatal: the operation runs on NCCL's
	// own NVLS buffers (the function returns ncclSuccess with regBufUsed 0).
	{Kind: KindNVLSRegFail, ID: "nvls.register.failed", Format: `rank %d failed to NVLS register sendbuff %p sendbuffSize %ld recvbuff %p recvbuffSize %ld`,
		Since: v(2, 24, 3), Ref: ref(t2289, "src/transport/nvls.cc", "nvlsRegisterBuffer"), Bare: true,
		Example: "rank 0 failed to NVLS register sendbuff 0x78c800000000 sendbuffSize 1073741824 recvbuff 0x78c800000000 recvbuffSize 1073741824",
		lit:     "failed to NVLS register", re: rx(`^rank (\d+) failed to NVLS register sendbuff (\S+) sendbuffSize (\d+) recvbuff (\S+) recvbuffSize (\d+)`)},
	// User-buffer registration of one operation's buffers, by path (IPC,
	// NET, CollNet, NVLS): the REG subsystem from 2.24.3 (NVLS before it;
	// the 2.21-2.23 CollNet line is REG too). Failures were WARNs at
	// 2.24.3-2.25.1 (IPC, NET and CollNet alike) and are REG INFOs from
	// 2.26.2; before 2.24.3 a failed IPC registration prints nothing.
	// Each line names one buffer and its size, NVLS's and 2.21-2.23
	// CollNet's both; none names the collective or its channels.
	{Kind: KindRegistered, ID: "reg.ipc.registered", Format: `rank %d - IPC register buffer %p size %ld (baseAddr %p size %ld) to peer %d regAddr %p offsetOut %ld` + " | " +
		`rank %d - IPC registered buffer %p size %ld (baseAddr %p size %ld) to peer %d regAddr %p offsetOut %ld` + " | " +
		`rank %d - IPC register buffer %p size %zu (baseAddr %p totalSize %zu numSegments %d) to peer %d regAddr %p offsetOut %ld` + " | " +
		`rank %d - IPC reuse buffer %p size %ld (baseAddr %p size %ld) to peer %d regAddr %p` + " | " +
		`rank %d - IPC reuse buffer %p size %zu (baseAddr %p size %zu numSegments %d) to peer %d regAddr %p`,
		Since: v(2, 24, 3), Ref: ref(t2289, "src/transport/p2p.cc", "ipcRegisterBuffer"), Bare: true,
		Example: "rank 0 - IPC register buffer 0x7f2a40000000 size 8388608 (baseAddr 0x7f2a40000000 size 8388608) to peer 1 regAddr 0x7f1c20000000 offsetOut 0",
		lit:     " - IPC r", re: rx(`^rank (\d+) - IPC (?:register|registered|reuse) buffer (\S+) size (\d+) \(baseAddr`)},
	{Kind: KindRegFailed, ID: "reg.ipc.failed", Format: `rank %d failed to IPC register userbuff %p buffSize %ld nPeers %d isLegacyIpc %p` + " | " +
		`rank %d failed to IPC register userbuff %p buffSize %ld nPeers %d isLegacyIpc %d type %s`,
		Since: v(2, 24, 3), Ref: ref(t2289, "src/transport/p2p.cc", "ipcRegisterBuffer"), Bare: true,
		Example: "rank 0 failed to IPC register userbuff 0x7f2a40000000 buffSize 8388608 nPeers 1 isLegacyIpc 1 type POSIX_FD",
		lit:     "failed to IPC register", re: rx(`^rank (\d+) failed to IPC register userbuff (\S+) buffSize (\d+)`)},
	{Kind: KindRegistered, ID: "reg.net.registered", Format: `rank %d - NET register userbuff %p (handle %p), buffSize %ld`,
		Since: v(2, 24, 3), Ref: ref(t2289, "src/transport/net.cc", "netRegisterBuffer"), Bare: true,
		Example: "rank 0 - NET register userbuff 0x7f2a40000000 (handle 0x55d0c0a0), buffSize 8388608",
		lit:     " - NET register userbuff", re: rx(`^rank (\d+) - NET register userbuff (\S+) \(handle \S+\), buffSize (\d+)`)},
	{Kind: KindRegFailed, ID: "reg.net.failed", Format: `rank %d failed to NET register userbuff %p buffSize %ld GDR flag %d`,
		Since: v(2, 24, 3), Ref: ref(t2289, "src/transport/net.cc", "netRegisterBuffer"), Bare: true,
		Example: "rank 0 failed to NET register userbuff 0x7f2a40000000 buffSize 8388608 GDR flag 0",
		lit:     "failed to NET register", re: rx(`^rank (\d+) failed to NET register userbuff (\S+) buffSize (\d+)`)},
	{Kind: KindRegistered, ID: "reg.collnet.registered", Format: `rank %d - COLLNET register userbuff %p (handle %p), buffSize %ld, type %s` + " | " +
		`rank %d - COLLNET reuse register userbuff %p (handle %p), buffSize %ld, type %s`,
		Since: v(2, 24, 3), Ref: ref(t2289, "src/transport/coll_net.cc", "collnetRegisterBuffer"), Bare: true,
		Example: "rank 0 - COLLNET register userbuff 0x7f2a40000000 (handle 0x55d0c0a0), buffSize 8388608, type Send",
		lit:     " - COLLNET ", re: rx(`^rank (\d+) - COLLNET (?:reuse )?register userbuff (\S+) \(handle \S+\), buffSize (\d+), type (Send|Recv)`)},
	{Kind: KindRegFailed, ID: "reg.collnet.failed", Format: `rank %d - COLLNET failed to register userbuff %p (handle %p), buffSize %ld, type %s, GDR is not enabled` + " | " +
		`rank %d - COLLNET failed to register userbuff %p, buffSize %ld, type %s, GDR %d`,
		Since: v(2, 24, 3), Ref: ref(t2289, "src/transport/coll_net.cc", "collnetRegisterBuffer"), Bare: true,
		Example: "rank 0 - COLLNET failed to register userbuff 0x7f2a40000000, buffSize 8388608, type Send, GDR 0",
		lit:     "COLLNET failed to register", re: rx(`^rank (\d+) - COLLNET failed to register userbuff (\S+?),? (?:\(handle \S+\), )?buffSize (\d+), type (Send|Recv)`)},
	{Kind: KindRegistered, ID: "reg.collnet.registered.both", Format: `rank %d successfully registered collNet sendbuff %p (handle %p), sendbuff size %ld, recvbuff %p (handle %p), recvbuff size %ld`,
		Since: v(2, 21, 5), Until: v(2, 23, 4), Ref: ref("v2.22.3-1", "src/enqueue.cc", "registerIntraNodeBuffers"), Bare: true,
		Example: "rank 0 successfully registered collNet sendbuff 0x7f2a40000000 (handle 0x55d0c0a0), sendbuff size 8388608, recvbuff 0x7f2a48000000 (handle 0x55d0c0b0), recvbuff size 8388608",
		lit:     "successfully registered collNet", re: rx(`^rank (\d+) successfully registered collNet sendbuff (\S+) \(handle \S+\), sendbuff size (\d+), recvbuff (\S+) \(handle \S+\), recvbuff size (\d+)`)},
	// NVLS success: REG from 2.24.3; the NVLS subsystem's local- and
	// graph-registered lines before (2.19.1-2.23.4 graph, 2.21.5-2.23.4 local).
	{Kind: KindRegistered, ID: "reg.nvls.registered", Format: `rank %d successfully registered NVLS sendbuff %p, recvbuff %p, sendbuff size %ld, recvbuff size %ld, reg sendbuff %p, reg recvbuff %p` + " | " +
		`rank %d reuse registered NVLS sendbuff %p, recvbuff %p, sendbuff size %ld, recvbuff size %ld, reg sendbuff %p, reg recvbuff %p`,
		Since: v(2, 24, 3), Ref: ref(t2289, "src/transport/nvls.cc", "nvlsRegisterBuffer"), Bare: true,
		Example: "rank 0 successfully registered NVLS sendbuff 0x7f2a40000000, recvbuff 0x7f2a48000000, sendbuff size 8388608, recvbuff size 8388608, reg sendbuff 0x7f1c00000000, reg recvbuff 0x7f1c08000000",
		lit:     "registered NVLS sendbuff", re: rx(`^rank (\d+) (?:successfully|reuse) registered NVLS sendbuff (\S+), recvbuff (\S+), sendbuff size (\d+), recvbuff size (\d+)`)},
	{Kind: KindRegistered, ID: "reg.nvls.registered.local", Format: `rank %d successfully local-registered NVLS sendbuff %p, recvbuff %p, sendbuff size %ld, recvbuff size %ld, reg sendbuff %p, reg recvbuff %p` + " | " +
		`rank %d reuse local-registered NVLS sendbuff %p, recvbuff %p, sendbuff size %ld, recvbuff size %ld, reg sendbuff %p, reg recvbuff %p`,
		Since: v(2, 21, 5), Until: v(2, 23, 4), Ref: ref("v2.22.3-1", "src/transport/nvls.cc", "ncclNvlsLocalRegisterBuffer"), Bare: true,
		Example: "rank 0 successfully local-registered NVLS sendbuff 0x7f2a40000000, recvbuff 0x7f2a48000000, sendbuff size 8388608, recvbuff size 8388608, reg sendbuff 0x7f1c00000000, reg recvbuff 0x7f1c08000000",
		lit:     "local-registered NVLS sendbuff", re: rx(`^rank (\d+) (?:successfully|reuse) local-registered NVLS sendbuff (\S+), recvbuff (\S+), sendbuff size (\d+), recvbuff size (\d+)`)},
	{Kind: KindRegistered, ID: "reg.nvls.registered.graph", Format: `rank %d successfully graph-registered sendbuff %p, recvbuff %p, sendbuff size %ld (register size %ld, sendGran %ld), recvbuff size %ld (register size %ld, recvGran %ld), reg sendbuff %p, reg recvbuff %p`,
		Since: v(2, 19, 1), Until: v(2, 23, 4), Ref: ref("v2.22.3-1", "src/transport/nvls.cc", "ncclNvlsGraphRegisterBuffer"), Bare: true,
		Example: "rank 0 successfully graph-registered sendbuff 0x7f2a40000000, recvbuff 0x7f2a48000000, sendbuff size 8388608 (register size 8388608, sendGran 2097152), recvbuff size 8388608 (register size 8388608, recvGran 2097152), reg sendbuff 0x7f1c00000000, reg recvbuff 0x7f1c08000000",
		lit:     "successfully graph-registered", re: rx(`^rank (\d+) successfully graph-registered sendbuff (\S+), recvbuff (\S+), sendbuff size (\d+) \([^)]*\), recvbuff size (\d+)`)},
	{Kind: KindNVLSTreeConnected, ID: "nvls.tree.connected", Format: `Connected NVLS tree`, Since: v(2, 18, 1),
		Ref: ref(t2289, "src/transport/nvls.cc", "ncclNvlsTreeConnect"), Bare: true,
		Example: "Connected NVLS tree", lit: "Connected NVLS tree", re: rx(`^Connected NVLS tree$`)},
	{Kind: KindNVLSTrees, ID: "nvls.trees", Format: `NVLS Trees : %d/%d/%d->%d->%d %d/%d/%d->%d->%d`, Since: v(2, 18, 1),
		Ref: ref(t2289, "src/graph/connect.cc", "connectNvls"), Bare: true,
		Example: "NVLS Trees : -1/-1/-1->0->1 -1/-1/-1->0->1", lit: "NVLS Trees", re: rx(`^NVLS Trees :`)},
	{Kind: KindNVLSTuning, ID: "nvls.tuning", Format: `NVLS tuning: nChannels %d chunkSize %d treeMaxChunkSize %d`, Since: v(2, 30, 3),
		Ref: ref(t2230, "src/transport/nvls.cc", "ncclNvlsTuning"), Bare: true,
		Example: "NVLS tuning: nChannels 16 chunkSize 131072 treeMaxChunkSize 65536", lit: "NVLS tuning:",
		re: rx(`^NVLS tuning: nChannels (\d+) chunkSize (\d+) treeMaxChunkSize (\d+)`)},
	{Kind: KindNVLSGroup, ID: "nvls.group", Format: `NVLS Created Multicast group %llx nranks %d size %zu on rank %d`, Since: v(2, 17, 1),
		Ref: ref(t2289, "src/transport/nvls.cc", "ncclNvlsGroupCreate"), Bare: true,
		Example: "NVLS Created Multicast group 7f1c nranks 8 size 2097152 on rank 0", lit: "Multicast group",
		re: rx(`^NVLS Creat(?:ed|ing) Multicast group`)},
	{Kind: KindNVLSNoNIC, ID: "nvls.nonic", Format: `Could not find NIC for rank %d in NVLS graph`, Since: v(2, 18, 1),
		Ref: ref(t2289, "src/graph/search.cc", "getNvlsNetDev"), Bare: true,
		Example: "Could not find NIC for rank 3 in NVLS graph", lit: "in NVLS graph", re: rx(`^Could not find NIC for rank (\d+) in NVLS graph`)},

	// --- graphs, channels, communicator
	// The wording dates the line: three counts until 2.16.5 (printed by
	// ncclTopoComputeP2pChannels), nvls channels from 2.17.1, collnet
	// channels from 2.20.3. Empty groups keep the submatch positions.
	// ncclTopoComputeP2pChannels across nodes with NCCL_NCHANNELS_PER_NET_PEER unset
	{Kind: KindP2PMaxPeers, ID: "p2p.maxpeers", Format: `Tuning P2P operations with maxP2pPeers = %d`, Since: v(2, 30, 3),
		Ref: ref(t2230, "src/graph/paths.cc", "ncclTopoComputeP2pChannels"), Bare: true,
		Example: "Tuning P2P operations with maxP2pPeers = 64", lit: "Tuning P2P operations",
		re: rx(`^Tuning P2P operations with maxP2pPeers = (-?\d+)`)},
	// ncclTransportCheckP2pType: rank 0 only until 2.28.3, every rank from
	// 2.28.7; the first count was named intraNodeP2pSupport until 2.26.6
	{Kind: KindP2PType, ID: "p2p.type", Format: `Check P2P Type isAllDirectP2p %d directMode %d isAllCudaP2p %d`, Since: v(2, 24, 3),
		Ref: ref(t2289, "src/transport.cc", "ncclTransportCheckP2pType"), Bare: true,
		Example: "Check P2P Type isAllDirectP2p 1 directMode 1 isAllCudaP2p 1", lit: "Check P2P Type ",
		re: rx(`^Check P2P Type (?:intraNodeP2pSupport|isAllDirectP2p) (\d+) directMode (\d+)`)},
	{Kind: KindP2PMaxPeers, ID: "p2p.maxpeers.capped", Format: `Max P2P Peers %d is too high, capping to communicator size %d`, Since: v(2, 30, 3),
		Ref: ref(t2230, "src/init.cc", "initTransportsRank"), Bare: true,
		Example: "Max P2P Peers 128 is too high, capping to communicator size 16", lit: "Max P2P Peers ",
		re: rx(`^Max P2P Peers (-?\d+) is too high, capping to communicator size (\d+)`)},
	{Kind: KindChannels, ID: "channels.p2p", Format: `%d coll channels, %d p2p channels, %d p2p channels per peer`,
		Since: v(2, 7, 3), Until: v(2, 16, 5), Ref: ref("v2.16.5-1", "src/graph/paths.cc", "ncclTopoComputeP2pChannels"), Bare: true,
		Example: "16 coll channels, 32 p2p channels, 32 p2p channels per peer", lit: " coll channels, ",
		re: rx(`^(\d+) coll channels, ()()(\d+) p2p channels, (\d+) p2p channels per peer`)},
	{Kind: KindChannels, ID: "channels.nvls", Format: `%d coll channels, %d nvls channels, %d p2p channels, %d p2p channels per peer`,
		Since: v(2, 17, 1), Until: v(2, 19, 4), Ref: ref("v2.19.4-1", "src/init.cc", "initTransportsRank"), Bare: true,
		Example: "24 coll channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer", lit: " coll channels, ",
		re: rx(`^(\d+) coll channels, ()(\d+) nvls channels, (\d+) p2p channels, (\d+) p2p channels per peer`)},
	{Kind: KindChannels, ID: "channels", Format: `%d coll channels, %d collnet channels, %d nvls channels, %d p2p channels, %d p2p channels per peer`,
		Since: v(2, 20, 3), Ref: ref(t2289, "src/init.cc", "initTransportsRank"), Bare: true,
		Example: "24 coll channels, 24 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer", lit: " coll channels, ",
		re: rx(`^(\d+) coll channels, (\d+) collnet channels, (\d+) nvls channels, (\d+) p2p channels, (\d+) p2p channels per peer`)},
	{Kind: KindRingOrder, ID: "ring.order", Format: `Channel %02d/%02d : ` + "+ ranks" + " | " + `Ring %02d : ` + "+ ranks", Since: v(2, 4, 2),
		Ref: ref("v2.22.3-1", "src/graph/rings.cc", "ncclBuildRings"), Bare: true,
		Example: "Channel 00/02 :    0   1   2   3   4   5   6   7", lit: " :", re: rx(`^(?:Channel|Ring) (\d+)(?:/(\d+))? :((?:\s+\d+)+)\s*$`)},
	{Kind: KindRing, ID: "ring.prevnext", Format: `Ring %02d : %d -> %d -> %d`, Since: v(2, 10, 3),
		Ref: ref(t2289, "src/init.cc", "initTransportsRank"), Bare: true,
		Example: "Ring 00 : 1 -> 0 -> 1", lit: "Ring ", re: rx(`^Ring (\d+) : (-?\d+) -> (-?\d+) -> (-?\d+)$`)},
	{Kind: KindTrees, ID: "trees", Format: `Trees%s`, Since: v(2, 4, 2), Ref: ref(t2289, "src/init.cc", "initTransportsRank"), Bare: true,
		Example: "Trees [0] 1/-1/-1->0->7 [1] 1/-1/-1->0->7", lit: "Trees", re: rx(`^Trees(?: \[\d+\]|$)`)},
	{Kind: KindGraph, ID: "graph.pattern", Format: `Pattern %d, crossNic %d, nChannels %d, bw %f/%f, type %s/%s, sameChannels %d`, Since: v(2, 6, 4),
		Ref: ref(t2289, "src/graph/search.cc", "ncclTopoPrintGraph"), Bare: true,
		Example: "Pattern 4, crossNic 0, nChannels 16, bw 40.000000/40.000000, type NVL/PIX, sameChannels 1", lit: "Pattern ",
		re: rx(`^Pattern (\d+), crossNic (\d+), nChannels (\d+), (?:bw|speed) ([\d.]+)/([\d.]+), type (\w+)/(\w+), sameChannels (\d+)`)},
	{Kind: KindConnectedRings, ID: "rings.connected", Format: `Connected all rings` + " | " + `Connected all rings, use ring PXN %d GDR %d`,
		Since: v(2, 8, 3), Ref: ref(t2289, "src/transport/generic.cc", "ncclTransportRingConnect"), Bare: true,
		Example: "Connected all rings, use ring PXN 0 GDR 1", lit: "Connected all rings",
		re: rx(`^Connected all rings(?:, use ring PXN (\d+) GDR (\d+))?`)},
	{Kind: KindConnectedTrees, ID: "trees.connected", Format: `Connected all trees`, Since: v(2, 8, 3),
		Ref: ref(t2289, "src/transport/generic.cc", "ncclTransportTreeConnect"), Bare: true,
		Example: "Connected all trees", lit: "Connected all trees", re: rx(`^Connected all trees`)},
	{Kind: KindCommInfo, ID: "comm.info", Format: `comm %p rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL %d`, Since: v(2, 20, 3),
		Ref: ref(t2289, "src/init.cc", "initTransportsRank"), Bare: true,
		Example: "comm 0x6426550 rank 2 nRanks 8 nNodes 4 localRanks 2 localRank 0 MNNVL 0", lit: " nNodes ",
		re: rx(`^comm (\S+) rank (\d+) nRanks (\d+) nNodes (\d+) localRanks (\d+) localRank (\d+) MNNVL (\d+)`)},
	{Kind: KindMNNVL, ID: "mnnvl", Format: `MNNVL %d cliqueId %x cliqueSize %d cliqueRank %d`, Since: v(2, 21, 5), Until: v(2, 29, 7),
		Ref: ref(t2289, "src/mnnvl.cc", "ncclMnnvlCheck"), Bare: true,
		Example: "MNNVL 1 cliqueId 7ff cliqueSize 72 cliqueRank 3", lit: "MNNVL ", re: rx(`^MNNVL (\d+) cliqueId \S+ cliqueSize (\d+) cliqueRank -?\d+\s*$()`)},
	// 2.30.3 appends the NVL domain (the ranks of the cluster UUID, every
	// clique): one form per first release
	{Kind: KindMNNVL, ID: "mnnvl.domain", Format: `MNNVL %d cliqueId %x cliqueSize %d cliqueRank %d nvlDomainSize %d`, Since: v(2, 30, 3),
		Ref: ref(t2230, "src/mnnvl.cc", "ncclMnnvlCheck"), Bare: true,
		Example: "MNNVL 1 cliqueId 7ff cliqueSize 36 cliqueRank 3 nvlDomainSize 72", lit: " nvlDomainSize ",
		re: rx(`^MNNVL (\d+) cliqueId \S+ cliqueSize (\d+) cliqueRank -?\d+ nvlDomainSize (\d+)`)},
	// --- the IB's plane ids (G-NET-IB-PLANE-1)
	{Kind: KindIBPlane, ID: "ib.plane.max", Format: `NCCL cannot use more than %d plane IDs.`, Since: v(2, 30, 7),
		Ref: ref(t2230, "src/transport/net_ib/init.cc", "ncclIbGetPlaneIndex"), Bare: true,
		Example: "NCCL cannot use more than 14 plane IDs.", lit: "NCCL cannot use more than ", re: rx(`^NCCL cannot use more than (\d+) plane IDs\.`)},
	{Kind: KindIBPlane, ID: "ib.plane.id", Format: `NCCL cannot use a plane ID that is %d.`, Since: v(2, 30, 7),
		Ref: ref(t2230, "src/transport/net_ib/init.cc", "ncclIbGetPlaneIndex"), Bare: true,
		Example: "NCCL cannot use a plane ID that is 16384.", lit: "NCCL cannot use a plane ID that is ", re: rx(`^NCCL cannot use a plane ID that is (-?\d+)\.`)},
	// --- a GIN connection with NCCL_GIN_ENABLE=0 (G-GIN-CONN-1; also
	// ncclRmaProxyConnectOnce's at 2.29.2-2.30.4)
	{Kind: KindGinDisabled, ID: "gin.disabled", Format: `GIN is disabled.`, Since: v(2, 28, 7),
		Ref: ref(t2230, "src/gin/gin_host.cc", "ncclGinConnectOnce"), Bare: true,
		Example: "GIN is disabled.", lit: "GIN is disabled.", re: rx(`^GIN is disabled\.`)},
	// --- several ranks on one GPU (G-DEV-DUP-1)
	{Kind: KindDupGPU, ID: "init.dupgpu", Format: `Duplicate GPU detected : rank %d and rank %d both on CUDA device %lx`, Since: v(2, 5, 6), Until: v(2, 29, 7),
		Ref: ref("v2.29.7-1", "src/init.cc", "initTransportsRank"), Bare: true,
		Example: "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 90000", lit: "Duplicate GPU detected",
		re: rx(`^Duplicate GPU detected : rank (\d+) and rank (\d+) both on CUDA device ([0-9a-fA-F]+)`)},
	{Kind: KindDupGPU, ID: "init.multirank.detected", Format: `Detected ranks %d and %d sharing GPU with bus %lX on this node`, Since: v(2, 30, 3), Until: v(2, 30, 4),
		Ref: ref("v2.30.4-1", "src/graph/topo.cc", "ncclCheckMultiRank"), Bare: true,
		Example: "Detected ranks 0 and 1 sharing GPU with bus 90000 on this node", lit: "sharing GPU with bus",
		re: rx(`^Detected ranks (\d+) and (\d+) sharing GPU with bus ([0-9a-fA-F]+) on this node`)},
	{Kind: KindDupGPU, ID: "init.multirank", Format: `Multiple ranks detected using the same GPU on this node. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.`,
		Since: v(2, 30, 3), Until: v(2, 30, 4), Ref: ref("v2.30.4-1", "src/graph/topo.cc", "ncclCheckMultiRank"), Bare: true,
		Example: "Multiple ranks detected using the same GPU on this node. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
		lit:     "Multiple ranks detected using the same GPU on this node.", re: rx(`^Multiple ranks detected using the same GPU on this node\. Set NCCL_MULTI_RANK_GPU_ENABLE=1`)},
	{Kind: KindDupGPU, ID: "init.multirank.nvls", Format: `Multiple ranks detected using the same GPU on this node and NCCL_NVLS_ENABLE has been set to "1". At this time multiple ranks per gpu is incompatible with NVLS.`,
		Since: v(2, 30, 3), Until: v(2, 30, 4), Ref: ref("v2.30.4-1", "src/init.cc", "initTransportsRank"), Bare: true,
		Example: `Multiple ranks detected using the same GPU on this node and NCCL_NVLS_ENABLE has been set to "1". At this time multiple ranks per gpu is incompatible with NVLS.`,
		lit:     "multiple ranks per gpu is incompatible with", re: rx(`^Multiple ranks detected using the same GPU on this node and NCCL_NVLS_ENABLE has been set to "1"`)},
	{Kind: KindDupGPU, ID: "init.multirank.allowed", Format: `Multiple ranks on the same GPU detected and allowed. Disabling NVLS.`,
		Since: v(2, 30, 3), Until: v(2, 30, 4), Ref: ref("v2.30.4-1", "src/init.cc", "initTransportsRank"), Bare: true,
		Example: "Multiple ranks on the same GPU detected and allowed. Disabling NVLS.", lit: "Multiple ranks on the same GPU detected and allowed",
		re: rx(`^Multiple ranks on the same GPU detected and allowed\. Disabling NVLS\.`)},
	{Kind: KindDupGPU, ID: "init.multirank.uuid", Format: `Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.`,
		Since: v(2, 30, 7), Ref: ref(t2230, "src/init.cc", "initTransportsRank"), Bare: true,
		Example: "Multiple Ranks are using the same GPU/Partition. Set NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.",
		lit:     "Multiple Ranks are using the same GPU/Partition", re: rx(`^Multiple Ranks are using the same GPU/Partition\.`)},
	// --- glibc stopping the process on a second free: after an init
	// error, ncclCommInitRank's fail path at 2.24.3-2.25.1 (G-INIT-ABORT-1).
	// The C library prints it, not NCCL: no tag, no release range.
	{Kind: KindDoubleFree, ID: "proc.doublefree", Format: `free(): double free detected in tcache 2` + " | " + `double free or corruption (%s)`,
		Ref: spec.Ref{File: "malloc/malloc.c", Func: "_int_free"}, Bare: true,
		Example: "free(): double free detected in tcache 2", lit: "double free",
		re: rx(`^(?:free\(\): double free detected in tcache 2|double free or corruption \((?:fasttop|top|out|!prev)\))`)},
	// --- MLOPart partitions in the topology (G-TOPO-MLOPART-1)
	{Kind: KindMLOPart, ID: "topo.mlopart.index", Format: `MLOPart index %d out of range (max %d)`, Since: v(2, 30, 7),
		Ref: ref(t2230, "src/graph/topo.cc", "ncclTopoAddGpuSub"), Bare: true,
		Example: "MLOPart index 2 out of range (max 1)", lit: "MLOPart index ",
		re: rx(`^MLOPart index (-?\d+) out of range \(max (\d+)\)`)},
	{Kind: KindMLOPart, ID: "topo.mlopart.busid", Format: `BusId 0x%lx has non-zero bits in MLOPart mask 0x%llx, cannot encode MLOPart partition index without collision`,
		Since: v(2, 30, 7), Ref: ref(t2230, "src/graph/topo.cc", "ncclTopoCheckMloPartBusId"), Bare: true,
		Example: "BusId 0x90001 has non-zero bits in MLOPart mask 0x3, cannot encode MLOPart partition index without collision",
		lit:     "has non-zero bits in MLOPart mask", re: rx(`^BusId 0x([0-9a-f]+) has non-zero bits in MLOPart mask 0x([0-9a-f]+)`)},
	{Kind: KindMNNVLCrossClique, ID: "mnnvl.crossclique", Format: `Cross-clique P2P enabled: nvlDomainSize=%d cliqueSize=%d`, Since: v(2, 30, 3),
		Ref: ref(t2230, "src/init.cc", "initTransportsRank"), Bare: true,
		Example: "Cross-clique P2P enabled: nvlDomainSize=16 cliqueSize=8", lit: "Cross-clique P2P enabled",
		re: rx(`^Cross-clique P2P enabled: nvlDomainSize=(\d+) cliqueSize=(\d+)`)},
	{Kind: KindMNNVLFabric, ID: "mnnvl.fabric", Format: `MNNVL busId 0x%lx fabric UUID %lx.%lx cliqueId 0x%x state %d healthMask 0x%x`, Since: v(2, 21, 5),
		Ref: ref(t2289, "src/init.cc", "fillInfo"), Bare: true,
		Example: "MNNVL busId 0x1b000 fabric UUID 2c1fa6a2d12e4b5e.9f0e5c3b7d1a2b3c cliqueId 0x7ff state 3 healthMask 0x0", lit: "MNNVL busId ",
		re: rx(`^MNNVL busId (\S+) fabric UUID (\S+) cliqueId (\S+) state (\d+) healthMask (\S+)`)},
	{Kind: KindUsingNetwork, ID: "net.using.internal", Format: `Using internal Network %s`, Since: v(2, 3, 5), Until: v(2, 3, 7),
		Ref: ref("v2.3.7-1", "src/init.cu", "initNet"), Bare: true,
		Example: "Using internal Network Socket", lit: "Using internal Network ", re: rx(`^Using internal Network (.+)$`)},
	{Kind: KindInitStart, ID: "init.start", Format: `%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init START`,
		Since: v(2, 18, 3), Ref: ref(t2289, "src/init.cc", "ncclCommInitRankFunc"), Bare: true,
		Example: "ncclCommInitRankConfig comm 0xaaaaad564770 rank 7 nranks 8 cudaDev 3 nvmlDev 3 busId 1901000 commId 0x2f24707b1170cb7f - Init START",
		lit:     "Init START", re: rx(`comm (\S+) rank (\d+) nranks (\d+) cudaDev (\d+)(?: nvmlDev (\d+))?(?: busId ([0-9a-fA-F]+))?.*Init START$`)},
	// The confidential-compute status and the init timings change wording
	// between releases, which dates a log that lost its version line.
	{Kind: KindCCStatus, ID: "init.cc.multigpu", Format: `CC %s, Multi-GPU CC %s, workFifoBytes %d`,
		Since: v(2, 22, 3), Until: v(2, 23, 4), Ref: ref("v2.23.4-1", "src/init.cc", "devCommSetup"), Bare: true,
		Example: "CC Off, Multi-GPU CC Off, workFifoBytes 1048576", lit: "CC ", re: rx(`^CC (On|Off), Multi-GPU CC (On|Off), workFifoBytes (\d+)`)},
	{Kind: KindCCStatus, ID: "init.cc", Format: `CC %s, workFifoBytes %d`,
		Since: v(2, 24, 3), Ref: ref(t2230, "src/init.cc", "devCommSetup"), Bare: true,
		Example: "CC Off, workFifoBytes 1048576", lit: "CC ", re: rx(`^CC (On|Off), workFifoBytes (\d+)`)},
	{Kind: KindInitTimings, ID: "init.timings.old", Format: `Init timings: rank %d nranks %d total %.2f (kernels %.2f, bootstrap %.2f, ...)`,
		Since: v(2, 22, 3), Until: v(2, 22, 3), Ref: ref("v2.22.3-1", "src/init.cc", "ncclCommInitRankFunc"), Bare: true,
		Example: "Init timings: rank 0 nranks 24 total 3.45 (kernels 0.33, bootstrap 2.75, allgathers 0.10, topo 0.03, graphs 0.12, connections 0.12, rest 0.00)",
		lit:     "Init timings: ", re: rx(`^Init timings: rank (\d+) nranks (\d+) total`)},
	{Kind: KindInitTimings, ID: "init.timings", Format: `Init timings - %s: rank %d nranks %d total %.2f (kernels %.2f, alloc %.2f, ...)`,
		Since: v(2, 23, 4), Ref: ref(t2230, "src/init.cc", "ncclCommInitRankFunc"), Bare: true,
		Example: "Init timings - ncclCommInitRank: rank 0 nranks 2 total 0.52 (kernels 0.21, alloc 0.01, bootstrap 0.05, allgathers 0.00, topo 0.17, graphs 0.00, connections 0.07, rest 0.01)",
		lit:     "Init timings - ", re: rx(`^Init timings - (\w+): rank (\d+) nranks (\d+) total`)},
	{Kind: KindInitComplete, ID: "init.complete", Format: `%s comm %p rank %d nranks %d cudaDev %d nvmlDev %d busId %lx commId 0x%llx - Init COMPLETE`,
		Since: v(2, 4, 2), Ref: ref(t2289, "src/init.cc", "ncclCommInitRankFunc"), Bare: true,
		Example: "comm 0x55e4ee26b070 rank 3 nranks 4 cudaDev 3 nvmlDev 3 busId 61000 commId 0x7849b58874b511a0 - Init COMPLETE",
		lit:     "Init COMPLETE", re: rx(`comm (\S+) rank (\d+) nranks (\d+) cudaDev (\d+)(?: nvmlDev (\d+))?(?: busId ([0-9a-fA-F]+))?.*Init COMPLETE$`)},
	{Kind: KindBootstrap, ID: "bootstrap", Format: `Bootstrap : Using%s` + " | " + `Bootstrap: Using %s`, Since: v(2, 4, 8),
		Ref: ref(t2289, "src/bootstrap.cc", "bootstrapNetInit"), Bare: true,
		Example: "Bootstrap : Using eth0:172.17.0.14<0>", lit: "Bootstrap", re: rx(`^Bootstrap ?: Using ?(.*)$`)},

	// --- tuning model (G-TUNE-*) and per-operation choice (G-SEL-*)
	{Kind: KindTuningHeaderOld, ID: "tuning.header.old", Format: `Latency/AlgBw |` + " %7s/%6s |...", Since: v(2, 5, 6), Until: v(2, 17, 1),
		Ref: ref("v2.17.1-1", "src/graph/tuning.cc", "ncclTopoTuneModel"), Bare: true,
		Example: "Latency/AlgBw |    Tree/    LL |    Tree/ LL128 |    Tree/Simple |    Ring/    LL |    Ring/ LL128 |    Ring/Simple |",
		lit:     "Latency/AlgBw", re: rx(`^\s*Latency/AlgBw \|(.*)$`)},
	{Kind: KindTuningAlgorithm, ID: "tuning.algorithm", Format: `  Algorithm   |` + " %14s   %14s   %14s |...", Since: v(2, 18, 1),
		Ref: ref(t2289, "src/graph/tuning.cc", "ncclTopoTuneModel"), Bare: true,
		Example: "  Algorithm   |                   Tree                |                   Ring                |          CollNetDirect                |",
		lit:     "Algorithm", re: rx(`^\s*Algorithm\s*\|(.*)$`)},
	{Kind: KindTuningProtocol, ID: "tuning.protocol", Format: `  Protocol    |` + " %14s |...", Since: v(2, 18, 1),
		Ref: ref(t2289, "src/graph/tuning.cc", "ncclTopoTuneModel"), Bare: true,
		Example: "  Protocol    |             LL |          LL128 |         Simple |             LL |          LL128 |         Simple |",
		lit:     "Protocol", re: rx(`^\s*Protocol\s*\|(.*)$`)},
	{Kind: KindTuningThreads, ID: "tuning.threads", Format: ` Max NThreads |` + " %14d |...", Since: v(2, 6, 4),
		Ref: ref(t2289, "src/graph/tuning.cc", "ncclTopoTuneModel"), Bare: true,
		Example: " Max NThreads |            512 |            640 |            512 |", lit: "Max NThreads", re: rx(`^\s*Max NThreads\s*\|(.*)$`)},
	{Kind: KindTuningRow, ID: "tuning.row", Format: `%13s |` + " %8.1f/%6.1f |...", Since: v(2, 5, 6),
		Ref: ref(t2289, "src/graph/tuning.cc", "ncclTopoTuneModel"), Bare: true,
		Example: "    Broadcast |     0.0/   0.0 |     0.0/   0.0 |     0.0/   0.0 |     9.3/   5.0 |    18.0/   0.0 |    22.4/  20.0 |",
		lit:     "|", re: rx(`^\s*(Broadcast|Reduce|AllGather|ReduceScatter|AllReduce)\s*\|((?:\s*-?[\d.]+/\s*-?[\d.]+\s*\|)+)\s*$`)},
	{Kind: KindTuning24, ID: "tuning.threads.old", Format: `Using %d threads, Min Comp Cap %d, Trees %s`, Since: v(2, 4, 2), Until: v(2, 4, 8),
		Ref: ref("v2.4.8-1", "src/init.cc", "initTransportsRank"), Bare: true,
		Example: "Using 256 threads, Min Comp Cap 7, Trees enabled up to size 469999", lit: "Min Comp Cap",
		re: rx(`^Using (\d+) threads, Min Comp Cap (\d+), Trees (.*)$`)},
	{Kind: KindThreadThresholds, ID: "tuning.threadthresholds", Format: `threadThresholds %ld/%ld/%ld | ...`, Since: v(2, 5, 6),
		Ref: ref(t2289, "src/graph/tuning.cc", "ncclTopoTuneModel"), Bare: true,
		Example: "threadThresholds 8/8/64 | 128/8/64 | 8/8/512", lit: "threadThresholds ", re: rx(`^threadThresholds `)},
	{Kind: KindAlgoMatrix, ID: "tuning.matrix", Format: `Enabled NCCL Func/Proto/Algo Matrix:%s`, Since: v(2, 24, 3),
		Ref: ref(t2289, "src/graph/tuning.cc", "ncclTopoTuneModel"), Bare: true,
		Example: "Enabled NCCL Func/Proto/Algo Matrix:", lit: "Enabled NCCL Func/Proto/Algo Matrix:",
		re: rx(`^Enabled NCCL Func/Proto/Algo Matrix:(.*)$`)},
	{Kind: KindOpChoice, ID: "op.choice", Format: `%s: %ld Bytes -> Algo %s proto %s channel{Lo..Hi}={%d..%d}`, Since: v(2, 24, 3),
		Ref: ref(t2289, "src/enqueue.cc", "scheduleCollTasksToPlan"), Bare: true,
		Example: "AllReduce: 4194304 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}", lit: " Bytes -> Algo ",
		re: rx(`^(\w+): (\d+) Bytes -> Algo ([A-Za-z_]+) proto ([A-Za-z0-9_]+) channel\{Lo\.\.Hi\}=\{(\d+)\.\.(\d+)\}`)},
	// The unnamed form is rank 0's INFO at 2.20.3-2.22.3 (commented out
	// before) and a TRACE line (debug builds) at every release, so it pins
	// no range; 2.23.4 alone prefixes the INFO with the collective
	// (v2.23.4-1 src/enqueue.cc topoGetAlgoInfo), 2.24.3 replaces it with
	// op.choice.
	{Kind: KindOpChoiceNum, ID: "op.choice.num", Format: `%ld Bytes -> Algo %d proto %d time %f`,
		Since: v(2, 5, 6), Ref: ref("v2.22.3-1", "src/enqueue.cc", "topoGetAlgoInfo"), Bare: true,
		Example: "805306368 Bytes -> Algo 1 proto 2 time 3970.683594", lit: " Bytes -> Algo ",
		re: rx(`^()(\d+) Bytes -> Algo (\d+) proto (\d+) time (-?[\d.]+)`)},
	{Kind: KindOpChoiceNum, ID: "op.choice.num.named", Format: `%s: %ld Bytes -> Algo %d proto %d time %f`,
		Since: v(2, 23, 4), Until: v(2, 23, 4), Ref: ref("v2.23.4-1", "src/enqueue.cc", "topoGetAlgoInfo"), Bare: true,
		Example: "AllReduce: 4096 Bytes -> Algo 0 proto 0 time 25.874907", lit: " Bytes -> Algo ",
		re: rx(`^(\w+): (\d+) Bytes -> Algo (\d+) proto (\d+) time (-?[\d.]+)`)},
	// 2.27.x prints one collective without nWorks (src/enqueue.cc
	// ncclPrepareTasks); 2.28.3+ one line per plan with its tasks.
	{Kind: KindOpSymmetric, ID: "op.symmetric", Format: `%s [Symmetric]: %ld Bytes -> Kernel %s nchannels %d nthreads %d nWorks %d` + " | " +
		`%s [Symmetric]: %ld Bytes -> Kernel %s nchannels %d nthreads %d`, Since: v(2, 27, 3),
		Ref: ref(t2289, "src/scheduler/symmetric_sched.cc", "ncclSymmetricTaskScheduler"), Bare: true,
		Example: "AllReduce [Symmetric]: 1048576 Bytes -> Kernel AllReduce_AGxLL_R nchannels 8 nthreads 512 nWorks 1", lit: "[Symmetric]",
		re: rx(`^(\w+) \[Symmetric\]: (\d{1,19}) Bytes -> Kernel (\w{1,64}) nchannels (\d{1,6}) nthreads (\d{1,6})(?: nWorks (\d{1,6}))?\s*$`)},
	{Kind: KindCollCall, ID: "coll.call", Format: `%s: opCount %lx sendbuff %p recvbuff %p count %zu datatype %d op %d root %d comm %p [nranks=%d] stream %p`,
		Since: v(2, 4, 2), Ref: ref(t2289, "src/enqueue.cc", "ncclEnqueueCheck"), Bare: true,
		Example: "AllReduce: opCount 0 sendbuff 0x7f757de00400 recvbuff 0x7f757de00400 count 1 datatype 7 op 0 root 0 comm 0x55a0be47d620 [nranks=16] stream 0x55a0c85fa4a0",
		lit:     " opCount ", re: rx(`^(\w+): opCount ([0-9a-fA-F]+) sendbuff (\S+) recvbuff (\S+) count (\d+) datatype (\d+) op (\d+) root (-?\d+) comm (\S+) \[nranks=(\d+)\]`)},
	{Kind: KindNoAlgo, ID: "op.noalgo", Format: `Error : no algorithm/protocol available for function %s with datatype %s.%s%s` + " | " +
		`No algorithm/protocol available for function %s with datatype %s.%s%s` + " | " + `Error : no algorithm/protocol available`,
		Since: v(2, 5, 6), Ref: ref(t2289, "src/enqueue.cc", "topoGetAlgoInfo"), Bare: true,
		Example: "Error : no algorithm/protocol available for function AllGather with datatype ncclInt8. NCCL_ALGO was set to NVLS.",
		lit:     "lgorithm/protocol", re: rx(`^(?:Error : no|No) algorithm/protocol (?:nor symKernelId )?available(?: for function (\w+) with datatype (\w+)\.)?(?:\s*NCCL_ALGO was set to (.*?)\.)?(?:\s*NCCL_PROTO was set to (.*?)\.)?\s*$`)},
	{Kind: KindAlgoParseError, ID: "env.algo.parse", Format: `Unrecognized element token "%s" when parsing "%s"` + " | " +
		`Unrecognized prefix token "%s" when parsing "%s"` + " | " + `All entries except the first must have a prefix: "%s"`,
		Since: v(2, 24, 3), Ref: ref(t2289, "src/graph/tuning.cc", "parseList"), Bare: true,
		Example: `Unrecognized element token " Tree" when parsing "Ring, Tree"`, lit: "",
		re: rx(`^(?:Unrecognized (?:element|prefix) token "(.*)" when parsing "(.*)"|All entries except the first must have a prefix: "(.*)")`)},
	{Kind: KindErrTrace, ID: "err.trace", Format: `%s:%d -> %d` + " | " + `%s:%d -> %d (%s)`, Since: v(2, 4, 2),
		Ref: ref(t2289, "src/include/checks.h", "NCCLCHECK"), Bare: true,
		Example: "transport/net.cc:1008 -> 6", lit: " -> ",
		re: rx(`^(\S+\.(?:cc|c|h|cu|cpp|hpp)):(\d+) -> (\d+)(?: \(([^)]*)\))?(?: \[([^\]]+)\])?\s*$`)},
	// 2.30.7 prints every NCCLCHECK return through INFO_LOC, which puts the
	// function after file:line; a net plugin's own "-> N" traces (through
	// ncclDebugLog) still print none, so err.trace keeps no Until.
	{Kind: KindErrTrace, ID: "err.trace.func", Format: `%s:%d (%s) -> %d` + " | " + `%s:%d (%s) -> %d (%s)`, Since: v(2, 30, 7),
		Ref: ref(t2230, "src/include/debug.h", "INFO_LOC_FN"), Bare: true,
		Example: "nccl/src/register/register.cc:161 (ncclCommRegister) -> 1", lit: ") -> ",
		re: rx(`^(\S+\.(?:cc|c|h|cu|cpp|hpp)):(\d+) \(\w+\) -> (\d+)(?: \(([^)]*)\))?(?: \[([^\]]+)\])?\s*$`)},
	// The INFO forms print file:line first, and from 2.30.7 (INFO_LOC) the
	// function after it.
	{Kind: KindCudaFailure, ID: "cuda.failure", Format: `Cuda failure %d '%s'` + " | " + `Cuda failure '%s'`, Since: v(2, 4, 2),
		Ref: ref(t2289, "src/include/checks.h", "CUDACHECK"), Bare: true,
		Example: "Cuda failure 401 'the operation cannot be performed in the present state'", lit: "Cuda failure ",
		re: rx(`^(?:\S+:\d+ (?:\(\w+\) )?)?Cuda failure (?:(\d+) )?'([^']*)'`)},
	// Before tuner.using, which would take "Using internal tuner plugin."
	// (2.22.3–2.28.3) for a tuner's name.
	{Kind: KindTunerNotFound, ID: "tuner.notfound", Format: `TUNER/Plugin: Could not find:%s` + " | " + `TUNER/Plugin: Using internal tuner plugin.`,
		Since: v(2, 21, 5), Ref: ref(t2289, "src/plugin/plugin_open.cc", "openPluginLib"), Bare: true,
		Example: "TUNER/Plugin: Could not find: libnccl-tuner.so. Using internal tuner plugin.", lit: "TUNER/Plugin: ",
		re: rx(`^TUNER/Plugin: (?:Could not find:|Using internal tuner plugin|Failed to find ncclTunerPlugin)`)},
	{Kind: KindTunerUsing, ID: "tuner.using", Format: `TUNER/Plugin: Using %s (v%d)` + " | " + `TUNER/Plugin: Using tuner plugin %s` +
		" | " + `Successfully loaded external tuner plugin %s`, Since: v(2, 21, 5),
		Ref: ref(t2289, "src/plugin/tuner.cc", "ncclTunerPluginLoad"), Bare: true,
		Example: "TUNER/Plugin: Using nccl_ofi_tuner (v2)", lit: "",
		re: rx(`^(?:TUNER/Plugin: Using (?:tuner plugin )?(.+?)(?: \(v(\d+)\))?|Successfully loaded external tuner plugin (.+))$`)},
	{Kind: KindTunerOpened, ID: "tuner.plugin.nameenv", Format: `TUNER/Plugin: Plugin name set by env to %s`,
		Since: v(2, 21, 5), Until: v(2, 27, 7), Ref: ref("v2.27.7-1", "src/plugin/plugin_open.cc", "openPluginLib"), Bare: true,
		Example: "TUNER/Plugin: Plugin name set by env to libnccl-tuner-example.so", lit: "TUNER/Plugin: Plugin name set by env",
		re: rx(`^TUNER/Plugin: Plugin name set by env to (\S+)$`)},
	{Kind: KindTunerOpenError, ID: "tuner.plugin.openerror", Format: `TUNER/Plugin: %s` + " (dlerror, 2.22-2.27) | " + `%s/Plugin: %s: %s` + " (name, dlerror, 2.28+)",
		Since: v(2, 22, 3), Ref: ref(t2289, "src/plugin/plugin_open.cc", "openPluginLib"), Bare: true,
		Example: "TUNER/Plugin: libnccl-tuner.so: undefined symbol: ncclDebugLog", lit: "TUNER/Plugin: ",
		re: rx(`^TUNER/Plugin: (\S+?): (.+)$`)},
	{Kind: KindProfilerNotFound, ID: "profiler.notfound", Format: `PROFILER/Plugin: Could not find:%s`, Since: v(2, 23, 4),
		Ref: ref(t2289, "src/plugin/plugin_open.cc", "openPluginLib"), Bare: true,
		Example: "PROFILER/Plugin: Could not find: libnccl-profiler.so.", lit: "PROFILER/Plugin:", re: rx(`^PROFILER/Plugin: `)},

	// --- what frameworks print from NCCL's result (bare only; PyTorch ProcessGroupNCCL, nccl-tests)
	{Kind: KindFrameworkError, ID: "framework.error", Format: `NCCL error in: %s:%d, %s, NCCL version %s` + " | " + `Test NCCL failure %s:%d '%s / %s'`,
		Since: v(2, 4, 2), Ref: ref(t2289, "src/init.cc", "ncclGetErrorString"), Bare: true,
		Example: "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3",
		lit:     "NCCL ", re: rx(`(?:NCCL error in: |Test NCCL failure |NCCL error: )(.*?)(unhandled cuda error|unhandled system error|internal error|invalid argument|invalid usage|remote process exited or there was a network error|NCCL operation in progress)(?:.*?NCCL version (\d+\.\d+\.\d+\S*))?`)},
	{Kind: KindLastError, ID: "framework.lasterror", Format: `Last error:` + " (PyTorch, followed by ncclGetLastError's text)",
		Since: v(2, 13, 4), Ref: ref(t2289, "src/init.cc", "ncclGetLastError"), Bare: true,
		Example: "Last error:", lit: "Last error", re: rx(`^Last error:\s*(.*)$`)},
	{Kind: KindResultName, ID: "framework.result", Format: `ncclInternalError: Internal check failed.` + " (ncclResult_t name: text)",
		Since: v(2, 4, 2), Ref: ref(t2289, "src/init.cc", "ncclGetErrorString"), Bare: true,
		Example: "ncclInternalError: Internal check failed.", lit: "nccl",
		re: rx(`^(ncclUnhandledCudaError|ncclSystemError|ncclInternalError|ncclInvalidArgument|ncclInvalidUsage|ncclRemoteError|ncclInProgress): (.*)$`)},
}

// rx compiles a catalogue expression; a bad one is a programming error
// caught by the package's tests on first use, so MustCompile is right here.
func rx(s string) *regexp.Regexp { return regexp.MustCompile(s) }

// catalogueIndex lists, for each first byte of a message, the forms that
// can match it in catalogue order: the forms anchored on a literal starting
// with that byte plus every form without such a literal. It is computed
// once from the immutable Catalogue and never modified.
var catalogueIndex, cataloguePrefix = buildIndex()

// buildIndex also returns each form's anchored literal prefix, which a
// message must start with before the form's expression is tried.
func buildIndex() (idx [256][]int, prefix []string) {
	prefix = make([]string, len(Catalogue))
	for i := range Catalogue {
		pre := anchoredPrefix(Catalogue[i].re.String())
		prefix[i] = pre
		for b := 0; b < 256; b++ {
			if pre == "" || pre[0] == byte(b) {
				idx[b] = append(idx[b], i)
			}
		}
	}
	return idx, prefix
}

// anchoredPrefix is the literal text an anchored expression starts with
// ("" when it is not anchored or starts with a class or group).
func anchoredPrefix(re string) string {
	if !strings.HasPrefix(re, "^") {
		return ""
	}
	re = re[1:]
	n := 0
	for n < len(re) && !strings.ContainsRune(`\.+*?()[]{}|$^`, rune(re[n])) {
		n++
	}
	if n < len(re) && strings.ContainsRune("+*?{", rune(re[n])) && n > 0 {
		n-- // the last literal character is repeated or optional
	}
	return re[:n]
}

// match returns the first form (index into Catalogue) whose expression
// matches msg, with the submatches; bareOnly restricts to forms that may
// appear without a prefix.
func match(msg string, bareOnly bool) (int, []string) {
	m := strings.TrimLeft(msg, " ")
	if m == "" {
		return -1, nil
	}
	for _, i := range catalogueIndex[m[0]] {
		f := &Catalogue[i]
		if bareOnly && !f.Bare || !strings.HasPrefix(m, cataloguePrefix[i]) {
			continue
		}
		if f.lit != "" && !strings.Contains(msg, f.lit) {
			continue
		}
		if sub := f.re.FindStringSubmatch(m); sub != nil {
			return i, sub
		}
	}
	return -1, nil
}

// Match reports the catalogue form a message matches, for tools and tests.
func Match(msg string) (Form, []string, bool) {
	i, sub := match(msg, false)
	if i < 0 {
		return Form{}, nil, false
	}
	return Catalogue[i], sub, true
}

// IsDupGPUWarn says whether an error is a WARN of several ranks on one GPU
// (a KindDupGPU form, G-DEV-DUP-1), whichever release's text it has.
func IsDupGPUWarn(e LogError) bool {
	if e.Level != LevelWarn {
		return false
	}
	for i := range Catalogue {
		if Catalogue[i].Kind == KindDupGPU && Catalogue[i].ID == e.Kind {
			return true
		}
	}
	return false
}

// KindName is the stable name of a kind (the ID of its first form).
func KindName(k Kind) string {
	for i := range Catalogue {
		if Catalogue[i].Kind == k {
			return Catalogue[i].ID
		}
	}
	if k == KindWarn {
		return "warn"
	}
	return "unknown"
}
