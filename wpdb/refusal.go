package wpdb

import (
	"errors"

	"github.com/go-sql-driver/mysql"
)

// Refusal says in words what to fix when the server answers but refuses
// catalogd's connection: a wrong user or password, a database the user may
// not use or that does not exist. These are the operator's to put right
// in the DSN or the grants, not a server that is away and comes back by
// itself; logged as "not reachable", a wrong password sent operators
// looking at the network. It is "" for any other error.
func Refusal(err error) string {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return ""
	}
	switch me.Number {
	case 1045, 1698: // ER_ACCESS_DENIED_ERROR; 1698: the account's plugin (unix_socket) refused it
		return "access denied: check the user and password in the DSN"
	case 1044: // ER_DBACCESS_DENIED_ERROR
		return "access to the database denied: check the database name in the DSN, or grant the user SELECT on it"
	case 1049: // ER_BAD_DB_ERROR
		return "unknown database: check the database name in the DSN"
	}
	return ""
}
