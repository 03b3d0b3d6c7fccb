package diagnose

import (
	"fmt"

	"github.com/gatesim/gatesim/ncclog"
	"github.com/gatesim/gatesim/spec"
)

// PluginGuess is the net plugin a log names in its own lines, as gatesim
// models it: which, how the log said so, or why it could not tell.
type PluginGuess struct {
	// Name is the plugin as --plugin names it ("aws-ofi-nccl@1.18.0:g7e.8xlarge";
	// "aws-ofi-nccl@1.16.2" on an instance type the log does not name).
	Name string `json:"name"`
	// How says which lines named it; Missing why it is not used, when not.
	How     string         `json:"how"`
	Missing string         `json:"missing,omitempty"`
	Libs    []spec.Library `json:"-"`
}

// InferPlugin reads the plugin from aws-ofi-nccl's own lines: its version
// ("Initializing aws-ofi-nccl 1.18.0"), the instance type its tuner names,
// and "disabling GDR". A version with the instance type is the plugin on
// that platform; a version with "disabling GDR" and no instance type is
// the plugin on a family without GDR, which its tuner has no regions for
// (spec.OFIPluginWithoutGDR); a version alone leaves the platform, and so
// GDR and the tuner, unknown. nil: the log has no aws-ofi-nccl version
// line.
func InferPlugin(l *ncclog.Log) *PluginGuess {
	o := l.Plugin.OFI
	if o.Version == "" {
		return nil
	}
	g := &PluginGuess{Name: spec.OFIPluginName + "@" + o.Version,
		How: fmt.Sprintf("version %s from line %d", o.Version, o.VersionAt.Line)}
	var err error
	switch {
	case o.Platform != "":
		g.Name += ":" + o.Platform
		g.How += fmt.Sprintf(", instance type %s from line %d", o.Platform, o.PlatformAt.Line)
		g.Libs, err = spec.OFIPlugin(o.Version, o.Platform)
	case o.NoGDRAt.Line > 0:
		g.How += fmt.Sprintf(", no GDR from line %d (no instance type printed: a family without GDR, where its tuner keeps NCCL's choice)", o.NoGDRAt.Line)
		g.Libs, err = spec.OFIPluginWithoutGDR(o.Version)
	default:
		g.Missing = "the log names neither the instance type (the tuner's \"for platform\" line) nor \"disabling GDR\": GDR and the plugin's tuner are not known"
	}
	if err != nil {
		g.Libs, g.Missing = nil, err.Error()
	}
	return g
}

// withLoggedPlugin is sys with the plugin the log names on every node,
// when no node has a net plugin library and the guess is usable.
func withLoggedPlugin(sys *spec.System, g *PluginGuess) *spec.System {
	if g == nil || len(g.Libs) == 0 || sys == nil {
		return sys
	}
	for _, n := range sys.Nodes {
		for _, lib := range n.Libs {
			if lib.Net != nil || len(lib.NetSymbols) > 0 {
				return sys
			}
		}
	}
	out := *sys
	out.Nodes = make([]spec.Node, len(sys.Nodes))
	for i, n := range sys.Nodes {
		n.Libs = append(append([]spec.Library(nil), n.Libs...), g.Libs...)
		out.Nodes[i] = n
	}
	return &out
}

// loggedPlugin is the finding that names the plugin the log's own lines
// give, and how, or why it is not known.
func (d *diag) loggedPlugin() {
	g := InferPlugin(d.l)
	if g == nil {
		return
	}
	f := Finding{ID: "net-plugin.logged", Severity: Info, Cap: spec.CapNetPlugin, Level: d.cap(spec.CapNetPlugin).Level,
		Title: "the log names the net plugin " + g.Name + " (a prediction on a machine given without a net plugin uses it): " + g.How}
	if g.Missing != "" {
		f.ID, f.Title = "net-plugin.logged-partly", f.Title+"; not used to predict: "+g.Missing
	}
	d.add(f)
}
