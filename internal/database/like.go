package database

import "strings"

// LikeEscape makes s match itself in a LIKE pattern: its backslashes, '%'
// and '_' are literal, so that a search for "10%" finds "10%" and nothing
// else that starts with "10".
func LikeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
