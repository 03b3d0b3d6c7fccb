package hw

import (
	"fmt"
	"github.com/gatesim/gatesim/conformance"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gatesim/gatesim/internal/texttable"
	"github.com/gatesim/gatesim/spec"
)

// ReadCaptureTree reads the captures under dir: its subdirectories holding
// a config.json, or those of its subdirectories (a directory of capture
// sets, such as golden/testdata/captured).
func ReadCaptureTree(dir string) ([]*conformance.Capture, error) {
	set, err := ReadCaptureSet(dir)
	if err == nil {
		return set, nil
	}
	ents, rerr := os.ReadDir(dir)
	if rerr != nil {
		return nil, rerr
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if sub, serr := ReadCaptureSet(filepath.Join(dir, e.Name())); serr == nil {
			set = append(set, sub...)
		}
	}
	if len(set) == 0 {
		return nil, err
	}
	return set, nil
}

// WriteCheck prints one summary row per capture, then the rows that differ
// (every row with verbose).
func WriteCheck(w io.Writer, reps []*conformance.CheckReport, verbose bool) error {
	var rows [][]string
	for _, r := range reps {
		status := "agree"
		if n := r.Disagreements(); n > 0 {
			status = fmt.Sprintf("%d differ", n)
		} else if len(r.NotComparable) > 0 {
			status = "not comparable"
		}
		graphs, channels := "-", "-"
		for _, row := range r.Rows {
			switch row.Kind {
			case "graph":
				if graphs == "-" || !row.Agree {
					graphs = agreeWord(row.Agree)
				}
			case "channels":
				channels = agreeWord(row.Agree)
			}
		}
		rows = append(rows, []string{r.Config, r.Release.String(), r.Env.Line(), fmt.Sprintf("%d/%d", r.Gates.Agree, r.Gates.Total), graphs, channels,
			fmt.Sprintf("%d/%d", r.Table.Agree, r.Table.Total), fmt.Sprintf("%d/%d", r.Ops.Agree, r.Ops.Total), status})
	}
	if err := texttable.Write(w, []string{"config", "nccl", "env", "gates", "graphs", "channels", "table cells", "op lines", "result"}, rows, 48); err != nil {
		return err
	}
	for _, r := range reps {
		if len(r.NotComparable) > 0 {
			fmt.Fprintf(w, "\n%s (%s): not comparable:\n", r.Config, r.Dir)
			for _, why := range r.NotComparable {
				fmt.Fprintf(w, "  - %s\n", why)
			}
		}
		var rr [][]string
		for _, row := range r.Rows {
			if verbose || !row.Agree {
				rr = append(rr, []string{row.Kind, row.What, row.Predicted, row.Observed, agreeWord(row.Agree) + " " + row.Note})
			}
		}
		if len(rr) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s (NCCL %s):\n", r.Config, r.Release)
		if err := texttable.Write(w, []string{"kind", "what", "predicted", "observed", ""}, rr, 60); err != nil {
			return err
		}
	}
	return nil
}

func agreeWord(ok bool) string {
	if ok {
		return "agree"
	}
	return "DIFFER"
}

// ParseFuncs reads a comma-separated list; "all" stands for the five
// collectives of the cost table.
func ParseFuncs(s string) ([]spec.Func, error) {
	var out []spec.Func
	seen := map[spec.Func]bool{}
	add := func(f spec.Func) {
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for _, p := range strings.Split(s, ",") {
		if strings.TrimSpace(p) == "all" {
			for _, f := range []spec.Func{spec.AllReduce, spec.AllGather, spec.ReduceScatter, spec.Broadcast, spec.Reduce} {
				add(f)
			}
			continue
		}
		f, err := spec.ParseFunc(p)
		if err != nil {
			return nil, err
		}
		add(f)
	}
	return out, nil
}

// CheckDirs reads the captures under each directory (a capture holding a
// config.json, or a tree of them: ReadCaptureTree) and checks each
// against spec's prediction, sharing one communicator cache.
func CheckDirs(dirs []string) ([]*conformance.CheckReport, error) {
	var caps []*conformance.Capture
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(dir, conformance.CaptureConfig)); err == nil {
			cp, err := ReadCapture(dir)
			if err != nil {
				return nil, err
			}
			caps = append(caps, cp)
			continue
		}
		set, err := ReadCaptureTree(dir)
		if err != nil {
			return nil, err
		}
		caps = append(caps, set...)
	}
	cache := spec.NewCache(0)
	var reps []*conformance.CheckReport
	for _, cp := range caps {
		rep, err := conformance.Check(cp, cache)
		if err != nil {
			return nil, err
		}
		reps = append(reps, rep)
	}
	return reps, nil
}

// WriteProbe prints what Probe found: the libraries, NCCL's version and
// the release it maps to, the driver and the GPUs.
func WriteProbe(w io.Writer, p *ProbeResult) {
	fmt.Fprintf(w, "nccl     %s\nversion  %s (code %d)\n", p.NCCL, p.Version, p.Version.Code())
	if p.Modelled {
		fmt.Fprintf(w, "release  %s (modelled release used for predictions)\n", p.Release)
	} else {
		fmt.Fprintf(w, "release  none: %s is older than every modelled release\n", p.Version)
	}
	fmt.Fprintf(w, "cudart   %s (runtime %d, driver %d)\n", p.CUDART, p.CUDARuntime, p.CUDADriver)
	if p.DriverNote != "" {
		fmt.Fprintf(w, "driver   %s\n", p.DriverNote)
	}
	for _, dev := range p.Devices {
		fmt.Fprintf(w, "gpu %d    %s %s\n", dev.Dev, dev.BusID, dev.Name)
	}
}
