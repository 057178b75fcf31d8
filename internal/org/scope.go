package org

import (
	"context"
	"fmt"

	"greatbook/internal/database"
)

// Scope is whose records a reader sees: one org's, or (an instance
// operator) every org's. The zero Scope sees nothing: every org's records
// are only ever read through AllOrgs, never by leaving an org id out.
type Scope struct {
	orgID int64
	all   bool
}

// Only is the scope of one org.
func Only(orgID int64) Scope { return Scope{orgID: orgID} }

// AllOrgs is the instance operator's scope: every org.
func AllOrgs() Scope { return Scope{all: true} }

// All reports whether s is every org's.
func (s Scope) All() bool { return s.all }

// OrgID is the one org s is, or 0 for AllOrgs.
func (s Scope) OrgID() int64 { return s.orgID }

// Narrow is s reduced to one org when the reader asked for one (orgID > 0)
// and may see it: an org's reader stays in its own org whatever they ask
// for, and the zero orgID leaves s as it is.
func (s Scope) Narrow(orgID int64) Scope {
	if s.all && orgID > 0 {
		return Only(orgID)
	}
	return s
}

// Where is the SQL condition that column (an org_id) is in s: for one org a
// comparison with the next argument, which it appends to args; for every
// org a condition that is always true. The zero Scope matches no row.
func (s Scope) Where(column string, args *[]any) string {
	if s.all {
		return scopeEveryOrg
	}
	*args = append(*args, s.orgID)
	return fmt.Sprintf(scopeOneOrg, column, len(*args))
}

// Slugs maps every org's id to its slug, for the pages of an instance
// operator, who lists the records of every org.
func Slugs(ctx context.Context, q database.Executor) (map[int64]string, error) {
	rows, err := q.Query(ctx, orgSlugsSQL)
	if err != nil {
		return nil, fmt.Errorf("org: slugs: %w", err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var slug string
		if err := rows.Scan(&id, &slug); err != nil {
			return nil, fmt.Errorf("org: slugs: %w", err)
		}
		out[id] = slug
	}
	return out, rows.Err()
}
