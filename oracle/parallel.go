package oracle

import "sync"

// Parallel answers lines on several workers and hands the answers to emit
// in the order the lines came: a conformance run's millions of requests
// use every core, and its output still lines up with its input.
type Parallel struct {
	o      *Oracle
	emit   func([]byte)
	jobs   chan job
	order  chan chan []byte
	wg     sync.WaitGroup
	closed chan struct{}
	// overrun holds a slot per request still running past the time
	// budget (Serve's streams only).
	overrun chan struct{}
}

type job struct {
	line []byte
	n    int // the line number in a stream (0: none, no time budget)
	out  chan []byte
}

// NewParallel starts workers (≥ 1) answering with o; emit is called from
// one goroutine, in submission order.
func NewParallel(o *Oracle, workers int, emit func([]byte)) *Parallel {
	workers = max(1, workers)
	p := &Parallel{o: o, emit: emit, jobs: make(chan job, workers),
		order: make(chan chan []byte, 4*workers), closed: make(chan struct{}),
		overrun: make(chan struct{}, workers)}
	for range workers {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for j := range p.jobs {
				if j.n == 0 {
					j.out <- o.HandleLine(j.line)
					continue
				}
				a, wait := o.handleTimed(j.n, j.line, p.overrun)
				j.out <- a
				if wait != nil {
					wait()
				}
			}
		}()
	}
	go func() {
		for out := range p.order {
			p.emit(<-out)
		}
		close(p.closed)
	}()
	return p
}

// Submit queues one line (copied: the caller may reuse it); it blocks when
// the workers are that far behind.
func (p *Parallel) Submit(line []byte) { p.SubmitLine(0, line) }

// SubmitLine is Submit for line n of a stream: the request is answered
// within the oracle's time budget, and an answer refused by the budget
// names the line.
func (p *Parallel) SubmitLine(n int, line []byte) {
	j := job{line: append([]byte(nil), line...), n: n, out: make(chan []byte, 1)}
	p.order <- j.out
	p.jobs <- j
}

// Answer queues an answer made without the workers (a line refused before
// it is parsed), in submission order.
func (p *Parallel) Answer(a []byte) {
	out := make(chan []byte, 1)
	out <- a
	p.order <- out
}

// Idle reports that no answer is waiting to be emitted: the emitter may
// flush its output.
func (p *Parallel) Idle() bool { return len(p.order) == 0 }

// Close waits for every answer to be emitted.
func (p *Parallel) Close() {
	close(p.jobs)
	close(p.order)
	p.wg.Wait()
	<-p.closed
}
