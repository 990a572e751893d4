package wpdb

import (
	"errors"
	"fmt"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// A server without WEIGHT_STRING is told apart from a failing one: the
// title sort falls back to folded titles there, and only there.
func TestIsUnknownFunction(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"MariaDB and MySQL", &mysql.MySQLError{Number: 1305, Message: "FUNCTION wp.weight_string does not exist"}, true},
		{"the embedded server", &mysql.MySQLError{Number: 1105, Message: "function: 'weight_string' not found"}, true},
		{"wrapped", fmt.Errorf("read: %w", &mysql.MySQLError{Number: 1305, Message: "FUNCTION x does not exist"}), true},
		{"another 1105", &mysql.MySQLError{Number: 1105, Message: "syntax error at position 3"}, false},
		{"a lost connection", mysql.ErrInvalidConn, false},
		{"no error", nil, false},
		{"a plain error", errors.New("function: x not found"), false},
	} {
		if got := IsUnknownFunction(tc.err); got != tc.want {
			t.Errorf("%s: IsUnknownFunction(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
