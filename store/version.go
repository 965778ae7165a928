package store

import sq "github.com/Masterminds/squirrel"

// Versions is the If-Match condition of a write: the row must be at one of
// the listed row versions (row_version, bumped by a trigger on every change
// of the row). The zero value is an unconditional write.
type Versions struct {
	list []int64
	on   bool
}

// AtVersions makes a write conditional on the row being at one of versions
// (an empty list matches no row).
func AtVersions(versions []int64) Versions {
	if versions == nil {
		versions = []int64{}
	}
	return Versions{list: versions, on: true}
}

// Conditional reports whether the write names versions.
func (v Versions) Conditional() bool { return v.on }

// Where is the condition on the version column col (row_version, or
// alias.row_version) for the WHERE of an UPDATE or DELETE: checked by the
// statement itself, so no change between a read and the write can slip by.
func (v Versions) Where(col string) sq.Sqlizer {
	if !v.on {
		return sq.Expr("TRUE")
	}
	return sq.Expr(col+" = ANY(?)", v.list)
}

// Arg is the condition as one argument of hand-written SQL, for
// `($n::bigint[] IS NULL OR row_version = ANY($n))`: NULL when unconditional.
func (v Versions) Arg() []int64 {
	if !v.on {
		return nil
	}
	return v.list
}
