package wpdb

// LoadStreams is the number of streams db's whole loads read on
// (Options.LoadStreams, capped), for the load benchmark's report.
func LoadStreams(db *DB) int { return db.streams }
