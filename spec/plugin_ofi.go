package spec

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gatesim/gatesim/spec/tuning"
)

// aws-ofi-nccl, the network plugin AWS ships for EFA, as the libraries NCCL
// finds. Every fact is read from aws/aws-ofi-nccl at its release tags (the
// NVIDIA build, src/nccl_ofi_interface_nvidia.c(pp) and its Makefile) and
// holds from the first version named with it; NCCL's side (which names it
// opens, which ABI it accepts, how it picks a network by name) is the
// release's own rules, unchanged.

// OFIPluginName is the name gatesim's inputs give the plugin
// ("aws-ofi-nccl@1.18.0:g7e.8xlarge").
const OFIPluginName = "aws-ofi-nccl"

// ofiVersion is an aws-ofi-nccl release: major, minor, patch.
type ofiVersion [3]int

func (v ofiVersion) less(o ofiVersion) bool { return slices.Compare(v[:], o[:]) < 0 }

// String is the version as the plugin's PACKAGE_STRING prints it: the
// 1.7.0 to 1.13.2 releases were tagged and configured "X.Y.Z-aws"
// (configure.ac AC_INIT).
func (v ofiVersion) String() string {
	s := fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2])
	if !v.less(ofiVersion{1, 7, 0}) && v.less(ofiVersion{1, 14, 0}) {
		s += "-aws"
	}
	return s
}

// ofiReleases are the aws-ofi-nccl releases modelled: every tag from
// v1.6.0 to v1.21.1 (release candidates left out).
var ofiReleases = []string{
	"1.6.0", "1.7.0", "1.7.1", "1.7.2", "1.7.3", "1.7.4", "1.8.0", "1.8.1", "1.9.0", "1.9.1", "1.9.2",
	"1.10.0", "1.11.0", "1.11.1", "1.12.0", "1.12.1", "1.13.0", "1.13.1", "1.13.2", "1.14.0", "1.14.1",
	"1.14.2", "1.15.0", "1.16.0", "1.16.1", "1.16.2", "1.16.3", "1.17.0", "1.17.1", "1.17.2", "1.17.3",
	"1.18.0", "1.19.0", "1.19.1", "1.19.2", "1.20.0", "1.21.0", "1.21.1",
}

// OFIPluginReleases lists the aws-ofi-nccl releases gatesim models.
func OFIPluginReleases() []string { return slices.Clone(ofiReleases) }

// parseOFIVersion reads "1.18.0", "v1.18.0" or "1.12.1-aws": one of the
// modelled releases.
func parseOFIVersion(s string) (ofiVersion, error) {
	t := strings.TrimSuffix(strings.TrimPrefix(s, "v"), "-aws")
	var v ofiVersion
	parts := strings.Split(t, ".")
	ok := len(parts) == 3 && slices.Contains(ofiReleases, t)
	for i := 0; ok && i < 3; i++ {
		v[i], _ = strconv.Atoi(parts[i])
	}
	if !ok {
		return v, fmt.Errorf("%s version %q: expected one of %s", OFIPluginName, s, strings.Join(ofiReleases, ", "))
	}
	return v, nil
}

// PluginFact is one behaviour of a plugin NCCL loads that gatesim
// carries: its ID, the plugin releases it holds for and where it is in
// the plugin's repository at the first of them. NetABI and TunerABI are
// the symbol versions a fact about exports gives.
type PluginFact struct {
	ID           RuleID
	Repo         string
	Since, Until ofiVersion // Until: the first release without it (zero: none yet)
	Ref          Ref
	Doc          string
	NetABI       [2]int // lowest and highest ncclNetPlugin_vN
	TunerABI     []int
}

// holds reports whether the fact holds for release v.
func (f PluginFact) holds(v ofiVersion) bool {
	return !v.less(f.Since) && (f.Until == ofiVersion{} || v.less(f.Until))
}

// Releases names the plugin releases the fact holds for.
func (f PluginFact) Releases() string {
	if f.Until == (ofiVersion{}) {
		return f.Since.String() + "+"
	}
	return f.Since.String() + " up to " + f.Until.String() + " (excluded)"
}

const ofiRepo = "aws/aws-ofi-nccl"

func ofiRef(tag, file, fn string) Ref { return Ref{Tag: tag, File: file, Func: fn} }

// ofiFacts are aws-ofi-nccl's behaviours, each read at its tags (the
// NVIDIA build: src/nccl_ofi_interface_nvidia.c(pp), src/Makefile.am).
var ofiFacts = []PluginFact{
	{ID: "P-OFI-ABI-1", Since: ofiVersion{1, 6, 0}, Until: ofiVersion{1, 8, 0}, NetABI: [2]int{2, 6},
		Ref: ofiRef("v1.6.0", "src/compat_v6.c", "ncclNetPlugin_v6"), Doc: "exports ncclNetPlugin_v2 to _v6"},
	{ID: "P-OFI-ABI-1", Since: ofiVersion{1, 8, 0}, Until: ofiVersion{1, 9, 0}, NetABI: [2]int{2, 7},
		Ref: ofiRef("v1.8.0-aws", "src/nccl_ofi_interface_nvidia.c", "ncclNetPlugin_v7"), Doc: "adds ncclNetPlugin_v7"},
	{ID: "P-OFI-ABI-1", Since: ofiVersion{1, 9, 0}, Until: ofiVersion{1, 14, 0}, NetABI: [2]int{2, 8},
		Ref: ofiRef("v1.9.0-aws", "src/nccl_ofi_interface_nvidia.c", "ncclNetPlugin_v8"), Doc: "adds ncclNetPlugin_v8"},
	{ID: "P-OFI-ABI-1", Since: ofiVersion{1, 14, 0}, Until: ofiVersion{1, 15, 0}, NetABI: [2]int{2, 9},
		Ref: ofiRef("v1.14.0", "src/nccl_ofi_interface_nvidia.c", "ncclNetPlugin_v9"), Doc: "adds ncclNetPlugin_v9"},
	{ID: "P-OFI-ABI-1", Since: ofiVersion{1, 15, 0}, Until: ofiVersion{1, 17, 2}, NetABI: [2]int{2, 10},
		Ref: ofiRef("v1.15.0", "src/nccl_ofi_interface_nvidia.cpp", "ncclNetPlugin_v10"), Doc: "adds ncclNetPlugin_v10"},
	{ID: "P-OFI-ABI-1", Since: ofiVersion{1, 17, 2}, Until: ofiVersion{1, 19, 0}, NetABI: [2]int{2, 11},
		Ref: ofiRef("v1.17.2", "src/nccl_ofi_interface_nvidia.cpp", "ncclNetPlugin_v11"), Doc: "adds ncclNetPlugin_v11"},
	{ID: "P-OFI-ABI-1", Since: ofiVersion{1, 19, 0}, Until: ofiVersion{1, 20, 0}, NetABI: [2]int{6, 11},
		Ref: ofiRef("v1.19.0", "src/nccl_ofi_interface_nvidia.cpp", "ncclNetPlugin_v6"), Doc: "drops ncclNetPlugin_v2 to _v5"},
	{ID: "P-OFI-ABI-1", Since: ofiVersion{1, 20, 0}, NetABI: [2]int{6, 12},
		Ref: ofiRef("v1.20.0", "src/nccl_ofi_interface_nvidia.cpp", "ncclNetPlugin_v12"), Doc: "adds ncclNetPlugin_v12"},
	{ID: "P-OFI-NAME-1", Since: ofiVersion{1, 6, 0}, Until: ofiVersion{1, 13, 0},
		Ref: ofiRef("v1.12.1-aws", "src/nccl_ofi_interface_nvidia.c", "ncclNetPlugin_v8"),
		Doc: `every ncclNetPlugin_vN struct is named "AWS Libfabric"`},
	{ID: "P-OFI-NAME-2", Since: ofiVersion{1, 13, 0},
		Ref: ofiRef("v1.13.0-aws", "src/nccl_ofi_interface_nvidia.c", "nvidia_plugin_name_fixup"),
		Doc: `the structs are named "Libfabric"; a constructor renames them "AWS Libfabric" or "OFI" when getenv("NCCL_NET") is that name, ignoring case`},
	{ID: "P-OFI-LIB-1", Since: ofiVersion{1, 6, 0}, Until: ofiVersion{1, 15, 0},
		Ref: ofiRef("v1.14.0", "src/Makefile.am", "lib_LTLIBRARIES"), Doc: "the plugin is libnccl-net.so"},
	{ID: "P-OFI-LIB-2", Since: ofiVersion{1, 15, 0},
		Ref: ofiRef("v1.15.0", "src/Makefile.am", "lib_LTLIBRARIES"),
		Doc: "the plugin is libnccl-net-ofi.so, with libnccl-net.so beside it (a symlink to 1.16.x, a library of its own from 1.17.0)"},
	{ID: "P-OFI-GDR-1", Since: ofiVersion{1, 6, 0},
		Ref: ofiRef("v1.18.0", "src/nccl_ofi_ofiutils.cpp", "nccl_ofi_ofiutils_ep_create"),
		Doc: `where libfabric cannot use CUDA memory the plugin logs "Could not disable CUDA API usage for HMEM, disabling GDR" and its devices' ptrSupport is host memory only`},
	{ID: "P-OFI-PROTO-1", Since: ofiVersion{1, 15, 0}, Until: ofiVersion{1, 16, 0},
		Ref: ofiRef("v1.15.0", "src/nccl_ofi_net.cpp", "nccl_net_ofi_create_plugin"),
		Doc: "without GDR, init sets NCCL_PROTO=simple when unset (setenv)"},
	{ID: "P-OFI-PROTO-2", Since: ofiVersion{1, 16, 0},
		Ref: ofiRef("v1.16.0", "src/nccl_ofi_net.cpp", "nccl_net_ofi_create_plugin"),
		Doc: `without GDR, init logs "Need to force simple protocol: GDR not supported" and adds NCCL_PROTO=simple to the environment unless set (env_manager::update_environment: "Adding ..." or "Skipping adding ..., already set")`},
	{ID: "P-OFI-TUNER-1", Since: ofiVersion{1, 16, 0}, Until: ofiVersion{1, 20, 0}, TunerABI: []int{1, 2, 3},
		Ref: ofiRef("v1.16.0", "src/tuner/nccl_ofi_tuner.cpp", "nccl_ofi_tuner_init"),
		Doc: "the tuner is inside the net library (ncclTunerPlugin_v1 to _v3); on an instance type without its region or model tables it declines at init and NCCL's choice stands"},
	{ID: "P-OFI-TUNER-1", Since: ofiVersion{1, 20, 0}, TunerABI: []int{2, 3, 6},
		Ref: ofiRef("v1.20.0", "src/tuner/nccl_ofi_tuner.cpp", "nccl_ofi_tuner_init"),
		Doc: "the tuner exports ncclTunerPlugin_v2, _v3 and _v6"},
	{ID: "P-OFI-TUNER-2", Since: ofiVersion{1, 16, 0}, Until: ofiVersion{1, 17, 0},
		Ref: ofiRef("v1.16.0", "src/tuner/nccl_ofi_regions.cpp", "region_get_coll_info_internal_v3"),
		Doc: "on p5, p5e, p5en and p6-b200 with more than two nodes, getCollInfo writes 0.0 into the cell of the first region (a polygon in bytes × ranks, per ranks-per-node count and function) that holds the call and whose cell is not IGNORE (v1/v2: names it, PAT left out, NVLSTree only with NVLS support); on p6-b200 Tree/LL128 AllReduce at 4–32 MiB with 8 ranks per node gets the channel count of the largest chunk"},
	{ID: "P-OFI-TUNER-2", Since: ofiVersion{1, 17, 0}, Until: ofiVersion{1, 18, 0},
		Ref: ofiRef("v1.17.0", "src/tuner/nccl_ofi_tuner.cpp", "nccl_ofi_tuner_init_v2"),
		Doc: "new regions; the v1/v2 init declines when NCCL_ALGO or NCCL_PROTO is set"},
	{ID: "P-OFI-TUNER-2", Since: ofiVersion{1, 18, 0}, Until: ofiVersion{1, 19, 0},
		Ref: ofiRef("v1.18.0", "src/tuner/nccl_ofi_regions.cpp", "region_get_coll_info_internal_v3"),
		Doc: "new regions, p6-b300's among them; on p6-b200 PAT/Simple up to 32 MiB with one rank per node gets 1 or 2 channels"},
	{ID: "P-OFI-TUNER-2", Since: ofiVersion{1, 19, 0}, Until: ofiVersion{1, 21, 0},
		Ref: ofiRef("v1.19.0", "src/tuner/nccl_ofi_regions.cpp", "is_inside_region"),
		Doc: "new regions, and regions, extensions and calls placed in log2 of bytes and ranks"},
	{ID: "P-OFI-TUNER-2", Since: ofiVersion{1, 21, 0},
		Ref: ofiRef("v1.21.0", "src/tuner/nccl_ofi_regions.cpp", "region_get_chunk_size_internal"),
		Doc: "new regions; the v6 getChunkSize sets p5en's Tree/LL128 AllReduce and PAT AllGather chunks with one rank per node (not modelled: OFIPlugin refuses p5en from 1.21.0)"},
}

// OFIPluginFacts are aws-ofi-nccl's behaviours gatesim carries, with the
// releases they hold for and their place in the plugin's source.
func OFIPluginFacts() []PluginFact {
	out := slices.Clone(ofiFacts)
	for i := range out {
		out[i].Repo = ofiRepo
	}
	return out
}

// ofiFact is the fact id that holds for v, if any.
func ofiFact(id RuleID, v ofiVersion) (PluginFact, bool) {
	for _, f := range ofiFacts {
		if f.ID == id && f.holds(v) {
			return f, true
		}
	}
	return PluginFact{}, false
}

func ofiHas(id RuleID, v ofiVersion) bool {
	_, ok := ofiFact(id, v)
	return ok
}

// OFI platform facts (P-OFI-GDR-1): whether the instance's EFA devices
// can read and write GPU memory, by instance family. The g5, g6e and g7e
// logs of docs/public-truth.md print "disabling GDR"; p4d and later P
// instances run GPUDirect RDMA over EFA.
var ofiFamilyGDR = map[string]bool{
	"g4dn": false, "g5": false, "g6": false, "g6e": false, "g7e": false,
	"p4d": true, "p4de": true, "p5": true, "p5e": true, "p5en": true, "p6-b200": true, "p6-b300": true,
}

// OFIPluginDir is where AWS's EFA installer puts the plugin.
const OFIPluginDir = "/opt/amazon/ofi-nccl/lib"

// OFIPlugin is aws-ofi-nccl of one release on one EC2 instance type
// (platform, such as "g7e.8xlarge"): the libraries NCCL can open, each in
// the loader path (P-OFI-LIB-1/2), so NCCL's default libnccl-net.so and
// NCCL_NET_PLUGIN=ofi (libnccl-net-ofi.so, 1.15.0+) find it as they do.
func OFIPlugin(version, platform string) ([]Library, error) {
	v, err := parseOFIVersion(version)
	if err != nil {
		return nil, err
	}
	family, _, ok := strings.Cut(platform, ".")
	gdr, known := ofiFamilyGDR[family]
	if !ok || !known || len(platform) > 64 {
		fams := make([]string, 0, len(ofiFamilyGDR))
		for f := range ofiFamilyGDR {
			fams = append(fams, f)
		}
		sort.Strings(fams)
		return nil, fmt.Errorf("%s platform %q: expected an EC2 instance type FAMILY.SIZE of a family gatesim knows (%s)", OFIPluginName, platform, strings.Join(fams, ", "))
	}
	_, hasTuner := ofiFact("P-OFI-TUNER-1", v)
	if tp, tuned := ofiTunerPlatforms[platform]; hasTuner && tuned && !v.less(tp.since) && !ofiTunerModelled(v, platform) {
		return nil, fmt.Errorf("%s %s on %s: the plugin's own tuner also chooses NCCL's chunk size there (getChunkSize), which gatesim does not model; give a release before 1.21.0 or another instance type", OFIPluginName, v, platform)
	}
	return ofiLibraries(v, gdr, platform), nil
}

// OFIPluginWithoutGDR is aws-ofi-nccl of one release on an instance type
// not named whose EFA devices cannot use GPU memory (a log that says
// "disabling GDR" and names no platform): every such family is one the
// tuner has no regions for, so NCCL's decisions do not depend on which.
func OFIPluginWithoutGDR(version string) ([]Library, error) {
	v, err := parseOFIVersion(version)
	if err != nil {
		return nil, err
	}
	return ofiLibraries(v, false, ""), nil
}

// ofiLibraries are the plugin's libraries of release v on platform (""
// when not known: the tuner's decline then logs no platform line).
func ofiLibraries(v ofiVersion, gdr bool, platform string) []Library {
	tuner, hasTuner := ofiFact("P-OFI-TUNER-1", v)
	abi, _ := ofiFact("P-OFI-ABI-1", v)
	lib := Library{Path: OFIPluginDir + "/libnccl-net.so", InLoaderPath: true, Net: ofiNet(v, gdr)}
	for n := abi.NetABI[0]; n <= abi.NetABI[1]; n++ {
		lib.NetSymbols = append(lib.NetSymbols, n)
	}
	if hasTuner {
		lib.TunerSymbols = slices.Clone(tuner.TunerABI)
		lib.Tuner = &tuning.TunerBehaviour{Name: "nccl_ofi_tuner"}
		switch {
		case ofiTunerModelled(v, platform):
			lib.Tuner.Model = OFIPluginName + "@" + v.String() + ":" + platform
		case platform != "":
			lib.Tuner.InitLog = []string{"NET/OFI NCCL_OFI_TUNER is not available for platform : " + platform + ", Fall back to NCCL's tuner"}
		}
	}
	if !ofiHas("P-OFI-LIB-2", v) {
		return []Library{lib}
	}
	ofi := lib
	ofi.Path = OFIPluginDir + "/libnccl-net-ofi.so"
	return []Library{ofi, lib}
}

// ofiNet is the plugin's network: its name (P-OFI-NAME-1/2), one device
// per EFA NIC, GDR per platform (P-OFI-GDR-1) and NCCL_PROTO=simple
// without it (P-OFI-PROTO-1/2; the in-order delivery reason of earlier
// releases acts on endpoint setup, after NCCL has read NCCL_PROTO for the
// communicator, and is not modelled).
func ofiNet(v ofiVersion, gdr bool) *NetBackend {
	nb := &NetBackend{Name: "AWS Libfabric", Devices: -1, NoGDR: !gdr,
		InitLog: []string{"NET/OFI Initializing " + OFIPluginName + " " + v.String()}}
	if ofiHas("P-OFI-NAME-2", v) {
		nb.Name = "Libfabric"
		nb.NetEnvNames = []string{"AWS Libfabric", "OFI"}
	}
	if gdr {
		return nb
	}
	nb.InitLog = append(nb.InitLog, "NET/OFI Could not disable CUDA API usage for HMEM, disabling GDR")
	switch {
	case ofiHas("P-OFI-PROTO-2", v):
		nb.InitLog = append(nb.InitLog, "NET/OFI Need to force simple protocol: GDR not supported")
		nb.SetEnv = []PluginEnvSet{{Name: "NCCL_PROTO", Value: "simple", Log: "NET/OFI Adding NCCL_PROTO=simple to environment",
			Kept: "NET/OFI Skipping adding NCCL_PROTO=%s to environment, already set"}}
	case ofiHas("P-OFI-PROTO-1", v):
		nb.SetEnv = []PluginEnvSet{{Name: "NCCL_PROTO", Value: "simple",
			Log: "NET/OFI Setting NCCL_PROTO='simple' to prevent data corruption (reason: GDR not supported)"}}
	}
	return nb
}

// NamedPlugin reads a plugin given by name instead of a description file:
// "aws-ofi-nccl@VERSION:PLATFORM". ok is false when s names none, so the
// caller reads it as a file.
func NamedPlugin(s string) (libs []Library, ok bool, err error) {
	rest, found := strings.CutPrefix(s, OFIPluginName+"@")
	if !found {
		return nil, false, nil
	}
	version, platform, cut := strings.Cut(rest, ":")
	if !cut {
		return nil, true, fmt.Errorf("%q: expected %s@VERSION:PLATFORM, such as %s@1.18.0:g7e.8xlarge", s, OFIPluginName, OFIPluginName)
	}
	libs, err = OFIPlugin(version, platform)
	return libs, true, err
}
