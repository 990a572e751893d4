package main

import (
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/dolthub/vitess/go/mysql"
)

// statementLog writes one JSON line for every statement a client sends
// (its text and, when it failed, the error the client got), so that a
// test can check that each statement catalogd sends runs here and what
// the server answered (-log-statements).
type statementLog struct {
	mu      sync.Mutex
	enc     *json.Encoder
	started bool // the seed is loaded: its own statements are not logged
}

// Statement is one line of the log.
type Statement struct {
	Query string `json:"query"`
	Error string `json:"error,omitempty"`
}

func newStatementLog(w io.Writer) *statementLog { return &statementLog{enc: json.NewEncoder(w)} }

// start logs the statements from now on.
func (l *statementLog) start() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.started = true
}

func (l *statementLog) record(query string, err error) {
	s := Statement{Query: query}
	if err != nil {
		s.Error = err.Error()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started {
		_ = l.enc.Encode(s) // a log for tests: a failed write only loses lines
	}
}

// wrap is a server.HandlerWrapper: the handler, with its statements logged.
func (l *statementLog) wrap(h mysql.Handler) (mysql.Handler, error) {
	return loggingHandler{Handler: h, log: l}, nil
}

// loggingHandler logs the statements of the two ways a client sends text.
type loggingHandler struct {
	mysql.Handler
	log *statementLog
}

func (h loggingHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	err := h.Handler.ComQuery(ctx, c, query, callback)
	h.log.record(query, err)
	return err
}

func (h loggingHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	rest, err := h.Handler.ComMultiQuery(ctx, c, query, callback)
	h.log.record(query[:len(query)-len(rest)], err)
	return rest, err
}
