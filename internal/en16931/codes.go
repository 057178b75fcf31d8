package en16931

import "strings"

// codeSets is codeListValues as sets, built once.
var codeSets = func() map[CodeList]map[string]bool {
	sets := make(map[CodeList]map[string]bool, len(codeListValues))
	for list, values := range codeListValues {
		set := make(map[string]bool, len(values))
		for _, v := range values {
			set[v] = true
		}
		sets[list] = set
	}
	return sets
}()

// inCodeList reports whether value, space-normalised, is one code of the list (as the schematron's contains test).
func inCodeList(list CodeList, value string) bool {
	v := strings.Join(strings.Fields(value), " ")
	if strings.Contains(v, " ") {
		return false
	}
	return codeSets[list][v]
}

// officialRule is a rule's flag ("fatal" or "warning") and message as CEN publishes them.
type officialRule struct {
	Flag    string
	Message string
}
