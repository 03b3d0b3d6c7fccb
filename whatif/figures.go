package whatif

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
)

// WriteFigures writes the sweep's plots into dir, each as PNG and SVG
// (busbw, time-nodes), and index.html with the figures and every point;
// it says on log what it wrote and which plot it could not draw.
func WriteFigures(dir, command string, rs []Result, log io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var figs []Figure
	for _, pl := range []struct {
		name string
		mk   func([]Result) (*plot.Plot, error)
	}{{"busbw", BusBwPlot}, {"time-nodes", TimeNodesPlot}} {
		p, err := pl.mk(rs)
		if err != nil {
			fmt.Fprintf(log, "gatesim: %s plot: %v\n", pl.name, err)
			continue
		}
		svg, err := SVG(p)
		if err != nil {
			return err
		}
		figs = append(figs, Figure{Title: p.Title.Text, SVG: svg})
		for _, ext := range []string{"png", "svg"} {
			path := filepath.Join(dir, pl.name+"."+ext)
			if err := Save(p, path); err != nil {
				return err
			}
			fmt.Fprintf(log, "wrote %s\n", path)
		}
	}
	path := filepath.Join(dir, "index.html")
	hf, err := os.Create(path)
	if err != nil {
		return err
	}
	err = WriteHTML(hf, command, figs, rs)
	if cerr := hf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "wrote %s\n", path)
	return nil
}
