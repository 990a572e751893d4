// Command gen writes the demo shop (demoshop.Shop) as an SQL script that loads
// into MariaDB or MySQL 8 with the mysql client.
//
//	go run ./deploy/seed/gen [path]    (default deploy/seed/demo.sql)
package main

import (
	"bufio"
	"fmt"
	"os"

	"catalogd/internal/demoshop"
)

func main() {
	path := "deploy/seed/demo.sql"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	if err := write(path); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := demoshop.Shop().WriteSQL(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
