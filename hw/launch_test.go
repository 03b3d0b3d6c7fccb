package hw

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDetectLaunch(t *testing.T) {
	cases := []struct {
		name  string
		env   map[string]string
		want  *Launch
		multi bool
		err   string
	}{
		{"none", map[string]string{}, nil, false, ""},
		{"mpirun", map[string]string{"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "8", "OMPI_COMM_WORLD_LOCAL_RANK": "1"},
			&Launch{Launcher: "mpirun", Rank: 3, World: 8, LocalRank: 1}, true, ""},
		{"srun needs a step", map[string]string{"SLURM_PROCID": "1", "SLURM_NTASKS": "2"}, nil, false, ""},
		{"srun", map[string]string{"SLURM_PROCID": "1", "SLURM_NTASKS": "2", "SLURM_LOCALID": "1", "SLURM_STEP_ID": "0", "SLURM_JOB_ID": "77"},
			&Launch{Launcher: "srun", Rank: 1, World: 2, LocalRank: 1, JobID: "77"}, true, ""},
		{"torchrun", map[string]string{"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500"},
			&Launch{Launcher: "torchrun", Rank: 0, World: 2, Store: "10.0.0.1:29501"}, true, ""},
		{"one process", map[string]string{"RANK": "0", "WORLD_SIZE": "1"}, &Launch{Launcher: "torchrun", World: 1}, false, ""},
		{"bad rank", map[string]string{"PMI_RANK": "4", "PMI_SIZE": "4"}, nil, false, "expected 0 <= rank < world"},
		{"bad local", map[string]string{"PMI_RANK": "1", "PMI_SIZE": "4", "MPI_LOCALRANKID": "x"}, nil, false, "expected a local rank"},
	}
	for _, c := range cases {
		got, multi, err := DetectLaunch(envOf(c.env))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || multi != c.multi || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: got %+v multi=%v err=%v, want %+v multi=%v", c.name, got, multi, err, c.want, c.multi)
		}
	}
}

func exchangeAll(t *testing.T, world int, mk func(rank int) *Launch) {
	t.Helper()
	id := make([]byte, 128)
	for i := range id {
		id[i] = byte(i * 7)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, world)
	got := make([][]byte, world)
	for r := world - 1; r >= 0; r-- { // peers start before rank 0
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			mine := make([]byte, 128)
			if r == 0 {
				mine = id
			}
			got[r], errs[r] = mk(r).ExchangeID(ctx, mine)
		}(r)
	}
	wg.Wait()
	for r := range world {
		if errs[r] != nil {
			t.Fatalf("rank %d: %v", r, errs[r])
		}
		if string(got[r]) != string(id) {
			t.Fatalf("rank %d got another id", r)
		}
	}
}

func TestExchangeIDThroughFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "id")
	exchangeAll(t, 4, func(r int) *Launch { return &Launch{Rank: r, World: 4, IDFile: p, JobID: "j1"} })
}

func TestExchangeIDThroughStore(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no loopback TCP:", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	exchangeAll(t, 3, func(r int) *Launch { return &Launch{Rank: r, World: 3, Store: addr} })
}

func TestExchangeIDNeedsAWay(t *testing.T) {
	_, err := (&Launch{Rank: 1, World: 2}).ExchangeID(context.Background(), make([]byte, 128))
	if err == nil || !strings.Contains(err.Error(), "--id-file") {
		t.Errorf("err %v", err)
	}
}

func TestExchangeIDTimesOut(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := (&Launch{Rank: 1, World: 2, IDFile: filepath.Join(t.TempDir(), "never")}).ExchangeID(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "waiting for unique id file") {
		t.Errorf("err %v", err)
	}
}
