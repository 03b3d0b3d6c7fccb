package inputfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.txt")
	big := filepath.Join(dir, "big.txt")
	fifo := filepath.Join(dir, "fifo")
	if err := os.WriteFile(small, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, make([]byte, 1025), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, path, want string }{
		{"small regular file", small, ""},
		{"over the cap", big, "big.txt: more than 1024 bytes: expected a file of at most 1 KiB"},
		{"a directory", dir, "a directory: expected a regular file"},
		{"missing", filepath.Join(dir, "none"), "no such file"},
	}
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		cases = append(cases, struct{ name, path, want string }{"a FIFO (not opened: it would block)", fifo, "a FIFO: expected a regular file"})
	}
	if st, err := os.Stat("/dev/zero"); err == nil && st.Mode()&os.ModeDevice != 0 {
		cases = append(cases, struct{ name, path, want string }{"a device", "/dev/zero", "/dev/zero: a device: expected a regular file"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := Read(c.path, 1024)
			if c.want == "" {
				if err != nil || string(data) != "abc" {
					t.Fatalf("%q, %v", data, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one naming %q", err, c.want)
			}
		})
	}
}

func TestReadAllCapsAStream(t *testing.T) {
	if _, err := ReadAll(strings.NewReader(strings.Repeat("x", 2<<20+1)), "standard input", 2<<20); err == nil ||
		!strings.Contains(err.Error(), "standard input: more than 2097152 bytes: expected a file of at most 2 MiB") {
		t.Fatalf("error %v", err)
	}
	if b, err := ReadAll(strings.NewReader("ok"), "standard input", 2); err != nil || string(b) != "ok" {
		t.Fatalf("%q, %v", b, err)
	}
}

// Under reads only inside its directories, and a path outside, missing,
// linked out or not a regular file gets the same refusal: a caller learns
// nothing about files it may not read.
func TestUnderLeaksNothing(t *testing.T) {
	allowed, outside := t.TempDir(), t.TempDir()
	in := filepath.Join(allowed, "sys.json")
	secret := filepath.Join(outside, "secret.json")
	for _, p := range []string{in, secret} {
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(allowed, "link.json")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(allowed, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	read, err := Under([]string{allowed}, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := read(in); err != nil || string(b) != "{}" {
		t.Fatalf("inside: %q, %v", b, err)
	}
	for _, p := range []string{secret, link, filepath.Join(allowed, "none.json"), filepath.Join(allowed, "sub"),
		filepath.Join(allowed, "..", filepath.Base(outside), "secret.json"), "/dev/zero", "/proc/self/status"} {
		_, err := read(p)
		want := `"` + p + `": not a readable file under an allowed directory`
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %s", p, err, want)
		}
	}
	none, err := Under(nil, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := none(in); err == nil {
		t.Errorf("no directories: %s was read", in)
	}
	if _, err := Under([]string{in}, 1024); err == nil || !strings.Contains(err.Error(), "expected a directory") {
		t.Errorf("--allow-dir of a file: %v", err)
	}
}

// TestReadOrStdin: "-" reads standard input, named <stdin>; anything else
// is a file; no standard input is an error.
func TestReadOrStdin(t *testing.T) {
	data, name, err := ReadOrStdin("-", strings.NewReader("NCCL_ALGO=Ring\n"), 1<<10)
	if err != nil || name != "<stdin>" || string(data) != "NCCL_ALGO=Ring\n" {
		t.Errorf("stdin: %q %q %v", data, name, err)
	}
	if _, _, err := ReadOrStdin("-", nil, 1<<10); err == nil {
		t.Error("nil stdin: no error")
	}
	if _, _, err := ReadOrStdin("-", strings.NewReader(strings.Repeat("x", 2048)), 1<<10); err == nil {
		t.Error("stdin over the limit: no error")
	}
	if _, name, err := ReadOrStdin("inputfile.go", nil, 1<<20); err != nil || name != "inputfile.go" {
		t.Errorf("file: %q %v", name, err)
	}
}
