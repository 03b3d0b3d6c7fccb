package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGroupScriptReports: gatesim group names FILE:LINE of the call that
// caused a decision error ("group op N" only inside a group the script
// wrote), and answers an ncclDevCommDestroy of a device communicator that
// is not live as that call's row (undefined, NCCL returns no error)
// instead of refusing the script.
func TestGroupScriptReports(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, script string
		args         []string
		code         int
		stderr       string // prefix of the error line; "" for none
		stdout       []string
	}{
		{"window op on line 5", "init c0\ngroupStart\nallreduce c0 1MiB\nallreduce c0 1MiB\nallreduce c0 1MiB buffers=window\ngroupEnd\n",
			[]string{"--system", "h200x2", "--nccl", "2.22.3"}, exitBadInput, "gatesim: s.txt:5: group op 2: buffers window", nil},
		{"bad root on line 6", "init c0\ngroupStart\nallreduce c0 1MiB\n\n\nbroadcast c0 1MiB root=5\ngroupEnd\n",
			[]string{"--system", "h200x2"}, exitBadInput, "gatesim: s.txt:6: group op 1: root 5 out of range", nil},
		{"lone bad root", "init c0\nbroadcast c0 1MiB root=5\n",
			[]string{"--system", "h200x2"}, exitBadInput, "gatesim: s.txt:2: root 5 out of range", nil},
		{"double destroy decided", "init c0\ndevCommCreate c0\ndevCommDestroy c0 1\ndevCommDestroy c0 1\ndevCommDestroy c0 2\n",
			[]string{"--system", "h200x2"}, exitOK, "", []string{"devComm 1 destroyed", "undefined: devComm 1 is not live (destroyed already", "undefined: devComm 2 is not live", "devComm 2 not live: undefined"}},
		{"double destroy without a machine", "init c0\ndevCommCreate c0\ndevCommDestroy c0 1\ndevCommDestroy c0 1\n",
			nil, exitOK, "", []string{"DevCommDestroy c0 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, "s.txt")
			if err := os.WriteFile(p, []byte(tc.script), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCLI(t, append([]string{"group", p}, tc.args...)...)
			stderr = strings.ReplaceAll(stderr, dir+string(filepath.Separator), "")
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstderr: %s", code, tc.code, stderr)
			}
			if tc.stderr != "" && !strings.HasPrefix(stderr, tc.stderr) {
				t.Errorf("stderr %q, want it to start %q", stderr, tc.stderr)
			}
			if tc.stderr == "" && stderr != "" {
				t.Errorf("stderr %q, want none", stderr)
			}
			if strings.Contains(stderr, "group op") && !strings.Contains(tc.script, "groupStart") {
				t.Errorf("stderr %q names a group the script did not write", stderr)
			}
			flat := strings.Join(strings.Fields(strings.ReplaceAll(stdout, "|", " ")), " ")
			for _, w := range tc.stdout {
				if !strings.Contains(flat, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
		})
	}
}
