package ownjson

// CheckJSON hands the structural check to the external tests, which check it alone.
var CheckJSON = checkJSON
