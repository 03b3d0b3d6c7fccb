package hw

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Launch is one process's place in a job started by a launcher: one process
// per GPU, NCCL's unique id created by rank 0 and handed to the others
// through a shared file or a small TCP store. This is how hw runs across
// nodes; on one node, one process can instead drive every GPU.
type Launch struct {
	Launcher  string `json:"launcher"` // "mpirun", "mpich", "srun", "torchrun"
	Rank      int    `json:"rank"`
	World     int    `json:"world"`
	LocalRank int    `json:"local_rank"`
	// JobID tells this job's id file from an earlier one's.
	JobID string `json:"job_id,omitempty"`
	// IDFile (a path on a file system every rank sees) or Store (host:port
	// that rank 0 listens on) carries the unique id.
	IDFile string `json:"id_file,omitempty"`
	Store  string `json:"store,omitempty"`
}

// launchers lists the variables each launcher sets, in detection order.
var launchers = []struct {
	name, rank, world, local, job, marker string
}{
	{"mpirun", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_MCA_orte_ess_jobid", ""},
	{"mpich", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "PMI_ID", ""},
	{"srun", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_JOB_ID", "SLURM_STEP_ID"},
	{"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", "TORCHELASTIC_RUN_ID", ""},
}

// DetectLaunch reads the launcher's variables. ok is false when no launcher
// started this process or the job has one process (then one process drives
// every local GPU). A launcher whose variables are malformed is an error.
func DetectLaunch(getenv func(string) string) (l *Launch, ok bool, err error) {
	for _, s := range launchers {
		rs, ws := getenv(s.rank), getenv(s.world)
		if rs == "" || ws == "" || (s.marker != "" && getenv(s.marker) == "") {
			continue
		}
		rank, err1 := strconv.Atoi(rs)
		world, err2 := strconv.Atoi(ws)
		if err1 != nil || err2 != nil || world < 1 || rank < 0 || rank >= world {
			return nil, false, fmt.Errorf("launcher %s: %s=%q %s=%q: expected 0 <= rank < world", s.name, s.rank, rs, s.world, ws)
		}
		local := rank
		if v := getenv(s.local); v != "" {
			if local, err = strconv.Atoi(v); err != nil || local < 0 {
				return nil, false, fmt.Errorf("launcher %s: %s=%q: expected a local rank", s.name, s.local, v)
			}
		}
		l = &Launch{Launcher: s.name, Rank: rank, World: world, LocalRank: local, JobID: getenv(s.job)}
		if s.name == "torchrun" {
			if addr, port := getenv("MASTER_ADDR"), getenv("MASTER_PORT"); addr != "" && port != "" {
				// torchrun's own store listens on MASTER_PORT; use the next one.
				if p, err := strconv.Atoi(port); err == nil {
					l.Store = net.JoinHostPort(addr, strconv.Itoa(p+1))
				}
			}
		}
		return l, world > 1, nil
	}
	return nil, false, nil
}

// idFilePath is the id file of this job.
func (l *Launch) idFilePath() string {
	if l.JobID == "" {
		return l.IDFile
	}
	return l.IDFile + "." + l.JobID
}

// ExchangeID gives every rank rank 0's unique id: rank 0 calls it with its
// id and publishes it, the others wait for it (until ctx ends).
func (l *Launch) ExchangeID(ctx context.Context, id []byte) ([]byte, error) {
	switch {
	case l.Store != "":
		if l.Rank == 0 {
			return id, serveID(ctx, l.Store, id, l.World-1)
		}
		return dialID(ctx, l.Store, len(id))
	case l.IDFile != "":
		p := l.idFilePath()
		if l.Rank == 0 {
			return id, publishIDFile(p, id)
		}
		return waitIDFile(ctx, p, len(id))
	}
	return nil, errors.New("no way to exchange NCCL's unique id: give --id-file (a shared path) or --store host:port")
}

func publishIDFile(path string, id []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gatesim-id-*")
	if err != nil {
		return fmt.Errorf("unique id file: %w", err)
	}
	if _, err := tmp.Write(id); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("unique id file %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path) // readers never see half a file
}

func waitIDFile(ctx context.Context, path string, n int) ([]byte, error) {
	for {
		b, err := os.ReadFile(path)
		if err == nil && len(b) == n {
			return b, nil
		}
		if err == nil {
			return nil, fmt.Errorf("unique id file %s: %d bytes, expected %d", path, len(b), n)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for unique id file %s: %w", path, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// serveID listens on addr and writes id to each of `peers` connections.
func serveID(ctx context.Context, addr string, id []byte, peers int) error {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("unique id store: %w", err)
	}
	defer ln.Close()
	go func() { <-ctx.Done(); ln.Close() }()
	for i := 0; i < peers; i++ {
		c, err := ln.Accept()
		if err != nil {
			return fmt.Errorf("unique id store %s: %d of %d ranks connected: %w", addr, i, peers, err)
		}
		c.SetWriteDeadline(time.Now().Add(10 * time.Second))
		_, werr := c.Write(id)
		c.Close()
		if werr != nil {
			return fmt.Errorf("unique id store %s: %w", addr, werr)
		}
	}
	return nil
}

// dialID connects to rank 0's store, retrying until it listens.
func dialID(ctx context.Context, addr string, n int) ([]byte, error) {
	var d net.Dialer
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			b := make([]byte, n)
			_, rerr := io.ReadFull(c, b)
			c.Close()
			if rerr != nil {
				return nil, fmt.Errorf("unique id store %s: %w", addr, rerr)
			}
			return b, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("unique id store %s: %w (last error: %v)", addr, ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
