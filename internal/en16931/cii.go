package en16931

import "errors"

// FromCII reads a CII invoice into the semantic model.
func FromCII(data []byte) (*Invoice, error) { return nil, errors.New("todo") }
