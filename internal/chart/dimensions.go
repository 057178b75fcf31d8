package chart

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
)

// Value is a value of a dimension: a cost centre, a project.
type Value struct {
	Code   string `json:"code"`
	Name   string `json:"name"`
	Active bool   `json:"active"`
}

// Dimension is one of an org's dimensions with its values, by code.
type Dimension struct {
	Name   string  `json:"name"`
	Values []Value `json:"values"`
}

// ValueChange is a value as an admin sets it: Active nil keeps an existing
// value's state (a new value is active).
type ValueChange struct {
	Code   string `json:"code"`
	Name   string `json:"name"`
	Active *bool  `json:"active"`
}

// MaxValues bounds the values one change or one import sets.
const MaxValues = 10000

// Dimensions lists the org's dimensions by name, each with its values.
func Dimensions(ctx context.Context, q database.Executor, orgID int64) ([]Dimension, error) {
	rows, err := q.Query(ctx, dimensionsSQL, orgID)
	if err != nil {
		return nil, fmt.Errorf("chart: dimensions: %w", err)
	}
	defer rows.Close()
	out := []Dimension{}
	for rows.Next() {
		var name string
		var code, vname *string
		var active *bool
		if err := rows.Scan(&name, &code, &vname, &active); err != nil {
			return nil, fmt.Errorf("chart: dimensions: %w", err)
		}
		if len(out) == 0 || out[len(out)-1].Name != name {
			out = append(out, Dimension{Name: name, Values: []Value{}})
		}
		if code != nil {
			d := &out[len(out)-1]
			d.Values = append(d.Values, Value{Code: *code, Name: *vname, Active: *active})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("chart: dimensions: %w", err)
	}
	return out, nil
}

// PutValues creates dimension name if the org lacks it and sets the values
// given: new ones added, existing ones renamed, deactivated or reactivated;
// values not listed keep their state (a value is never deleted). It answers
// the dimension with all its values. The dimension's row is locked first,
// so that two changes of one dimension come one after the other. Audited
// when anything changed.
func PutValues(ctx context.Context, db database.Executor, orgID int64, name string, values []ValueChange, actor audit.Actor) (Dimension, error) {
	if err := CheckDimensionName(name); err != nil {
		return Dimension{}, err
	}
	if len(values) > MaxValues {
		return Dimension{}, apperr.New(apperr.Invalid, "at most %d values at once", MaxValues)
	}
	var faults []Fault
	seen := make(map[string]int, len(values))
	for i := range values {
		v := &values[i]
		v.Code, v.Name = strings.TrimSpace(v.Code), strings.TrimSpace(v.Name)
		field := fmt.Sprintf("values[%d]", i)
		if msg := checkCode(v.Code); msg != "" {
			faults = append(faults, Fault{Field: field + ".code", Message: msg})
		} else if j, dup := seen[v.Code]; dup {
			faults = append(faults, Fault{Field: field + ".code", Message: fmt.Sprintf("%s is listed already as values[%d]", v.Code, j)})
		} else {
			seen[v.Code] = i
		}
		if msg := checkName(v.Name); msg != "" {
			faults = append(faults, Fault{Field: field + ".name", Message: msg})
		}
	}
	if len(faults) > 0 {
		return Dimension{}, invalid("the values are not valid", faults)
	}
	d, _, err := putValues(ctx, db, orgID, name, values, actor, "")
	return d, err
}

// putValues writes checked values; file names the import they came from
// ("" for a request), for the audit trail.
func putValues(ctx context.Context, db database.Executor, orgID int64, name string, values []ValueChange, actor audit.Actor, file string) (Dimension, Imported, error) {
	var n Imported
	d, err := database.WithTxV(ctx, db, func(tx pgx.Tx) (Dimension, error) {
		var id int64
		created := true
		err := tx.QueryRow(ctx, insertDimensionSQL, orgID, name).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			created = false
			err = tx.QueryRow(ctx, lockDimensionSQL, orgID, name).Scan(&id)
		}
		if err != nil {
			return Dimension{}, fmt.Errorf("chart: dimension %s: %w", name, err)
		}
		have, err := readValues(ctx, tx, id)
		if err != nil {
			return Dimension{}, err
		}
		byCode := make(map[string]int, len(have))
		for i, v := range have {
			byCode[v.Code] = i
		}
		var codes, names []string
		var actives []bool
		var added, changed []string
		for _, c := range values {
			v := Value{Code: c.Code, Name: c.Name, Active: true}
			if i, ok := byCode[c.Code]; ok {
				v.Active = have[i].Active
				if c.Active != nil {
					v.Active = *c.Active
				}
				if v == have[i] {
					continue
				}
				changed = append(changed, v.Code)
			} else {
				if c.Active != nil {
					v.Active = *c.Active
				}
				added = append(added, v.Code)
			}
			codes, names, actives = append(codes, v.Code), append(names, v.Name), append(actives, v.Active)
		}
		if len(codes) > 0 {
			if _, err := tx.Exec(ctx, upsertValuesSQL, id, codes, names, actives); err != nil {
				return Dimension{}, fmt.Errorf("chart: values of %s: %w", name, err)
			}
		}
		if created {
			if err := audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "dimension_created", SubjectType: "dimension",
				SubjectID: id, Detail: map[string]any{"name": name}}); err != nil {
				return Dimension{}, err
			}
		}
		if len(codes) > 0 {
			detail := map[string]any{"dimension": name, "added": len(added), "changed": len(changed),
				"added_codes": firstCodes(added), "changed_codes": firstCodes(changed)}
			if file != "" {
				detail["file"] = file
			}
			if err := audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "dimension_values_set", SubjectType: "dimension",
				SubjectID: id, Detail: detail}); err != nil {
				return Dimension{}, err
			}
		}
		n = Imported{Rows: len(values), Added: len(added), Changed: len(changed)}
		all, err := readValues(ctx, tx, id)
		return Dimension{Name: name, Values: all}, err
	})
	return d, n, err
}

func readValues(ctx context.Context, q database.Executor, dimensionID int64) ([]Value, error) {
	rows, err := q.Query(ctx, valuesSQL, dimensionID)
	if err != nil {
		return nil, fmt.Errorf("chart: values: %w", err)
	}
	vs, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Value])
	if err != nil {
		return nil, fmt.Errorf("chart: values: %w", err)
	}
	if vs == nil {
		vs = []Value{}
	}
	return vs, nil
}

// firstCodes bounds the codes an audit event lists.
func firstCodes(codes []string) []string {
	if len(codes) > 100 {
		return codes[:100]
	}
	if codes == nil {
		return []string{}
	}
	return codes
}
