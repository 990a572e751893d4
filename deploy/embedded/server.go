package main

import (
	"fmt"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/server"
	gms "github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
)

// newServer is the in-memory server holding one empty database, name, to
// be served on addr: the demo's, and its tests'. With log, every statement
// is written to it.
func newServer(addr, name string, log *statementLog) (*server.Server, error) {
	pro := memory.NewDBProvider(memory.NewDatabase(name))
	engine := sqle.NewDefault(pro)
	if err := unknownUpdateTimes(engine); err != nil {
		return nil, err
	}
	cfg := server.Config{Protocol: "tcp", Address: addr}
	if log == nil {
		return server.NewServer(cfg, engine, gms.NewContext, memory.NewSessionBuilder(pro), nil)
	}
	return server.NewServerWithHandler(cfg, engine, gms.NewContext, memory.NewSessionBuilder(pro), nil, log.wrap)
}

// unknownUpdateTimes makes information_schema.TABLES say that the server
// keeps no UPDATE_TIME (NULL), which is the truth: go-mysql-server
// v0.20.0 answers a constant 2000-01-01 for every table. catalogd's poll
// feed reads wp_posts' UPDATE_TIME to know whether to scan the products
// (wpdb/poll_gate.go): a time that never moves would tell it nothing was
// ever saved, and a demo edit would wait for the scan forced every five
// minutes. NULL is what a server without the time answers, and catalogd
// then scans on a period (a few milliseconds each, on the demo shop).
func unknownUpdateTimes(engine *sqle.Engine) error {
	ctx := gms.NewEmptyContext()
	t, ok, err := engine.Analyzer.Catalog.InfoSchema.GetTableInsensitive(ctx, information_schema.TablesTableName)
	if err != nil || !ok {
		return fmt.Errorf("information_schema.TABLES: %v", err)
	}
	ist, ok := t.(*information_schema.InformationSchemaTable)
	col := -1
	if ok {
		col = ist.TableSchema.IndexOfColName("UPDATE_TIME")
	}
	if col < 0 {
		return fmt.Errorf("information_schema.TABLES (%T) has no UPDATE_TIME column to clear", t)
	}
	read := ist.Reader
	ist.Reader = func(ctx *gms.Context, cat gms.Catalog) (gms.RowIter, error) {
		it, err := read(ctx, cat)
		if err != nil {
			return nil, err
		}
		return clearColumn{RowIter: it, col: col}, nil
	}
	return nil
}

// clearColumn is a RowIter whose rows have column col NULL.
type clearColumn struct {
	gms.RowIter
	col int
}

func (c clearColumn) Next(ctx *gms.Context) (gms.Row, error) {
	row, err := c.RowIter.Next(ctx)
	if err == nil && c.col < len(row) {
		row = append(gms.Row(nil), row...)
		row[c.col] = nil
	}
	return row, err
}
