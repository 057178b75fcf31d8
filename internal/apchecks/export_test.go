package apchecks

// PreviousAccountsSQL is the bank-account check's query, for its plan test.
const PreviousAccountsSQL = previousAccountsSQL
