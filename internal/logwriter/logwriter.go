// Package logwriter batches log lines on their way to the output, so that
// requests writing a line each do not serialize on a write call each.
package logwriter

import (
	"io"
	"sync"
	"time"
)

// maxLogBacklog is how many bytes of log lines may wait for the output
// before a writer waits for it in turn: a stalled output (a full pipe to
// journald) slows requests down, as a synchronous log would, instead of
// growing the heap.
const maxLogBacklog = 1 << 20

// flushDelay is how long the first line into an empty buffer waits for
// others before the buffer is written; flushBytes how much may gather before
// it is written at once. Written as soon as a line comes, a batch under
// load would hold a few lines, each request paying a share of a wake-up
// and a write system call. At 20 000 requests a second a millisecond
// gathers some 20.
const (
	flushDelay = time.Millisecond
	flushBytes = 64 << 10
)

// Writer batches the access log's lines on their way to the output
// (stderr). Written one by one, each line would be a write system call
// made under the log handler's lock, serializing the requests on it.
// Through Write a line is only copied into a buffer under a short lock;
// the first line into an empty buffer arms a timer, and the goroutine it
// wakes writes what has gathered in one call: a line is out within
// flushDelay (at flushBytes, at once). Every other line goes through Sync,
// which writes it, after the lines waiting, before returning: an error is
// on stderr when the request that logged it is answered, in the order
// logged. Close writes what is left; a line written after Close goes out
// directly.
type Writer struct {
	out   io.Writer
	timer *time.Timer   // armed by the first line into an empty buffer
	kick  chan struct{} // flushBytes gathered; capacity 1
	stop  chan struct{}
	done  chan struct{}

	// Lock order: flushMu, then mu. mu is never held across a write to
	// out, so a request adding its line never waits for the output.
	flushMu sync.Mutex // held while writing to out
	mu      sync.Mutex
	room    sync.Cond // signalled when the backlog is taken
	buf     []byte    // the lines waiting
	spare   []byte    // the buffer written last, reused; under flushMu
	closed  bool

	closeOnce sync.Once
}

func New(out io.Writer) *Writer {
	w := &Writer{out: out, timer: time.NewTimer(time.Hour), kick: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{})}
	w.timer.Stop()
	w.room.L = &w.mu
	go w.loop()
	return w
}

// Write keeps a copy of p (a log handler reuses its buffer) for the writing
// goroutine. Output errors are the output's: a log line has nowhere else to
// go, as with a plain stderr.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	for len(w.buf) >= maxLogBacklog && !w.closed {
		w.room.Wait()
	}
	if w.closed {
		w.mu.Unlock()
		return w.writeNow(p)
	}
	n := len(w.buf)
	w.buf = append(w.buf, p...)
	full := n < flushBytes && len(w.buf) >= flushBytes
	w.mu.Unlock()
	switch {
	case n == 0:
		// A timer armed for an earlier batch may still fire: it then
		// writes this batch early, which does no harm.
		w.timer.Reset(flushDelay)
	case full:
		select {
		case w.kick <- struct{}{}:
		default: // already kicked: the goroutine takes this line with the others
		}
	}
	return len(p), nil
}

// Sync is a writer whose lines are written before its Write returns, after
// the lines waiting.
func (w *Writer) Sync() io.Writer { return syncWriter{w} }

type syncWriter struct{ w *Writer }

func (s syncWriter) Write(p []byte) (int, error) { return s.w.writeNow(p) }

// writeNow writes the lines waiting, then p.
func (w *Writer) writeNow(p []byte) (int, error) {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.flushLocked()
	return w.out.Write(p)
}

func (w *Writer) loop() {
	defer close(w.done)
	for {
		select {
		case <-w.timer.C:
		case <-w.kick:
		case <-w.stop:
			w.timer.Stop()
			return
		}
		w.flushMu.Lock()
		w.flushLocked()
		w.flushMu.Unlock()
	}
}

// flushLocked writes the lines waiting, swapping in the spare buffer, so
// that two buffers serve for ever. Under flushMu.
func (w *Writer) flushLocked() {
	w.mu.Lock()
	b := w.buf
	w.buf = w.spare[:0]
	w.room.Broadcast()
	w.mu.Unlock()
	if len(b) > 0 {
		_, _ = w.out.Write(b)
	}
	w.spare = b
	if cap(b) > 4*maxLogBacklog {
		w.spare = nil // one huge line is not kept for ever
	}
}

// Close writes every line waiting; later lines are written directly, after
// them.
func (w *Writer) Close() error {
	w.closeOnce.Do(func() {
		close(w.stop)
		<-w.done
		w.flushMu.Lock()
		defer w.flushMu.Unlock()
		w.mu.Lock()
		w.closed = true
		w.room.Broadcast()
		w.mu.Unlock()
		w.flushLocked()
	})
	return nil
}
