package odds

// ReferenceOdds is referenceOdds (the brute-force enumeration) for the
// external tests of this package.
var ReferenceOdds = referenceOdds
