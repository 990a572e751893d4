package main

import (
	"io"
	"sync"
)

// maxLogBacklog is how many bytes of log lines may wait for the output
// before a writer waits for it in turn: a stalled output (a full pipe to
// journald) slows requests down, as a synchronous log would, instead of
// growing the heap.
const maxLogBacklog = 1 << 20

// logWriter batches the access log's lines on their way to the output
// (stderr). With the access log on, every request writes a line; written one
// by one, each line is a write system call made while the log handler's lock
// is held, which serializes the requests on it. Through Write a line is only
// copied into a buffer under a short lock; the first line into an empty
// buffer wakes one goroutine, which writes whatever has gathered in one call:
// idle, a line is out within microseconds; under load the lines that come
// while a write is under way share the next.
//
// Every other line goes through Sync, which writes it before returning,
// after the lines waiting: an error is on stderr when the request that
// logged it is answered, and the output keeps the order the lines were
// logged in. Close writes what is left; a line written after Close goes out
// directly.
type logWriter struct {
	out  io.Writer
	kick chan struct{} // the buffer was empty and a line came; capacity 1
	stop chan struct{}
	done chan struct{}

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

func newLogWriter(out io.Writer) *logWriter {
	w := &logWriter{out: out, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	w.room.L = &w.mu
	go w.loop()
	return w
}

// Write keeps a copy of p (a log handler reuses its buffer) for the writing
// goroutine. Output errors are the output's: a log line has nowhere else to
// go, as with a plain stderr.
func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	for len(w.buf) >= maxLogBacklog && !w.closed {
		w.room.Wait()
	}
	if w.closed {
		w.mu.Unlock()
		return w.writeNow(p)
	}
	first := len(w.buf) == 0
	w.buf = append(w.buf, p...)
	w.mu.Unlock()
	if first {
		select {
		case w.kick <- struct{}{}:
		default: // already kicked: the goroutine takes this line with the others
		}
	}
	return len(p), nil
}

// Sync is a writer whose lines are written before its Write returns, after
// the lines waiting.
func (w *logWriter) Sync() io.Writer { return syncLogWriter{w} }

type syncLogWriter struct{ w *logWriter }

func (s syncLogWriter) Write(p []byte) (int, error) { return s.w.writeNow(p) }

// writeNow writes the lines waiting, then p.
func (w *logWriter) writeNow(p []byte) (int, error) {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	w.flushLocked()
	return w.out.Write(p)
}

func (w *logWriter) loop() {
	defer close(w.done)
	for {
		select {
		case <-w.kick:
			w.flushMu.Lock()
			w.flushLocked()
			w.flushMu.Unlock()
		case <-w.stop:
			return
		}
	}
}

// flushLocked writes the lines waiting, swapping in the spare buffer, so
// that two buffers serve for ever. Under flushMu.
func (w *logWriter) flushLocked() {
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
func (w *logWriter) Close() error {
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
