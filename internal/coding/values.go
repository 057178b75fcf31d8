package coding

import (
	"context"
	"fmt"

	"greatbook/internal/database"
)

// Value is one value of a dimension as a coding form offers it.
type Value struct {
	Code   string
	Name   string
	Active bool
}

// Dimension is one of the org's dimensions with its values, by code.
type Dimension struct {
	Name   string
	Values []Value
}

// Dimensions lists the org's dimensions, by name, each with its values by
// code (the chart a coding form offers, with the names ChartOf leaves out).
func Dimensions(ctx context.Context, q database.Executor, orgID int64) ([]Dimension, error) {
	rows, err := q.Query(ctx, valuesSQL, orgID)
	if err != nil {
		return nil, fmt.Errorf("coding: dimensions of org %d: %w", orgID, err)
	}
	defer rows.Close()
	var out []Dimension
	for rows.Next() {
		var name string
		var code, valueName *string
		var active *bool
		if err := rows.Scan(&name, &code, &valueName, &active); err != nil {
			return nil, fmt.Errorf("coding: dimensions of org %d: %w", orgID, err)
		}
		if len(out) == 0 || out[len(out)-1].Name != name {
			out = append(out, Dimension{Name: name})
		}
		if code != nil {
			d := &out[len(out)-1]
			d.Values = append(d.Values, Value{Code: *code, Name: *valueName, Active: *active})
		}
	}
	return out, rows.Err()
}
