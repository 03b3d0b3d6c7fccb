// Package browser holds the headless-browser test of the pages gatesim
// writes (whatif --out DIR's index.html, diagnose --html FILE). It is a
// module of its own so that the browser driver (chromedp) is no dependency
// of gatesim; `make browser` runs it with the gatesim binary it built.
package browser
