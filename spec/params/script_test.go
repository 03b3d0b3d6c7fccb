package params

import (
	"strings"
	"testing"

	"github.com/gatesim/gatesim/spec"
	"github.com/google/go-cmp/cmp"
)

func TestParseScript(t *testing.T) {
	type A = Assignment
	cases := []struct {
		name string
		src  string
		want []A
	}{
		{"export", "export NCCL_DEBUG=INFO\n", []A{{Name: "NCCL_DEBUG", Value: "INFO", Line: 1, Source: SourceExport, Exported: true}}},
		{"several on one export", "export A=1 B='x y' C\n", []A{{Name: "A", Value: "1", Line: 1, Source: SourceExport, Exported: true}, {Name: "B", Value: "x y", Line: 1, Source: SourceExport, Exported: true}}},
		{"plain then export", "NCCL_X=1\nexport NCCL_X\n", []A{{Name: "NCCL_X", Value: "1", Line: 1, Source: SourceAssignment, Exported: true}}},
		{"plain", "NCCL_X=1 # comment\n", []A{{Name: "NCCL_X", Value: "1", Line: 1, Source: SourceAssignment}}},
		{"prefix", "NCCL_A=1 NCCL_B=\"2\" python x.py\n", []A{{Name: "NCCL_A", Value: "1", Line: 1, Source: SourcePrefix, Exported: true}, {Name: "NCCL_B", Value: "2", Line: 1, Source: SourcePrefix, Exported: true}}},
		{"continuation", "NCCL_A=1 \\\n  NCCL_B=2 \\\n  torchrun x\n", []A{{Name: "NCCL_A", Value: "1", Line: 1, Source: SourcePrefix, Exported: true}, {Name: "NCCL_B", Value: "2", Line: 2, Source: SourcePrefix, Exported: true}}},
		{"double quotes and escapes", `export NCCL_X="a \"b\" \$c"` + "\n", []A{{Name: "NCCL_X", Value: `a "b" $c`, Line: 1, Source: SourceExport, Exported: true}}},
		{"ansi", "export NCCL_X=$'a\\tb'\n", []A{{Name: "NCCL_X", Value: "a\tb", Line: 1, Source: SourceExport, Exported: true}}},
		{"dynamic", "export NCCL_SOCKET_IFNAME=$(ip -br a | awk '{print $1}')\n", []A{{Name: "NCCL_SOCKET_IFNAME", Value: "$(ip -br a | awk '{print $1}')", Line: 1, Source: SourceExport, Exported: true, Dynamic: true}}},
		{"set -a", "set -a\nNCCL_A=1\nset +a\nNCCL_B=2\n", []A{{Name: "NCCL_A", Value: "1", Line: 2, Source: SourceAssignment, Exported: true}, {Name: "NCCL_B", Value: "2", Line: 4, Source: SourceAssignment}}},
		{"sbatch", "#SBATCH --export=ALL,NCCL_DEBUG=INFO,NCCL_X=2\n", []A{{Name: "NCCL_DEBUG", Value: "INFO", Line: 1, Source: SourceSbatch, Exported: true}, {Name: "NCCL_X", Value: "2", Line: 1, Source: SourceSbatch, Exported: true}}},
		{"mpirun", "mpirun -np 2 -x NCCL_DEBUG=INFO -genv NCCL_ALGO Ring ./a\n", []A{{Name: "NCCL_DEBUG", Value: "INFO", Line: 1, Source: SourceMPI, Exported: true}, {Name: "NCCL_ALGO", Value: "Ring", Line: 1, Source: SourceMPI, Exported: true}}},
		{"heredoc skipped", "cat <<EOF\nNCCL_A=1\nEOF\nexport NCCL_B=2\n", []A{{Name: "NCCL_B", Value: "2", Line: 4, Source: SourceExport, Exported: true}}},
		{"unset", "export NCCL_A=1\nunset NCCL_A\n", []A{{Name: "NCCL_A", Value: "1", Line: 1, Source: SourceExport, Exported: true}, {Name: "NCCL_A", Line: 2, Source: SourceUnset}}},
		{"if then", "if [ -n \"$X\" ]; then export NCCL_A=1; fi\n", []A{{Name: "NCCL_A", Value: "1", Line: 1, Source: SourceExport, Exported: true}}},
		{"env", "env NCCL_A=1 ./run\n", []A{{Name: "NCCL_A", Value: "1", Line: 1, Source: SourcePrefix, Exported: true}}},
		{"not assignments", "echo NCCL_A=1\n[ \"$NCCL_B\" = 2 ]\n", nil},
	}
	for _, c := range cases {
		got, err := ParseScript("job.sh", []byte(c.src))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", c.name, diff)
		}
	}
}

func TestParseScriptErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"export A=1\nexport B=\"x\n", "job.sh:2: unterminated double quote"},
		{"export A='x\n", "job.sh:1: unterminated single quote"},
		{"X=$(foo\n", "job.sh:1: unterminated ("},
		{"echo `x\n", "job.sh:1: unterminated backquote"},
		{"export 9A=1\n", "job.sh:1: export \"9A=1\": expected a variable name"},
		{"cat <<\n", "job.sh:1: heredoc without a delimiter"},
	}
	for _, c := range cases {
		_, err := ParseScript("job.sh", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseScript(%q): %v, want %q", c.src, err, c.want)
		}
	}
}

func FuzzParseScript(f *testing.F) {
	for _, s := range []string{"export NCCL_A=1\n", "A=1 B=\"2\" cmd\n", "#SBATCH --export=NCCL_X=1\n", "cat <<E\nx\nE\n", "x=$(a \"b\")\n", "set -a; A=1\n", "mpirun -x A=1 -genv B 2\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		as, err := ParseScript("fuzz.sh", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.sh:") {
				t.Fatalf("error without file name: %v", err)
			}
			return
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, a := range as {
			if a.Line < 1 || a.Line > lines {
				t.Fatalf("line %d outside 1..%d", a.Line, lines)
			}
			if !validEnvName(a.Name) {
				t.Fatalf("bad name %q", a.Name)
			}
		}
	})
}

// FuzzJobScript: a job script is read and linted end to end (the env
// command without a machine) with no panic, every variable linted once,
// and the report's counts adding up.
func FuzzJobScript(f *testing.F) {
	for _, s := range []string{
		"#!/bin/bash\n#SBATCH --export=ALL,NCCL_IB_HCA=mlx5\nexport NCCL_ALGO=Ring NCCL_PROTO=^LL128\nsrun --export=NCCL_DEBUG=INFO python x.py\n",
		// long values and many unknown names, kept short enough for the
		// fuzzer to mutate quickly (make hostile runs the full sizes)
		"export NCCL_IB_HCA=" + strings.Repeat("mlx5_0:1,", 200) + "\n",
		strings.Repeat("export NCCL_FOO_BAR=1\n", 20),
		"export NCCL_" + strings.Repeat("X", 300) + "=1\n",
		"export NCCL_NCHANNELS=4M NCCL_MIN_NCHANNELS=010 NCCL_BUFFSIZE=-1\n",
		"cat <<EOF\nunterminated\n",
		"\x00\xff export NCCL_ALGO='",
	} {
		f.Add([]byte(s))
	}
	reg, err := Load(spec.V2_28_9)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		as, err := ParseScript("fuzz.sh", data)
		if err != nil {
			return
		}
		rep := Lint(reg, as, Options{})
		e, w, i := 0, 0, 0
		for _, v := range rep.Vars {
			for _, fd := range v.Findings {
				switch fd.Severity {
				case SevError:
					e++
				case SevWarning:
					w++
				case SevInfo:
					i++
				}
			}
		}
		if e != rep.Errors || w != rep.Warnings || i != rep.Infos {
			t.Fatalf("counts %d/%d/%d, findings %d/%d/%d", rep.Errors, rep.Warnings, rep.Infos, e, w, i)
		}
	})
}
