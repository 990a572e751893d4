//go:generate go run ./gen demo.sql

// Package seed holds demo.sql, the demo shop (internal/demoshop) as an SQL
// script for docker compose, make demo and manual testing, and its
// generator (gen; make seed). The shop itself lives in internal/ so that
// the tests and the soak, on the ground floor, build it without importing
// deploy/.
package seed
